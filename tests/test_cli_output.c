/* Output, validation and messages: the atomic writer refuses what is not a regular file, follows
 * links, never collides with its target, removes its own stale temporaries; every command checks stdout;
 * outputs and flags are checked before anything is measured; the messages name what is wrong. */
#include "check.h"
#include "internal.h"
#include "io.h"
#include "run.h"
#include "cache_plant.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static char dir[64];

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec / 1e9;
}

static char *slurp(const char *path) {
  void *d;
  size_t n;
  return util_read_file(path, &d, &n) ? NULL : d;
}

/* Names in directory d other than those listed (NULL-terminated); returns their count, prints them. */
static int extra_entries(const char *d, const char *const *keep) {
  DIR *dp = opendir(d);
  int n = 0;
  for (struct dirent *e; dp && (e = readdir(dp));) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    bool kept = false;
    for (const char *const *k = keep; *k; k++) kept |= !strcmp(*k, e->d_name);
    if (!kept) { fprintf(stderr, "  unexpected entry in %s: %s\n", d, e->d_name); n++; }
  }
  if (dp) closedir(dp);
  return n;
}

static void make_old(const char *path) {
  struct timeval tv[2];
  gettimeofday(&tv[0], NULL);
  tv[0].tv_sec -= 7200;
  tv[1] = tv[0];
  utimes(path, tv);
}

