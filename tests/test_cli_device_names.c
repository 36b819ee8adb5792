/* --device lists on lavapipe: a device name with a comma in it ("llvmpipe (LLVM 15.0.6, 256 bits)") is one
 * device wherever --device is taken (tune splits its lists at commas, but an exact name first); a list with more
 * entries than the host has devices, an entry that names no device and a device named twice are refused with
 * exit 2 at once, before anything is measured (a 301-entry list took 18 s). */
#include "check.h"
#include "run.h"
#include <jansson.h>
#include <stdlib.h>
#include <time.h>

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
  if (argc < 3) return fprintf(stderr, "usage: test_cli_device_names VKOCC SPEC\n"), 2;
  const char *bin = argv[1], *spec = argv[2];
  char dir[] = "/tmp/vkocc-device-names-XXXXXX";
  if (!mkdtemp(dir)) return perror("mkdtemp"), 1;
  char *out;
  int rc = run_fmt(&out, "%s devices --json", bin);
  json_t *doc = json_loads(out, 0, NULL);
  free(out);
  const char *name = json_string_value(json_object_get(json_array_get(json_object_get(doc, "devices"), 0), "name"));
  CHECK(rc == 0 && name, "devices --json");
  if (!name) return check_report();
  printf("device 0: %s\n", name);
  CHECK(strchr(name, ','), "lavapipe's name has a comma: %s", name);

  /* the name alone: one device in every command that takes --device (a measurement may be refused as
   * disturbed on a busy machine; never as a list, "named twice" or "matches no device") */
  static const char *cmds[] = {"calibrate --lengths 4 --repeats 3 --longest-ms 0.5", "calc --wg 64 --shmem 0",
                               "tune %s -o %s/one.json --budget 1"};
  for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
    char args[1024];
    snprintf(args, sizeof args, cmds[i], spec, dir);
    rc = run_fmt(&out, "%s %s --device '%s' 2>&1", bin, args, name);
    CHECK(rc == 0 || (rc == 1 && calibration_refused(out)), "%s --device '%s': exit %d: %s", args, name, rc, out);
    CHECK(!strstr(out, "named twice") && !strstr(out, "matches no device") && !strstr(out, "several devices"),
          "%s: the name was split: %s", args, out);
    free(out);
  }

  /* in a list: the name stays one entry (two entries on a host of one device: refused as such, not three) */
  double t0 = now_s();
  rc = run_fmt(&out, "%s tune %s -o %s/two.json --device '%s,0' 2>&1", bin, spec, dir, name);
  CHECK(rc == 2, "a list of the name and 0: exit %d: %s", rc, out);
  CHECK_CONTAINS(out, "--device: 2 devices named, but this host has 1: a device named twice");
  free(out);
  rc = run_fmt(&out, "%s tune %s -o %s/two.json --device 'nosuchgpu,0' 2>&1", bin, spec, dir);
  CHECK(rc == 2, "nosuchgpu,0: exit %d: %s", rc, out);
  CHECK_CONTAINS(out, "--device 'nosuchgpu' matches no device");
  free(out);
  rc = run_fmt(&out, "%s tune %s -o %s/two.json --device '0,' 2>&1", bin, spec, dir);
  CHECK(rc == 2, "'0,': exit %d: %s", rc, out);
  CHECK_CONTAINS(out, "an empty entry");
  free(out);

  /* 301 entries: refused at once */
  char *list = malloc(301 * 2 + 1), *p = list;
  for (int i = 0; i < 301; i++) p += sprintf(p, "%s0", i ? "," : "");
  double t1 = now_s();
  rc = run_fmt(&out, "%s tune %s -o %s/many.json --device %s 2>&1", bin, spec, dir, list);
  double dt = now_s() - t1;
  CHECK(rc == 2, "301 entries: exit %d: %s", rc, out);
  CHECK_CONTAINS(out, "--device: 301 devices named, but this host has 1");
  CHECK(dt < 10, "301 entries refused after %.1f s", dt);
  printf("301 entries refused in %.2f s; the lists in %.2f s\n", dt, now_s() - t0);
  free(out);
  free(list);
  json_decref(doc);
  char cmd[256];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  if (system(cmd)) {}
  return check_report();
}
