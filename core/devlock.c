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
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

/* how long a measurement waits for other processes' work to drain, and a submission for a measurement to end */
#define EXCLUSIVE_WAIT_S 600.0
#define SHARED_WAIT_S 600.0

static pthread_mutex_t lock_mu = PTHREAD_MUTEX_INITIALIZER;

static void lock_path(const vkocc_context *ctx, const char *dir, const char *kind, char *path, size_t len) {
  char uuid[37];
  vkocc_format_uuid(ctx->info.uuid, uuid);
  if (snprintf(path, len, "%s/device-%s.%s", dir, uuid, kind) >= (int)len) path[0] = 0;
}

/* Through the door (util/door.c): a link, FIFO, socket, device or directory in a lock file's place is
 * refused (lock_state 3, the message kept for the calls that need the lock); -1 where the file cannot be
 * made for another reason (a read-only cache directory: then nothing is locked). */
static int open_lock(vkocc_context *ctx, const char *dir, const char *kind) {
  char path[1200];
  lock_path(ctx, dir, kind, path, sizeof path);
  int fd = -1;
  if (!path[0]) return -1;
  if (util_door_open(path, O_RDWR | O_CREAT, 0644, &fd) && errno == EINVAL && ctx->lock_state != 3) {
    ctx->lock_state = 3;
    snprintf(ctx->lock_error, sizeof ctx->lock_error, "%s", vkocc_last_error());
  }
  return fd;
}

/* Opens the two files once per context; false where they cannot be (then nothing is locked) or were refused
 * (lock_state 3). */
static bool lock_files(vkocc_context *ctx) {
  if (ctx->lock_state == 0) {
    ctx->lock_state = 2;
    char dir[1024];
    if (util_cache_dir(dir, sizeof dir) == VKOCC_OK) {
      ctx->lock_fd = open_lock(ctx, dir, "lock");
      ctx->intent_fd = ctx->lock_fd >= 0 ? open_lock(ctx, dir, "intent") : -1;
      if (ctx->intent_fd >= 0) ctx->lock_state = 1;
      else if (ctx->lock_fd >= 0) close(ctx->lock_fd);
    }
    vkocc_clear_error(); /* no cache directory is not this call's failure */
  }
  return ctx->lock_state == 1;
}

/* The pid of a process (other than this one) holding a flock on fd's file, from /proc/locks; 0 unknown. */
static long holder_pid(int fd) {
  struct stat st;
  FILE *f = fstat(fd, &st) == 0 ? fopen("/proc/locks", "re") : NULL;
  if (!f) return 0;
  long found = 0;
  char line[256];
  while (!found && fgets(line, sizeof line, f)) {
    char type[16], kind[16], mode[16];
    long pid;
    unsigned maj, min;
    unsigned long ino;
    if (strstr(line, "->")) continue; /* a waiter, not a holder */
    if (sscanf(line, "%*d: %15s %15s %15s %ld %x:%x:%lu", type, kind, mode, &pid, &maj, &min, &ino) == 7 &&
        !strcmp(type, "FLOCK") && ino == (unsigned long)st.st_ino && maj == major(st.st_dev) &&
        min == minor(st.st_dev) && pid != (long)getpid() && pid > 0)
      found = pid;
  }
  fclose(f);
  return found;
}

typedef enum { TAKEN, PAST_BOUND, STOPPED, FAILED } take_result;

/* flock(fd, op | LOCK_NB) until it holds, `limit_s` passes or the context's wait hook stops it; sleeps 1 ms
 * between tries. After one second the hook is told what the wait is for (then every 10 ms, and at its end). */
static take_result take(vkocc_context *ctx, int fd, int op, double limit_s, const char *what, const char *kind) {
  double start = util_now_ns(), end = start + limit_s * 1e9, next_call = start + 1e9;
  char dir[1024], path[1200] = "";
  vkocc_wait_info w = {.what = what, .lock = !strcmp(kind, "lock") ? "device lock" : "device intent", .path = path,
                       .bound_s = limit_s};
  bool told = false;
  take_result r;
  for (;;) {
    if (!flock(fd, op | LOCK_NB)) { r = TAKEN; break; }
    if (errno != EWOULDBLOCK && errno != EINTR) { r = FAILED; break; }
    double now = util_now_ns();
    if (now > end) { r = PAST_BOUND; break; }
    if (ctx->wait && now >= next_call) {
      if (!told) {
        if (util_cache_dir(dir, sizeof dir) == VKOCC_OK) lock_path(ctx, dir, kind, path, sizeof path);
        vkocc_clear_error();
        w.holder_pid = holder_pid(fd);
        told = true;
      }
      w.waited_s = (now - start) / 1e9;
      if (!ctx->wait(ctx->wait_user, &w)) { r = STOPPED; break; }
      next_call = now + 1e7;
    }
    nanosleep(&(struct timespec){0, 1000000}, NULL);
  }
  if (told) {
    w.waited_s = (util_now_ns() - start) / 1e9;
    w.done = true;
    ctx->wait(ctx->wait_user, &w);
    char holder[48] = "another process";
    if (w.holder_pid) snprintf(holder, sizeof holder, "pid %ld", w.holder_pid);
    if (r == STOPPED)
      vkocc_fail_reason(VKOCC_ERROR_RUNTIME, VKOCC_REASON_INTERRUPTED, "%s: stopped after %.1f s of waiting for the "
                        "%s %s (held by %s); nothing was measured", what, w.waited_s, w.lock, path, holder);
  }
  return r;
}

