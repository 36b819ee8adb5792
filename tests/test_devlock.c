/* The device between vkocc processes (core/devlock.c), with processes of this test standing in for vkocc
 * processes: a measurement waits for other processes' work in flight, their submissions wait for the
 * measurement, a waiting measurement goes before submissions that ask after it, a process's own work is
 * converted, not waited for, and without a cache directory nothing is locked. Orders are asserted, not
 * durations: every time compared is CLOCK_MONOTONIC, which all processes of a machine share. */
#define _DEFAULT_SOURCE
#include "check.h"
#include "exec.h"
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <time.h>

static char dir[] = "/tmp/vkocc-devlock-XXXXXX";
static const uint8_t uuid[16] = {0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}
static void sleep_ms(int ms) { nanosleep(&(struct timespec){ms / 1000, (ms % 1000) * 1000000L}, NULL); }

static vkocc_context *fake(void) {
  vkocc_context *c = calloc(1, sizeof *c);
  memcpy(c->info.uuid, uuid, 16);
  snprintf(c->info.name, sizeof c->info.name, "test device");
  return c;
}

/* another open file description of a lock file: conflicts with this process's own locks as another
 * process's would */
static int other(const char *kind) {
  char path[256];
  char u[37];
  vkocc_format_uuid(uuid, u);
  snprintf(path, sizeof path, "%s/vkocc/device-%s.%s", dir, u, kind);
  return open(path, O_RDWR | O_CLOEXEC);
}
static bool can(int fd, int op) {
  if (flock(fd, op | LOCK_NB)) return false;
  flock(fd, LOCK_UN);
  return true;
}

static void put(int fd, double v) { if (write(fd, &v, sizeof v) != sizeof v) _exit(3); }
static double get(int fd) {
  double v = -1;
  if (read(fd, &v, sizeof v) != sizeof v) return -1;
  return v;
}

int main(void) {
  if (!mkdtemp(dir)) return perror("mkdtemp"), 1;
  setenv("XDG_CACHE_HOME", dir, 1);
  int p[2];

  /* 1. a measurement waits until another process's work in flight is done */
  if (pipe(p)) return 1;
  pid_t kid = fork();
  if (!kid) {
    vkocc_context *c = fake();
    if (!core_device_shared_take(c)) _exit(4);
    put(p[1], now_s());
    sleep_ms(300);
    double rel = now_s();
    core_device_shared_release(c);
    put(p[1], rel);
    _exit(0);
  }
  get(p[0]);
  vkocc_context *a = fake();
  CHECK(core_device_exclusive_begin(a, "test") == VKOCC_OK, "exclusive: %s", vkocc_last_error());
  double got = now_s(), rel = get(p[0]);
  CHECK(rel > 0 && got >= rel, "the measurement began at %.6f, before the other process's work ended at %.6f", got, rel);
  core_device_exclusive_end(a);
  int st;
  waitpid(kid, &st, 0);
  CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child 1: %d", st);
  close(p[0]), close(p[1]);

  /* 2. another process's submission waits until the measurement has ended */
  if (pipe(p)) return 1;
  CHECK(core_device_exclusive_begin(a, "test") == VKOCC_OK, "exclusive: %s", vkocc_last_error());
  if (!(kid = fork())) {
    vkocc_context *c = fake();
    if (!core_device_shared_take(c)) _exit(4);
    put(p[1], now_s());
    core_device_shared_release(c);
    _exit(0);
  }
  sleep_ms(300);
  double end = now_s();
  core_device_exclusive_end(a);
  double taken = get(p[0]);
  CHECK(taken >= end, "the other process's work went in at %.6f, during the measurement (ended %.6f)", taken, end);
  waitpid(kid, &st, 0);
  CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child 2: %d", st);
  close(p[0]), close(p[1]);

  /* 3. a waiting measurement goes before work that asks after it, though the lock is only shared then */
  int q[2];
  if (pipe(p) || pipe(q)) return 1;
  pid_t k1 = fork();
  if (!k1) { /* work in flight for 400 ms */
    vkocc_context *c = fake();
    if (!core_device_shared_take(c)) _exit(4);
    put(p[1], 1);
    sleep_ms(400);
    core_device_shared_release(c);
    _exit(0);
  }
  get(p[0]);
  pid_t k2 = fork();
  if (!k2) { /* asks once the measurement is waiting (it holds the intent file) */
    int fd = other("intent");
    double until = now_s() + 30;
    while (can(fd, LOCK_SH) && now_s() < until) sleep_ms(2);
    vkocc_context *c = fake();
    if (!core_device_shared_take(c)) _exit(4);
    put(q[1], now_s());
    core_device_shared_release(c);
    _exit(0);
  }
  CHECK(core_device_exclusive_begin(a, "test") == VKOCC_OK, "exclusive: %s", vkocc_last_error());
  sleep_ms(200);
  end = now_s();
  core_device_exclusive_end(a);
  taken = get(q[0]);
  CHECK(taken >= end, "work that asked after the measurement went in at %.6f, before it ended at %.6f", taken, end);
  waitpid(k1, &st, 0);
  CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child 3a: %d", st);
  waitpid(k2, &st, 0);
  CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child 3b: %d", st);

  /* 4. this process's own work in flight is converted, and nesting keeps the section */
  int lk = other("lock");
  CHECK(lk >= 0, "the lock file");
  CHECK(core_device_shared_take(a), "shared");
  CHECK(can(lk, LOCK_SH) && !can(lk, LOCK_EX), "while work is in flight others may submit but not measure");
  CHECK(core_device_exclusive_begin(a, "test") == VKOCC_OK, "exclusive over own work: %s", vkocc_last_error());
  CHECK(core_device_exclusive_begin(a, "test") == VKOCC_OK, "nested");
  CHECK(!can(lk, LOCK_SH), "a measurement keeps others' work out");
  core_device_exclusive_end(a);
  CHECK(!can(lk, LOCK_SH), "the outer section still holds");
  core_device_exclusive_end(a);
  CHECK(can(lk, LOCK_SH) && !can(lk, LOCK_EX), "after the measurement, the work in flight holds the shared lock again");
  CHECK(core_device_shared_take(a), "a second batch");
  core_device_shared_release(a);
  CHECK(!can(lk, LOCK_EX), "one batch is still in flight");
  core_device_shared_release(a);
  CHECK(can(lk, LOCK_EX), "nothing in flight: free");
  core_device_locks_close(a);
  free(a);

  /* 5. no cache directory: nothing is locked, nothing fails */
  unsetenv("XDG_CACHE_HOME");
  const char *home = getenv("HOME");
  char *h = home ? strdup(home) : NULL;
  unsetenv("HOME");
  vkocc_context *b = fake();
  CHECK(core_device_exclusive_begin(b, "test") == VKOCC_OK, "no cache directory: %s", vkocc_last_error());
  CHECK(b->lock_state == 2, "lock_state %d", b->lock_state);
  CHECK(core_device_shared_take(b), "shared without files");
  core_device_shared_release(b);
  core_device_exclusive_end(b);
  free(b);
  if (h) setenv("HOME", h, 1), free(h);

  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  if (system(cmd)) { /* a temporary folder left behind */ }
  return check_report();
}
