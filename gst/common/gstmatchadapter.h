/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * The matcher of a GstMatchFilter subclass, as the base class sees it. A
 * subclass's one vfunc, create_adapter(), is a factory (as gstreamer-imx's
 * create_blitter): it returns a GstMatchAdapterT over its traits, and the
 * base class does the rest with it (setup at caps, reset, release,
 * reconfigure, submit, collect).
 *
 * The traits of a subclass (blockmatchme: match::BlockMatcher; pocme:
 * match::PocMatcher) say what is its own:
 *
 *   struct Traits
 *   {
 *     typedef ... Matcher;      // match::BlockMatcher, match::PocMatcher
 *     typedef ... Config;       // its configuration (Matcher::config ())
 *     typedef ... Vector;       // the vectors collect() fills
 *     typedef ... Settings;     // the element's plain settings struct
 *     // The configuration for width x height frames.
 *     static Config make_config (const Settings & s, int width, int height);
 *     // The per-frame values (thresholds, threads).
 *     static ... make_runtime (const Settings & s, guint n_threads);
 *     // The search's reach in whole pixels, x and y (0: not known).
 *     static void reach (const Config & cfg, int * x, int * y);
 *     // The search widened `factor` times (a camera shaking beyond it);
 *     // false where the settings do not widen it.
 *     static bool widen (const Settings & s, int factor, Config * cfg);
 *     // Attaches the meta of the collected vectors (through
 *     // gst_match_filter_attach_meta()) and fills it; NULL when it cannot.
 *     static GstMotionVectorsMeta *fill_meta (GstMatchFilter * filter,
 *         GstBuffer * buf, const Config & cfg, const Vector * vectors,
 *         gboolean estimated);
 *   };
 *
 * The settings live in the adapter: the base class sets and reads the
 * subclass's properties there (common/gstmatchsettings.h) under the object
 * lock, and the adapter copies them under it before use.
 */
#ifndef __GST_MATCH_ADAPTER_H__
#define __GST_MATCH_ADAPTER_H__

#include <memory>
#include <string>
#include <vector>

#include "common/gstmatchfilter.h"

/* A frame size every setting accepts, where there is no frame yet: the
 * settings checked at start, the CUDA probe. */
#define GST_MATCH_ADAPTER_STAND_IN_SIZE 64

class GstMatchAdapter
{
public:
  virtual ~GstMatchAdapter () = default;

  /* The subclass's settings struct (object lock). */
  virtual gpointer settings () = 0;
  /* The kernels' check of the current settings for width x height frames
   * (no matcher made). */
  virtual match::Status validate (int width, int height) = 0;
  /* Makes a matcher of the current settings for width x height frames on
   * `backend` and `devices`, replacing any. */
  virtual match::Status create (match::Backend backend, int width, int height,
      const match::DeviceOptions & devices) = 0;
  /* Can a matcher be made on these CUDA devices (start, backend=cuda)? */
  virtual match::Status probe (const match::DeviceOptions & devices) = 0;
  /* Drops the matcher (stop, a new format). */
  virtual void release () = 0;

  /* The matcher made by create(): the backend running, active-backend's
   * description, the most frames it takes in flight. */
  virtual match::Backend backend () const = 0;
  virtual std::string description () const = 0;
  virtual int max_in_flight () const = 0;

  /* Forgets the reference frame and the frames in flight. */
  virtual void reset () = 0;
  /* Do the current settings ask for another configuration? */
  virtual bool config_changed (int width, int height) = 0;
  /* Applies them, keeping the reference frame (nothing in flight). */
  virtual match::Status reconfigure (int width, int height) = 0;
  /* Queues a frame's luma: `luma` in host memory, or `device_luma` (CUDA
   * memory; kUnsupported where the backend cannot take it). */
  virtual match::Status submit (const match::ImageView * luma,
      const match::DeviceImageView * device_luma, guint n_threads) = 0;
  /* Collects the oldest submitted frame's vectors into a meta on `buf`
   * (reference_pts: the frame before it); an OK status with *meta NULL
   * when the meta could not be attached. */
  virtual match::Status collect (GstBuffer * buf, GstClockTime reference_pts,
      GstMotionVectorsMeta ** meta) = 0;
  /* The matcher's device copy of the frame collected last, on CUDA device
   * `device`, valid until the next submit or reset (the matchers'
   * collected_frame()); false where there is none. */
  virtual bool collected_frame (int device, match::DeviceImageView * out) = 0;
  /* The CPU team the matcher's last frame ran with, 0 where none (the
   * matchers' team()). */
  virtual int team () const = 0;
  /* The matcher's search reach in whole pixels, x and y (0: not known). */
  virtual void reach (int * x, int * y) const = 0;
  /* Asks for the search widened `factor` times (1: as set) from the next
   * reconfigure on (config_changed() says so); false where the settings
   * do not widen it or the widened ones are invalid for width x height.
   * Streaming thread. */
  virtual bool widen (int factor, int width, int height) = 0;
  /* The factor widen() last set, and the reach of the settings as set
   * (unwidened) for width x height frames. */
  virtual int widening () const = 0;
  virtual void reach_as_set (int width, int height, int * x, int * y) const = 0;
};

