/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * One job at a time on a second thread of the element's own, so that the
 * streaming thread can go on meanwhile and then wait for it: the motion
 * elements decide on a GPU frame's field while the next frame is handed
 * to the GPU (gstmatchfilter.cpp). The thread starts with the first job
 * and sleeps on a condition variable between jobs (no busy waiting); a job
 * is a function and a pointer, so that starting one allocates nothing.
 */
#ifndef __GST_MATCH_WORKER_H__
#define __GST_MATCH_WORKER_H__

#include <condition_variable>
#include <mutex>
#include <thread>

class GstMatchWorker
{
public:
  GstMatchWorker () = default;
  GstMatchWorker (const GstMatchWorker &) = delete;
  GstMatchWorker & operator= (const GstMatchWorker &) = delete;
  /* Waits for the job in progress, then ends the thread. */
  ~GstMatchWorker ();

  /* Runs job (data) on the worker thread; the previous job must have been
   * waited for. Returns false (and runs nothing) when no thread can be
   * made: the caller then runs the job itself. */
  bool start (void (*job) (void *), void * data);
  /* Until the started job has returned (at once when none is). */
  void wait ();

private:
  void loop ();

  std::thread thread_;
  std::mutex lock_;
  std::condition_variable cond_;
  void (*job_) (void *) = nullptr;
  void * data_ = nullptr;
  bool busy_ = false; /* a job is started and not yet done */
  bool quit_ = false;
};

#endif /* __GST_MATCH_WORKER_H__ */
