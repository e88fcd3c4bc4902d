/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 */
#include "match/log.h"

#include <atomic>
#include <cstdarg>
#include <cstdio>
#include <mutex>

namespace match {
namespace {
std::mutex g_mutex;
LogHandler g_handler = nullptr;
void* g_user_data = nullptr;
std::atomic<bool> g_has_handler{false};
}  // namespace

void set_log_handler(LogHandler handler, void* user_data) {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_handler = handler;
  g_user_data = user_data;
  g_has_handler = handler != nullptr;
}

void log(LogLevel level, const char* format, ...) {
  if (!g_has_handler) return;
  char buf[512];
  va_list args;
  va_start(args, format);
  std::vsnprintf(buf, sizeof buf, format, args);
  va_end(args);
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_handler) g_handler(level, buf, g_user_data);
}

}  // namespace match
