#include "cli.h"
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static const char *help =
    "usage: vkocc probe --wg N --shmem BYTES [--method comb|bisect|both] [--repeat K] [--json]\n"
    "                   [--raw FILE] [-o FILE] [--sleep-us US] [--device D] [--queue Q] [--no-shader-clock]\n"
    "Measures occupancy P (workgroups resident at once) at one workgroup size and shared-memory size:\n"
    "  comb    sleeping workgroups record start/end on the realtime clock; P = most overlapping sleeps\n"
    "  bisect  double the dispatch until the runtime steps up by a wave, bisect to the step (P+1);\n"
    "          queue timestamps only (a pointer chase replaces the sleep without a shader clock)\n"
    "Default: both where the device clock exists, else bisect. --shmem takes bytes or K/KiB.\n"
    "       vkocc probe --shader FILE [--entry NAME] [--spec ID=VALUE]... [--define NAME=VALUE]...\n"
    "                   [--from SURFACE [--allow-other-device]] [--no-cache] [--method ...] [--repeat K] [--unmodified] [--json] [-o FILE]\n"
    "                   [--augmentation auto|compact|unrolled|small|clock-only|rolled]\n"
    "P of your own compute pipeline (GLSL .comp/.glsl, HLSL .hlsl, SPIR-V .spv), measured on the pipeline\n"
    "itself (docs/shader.md); with --from a surface or fingerprint: per SM and the limit that binds. Without\n"
    "--from the device's cached fingerprint and register model serve; where P as written needs them and the cache\n"
    "has none they are measured (as vkocc fingerprint does; cached; said on a terminal, \"model\" in the document).\n"
    "A --from file another device or driver measured (by deviceUUID and driver) is refused: its limits and this\n"
    "device's P give no answer for either; --allow-other-device combines them anyway.\n"
    "--unmodified: the pipeline as written, by dispatch bisection on its own runtime (its workgroups need a\n"
    "regular workload of tens of microseconds or more; no shader clock needed).\n"
    "--augmentation: how the estimator added to the pipeline sleeps (default auto: compact on GPUs, unrolled\n"
    "on CPU devices); where it changes the driver's statistics, the other variants are tried and one that keeps\n"
    "the written ones measures P.\n"
    "--raw FILE writes the last comb's start and end times (ns) as JSON for plotting; -o FILE the probe\n"
    "document (schema vkocc.probe/1) that --json prints.\n";

