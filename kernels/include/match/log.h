/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * Logging hook: kernels never print. The GStreamer glue installs a handler
 * that forwards to a GST_DEBUG_CATEGORY (gst/common).
 */
#pragma once

namespace match {

enum class LogLevel { kError = 1, kWarning = 2, kInfo = 4, kDebug = 5 };

using LogHandler = void (*)(LogLevel level, const char* message, void* user_data);

/* Installs the process-wide handler (nullptr = discard). Thread-safe. */
void set_log_handler(LogHandler handler, void* user_data);

/* printf-style; cheap when no handler is installed. */
void log(LogLevel level, const char* format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

}  // namespace match
