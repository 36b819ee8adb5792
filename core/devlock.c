/* The device between vkocc processes (core/exec.h): a measurement that needs the device to itself (a
 * calibration, an occupancy probe) runs in an exclusive section; every other submission holds a shared lock
 * while it is in flight. So ten tunes started at once measure their calibrations and P one at a time, each
 * on a device no other vkocc process is using, instead of accepting what a crowded device showed (all
 * repetitions of a crowded probe may agree on a P that is too small, and the cache would keep it).
 *
 * Two lock files per device (by deviceUUID) in the cache directory, taken with flock(2) so that a process
 * that dies releases them: "lock" (shared: work in flight; exclusive: a measurement) and "intent", which a
 * waiting exclusive section holds so that new shared holders queue behind it instead of starving it. Within
 * one process nothing is locked: threads of one context share its locks. Where the cache directory cannot
 * hold the files (no HOME, read-only), nothing is locked and nothing is promised. */
#include "exec.h"
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

/* how long a measurement waits for other processes' work to drain, and a submission for a measurement to end */
#define EXCLUSIVE_WAIT_S 600.0
#define SHARED_WAIT_S 600.0

static pthread_mutex_t lock_mu = PTHREAD_MUTEX_INITIALIZER;

static int open_lock(const char *dir, const char *uuid, const char *kind) {
  char path[1200];
  if (snprintf(path, sizeof path, "%s/device-%s.%s", dir, uuid, kind) >= (int)sizeof path) return -1;
  return open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
}

/* Opens the two files once per context; false where they cannot be (then nothing is locked). */
static bool lock_files(vkocc_context *ctx) {
  if (ctx->lock_state == 0) {
    ctx->lock_state = 2;
    char dir[1024], uuid[37];
    if (vkocc_cache_dir(dir, sizeof dir) == VKOCC_OK) {
      vkocc_format_uuid(ctx->info.uuid, uuid);
      ctx->lock_fd = open_lock(dir, uuid, "lock");
      ctx->intent_fd = ctx->lock_fd >= 0 ? open_lock(dir, uuid, "intent") : -1;
      if (ctx->intent_fd >= 0) ctx->lock_state = 1;
      else if (ctx->lock_fd >= 0) close(ctx->lock_fd);
    }
    vkocc_clear_error(); /* no cache directory is not this call's failure */
  }
  return ctx->lock_state == 1;
}

/* flock(fd, op | LOCK_NB) until it holds or `limit_s` passes; sleeps 1 ms between tries */
static bool take(int fd, int op, double limit_s) {
  double end = vkocc_now_ns() + limit_s * 1e9;
  for (;;) {
    if (!flock(fd, op | LOCK_NB)) return true;
    if (errno != EWOULDBLOCK && errno != EINTR) return false;
    if (vkocc_now_ns() > end) return false;
    nanosleep(&(struct timespec){0, 1000000}, NULL);
  }
}

vkocc_status vkocc_device_exclusive_begin(vkocc_context *ctx, const char *what) {
  pthread_mutex_lock(&lock_mu);
  if (ctx->exclusive++ || !lock_files(ctx)) { pthread_mutex_unlock(&lock_mu); return VKOCC_OK; }
  /* intent first: new shared holders wait from now on; then the lock, once the work in flight has drained
   * (this process's own shared lock, if it has work in flight, is converted) */
  bool ok = take(ctx->intent_fd, LOCK_EX, EXCLUSIVE_WAIT_S) && take(ctx->lock_fd, LOCK_EX, EXCLUSIVE_WAIT_S);
  if (!ok) {
    flock(ctx->intent_fd, LOCK_UN);
    ctx->exclusive--;
    pthread_mutex_unlock(&lock_mu);
    return vkocc_fail_reason(VKOCC_ERROR_RUNTIME, VKOCC_REASON_TIMEOUT, "%s: another vkocc process kept work on "
                             "device %s for more than %.0f s; %s needs the device to itself", what, ctx->info.name,
                             EXCLUSIVE_WAIT_S, what);
  }
  pthread_mutex_unlock(&lock_mu);
  return VKOCC_OK;
}

void vkocc_device_exclusive_end(vkocc_context *ctx) {
  pthread_mutex_lock(&lock_mu);
  if (ctx->exclusive && !--ctx->exclusive && ctx->lock_state == 1) {
    flock(ctx->lock_fd, ctx->shared ? LOCK_SH : LOCK_UN);
    flock(ctx->intent_fd, LOCK_UN);
  }
  pthread_mutex_unlock(&lock_mu);
}

bool vkocc_device_shared_take(vkocc_context *ctx) {
  pthread_mutex_lock(&lock_mu);
  bool held = true;
  if (!ctx->shared && !ctx->exclusive && lock_files(ctx)) {
    /* behind a waiting or running exclusive section: its intent first, then the lock */
    held = take(ctx->intent_fd, LOCK_SH, SHARED_WAIT_S);
    if (held) {
      held = take(ctx->lock_fd, LOCK_SH, SHARED_WAIT_S);
      flock(ctx->intent_fd, LOCK_UN);
    }
    /* past the bound the work goes ahead unlocked: a submission never fails for want of the lock */
  }
  if (held) ctx->shared++;
  pthread_mutex_unlock(&lock_mu);
  return held;
}

void vkocc_device_shared_release(vkocc_context *ctx) {
  pthread_mutex_lock(&lock_mu);
  if (ctx->shared && !--ctx->shared && !ctx->exclusive && ctx->lock_state == 1) flock(ctx->lock_fd, LOCK_UN);
  pthread_mutex_unlock(&lock_mu);
}

void vkocc_device_locks_close(vkocc_context *ctx) {
  if (ctx->lock_state == 1) {
    close(ctx->lock_fd); /* closing releases what is held */
    close(ctx->intent_fd);
  }
  ctx->lock_state = 2;
}
