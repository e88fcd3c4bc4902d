/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * Built when the CUDA backend is not: backend=cuda then fails with a clear
 * message and backend=auto uses the CPU. The CUDA block matcher replaces
 * this file when it lands (see docs/roadmap in README).
 */
#include "internal.h"

namespace match {
namespace cuda {

bool available() { return false; }

Status create_block_matcher(const BlockMatchConfig&,
                            std::unique_ptr<BlockMatcher>*) {
  return Status(StatusCode::kUnavailable,
                "this build has no CUDA block-matching backend");
}

}  // namespace cuda
}  // namespace match