static void test_writer(void) {
  char p[PATH_MAX + 256], q[PATH_MAX - 300], *text;
  struct stat st;
  /* plain write, nothing left beside it */
  snprintf(p, sizeof p, "%s/w/a.json", dir);
  snprintf(q, sizeof q, "%s/w", dir);
  mkdir(q, 0755);
  CHECK(vkocc_write_file_atomic(p, "one\n", 4) == VKOCC_OK, "plain write: %s", vkocc_last_error());
  CHECK((text = slurp(p)) && !strcmp(text, "one\n"), "plain write content");
  free(text);
  CHECK(extra_entries(q, (const char *const[]){"a.json", NULL}) == 0, "litter after a plain write");

  /* the replacement keeps the replaced file's permissions */
  chmod(p, 0600);
  CHECK(vkocc_write_file_atomic(p, "two\n", 4) == VKOCC_OK, "rewrite: %s", vkocc_last_error());
  CHECK(stat(p, &st) == 0 && (st.st_mode & 0777) == 0600, "mode after rewrite %o, expected 600", st.st_mode & 0777);

  /* stale temporaries of a dead writer go; a fresh one, a live writer's and other files stay */
  /* (also the old "a.json.tmp.PID" of this target, not of another) */
  const char *stale = ".a.json.vkocc-tmp.999999999.0", *fresh = ".a.json.vkocc-tmp.999999998.1",
             *old_stale = "a.json.tmp.999999999", *other = "b.json.tmp.999999999";
  char live[64], path[PATH_MAX + 300];
  snprintf(live, sizeof live, ".a.json.vkocc-tmp.%ld.2", (long)getppid());
  const char *names[] = {stale, fresh, live, old_stale, other};
  for (int i = 0; i < 5; i++) {
    snprintf(path, sizeof path, "%s/%s", q, names[i]);
    FILE *f = fopen(path, "w");
    if (f) fclose(f);
    if (i != 1) make_old(path);
  }
  CHECK(vkocc_write_file_atomic(p, "three\n", 6) == VKOCC_OK, "write beside temporaries: %s", vkocc_last_error());
  CHECK(extra_entries(q, (const char *const[]){"a.json", fresh, live, other, NULL}) == 0,
        "the stale temporaries of pid 999999999 (2 h old) were not removed, or something else was");
  snprintf(path, sizeof path, "%s/%s", q, other);
  CHECK(access(path, F_OK) == 0, "another target's temporary was removed");
  snprintf(path, sizeof path, "%s/%s", q, fresh);
  CHECK(access(path, F_OK) == 0, "a temporary touched just now was removed");
  snprintf(path, sizeof path, "%s/%s", q, live);
  CHECK(access(path, F_OK) == 0, "the temporary of a live process was removed");

  /* a FIFO and a directory are refused and stay what they are */
  snprintf(p, sizeof p, "%s/fifo", dir);
  CHECK(mkfifo(p, 0644) == 0, "mkfifo %s: %s", p, strerror(errno));
  CHECK(vkocc_write_file_atomic(p, "x", 1) == VKOCC_ERROR_USAGE, "FIFO accepted");
  CHECK_CONTAINS(vkocc_last_error(), "is a FIFO: refusing to replace it");
  CHECK(lstat(p, &st) == 0 && S_ISFIFO(st.st_mode), "the FIFO was replaced");
  snprintf(p, sizeof p, "%s/sub", dir);
  mkdir(p, 0755);
  CHECK(vkocc_write_file_atomic(p, "x", 1) == VKOCC_ERROR_USAGE, "directory accepted");
  CHECK_CONTAINS(vkocc_last_error(), "is a directory");
  CHECK(lstat(p, &st) == 0 && S_ISDIR(st.st_mode), "the directory was replaced");

  /* a device node: our own (mknod) as root, so a regression cannot replace the machine's /dev/null */
  if (geteuid() == 0) {
    snprintf(p, sizeof p, "%s/null", dir);
    if (mknod(p, S_IFCHR | 0666, makedev(1, 3)) == 0) {
      CHECK(vkocc_write_file_atomic(p, "x", 1) == VKOCC_ERROR_USAGE, "device node accepted");
      CHECK_CONTAINS(vkocc_last_error(), "is a character device");
      CHECK(lstat(p, &st) == 0 && S_ISCHR(st.st_mode), "the device node was replaced by a regular file");
    } else {
      printf("skip: mknod %s: %s\n", p, strerror(errno));
    }
    CHECK(vkocc_output_check("/dev/null") == VKOCC_ERROR_USAGE, "/dev/null accepted as an output");
  } else {
    printf("skip: device-node replacement needs root (mknod); checked without writing instead\n");
    CHECK(vkocc_output_check("/dev/null") == VKOCC_ERROR_USAGE, "/dev/null accepted as an output");
  }
  CHECK_CONTAINS(vkocc_last_error(), "/dev/null is a character device");

  /* a symbolic link is followed: the file it names is replaced, the link stays */
  snprintf(p, sizeof p, "%s/w/target.json", dir);
  CHECK(vkocc_write_file_atomic(p, "old\n", 4) == VKOCC_OK, "target: %s", vkocc_last_error());
  snprintf(p, sizeof p, "%s/link.json", dir);
  CHECK(symlink("w/target.json", p) == 0, "symlink: %s", strerror(errno));
  CHECK(vkocc_write_file_atomic(p, "new\n", 4) == VKOCC_OK, "write through a link: %s", vkocc_last_error());
  CHECK(lstat(p, &st) == 0 && S_ISLNK(st.st_mode), "the link was replaced by a file");
  snprintf(p, sizeof p, "%s/w/target.json", dir);
  CHECK((text = slurp(p)) && !strcmp(text, "new\n"), "the link's target was not rewritten");
  free(text);
  /* a link to nothing is refused and creates nothing */
  snprintf(p, sizeof p, "%s/dangling.json", dir);
  CHECK(symlink("missing.json", p) == 0, "symlink: %s", strerror(errno));
  CHECK(vkocc_write_file_atomic(p, "x", 1) == VKOCC_ERROR_USAGE, "dangling link accepted");
  CHECK_CONTAINS(vkocc_last_error(), "symbolic link to a missing");
  snprintf(p, sizeof p, "%s/missing.json", dir);
  CHECK(access(p, F_OK) != 0, "a dangling link's target was created");

  /* a 1099-character path (the old temporary was cut to 1100 bytes: tmp == target): exact name, no litter */
  int n = snprintf(q, sizeof q, "%s/long", dir);
  mkdir(q, 0755);
  while (n < 1099 - 210) {
    n += snprintf(q + n, sizeof q - n, "/%.100s", "dddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd");
    mkdir(q, 0755);
  }
  char name[256];
  memset(name, 'f', sizeof name);
  snprintf(name + 1099 - n - 1 - 5, 6, ".json");
  snprintf(p, sizeof p, "%s/%s", q, name);
  CHECK(strlen(p) == 1099, "long path is %zu characters", strlen(p));
  CHECK(vkocc_write_file_atomic(p, "long\n", 5) == VKOCC_OK, "1099-character path: %s", vkocc_last_error());
  CHECK((text = slurp(p)) && !strcmp(text, "long\n"), "1099-character path content");
  free(text);
  CHECK(extra_entries(q, (const char *const[]){name, NULL}) == 0, "litter beside the 1099-character path");

  /* limits: clear errors, not truncation */
  memset(p, 'a', PATH_MAX + 10);
  p[0] = '/';
  p[PATH_MAX + 10] = 0;
  CHECK(vkocc_write_file_atomic(p, "x", 1) == VKOCC_ERROR_USAGE, "path over PATH_MAX accepted");
  CHECK_CONTAINS(vkocc_last_error(), "path too long");
  n = snprintf(p, sizeof p, "%s/", dir);
  memset(p + n, 'n', NAME_MAX + 5);
  p[n + NAME_MAX + 5] = 0;
  CHECK(vkocc_write_file_atomic(p, "x", 1) == VKOCC_ERROR_USAGE, "name over NAME_MAX accepted");
  CHECK_CONTAINS(vkocc_last_error(), "file name too long");
  snprintf(p, sizeof p, "%s/nodir/x.json", dir);
  CHECK(vkocc_write_file_atomic(p, "x", 1) == VKOCC_ERROR_USAGE, "missing directory accepted");
  CHECK_CONTAINS(vkocc_last_error(), "nodir does not exist");
}

