/* vkocc tune SPEC --device D1,D2 and under mpirun on lavapipe, where one device is present: it is opened twice
 * (VKOCC_TEST_SAME_DEVICE=1, the test-only switch; without it a device named twice is refused) and, under MPI,
 * by 3 oversubscribed ranks. Each run must measure the same configurations with the same validity as one
 * device (a deliberately wrong specialization-constant value among them), name in its document every device
 * that measured and each result's device; a device that fails hands its configuration to the other; when every
 * device of the cluster failed the document says why; a process killed with SIGKILL mid-run, continued with
 * --resume, completes the space having kept what its journal held; ranks that read different specs are refused
 * with both hashes before anything is measured. Boards of different speed (test_normalized): the search ranks by
 * normalized times and answers with one device's raw time. Two devices of one process compile each module once
 * between them. Under mpirun's recovery mode a killed rank is given up
 * after a silence and the others complete the space in the same run; a killed coordinator stops the others and
 * --resume completes it. Plain mpirun -n 2 and -n 3 (no test-only switch) on this one GPU are refused at once naming
 * the ranks and the device; a rank that refuses its spec or its fingerprint stops the job at once, named. The MPI part prints SKIP and why where this vkocc was built
 * without MPI or mpirun is missing (scripts/install-deps.sh installs Open MPI, so CI skips nothing).
 * argv: vkocc, the source tree. */
#include "check_json.h"
#include "run.h"
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "vkocc.h"

static char dir[] = "/tmp/vkocc-fleet-XXXXXX";
static const char *bin, *src;
static char common[2048];

static json_t *load(const char *name) {
  char p[1024];
  snprintf(p, sizeof p, "%s/%s", dir, name);
  return check_load_json(p);
}

/* configuration key -> invalidity of a results document */
static json_t *validity(json_t *doc) {
  json_t *v = json_object();
  size_t i;
  json_t *r;
  json_array_foreach(json_object_get(doc, "results"), i, r) {
    char *k = json_dumps(json_object_get(r, "config"), JSON_COMPACT | JSON_SORT_KEYS);
    json_object_set(v, k, json_object_get(r, "invalidity"));
    free(k);
  }
  return v;
}

/* the same configurations, the same validity; every result names a device the document lists, whose counts add
 * up to the results */
static void same_as_one(json_t *one, const char *name, uint32_t min_devices) {
  json_t *d = load(name);
  if (!d) return;
  json_t *a = validity(one), *b = validity(d);
  CHECK(json_equal(a, b), "%s: %zu results, not the same configurations or validity as one device (%zu)", name,
        json_object_size(b), json_object_size(a));
  json_t *devs = json_object_get(d, "devices");
  CHECK(json_array_size(devs) >= min_devices, "%s: %zu devices listed", name, json_array_size(devs));
  size_t i;
  json_t *r;
  json_int_t sum = 0;
  json_array_foreach(devs, i, r) sum += json_integer_value(json_object_get(r, "measured"));
  uint32_t named = 0;
  json_array_foreach(json_object_get(d, "results"), i, r) {
    json_t *dv = json_object_get(r, "device");
    named += json_is_integer(dv) && json_integer_value(dv) >= 0 && (size_t)json_integer_value(dv) < json_array_size(devs);
  }
  CHECK_EQ_U(named, json_array_size(json_object_get(d, "results")));
  CHECK(sum == (json_int_t)json_array_size(json_object_get(d, "results")), "%s: devices measured %lld of %zu", name,
        (long long)sum, json_array_size(json_object_get(d, "results")));
  json_decref(a), json_decref(b), json_decref(d);
}

static bool exists(const char *name) {
  char p[1024];
  snprintf(p, sizeof p, "%s/%s", dir, name);
  return access(p, F_OK) == 0;
}

/* a killed coordinator's lock names its pid: wait until it is gone, as a user would before --resume */
static void wait_unlocked(const char *name) {
  char p[1024];
  snprintf(p, sizeof p, "%s/%s.lock", dir, name);
  for (int i = 0; i < 100; i++) {
    FILE *f = fopen(p, "r");
    long pid = 0;
    if (f) {
      if (fscanf(f, "%ld", &pid) != 1) pid = 0;
      fclose(f);
    }
    if (!f || pid <= 0 || kill((pid_t)pid, 0) != 0) return;
    usleep(100000);
  }
}

