/* Errors and their reasons: Vulkan-free (the VkResult wording is core/loader.c's). */
#include "util.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The thread's last failure: its message and its reason (include/vkocc.h "errors and status"). */
static _Thread_local char last_error[1024];
static _Thread_local vkocc_reason last_reason;

const char *vkocc_last_error(void) { return last_error; }
vkocc_reason vkocc_last_reason(void) { return last_reason; }
void vkocc_clear_error(void) { last_error[0] = 0, last_reason = VKOCC_REASON_NONE; }
const char *vkocc_version(void) { return VKOCC_VERSION; }

const char *vkocc_reason_name(vkocc_reason r) {
  static const char *names[] = {"", "bad input", "unsupported", "noisy", "iteration bound", "timeout", "device lost",
                                "written pipeline unknown", "input/output", "interrupted"};
  return (size_t)r < sizeof names / sizeof names[0] ? names[r] : "";
}

static void set_message(const char *fmt, va_list ap) {
  /* through a copy: callers may pass vkocc_last_error() itself as an argument, to add context */
  char buf[sizeof last_error];
  vsnprintf(buf, sizeof buf, fmt, ap);
  memcpy(last_error, buf, sizeof buf);
}

vkocc_status vkocc_fail(vkocc_status s, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  set_message(fmt, ap);
  va_end(ap);
  /* a wrapped failure keeps its first reason; else the status says what it can */
  if (last_reason == VKOCC_REASON_NONE)
    last_reason = s == VKOCC_ERROR_USAGE ? VKOCC_REASON_BAD_INPUT
                  : s == VKOCC_ERROR_UNSUPPORTED ? VKOCC_REASON_UNSUPPORTED : VKOCC_REASON_NONE;
  return s;
}

vkocc_status vkocc_fail_reason(vkocc_status s, vkocc_reason reason, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  set_message(fmt, ap);
  va_end(ap);
  last_reason = reason;
  return s;
}
