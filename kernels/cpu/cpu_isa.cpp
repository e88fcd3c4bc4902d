/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * Run-time instruction-set detection for every CPU backend (cpu_isa.h).
 */
#include "cpu_isa.h"

#include <cstdlib>
#include <cstring>

namespace match {
namespace cpu {

Isa detect_isa() {
  Isa best = Isa::kScalar;
#if defined(__x86_64__) || defined(__i386__)
  best = Isa::kSse2;
  if (__builtin_cpu_supports("avx2")) best = Isa::kAvx2;
#endif
  if (const char* env = std::getenv("MATCH_CPU_ISA")) {
    Isa want = best;
    if (!std::strcmp(env, "scalar"))
      want = Isa::kScalar;
    else if (!std::strcmp(env, "sse2"))
      want = Isa::kSse2;
    else if (!std::strcmp(env, "avx2"))
      want = Isa::kAvx2;
    if (static_cast<int>(want) < static_cast<int>(best)) best = want;
  }
  return best;
}

const char* isa_name(Isa isa) {
  switch (isa) {
    case Isa::kScalar:
      return "scalar";
    case Isa::kSse2:
      return "sse2";
    case Isa::kAvx2:
      return "avx2";
  }
  return "?";
}

bool isa_has_fma(Isa isa) {
#if defined(__x86_64__) || defined(__i386__)
  return isa == Isa::kAvx2 && __builtin_cpu_supports("fma");
#else
  (void)isa;
  return false;
#endif
}

bool isa_has_avx512bw(Isa isa) {
#if defined(__x86_64__) || defined(__i386__)
  if (isa != Isa::kAvx2 || !__builtin_cpu_supports("avx512f") ||
      !__builtin_cpu_supports("avx512bw"))
    return false;
  /* An explicit AVX2-or-lower request also rules out AVX-512. */
  const char* env = std::getenv("MATCH_CPU_ISA");
  return !env || (std::strcmp(env, "scalar") && std::strcmp(env, "sse2") &&
                  std::strcmp(env, "avx2"));
#else
  (void)isa;
  return false;
#endif
}

bool isa_has_avx512_vpopcntdq(Isa isa) {
#if defined(__x86_64__) || defined(__i386__)
  return isa_has_avx512bw(isa) && __builtin_cpu_supports("avx512vpopcntdq");
#else
  return isa_has_avx512bw(isa);
#endif
}

}  // namespace cpu
}  // namespace match
