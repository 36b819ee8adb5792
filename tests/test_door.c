/* The door for files vkocc makes itself (util/door.c): a symbolic link (to a file or to nothing), a FIFO,
 * a socket, a directory and a device (where this user may make one) in the file's place are refused with
 * exit status 2 and a message naming the path and what is there, for every way vkocc opens such files
 * (read, read-write create, exclusive create, truncate), without blocking (an alarm ends a hung test) and
 * without touching or creating what a link names; a regular file opens, blocking again and closed on exec. */
#define _DEFAULT_SOURCE
#include "check.h"
#include "util.h"
#include <errno.h>
#include <jansson.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>

static char dir[] = "/tmp/vkocc-door-XXXXXX";

static void hung(int sig) {
  (void)sig;
  static const char m[] = "test_door: an open blocked (alarm)\n";
  if (write(2, m, sizeof m - 1)) {}
  _exit(1);
}

static char *at(const char *name) {
  static char p[4][512];
  static int k;
  k = (k + 1) % 4;
  snprintf(p[k], sizeof p[k], "%s/%s", dir, name);
  return p[k];
}

static char *slurp(const char *path) {
  static char buf[256];
  FILE *f = fopen(path, "r");
  if (!f) return NULL;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  buf[n] = 0;
  fclose(f);
  return buf;
}

typedef struct {
  const char *name, *said; /* what is planted, and what the message must say it is */
} plant;

/* plants kind i at path; false where this user cannot make it (a device without CAP_MKNOD) */
static bool make(int i, const char *path) {
  unlink(path);
  rmdir(path);
  switch (i) {
  case 0: return symlink(at("victim"), path) == 0;
  case 1: return symlink(at("nothing-here"), path) == 0;
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
  case 5: return mknod(path, S_IFCHR | 0600, makedev(1, 3)) == 0; /* what /dev/null is */
  case 6: return symlink("/dev/null", path) == 0;
  }
  return false;
}

