#include "cli.h"
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *help =
    "usage: vkocc surface [--wg LIST|RANGE] [--shmem LIST|RANGE] [--method comb|bisect|both] [--repeat K]\n"
    "                     [--no-refine] [--full] [--table] [-o FILE] [--json] [--device D|all] [--queue Q]\n"
    "                     [--no-shader-clock]\n"
    "Measures occupancy P over a grid and derives the SM count and per-SM limits.\n"
    "Default grid: workgroup sizes from the subgroup size to maxComputeWorkGroupInvocations in steps of\n"
    "the subgroup size; shared memory 0, 1 KiB, 2 KiB and eighths of maxComputeSharedMemorySize, refined\n"
    "(bisected to 512 bytes) wherever neighbouring points differ. LIST: 32,64,128; RANGE: 32-1024:32;\n"
    "shared sizes take K suffixes. Pipelines are created up front, in parallel, through a pipeline cache\n"
    "kept in the XDG cache directory. -o writes the surface JSON (schema vkocc.surface/1).\n"
    "Adaptive by default (docs/surface-speed.md): the axes, every row's step and a sample of check points are\n"
    "measured, the rest predicted by the model and marked (JSON \"predicted\": true, '~' in the table); a\n"
    "check that disagrees makes its row and column measured. --full measures every point.\n"
    "On a terminal the table merges consecutive workgroup sizes whose rows are equal (\"64-256\"); --table, or\n"
    "output to a pipe or file, prints every row.\n"
    "--device all: every device at once, each on its own thread; -o DIR/PREFIX writes PREFIX-N.json per device\n"
    "and PREFIX-summary.json.\n"
    "       vkocc surface --shader FILE --vary ID=V1,V2,... [--vary ...] [--spec ID=V]... [--entry NAME]\n"
    "                     [--define NAME=VALUE]... [-o FILE] [--json]\n"
    "Your own pipeline's P over every combination of specialization constants (e.g. workgroup size and a\n"
    "shared-array length); -o writes schema vkocc.shader-surface/1. Where P as written needs the per-SM model\n"
    "(the driver's statistics differ from the augmented pipeline's) and the cache has none, it is measured once\n"
    "(the fingerprint, and the register file where registers differ; cached) and recorded as \"model\".\n"
    "       vkocc surface --registers [--wg LIST] [--live LIST] [--from FILE] [-o FILE] [--json]\n"
    "The register file (registers per SM, allocation unit, most per invocation): see surface --registers --help.\n";

/* The P table: rows = workgroup sizes, columns = shared sizes of the ladder (refined points listed apart); on a
 * terminal (table false) equal consecutive rows merged into ranges. */
static void print_table(const vkocc_surface *sp, bool table) {
  const vkocc_surface s = *sp;
  printf("P at each (workgroup size, shared bytes) of the ladder; * where repetitions or methods disagree, ~ where "
         "predicted (not measured)\n");
  uint32_t cols[64], nc = 0;
  for (uint32_t i = 0; i < s.count && nc < 64; i++) {
    if (s.points[i].refined || s.points[i].wg_size != s.points[0].wg_size) continue;
    cols[nc++] = s.points[i].shared_bytes;
  }
  printf("%*s", !table && isatty(STDOUT_FILENO) ? 9 : 6, "wg");
  for (uint32_t j = 0; j < nc; j++) printf(" %7u", cols[j]);
  printf("\n");
  /* rows: [start, end) ranges of points with one workgroup size; on a terminal equal rows are merged */
  bool merge = !table && isatty(STDOUT_FILENO);
  uint32_t merged = 0;
  for (uint32_t i = 0; i < s.count;) {
    uint32_t w = s.points[i].wg_size, a = i;
    while (i < s.count && s.points[i].wg_size == w) i++;
    uint32_t last_w = w, end = i;
    while (merge && end < s.count) { /* the next row equal to this one (ladder P and marks)? */
      uint32_t b = end, w2 = s.points[b].wg_size, x = a, y = b;
      bool same = true;
      for (;; x++, y++) {
        while (x < i && s.points[x].refined) x++;
        while (y < s.count && s.points[y].wg_size == w2 && s.points[y].refined) y++;
        bool xe = x >= i, ye = y >= s.count || s.points[y].wg_size != w2;
        if (xe || ye) { same = xe && ye; break; }
        if (s.points[x].P != s.points[y].P || !s.points[x].agree || !s.points[y].agree ||
            s.points[x].shared_bytes != s.points[y].shared_bytes) { same = false; break; }
      }
      if (!same) break;
      while (end < s.count && s.points[end].wg_size == w2) end++;
      last_w = w2;
      merged++;
    }
    char label[24];
    if (last_w != w) snprintf(label, sizeof label, "%u-%u", w, last_w);
    else snprintf(label, sizeof label, "%u", w);
    printf("%*s", merge ? 9 : 6, label);
    for (uint32_t k = a, col = 0; k < i; k++) {
      if (s.points[k].refined) continue;
      /* a merged cell is '~' only when every row of the range predicted it */
      bool predicted = s.points[k].predicted;
      for (uint32_t r = i, c2 = 0; predicted && r < end; r++) {
        if (r > i && s.points[r].wg_size != s.points[r - 1].wg_size) c2 = 0;
        if (s.points[r].refined) continue;
        if (c2++ == col) predicted = s.points[r].predicted;
      }
      col++;
      printf(" %6u%s", s.points[k].P, predicted ? "~" : s.points[k].agree ? " " : "*");
    }
    printf("\n");
    i = end;
  }
  if (merged) printf("(%u rows equal to the one above merged into ranges; --table prints every row)\n", merged);
}

