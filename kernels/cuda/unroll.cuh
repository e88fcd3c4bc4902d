/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * MATCH_UNROLL: `#pragma unroll` for the device compilation only. Loops
 * over register arrays must be unrolled on the device (static indices keep
 * them in registers); the host compiler, which also sees the __host__
 * __device__ code for the emulations, does not know the pragma.
 */
#pragma once

#if defined(__CUDA_ARCH__)
#define MATCH_UNROLL _Pragma("unroll")
#else
#define MATCH_UNROLL
#endif
