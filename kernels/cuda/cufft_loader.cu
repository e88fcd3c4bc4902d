/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * Run-time loading of cuFFT (see cufft_loader.h for why).
 */
#include "cufft_loader.h"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <vector>

#include "match/log.h"

namespace match {
namespace cuda {

namespace {

CufftApi g_api;
bool g_loaded = false;
std::string g_error;

template <typename F>
bool bind(void* lib, const char* name, F* fn, std::string* missing) {
  *fn = reinterpret_cast<F>(dlsym(lib, name));
  if (!*fn) *missing += std::string(missing->empty() ? "" : ", ") + name;
  return *fn != nullptr;
}

void load() {
  const std::string soname = "libcufft.so." + std::to_string(CUFFT_VER_MAJOR);
  std::vector<std::string> candidates;
  if (const char* env = std::getenv("MATCH_CUFFT_LIBRARY"))
    if (*env) candidates.push_back(env);
  candidates.push_back(soname);
  for (const char* root :
       {"/usr/local/cuda/lib64/", "/usr/local/cuda/targets/x86_64-linux/lib/",
        "/usr/local/cuda/targets/sbsa-linux/lib/"})
    candidates.push_back(std::string(root) + soname);

  std::string tried;
  for (const std::string& path : candidates) {
    void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      const char* e = dlerror();
      tried += "\n  " + path + ": " + (e ? e : "not found");
      continue;
    }
    std::string missing;
    CufftApi a;
    bind(lib, "cufftCreate", &a.create, &missing);
    bind(lib, "cufftDestroy", &a.destroy, &missing);
    bind(lib, "cufftSetAutoAllocation", &a.set_auto_allocation, &missing);
    bind(lib, "cufftMakePlanMany", &a.make_plan_many, &missing);
    bind(lib, "cufftSetWorkArea", &a.set_work_area, &missing);
    bind(lib, "cufftSetStream", &a.set_stream, &missing);
    bind(lib, "cufftExecR2C", &a.exec_r2c, &missing);
    bind(lib, "cufftExecC2R", &a.exec_c2r, &missing);
    bind(lib, "cufftGetVersion", &a.get_version, &missing);
    if (!missing.empty()) {
      tried += "\n  " + path + ": lacks " + missing;
      dlclose(lib);
      continue;
    }
    a.path = path;
    g_api = a;
    g_loaded = true;
    int version = 0;
    a.get_version(&version);
    log(LogLevel::kInfo, "cuFFT %d loaded from %s", version, path.c_str());
    return;
  }
  g_error = "cuFFT (" + soname + ") could not be loaded; tried:" + tried;
  log(LogLevel::kInfo, "%s", g_error.c_str());
}

}  // namespace

const CufftApi* cufft_api(std::string* error) {
  static std::once_flag once;
  std::call_once(once, load);
  if (!g_loaded && error) *error = g_error;
  return g_loaded ? &g_api : nullptr;
}

const char* cufft_result_name(cufftResult r) {
  switch (r) {
    case CUFFT_SUCCESS:
      return "CUFFT_SUCCESS";
    case CUFFT_INVALID_PLAN:
      return "CUFFT_INVALID_PLAN";
    case CUFFT_ALLOC_FAILED:
      return "CUFFT_ALLOC_FAILED";
    case CUFFT_INVALID_TYPE:
      return "CUFFT_INVALID_TYPE";
    case CUFFT_INVALID_VALUE:
      return "CUFFT_INVALID_VALUE";
    case CUFFT_INTERNAL_ERROR:
      return "CUFFT_INTERNAL_ERROR";
    case CUFFT_EXEC_FAILED:
      return "CUFFT_EXEC_FAILED";
    case CUFFT_SETUP_FAILED:
      return "CUFFT_SETUP_FAILED";
    case CUFFT_INVALID_SIZE:
      return "CUFFT_INVALID_SIZE";
    case CUFFT_INVALID_DEVICE:
      return "CUFFT_INVALID_DEVICE";
    case CUFFT_NO_WORKSPACE:
      return "CUFFT_NO_WORKSPACE";
    case CUFFT_NOT_IMPLEMENTED:
      return "CUFFT_NOT_IMPLEMENTED";
    case CUFFT_NOT_SUPPORTED:
      return "CUFFT_NOT_SUPPORTED";
    default:
      return "cufftResult (unknown)";
  }
}

}  // namespace cuda
}  // namespace match
