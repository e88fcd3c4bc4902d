/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * pocme element tests (GstHarness): formats and the meta on every buffer,
 * known integer and sub-pixel shifts, the sign convention against
 * blockmatchme on the same frames, min-confidence on noise, flushes,
 * DISCONT and caps changes, property changes while playing, window-size
 * and backend errors, drawing, and mvexport downstream; pipelining
 * (pipeline-depth: same vectors, order and timestamps as synchronous, the
 * latency query, flushes drop and EOS, caps, DISCONT and setting changes
 * drain the held frames), as blockmatchme's.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

/* before gstcheck.h, whose fail() macro clashes with <ios> */
#include <complex>

#include <glib/gstdio.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <gst/motionvectors/motionvectors.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "../common/checkutil.h"
#include "../common/heldcheck.h"
#include "../common/testutil.h"
#include "match/poc.h"

/* Integer shifts of a textured frame must come out this close. */
#define INTEGER_TOLERANCE 0.05f

static GstHarness *
make_harness_for (const char * element, const char * props, const char * format,
    int w, int h)
{
  /* gst_harness_new (not _parse) so that hrn->element is the element
   * itself, as the property stress threads need. */
  GstHarness * hrn = gst_harness_new (element);
  test_set_props (hrn->element, props);
  gchar * caps = g_strdup_printf ("video/x-raw,format=%s,width=%d,height=%d,"
                                  "framerate=30/1",
      format, w, h);
  gst_harness_set_src_caps_str (hrn, caps);
  g_free (caps);
  return hrn;
}

static GstHarness *
make_harness (const char * props, const char * format, int w, int h)
{
  return make_harness_for ("pocme", props, format, w, h);
}

/* Pushes a buffer and returns the output (caller unrefs). */
static GstBuffer *
push_pull (GstHarness * hrn, GstBuffer * in)
{
  fail_unless_equals_int (gst_harness_push (hrn, in), GST_FLOW_OK);
  GstBuffer * out = gst_harness_pull (hrn);
  fail_unless (out != NULL);
  return out;
}

static GstMotionVectorsMeta *
get_meta (GstBuffer * buf)
{
  GstMotionVectorsMeta * meta = gst_buffer_get_motion_vectors_meta (buf);
  fail_unless (meta != NULL, "no GstMotionVectorsMeta on the output buffer");
  fail_unless (gst_motion_vectors_meta_is_valid (meta));
  return meta;
}

static void
check_no_estimate (GstMotionVectorsMeta * meta)
{
  fail_unless_equals_uint64 (meta->reference_timestamp, GST_CLOCK_TIME_NONE);
  for (guint i = 0; i < meta->n_vectors; i++) {
    fail_unless_equals_int (meta->vectors[i].flags,
        GST_MOTION_VECTOR_FLAG_NO_ESTIMATE);
    fail_unless_equals_float (meta->vectors[i].dx, 0.0f);
    fail_unless_equals_float (meta->vectors[i].dy, 0.0f);
    fail_unless_equals_float (meta->vectors[i].confidence, -1.0f);
  }
}

/* TRUE when block i's POC window (window x window, centred on the block)
 * lies inside the frame with `margin` pixels to spare: clamp-to-edge
 * sampling (and the clamped edges of test_shift) only matter outside. */
static gboolean
block_is_interior (GstMotionVectorsMeta * meta, guint i, guint window,
    guint margin)
{
  guint x, y, w, h;
  gst_motion_vectors_meta_get_block_rect (meta, i, &x, &y, &w, &h);
  const double cx = x + w / 2.0, cy = y + h / 2.0;
  const double r = window / 2.0 + margin;
  return cx - r >= 0 && cy - r >= 0 && cx + r <= meta->frame_width
      && cy + r <= meta->frame_height;
}

/* Every interior block has v within `tol` of (dx, dy), no flags and a
 * confidence in (0, 1.05]. Returns the largest error. */
static float
check_interior (GstMotionVectorsMeta * meta, float dx, float dy, float tol,
    guint window, guint margin)
{
  guint checked = 0;
  float worst = 0.0f;
  for (guint i = 0; i < meta->n_vectors; i++) {
    if (!block_is_interior (meta, i, window, margin))
      continue;
    const GstMotionVector * v = &meta->vectors[i];
    const float err = MAX (fabsf (v->dx - dx), fabsf (v->dy - dy));
    fail_unless (err <= tol,
        "block %u: got (%g,%g) expected (%g,%g) +- %g "
        "(confidence %g)",
        i, v->dx, v->dy, dx, dy, tol, v->confidence);
    fail_unless_equals_int (v->flags, 0);
    fail_unless (v->confidence > 0.0f && v->confidence <= 1.05f,
        "block %u: confidence %g", i, v->confidence);
    worst = MAX (worst, err);
    checked++;
  }
  fail_unless (checked > 0, "no interior block");
  return worst;
}

/* A band-limited random texture that can be moved by any sub-pixel amount
 * exactly: white noise low-passed by a Gaussian of `sigma` pixels in the
 * frequency domain (Nyquist bins dropped), moved by a phase ramp, so
 * out(x, y) = T(x - sx, y - sy) for the periodic, band-limited T. (A sum of
 * a few sinusoids would not do: POC whitens the spectrum, so bins without
 * signal carry only quantisation noise.) Plain DFTs with twiddle tables:
 * slow, but the frames are small. */
/* *INDENT-OFF* */
typedef std::complex<double> Cplx;
/* *INDENT-ON* */

static void
dft_lines (std::vector<Cplx> & a, int n, int count, int stride, int step,
    bool inverse)
{
  std::vector<Cplx> tw (n), tmp (n);
  for (int m = 0; m < n; m++)
    tw[m] = std::polar (1.0, (inverse ? 2.0 : -2.0) * G_PI * m / n);
  for (int line = 0; line < count; line++) {
    Cplx * p = &a[(size_t) line * step];
    for (int k = 0; k < n; k++) {
      Cplx sum = 0;
      for (int j = 0; j < n; j++)
        sum += p[(size_t) j * stride] * tw[((size_t) k * j) % n];
      tmp[k] = inverse ? sum / (double) n : sum;
    }
    for (int k = 0; k < n; k++)
      p[(size_t) k * stride] = tmp[k];
  }
}

struct BandLimitedTexture
{
  int width, height;
  std::vector<Cplx> spectrum;
  double scale;

  BandLimitedTexture (int w, int h, unsigned seed, double sigma)
      : width (w), height (h), spectrum ((size_t) w * h)
  {
    std::mt19937 rng (seed);
    std::normal_distribution<double> normal (0.0, 1.0);
    for (auto & c : spectrum)
      c = normal (rng);
    dft_lines (spectrum, w, h, 1, w, false);
    dft_lines (spectrum, h, w, w, 1, false);
    double energy = 0;
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++) {
        Cplx & c = spectrum[(size_t) y * w + x];
        const double fx = freq (x, w), fy = freq (y, h);
        if ((w % 2 == 0 && x == w / 2) || (h % 2 == 0 && y == h / 2))
          c = 0;
        else
          c *= exp (-2.0 * G_PI * G_PI * sigma * sigma * (fx * fx + fy * fy));
        energy += std::norm (c);
      }
    /* standard deviation 40 grey levels (Parseval) */
    scale = 40.0 / (sqrt (energy) / ((double) w * h));
  }

  static double freq (int i, int n)
  {
    return (i <= n / 2 ? i : i - n) / (double) n;
  }

  TestImage render (double sx, double sy) const
  {
    std::vector<Cplx> a = spectrum;
    for (int y = 0; y < height; y++)
      for (int x = 0; x < width; x++)
        a[(size_t) y * width + x] *= std::polar (1.0,
            -2.0 * G_PI * (freq (x, width) * sx + freq (y, height) * sy));
    dft_lines (a, width, height, 1, width, true);
    dft_lines (a, height, width, width, 1, true);
    TestImage img;
    img.width = width;
    img.height = height;
    img.pixels.resize (a.size ());
    for (size_t i = 0; i < a.size (); i++)
      img.pixels[i] =
          (uint8_t) CLAMP (lrint (128.0 + scale * a[i].real ()), 0, 255);
    return img;
  }
};

