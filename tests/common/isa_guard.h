/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * MATCH_CPU_ISA (kernels/cpu/cpu_isa.h) set for a scope, so that a test
 * runs each instruction set's CPU loops against the reference: `isa`
 * null leaves the best the CPU has.
 */
#pragma once

#include <cstdlib>

struct IsaGuard {
  explicit IsaGuard(const char* isa) {
    if (isa)
      setenv("MATCH_CPU_ISA", isa, 1);
    else
      unsetenv("MATCH_CPU_ISA");
  }
  ~IsaGuard() { unsetenv("MATCH_CPU_ISA"); }
  IsaGuard(const IsaGuard&) = delete;
  IsaGuard& operator=(const IsaGuard&) = delete;
};