static const char *help_text_of(bool registers) { return registers ? cli_surface_registers_help : help; }

int cmd_surface(cli_run *run, int argc, char **argv) {
  cli_common c = {.run = run};
  vkocc_surface_options o = {0};
  const char *out_path = NULL;
  uint32_t *wg = NULL, *sh = NULL;
  /* --registers: another measurement (cli/registers.c), its own options (--live, --from) in the same table, so
   * one parse decides it; the grid's options do not go with it */
  enum { OPT_REGISTERS = 3100, OPT_LIVE, OPT_FROM };
  static const struct option opts[] = {
      CLI_DEVICE_OPTIONS, CLI_JSON_OPTION, CLI_OUTPUT_OPTION, CLI_METHOD_OPTION, {"wg", required_argument, 0, 'w'},
      {"shmem", required_argument, 0, 's'}, {"repeat", required_argument, 0, 'r'}, {"no-refine", no_argument, 0, 'N'}, {"full", no_argument, 0, 'F'},
      {"table", no_argument, 0, 'T'},
      {"help", no_argument, 0, 'h'}, CLI_SHADER_OPTIONS,
      {"vary", required_argument, 0, CLI_OPT_VARY}, {"registers", no_argument, 0, OPT_REGISTERS},
      {"live", required_argument, 0, OPT_LIVE}, {"from", required_argument, 0, OPT_FROM}, {0}};
  int ch, rc = 0;
  cli_shader sho = {0};
  bool table = false, help = false;
  cli_surface_registers_args ra = {0};
  const char *grid_only = NULL, *registers_only = NULL; /* the first option of one form given */
  while ((ch = getopt_long(argc, argv, "hd:o:", opts, NULL)) != -1) {
    switch (ch) {
    case 'N': o.no_refine = true, grid_only = "--no-refine"; break;
    case 'F': o.full = true, grid_only = "--full"; break;
    case 'T': table = true, grid_only = "--table"; break;
    case 'w':
      free(wg);
      if (!cli_parse_list(optarg, false, &wg, &o.wg_count) || !o.wg_count || wg[0] == 0) {
        rc = cli_error("surface", 2, "--wg '%s': expected positive integers, e.g. 32,64 or 32-1024:32", optarg);
        goto out;
      }
      o.wg_sizes = wg;
      break;
    case 's':
      free(sh);
      if (!cli_parse_list(optarg, true, &sh, &o.shared_count)) {
        rc = cli_error("surface", 2, "--shmem '%s': expected byte counts, e.g. 0,16K,48K or 0-48K:4K", optarg);
        goto out;
      }
      o.shared = sh, grid_only = "--shmem";
      break;
    case 'r':
      if (!cli_parse_u32(optarg, false, &o.repeat) || o.repeat < 1 || o.repeat > VKOCC_MAX_REPEAT) {
        rc = cli_error("surface", 2, "--repeat '%s': expected an integer 1..%d", optarg, VKOCC_MAX_REPEAT);
        goto out;
      }
      grid_only = "--repeat";
      break;
    case OPT_REGISTERS: ra.registers = true; break;
    case OPT_LIVE:
      free(ra.live);
      if (!cli_parse_list(optarg, false, &ra.live, &ra.nlive) || !ra.nlive || ra.live[ra.nlive - 1] > 256) {
        rc = cli_error("surface", 2, "--live '%s': expected values 0..256, e.g. 0-256:8", optarg);
        goto out;
      }
      registers_only = "--live";
      break;
    case OPT_FROM: ra.from = optarg, registers_only = "--from"; break;
    case 'h': help = true; break;
    default:
      if ((rc = cli_common_option("surface", ch, optarg, &c)) == 0) break;
      if (rc < 0 && (rc = cli_shader_option("surface", ch, optarg, &sho)) == 0) { grid_only = "--shader"; break; }
      if (rc < 0) rc = cli_usage_error(help_text_of(ra.registers));
      goto out;
    }
  }
  if (help) { fputs(help_text_of(ra.registers), stdout); goto out; }
  if (ra.registers && grid_only) { rc = cli_error("surface", 2, "%s does not go with --registers", grid_only); goto out; }
  if (!ra.registers && registers_only) { rc = cli_error("surface", 2, "%s goes with --registers", registers_only); goto out; }
  if (ra.registers) {
    if (optind < argc) { rc = cli_error("surface", 2, "unexpected argument '%s'", argv[optind]); goto out; }
    ra.wg = wg, ra.nwg = o.wg_count;
    rc = cli_surface_registers(&c, &ra);
    goto out;
  }
  if (optind < argc) { rc = cli_error("surface", 2, "unexpected argument '%s'", argv[optind]); goto out; }
  o.method = c.method;
  out_path = c.output;
  if ((rc = cli_check_output("surface", "-o", out_path))) goto out;
  if (sho.path || sho.nvary) { /* the user's own surface over specialization constants */
    if (!sho.path) { rc = cli_error("surface", 2, "--vary goes with --shader"); goto out; }
    if (wg || sh) { rc = cli_error("surface", 2, "--shader sweeps --vary constants: drop --wg and --shmem"); goto out; }
    rc = cli_surface_shader("surface", &c, &sho, &(vkocc_probe_options){.method = o.method ? o.method
                            : VKOCC_METHOD_COMB, .repeat = o.repeat}, out_path);
    goto out;
  }
  if (c.device && !strcmp(c.device, "all")) { rc = cli_all_devices("surface", &c, &o, out_path); goto out; }
  if (cli_is_tty()) o.progress = cli_progress;
  double t0 = vkocc_now_ms();
  vkocc_context *ctx;
  if ((rc = cli_open("surface", &c, &ctx))) goto out;
  double startup_ms = vkocc_now_ms() - t0;
  /* the grid against the device's limits before the calibration, not after it */
  const vkocc_device_info *dev = vkocc_context_device(ctx);
  vkocc_status st = VKOCC_OK;
  for (uint32_t i = 0; i < o.wg_count && !st; i++) st = vkocc_probe_check_point(dev, wg[i], 0);
  for (uint32_t i = 0; i < o.shared_count && !st; i++) st = vkocc_probe_check_point(dev, 1, sh[i]);
  if (!st && (o.method & VKOCC_METHOD_COMB) && !vkocc_context_has_device_clock(ctx))
    st = vkocc_fail(VKOCC_ERROR_UNSUPPORTED, "--method %s needs the realtime shader clock, which %s lacks here; "
                    "use --method bisect", vkocc_method_name(o.method), dev->name);
  if (st) { rc = cli_fail("surface", st); goto out; }
  vkocc_calibration cal;
  vkocc_calibrate_options co;
  vkocc_calibrate_preset(VKOCC_CALIBRATION_QUICK, &co);
  vkocc_surface s;
  st = vkocc_calibrate(ctx, &co, &cal);
  if (!st) st = vkocc_surface_measure(ctx, &cal, &o, &s);
  if (st) { rc = cli_fail("surface", st); goto out; }
  vkocc_derived d;
  bool derived = vkocc_derive(s.points, s.count, s.subgroup_size, &d) == VKOCC_OK;
  json_t *doc = vkocc_surface_document(&s, &cal, derived ? &d : NULL, startup_ms);
  if (out_path && (st = cli_json_write(doc, out_path))) {
    json_decref(doc);
    vkocc_surface_free(&s);
    rc = cli_fail("surface", st);
    goto out;
  }
  if (c.json) {
    rc = cli_emit_json("surface", doc, NULL);
    vkocc_surface_free(&s);
    goto out;
  }
  json_t *vendor_line = json_incref(json_object_get(doc, "vendor_reported"));
  json_decref(doc);
  /* human table: rows = workgroup sizes, columns = shared sizes of the ladder (refined points listed apart) */
  uint32_t nref = 0;
  for (uint32_t i = 0; i < s.count; i++) nref += s.points[i].refined;
  printf("device: %s  (%u points, %u of them refinements, %u measured; pipelines %.0f ms%s, measurement %.0f ms, "
         "start-up %.0f ms)\n", s.device.name, s.count, nref, s.measured, s.pipelines_ms,
         s.cache_warm ? " with a warm cache" : " with a cold cache", s.measure_ms, startup_ms);
  char qt[96];
  cli_queue_text(&s.device, qt, sizeof qt);
  printf("%s\n", qt);
  print_table(&s, table);
  if (derived) {
    cli_print_derived("derived: ", &d, NULL);
    for (uint32_t i = 0; i < d.n_unexplained; i++)
      printf("  not explained: wg %u, %u bytes: P %u\n", s.points[d.unexplained[i]].wg_size,
             s.points[d.unexplained[i]].shared_bytes, s.points[d.unexplained[i]].P);
  }
  cli_print_vendor_check("vendor: ", vendor_line);
  json_decref(vendor_line);
  vkocc_surface_free(&s);
out:
  cli_shader_free(&sho);
  free(ra.live);
  free(wg);
  free(sh);
  return rc;
}