static TestImage
noise_image (int width, int height, unsigned seed)
{
  std::mt19937 rng (seed);
  TestImage img;
  img.width = width;
  img.height = height;
  img.pixels.resize ((size_t) width * height);
  for (auto & p : img.pixels)
    p = (uint8_t) (rng () & 0xff);
  return img;
}

static bool
load_taxi (TestImage * a, TestImage * b)
{
  return test_load_pgm (test_files_path ("taxi01.pgm"), a)
      && test_load_pgm (test_files_path ("taxi02.pgm"), b);
}

/* Runs `element props` on the pair (a, b) as GRAY8 and returns the second
 * output (caller unrefs). */
static GstBuffer *
run_pair (const char * element, const char * props, const TestImage & a,
    const TestImage & b)
{
  GstHarness * hrn =
      make_harness_for (element, props, "GRAY8", a.width, a.height);
  gst_buffer_unref (push_pull (hrn, test_gray_buffer (a, a.width, 0)));
  GstBuffer * o =
      push_pull (hrn, test_gray_buffer (b, b.width, GST_SECOND / 30));
  gst_harness_teardown (hrn);
  return o;
}

/* ---- Formats and the meta ------------------------------------------------ */

static const char * all_formats[] = { "GRAY8", "I420", "YV12", "NV12", "NV21",
  "Y41B", "Y42B", "Y444", "RGB", "BGR", "RGBx", "BGRx", "xRGB", "xBGR", "RGBA",
  "BGRA", "ARGB", "ABGR" };

/* Every input format negotiates (output caps = input caps), every buffer
 * carries a meta with the spacing grid, the first one without estimate,
 * and the second recovers the shift of the luma (equal in every format). */
GST_START_TEST (test_every_format)
{
  const int w = 160, h = 120;
  const TestImage a = test_texture (w, h, 5);
  const TestImage b = test_shift (a, 3, -2); /* moves right 3, up 2 */

  for (const char * fmt : all_formats) {
    GstVideoFormat vf = gst_video_format_from_string (fmt);
    GstHarness * hrn = make_harness ("window-size=32 spacing=16", fmt, w, h);
    GstBuffer * o1 = push_pull (hrn, test_format_buffer (a, vf, 0));

    GstCaps * caps = gst_pad_get_current_caps (hrn->sinkpad);
    fail_unless (caps != NULL);
    GstVideoInfo info;
    fail_unless (gst_video_info_from_caps (&info, caps));
    fail_unless_equals_int (GST_VIDEO_INFO_FORMAT (&info), vf);
    fail_unless_equals_int (GST_VIDEO_INFO_WIDTH (&info), w);
    gst_caps_unref (caps);

    GstMotionVectorsMeta * m1 = get_meta (o1);
    fail_unless_equals_int (m1->columns, 10);
    fail_unless_equals_int (m1->rows, 8);
    fail_unless_equals_int (m1->block_width, 16);
    fail_unless_equals_int (m1->block_height, 16);
    fail_unless_equals_int (m1->frame_width, w);
    fail_unless_equals_string (m1->method, "poc");
    fail_unless_equals_float (m1->precision, 0.0f);
    check_no_estimate (m1);

    GstBuffer * o2 =
        push_pull (hrn, test_format_buffer (b, vf, GST_SECOND / 30));
    GstMotionVectorsMeta * m2 = get_meta (o2);
    fail_unless_equals_uint64 (m2->reference_timestamp, 0);
    fail_unless_equals_int (m2->direction,
        GST_MOTION_VECTORS_DIRECTION_BACKWARD);
    for (guint i = 0; i < m2->n_vectors; i++)
      fail_unless_equals_int (m2->vectors[i].cost, 0);
    /* backward: the block came from 3 px left and 2 px below */
    check_interior (m2, -3.0f, 2.0f, INTEGER_TOLERANCE, 32, 3);
    gst_buffer_unref (o1);
    gst_buffer_unref (o2);
    gst_harness_teardown (hrn);
  }
}

GST_END_TEST;

GST_START_TEST (test_unsupported_format)
{
  GstElement * el = gst_element_factory_make ("pocme", NULL);
  fail_unless (el != NULL);
  GstPad * sink = gst_element_get_static_pad (el, "sink");
  GstCaps * caps = gst_caps_from_string ("video/x-raw,format=GRAY16_LE,"
                                         "width=64,height=64,framerate=30/1");
  fail_if (gst_pad_query_accept_caps (sink, caps));
  gst_caps_unref (caps);
  caps = gst_caps_from_string ("video/x-raw,format=NV12,width=64,height=64,"
                               "framerate=30/1");
  fail_unless (gst_pad_query_accept_caps (sink, caps));
  gst_caps_unref (caps);
  gst_object_unref (sink);
  gst_object_unref (el);
}

GST_END_TEST;

/* The meta is on every buffer of a longer stream, the first without
 * estimate, the others referring to the previous PTS. */
GST_START_TEST (test_meta_on_every_buffer)
{
  GstHarness * hrn = make_harness (NULL, "I420", 128, 96);
  for (int i = 0; i < 6; i++) {
    const TestImage a = test_shift (test_texture (128, 96, 8), i, 0);
    GstBuffer * o = push_pull (hrn,
        test_format_buffer (a, GST_VIDEO_FORMAT_I420, i * 1000));
    GstMotionVectorsMeta * m = get_meta (o);
    fail_unless_equals_int (m->columns, 8);
    fail_unless_equals_int (m->rows, 6);
    if (i == 0)
      check_no_estimate (m);
    else
      fail_unless_equals_uint64 (m->reference_timestamp, (i - 1) * 1000);
    gst_buffer_unref (o);
  }
  gst_harness_teardown (hrn);
}

GST_END_TEST;

/* ---- Accuracy -------------------------------------------------------------- */

/* A real frame moved by (+3, -2), both directions, single layer and
 * hierarchical, default and non-power-of-two windows: within 0.05 px. */
