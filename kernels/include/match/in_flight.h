/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * The ring behind the default submit()/collect() of every matcher
 * (BlockMatcher, PocMatcher, StereoMatcher): a backend that computes
 * inside submit() (the CPU ones) keeps each result in a slot until
 * collect() hands it over, in submission order. Part of the public headers
 * only because the matchers hold it as a protected member; not an API of
 * its own.
 */
#pragma once

#include <algorithm>
#include <cstddef>
#include <exception>
#include <new>
#include <string>
#include <vector>

#include "match/common.h"
#include "match/status.h"

namespace match {

/* Up to kMaxInFlight results of type Slot. The slots are allocated on the
 * first submit() and reused, and a Slot that keeps its buffers (a
 * std::vector resized to the same size) allocates nothing per frame.
 * Backends with their own pipeline (the CUDA ones) use only the count
 * (push(), pop(), clear()) so that in_flight() reads the same for all. */
template <typename Slot>
class InFlightRing {
 public:
  int count() const { return count_; }
  void push() { ++count_; }
  void pop() {
    head_ = (head_ + 1) % kMaxInFlight;
    --count_;
  }
  void clear() {
    count_ = 0;
    head_ = 0;
  }

  /* The default submit(): refuses beyond min(limit, kMaxInFlight) results
   * in flight, then fill(Slot&) -> Status computes into the next slot,
   * which is queued when it succeeds. While fill runs count() reads 0: it
   * calls the matcher's process(), which wants nothing in flight, and the
   * ring is ours to hide. `what` names one item in messages ("frame"). */
  template <typename Fill>
  Status submit(int limit, const char* what, Fill&& fill) {
    if (count_ >= std::min(limit, kMaxInFlight))
      return Status(StatusCode::kInvalidArgument,
                    std::string("too many ") + what + "s in flight: collect() first");
    const int saved = count_;
    Status st;
    try {
      if (slots_.size() != static_cast<size_t>(kMaxInFlight)) slots_.resize(kMaxInFlight);
      Slot& slot = slots_[(head_ + count_) % kMaxInFlight];
      count_ = 0;
      st = fill(slot);
    } catch (const std::bad_alloc&) {
      st = Status(StatusCode::kOutOfMemory,
                  std::string("out of memory queueing a ") + what);
    } catch (const std::exception& e) {
      st = Status(StatusCode::kInternal, e.what());
    }
    count_ = saved;
    if (st) push();
    return st;
  }

  /* The default collect(): drain(const Slot&) -> Status hands the oldest
   * result over; it leaves the ring only when drain succeeds. */
  template <typename Drain>
  Status collect(const char* what, Drain&& drain) {
    if (count_ == 0)
      return Status(StatusCode::kInvalidArgument,
                    std::string("no ") + what + " in flight");
    Status st = drain(static_cast<const Slot&>(slots_[head_]));
    if (st) pop();
    return st;
  }

 private:
  std::vector<Slot> slots_;
  int count_ = 0;
  int head_ = 0;
};

/* The slot of a matcher whose result is one vector per block
 * (BlockMatcher, PocMatcher). */
template <typename Vector>
struct VectorSlot {
  std::vector<Vector> vectors;
  bool estimated = false;
};

/* The ring of such a matcher, with its default submit()/collect():
 * process(Vector* out, bool* estimated) -> Status fills num_blocks
 * vectors. */
template <typename Vector>
class VectorRing : public InFlightRing<VectorSlot<Vector>> {
 public:
  template <typename Process>
  Status submit_vectors(int limit, int num_blocks, Process&& process) {
    return this->submit(limit, "frame", [&](VectorSlot<Vector>& slot) {
      slot.vectors.resize(num_blocks);
      return process(slot.vectors.data(), &slot.estimated);
    });
  }

  Status collect_vectors(int num_blocks, Vector* out, bool* estimated) {
    return this->collect("frame", [&](const VectorSlot<Vector>& slot) {
      if (!out) return Status(StatusCode::kInvalidArgument, "no output array");
      const size_t n = std::min(slot.vectors.size(), static_cast<size_t>(num_blocks));
      std::copy(slot.vectors.begin(), slot.vectors.begin() + n, out);
      if (estimated) *estimated = slot.estimated;
      return Status::ok();
    });
  }
};

}  // namespace match
