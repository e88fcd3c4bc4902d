/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 */
#include "gstmatchworker.h"

#include <system_error>

GstMatchWorker::~GstMatchWorker ()
{
  if (!thread_.joinable ())
    return;
  {
    std::unique_lock<std::mutex> guard (lock_);
    cond_.wait (guard, [this] { return !busy_; });
    quit_ = true;
  }
  cond_.notify_all ();
  thread_.join ();
}

bool
GstMatchWorker::start (void (*job) (void *), void * data)
{
  if (!thread_.joinable ()) {
    try {
      thread_ = std::thread (&GstMatchWorker::loop, this);
    } catch (const std::system_error &) {
      return false;
    }
  }
  {
    std::lock_guard<std::mutex> guard (lock_);
    job_ = job;
    data_ = data;
    busy_ = true;
  }
  cond_.notify_all ();
  return true;
}

void
GstMatchWorker::wait ()
{
  std::unique_lock<std::mutex> guard (lock_);
  cond_.wait (guard, [this] { return !busy_; });
}

void
GstMatchWorker::loop ()
{
  std::unique_lock<std::mutex> guard (lock_);
  for (;;) {
    cond_.wait (guard, [this] { return quit_ || job_ != nullptr; });
    if (quit_)
      return;
    void (*job) (void *) = job_;
    void * data = data_;
    job_ = nullptr;
    /* The job runs unlocked: wait () sleeps meanwhile. */
    guard.unlock ();
    job (data);
    guard.lock ();
    busy_ = false;
    cond_.notify_all ();
  }
}