GST_START_TEST (test_integer_shift)
{
  TestImage a, b;
  fail_unless (load_taxi (&a, &b), "tests/files/taxi01.pgm missing");
  const TestImage moved = test_shift (a, 3, -2);
  /* With the Hann window, integer shifts come out within 0.05 px (exact
   * when layer 0 re-centres its window on the integer peak, as the CPU
   * backend does). A rectangular window (window=none) does not taper the
   * content entering and leaving the window, which Takita et al. use the
   * Hann window against: test_window_none. */
  const struct
  {
    const char * props;
    guint window;
    float tolerance;
  } cases[] = {
    { "", 64, INTEGER_TOLERANCE },
    { "layers=0", 64, INTEGER_TOLERANCE },
    { "layers=3 window-size=48", 48, INTEGER_TOLERANCE },
    { "window-size=96 spacing=32", 96, INTEGER_TOLERANCE },
    { "lowpass=0.8", 64, INTEGER_TOLERANCE },
    { "coarse=shared", 64, INTEGER_TOLERANCE },
    { "coarse=shared-median layers=3 window-size=48", 48, INTEGER_TOLERANCE },

  };
  for (auto & c : cases) {
    for (int dir = 0; dir < 2; dir++) {
      gchar * props = g_strdup_printf ("%s direction=%s", c.props,
          dir ? "forward" : "backward");
      GstBuffer * o = run_pair ("pocme", props, a, moved);
      GstMotionVectorsMeta * m = get_meta (o);
      fail_unless_equals_int (m->direction,
          dir ? GST_MOTION_VECTORS_DIRECTION_FORWARD
              : GST_MOTION_VECTORS_DIRECTION_BACKWARD);
      const float worst = dir
          ? check_interior (m, 3.0f, -2.0f, c.tolerance, c.window, 3)
          : check_interior (m, -3.0f, 2.0f, c.tolerance, c.window, 3);
      GST_INFO ("%s: largest error %.4f px", props, worst);
      g_free (props);
      gst_buffer_unref (o);
    }
  }
}

GST_END_TEST;

/* window=none is applied (other vectors than with hann) and mostly right:
 * without the taper, content entering and leaving the window may bias some
 * blocks (measured on taxi +(3, -2) before layer-0 re-centring: one block
 * off by 0.6 px, 95 of 96 within 0.25 px). */
GST_START_TEST (test_window_none)
{
  TestImage a, b;
  fail_unless (load_taxi (&a, &b));
  const TestImage moved = test_shift (a, 3, -2);
  GstBuffer * oh = run_pair ("pocme", "window=hann", a, moved);
  GstBuffer * on = run_pair ("pocme", "window=none", a, moved);
  GstMotionVectorsMeta *mh = get_meta (oh), *mn = get_meta (on);
  guint total = 0, close = 0, differ = 0;
  for (guint i = 0; i < mn->n_vectors; i++) {
    if (!block_is_interior (mn, i, 64, 3))
      continue;
    const GstMotionVector * v = &mn->vectors[i];
    total++;
    close += fabsf (v->dx + 3.0f) <= 0.25f && fabsf (v->dy - 2.0f) <= 0.25f;
    differ += v->confidence != mh->vectors[i].confidence;
  }
  GST_INFO ("window=none: %u of %u within 0.25 px", close, total);
  fail_unless (close * 100 >= total * 90, "%u of %u within 0.25 px", close,
      total);
  fail_unless (differ > 0);
  gst_buffer_unref (oh);
  gst_buffer_unref (on);
}

GST_END_TEST;

/* The hierarchy follows motion beyond a single POC window's reach (more
 * than N/2 wraps around the POC surface): with N = 64, 40 px is found
 * exactly through two coarser layers. */
GST_START_TEST (test_large_motion_layers)
{
  const TestImage a = test_texture (384, 256, 12);
  const TestImage b = test_shift (a, 40, 0);
  const char * props[] = { "layers=2", "layers=3", "layers=2 direction=forward",
    "layers=2 coarse=shared",
    "layers=3 coarse=shared-median direction=forward" };
  for (const char * p : props) {
    GstBuffer * o = run_pair ("pocme", p, a, b);
    const float sign = strstr (p, "forward") ? 1.0f : -1.0f;
    check_interior (get_meta (o), sign * 40.0f, 0.0f, INTEGER_TOLERANCE, 64,
        40);
    gst_buffer_unref (o);
  }
}

GST_END_TEST;

/* Sub-pixel shifts of a band-limited texture (exact at every fraction).
 * With the spectrum's empty high bins weighted out (lowpass=0.5) POC is
 * accurate to a few hundredths of a pixel; with lowpass=1 (off; the default
 * was 1 until it became 0.75) the whitened quantisation noise of those bins
 * costs accuracy (measured: worst 0.10 px, mean 0.03 px on this texture).
 * The default (0.75) keeps the looser bounds: this synthetic texture has no
 * energy above its band, real textures do (docs/pocme.md). */
GST_START_TEST (test_subpixel_shift)
{
  const double shifts[][2] = { { 0.5, 0.0 }, { 1.25, -0.75 }, { -2.4, 1.3 },
    { 0.1, -0.3 } };
  const BandLimitedTexture tex (256, 192, 11, 1.0);
  const TestImage a = tex.render (0, 0);
  const struct
  {
    const char * props;
    float tolerance;
    float mean_tolerance;
  } cases[] = {
    { "lowpass=0.5", 0.05f, 0.02f },
    { "lowpass=1", 0.15f, 0.05f },
    { "", 0.15f, 0.05f },
  };
  for (auto & sh : shifts) {
    const TestImage b = tex.render (sh[0], sh[1]);
    for (auto & c : cases)
      for (int dir = 0; dir < 2; dir++) {
        gchar * props = g_strdup_printf ("%s direction=%s", c.props,
            dir ? "forward" : "backward");
        GstBuffer * o = run_pair ("pocme", props, a, b);
        GstMotionVectorsMeta * m = get_meta (o);
        const float sign = dir ? 1.0f : -1.0f;
        const float want_x = sign * sh[0], want_y = sign * sh[1];
        const float worst =
            check_interior (m, want_x, want_y, c.tolerance, 64, 3);
        double sum = 0;
        guint n = 0;
        for (guint i = 0; i < m->n_vectors; i++)
          if (block_is_interior (m, i, 64, 3)) {
            sum += MAX (fabsf (m->vectors[i].dx - want_x),
                fabsf (m->vectors[i].dy - want_y));
            n++;
          }
        GST_INFO ("shift (%g, %g) %s: error worst %.4f mean %.4f px", sh[0],
            sh[1], props, worst, sum / n);
        fail_unless (sum / n <= c.mean_tolerance, "%s: mean error %g", props,
            sum / n);
        g_free (props);
        gst_buffer_unref (o);
      }
  }
}

GST_END_TEST;

/* Identical frames: zero motion with a peak close to 1. */
GST_START_TEST (test_identical_frames)
{
  TestImage a, b;
  fail_unless (load_taxi (&a, &b));
  GstBuffer * o = run_pair ("pocme", "", a, a);
  GstMotionVectorsMeta * m = get_meta (o);
  for (guint i = 0; i < m->n_vectors; i++) {
    fail_unless (fabsf (m->vectors[i].dx) <= 0.01f
            && fabsf (m->vectors[i].dy) <= 0.01f,
        "block %u: (%g, %g)", i, m->vectors[i].dx, m->vectors[i].dy);
    fail_unless (m->vectors[i].confidence >= 0.9f, "block %u: %g", i,
        m->vectors[i].confidence);
  }
  gst_buffer_unref (o);
}

GST_END_TEST;

/* ---- Same convention as blockmatchme --------------------------------------- */

/* Both elements on the same pairs, same grid: the vectors agree within
 * 0.25 px on textured interior blocks in both directions, for integer and
 * half-pixel shifts of a real frame and on the real pair taxi 1 -> 2. */
