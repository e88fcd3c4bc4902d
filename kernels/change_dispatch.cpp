/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * The change stage's checks and factory (match/change.h).
 */
#include <cmath>
#include <string>

#include "internal.h"
#include "match/change.h"

namespace match {

Status ChangeConfig::validate() const {
  if (Status st = check_frame_size(width, height, "change: "); !st) return st;
  if (scale < 1 || scale > 16)
    return Status(StatusCode::kInvalidArgument, "change: scale outside 1..16");
  if (history < 2 || history > 128)
    return Status(StatusCode::kInvalidArgument, "change: history outside 2..128");
  if (background_every < 0 || background_every > 64)
    return Status(StatusCode::kInvalidArgument, "change: background_every outside 0..64");
  return Status::ok();
}

int change_scale_for(int width, int height) {
  const double area = (double)width * height;
  const int s = (int)std::ceil(std::sqrt(area / (320.0 * 240.0 * 2.0)));
  return s < 1 ? 1 : (s > 16 ? 16 : s);
}

Status ChangeDetector::create(Backend backend, const ChangeConfig& config,
                              std::unique_ptr<ChangeDetector>* out, int device) {
  Status st = config.validate();
  if (!st) return st;
  if (backend == Backend::kCuda) return cuda::create_change_detector(config, device, out);
  *out = make_change_cpu(config);
  return Status::ok();
}

}  // namespace match