static void test_devices(json_t *one) {
  char *out;
  /* a device named twice is refused (two searches would time each other) */
  int rc = run_fmt(&out, "cd %s && %s tune s.json -o twice.json %s --device 0,0 2>&1", dir, bin, common);
  CHECK_EQ_U(rc, 2);
  CHECK_CONTAINS(out, "named twice");
  CHECK(!exists("twice.json"), "written after bad input");
  free(out);
  /* two workers, one search */
  rc = run_fmt(&out, "cd %s && VKOCC_TEST_SAME_DEVICE=1 %s tune s.json -o two.json %s --device 0,0 2>&1", dir, bin, common);
  CHECK_EQ_U(rc, 0);
  CHECK_CONTAINS(out, "2 devices, 12 measured (0 resumed), 9 valid");
  free(out);
  same_as_one(one, "two.json", 2);
  json_t *t = load("two.json");
  CHECK(json_equal(json_object_get(t, "reference"), json_object_get(one, "reference")), "the reference: %s, one device: %s",
        json_string_value(json_object_get(t, "reference")), json_string_value(json_object_get(one, "reference")));
  /* the module is compiled once for the process, not once per device: the devices' compiles add up to one device's */
  json_int_t compiles = 0;
  size_t i;
  json_t *dv;
  json_array_foreach(json_object_get(t, "devices"), i, dv)
    compiles += json_integer_value(json_object_get(json_object_get(dv, "timeline"), "compiles"));
  json_int_t one_compiles = json_integer_value(json_object_get(json_object_get(one, "measurement"), "compiles"));
  CHECK(one_compiles > 0 && compiles == one_compiles, "two devices compiled %lld modules, one device %lld", (long long)compiles,
        (long long)one_compiles);
  json_decref(t);
  CHECK(!exists("two.json.journal"), "a finished run leaves its journal");
  /* a device alone in its cluster (--device all: lavapipe is one) has no references: its sentinel, timed every 4
   * configurations and at its end, is the cluster's document's and the summary's clocks line */
  rc = run_fmt(&out, "cd %s && %s tune s.json -o alone.json %s --sentinel 4 --device all 2>&1", dir, bin, common);
  CHECK_EQ_U(rc, 0);
  CHECK_CONTAINS(out, "1 devices, 12 measured (0 resumed), 9 valid");
  CHECK_CONTAINS(out, "clocks:   sentinel {");
  free(out);
  same_as_one(one, "alone.json", 1);
  t = load("alone.json");
  json_t *sen = json_object_get(json_object_get(t, "measurement"), "sentinel");
  CHECK(json_array_size(json_object_get(sen, "points")) >= 3 && json_is_object(json_object_get(sen, "config")),
        "a device alone: $.measurement.sentinel %s", sen ? "without its points" : "absent");
  json_decref(t);
  /* a device that fails: its configuration and the rest go to the other */
  rc = run_fmt(&out, "cd %s && VKOCC_TEST_SAME_DEVICE=1 VKOCC_TEST_FLEET_FAIL=0:2 %s tune s.json -o fail.json %s --device 0,0 "
               "2>&1", dir, bin, common);
  CHECK_EQ_U(rc, 0);
  CHECK_CONTAINS(out, "left the search");
  free(out);
  same_as_one(one, "fail.json", 2);
  json_t *d = load("fail.json");
  json_t *d0 = json_array_get(json_object_get(d, "devices"), 0);
  CHECK_EQ_U(json_integer_value(json_object_get(d0, "measured")), 2);
  CHECK_CONTAINS(json_string_value(json_object_get(d0, "error")), "VKOCC_TEST_FLEET_FAIL");
  json_decref(d);
  /* a device whose result is not one vkocc records (its median not its times' median: a forged best) is given up as a
   * failed one, named with the reason, and its configurations go to the other; the forged time ranks nothing */
  rc = run_fmt(&out, "cd %s && VKOCC_TEST_SAME_DEVICE=1 VKOCC_TEST_FLEET_FORGE=0:1 %s tune s.json -o forge.json %s --device 0,0 "
               "2>&1", dir, bin, common);
  CHECK_EQ_U(rc, 0);
  CHECK_CONTAINS(out, "left the search");
  free(out);
  same_as_one(one, "forge.json", 2);
  d = load("forge.json");
  d0 = json_array_get(json_object_get(d, "devices"), 0);
  CHECK_CONTAINS(json_string_value(json_object_get(d0, "error")), "median_ns is not the median of its times");
  CHECK_EQ_U(json_integer_value(json_object_get(d0, "measured")), 1);
  json_decref(d);
  /* every device of the cluster fails: the search stops, the document says why, exit 1 */
  rc = run_fmt(&out, "cd %s && VKOCC_TEST_SAME_DEVICE=1 VKOCC_TEST_FLEET_FAIL=0:1,1:0 %s tune s.json -o dead.json %s "
               "--device 0,0 2>&1", dir, bin, common);
  CHECK_EQ_U(rc, 1);
  CHECK_CONTAINS(out, "every device of the cluster failed");
  free(out);
  d = load("dead.json");
  CHECK_CONTAINS(json_string_value(json_object_get(json_object_get(d, "fleet"), "stopped")), "every device of the cluster failed");
  json_decref(d);
  /* killed with SIGKILL after 5 results: --resume keeps what the journal held and completes the space */
  rc = run_fmt(&out, "cd %s && VKOCC_TEST_SAME_DEVICE=1 VKOCC_TEST_FLEET_KILL=0:5 %s tune s.json -o kill.json %s --device 0,0 "
               "2>&1", dir, bin, common);
  CHECK(rc != 0, "not killed: exit %d", rc);
  CHECK(exists("kill.json.journal"), "no journal after the kill");
  free(out);
  rc = run_fmt(&out, "cd %s && VKOCC_TEST_SAME_DEVICE=1 %s tune s.json -o kill.json %s --device 0,0 --resume 2>&1", dir, bin,
               common);
  CHECK_EQ_U(rc, 0);
  int resumed = -1;
  const char *p = out ? strstr(out, "measured (") : NULL;
  if (p) resumed = atoi(p + strlen("measured ("));
  CHECK(resumed >= 5 && resumed < 12, "%d resumed after a kill that followed 5 results", resumed);
  free(out);
  same_as_one(one, "kill.json", 2);
}

