/* The device lock files and caches beside the user's files, through `vkocc calibrate` on lavapipe: a symbolic
 * link (to a file or to nothing), a FIFO, a directory or a socket at device-UUID.lock or .intent is refused with
 * exit 2 naming the file and what is there, without blocking and without touching what a link names; the same
 * at the pipeline cache is not read and not written (the calibration goes on, exit 0). A wait on a lock another
 * process holds says at once on stderr what it waits for, the holder's pid and the bound, and Ctrl-C ends it. */
#define _DEFAULT_SOURCE
#include "check.h"
#include "run.h"
#include "vkocc.h"
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>

static char dir[] = "/tmp/vkocc-lockfiles-XXXXXX";
static const char *cli;

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static bool make(int i, const char *path, const char *victim, const char *nothing) {
  switch (i) {
  case 0: return symlink(victim, path) == 0;
  case 1: return symlink(nothing, path) == 0;
  case 2: return mkfifo(path, 0600) == 0;
  case 3: return mkdir(path, 0700) == 0;
  case 4: {
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
    bool ok = s >= 0 && bind(s, (struct sockaddr *)&a, sizeof a) == 0;
    if (s >= 0) close(s);
    return ok;
  }
  }
  return false;
}
static void clear(const char *path) {
  unlink(path);
  rmdir(path);
}
static bool victim_intact(const char *victim) {
  char buf[32] = "";
  FILE *f = fopen(victim, "r");
  if (!f) return false;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  buf[n] = 0;
  fclose(f);
  return !strcmp(buf, "precious");
}