/* The JSON writer to stdout reports a failed write (here: /dev/full). */
static void test_json_stdout(void) {
  if (access("/dev/full", W_OK) != 0) { printf("skip: no /dev/full\n"); return; }
  fflush(stdout);
  int saved = dup(STDOUT_FILENO), full = open("/dev/full", O_WRONLY);
  dup2(full, STDOUT_FILENO);
  json_t *doc = json_pack("{s:s}", "schema", "vkocc.test/1");
  vkocc_status s = util_json_write(doc, "-");
  json_decref(doc);
  clearerr(stdout);
  dup2(saved, STDOUT_FILENO);
  close(full);
  close(saved);
  CHECK(s == VKOCC_ERROR_RUNTIME, "util_json_write to /dev/full returned %d", (int)s);
  CHECK_CONTAINS(vkocc_last_error(), "cannot write to standard output");
}

static void test_cli(const char *bin, const char *data) {
  char *out;
  int rc;
  /* a failed write to stdout exits 1 with a message, for every kind of output */
  if (access("/dev/full", W_OK) == 0) {
    const char *cmds[] = {"devices --json", "devices", "--version", "--help", "calc --table --from %s/h100-grid.csv",
                          "calc --table --csv --from %s/h100-grid.csv", "calc --wg 64 --shmem 0 --json --from %s/h100-grid.csv",
                          "cluster %s/fp-hopper-132.json", "cluster --json %s/fp-hopper-132.json",
                          "policy select --db %s/policy-db.json --kernel radix_sort --fingerprint %s/fp-hopper-132.json"};
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
      char args[512];
      snprintf(args, sizeof args, cmds[i], data, data);
      rc = run_fmt(&out, "%s %s 2>&1 >/dev/full", bin, args);
      CHECK(rc == 1, "vkocc %s > /dev/full: exit %d, expected 1", args, rc);
      CHECK_CONTAINS(out, "cannot write to standard output");
      free(out);
    }
  } else {
    printf("skip: no /dev/full\n");
  }

  /* outputs are checked before measuring (fingerprint measured 33 s before failing) */
  double t0 = now_s();
  rc = run_fmt(&out, "%s fingerprint -o /nonexistent/f.json 2>&1", bin);
  double dt = now_s() - t0;
  CHECK(rc == 2, "fingerprint -o /nonexistent/f.json: exit %d", rc);
  CHECK_CONTAINS(out, "directory /nonexistent does not exist");
  CHECK(dt < 10, "fingerprint -o /nonexistent/f.json took %.1f s (it must fail before measuring)", dt);
  free(out);
  rc = run_fmt(&out, "%s fingerprint --fresh -o %s/fifo 2>&1", bin, dir);
  CHECK(rc == 2, "fingerprint -o FIFO: exit %d", rc);
  CHECK_CONTAINS(out, "is a FIFO: refusing to replace it");
  free(out);
  char node[128];
  snprintf(node, sizeof node, "%s/null", dir);
  struct stat st;
  if (lstat(node, &st) == 0 && S_ISCHR(st.st_mode)) { /* made by test_writer as root */
    rc = run_fmt(&out, "%s fingerprint --fresh -o %s 2>&1", bin, node);
    CHECK(rc == 2, "fingerprint -o device node: exit %d", rc);
    CHECK_CONTAINS(out, "is a character device");
    CHECK(lstat(node, &st) == 0 && S_ISCHR(st.st_mode), "fingerprint -o replaced the device node");
    free(out);
  }
  rc = run_fmt(&out, "%s surface --wg 32 -o %s/sub 2>&1", bin, dir);
  CHECK(rc == 2, "surface -o DIR: exit %d", rc);
  CHECK_CONTAINS(out, "is a directory");
  free(out);
  rc = run_fmt(&out, "%s probe --wg 32 --shmem 0 --raw %s/fifo 2>&1", bin, dir);
  CHECK(rc == 2, "probe --raw FIFO: exit %d", rc);
  CHECK_CONTAINS(out, "--raw:");
  free(out);

  /* device limits right after opening the device, before calibrating (calc measured 6 s first) */
  t0 = now_s();
  rc = run_fmt(&out, "%s calc --wg 4096 --shmem 0 2>&1", bin);
  dt = now_s() - t0;
  CHECK(rc == 2, "calc --wg 4096: exit %d", rc);
  CHECK_CONTAINS(out, "--wg 4096 is above maxComputeWorkGroupInvocations");
  CHECK(dt < 4, "calc --wg 4096 took %.1f s (it must fail before measuring)", dt);
  free(out);
  t0 = now_s();
  rc = run_fmt(&out, "%s surface --wg 32,4096 2>&1", bin);
  dt = now_s() - t0;
  CHECK(rc == 2, "surface --wg 32,4096: exit %d", rc);
  CHECK_CONTAINS(out, "workgroup size 4096 is outside");
  CHECK(dt < 4, "surface --wg 4096 took %.1f s (it must fail before measuring)", dt);
  free(out);

  /* the comb without a realtime clock: refused before the calibration, not after it */
  const char *comb[] = {"probe --wg 32 --shmem 0", "surface --wg 32 --shmem 0"};
  for (int i = 0; i < 2; i++) {
    t0 = now_s();
    rc = run_fmt(&out, "%s %s --method comb --no-shader-clock 2>&1", bin, comb[i]);
    dt = now_s() - t0;
    CHECK(rc == 3, "%s --method comb --no-shader-clock: exit %d", comb[i], rc);
    CHECK_CONTAINS(out, "needs the realtime shader clock");
    CHECK(dt < 4, "%s --method comb --no-shader-clock took %.1f s (it must fail before measuring)", comb[i], dt);
    free(out);
  }

  /* units: 17592186044416m is 2^64 bytes, which wrapped to 0 */
  rc = run_fmt(&out, "%s calc --wg 64 --shmem 17592186044416m --from %s/h100-grid.csv 2>&1", bin, data);
  CHECK(rc == 2, "--shmem 17592186044416m: exit %d", rc);
  CHECK_CONTAINS(out, "--shmem '17592186044416m'");
  free(out);
  rc = run_fmt(&out, "%s calc --wg 64 --shmem 4194304k --from %s/h100-grid.csv 2>&1", bin, data);
  CHECK(rc == 2, "--shmem 4194304k (2^32): exit %d", rc);
  free(out);

  /* plots: a directory as -o says so (was "cannot write the image (no error has occurred)") */
  rc = run_fmt(&out, "mkdir -p %s/dir.png && %s plot surface %s/h100-grid.csv -o %s/dir.png 2>&1", dir, bin, data, dir);
  CHECK(rc == 2, "plot -o DIR.png: exit %d", rc);
  CHECK_CONTAINS(out, "dir.png is a directory: refusing to replace it");
  free(out);
  rc = run_fmt(&out, "%s plot surface %s/h100-grid.csv -o %s/sub 2>&1", bin, data, dir);
  CHECK(rc == 2, "plot -o without an image extension: exit %d", rc);
  CHECK_CONTAINS(out, "unknown image type");
  free(out);
  /* an 1100-character path is written under its own name (it was cut to 1023 and exited 0) */
  char q[PATH_MAX];
  int n = snprintf(q, sizeof q, "%s/plotlong", dir);
  mkdir(q, 0755);
  while (n < 1100 - 210) {
    n += snprintf(q + n, sizeof q - n, "/%.100s", "eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee");
    mkdir(q, 0755);
  }
  char name[256], p[PATH_MAX + 300];
  memset(name, 'p', sizeof name);
  snprintf(name + 1100 - n - 1 - 4, 5, ".svg");
  snprintf(p, sizeof p, "%s/%s", q, name);
  CHECK(strlen(p) == 1100, "plot path is %zu characters", strlen(p));
  rc = run_fmt(&out, "%s plot surface %s/h100-grid.csv -o %s 2>&1", bin, data, p);
  CHECK(rc == 0, "plot -o 1100-character path: exit %d", rc);
  CHECK(stat(p, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 1000, "the plot is not at its 1100-character path");
  CHECK(extra_entries(q, (const char *const[]){name, NULL}) == 0, "litter beside the plot");
  free(out);

  /* the viewer's screenshot path is checked before a window opens (no display needed) */
  rc = run_fmt(&out, "%s view %s/surface-h100.json --screenshot %s/dir.png 2>&1", bin, data, dir);
  if (rc == 3 && strstr(out, "built without")) {
    printf("skip: view: %s", out);
  } else {
    CHECK(rc == 2, "view --screenshot DIR.png: exit %d", rc);
    CHECK_CONTAINS(out, "--screenshot: ");
    CHECK_CONTAINS(out, "dir.png is a directory");
  }
  free(out);

  /* messages */
  rc = run_fmt(&out, "%s policy select --db %s/sub --kernel radix_sort --fingerprint %s/fp-hopper-132.json 2>&1", bin, dir, data);
  CHECK(rc == 2, "policy --db DIR: exit %d", rc);
  CHECK_CONTAINS(out, "/sub is a directory");
  CHECK(!strstr(out, "invalid JSON"), "a directory reported as invalid JSON");
  free(out);
  rc = run_fmt(&out, "printf 'garbage{{{' > %s/garbage.json; VK_DRIVER_FILES=%s/garbage.json %s devices 2>&1", dir, dir, bin);
  CHECK(rc == 3, "garbage ICD file: exit %d, expected 3", rc);
  CHECK_CONTAINS(out, "no usable Vulkan driver: instance creation failed");
  CHECK_CONTAINS(out, "VK_DRIVER_FILES=");
  free(out);
  rc = run_fmt(&out, "VKOCC_DEVICE=garbage %s calibrate 2>&1", bin);
  CHECK(rc == 2, "VKOCC_DEVICE=garbage: exit %d", rc);
  CHECK_CONTAINS(out, "VKOCC_DEVICE 'garbage' matches no device");
  free(out);
  rc = run_fmt(&out, "VKOCC_DEVICE=garbage %s devices 2>&1 >/dev/null", bin);
  CHECK(rc == 0, "devices with VKOCC_DEVICE=garbage: exit %d (the list still helps)", rc);
  CHECK_CONTAINS(out, "warning: VKOCC_DEVICE 'garbage' matches no device");
  free(out);
  rc = run_fmt(&out, "%s calibrate --device garbage 2>&1", bin);
  CHECK(rc == 2, "--device garbage: exit %d", rc);
  CHECK_CONTAINS(out, "--device 'garbage' matches no device");
  free(out);
}