/* the configuration of a results document's best, and of the lowest raw median with the device that measured it */
/* A spec whose condition names a device limit (WG * ITEMS * 4 within lavapipe's 1024 invocations: 3 of 12 ruled
 * out) runs on two devices: each group's search bound to its members' limits, each worker to its own. */
static void test_device_limits(void) {
  char *out;
  run_fmt(&out, "cd %s && sed 's/\\(\"Values\": \"\\[1, 2, 4, 8\\]\"}\\)/\\1], \"Conditions\": [{\"Parameters\": "
          "[\"WG\", \"ITEMS\"], \"Expression\": \"WG * ITEMS * 4 <= MaxComputeWorkGroupInvocations\"}/' s.json > lim.json 2>&1", dir);
  free(out);
  int rc = run_fmt(&out, "cd %s && VKOCC_TEST_SAME_DEVICE=1 %s tune lim.json -o lim-out.json %s --device 0,0 2>&1", dir, bin, common);
  CHECK(rc == 0, "a spec naming a device limit on two devices: exit %d: %s", rc, out);
  free(out);
  json_t *d = load("lim-out.json");
  json_t *sp = json_object_get(d, "space");
  CHECK(json_integer_value(json_object_get(sp, "constrained")) == 3 && json_integer_value(json_object_get(sp, "allowed")) == 9,
        "3 ruled out by the device's limit, 9 allowed");
  json_decref(d);
}

static char *best_key(json_t *d) {
  return json_dumps(json_object_get(json_object_get(d, "best"), "config"), JSON_COMPACT | JSON_SORT_KEYS);
}
static char *raw_best_key(json_t *d, json_int_t *device) {
  json_t *r, *best = NULL;
  size_t i;
  json_array_foreach(json_object_get(d, "results"), i, r) {
    if (strcmp(json_string_value(json_object_get(r, "invalidity")), "correct")) continue;
    if (!best || json_number_value(json_object_get(r, "median_ns")) < json_number_value(json_object_get(best, "median_ns"))) best = r;
  }
  *device = best ? json_integer_value(json_object_get(best, "device")) : -1;
  return best ? json_dumps(json_object_get(best, "config"), JSON_COMPACT | JSON_SORT_KEYS) : NULL;
}

/* The normalization's references cost little: each is the fastest valid result of a window of results, not the first
 * that came, and a device's end point is the cheapest of them. Every valid time is a known one falling with the configuration's index, 100 us x (1 + 5% x |c - 10|)
 * (VKOCC_TEST_FLEET_SYNTH=10), so configuration 0 ({WG 32, ITEMS 1}), the first result of every run (device 0 alone
 * measures until the reference outputs are known), is the slowest valid one and never the fastest of a window: the
 * rule before took it as the first reference. Each device's time of each reference is its known time. */
static double synth_ns(json_t *config, int64_t best) {
  static const int wg[] = {32, 64, 128}, items[] = {1, 2, 4, 8};
  int c = -1;
  for (int a = 0; a < 3; a++)
    for (int b = 0; b < 4; b++)
      if (json_integer_value(json_object_get(config, "WG")) == wg[a] && json_integer_value(json_object_get(config, "ITEMS")) == items[b])
        c = 4 * a + b;
  return c < 0 ? -1 : 1e5 * (1 + 0.05 * fabs((double)(c - best)));
}

