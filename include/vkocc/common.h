/* vkocc/common.h: errors and status, the clock, files written whole; part of <vkocc.h>. */
#ifndef VKOCC_API_COMMON_H
#define VKOCC_API_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ================================================================ errors and status */

/* Status values double as the CLI's exit codes. */
typedef enum vkocc_status {
  VKOCC_OK = 0,
  VKOCC_ERROR_RUNTIME = 1,     /* measurement or runtime failure (device lost, timeout, inconsistent data) */
  VKOCC_ERROR_USAGE = 2,       /* bad input: flag, file, JSON, no such device */
  VKOCC_ERROR_UNSUPPORTED = 3, /* the device or system lacks what is needed (loader, driver, timestamps) */
} vkocc_status;

/* The message of the last failure on this thread (never NULL; "" when none or after a call that succeeded). */
const char *vkocc_last_error(void);
/* For callbacks that return a vkocc_status (vkocc_runtime_fn, vkocc_workload_fn) and for libraries built on
 * vkocc (libvkocc-plot reports through these): vkocc_fail records a failure the way the library does (the
 * printf-formatted message becomes vkocc_last_error() of this thread) and returns s; vkocc_clear_error
 * empties it, as every status call of the library does when it succeeds. */
vkocc_status vkocc_fail(vkocc_status s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void vkocc_clear_error(void);

/* Why the last failure on this thread failed, beside its message (the status says only how bad): callers decide
 * by this, never by the message's text. The reason of the first failure since the last vkocc_clear_error stays
 * when later failures wrap its message with context; one given explicitly (vkocc_fail_reason) replaces it. */
typedef enum vkocc_reason {
  VKOCC_REASON_NONE = 0,          /* no failure, or none more specific than the status */
  VKOCC_REASON_BAD_INPUT,         /* a file, JSON value, flag or argument (VKOCC_ERROR_USAGE by default) */
  VKOCC_REASON_UNSUPPORTED,       /* the device or system lacks it (VKOCC_ERROR_UNSUPPORTED by default) */
  VKOCC_REASON_NOISY,             /* a measurement too disturbed to answer (a poor fit, runtimes that disagree) */
  VKOCC_REASON_ITERATION_BOUND,   /* a shader's sleep ended at its loop's iteration bound before its time */
  VKOCC_REASON_TIMEOUT,           /* the GPU did not finish in time (VK_TIMEOUT) */
  VKOCC_REASON_DEVICE_LOST,       /* VK_ERROR_DEVICE_LOST: the device's results are void */
  VKOCC_REASON_WRITTEN_UNKNOWN,   /* P was measured on the augmented pipeline only: the written one's is unknown */
  VKOCC_REASON_IO,                /* a file could not be read or written */
  VKOCC_REASON_INTERRUPTED,       /* stopped on request */
} vkocc_reason;
vkocc_reason vkocc_last_reason(void);
const char *vkocc_reason_name(vkocc_reason r); /* "bad input", "iteration bound", ... ("" for none) */
/* vkocc_fail with the reason given: it replaces the thread's reason. */
vkocc_status vkocc_fail_reason(vkocc_status s, vkocc_reason reason, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

const char *vkocc_version(void);
/* Monotonic clock in milliseconds (for timing what callers do around the library). */
double vkocc_now_ms(void);

/* Files written whole, as every output of vkocc is: data goes to a temporary file in the same directory,
 * then a rename, so a reader never sees half a file and nothing is left behind on error. Replaces only a
 * regular file (a directory, device, FIFO or socket: VKOCC_ERROR_USAGE); a symbolic link is followed and
 * the file it names replaced (the link stays), a link to nothing refused. vkocc_output_check runs the same
 * checks without writing: call it before measuring, so a bad path costs no measurement. */
vkocc_status vkocc_write_file_atomic(const char *path, const void *data, size_t len);
vkocc_status vkocc_output_check(const char *path);
/* An exclusive lock on the output `out` while it is written, so that two vkocc writing one file never lose one's
 * results silently: the lock file OUT.lock beside it (its path in lock_path, len bytes; "" where none was taken),
 * opened through vkocc's door for the files it makes itself (a symbolic link, to a file or to nothing, a FIFO, a
 * device or a folder there is VKOCC_ERROR_USAGE naming it, never followed, never waited on) and locked with
 * flock(2). *fd: the descriptor that holds the lock until it is closed or the process ends (-1 where a folder
 * takes no lock file: then nothing is promised). VKOCC_ERROR_USAGE naming the holder's pid when another process
 * holds it. The caller removes lock_path when done. */
vkocc_status vkocc_output_lock(const char *out, char *lock_path, size_t len, int *fd);

#ifdef __cplusplus
}
#endif
#endif