static void
compare_with_blockmatchme (const TestImage & a, const TestImage & b,
    const char * direction, guint min_agree_percent)
{
  gchar * bm_props = g_strdup_printf ("block-size=16 search-range=6 "
                                      "subpixel=quarter direction=%s",
      direction);
  gchar * poc_props = g_strdup_printf ("spacing=16 window-size=32 layers=1 "
                                       "direction=%s",
      direction);
  GstBuffer * ob = run_pair ("blockmatchme", bm_props, a, b);
  GstBuffer * op = run_pair ("pocme", poc_props, a, b);
  GstMotionVectorsMeta *mb = get_meta (ob), *mp = get_meta (op);

  fail_unless_equals_int (mb->n_vectors, mp->n_vectors);
  fail_unless_equals_int (mb->direction, mp->direction);
  guint compared = 0, agree = 0, moving = 0;
  for (guint i = 0; i < mp->n_vectors; i++) {
    if (!block_is_interior (mp, i, 32, 6))
      continue;
    const GstMotionVector *vb = &mb->vectors[i], *vp = &mp->vectors[i];
    /* textured and well matched: a clear POC peak and a small SAD */
    if (vp->confidence < 0.3f || vb->cost > 16 * 16 * 4)
      continue;
    compared++;
    if (fabsf (vb->dx - vp->dx) <= 0.25f && fabsf (vb->dy - vp->dy) <= 0.25f)
      agree++;
    else
      GST_INFO ("%s block %u: blockmatchme (%g, %g) cost %u, pocme (%g, %g) "
                "confidence %g",
          direction, i, vb->dx, vb->dy, vb->cost, vp->dx, vp->dy,
          vp->confidence);
    /* Wherever both see a clear motion along an axis, it has the same
     * sign. (Where only one does, the supports differ: the POC window is
     * larger than the block and may be dominated by another motion.) */
    if ((fabsf (vb->dx) >= 1.0f && fabsf (vp->dx) >= 1.0f)
        || (fabsf (vb->dy) >= 1.0f && fabsf (vp->dy) >= 1.0f))
      moving++;
    fail_unless (!(fabsf (vb->dx) >= 1.0f && fabsf (vp->dx) >= 1.0f)
            || vb->dx * vp->dx > 0,
        "block %u: blockmatchme (%g, %g), pocme "
        "(%g, %g)",
        i, vb->dx, vb->dy, vp->dx, vp->dy);
    fail_unless (!(fabsf (vb->dy) >= 1.0f && fabsf (vp->dy) >= 1.0f)
            || vb->dy * vp->dy > 0,
        "block %u: blockmatchme (%g, %g), pocme "
        "(%g, %g)",
        i, vb->dx, vb->dy, vp->dx, vp->dy);
  }
  GST_INFO ("%s: %u of %u compared blocks agree, %u moving", direction, agree,
      compared, moving);
  fail_unless (compared >= 10, "only %u textured blocks", compared);
  fail_unless (agree * 100 >= compared * min_agree_percent,
      "%s: %u of %u blocks agree within 0.25 px", direction, agree, compared);
  g_free (bm_props);
  g_free (poc_props);
  gst_buffer_unref (ob);
  gst_buffer_unref (op);
}

GST_START_TEST (test_same_convention_as_blockmatchme)
{
  TestImage a, b;
  fail_unless (load_taxi (&a, &b));

  /* half(x, y) = mean of a at x and x + 1, the bilinear sample at x + 0.5:
   * for the pair (a, half) the backward vector is exactly (+0.5, 0) on
   * blockmatchme's grid, and so is the forward one for (half, a) (the other
   * way round the pair is a blur, not a shift, for block matching). */
  TestImage half = a;
  for (int y = 0; y < a.height; y++)
    for (int x = 0; x < a.width; x++)
      half.pixels[(size_t) y * a.width + x] =
          (a.at (x, y) + a.at (MIN (x + 1, a.width - 1), y) + 1) / 2;

  const char * dirs[] = { "backward", "forward" };
  for (const char * dir : dirs) {
    compare_with_blockmatchme (a, test_shift (a, 3, -2), dir, 100);
    compare_with_blockmatchme (a, test_shift (a, -1, 4), dir, 100);
    if (!strcmp (dir, "backward"))
      compare_with_blockmatchme (a, half, dir, 100);
    else
      compare_with_blockmatchme (half, a, dir, 100);
    /* Real motion (cars on a still street): where the 32x32 POC window
     * holds more than the block's motion the two differ (measured: 76%
     * agree). */
    compare_with_blockmatchme (a, b, dir, 70);
  }
}

GST_END_TEST;

/* ---- Confidence -------------------------------------------------------------- */

/* Independent noise frames have no correlation peak: every vector is
 * flagged UNRELIABLE at min-confidence 0.3 (and kept); a shifted texture
 * keeps its vectors unflagged; min-confidence=0 still flags every vector
 * whose confidence is not above the documented floor
 * (match::poc_confidence_floor, 0.125 at the defaults) and only those. */
GST_START_TEST (test_min_confidence)
{
  const TestImage n1 = noise_image (192, 128, 1),
                  n2 = noise_image (192, 128, 2);
  GstBuffer * o = run_pair ("pocme", "min-confidence=0.3", n1, n2);
  GstMotionVectorsMeta * m = get_meta (o);
  for (guint i = 0; i < m->n_vectors; i++) {
    fail_unless_equals_int (m->vectors[i].flags,
        GST_MOTION_VECTOR_FLAG_UNRELIABLE);
    fail_unless (m->vectors[i].confidence >= 0.0f
            && m->vectors[i].confidence < 0.3f,
        "block %u: %g", i, m->vectors[i].confidence);
  }
  gst_buffer_unref (o);

  o = run_pair ("pocme", "min-confidence=0", n1, n2);
  m = get_meta (o);
  match::PocConfig defaults;
  const double floor = match::poc_confidence_floor (defaults);
  guint flagged = 0;
  for (guint i = 0; i < m->n_vectors; i++) {
    const bool low =
        m->vectors[i].confidence < floor || m->vectors[i].confidence <= 0.0f;
    fail_unless_equals_int (m->vectors[i].flags,
        low ? GST_MOTION_VECTOR_FLAG_UNRELIABLE : 0);
    flagged += low;
  }
  /* The floor is about the highest sample of a noise surface. */
  fail_unless (flagged > m->n_vectors / 3, "%u of %u flagged", flagged,
      m->n_vectors);
  gst_buffer_unref (o);

  const TestImage a = test_texture (192, 128, 3);
  o = run_pair ("pocme", "min-confidence=0.3", a, test_shift (a, 2, 1));
  check_interior (get_meta (o), -2.0f, -1.0f, INTEGER_TOLERANCE, 64, 2);
  gst_buffer_unref (o);
}

GST_END_TEST;

/* ---- Stream resets ------------------------------------------------------------ */

