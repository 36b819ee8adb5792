/* The register axis on the command line: calc --regs from a register document (synthetic: CUDA's register rule
 * with an H100's properties), its bad input (one line, exit 2, nothing written), and on lavapipe, which reports
 * no register statistic, the "unknown" path (exit 3, said once) and probe --shader's evidence line. */
#include "check.h"
#include "run.h"

int main(int argc, char **argv) {
  if (argc < 4) { fprintf(stderr, "usage: %s VKOCC DATA_DIR SHADER_DIR\n", argv[0]); return 2; }
  const char *bin = argv[1], *data = argv[2], *shaders = argv[3];
  char *out, tmp[] = "/tmp/vkocc-regs-XXXXXX";
  if (!mkdtemp(tmp)) return 1;
  /* the H100 case: 89 registers at wg 256 hold 2 workgroups per SM (264), 80 registers 3 (396) */
  int rc = run_fmt(&out, "%s calc --regs 89 --wg 256 --shmem 256 --from %s/registers-synthetic-h100.json 2>&1", bin, data);
  CHECK(rc == 0, "exit %d", rc);
  CHECK_CONTAINS(out, "resident workgroups: 264 on the device, 2 per SM; occupancy 25.00% of 2048 threads per SM; "
                      "binding limit: registers");
  CHECK_CONTAINS(out, "workgroups per SM by limit: workgroup slots 32, subgroup slots 8, shared memory 400, registers 2");
  CHECK_CONTAINS(out, "registers: 65536 per SM");
  CHECK_CONTAINS(out, "in units of 256 (8 per invocation), 4 partitions");
  free(out);
  rc = run_fmt(&out, "%s calc --regs 80 --wg 256 --shmem 15616 --from %s/registers-synthetic-h100.json --json", bin, data);
  CHECK(rc == 0, "exit %d", rc);
  CHECK_CONTAINS(out, "\"workgroups\": 396");
  CHECK_CONTAINS(out, "\"limit\": \"registers\""); /* 102400 shared bytes per SM: 6 by shared memory */
  free(out);
  rc = run_fmt(&out, "%s calc --regs 64 --table --from %s/registers-synthetic-h100.json --csv 2>&1", bin, data);
  CHECK(rc != 0, "--csv is not a --regs option (exit %d)", rc);
  free(out);
  rc = run_fmt(&out, "%s calc --regs 32 --suggest-wg --shared-per-thread 64 --from %s/registers-synthetic-h100.json", bin,
               data);
  CHECK(rc == 0, "exit %d", rc);
  CHECK_CONTAINS(out, "suggested workgroup size:");
  free(out);
  /* bad input: one line, exit 2, nothing written */
  const char *bad[] = {"--regs 0 --wg 64", "--regs abc --wg 64", "--regs 300 --wg 64", "--regs -5 --wg 64",
                       "--regs 40", "--regs 40 --wg 64 --table"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    rc = run_fmt(&out, "%s calc %s --from %s/registers-synthetic-h100.json -o %s/o.json 2>&1", bin, bad[i], data, tmp);
    CHECK(rc == 2, "'%s': exit %d", bad[i], rc);
    CHECK(strchr(out, '\n') == out + strlen(out) - 1, "one line: %s", out);
    free(out);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "test -e %s/o.json", tmp);
    CHECK(system(cmd) != 0, "'%s' wrote its output", bad[i]);
  }
  rc = run_fmt(&out, "%s calc --regs 40 --wg 64 --from %s/registers-conflict.json 2>&1", bin, data);
  CHECK(rc == 2, "conflicting points: exit %d", rc);
  CHECK_CONTAINS(out, "conflicting points");
  free(out);
  /* a fingerprint of schema 2 that carries the register axis */
  rc = run_fmt(&out, "%s calc --regs 89 --wg 256 --shmem 256 --from %s/fp-h100-v2-registers.json 2>&1", bin, data);
  CHECK(rc == 0, "fingerprint with registers: exit %d", rc);
  CHECK_CONTAINS(out, "resident workgroups: 264 on the device, 2 per SM");
  free(out);
  /* one of schema 1 (no register axis): one line, exit 2 */
  rc = run_fmt(&out, "%s calc --regs 40 --wg 64 --from %s/../../docs/results/h100/fingerprint/fingerprint-1.json 2>&1",
               bin, data);
  CHECK(rc == 2, "old fingerprint: exit %d", rc);
  CHECK_CONTAINS(out, "holds no register axis");
  free(out);
  rc = run_fmt(&out, "%s calc --regs 40 --wg 64 --from %s/h100-grid.csv 2>&1", bin, data);
  CHECK(rc == 2, "a surface without registers: exit %d", rc);
  CHECK_CONTAINS(out, "holds no register axis");
  free(out);
  /* lavapipe: no register statistic */
  rc = run_fmt(&out, "%s surface --registers -o %s/r.json 2>&1", bin, tmp);
  CHECK(rc == 3, "surface --registers on lavapipe: exit %d", rc);
  CHECK_CONTAINS(out, "the register axis is unknown");
  CHECK(strchr(out, '\n') == out + strlen(out) - 1, "said once: %s", out);
  free(out);
  rc = run_fmt(&out, "%s calc --regs 40 --wg 64 2>&1", bin);
  CHECK(rc == 3, "calc --regs live on lavapipe: exit %d", rc);
  CHECK_CONTAINS(out, "the register axis is unknown");
  free(out);
  rc = run_fmt(&out, "%s probe --shader %s/regpressure.comp --spec 0=64 --spec 1=32 --no-cache --method comb --json", bin,
               shaders);
  CHECK(rc == 0, "probe --shader exit %d", rc);
  CHECK_CONTAINS(out, "\"evidence\": \"measured: the driver reports no statistics to compare\"");
  CHECK_CONTAINS(out, "\"register_model\": {\n    \"known\": false\n  }");
  free(out);
  /* the register probe personality itself (256 values live: the largest module) goes through the augmentation and
   * measures lavapipe's 2 worker threads */
  rc = run_fmt(&out, "%s probe --shader %s/../../shaders/registers.comp --spec 0=64 --spec 1=256 --no-cache --method comb",
               bin, shaders);
  CHECK(rc == 0, "register probe: exit %d", rc);
  CHECK_CONTAINS(out, "P = 2 (the pipeline as written: measured: the driver reports no statistics to compare)");
  free(out);
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf %s", tmp);
  if (system(cmd)) {}
  return check_report();
}