int cmd_probe(cli_run *run, int argc, char **argv) {
  cli_common c = {.run = run};
  vkocc_probe_options o = {0};
  const char *raw = NULL;
  bool have_wg = false, have_shm = false;
  static const struct option opts[] = {
      CLI_DEVICE_OPTIONS, CLI_JSON_OPTION, CLI_OUTPUT_OPTION, CLI_METHOD_OPTION, {"wg", required_argument, 0, 'w'},
      {"shmem", required_argument, 0, 's'}, {"repeat", required_argument, 0, 'r'}, {"raw", required_argument, 0, 'R'},
      {"sleep-us", required_argument, 0, 'S'}, {"help", no_argument, 0, 'h'}, CLI_SHADER_OPTIONS, CLI_ALLOW_OTHER_DEVICE_OPTION,
      {"from", required_argument, 0, CLI_OPT_FROM}, {"no-cache", no_argument, 0, 'C'},
      {"unmodified", no_argument, 0, CLI_OPT_UNMODIFIED}, {"augmentation", required_argument, 0, 'A'}, {0}};
  int ch;
  uint32_t v;
  cli_shader sho = {0};
  bool no_cache = false, augmentation = false;
  while ((ch = getopt_long(argc, argv, "hd:o:", opts, NULL)) != -1) {
    switch (ch) {
    case 'w':
      if (!cli_parse_u32(optarg, false, &o.wg_size) || o.wg_size == 0)
        return cli_error("probe", 2, "--wg '%s': expected a positive integer", optarg);
      have_wg = true;
      break;
    case 's':
      if (!cli_parse_u32(optarg, true, &o.shared_bytes))
        return cli_error("probe", 2, "--shmem '%s': expected bytes (e.g. 16384 or 16K)", optarg);
      have_shm = true;
      break;
    case 'r':
      if (!cli_parse_u32(optarg, false, &v) || v < 1 || v > VKOCC_MAX_REPEAT)
        return cli_error("probe", 2, "--repeat '%s': expected an integer 1..%d", optarg, VKOCC_MAX_REPEAT);
      o.repeat = v;
      break;
    case 'R': raw = optarg; o.keep_raw = true; break;
    case 'S': {
      double us;
      if (!cli_parse_double(optarg, 1, 50000, &us))
        return cli_error("probe", 2, "--sleep-us '%s': expected a number 1..50000", optarg);
      o.sleep_ns = us * 1e3;
      break;
    }
    case 'h': fputs(help, stdout); return 0;
    case 'C': no_cache = true; break;
    case 'A':
      if (vkocc_augmentation_check(optarg)) return cli_error("probe", 2, "--%s", vkocc_last_error());
      o.augmentation = optarg;
      augmentation = true;
      break;
    case CLI_OPT_UNMODIFIED: sho.unmodified = true; break;
    default: {
      int rc = cli_common_option("probe", ch, optarg, &c);
      if (rc == 0) break;
      if (rc < 0) rc = cli_shader_option("probe", ch, optarg, &sho);
      if (rc == 0) break;
      if (rc > 0) return rc;
      return cli_usage_error(help);
    }
    }
  }
  if (optind < argc) return cli_error("probe", 2, "unexpected argument '%s'", argv[optind]);
  o.method = c.method;
  if (sho.path) {
    if (have_wg || have_shm || raw) return cli_error("probe", 2, "--shader takes its workgroup and shared sizes from "
                                                     "the shader: drop --wg, --shmem and --raw");
    if (sho.unmodified && augmentation)
      return cli_error("probe", 2, "--unmodified measures the pipeline as written: drop --augmentation");
    if (sho.unmodified && o.method && o.method != VKOCC_METHOD_BISECT)
      return cli_error("probe", 2, "--unmodified measures by dispatch bisection only: drop --method %s",
                       vkocc_method_name(o.method));
    return cli_probe_shader("probe", &c, &sho, &o, !no_cache);
  }
  if (sho.unmodified) return cli_error("probe", 2, "--unmodified goes with --shader");
  if (augmentation) return cli_error("probe", 2, "--augmentation goes with --shader");
  if (sho.entry || sho.nspec || sho.ndefines || sho.from || no_cache || sho.allow_other_device)
    return cli_error("probe", 2, "--entry, --spec, --define, --from, --allow-other-device and --no-cache go with "
                     "--shader");
  if (!have_wg || !have_shm) return cli_error("probe", 2, "--wg and --shmem are required (see --help)");
  int rc = cli_check_output("probe", "--raw", raw);
  if (!rc) rc = cli_check_output("probe", "-o", c.output);
  if (rc) return rc;
  vkocc_context *ctx;
  if ((rc = cli_open("probe", &c, &ctx))) return rc;
  const vkocc_device_info *d = vkocc_context_device(ctx);
  vkocc_status s = vkocc_probe_check_point(d, o.wg_size, o.shared_bytes);
  if (s) { return cli_fail("probe", s); }
  if (raw && !(o.method ? o.method & VKOCC_METHOD_COMB : vkocc_context_has_device_clock(ctx))) {
    return cli_error("probe", 2, "--raw needs the comb (the realtime shader clock)");
  }
  if ((o.method & VKOCC_METHOD_COMB) && !vkocc_context_has_device_clock(ctx)) { /* before the calibration */
    rc = cli_error("probe", 3, "--method %s needs the realtime shader clock, which %s lacks here; use --method "
                   "bisect", vkocc_method_name(o.method), d->name);
    return rc;
  }
  vkocc_calibration cal;
  vkocc_calibrate_options co;
  vkocc_calibrate_preset(VKOCC_CALIBRATION_QUICK, &co);
  if ((s = vkocc_calibrate(ctx, &co, &cal))) { return cli_fail("probe", s); }
  vkocc_probe_result r;
  if ((s = vkocc_probe(ctx, &cal, &o, &r))) { return cli_fail("probe", s); }
  if ((raw && (s = vkocc_raw_probe_save(d, &r, raw))) || (c.output && (s = vkocc_probe_save(d, &r, c.output)))) {
    vkocc_probe_result_free(&r);
    return cli_fail("probe", s);
  }
  if (c.json) {
    s = vkocc_probe_save(d, &r, "-");
    bool agree = r.agree;
    vkocc_probe_result_free(&r);
    /* the same exit as text mode: vkocc_probe fails with "could not establish P" where methods or
     * repetitions keep disagreeing, so agree is true here; kept as a guard */
    return s ? cli_fail("probe", s) : agree ? 0 : 1;
  }
  printf("device: %s\npoint:  workgroup %u threads, %u bytes shared\n", d->name, r.wg_size, r.shared_bytes);
  char qt[96];
  cli_queue_text(d, qt, sizeof qt);
  printf("%s\n", qt);
  printf("%-4s %-8s %-8s %-10s %-12s %-12s %s\n", "rep", "comb P", "bisect P", "dispatches", "gpu ms", "wall ms",
         "comb evidence (teeth: heights; first-tooth spread)");
  for (uint32_t i = 0; i < r.repeat; i++) {
    const vkocc_probe_rep *p = &r.reps[i];
    char cp[16] = "-", bp[16] = "-", ev[128] = "";
    if (r.method & VKOCC_METHOD_COMB) {
      snprintf(cp, sizeof cp, "%u", p->comb_P);
      int off = snprintf(ev, sizeof ev, "%u:", p->comb.teeth);
      for (uint32_t t = 0; t < p->comb.teeth && t < 4 && off < (int)sizeof ev; t++)
        off += snprintf(ev + off, sizeof ev - off, " %u", p->comb.tooth_heights[t]);
      if (off < (int)sizeof ev)
        snprintf(ev + off, sizeof ev - off, "%s; %.1f us", p->comb.teeth > 4 ? " ..." : "",
                 p->comb.first_tooth_spread_ns / 1e3);
    }
    if (r.method & VKOCC_METHOD_BISECT) snprintf(bp, sizeof bp, "%u", p->bisect_P);
    printf("%-4u %-8s %-8s %-10u %-12.3f %-12.3f %s\n", i + 1, cp, bp, p->comb_dispatches + p->bisect.dispatches,
           (p->comb_gpu_ns + p->bisect_gpu_ns) / 1e6, (p->comb_wall_ns + p->bisect_wall_ns) / 1e6, ev);
  }
  printf("P = %u", r.P);
  if (r.method & VKOCC_METHOD_COMB) printf("; comb median %u [%u..%u]", r.comb_median, r.comb_min, r.comb_max);
  if (r.method & VKOCC_METHOD_BISECT)
    printf("; bisect median %u [%u..%u]%s", r.bisect_median, r.bisect_min, r.bisect_max,
           r.bisect_by_chase ? " (pointer chase)" : "");
  printf("; %s\ncomb sleep %.1f us, bisect wave %.1f us; floor per repetition (2 waves each) %.3f ms\n",
         r.agree ? "all runs agree" : "RUNS DISAGREE", r.sleep_ns / 1e3, r.bisect_wave_ns / 1e3, r.floor_ns / 1e6);
  vkocc_probe_result_free(&r);
  return r.agree ? 0 : 1;
}
