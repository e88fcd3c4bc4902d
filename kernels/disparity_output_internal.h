/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * Entry points of the disparity output conversion shared between kernels/
 * translation units and the white-box tests (not installed).
 */
#pragma once

#include "match/disparity_output.h"
#include "match/status.h"

namespace match {

/* The input map of a conversion: non-null, at least 1x1, a stride that
 * holds a row of 16-bit values (disparity_output_dispatch.cpp). */
Status check_disparity_input(const ConstDisparityView& in);

}  // namespace match