int main(int argc, char **argv) {
  if (argc < 2) return fprintf(stderr, "usage: test_cli_lockfiles VKOCC\n"), 2;
  cli = argv[1];
  if (!mkdtemp(dir)) return perror("mkdtemp"), 1;
  setenv("XDG_CACHE_HOME", dir, 1);
  char cache[256], victim[300], nothing[300], uuid[37] = "";
  snprintf(cache, sizeof cache, "%s/vkocc", dir);
  snprintf(victim, sizeof victim, "%s/victim", dir);
  snprintf(nothing, sizeof nothing, "%s/nothing-here", dir);
  FILE *v = fopen(victim, "w");
  fputs("precious", v);
  fclose(v);

  /* the device's UUID names its lock files: a first calibration makes them */
  char *out;
  int rc = run_fmt(&out, "%s calibrate --json 2>&1", cli);
  CHECK(rc == 0 || (rc == 1 && calibration_refused(out)), "first calibration: %s", out);
  free(out);
  rc = run_fmt(&out, "ls %s | sed -n 's/^device-\\(.*\\)\\.lock$/\\1/p'", cache);
  sscanf(out, "%36s", uuid);
  free(out);
  CHECK(strlen(uuid) == 36, "the lock file's UUID: '%s'", uuid);

  static const char *kinds[] = {"symlink", "dangling symlink", "FIFO", "directory", "socket"};
  static const char *said[] = {"a symbolic link,", "a symbolic link to nothing,", "a FIFO,", "a directory,", "a socket,"};
  static const char *files[] = {"lock", "intent", "pipelines"};
  printf("%-18s | %-34s | %-34s | %-34s\n", "planted \\ at", "device-UUID.lock", "device-UUID.intent",
         "pipelines-UUID-q0.bin (cache)");
  for (int i = 0; i < 5; i++) {
    char row[3][64];
    for (int f = 0; f < 3; f++) {
      char path[512];
      if (f < 2) snprintf(path, sizeof path, "%s/device-%s.%s", cache, uuid, files[f]);
      else snprintf(path, sizeof path, "%s/pipelines-%s-q0.bin", cache, uuid);
      clear(path);
      if (!make(i, path, victim, nothing)) { snprintf(row[f], sizeof row[f], "(cannot plant)"); continue; }
      double t0 = now_s();
      rc = run_fmt(&out, "timeout 60 %s calibrate 2>&1", cli);
      double s = now_s() - t0;
      struct stat st;
      CHECK(victim_intact(victim), "%s at %s: the link's target changed", kinds[i], files[f]);
      CHECK(lstat(nothing, &st) != 0, "%s at %s: the dangling link's target was created", kinds[i], files[f]);
      CHECK(lstat(path, &st) == 0 && !S_ISREG(st.st_mode), "%s at %s: replaced", kinds[i], files[f]);
      CHECK(rc != 124, "%s at %s: calibrate hung", kinds[i], files[f]);
      if (f < 2) {
        CHECK(rc == 2, "%s at %s: exit %d: %s", kinds[i], files[f], rc, out);
        CHECK_CONTAINS(out, path);
        CHECK_CONTAINS(out, said[i]);
        CHECK_CONTAINS(out, "vkocc makes this file itself and will not follow or open it");
        snprintf(row[f], sizeof row[f], "%s, exit %d, %.1f s", rc == 2 && strstr(out, said[i]) ? "refused" : "NOT REFUSED",
                 rc, s);
      } else { /* a cache: not read, not written; the calibration measures as without one */
        CHECK(rc == 0 || (rc == 1 && calibration_refused(out)), "%s at the pipeline cache: exit %d: %s", kinds[i], rc,
              out);
        snprintf(row[f], sizeof row[f], "not used, exit %d, %.1f s", rc, s);
      }
      free(out);
      clear(path);
    }
    printf("%-18s | %-34s | %-34s | %-34s\n", kinds[i], row[0], row[1], row[2]);
  }

  /* a wait on another process's lock: told at once, with the holder's pid and the bound; Ctrl-C ends it */
  char lock[512];
  snprintf(lock, sizeof lock, "%s/device-%s.lock", cache, uuid);
  int ready[2];
  if (pipe(ready)) return perror("pipe"), 1;
  pid_t holder = fork();
  if (holder == 0) {
    int fd = open(lock, O_RDWR);
    if (fd < 0 || flock(fd, LOCK_SH)) _exit(3);
    if (write(ready[1], "x", 1) != 1) _exit(3);
    sleep(60);
    _exit(0);
  }
  char x;
  CHECK(read(ready[0], &x, 1) == 1, "the holder took the lock");
  int err[2];
  if (pipe(err)) return perror("pipe"), 1;
  double t0 = now_s();
  pid_t calib = fork();
  if (calib == 0) {
    dup2(err[1], 2);
    dup2(err[1], 1);
    close(err[0]);
    execl(cli, cli, "calibrate", (char *)NULL);
    _exit(127);
  }
  close(err[1]);
  fcntl(err[0], F_SETFL, O_NONBLOCK);
  char text[8192] = "";
  const char *tx = text;
  size_t n = 0;
  double told = -1;
  while (now_s() - t0 < 30 && told < 0) {
    ssize_t got = read(err[0], text + n, sizeof text - 1 - n);
    if (got > 0) n += (size_t)got, text[n] = 0;
    if (strstr(text, "waiting for device")) told = now_s() - t0;
    usleep(20000);
  }
  char want[128];
  snprintf(want, sizeof want, "held by pid %ld (up to 600 s)", (long)holder);
  CHECK(told >= 0, "no message of the wait in 30 s: %s", text);
  CHECK_CONTAINS(tx, lock);
  CHECK_CONTAINS(tx, want);
  /* the process starts, opens the device and calibrates its first attempt's warm-up before it waits: the
   * message comes one second into the wait, well before the lock's holder lets go (60 s) */
  CHECK(told < 20, "the wait was told %.1f s after the start", told);
  double t1 = now_s();
  kill(calib, SIGINT);
  int st = 0;
  pid_t w;
  while ((w = waitpid(calib, &st, WNOHANG)) == 0 && now_s() - t1 < 10) usleep(10000);
  double ended = now_s() - t1;
  for (ssize_t got; (got = read(err[0], text + n, sizeof text - 1 - n)) > 0;) n += (size_t)got, text[n] = 0;
  CHECK(w == calib, "calibrate did not end within 10 s of Ctrl-C");
  if (w != calib) { kill(calib, SIGKILL); waitpid(calib, &st, 0); }
  CHECK(ended < 2, "calibrate ended %.2f s after Ctrl-C", ended);
  CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 1, "exit status %d", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
  CHECK_CONTAINS(tx, "stopped after");
  CHECK_CONTAINS(tx, "nothing was measured");
  printf("wait told %.1f s after the start; ended %.2f s after SIGINT; stderr:\n%s", told, ended, text);
  kill(holder, SIGKILL);
  waitpid(holder, NULL, 0);

  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  if (system(cmd)) {}
  return check_report();
}