static void test_cheap_references(void) {
  char *out;
  int rc = run_fmt(&out, "cd %s && VKOCC_TEST_SAME_DEVICE=1 VKOCC_TEST_FLEET_SYNTH=10 %s tune s.json -o cheap.json %s --device 0,0 "
                   "2>&1", dir, bin, common);
  CHECK_EQ_U(rc, 0);
  /* the references are the devices' sentinel: the summary's clocks line, nothing drifted */
  CHECK(strstr(out, "clocks:   worker 0: reference") && strstr(out, "worker 1: reference") && !strstr(out, "drifted"),
        "the clocks line: %s", out);
  free(out);
  json_t *d = load("cheap.json");
  if (!d) return;
  json_t *n = json_object_get(json_object_get(d, "fleet"), "normalization"), *refs = json_object_get(n, "references");
  /* the library's time outside the search, told apart from it */
  json_t *os = json_object_get(json_object_get(d, "fleet"), "outside_ms");
  double before = json_number_value(json_object_get(os, "before")), after = json_number_value(json_object_get(os, "after"));
  double elapsed = json_number_value(json_object_get(json_object_get(d, "measurement"), "elapsed_ms"));
  CHECK(json_is_number(json_object_get(os, "before")) && json_is_number(json_object_get(os, "after")) && before > 0 &&
        after > 0 && elapsed > 0, "$.fleet.outside_ms: before %.3f, after %.3f ms (search %.1f ms)", before, after, elapsed);
  /* 9 valid results, windows of 2: 4 references */
  CHECK_EQ_U(json_array_size(refs), 4);
  size_t i, k;
  json_t *r, *dv;
  json_array_foreach(refs, i, r) {
    double t = synth_ns(r, 10);
    char *key = json_dumps(r, JSON_COMPACT | JSON_SORT_KEYS);
    CHECK(t > 0 && t < 150e3, "reference %zu %s: %.0f ns, the slowest valid configuration (150000 ns) or unknown", i, key, t);
    json_array_foreach(json_object_get(n, "devices"), k, dv) {
      json_t *ns = json_array_get(json_object_get(dv, "reference_ns"), i);
      CHECK(json_is_number(ns) && fabs(json_number_value(ns) - t) < 1e-6 * t, "device %zu's time of reference %zu %s: %.1f, "
            "expected %.1f", k, i, key, json_number_value(ns), t);
    }
    free(key);
  }
  /* every point says in how many runs it was timed: at least the stopping rule's least (3 for a reference timed again,
   * 5 for a search's result; lavapipe's cheap runs come in batches of up to --max-runs 5, so either may have 5) */
  json_array_foreach(json_object_get(n, "devices"), k, dv) {
    size_t j;
    json_t *p;
    json_array_foreach(json_object_get(dv, "points"), j, p) {
      json_int_t runs = json_integer_value(json_object_get(p, "runs"));
      CHECK(runs >= 3 && runs <= 5, "device %zu's point %zu: %lld runs, expected 3 to 5", k, j, (long long)runs);
    }
  }
  /* each device ends on the cheapest reference, its points (known times) do not drift */
  size_t cheapest = 0;
  json_array_foreach(refs, i, r) if (synth_ns(r, 10) < synth_ns(json_array_get(refs, cheapest), 10)) cheapest = i;
  json_array_foreach(json_object_get(n, "devices"), k, dv) {
    json_t *pts = json_object_get(dv, "points"), *last = json_array_get(pts, json_array_size(pts) - 1);
    CHECK(json_integer_value(json_object_get(last, "reference")) == (json_int_t)cheapest, "device %zu ends on reference %lld, "
          "expected the cheapest, %zu", k, (long long)json_integer_value(json_object_get(last, "reference")), cheapest);
    json_t *dr = json_object_get(dv, "drift");
    CHECK(json_integer_value(json_object_get(dr, "points")) >= 2 && json_number_value(json_object_get(dr, "range")) < 1e-9 &&
          json_is_false(json_object_get(dr, "drifted")), "device %zu's drift: %s", k,
          json_dumps(dr ? dr : json_null(), JSON_COMPACT));
  }
  json_decref(d);
}

/* No device idles at the end while another still holds configurations it has not started: device 0 waits 4 s before
 * each configuration for the search (VKOCC_TEST_FLEET_DELAY=0:4000). It is handed the first 3 of the 12 and measures
 * alone until the reference outputs are known; then each of its configurations takes 4 s more than one of device
 * 1's, which runs out of work first (unless lavapipe takes over a second a configuration) while device 0 still holds
 * one it has not started, and takes it (its timeline's "stolen"); every configuration is measured once, as by one
 * device. */
static void test_steal(json_t *one) {
  char *out;
  int rc = run_fmt(&out, "cd %s && VKOCC_TEST_SAME_DEVICE=1 VKOCC_TEST_FLEET_DELAY=0:4000 %s tune s.json -o steal.json %s --device "
                   "0,0 2>&1", dir, bin, common);
  CHECK_EQ_U(rc, 0);
  free(out);
  same_as_one(one, "steal.json", 2);
  json_t *d = load("steal.json");
  if (!d) return;
  json_t *devs = json_object_get(d, "devices");
  json_int_t s0 = json_integer_value(json_object_get(json_object_get(json_array_get(devs, 0), "timeline"), "stolen"));
  json_int_t s1 = json_integer_value(json_object_get(json_object_get(json_array_get(devs, 1), "timeline"), "stolen"));
  CHECK(s1 >= 1 && s0 == 0, "stolen: device 0 %lld, device 1 %lld; expected device 1 to take from slow device 0", (long long)s0,
        (long long)s1);
  json_decref(d);
}

