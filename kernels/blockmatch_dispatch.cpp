/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * BlockMatchConfig validation, BlockMatcher::create() (through
 * create_preferring_cuda, backend.h: the exception barrier, nothing thrown
 * inside the kernels crosses into gst/) and the default submit()/collect()
 * of backends that compute inside submit() (the CPU backend).
 */
#include <algorithm>
#include <new>
#include <string>

#include "backend.h"
#include "internal.h"
#include "match/blockmatch.h"
#include "match/log.h"

namespace match {

Status BlockMatchConfig::validate() const {
  auto bad = [](const char* field, const std::string& what) {
    return Status(StatusCode::kInvalidArgument, what, field);
  };
  if (Status st = check_frame_size(width, height); !st) return st;
  if (block_width < 1 || block_height < 1 || block_width > kMaxBlockSize ||
      block_height > kMaxBlockSize)
    return bad(
        block_width < 1 || block_width > kMaxBlockSize ? "block_width" : "block_height",
        "block size " + std::to_string(block_width) + "x" + std::to_string(block_height) +
            " out of range 1.." + std::to_string(kMaxBlockSize));
  if (range_x < 0 || range_y < 0 || range_x > kMaxSearchRange ||
      range_y > kMaxSearchRange)
    return bad(range_x < 0 || range_x > kMaxSearchRange ? "range_x" : "range_y",
               "search range out of range 0.." + std::to_string(kMaxSearchRange));
  if (subpel != 1 && subpel != 2 && subpel != 4)
    return bad("subpel", "sub-pixel grid must be 1, 2 or 4 steps per pixel");
  if (static_cast<int>(method) < 0 ||
      static_cast<int>(method) > static_cast<int>(SearchMethod::kPredictive))
    return bad("method", "unknown search method");
  if (method == SearchMethod::kHierarchical) {
    if (levels < 2 || levels > kMaxLevels)
      return bad("levels", "levels must be 2.." + std::to_string(kMaxLevels));
    if (predictors < 1 || predictors > kMaxPredictors)
      return bad("predictors", "predictors must be 1.." + std::to_string(kMaxPredictors));
  }
  if (method == SearchMethod::kPredictive && (passes < 2 || passes > kMaxPasses))
    return bad("passes", "passes must be 2.." + std::to_string(kMaxPasses));
  return Status::ok();
}

const char* search_method_name(SearchMethod m) {
  switch (m) {
    case SearchMethod::kFull:
      return "full";
    case SearchMethod::kHierarchical:
      return "hierarchical";
    case SearchMethod::kThreeStep:
      return "three-step";
    case SearchMethod::kDiamond:
      return "diamond";
    case SearchMethod::kHexagon:
      return "hexagon";
    case SearchMethod::kPredictive:
      return "predictive";
  }
  return "unknown";
}

int predictive_rate_steps(const BlockMatchRuntime& rt) {
  const double r = rt.predictive_rate * 64.0;
  if (!(r > 0.0)) return 0; /* NaN too */
  return r >= 256.0 ? 256 : static_cast<int>(r + 0.5);
}

bool BlockMatchConfig::operator==(const BlockMatchConfig& o) const {
  return width == o.width && height == o.height && block_width == o.block_width &&
         block_height == o.block_height && range_x == o.range_x && range_y == o.range_y &&
         subpel == o.subpel && direction == o.direction && method == o.method &&
         (method != SearchMethod::kHierarchical ||
          (levels == o.levels && predictors == o.predictors)) &&
         (method != SearchMethod::kPredictive || passes == o.passes);
}

Status BlockMatcher::create(Backend backend, const BlockMatchConfig& config,
                            std::unique_ptr<BlockMatcher>* out,
                            const DeviceOptions& devices) {
  return create_preferring_cuda("block", backend, config, out, devices,
                                cuda::create_block_matcher, cpu::create_block_matcher);
}

/* Default pipelining for backends that compute inside submit(): the
 * results wait in the ring (in_flight.h), sized once per configuration. */
Status BlockMatcher::submit(const ImageView& luma, const BlockMatchRuntime& rt) {
  return pending_.submit_vectors(max_in_flight(), config_.num_blocks(),
                                 [&](BlockVector* out, bool* estimated) {
                                   return process(luma, rt, out, estimated);
                                 });
}

Status BlockMatcher::collect(BlockVector* out, bool* estimated) {
  return pending_.collect_vectors(config_.num_blocks(), out, estimated);
}

/* Backends without device input (CPU): the caller falls back to submit()
 * from host memory. */
Status BlockMatcher::submit_device(const DeviceImageView&, const BlockMatchRuntime&) {
  return host_memory_only(backend());
}

/* Backends that keep no frame on a GPU. */
bool BlockMatcher::collected_frame(int, DeviceImageView*) { return false; }

}  // namespace match
