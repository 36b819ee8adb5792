/* The lock beside an output (vkocc_output_lock, include/vkocc.h): OUT.lock, opened through the one door for the
 * files vkocc makes itself (util/door.c), so that a link or a FIFO put there is refused, never followed or
 * waited on, and held with flock(2) so that a process that dies releases it. */
#include "util.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

vkocc_status vkocc_output_lock(const char *out, char *lock_path, size_t len, int *fd) {
  *fd = -1;
  if (lock_path && len) lock_path[0] = 0;
  if (!out || !*out || !lock_path) return vkocc_fail(VKOCC_ERROR_USAGE, "vkocc_output_lock: no output");
  if (snprintf(lock_path, len, "%s.lock", out) >= (int)len) return vkocc_fail(VKOCC_ERROR_USAGE, "%s: the path is too long", out);
  for (int attempt = 0; attempt < 100; attempt++) {
    int f;
    vkocc_status s = util_door_open(lock_path, O_RDWR | O_CREAT, 0644, &f);
    if (s && errno == EINVAL) { /* a link, FIFO, device or folder there: named, untouched */
      char why[1200];
      snprintf(why, sizeof why, "%s", vkocc_last_error());
      lock_path[0] = 0;
      return vkocc_fail(s, "%s: %s", out, why);
    }
    if (s) { /* a folder that takes no lock file: the atomic write still checks the output */
      lock_path[0] = 0;
      vkocc_clear_error();
      return VKOCC_OK;
    }
    if (flock(f, LOCK_EX | LOCK_NB)) {
      char pid[32] = "";
      ssize_t n = read(f, pid, sizeof pid - 1);
      pid[n > 0 ? n : 0] = 0;
      pid[strcspn(pid, "\n")] = 0;
      close(f);
      lock_path[0] = 0;
      return vkocc_fail(VKOCC_ERROR_USAGE, "%s: another vkocc (pid %s) is writing it; wait for it to end, or write to another "
                        "file (two writers would keep one's results and lose the other's)", out, pid[0] ? pid : "?");
    }
    /* the lock file may have been removed by its last holder between our open and our lock: take a fresh one */
    struct stat a, b;
    if (fstat(f, &a) || lstat(lock_path, &b) || a.st_ino != b.st_ino || a.st_dev != b.st_dev) { close(f); continue; }
    char pid[32];
    int n = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
    if (ftruncate(f, 0) || write(f, pid, (size_t)n) != n) { /* the pid is only for the message */ }
    *fd = f;
    return VKOCC_OK;
  }
  lock_path[0] = 0;
  return vkocc_fail(VKOCC_ERROR_RUNTIME, "%s: could not take its lock", out);
}