int main(void) {
  if (!mkdtemp(dir)) return perror("mkdtemp"), 1;
  signal(SIGALRM, hung);
  static const plant plants[] = {{"symlink", "a symbolic link,"},   {"dangling symlink", "a symbolic link to nothing,"},
                                 {"FIFO", "a FIFO,"},               {"directory", "a directory,"},
                                 {"socket", "a socket,"},           {"character device", "a character device,"},
                                 {"symlink to /dev/null", "a symbolic link,"}};
  /* the ways vkocc opens the files it makes: a lock (read-write, created), an exclusive temporary, a cache
   * read, a rewrite */
  static const struct { const char *name; int flags; } modes[] = {{"O_RDWR|O_CREAT", O_RDWR | O_CREAT},
    {"O_WRONLY|O_CREAT|O_EXCL", O_WRONLY | O_CREAT | O_EXCL}, {"O_RDONLY", O_RDONLY},
    {"O_WRONLY|O_CREAT|O_TRUNC", O_WRONLY | O_CREAT | O_TRUNC}, {"O_RDWR|O_APPEND", O_RDWR | O_APPEND}};
  FILE *v = fopen(at("victim"), "w");
  fputs("precious", v);
  fclose(v);

  printf("%-22s", "planted \\ opened as");
  for (size_t m = 0; m < VKOCC_ARRAY_LEN(modes); m++) printf(" | %-26s", modes[m].name);
  printf("\n");
  for (int i = 0; i < (int)VKOCC_ARRAY_LEN(plants); i++) {
    printf("%-22s", plants[i].name);
    for (size_t m = 0; m < VKOCC_ARRAY_LEN(modes); m++) {
      char path[512];
      snprintf(path, sizeof path, "%s", at("device-x.lock"));
      if (!make(i, path)) { printf(" | %-26s", "(cannot plant here)"); continue; }
      for (int how = 0; how < 2; how++) { /* util_door_open, util_door_openat */
        int fd = 7;
        alarm(5);
        double t0 = util_now_ns();
        vkocc_status s;
        if (how == 0) s = util_door_open(path, modes[m].flags, 0644, &fd);
        else {
          int dfd = open(dir, O_RDONLY | O_DIRECTORY);
          s = util_door_openat(dfd, dir, "device-x.lock", modes[m].flags, 0644, &fd);
          close(dfd);
        }
        double ms = (util_now_ns() - t0) / 1e6;
        alarm(0);
        int e = errno;
        CHECK(s == VKOCC_ERROR_USAGE, "%s opened as %s: status %d, expected 2", plants[i].name, modes[m].name, (int)s);
        CHECK(fd == -1, "%s: fd %d", plants[i].name, fd);
        CHECK(e == EINVAL, "%s opened as %s: errno %d, expected EINVAL", plants[i].name, modes[m].name, e);
        CHECK(ms < 1000, "%s opened as %s: %.0f ms", plants[i].name, modes[m].name, ms);
        CHECK_CONTAINS(vkocc_last_error(), path);
        CHECK_CONTAINS(vkocc_last_error(), plants[i].said);
        CHECK_CONTAINS(vkocc_last_error(), "not a regular file; vkocc makes this file itself and will not follow or open it");
        if (how == 1) printf(" | %-26s", s == VKOCC_ERROR_USAGE && fd == -1 && ms < 1000 ? "refused, exit 2" : "NOT REFUSED");
      }
      /* nothing happened where a link points */
      CHECK(!strcmp(slurp(at("victim")) ? slurp(at("victim")) : "", "precious"), "the link's target changed");
      struct stat st;
      CHECK(lstat(at("nothing-here"), &st) != 0 && errno == ENOENT, "the dangling link's target was created");
      struct stat d;
      CHECK(lstat(path, &d) == 0, "the planted %s was removed", plants[i].name);
    }
    printf("\n");
  }
  unlink(at("device-x.lock"));
  rmdir(at("device-x.lock"));

  /* a regular file: opened, blocking again, closed on exec; created where it is not */
  int fd = -1;
  CHECK(util_door_open(at("fresh.lock"), O_RDWR | O_CREAT, 0644, &fd) == VKOCC_OK, "%s", vkocc_last_error());
  CHECK(fd >= 0, "fd %d", fd);
  if (fd >= 0) {
    int fl = fcntl(fd, F_GETFL), fdfl = fcntl(fd, F_GETFD);
    CHECK(!(fl & O_NONBLOCK), "O_NONBLOCK left set");
    CHECK((fl & O_ACCMODE) == O_RDWR, "access mode %d", fl & O_ACCMODE);
    CHECK(fdfl & FD_CLOEXEC, "not closed on exec");
    CHECK(write(fd, "1234\n", 5) == 5, "write");
    close(fd);
  }
  CHECK(!strcmp(slurp(at("fresh.lock")) ? slurp(at("fresh.lock")) : "", "1234\n"), "the file holds what was written");
  CHECK(util_door_open(at("fresh.lock"), O_RDONLY, 0, &fd) == VKOCC_OK && fd >= 0, "%s", vkocc_last_error());
  if (fd >= 0) close(fd);
  /* exclusive create: an existing regular file is EEXIST (another name, for a temporary) */
  CHECK(util_door_open(at("fresh.lock"), O_WRONLY | O_CREAT | O_EXCL, 0644, &fd) == VKOCC_ERROR_USAGE && fd == -1,
        "exclusive create of an existing file");
  CHECK(errno == EEXIST, "errno %d, expected EEXIST", errno);
  CHECK(util_door_open(at("new.tmp"), O_WRONLY | O_CREAT | O_EXCL, 0600, &fd) == VKOCC_OK && fd >= 0, "%s",
        vkocc_last_error());
  if (fd >= 0) close(fd);
  /* a missing file without O_CREAT: ENOENT named, exit 2 */
  CHECK(util_door_open(at("absent"), O_RDONLY, 0, &fd) == VKOCC_ERROR_USAGE && errno == ENOENT, "absent file");
  CHECK_CONTAINS(vkocc_last_error(), at("absent"));
  /* a hard link to another file: read, but not written */
  CHECK(link(at("victim"), at("hard.lock")) == 0, "link");
  CHECK(util_door_open(at("hard.lock"), O_RDWR | O_CREAT, 0644, &fd) == VKOCC_ERROR_USAGE && fd == -1, "hard link written");
  CHECK_CONTAINS(vkocc_last_error(), "a hard link");
  CHECK(util_door_open(at("hard.lock"), O_RDONLY, 0, &fd) == VKOCC_OK && fd >= 0, "%s", vkocc_last_error());
  if (fd >= 0) close(fd);
  CHECK(!strcmp(slurp(at("victim")), "precious"), "the hard link's file changed");
  /* an empty path */
  CHECK(util_door_open("", O_RDONLY, 0, &fd) == VKOCC_ERROR_USAGE && fd == -1, "empty path");

  /* the files vkocc makes through the door: the temporary of an atomic write (the first name this process
   * tries), a cache entry written and read, and the target of a cache write (never followed) */
  printf("\n%-22s | %-26s | %-26s | %-26s\n", "planted \\ at", "temporary (atomic write)", "cache file written",
         "cache file read");
  char tmpname[128], out[512], cache[512];
  snprintf(tmpname, sizeof tmpname, ".out.json.vkocc-tmp.%ld.0", (long)getpid());
  snprintf(out, sizeof out, "%s", at("out.json"));
  snprintf(cache, sizeof cache, "%s", at("entry.json"));
  json_t *value = json_pack("{s:i}", "P", 8);
  for (int i = 0; i < (int)VKOCC_ARRAY_LEN(plants); i++) {
    char tmp[512];
    snprintf(tmp, sizeof tmp, "%s", at(tmpname));
    const char *said[3];
    /* the temporary: each write tries the next counter, so plant every name this process may try */
    bool planted = true;
    for (unsigned k = 0; k < 16 && planted; k++) {
      char t[512];
      snprintf(t, sizeof t, "%s/.out.json.vkocc-tmp.%ld.%u", dir, (long)getpid(), k);
      planted = make(i, t);
    }
    if (!planted) { printf("%-22s | (cannot plant here)\n", plants[i].name); continue; }
    alarm(5);
    vkocc_status s = vkocc_write_file_atomic(out, "{}", 2);
    alarm(0);
    CHECK(s == VKOCC_ERROR_USAGE, "temporary %s: status %d", plants[i].name, (int)s);
    CHECK_CONTAINS(vkocc_last_error(), ".out.json.vkocc-tmp.");
    CHECK_CONTAINS(vkocc_last_error(), plants[i].said);
    said[0] = s == VKOCC_ERROR_USAGE && strstr(vkocc_last_error(), plants[i].said) ? "refused, exit 2" : "NOT REFUSED";
    CHECK(access(out, F_OK) != 0, "the output was written past a planted temporary");
    for (unsigned k = 0; k < 16; k++) {
      char t[512];
      snprintf(t, sizeof t, "%s/.out.json.vkocc-tmp.%ld.%u", dir, (long)getpid(), k);
      unlink(t);
      rmdir(t);
    }
    (void)tmp;
    /* a cache entry: written only over a regular file or nothing, read only from a regular file */
    if (!make(i, cache)) continue;
    alarm(5);
    s = util_cache_entry_write(cache, "test/1", "k", value);
    alarm(0);
    CHECK(s == VKOCC_ERROR_USAGE, "cache write over %s: status %d", plants[i].name, (int)s);
    CHECK_CONTAINS(vkocc_last_error(), plants[i].said);
    said[1] = s == VKOCC_ERROR_USAGE ? "refused, exit 2" : "NOT REFUSED";
    alarm(5);
    json_t *got = util_cache_entry_read(cache, "test/1", "k");
    alarm(0);
    CHECK(!got, "a cache entry read through %s", plants[i].name);
    said[2] = !got ? "refused (a miss)" : "READ";
    json_decref(got);
    struct stat st;
    CHECK(lstat(cache, &st) == 0 && !S_ISREG(st.st_mode), "the planted %s was replaced", plants[i].name);
    CHECK(!strcmp(slurp(at("victim")) ? slurp(at("victim")) : "", "precious"), "the link's target changed");
    CHECK(lstat(at("nothing-here"), &st) != 0, "the dangling link's target was created");
    printf("%-22s | %-26s | %-26s | %-26s\n", plants[i].name, said[0], said[1], said[2]);
    unlink(cache);
    rmdir(cache);
  }
  /* and with nothing planted, the same calls work */
  CHECK(vkocc_write_file_atomic(out, "{}", 2) == VKOCC_OK, "%s", vkocc_last_error());
  CHECK(util_cache_entry_write(cache, "test/1", "k", value) == VKOCC_OK, "%s", vkocc_last_error());
  json_t *back = util_cache_entry_read(cache, "test/1", "k");
  CHECK(back && json_integer_value(json_object_get(back, "P")) == 8, "the cache entry read back");
  json_decref(back);
  json_decref(value);
  unlink(out);
  unlink(cache);

  const char *names[] = {"victim", "fresh.lock", "new.tmp", "hard.lock"};
  for (size_t i = 0; i < VKOCC_ARRAY_LEN(names); i++) unlink(at(names[i]));
  rmdir(dir);
  return check_report();
}