/* *INDENT-OFF* */
template <typename Traits> class GstMatchAdapterT final : public GstMatchAdapter
{
public:
  typedef typename Traits::Settings Settings;
  typedef typename Traits::Config Config;

  explicit GstMatchAdapterT (GstMatchFilter * filter) : filter_ (filter)
  {
  }

  gpointer settings () override
  {
    return &settings_;
  }

  match::Status validate (int width, int height) override
  {
    return config (width, height).validate ();
  }

  match::Status create (match::Backend backend, int width, int height,
      const match::DeviceOptions & devices) override
  {
    const Config cfg = config (width, height);
    matcher_.reset ();
    const match::Status status =
        Traits::Matcher::create (backend, cfg, &matcher_, devices);
    if (status)
      vectors_.assign (cfg.num_blocks (), typename Traits::Vector ());
    return status;
  }

  match::Status probe (const match::DeviceOptions & devices) override
  {
    std::unique_ptr<typename Traits::Matcher> probe;
    return Traits::Matcher::create (match::Backend::kCuda,
        config (GST_MATCH_ADAPTER_STAND_IN_SIZE,
            GST_MATCH_ADAPTER_STAND_IN_SIZE),
        &probe, devices);
  }

  void release () override
  {
    matcher_.reset ();
  }

  match::Backend backend () const override
  {
    return matcher_->backend ();
  }

  std::string description () const override
  {
    return matcher_->description ();
  }

  int max_in_flight () const override
  {
    return matcher_->max_in_flight ();
  }

  void reset () override
  {
    matcher_->reset ();
  }

  bool config_changed (int width, int height) override
  {
    return config (width, height) != matcher_->config ();
  }

  match::Status reconfigure (int width, int height) override
  {
    const Config cfg = config (width, height);
    const match::Status status = matcher_->reconfigure (cfg);
    if (status)
      vectors_.assign (cfg.num_blocks (), typename Traits::Vector ());
    return status;
  }

  match::Status submit (const match::ImageView * luma,
      const match::DeviceImageView * device_luma, guint n_threads) override
  {
    const auto rt = Traits::make_runtime (snapshot (), n_threads);
    if (device_luma)
      return matcher_->submit_device (*device_luma, rt);
    return matcher_->submit (*luma, rt);
  }

  match::Status collect (GstBuffer * buf, GstClockTime reference_pts,
      GstMotionVectorsMeta ** meta) override
  {
    bool estimated = false;
    const match::Status status =
        matcher_->collect (vectors_.data (), &estimated);
    *meta = NULL;
    if (!status)
      return status;
    /* The meta goes on before any mapping: a mapped frame holds a
     * reference to the buffer, which makes it unwritable. */
    *meta = Traits::fill_meta (filter_, buf, matcher_->config (),
        vectors_.data (), estimated);
    if (*meta)
      (*meta)->reference_timestamp =
          estimated ? reference_pts : GST_CLOCK_TIME_NONE;
    return status;
  }

  bool collected_frame (int device, match::DeviceImageView * out) override
  {
    return matcher_->collected_frame (device, out);
  }

  int team () const override
  {
    return matcher_->team ();
  }

  void reach (int * x, int * y) const override
  {
    Traits::reach (matcher_->config (), x, y);
  }

  bool widen (int factor, int width, int height) override
  {
    const Settings s = snapshot ();
    Config c = Traits::make_config (s, width, height);
    if (factor > 1 && (!Traits::widen (s, factor, &c) || !c.validate ()))
      return false;
    widen_ = factor;
    return true;
  }

  int widening () const override
  {
    return widen_;
  }

  void reach_as_set (int width, int height, int * x, int * y) const override
  {
    Traits::reach (Traits::make_config (snapshot (), width, height), x, y);
  }

private:
  Settings snapshot () const
  {
    GST_OBJECT_LOCK (filter_);
    const Settings s = settings_;
    GST_OBJECT_UNLOCK (filter_);
    return s;
  }

  /* The settings' configuration, widened where widen() asked and the
   * settings still allow it. */
  Config config (int width, int height) const
  {
    const Settings s = snapshot ();
    const Config c = Traits::make_config (s, width, height);
    Config wide = c;
    if (widen_ > 1 && Traits::widen (s, widen_, &wide) && wide.validate ())
      return wide;
    return c;
  }

  GstMatchFilter * filter_;         /* the owner (not a reference) */
  Settings settings_ = Settings (); /* object lock */
  /* Streaming thread only. */
  std::unique_ptr<typename Traits::Matcher> matcher_;
  std::vector<typename Traits::Vector> vectors_;
  int widen_ = 1;
};
/* *INDENT-ON* */

#endif /* __GST_MATCH_ADAPTER_H__ */