vkocc_status core_device_exclusive_begin(vkocc_context *ctx, const char *what) {
  pthread_mutex_lock(&lock_mu);
  if (ctx->exclusive++ || !lock_files(ctx)) {
    if (ctx->lock_state == 3 && ctx->exclusive == 1) {
      ctx->exclusive--;
      pthread_mutex_unlock(&lock_mu);
      return vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s", what, ctx->lock_error);
    }
    pthread_mutex_unlock(&lock_mu);
    return VKOCC_OK;
  }
  /* intent first: new shared holders wait from now on; then the lock, once the work in flight has drained
   * (this process's own shared lock, if it has work in flight, is converted) */
  take_result r = take(ctx, ctx->intent_fd, LOCK_EX, EXCLUSIVE_WAIT_S, what, "intent");
  if (r == TAKEN) r = take(ctx, ctx->lock_fd, LOCK_EX, EXCLUSIVE_WAIT_S, what, "lock");
  if (r != TAKEN) {
    flock(ctx->intent_fd, LOCK_UN);
    ctx->exclusive--;
    pthread_mutex_unlock(&lock_mu);
    if (r == STOPPED) return VKOCC_ERROR_RUNTIME; /* take said why */
    return vkocc_fail_reason(VKOCC_ERROR_RUNTIME, VKOCC_REASON_TIMEOUT, "%s: another vkocc process kept work on "
                             "device %s for more than %.0f s; %s needs the device to itself", what, ctx->info.name,
                             EXCLUSIVE_WAIT_S, what);
  }
  pthread_mutex_unlock(&lock_mu);
  return VKOCC_OK;
}

void core_device_exclusive_end(vkocc_context *ctx) {
  pthread_mutex_lock(&lock_mu);
  if (ctx->exclusive && !--ctx->exclusive && ctx->lock_state == 1) {
    flock(ctx->lock_fd, ctx->shared ? LOCK_SH : LOCK_UN);
    flock(ctx->intent_fd, LOCK_UN);
  }
  pthread_mutex_unlock(&lock_mu);
}

bool core_device_shared_take(vkocc_context *ctx) {
  pthread_mutex_lock(&lock_mu);
  bool held = true;
  if (!ctx->shared && !ctx->exclusive && lock_files(ctx)) {
    /* behind a waiting or running exclusive section: its intent first, then the lock */
    take_result r = take(ctx, ctx->intent_fd, LOCK_SH, SHARED_WAIT_S, "a submission", "intent");
    if (r == TAKEN) {
      r = take(ctx, ctx->lock_fd, LOCK_SH, SHARED_WAIT_S, "a submission", "lock");
      flock(ctx->intent_fd, LOCK_UN);
    }
    held = r == TAKEN;
    /* past the bound the work goes ahead unlocked: a submission never fails for want of the lock; stopped
     * by the wait hook, it fails (core_batch_submit) */
    if (r == STOPPED) ctx->lock_stopped = true;
  }
  if (held) ctx->shared++;
  pthread_mutex_unlock(&lock_mu);
  return held;
}

void core_device_shared_release(vkocc_context *ctx) {
  pthread_mutex_lock(&lock_mu);
  if (ctx->shared && !--ctx->shared && !ctx->exclusive && ctx->lock_state == 1) flock(ctx->lock_fd, LOCK_UN);
  pthread_mutex_unlock(&lock_mu);
}

void core_device_locks_close(vkocc_context *ctx) {
  if (ctx->lock_state == 1) {
    close(ctx->lock_fd); /* closing releases what is held */
    close(ctx->intent_fd);
  }
  ctx->lock_state = 2;
}
