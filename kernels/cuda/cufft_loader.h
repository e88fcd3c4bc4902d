/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * cuFFT opened at run time (dlopen), so that it is never a load-time
 * dependency of the plugin: libgstmotion.so links no CUDA library
 * dynamically (cudart is static), and cuFFT (about 290 MB, shipped only
 * as a shared library in CUDA 13) is looked for only when a CUDA POC
 * matcher is created. Where it is missing, the CUDA POC backend reports
 * kUnavailable and backend=auto uses the CPU.
 *
 * Search order: $MATCH_CUFFT_LIBRARY (a path), then libcufft.so.<major of
 * the cuFFT headers we built against> through the loader's search path,
 * then <CUDA root>/lib64 and the targets/ directories of /usr/local/cuda.
 */
#pragma once

#include <string>

#include <cufft.h>

namespace match {
namespace cuda {

struct CufftApi {
  cufftResult (*create)(cufftHandle*);
  cufftResult (*destroy)(cufftHandle);
  cufftResult (*set_auto_allocation)(cufftHandle, int);
  cufftResult (*make_plan_many)(cufftHandle, int, int*, int*, int, int, int*, int, int,
                                cufftType, int, size_t*);
  cufftResult (*set_work_area)(cufftHandle, void*);
  cufftResult (*set_stream)(cufftHandle, cudaStream_t);
  cufftResult (*exec_r2c)(cufftHandle, cufftReal*, cufftComplex*);
  cufftResult (*exec_c2r)(cufftHandle, cufftComplex*, cufftReal*);
  cufftResult (*get_version)(int*);
  std::string path; /* the library that was opened */
};

/* The loaded API, or nullptr with *error saying what was tried. Loads once
 * (thread-safe); the library stays loaded for the process's lifetime. */
const CufftApi* cufft_api(std::string* error);

const char* cufft_result_name(cufftResult r);

}  // namespace cuda
}  // namespace match
