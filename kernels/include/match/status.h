/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * match::Status: the only way kernel code reports failure to its callers.
 * No exception crosses the kernels/ API boundary (see create_preferring_cuda in backend.h).
 */
#pragma once

#include <string>
#include <utility>

namespace match {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,  // bad geometry or parameters
  kUnavailable,      // backend not built in, or no device could be opened
  kOutOfMemory,
  kDeviceError,  // a CUDA call failed
  kInternal,
  kUnsupported,  // the backend cannot take this input (e.g. a frame in
                 // device memory on the CPU backend); the caller has
                 // another way (submit() from host memory)
};

class Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message)
      : code_(code), message_(std::move(message)) {}
  /* A failure about one setting: `field` names it as the configuration
   * struct does ("window_size", "cost_window"). */
  Status(StatusCode code, std::string message, std::string field)
      : code_(code), message_(std::move(message)), field_(std::move(field)) {}

  static Status ok() { return Status(); }

  bool is_ok() const { return code_ == StatusCode::kOk; }
  explicit operator bool() const { return is_ok(); }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  /* The configuration field that a kInvalidArgument failure is about, so
   * that callers can name their own setting for it; empty when the
   * failure is not about one field (a frame of the wrong size, a device
   * error). */
  const std::string& field() const { return field_; }

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
  std::string field_;
};

}  // namespace match
