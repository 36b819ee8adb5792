/* calc from saved data: the committed H100 CSV gives the committed listing; bad input fails cleanly. */
#include "check.h"
#include "run.h"
#include <time.h>

int main(int argc, char **argv) {
  if (argc < 3) { fprintf(stderr, "usage: %s VKOCC DATA_DIR\n", argv[0]); return 2; }
  const char *bin = argv[1], *data = argv[2];
  char *out, *expected;
  /* the human table: per SM first, the device-wide P after it, the longest limit name inside its column */
  int rc = run_fmt(&out, "%s calc --table --from %s/h100-grid.csv --shmem 40K", bin, data);
  CHECK(rc == 0, "calc --table (human) exit %d", rc);
  CHECK_CONTAINS(out, "WG size  Shared [B]  Occupancy  WGs/SM  Sgs/SM  Thr/SM  P (device)   Limit                         Source\n");
  CHECK_CONTAINS(out, "\n32       40960       3.12%      2       2       64      264          shared memory                 model\n");
  free(out);
  rc = run_fmt(&out, "%s calc --table --from %s/h100-grid.csv --csv", bin, data);
  CHECK(rc == 0, "calc --table exit %d", rc);
  char cmd[1024];
  snprintf(cmd, sizeof cmd, "cat %s/h100-grid.calc.csv", data);
  run_cmd(cmd, &expected);
  CHECK(strlen(expected) > 100 && strcmp(out, expected) == 0, "listing differs from %s/h100-grid.calc.csv:\n%s", data, out);
  free(out);
  free(expected);
  rc = run_fmt(&out, "%s calc --wg 96 --shmem 8K --from %s/h100-grid.csv", bin, data);
  CHECK(rc == 0, "calc point exit %d", rc);
  CHECK_CONTAINS(out, "resident workgroups          1584         12");
  CHECK_CONTAINS(out, "occupancy: 56.25% of 2048 threads per SM; binding limit: shared memory");
  CHECK_CONTAINS(out, "derived: 132 SMs; per SM: 32 workgroups, 64 subgroups (2048 threads; subgroup size 32, "
                     "inferred), 102400 shared bytes; 70/70 points explained");
  /* the workgroups per SM each limit allows (Nsight Compute's block limits) */
  CHECK_CONTAINS(out, "workgroups per SM by limit: workgroup slots 32, subgroup slots 21, threads 21, shared memory 12, "
                      "registers unknown");
  free(out);
  /* a point between measured ones comes from the model */
  rc = run_fmt(&out, "%s calc --wg 160 --shmem 6000 --from %s/h100-grid.csv", bin, data);
  CHECK(rc == 0, "calc model point exit %d", rc);
  CHECK_CONTAINS(out, "(model)");
  CHECK_CONTAINS(out, "resident workgroups          1584         12");
  free(out);
  rc = run_fmt(&out, "%s calc --table --shmem 16K --from %s/h100-grid.csv --json", bin, data);
  CHECK(rc == 0, "calc json exit %d", rc);
  CHECK_CONTAINS(out, "\"schema\": \"vkocc.calc/1\"");
  CHECK_CONTAINS(out, "\"sm_count\": 132");
  free(out);
  /* bad input: clear errors, exit 2 */
  rc = run_fmt(&out, "%s calc --table --from /nonexistent.csv 2>&1", bin);
  CHECK(rc == 2, "missing file exit %d", rc);
  CHECK_CONTAINS(out, "/nonexistent.csv");
  free(out);
  rc = run_fmt(&out, "printf 'wg_size,shared_bytes,P\\n32,0,x\\n' > /tmp/vkocc-bad.csv; %s calc --table --from /tmp/vkocc-bad.csv 2>&1", bin);
  CHECK(rc == 2, "bad csv exit %d", rc);
  CHECK_CONTAINS(out, "/tmp/vkocc-bad.csv:2: P 'x' is not a non-negative integer");
  free(out);
  rc = run_fmt(&out, "%s calc --wg 64 2>&1", bin);
  CHECK(rc == 2, "missing --shmem exit %d", rc);
  free(out);
  rc = run_fmt(&out, "%s calc --table --wg 64 --from %s/h100-grid.csv 2>&1", bin, data);
  CHECK(rc == 2, "--table with --wg exit %d", rc);
  free(out);
  /* a point the device cannot run is refused before the measurement (it took 6 s) */
  time_t t0 = time(NULL);
  rc = run_fmt(&out, "%s calc --wg 4096 --shmem 0 2>&1", bin);
  CHECK(rc == 2, "--wg 4096 on lavapipe: exit %d", rc);
  CHECK_CONTAINS(out, "--wg 4096 is above maxComputeWorkGroupInvocations = 1024");
  free(out);
  rc = run_fmt(&out, "%s calc --wg 64 --shmem 1048576 2>&1", bin);
  CHECK(rc == 2, "--shmem 1 MiB on lavapipe: exit %d", rc);
  CHECK_CONTAINS(out, "--shmem 1048576 is above maxComputeSharedMemorySize");
  free(out);
  CHECK(time(NULL) - t0 < 5, "refusing took %ld s: nothing may be measured first", (long)(time(NULL) - t0));
  /* -o writes the chosen format there and nothing on stdout; -o - is stdout */
  rc = run_fmt(&out, "cd /tmp && %s calc --table --from %s/h100-grid.csv --csv -o vkocc-calc-o.csv && cat vkocc-calc-o.csv"
               " | head -c 20; rm -f vkocc-calc-o.csv", bin, data);
  CHECK(rc == 0 && !strcmp(out, "wg_size,shared_bytes"), "calc --csv -o: the file holds CSV, stdout nothing: '%s'", out);
  free(out);
  rc = run_fmt(&out, "%s calc --table --from %s/h100-grid.csv --csv -o -", bin, data);
  run_fmt(&expected, "cat %s/h100-grid.calc.csv", data);
  CHECK(rc == 0 && !strcmp(out, expected), "calc --csv -o - prints the CSV: %.200s", out);
  free(out), free(expected);
  /* a surface of another device with this device's P: refused, naming the flag that forces it */
  rc = run_fmt(&out, "%s calc --shader %s/../shaders/reduction.comp --from %s/surface-h100.json 2>&1", bin, data, data);
  CHECK(rc == 2, "calc --shader --from another device's surface: exit %d: %s", rc, out);
  CHECK_CONTAINS(out, "measured on NVIDIA H100");
  CHECK_CONTAINS(out, "not on this device llvmpipe");
  CHECK_CONTAINS(out, "--allow-other-device");
  free(out);
  rc = run_fmt(&out, "%s calc --table --from %s/h100-grid.csv --allow-other-device 2>&1", bin, data);
  CHECK(rc == 2 && strstr(out, "--allow-other-device goes with --shader"), "exit %d: %s", rc, out);
  free(out);
  const char *cmds[] = {"surface", "calc", "probe"};
  for (int i = 0; i < 3; i++) {
    rc = run_fmt(&out, "%s %s --help", bin, cmds[i]);
    CHECK(rc == 0 && strstr(out, "usage: vkocc"), "%s --help", cmds[i]);
    free(out);
  }
  return check_report();
}
