/* The one door for the files vkocc makes itself beside what the user named: device locks, temporaries of
 * atomic writes, caches, journals and output locks. Whoever can write into the folder may have put
 * something else in the file's place; the door opens only a regular file, and finds out without following a
 * symbolic link and without blocking on a FIFO, a socket or a device (none of which it opens at all). */
#include "util.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *door_kind(int dfd, const char *name, mode_t m) {
  if (S_ISLNK(m)) {
    struct stat t;
    return fstatat(dfd, name, &t, 0) == 0 ? "a symbolic link" : "a symbolic link to nothing";
  }
  return S_ISDIR(m) ? "a directory" : S_ISCHR(m) ? "a character device" : S_ISBLK(m) ? "a block device"
       : S_ISFIFO(m) ? "a FIFO" : S_ISSOCK(m) ? "a socket" : "not a regular file";
}

/* a full disk, an I/O error, no memory or no descriptors are runtime failures (exit 1); the rest the user
 * fixes by naming or clearing a path (exit 2) */
static vkocc_status errno_status(int e) {
  return e == ENOSPC || e == EIO || e == EDQUOT || e == ENOMEM || e == EMFILE || e == ENFILE ? VKOCC_ERROR_RUNTIME
                                                                                              : VKOCC_ERROR_USAGE;
}

static vkocc_status door_refuse(const char *path, const char *what) {
  vkocc_status s = vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s, not a regular file; vkocc makes this file itself and will "
                              "not follow or open it (remove it, or choose another path)", path, what);
  errno = EINVAL;
  return s;
}

/* path: the name shown in messages; name: what is opened, relative to dfd (AT_FDCWD: the working directory) */
static vkocc_status door(int dfd, const char *name, const char *path, int flags, mode_t mode, int *fd) {
  *fd = -1;
  if (!name || !*name) {
    vkocc_status s = vkocc_fail(VKOCC_ERROR_USAGE, "empty file path");
    errno = ENOENT;
    return s;
  }
  flags &= O_ACCMODE | O_CREAT | O_EXCL | O_TRUNC | O_APPEND;
  struct stat st;
  /* what is there now, not followed: anything but a regular file is refused before it is opened (opening a
   * device can act on it, and a FIFO without a writer would block) */
  if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
    if (!S_ISREG(st.st_mode)) return door_refuse(path, door_kind(dfd, name, st.st_mode));
    if ((flags & O_CREAT) && (flags & O_EXCL)) {
      vkocc_status s = vkocc_fail(VKOCC_ERROR_USAGE, "%s: already exists (vkocc creates this file new)", path);
      errno = EEXIST;
      return s;
    }
  } else if (errno != ENOENT) {
    int e = errno;
    vkocc_status s = vkocc_fail(errno_status(e), "cannot open %s: %s", path, strerror(e));
    errno = e;
    return s;
  }
  /* and again on the file opened, as something may have been put there in between */
  int f = openat(dfd, name, flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY, mode);
  if (f < 0) {
    int e = errno;
    if ((e == ELOOP || e == EEXIST || e == ENXIO || e == EISDIR || e == EWOULDBLOCK || e == EOPNOTSUPP) &&
        fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISREG(st.st_mode))
      return door_refuse(path, door_kind(dfd, name, st.st_mode));
    vkocc_status s = vkocc_fail(errno_status(e), "cannot open %s: %s", path, strerror(e));
    errno = e;
    return s;
  }
  if (fstat(f, &st) != 0 || !S_ISREG(st.st_mode)) {
    mode_t m = st.st_mode;
    close(f);
    return door_refuse(path, door_kind(dfd, name, m));
  }
  /* a second name of another file (a hard link put here): writing through it would change that file */
  if ((flags & O_ACCMODE) != O_RDONLY && st.st_nlink > 1) {
    close(f);
    return door_refuse(path, "a hard link to a file with other names");
  }
  int fl = fcntl(f, F_GETFL);
  if (fl < 0 || fcntl(f, F_SETFL, fl & ~O_NONBLOCK) != 0) {
    int e = errno;
    close(f);
    errno = e;
    return vkocc_fail(VKOCC_ERROR_RUNTIME, "cannot open %s: %s", path, strerror(e));
  }
  *fd = f;
  return VKOCC_OK;
}

vkocc_status util_door_open(const char *path, int flags, mode_t mode, int *fd) {
  return door(AT_FDCWD, path, path ? path : "", flags, mode, fd);
}

vkocc_status util_door_openat(int dfd, const char *dir, const char *name, int flags, mode_t mode, int *fd) {
  char path[4200];
  if (snprintf(path, sizeof path, "%s/%s", dir ? dir : ".", name ? name : "") >= (int)sizeof path) {
    *fd = -1;
    vkocc_status s = vkocc_fail(VKOCC_ERROR_USAGE, "%.200s...: path too long", path);
    errno = ENAMETOOLONG;
    return s;
  }
  return door(dfd, name, path, flags, mode, fd);
}