/* Two boards of different speed in one search. Device 1's times are halved (VKOCC_TEST_FLEET_SLOW=1:50) and every
 * valid time is a known one, 100 us x (1 + 5% x |c - 1|) (VKOCC_TEST_FLEET_SYNTH=1), so the true best is
 * configuration 1 (WG 32, ITEMS 2), which device 0 measures (it alone is handed the first 3, a quarter of the space,
 * until the reference outputs are known; device 1 then takes its share of the rest, and device 0 waits 500 ms before
 * each configuration, VKOCC_TEST_FLEET_DELAY=0:500, so that device 0 does not take all of device 1's share while device
 * 1 sets up under load). By raw medians a configuration
 * of device 1 wins; by times normalized to the common reference (device 1's factor 0.5) configuration 1 does. Then real lavapipe times with device 1 ten times slower: its factor is
 * measured near 10. */
static void test_normalized(void) {
  char *out;
  int rc = run_fmt(&out, "cd %s && VKOCC_TEST_SAME_DEVICE=1 VKOCC_TEST_FLEET_SLOW=1:50 VKOCC_TEST_FLEET_SYNTH=1 "
                   "VKOCC_TEST_FLEET_DELAY=0:500 %s tune s.json -o norm.json %s --device 0,0 2>&1", dir, bin, common);
  CHECK_EQ_U(rc, 0);
  CHECK_CONTAINS(out, "factors:  worker 0 x1.0000");
  CHECK_CONTAINS(out, "worker 1 x0.5000");
  CHECK_CONTAINS(out, "no final round");
  free(out);
  json_t *d = load("norm.json");
  if (!d) return;
  char *best = best_key(d);
  json_int_t dev = -1;
  char *raw = raw_best_key(d, &dev);
  CHECK(best && !strcmp(best, "{\"ITEMS\":2,\"WG\":32}"), "the best: %s, expected {\"ITEMS\":2,\"WG\":32}", best);
  CHECK(raw && strcmp(raw, best ? best : "") && dev == 1, "the raw ranking's first: %s on device %lld, expected another device "
        "1 measured", raw, (long long)dev);
  free(best), free(raw);
  CHECK(json_number_value(json_object_get(json_object_get(d, "best"), "median_ns")) > 99e3 &&
        json_number_value(json_object_get(json_object_get(d, "best"), "median_ns")) < 101e3, "the best's time %.1f ns is not "
        "device 0's raw 100000 ns", json_number_value(json_object_get(json_object_get(d, "best"), "median_ns")));
  json_t *n = json_object_get(json_object_get(d, "fleet"), "normalization");
  json_t *d1 = json_array_get(json_object_get(n, "devices"), 1);
  CHECK(fabs(json_number_value(json_object_get(d1, "factor")) - 0.5) < 1e-3, "device 1's factor %.4f, expected 0.5",
        json_number_value(json_object_get(d1, "factor")));
  CHECK(json_array_size(json_object_get(d1, "points")) >= 2, "device 1: %zu reference points (start and end at least)",
        json_array_size(json_object_get(d1, "points")));
  CHECK(json_is_null(json_object_get(json_object_get(n, "final_round"), "device")), "a final round where the best leads by 5%%");
  CHECK_EQ_U(json_integer_value(json_object_get(json_object_get(d, "best"), "device")), 0);
  /* each result's normalized time: device 1's twice its raw median */
  json_t *r;
  size_t i;
  uint32_t checked = 0;
  json_array_foreach(json_object_get(d, "results"), i, r) {
    if (strcmp(json_string_value(json_object_get(r, "invalidity")), "correct")) continue;
    double m = json_number_value(json_object_get(r, "median_ns")), nv = json_number_value(json_object_get(r, "normalized_ns"));
    double want = json_integer_value(json_object_get(r, "device")) == 1 ? 2 * m : m;
    checked += fabs(nv - want) < 1e-6 * want;
  }
  CHECK_EQ_U(checked, 9);
  json_decref(d);
  /* real times, device 1 ten times slower */
  rc = run_fmt(&out, "cd %s && VKOCC_TEST_SAME_DEVICE=1 VKOCC_TEST_FLEET_SLOW=1:1000 %s tune s.json -o slow.json %s --device 0,0 "
               "2>&1", dir, bin, common);
  CHECK_EQ_U(rc, 0);
  free(out);
  d = load("slow.json");
  if (!d) return;
  n = json_object_get(json_object_get(d, "fleet"), "normalization");
  double f1 = json_number_value(json_object_get(json_array_get(json_object_get(n, "devices"), 1), "factor"));
  /* (lavapipe beside other work: a configuration's time varies by up to 2x between runs) */
  CHECK(f1 > 3 && f1 < 30, "device 1's factor %.3f on lavapipe, ten times slower", f1);
  /* the answer is a raw time one device measured: the final round's on its device, else the result's own */
  json_t *bestj = json_object_get(d, "best");
  char *bk = best_key(d);
  double want = -1;
  json_t *cand;
  json_array_foreach(json_object_get(json_object_get(n, "final_round"), "candidates"), i, cand) {
    char *k = json_dumps(json_object_get(cand, "config"), JSON_COMPACT | JSON_SORT_KEYS);
    json_t *t1;
    size_t j;
    json_array_foreach(json_object_get(cand, "final_round"), j, t1)
      if (k && bk && !strcmp(k, bk) && json_equal(json_object_get(t1, "device"), json_object_get(bestj, "device")))
        want = json_number_value(json_object_get(t1, "median_ns"));
    free(k);
  }
  json_array_foreach(json_object_get(d, "results"), i, r) {
    char *k = json_dumps(json_object_get(r, "config"), JSON_COMPACT | JSON_SORT_KEYS);
    if (want < 0 && k && bk && !strcmp(k, bk)) want = json_number_value(json_object_get(r, "median_ns"));
    free(k);
  }
  CHECK(want > 0 && json_number_value(json_object_get(bestj, "median_ns")) == want, "the best's time %.1f ns is no raw time of "
        "its device (%.1f)", json_number_value(json_object_get(bestj, "median_ns")), want);
  free(bk);
  json_decref(d);
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* A host with fewer GPUs than ranks, launched as a user launches it (plain mpirun, no test-only switch): every rank
 * would measure lavapipe, so the job is refused at once, exit 2, naming the ranks and the device, nothing written
 * (it crashed rank 0 before). A rank that refuses its spec, or whose fingerprint cannot be read, stops the job at once
 * with its reason and its rank on the user's terminal (it waited 30 s for MPI_Finalize before). */
static void test_mpi_one_gpu(const char *mpirun) {
  char *out;
  for (int n = 2; n <= 3; n++) {
    double t0 = now_s();
    int rc = run_fmt(&out, "cd %s && %s -n %d %s tune s.json -o one-gpu.json %s 2>&1", dir, mpirun, n, bin, common);
    double wall = now_s() - t0;
    CHECK(rc == 2, "mpirun -n %d on one GPU: exit %d, not 2:\n%s", n, rc, out);
    CHECK_CONTAINS(out, n == 2 ? "ranks 0 and 1 both measure on llvmpipe" : "ranks 0, 1 and 2 all measure on llvmpipe");
    CHECK_CONTAINS(out, "vkocc tune: rank 0 (");
    CHECK(!strstr(out, "runtime error") && !strstr(out, "Segmentation") && !strstr(out, "signal"), "a crash:\n%s", out);
    CHECK(!strstr(out, "MPI_Finalize did not return"), "a rank waited for MPI_Finalize:\n%s", out);
    CHECK(wall < 25, "mpirun -n %d on one GPU: refused after %.1f s", n, wall);
    CHECK(!exists("one-gpu.json") && !exists("one-gpu.json.journal"), "written though refused");
    free(out);
  }
  /* rank 1 reads a spec that is no T1 document: the coordinator and rank 2 name rank 1 and its reason */
  run_fmt(&out, "echo '{\"KernelSpecification\": 3}' > %s/notspec.json", dir);
  free(out);
  double t0 = now_s();
  int rc = run_fmt(&out, "cd %s && %s -n 3 sh -c 'S=s.json; [ \"$OMPI_COMM_WORLD_RANK\" = 1 ] && S=notspec.json; exec %s tune $S "
                   "-o rs.json %s' 2>&1", dir, mpirun, bin, common);
  double wall = now_s() - t0;
  CHECK(rc == 2, "a rank refusing its spec: exit %d:\n%s", rc, out);
  CHECK_CONTAINS(out, "vkocc tune: rank 0 (");
  CHECK_CONTAINS(out, "rank 1 (");
  CHECK_CONTAINS(out, "cannot take part: notspec.json: $: 'KernelSpecification' must be an object");
  CHECK(!strstr(out, "MPI_Finalize did not return"), "a rank waited for MPI_Finalize:\n%s", out);
  CHECK(wall < 25, "a rank refusing its spec: the job ended after %.1f s", wall);
  CHECK(!exists("rs.json"), "written though refused");
  free(out);
  /* rank 2's fingerprint cannot be read (before the library is called): the same */
  t0 = now_s();
  rc = run_fmt(&out, "cd %s && %s -n 3 sh -c 'F=%s/tests/data/fp-hopper-132.json; [ \"$OMPI_COMM_WORLD_RANK\" = 2 ] && "
               "F=%s/absent.json; exec %s tune s.json -o rf.json --max-runs 5 --fingerprint $F --allow-other-device' 2>&1", dir,
               mpirun, src, dir, bin);
  wall = now_s() - t0;
  CHECK(rc == 2, "a rank without its fingerprint: exit %d:\n%s", rc, out);
  CHECK_CONTAINS(out, "rank 2 (");
  CHECK_CONTAINS(out, "cannot take part: cannot open");
  CHECK(!strstr(out, "MPI_Finalize did not return"), "a rank waited for MPI_Finalize:\n%s", out);
  CHECK(wall < 25, "a rank without its fingerprint: the job ended after %.1f s", wall);
  CHECK(!exists("rf.json"), "written though refused");
  free(out);
}

static void test_mpi(json_t *one) {
  char *out;
  if (!vkocc_mpi_built()) {
    printf("SKIP: the MPI part: this vkocc was built without MPI (libopenmpi-dev absent when it was configured)\n");
    return;
  }
  if (run_fmt(&out, "command -v mpirun 2>&1") != 0) {
    free(out);
    printf("SKIP: the MPI part: no mpirun (openmpi-bin)\n");
    return;
  }
  free(out);
  char mpirun[256];
  snprintf(mpirun, sizeof mpirun, "mpirun --oversubscribe%s", getuid() == 0 ? " --allow-run-as-root" : "");
  /* 3 ranks, one search; its results into a policy store by the coordinator alone (the one writer) */
  int rc = run_fmt(&out, "cd %s && VKOCC_TEST_SAME_DEVICE=1 %s -n 3 %s tune s.json -o mpi.json %s --db mpi.sqlite 2>&1", dir,
                   mpirun, bin, common);
  CHECK_EQ_U(rc, 0);
  CHECK_CONTAINS(out, "3 devices on 3 ranks");
  CHECK_CONTAINS(out, "store:    mpi.sqlite (12 results added, 0 there already)");
  const char *second = strstr(out, "store:    mpi.sqlite");
  CHECK(second && !strstr(second + 1, "store:    mpi.sqlite"), "the store written once: %s", out);
  free(out);
  rc = run_fmt(&out, "%s policy check --db %s/mpi.sqlite 2>&1", bin, dir);
  CHECK_EQ_U(rc, 0);
  CHECK_CONTAINS(out, "integrity: ok");
  CHECK_CONTAINS(out, "\nresults: 12\n");
  CHECK_CONTAINS(out, "\nruns: 1\n");
  free(out);
  same_as_one(one, "mpi.json", 3);
  json_t *d = load("mpi.json");
  json_t *dv;
  size_t i;
  int ranks = 0;
  json_array_foreach(json_object_get(d, "devices"), i, dv) ranks |= 1 << json_integer_value(json_object_get(dv, "rank"));
  CHECK_EQ_U(ranks, 7);
  json_decref(d);
  /* a rank's forged result (its median not its times') reaches the coordinator over MPI and gets the same check as a
   * thread's: rank 1 is given up, named, and the others complete the space */
  rc = run_fmt(&out, "cd %s && VKOCC_TEST_SAME_DEVICE=1 VKOCC_TEST_FLEET_FORGE=1:1 %s -n 3 %s tune s.json -o mforge.json %s 2>&1",
               dir, mpirun, bin, common);
  CHECK_EQ_U(rc, 0);
  CHECK_CONTAINS(out, "(rank 1) left the search: sent a result that is not one vkocc records");
  free(out);
  same_as_one(one, "mforge.json", 3);
  d = load("mforge.json");
  json_t *f1 = NULL;
  json_array_foreach(json_object_get(d, "devices"), i, dv)
    if (json_integer_value(json_object_get(dv, "rank")) == 1) f1 = dv;
  CHECK_CONTAINS(f1 ? json_string_value(json_object_get(f1, "error")) : "", "median_ns is not the median of its times");
  json_decref(d);
  /* rank 1 killed with SIGKILL (mpirun ends the job), then --resume completes the space */
  rc = run_fmt(&out, "cd %s && VKOCC_TEST_SAME_DEVICE=1 VKOCC_TEST_FLEET_KILL=1:0 %s -n 3 %s tune s.json -o mk.json %s 2>&1", dir,
               mpirun, bin, common);
  CHECK(rc != 0, "the job went on without rank 1: exit %d", rc);
  free(out);
  wait_unlocked("mk.json");
  rc = run_fmt(&out, "cd %s && VKOCC_TEST_SAME_DEVICE=1 %s -n 3 %s tune s.json -o mk.json %s --resume 2>&1", dir, mpirun, bin,
               common);
  CHECK_EQ_U(rc, 0);
  free(out);
  same_as_one(one, "mk.json", 3);
  /* the same kill under mpirun's recovery mode: the job goes on, the coordinator gives rank 1 up after 3 s of silence
   * and hands what it held to the others, and the space is complete in one run */
  rc = run_fmt(&out, "cd %s && VKOCC_TEST_SAME_DEVICE=1 VKOCC_TEST_FLEET_KILL=1:2 VKOCC_FLEET_SILENT_S=3 %s --enable-recovery "
               "--mca orte_abort_on_non_zero_status 0 -n 3 %s tune s.json -o live.json %s 2>&1", dir, mpirun, bin, common);
  CHECK_EQ_U(rc, 0);
  /* given up by its silence, or by a message it never took (whichever the coordinator meets first); rank 2 stays:
   * while the coordinator waits on the dead rank, it beats no one, and the live ranks must outlast that wait */
  CHECK(strstr(out, "left the search: rank 1") || strstr(out, "(rank 1) left the search: MPI: rank 1 took no message"),
        "rank 1 given up: %s", out);
  CHECK(!strstr(out, "(rank 2) left the search") && !strstr(out, "rank 2: the coordinator"), "rank 2 lost too: %s",
        out);
  free(out);
  same_as_one(one, "live.json", 3);
  d = load("live.json");
  json_t *d1 = NULL;
  json_array_foreach(json_object_get(d, "devices"), i, dv)
    if (json_integer_value(json_object_get(dv, "rank")) == 1) d1 = dv;
  CHECK(d1 && json_integer_value(json_object_get(d1, "measured")) == 2, "rank 1 measured %lld before it was lost",
        d1 ? (long long)json_integer_value(json_object_get(d1, "measured")) : -1LL);
  const char *err = d1 ? json_string_value(json_object_get(d1, "error")) : NULL;
  CHECK(err && (strstr(err, "silent for") || strstr(err, "took no message")), "rank 1's error: %s",
        err ? err : "(none)");
  CHECK(!exists("live.json.journal"), "the run ended normally: no journal");
  json_decref(d);
  /* the coordinator killed in recovery mode: the other ranks stop once it takes nothing or is silent, and --resume
   * completes the space */
  rc = run_fmt(&out, "cd %s && VKOCC_TEST_SAME_DEVICE=1 VKOCC_TEST_FLEET_KILL=0:3 VKOCC_FLEET_SILENT_S=3 %s --enable-recovery "
               "--mca orte_abort_on_non_zero_status 0 -n 3 %s tune s.json -o orphan.json %s 2>&1", dir, mpirun, bin, common);
  /* (mpirun's exit status in recovery mode is 0 whatever the ranks did) */
  CHECK_CONTAINS(out, "the coordinator (rank 0)");
  CHECK(exists("orphan.json.journal"), "no journal after the coordinator was killed");
  free(out);
  wait_unlocked("orphan.json");
  rc = run_fmt(&out, "cd %s && VKOCC_TEST_SAME_DEVICE=1 %s -n 3 %s tune s.json -o orphan.json %s --resume 2>&1", dir, mpirun, bin,
               common);
  CHECK_EQ_U(rc, 0);
  free(out);
  same_as_one(one, "orphan.json", 3);
  /* ranks that read different specs: refused with both hashes, nothing measured or written */
  rc = run_fmt(&out, "cd %s && VKOCC_TEST_SAME_DEVICE=1 %s -n 2 sh -c 'S=s.json; [ \"$OMPI_COMM_WORLD_RANK\" = 1 ] && "
               "S=other.json; exec %s tune $S -o hm.json %s' 2>&1", dir, mpirun, bin, common);
  CHECK(rc != 0, "ranks with different specs: exit %d", rc);
  CHECK_CONTAINS(out, "read a spec of hash fnv1a64:");
  CHECK_CONTAINS(out, "the coordinator fnv1a64:");
  CHECK_CONTAINS(out, "nothing was measured");
  CHECK(!exists("hm.json"), "written though refused");
  free(out);
  test_mpi_one_gpu(mpirun);
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: test_fleet_lvp VKOCC SOURCE_DIR\n");
    return 2;
  }
  bin = argv[1], src = argv[2];
  if (!mkdtemp(dir)) return 1;
  char *out;
  /* the fixture whose ITEMS=8 leaves an element unwritten: 12 configurations, 3 invalid */
  run_fmt(&out, "cp %s/tests/data/tune/scale_wrong.json %s/s.json && cp %s/tests/data/tune/scale_wrong.comp %s/ && "
          "sed 's/\"RandomSeed\": 7/\"RandomSeed\": 8/' %s/s.json > %s/other.json 2>&1", src, dir, src, dir, dir, dir);
  free(out);
  /* short measurements: the test asserts which configurations and their validity, not their times; the full rule,
   * since the references it counts are windows of results the race did not stop, and the race judges lavapipe's real
   * times where VKOCC_TEST_FLEET_SYNTH gives the coordinator synthetic ones */
  snprintf(common, sizeof common, "--max-runs 5 --full-rule --sentinel 0 --seed 1 --fingerprint %s/tests/data/fp-hopper-132.json "
           "--allow-other-device", src);
  int rc = run_fmt(&out, "cd %s && %s tune s.json -o one.json %s 2>&1", dir, bin, common);
  CHECK_EQ_U(rc, 0);
  free(out);
  json_t *one = load("one.json");
  if (one) {
    json_t *v = validity(one);
    CHECK_EQ_U(json_object_size(v), 12);
    json_decref(v);
    test_devices(one);
    test_device_limits();
    test_normalized();
    test_cheap_references();
    test_steal(one);
    test_mpi(one);
  }
  json_decref(one);
  run_fmt(&out, "rm -rf %s", dir);
  free(out);
  return check_report();
}