/* "using the cached fingerprint" is a note: on stderr only when it is a terminal. The cache entry is
 * made from committed data under the live device's key, so nothing is measured. */
static void test_cached_note(const char *bin, const char *data) {
  char *out;
  int rc = run_fmt(&out, "%s devices --json", bin);
  json_error_t e;
  json_t *devs = json_loads(out, 0, &e), *dev = NULL, *arr = json_object_get(devs, "devices");
  free(out);
  const char *want = getenv("VKOCC_DEVICE");
  for (size_t i = 0; i < json_array_size(arr); i++) {
    json_t *d = json_array_get(arr, i);
    const char *name = json_string_value(json_object_get(d, "name"));
    if (want && *want ? name && strstr(name, want) : json_is_true(json_object_get(d, "default"))) dev = d;
  }
  CHECK(rc == 0 && dev, "no device to key the cache with (exit %d)", rc);
  if (!dev) { json_decref(devs); return; }
  char path[512], cache[256];
  snprintf(cache, sizeof cache, "%s/cache", dir);
  snprintf(path, sizeof path, "%s/fp-hopper-132.json", data);
  json_t *fp = json_load_file(path, 0, &e);
  snprintf(path, sizeof path, "%s/surface-h100.json", data);
  json_t *surf = json_load_file(path, 0, &e);
  CHECK(fp && surf, "committed data unreadable");
  if (!fp || !surf) { json_decref(devs); json_decref(fp); json_decref(surf); return; }
  json_object_del(dev, "default");
  json_object_set(fp, "device", dev);
  json_object_set_new(fp, "tool_version", json_string(vkocc_version()));
  json_object_set(fp, "calibration", json_object_get(surf, "calibration"));
  json_object_set(fp, "derived", json_object_get(surf, "derived"));
  json_object_del(surf, "device");
  json_object_del(surf, "calibration");
  json_object_del(surf, "derived");
  json_object_del(surf, "schema");
  json_object_del(surf, "tool_version");
  json_object_set(fp, "surface", surf);
  snprintf(path, sizeof path, "mkdir -p %s/vkocc", cache);
  CHECK(system(path) == 0, "mkdir cache");
  snprintf(path, sizeof path, "%s/vkocc/fingerprint-%s-%08llx-q0.json", cache, /* q0: lavapipe's one queue family */ json_string_value(json_object_get(dev, "uuid")),
           (unsigned long long)json_integer_value(json_object_get(dev, "driver_version_raw")));
  CHECK(plant_fingerprint(fp, cache, NULL), "cache entry: %s", vkocc_last_error()); /* sealed, LP_NUM_THREADS unset */
  CHECK(access(path, R_OK) == 0, "the planted entry is not at %s", path);
  json_decref(fp);
  json_decref(surf);
  json_decref(devs);
  /* bounded: were the entry not reused, the measurement would take half a minute */
  rc = run_fmt(&out, "env -u LP_NUM_THREADS XDG_CACHE_HOME=%s timeout 60 %s fingerprint --json 2>%s/err >/dev/null", cache,
               bin, dir);
  CHECK(rc == 0, "fingerprint from the cache: exit %d", rc);
  free(out);
  snprintf(path, sizeof path, "%s/err", dir);
  char *err = slurp(path);
  CHECK(err && !strstr(err, "using the cached fingerprint"), "the cache note went to a stderr that is no terminal: %s",
        err ? err : "(unreadable)");
  free(err);
}

int main(int argc, char **argv) {
  if (argc < 3) { fprintf(stderr, "usage: %s VKOCC DATA_DIR\n", argv[0]); return 2; }
  snprintf(dir, sizeof dir, "/tmp/vkocc-output-XXXXXX");
  if (!mkdtemp(dir)) { perror("mkdtemp"); return 1; }
  test_writer();
  test_json_stdout();
  test_cli(argv[1], argv[2]);
  test_cached_note(argv[1], argv[2]);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  if (system(cmd) != 0) fprintf(stderr, "cannot remove %s\n", dir);
  return check_report();
}