GST_START_TEST (test_flush_resets)
{
  GstHarness * hrn = make_harness (NULL, "GRAY8", 64, 48);
  const TestImage a = test_texture (64, 48, 1);
  gst_buffer_unref (push_pull (hrn, test_gray_buffer (a, 64, 0)));
  fail_unless (gst_harness_push_event (hrn, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (hrn, gst_event_new_flush_stop (TRUE)));
  GstSegment seg;
  gst_segment_init (&seg, GST_FORMAT_TIME);
  fail_unless (gst_harness_push_event (hrn, gst_event_new_segment (&seg)));
  GstBuffer * o = push_pull (hrn, test_gray_buffer (a, 64, 1));
  check_no_estimate (get_meta (o));
  gst_buffer_unref (o);
  o = push_pull (hrn, test_gray_buffer (a, 64, 2));
  fail_unless_equals_uint64 (get_meta (o)->reference_timestamp, 1);
  fail_unless_equals_int (get_meta (o)->vectors[0].flags, 0);
  gst_buffer_unref (o);
  gst_harness_teardown (hrn);
}

GST_END_TEST;

GST_START_TEST (test_discont_resets)
{
  GstHarness * hrn = make_harness (NULL, "GRAY8", 64, 48);
  const TestImage a = test_texture (64, 48, 1);
  gst_buffer_unref (push_pull (hrn, test_gray_buffer (a, 64, 0)));
  GstBuffer * in = test_gray_buffer (a, 64, 1);
  GST_BUFFER_FLAG_SET (in, GST_BUFFER_FLAG_DISCONT);
  GstBuffer * o = push_pull (hrn, in);
  check_no_estimate (get_meta (o));
  gst_buffer_unref (o);
  o = push_pull (hrn, test_gray_buffer (a, 64, 2));
  fail_unless_equals_uint64 (get_meta (o)->reference_timestamp, 1);
  fail_unless_equals_int (get_meta (o)->vectors[0].flags, 0);
  gst_buffer_unref (o);
  gst_harness_teardown (hrn);
}

GST_END_TEST;

/* A caps change drops the reference: the first frame in the new size has
 * no estimate and the new grid; the next one is estimated again. */
GST_START_TEST (test_caps_change_resets)
{
  GstHarness * hrn = make_harness ("window-size=32", "GRAY8", 96, 64);
  const TestImage a = test_texture (96, 64, 1), a2 = test_shift (a, 2, 0);
  const TestImage b = test_texture (160, 128, 2), b2 = test_shift (b, -2, 1);
  gst_buffer_unref (push_pull (hrn, test_gray_buffer (a, 96, 0)));
  GstBuffer * o = push_pull (hrn, test_gray_buffer (a2, 96, 1));
  fail_unless_equals_int (get_meta (o)->columns, 6);
  fail_unless_equals_uint64 (get_meta (o)->reference_timestamp, 0);
  gst_buffer_unref (o);

  gst_harness_set_src_caps_str (hrn,
      "video/x-raw,format=I420,width=160,height=128,framerate=30/1");
  o = push_pull (hrn, test_format_buffer (b, GST_VIDEO_FORMAT_I420, 2));
  GstMotionVectorsMeta * m = get_meta (o);
  fail_unless_equals_int (m->columns, 10);
  fail_unless_equals_int (m->rows, 8);
  check_no_estimate (m);
  gst_buffer_unref (o);
  o = push_pull (hrn, test_format_buffer (b2, GST_VIDEO_FORMAT_I420, 3));
  check_interior (get_meta (o), 2.0f, -1.0f, INTEGER_TOLERANCE, 32, 2);
  gst_buffer_unref (o);
  gst_harness_teardown (hrn);
}

GST_END_TEST;

/* ---- Properties while playing -------------------------------------------------- */

/* spacing, window-size, layers and direction changed between two frames:
 * the next frame has the new grid and keeps the reference. */
GST_START_TEST (test_property_change_keeps_reference)
{
  GstHarness * hrn = make_harness ("spacing=16", "GRAY8", 192, 128);
  const TestImage a = test_texture (192, 128, 3), b = test_shift (a, 4, 0);
  GstBuffer * o = push_pull (hrn, test_gray_buffer (a, 192, 0));
  fail_unless_equals_int (get_meta (o)->columns, 12);
  gst_buffer_unref (o);
  g_object_set (hrn->element, "spacing", 8, "window-size", 32, "layers", 1,
      "direction", GST_MOTION_VECTORS_DIRECTION_FORWARD, NULL);
  o = push_pull (hrn, test_gray_buffer (b, 192, 1));
  GstMotionVectorsMeta * m = get_meta (o);
  fail_unless_equals_int (m->block_width, 8);
  fail_unless_equals_int (m->block_height, 8);
  fail_unless_equals_int (m->columns, 24);
  fail_unless_equals_int (m->rows, 16);
  fail_unless_equals_int (m->direction, GST_MOTION_VECTORS_DIRECTION_FORWARD);
  fail_unless_equals_uint64 (m->reference_timestamp, 0);
  check_interior (m, 4.0f, 0.0f, INTEGER_TOLERANCE, 32, 4);
  gst_buffer_unref (o);

  g_object_set (hrn->element, "spacing", 32, NULL);
  o = push_pull (hrn, test_gray_buffer (b, 192, 2));
  m = get_meta (o);
  fail_unless_equals_int (m->columns, 6);
  fail_unless_equals_int (m->rows, 4);
  fail_unless_equals_uint64 (m->reference_timestamp, 1);
  gst_buffer_unref (o);
  gst_harness_teardown (hrn);
}

GST_END_TEST;

static void
stress_enum (GstHarness * hrn, const char * name, gint value,
    GstHarnessThread ** out)
{
  GValue v = G_VALUE_INIT;
  GObjectClass * klass = G_OBJECT_GET_CLASS (hrn->element);
  g_value_init (&v, g_object_class_find_property (klass, name)->value_type);
  g_value_set_enum (&v, value);
  *out = gst_harness_stress_property_start_full (hrn, name, &v, 0);
  g_value_unset (&v);
}

static void
stress_uint (GstHarness * hrn, const char * name, guint value,
    GstHarnessThread ** out)
{
  GValue v = G_VALUE_INIT;
  g_value_init (&v, G_TYPE_UINT);
  g_value_set_uint (&v, value);
  *out = gst_harness_stress_property_start_full (hrn, name, &v, 0);
  g_value_unset (&v);
}

static void
stress_double (GstHarness * hrn, const char * name, gdouble value,
    GstHarnessThread ** out)
{
  GValue v = G_VALUE_INIT;
  g_value_init (&v, G_TYPE_DOUBLE);
  g_value_set_double (&v, value);
  *out = gst_harness_stress_property_start_full (hrn, name, &v, 0);
  g_value_unset (&v);
}

/* 30 frames of `a` (128 px wide) moved by 0..2 px through hrn while
 * threads change its properties: every output carries a meta whose
 * columns fit its block width. */
static void
push_shifted_while_stressed (GstHarness * hrn, const TestImage & a)
{
  for (int i = 0; i < 30; i++) {
    GstBuffer * o = push_pull (hrn,
        test_format_buffer (test_shift (a, i % 3, 0), GST_VIDEO_FORMAT_I420,
            i));
    GstMotionVectorsMeta * m = get_meta (o);
    fail_unless_equals_int (m->columns,
        (128 + m->block_width - 1) / m->block_width);
    gst_buffer_unref (o);
  }
}

/* Every MUTABLE_PLAYING property set from other threads while frames flow:
 * no crash, every output carries a consistent meta. */
GST_START_TEST (test_property_stress)
{
  GstHarness * hrn = make_harness ("window-size=32", "I420", 128, 96);
  const TestImage a = test_texture (128, 96, 4);
  GstHarnessThread * threads[9];

  stress_uint (hrn, "spacing", 8, &threads[0]);
  stress_uint (hrn, "window-size", 48, &threads[1]);
  stress_uint (hrn, "layers", 1, &threads[2]);
  stress_enum (hrn, "window", 1, &threads[3]);
  stress_double (hrn, "lowpass", 0.7, &threads[4]);
  stress_double (hrn, "min-confidence", 0.2, &threads[5]);
  stress_enum (hrn, "direction", GST_MOTION_VECTORS_DIRECTION_FORWARD,
      &threads[6]);
  stress_enum (hrn, "draw", 1, &threads[7]);
  stress_uint (hrn, "n-threads", 1, &threads[8]);

  push_shifted_while_stressed (hrn, a);
  for (auto t : threads)
    gst_harness_stress_thread_stop (t);
  gst_harness_teardown (hrn);
}

GST_END_TEST;

/* coarse (shared coarse layers) set from another thread while frames flow,
 * with layers and spacing: the CPU matcher is reconfigured between the
 * modes (the CUDA backend's run in test_coarse_cuda). */
GST_START_TEST (test_property_stress_coarse)
{
  GstHarness * hrn =
      make_harness ("backend=cpu window-size=32", "I420", 128, 96);
  const TestImage a = test_texture (128, 96, 4);
  GstHarnessThread * threads[3];

  stress_enum (hrn, "coarse", 1 /* shared */, &threads[0]);
  stress_uint (hrn, "layers", 3, &threads[1]);
  stress_uint (hrn, "spacing", 8, &threads[2]);
  push_shifted_while_stressed (hrn, a);
  for (auto t : threads)
    gst_harness_stress_thread_stop (t);
  gst_harness_teardown (hrn);
}

GST_END_TEST;

/* ---- Pipelining (pipeline-depth) ------------------------------------------------ */

/* A real-frame sequence: the taxi pair and shifted copies, with a DISCONT
 * on frame kTaxiDiscont, which drains held frames and drops the
 * reference. */
static std::vector<TestImage>
taxi_sequence ()
{
  TestImage a, b;
  fail_unless (load_taxi (&a, &b), "tests/files/taxi01.pgm missing");
  return { a, b, test_shift (b, 2, 1), a, test_shift (a, -3, 2), b,
    test_shift (b, 1, -1), a };
}

static const guint kTaxiDiscont = 6;

/* pipeline-depth 1..3 on the CPU: every buffer leaves `depth` frames late
 * with the vectors, timestamps and (drawn) pixels of the synchronous run,
 * across a DISCONT. */
GST_START_TEST (test_pipeline_depth_same_vectors)
{
  test_held_same_vectors ("pocme",
      { "backend=cpu window-size=32 spacing=16 layers=1",
          "backend=cpu direction=forward draw=arrows" },
      taxi_sequence (), kTaxiDiscont);
}

GST_END_TEST;

/* The shared pipeline-depth tests (tests/common/heldcheck.h); a shift of
 * s pixels is checked s pixels inside the 32 px windows. */
static void
check_shift (GstMotionVectorsMeta * meta, float dx, float dy)
{
  check_interior (meta, dx, dy, INTEGER_TOLERANCE, 32,
      (guint) std::ceil (std::max (std::fabs (dx), std::fabs (dy))));
}

static const HeldCase kHeld = { "pocme", "window-size=32", 128, 96, get_meta,
  check_no_estimate, check_shift };

GST_START_TEST (test_pipeline_eos_drains)
{
  test_held_eos_drains (kHeld);
}

GST_END_TEST;

GST_START_TEST (test_pipeline_flush_drops)
{
  test_held_flush_drops (kHeld);
}

GST_END_TEST;

GST_START_TEST (test_pipeline_depth_change)
{
  test_held_depth_change (kHeld);
}

GST_END_TEST;

/* While frames are held, a caps change and a POC setting change first push
 * the held frames with the results they were computed with; the setting
 * change keeps the reference, the caps change drops it. */
GST_START_TEST (test_pipeline_caps_and_settings_change)
{
  GstHarness * hrn =
      make_harness ("pipeline-depth=2 window-size=32", "GRAY8", 128, 96);
  const TestImage a = test_texture (128, 96, 1), a2 = test_shift (a, 2, 0);
  const TestImage b = test_texture (160, 128, 2), b2 = test_shift (b, -2, 1);
  const TestImage b3 = test_shift (b2, 0, 2);
  fail_unless_equals_int (gst_harness_push (hrn, test_gray_buffer (a, 128, 0)),
      GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_push (hrn, test_gray_buffer (a2, 128, 1)),
      GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_buffers_received (hrn), 0);

  gst_harness_set_src_caps_str (hrn,
      "video/x-raw,format=GRAY8,width=160,height=128,framerate=30/1");
  fail_unless_equals_int (gst_harness_buffers_received (hrn), 2);
  GstBuffer * o = gst_harness_pull (hrn);
  check_no_estimate (get_meta (o));
  gst_buffer_unref (o);
  o = gst_harness_pull (hrn);
  fail_unless_equals_int (get_meta (o)->columns, 8);
  check_interior (get_meta (o), -2.0f, 0.0f, INTEGER_TOLERANCE, 32, 2);
  gst_buffer_unref (o);

  fail_unless_equals_int (gst_harness_push (hrn, test_gray_buffer (b, 160, 2)),
      GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_push (hrn, test_gray_buffer (b2, 160, 3)),
      GST_FLOW_OK);
  g_object_set (hrn->element, "spacing", 8, NULL);
  fail_unless_equals_int (gst_harness_push (hrn, test_gray_buffer (b3, 160, 4)),
      GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_buffers_received (hrn), 4);
  fail_unless (gst_harness_push_event (hrn, gst_event_new_eos ()));
  fail_unless_equals_int (gst_harness_buffers_received (hrn), 5);

  o = gst_harness_pull (hrn); /* b: first in the new size */
  fail_unless_equals_int (get_meta (o)->columns, 10);
  check_no_estimate (get_meta (o));
  gst_buffer_unref (o);
  o = gst_harness_pull (hrn); /* b2: spacing 16, before the change */
  fail_unless_equals_int (get_meta (o)->columns, 10);
  check_interior (get_meta (o), 2.0f, -1.0f, INTEGER_TOLERANCE, 32, 2);
  gst_buffer_unref (o);
  o = gst_harness_pull (hrn); /* b3: spacing 8, reference kept */
  fail_unless_equals_int (get_meta (o)->columns, 20);
  fail_unless_equals_uint64 (get_meta (o)->reference_timestamp, 3);
  check_interior (get_meta (o), 0.0f, -2.0f, INTEGER_TOLERANCE, 32, 2);
  gst_buffer_unref (o);
  gst_harness_teardown (hrn);
}

GST_END_TEST;

/* The latency query adds depth x frame duration (0 at an unknown frame
 * rate) to upstream's. */
GST_START_TEST (test_pipeline_latency)
{
  test_held_latency (kHeld);
}

GST_END_TEST;

/* ---- Errors ------------------------------------------------------------------- */

/* Runs `desc` to EOS or the first error and returns that message. */
static GstMessage *
run_pipeline (const char * desc)
{
  return test_run_launch (desc, 30 * GST_SECOND);
}

/* backend=cuda fails at start with RESOURCE/NOT_FOUND while there is no
 * CUDA implementation of POC (or no CUDA at all); auto and cpu run. */
GST_START_TEST (test_backend_cuda_unavailable)
{
  match::PocConfig cfg;
  cfg.width = cfg.height = 64;
  std::unique_ptr<match::PocMatcher> probe;
  if (match::PocMatcher::create (match::Backend::kCuda, cfg, &probe).is_ok ())
    return; /* a CUDA POC backend exists here */

  test_check_error (run_pipeline ("videotestsrc num-buffers=2 ! "
                                  "video/x-raw,width=64,height=48 ! pocme "
                                  "backend=cuda ! fakesink"),
      GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NOT_FOUND, "backend=cuda", "cuda");

  const char * ok[] = { "auto", "cpu" };
  for (const char * b : ok) {
    gchar * desc = g_strdup_printf ("videotestsrc num-buffers=3 ! "
                                    "video/x-raw,width=64,height=48 ! pocme "
                                    "backend=%s ! fakesink",
        b);
    GstMessage * msg = run_pipeline (desc);
    fail_unless_equals_int (GST_MESSAGE_TYPE (msg), GST_MESSAGE_EOS);
    gst_message_unref (msg);
    g_free (desc);
  }
}

GST_END_TEST;

/* window-size must be 2^a 3^b 5^c: other values are accepted when set and
 * fail with RESOURCE/SETTINGS at start; set while playing, the next frame
 * fails the same way. */
/* Where a CUDA POC backend can be made (GPU and cuFFT), backend=cuda runs
 * on it and gives the CPU's vectors within the kernels' stated tolerance
 * (tests/kernels/test_poc_cuda.cpp): 0.01 px and 0.01 confidence, equal
 * flags, on at least 99.5% of the blocks. Without one there is nothing to
 * compare (test_backend_cuda_unavailable covers the error). */
GST_START_TEST (test_backend_cuda_matches_cpu)
{
  match::PocConfig probe_cfg;
  probe_cfg.width = probe_cfg.height = 64;
  std::unique_ptr<match::PocMatcher> probe;
  if (!match::PocMatcher::create (match::Backend::kCuda, probe_cfg, &probe)
           .is_ok ())
    return;

  TestImage a, b;
  fail_unless (load_taxi (&a, &b), "tests/files/taxi01.pgm missing");
  const char * settings[] = { "", "layers=0 window-size=32 spacing=8",
    "layers=3 window-size=128 direction=forward" };
  for (const char * set : settings) {
    gchar * pc = g_strdup_printf ("backend=cpu %s", set);
    gchar * pg = g_strdup_printf ("backend=cuda %s", set);
    GstBuffer * oc = run_pair ("pocme", pc, a, b);
    GstBuffer * og = run_pair ("pocme", pg, a, b);
    GstMotionVectorsMeta *mc = get_meta (oc), *mg = get_meta (og);
    fail_unless_equals_int (mc->n_vectors, mg->n_vectors);
    guint outside = 0;
    for (guint i = 0; i < mc->n_vectors; i++) {
      const GstMotionVector &c = mc->vectors[i], &g = mg->vectors[i];
      if (std::hypot (c.dx - g.dx, c.dy - g.dy) > 0.01
          || std::fabs (c.confidence - g.confidence) > 0.01
          || c.flags != g.flags)
        outside++;
    }
    GST_INFO ("%s: %u of %u vectors outside the tolerance", set, outside,
        mc->n_vectors);
    fail_unless (outside <= mc->n_vectors / 200,
        "%s: %u of %u vectors "
        "differ between backend=cpu and backend=cuda",
        set, outside, mc->n_vectors);
    gst_buffer_unref (oc);
    gst_buffer_unref (og);
    g_free (pc);
    g_free (pg);
  }

  GstElement * el = gst_element_factory_make ("pocme", NULL);
  gst_util_set_object_arg (G_OBJECT (el), "backend", "cuda");
  GstHarness * hrn = gst_harness_new_with_element (el, "sink", "src");
  gst_harness_set_src_caps_str (hrn,
      "video/x-raw,format=GRAY8,width=256,height=191,framerate=30/1");
  gst_buffer_unref (push_pull (hrn, test_gray_buffer (a, a.width, 0)));
  gchar * active = NULL;
  g_object_get (el, "active-backend", &active, NULL);
  fail_unless (active && g_str_has_prefix (active, "cuda:"),
      "active-backend "
      "is '%s'",
      GST_STR_NULL (active));
  g_free (active);
  gst_harness_teardown (hrn);
  gst_object_unref (el);
}

GST_END_TEST;

/* The shared coarse modes on the CUDA backend (where one exists): they run
 * there (no refusal, no fallback to the CPU), in a pipeline and in a
 * harness whose active-backend says cuda. Without a CUDA POC backend there
 * is nothing to check here (the CPU runs them in the other tests). */
GST_START_TEST (test_coarse_cuda)
{
  match::PocConfig cfg;
  cfg.width = cfg.height = 64;
  cfg.coarse = match::PocCoarse::kSharedMedian;
  std::unique_ptr<match::PocMatcher> probe;
  if (!match::PocMatcher::create (match::Backend::kCuda, cfg, &probe).is_ok ())
    return;

  const char * modes[] = { "shared", "shared-median" };
  for (const char * m : modes) {
    gchar * desc = g_strdup_printf ("videotestsrc num-buffers=3 ! "
                                    "video/x-raw,width=64,height=48 ! pocme "
                                    "backend=cuda coarse=%s ! "
                                    "fakesink",
        m);
    GstMessage * msg = run_pipeline (desc);
    fail_unless (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS, "%s", desc);
    gst_message_unref (msg);
    g_free (desc);
  }

  GstElement * el = gst_element_factory_make ("pocme", NULL);
  gst_util_set_object_arg (G_OBJECT (el), "coarse", "shared");
  gst_util_set_object_arg (G_OBJECT (el), "backend", "cuda");
  GstHarness * hrn = gst_harness_new_with_element (el, "sink", "src");
  gst_harness_set_src_caps_str (hrn,
      "video/x-raw,format=GRAY8,width=64,height=48,framerate=30/1");
  const TestImage a = test_texture (64, 48, 3);
  gst_buffer_unref (push_pull (hrn, test_gray_buffer (a, a.width, 0)));
  gchar * active = NULL;
  g_object_get (el, "active-backend", &active, NULL);
  fail_unless (active && g_str_has_prefix (active, "cuda"),
      "active-backend "
      "is '%s'",
      GST_STR_NULL (active));
  g_free (active);
  gst_harness_teardown (hrn);
  gst_object_unref (el);
}

GST_END_TEST;

GST_START_TEST (test_bad_window_size)
{
  const guint bad[] = { 34, 33, 49, 254 };
  for (guint n : bad) {
    GstElement * el = gst_element_factory_make ("pocme", NULL);
    g_object_set (el, "window-size", n, NULL);
    guint got = 0;
    g_object_get (el, "window-size", &got, NULL);
    fail_unless_equals_int (got, n);
    gst_object_unref (el);

    gchar * desc = g_strdup_printf ("videotestsrc num-buffers=2 ! "
                                    "video/x-raw,width=64,height=48 ! pocme "
                                    "window-size=%u ! fakesink",
        n);
    test_check_error (run_pipeline (desc), GST_RESOURCE_ERROR,
        GST_RESOURCE_ERROR_SETTINGS, desc, "window-size");
    g_free (desc);
  }

  const guint good[] = { 32, 45, 48, 60, 72, 80, 243, 256 };
  for (guint n : good) {
    gchar * desc = g_strdup_printf ("videotestsrc num-buffers=2 ! "
                                    "video/x-raw,width=64,height=48 ! pocme "
                                    "window-size=%u ! fakesink",
        n);
    GstMessage * msg = run_pipeline (desc);
    fail_unless (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS, "%s", desc);
    gst_message_unref (msg);
    g_free (desc);
  }

  GstHarness * hrn = make_harness (NULL, "GRAY8", 64, 48);
  const TestImage a = test_texture (64, 48, 1);
  gst_buffer_unref (push_pull (hrn, test_gray_buffer (a, 64, 0)));
  g_object_set (hrn->element, "window-size", 34, NULL);
  fail_unless_equals_int (gst_harness_push (hrn, test_gray_buffer (a, 64, 1)),
      GST_FLOW_ERROR);
  gst_harness_teardown (hrn);
}

GST_END_TEST;

/* GstBaseTransform retries set_info after a failed negotiation, on every
 * buffer: one failing setup posts one error, a second failing setup (other
 * settings) its own, and a setup that works negotiates. */
GST_START_TEST (test_setup_error_posted_once)
{
  GstHarness * hrn = gst_harness_new ("pocme");
  GstBus * bus = gst_bus_new ();
  gst_element_set_bus (hrn->element, bus);
  gst_util_set_object_arg (G_OBJECT (hrn->element), "backend", "cpu");
  gst_harness_set_src_caps_str (hrn,
      "video/x-raw,format=GRAY8,width=3,"
      "height=3,framerate=30/1");
  const TestImage a = test_texture (3, 3, 1);

  for (int i = 0; i < 6; i++)
    fail_if (gst_harness_push (hrn, test_gray_buffer (a, 3, i)) == GST_FLOW_OK);
  fail_unless_equals_int (test_count_errors (bus, GST_RESOURCE_ERROR,
                              GST_RESOURCE_ERROR_SETTINGS),
      1);

  g_object_set (hrn->element, "window-size", 34, NULL);
  for (int i = 0; i < 6; i++)
    fail_if (gst_harness_push (hrn, test_gray_buffer (a, 3, i)) == GST_FLOW_OK);
  fail_unless_equals_int (test_count_errors (bus, GST_RESOURCE_ERROR,
                              GST_RESOURCE_ERROR_SETTINGS),
      1);

  g_object_set (hrn->element, "window-size", 32, "layers", 0, NULL);
  const TestImage b = test_texture (64, 48, 1);
  gst_harness_set_src_caps_str (hrn,
      "video/x-raw,format=GRAY8,width=64,"
      "height=48,framerate=30/1");
  gst_buffer_unref (push_pull (hrn, test_gray_buffer (b, 64, 0)));
  fail_unless_equals_int (test_count_errors (bus, GST_RESOURCE_ERROR,
                              GST_RESOURCE_ERROR_SETTINGS),
      0);

  gst_element_set_bus (hrn->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (hrn);
}

GST_END_TEST;

/* ---- Drawing and downstream ----------------------------------------------------- */

/* draw=arrows changes the pixels of an estimated frame with motion; draw=none
 * leaves them alone. */
GST_START_TEST (test_draw_arrows)
{
  const TestImage a = test_texture (128, 96, 6), b = test_shift (a, 5, 3);
  for (int pass = 0; pass < 2; pass++) {
    GstBuffer * o =
        run_pair ("pocme", pass ? "draw=arrows" : "draw=none", a, b);
    GstMapInfo map;
    fail_unless (gst_buffer_map (o, &map, GST_MAP_READ));
    guint changed = 0;
    for (int y = 0; y < 96; y++)
      for (int x = 0; x < 128; x++)
        changed += map.data[y * 128 + x] != b.at (x, y);
    gst_buffer_unmap (o, &map);
    if (pass)
      fail_unless (changed > 100, "only %u pixels drawn", changed);
    else
      fail_unless_equals_int (changed, 0);
    gst_buffer_unref (o);
  }
}

GST_END_TEST;

/* The meta survives videoconvert; mvexport writes one JSON line per frame
 * with method "poc", precision 0 and the confidences. */
GST_START_TEST (test_mvexport_json)
{
  gchar * dir = g_dir_make_tmp ("pocme-XXXXXX", NULL);
  fail_unless (dir != NULL);
  gchar * path = g_build_filename (dir, "v.jsonl", NULL);
  gchar * desc = g_strdup_printf (
      "videotestsrc num-buffers=3 pattern=ball ! "
      "video/x-raw,format=I420,width=96,height=64 ! pocme window-size=32 ! "
      "videoconvert ! video/x-raw,format=BGRx ! mvexport location=\"%s\" ! "
      "fakesink",
      path);
  GstMessage * msg = run_pipeline (desc);
  fail_unless_equals_int (GST_MESSAGE_TYPE (msg), GST_MESSAGE_EOS);
  gst_message_unref (msg);

  gchar * text = NULL;
  fail_unless (g_file_get_contents (path, &text, NULL, NULL));
  gchar ** lines = g_strsplit (g_strstrip (text), "\n", -1);
  fail_unless_equals_int (g_strv_length (lines), 3);
  for (int i = 0; i < 3; i++) {
    fail_unless (strstr (lines[i], "\"method\":\"poc\"") != NULL, "%s",
        lines[i]);
    fail_unless (strstr (lines[i], "\"columns\":6") != NULL, "%s", lines[i]);
    fail_unless (strstr (lines[i], "\"precision\":0") != NULL, "%s", lines[i]);
    /* the first frame has no estimate, so no confidence */
    fail_unless ((strstr (lines[i], "\"confidence\":[") != NULL) == (i > 0),
        "%s", lines[i]);
  }
  g_strfreev (lines);
  g_free (text);
  g_unlink (path);
  g_rmdir (dir);
  g_free (desc);
  g_free (path);
  g_free (dir);
}

GST_END_TEST;

/* The kernels' frame size limit is in the pad templates, so that a larger
 * frame fails at negotiation rather than after it: 16384 pixels a side
 * negotiate, 16385 do not. */
GST_START_TEST (test_frame_size_in_caps)
{
  static const char * const pads[] = { "sink", "src", NULL };
  test_check_frame_size_limit ("pocme", pads);
}

GST_END_TEST;

static Suite *
pocme_suite (void)
{
  Suite * s = suite_create ("pocme");
  TCase * tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 300);
  tcase_add_test (tc, test_every_format);
  tcase_add_test (tc, test_unsupported_format);
  tcase_add_test (tc, test_meta_on_every_buffer);
  tcase_add_test (tc, test_integer_shift);
  tcase_add_test (tc, test_window_none);
  tcase_add_test (tc, test_large_motion_layers);
  tcase_add_test (tc, test_subpixel_shift);
  tcase_add_test (tc, test_identical_frames);
  tcase_add_test (tc, test_same_convention_as_blockmatchme);
  tcase_add_test (tc, test_min_confidence);
  tcase_add_test (tc, test_flush_resets);
  tcase_add_test (tc, test_discont_resets);
  tcase_add_test (tc, test_caps_change_resets);
  tcase_add_test (tc, test_frame_size_in_caps);
  tcase_add_test (tc, test_property_change_keeps_reference);
  tcase_add_test (tc, test_property_stress);
  tcase_add_test (tc, test_property_stress_coarse);
  tcase_add_test (tc, test_pipeline_depth_same_vectors);
  tcase_add_test (tc, test_pipeline_eos_drains);
  tcase_add_test (tc, test_pipeline_flush_drops);
  tcase_add_test (tc, test_pipeline_depth_change);
  tcase_add_test (tc, test_pipeline_caps_and_settings_change);
  tcase_add_test (tc, test_pipeline_latency);
  tcase_add_test (tc, test_backend_cuda_unavailable);
  tcase_add_test (tc, test_backend_cuda_matches_cpu);
  tcase_add_test (tc, test_coarse_cuda);
  tcase_add_test (tc, test_bad_window_size);
  tcase_add_test (tc, test_setup_error_posted_once);
  tcase_add_test (tc, test_draw_arrows);
  tcase_add_test (tc, test_mvexport_json);
  return s;
}

GST_CHECK_MAIN (pocme);
