/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * The CPU backends' instruction-set choice, made once here for block
 * matching, stereo and the POC FFT: cpuid at run time, lowered by the
 * environment variable MATCH_CPU_ISA=scalar|sse2|avx2 (the tests use it to
 * check every path against ref/). Whether a SIMD translation unit was
 * built at all (MATCH_HAVE_AVX2_TU, MATCH_HAVE_AVX512_TU) stays with its
 * caller.
 */
#pragma once

namespace match {
namespace cpu {

/* Instruction set used by the SAD and stereo loops. */
enum class Isa { kScalar = 0, kSse2 = 1, kAvx2 = 2 };
Isa detect_isa();
const char* isa_name(Isa isa);

/* FMA on top of `isa` == kAvx2 (the FFT's AVX2 build is compiled with
 * -mfma, so it needs both). */
bool isa_has_fma(Isa isa);

/* AVX-512F and BW on top of `isa` == kAvx2 (the stereo 16-bit loop). Isa
 * stops at AVX2, so this is an extension of it: MATCH_CPU_ISA = scalar,
 * sse2 or avx2 keeps it off; any other value (e.g. avx512) leaves the best. */
bool isa_has_avx512bw(Isa isa);

/* isa_has_avx512bw and AVX512-VPOPCNTDQ (the SGM kernels' census costs). */
bool isa_has_avx512_vpopcntdq(Isa isa);

}  // namespace cpu
}  // namespace match
