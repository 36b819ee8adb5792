#include "cli.h"
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static const char *help =
    "usage: vkocc calc --wg N --shmem BYTES [--from FILE] [--json | --csv] [-o FILE] [--device D] [--queue Q]\n"
    "       vkocc calc --table [--shmem BYTES] [--from FILE] [--csv | --json] [-o FILE]\n"
    "       vkocc calc --suggest-wg [--shared-per-thread B] [--shared-base B] [--max-wg N] [--from FILE] [--json]\n"
    "Occupancy calculator. From a live device (a surface is measured) or, with --from, from saved data\n"
    "with no device: any surface vkocc writes (surface, surface --shader --vary, fingerprint, calc -o JSON) or\n"
    "a CSV with the header wg_size,shared_bytes,P (calc --csv output reads back too: 'workgroups' is P).\n"
    "One point: resident workgroups, subgroups and threads on the whole device and per SM, occupancy in\n"
    "percent of the per-SM thread maximum, the limit that binds, and the workgroups per SM each limit\n"
    "allows (workgroup slots, subgroup slots, threads, shared memory; registers are not known in Vulkan).\n"
    "--table: the listing for every workgroup size at --shmem (default: the points of the --from file, else\n"
    "0 bytes): occupancy, workgroups, subgroups and threads per SM, then P (resident workgroups, whole device). --csv: the same columns as the JSON rows, for one point or the table. -o FILE writes the chosen format\n"
    "(the JSON document, schema vkocc.calc/1, unless --csv) there instead of standard output; -o - is stdout.\n"
    "Each row says where its P comes from (source: measured, predicted by an adaptive surface, or model) and,\n"
    "where the occupancy is not exact, what it is (occupancy_bound: at_most where the per-SM thread maximum is a\n"
    "lower bound, estimate where the limit that binds is a lower bound; text: '<=' and '~'); it is never above 100%.\n"
    "--suggest-wg: the workgroup size (a multiple of the subgroup size up to --max-wg, default the device's\n"
    "largest, 1024 when the file does not record the device) with the highest occupancy when a workgroup of W threads needs --shared-base + W x --shared-per-thread\n"
    "shared bytes; ties go to the larger size (the counterpart of cudaOccupancyMaxPotentialBlockSize).\n"
    "--subgroup-size N overrides the subgroup size a CSV cannot carry (default: inferred).\n"
    "       vkocc calc --shader FILE [--entry NAME] [--spec ID=VALUE]... [--define NAME=VALUE]... [--from FILE]\n"
    "                  [--method M] [--allow-other-device] [--json] [-o FILE]\n"
    "P of your own pipeline, measured live (cached; --method as for probe, default comb); with --from: per SM\n"
    "and the limit that binds. A --from file another device or driver measured (deviceUUID, driver) is refused;\n"
    "--allow-other-device combines them anyway.\n"
    "       vkocc calc --regs R (--wg N [--shmem B] | --table | --suggest-wg) [--from REGISTERS.json]\n"
    "With registers per invocation: the register file as a fourth limit (see calc --regs 1 --help).\n";

static const char *regs_help =
    "usage: vkocc calc --regs R --wg N [--shmem BYTES] [--from FILE] [--json] [-o FILE] [--device D] [--queue Q]\n"
    "       vkocc calc --regs R --table [--shmem BYTES] [--from FILE] [--json]\n"
    "       vkocc calc --regs R --suggest-wg [--shared-per-thread B] [--shared-base B] [--max-wg N] [--from FILE]\n"
    "The calculator with registers: R registers per invocation (as the driver's statistics or your compiler report\n"
    "them). Resident workgroups, occupancy and the workgroups per SM each limit allows (workgroup slots, subgroup\n"
    "slots, shared memory, registers), naming the one that binds. The register file comes from --from (a\n"
    "vkocc.registers document of `vkocc surface --registers`) or the device's cache (measured there when absent);\n"
    "the other limits from that document, or the device's cached fingerprint.\n"
    "R must be 1 .. the most registers an invocation gets; a device without a register statistic: exit 3.\n";

/* A live surface just dense enough to derive from: every multiple of the subgroup size up to 8 of them,
 * then about 25% steps, always the maximum; the default shared-memory ladder, refined. */
static int measure_live(const cli_common *c, vkocc_surface *s, uint32_t want_wg, uint32_t want_shm) {
  vkocc_context *ctx;
  int rc = cli_open("calc", c, &ctx);
  if (rc) return rc;
  const vkocc_device_info *d = vkocc_context_device(ctx);
  /* the asked point against the device's limits now, not after seconds of measuring; the message names the flag */
  uint32_t max_wg = vkocc_device_max_wg_size(d);
  if (want_wg > max_wg || want_shm > d->max_shared_bytes) {
    rc = want_wg > max_wg
             ? cli_error("calc", 2, "--wg %u is above %s = %u of %s", want_wg,
                         max_wg == d->max_invocations ? "maxComputeWorkGroupInvocations" : "maxComputeWorkGroupSize[0]",
                         max_wg, d->name)
             : cli_error("calc", 2, "--shmem %u is above maxComputeSharedMemorySize = %u of %s", want_shm,
                         d->max_shared_bytes, d->name);
    return rc;
  }
  uint32_t sg = d->subgroup_size ? d->subgroup_size : 32, maxwg = max_wg, wg[256], n = 0;
  for (uint32_t k = 1; k * sg <= maxwg && n < 255; k = k < 8 ? k + 1 : k + k / 4) wg[n++] = k * sg;
  if (wg[n - 1] != maxwg / sg * sg) wg[n++] = maxwg / sg * sg;
  vkocc_surface_options o = {.wg_sizes = wg, .wg_count = n};
  vkocc_calibration cal;
  vkocc_calibrate_options co;
  vkocc_calibrate_preset(VKOCC_CALIBRATION_QUICK, &co);
  vkocc_status st = vkocc_calibrate(ctx, &co, &cal);
  if (!st) st = vkocc_surface_measure(ctx, &cal, &o, s);
  return st ? cli_fail("calc", st) : 0;
}

/* The register model of the device c names: its cache, else measured there (and cached); the other limits from
 * its cached fingerprint, else its cached register document. */
static int registers_live(const cli_common *c, vkocc_calc_model *m) {
  const char *cmd = "calc";
  memset(m, 0, sizeof *m);
  vkocc_context *ctx;
  int rc = cli_open(cmd, c, &ctx);
  if (rc) return rc;
  vkocc_device_info *dev = &m->surface.device;
  *dev = *vkocc_context_device(ctx), m->surface.has_device = true;
  vkocc_status st = VKOCC_OK;
  if (!vkocc_register_model_from_cache(dev, &m->registers)) {
    vkocc_register_point *p = NULL;
    uint32_t n = 0;
    if (!(st = vkocc_register_surface_measure(ctx, NULL, &(vkocc_register_surface_options){0}, &p, &n))) {
      if (!vkocc_register_base(p, n, dev->subgroup_size, &m->derived) &&
          !(st = vkocc_derive_registers(p, n, &m->derived, &m->registers))) {
        json_t *doc = vkocc_register_document(dev, p, n, &m->derived, NULL, &m->registers, NULL);
        if (vkocc_register_cache_store(dev, doc)) vkocc_clear_error();
        json_decref(doc);
      }
      free(p);
    }
  }
  if (st) return cli_fail(cmd, st); /* no register statistic: exit 3, said once */
  vkocc_fingerprint fp;
  vkocc_fingerprint_details det;
  if (vkocc_fingerprint_from_cache(dev, 0, &fp, &det)) {
    m->derived = det.derived;
    snprintf(m->source, sizeof m->source, "the cached fingerprint %s and register model", det.cache_path);
    vkocc_fingerprint_details_free(&det);
    return 0;
  }
  char cache[1024];
  vkocc_register_cache_path(dev, cache, sizeof cache);
  vkocc_register_doc rd;
  /* its base limits only where the document was measured on this queue family (the model serves every one) */
  bool ok = vkocc_register_doc_from_cache(dev, &rd),
       base = ok && rd.has_base && (!rd.has_device || rd.device.compute_queue_family == dev->compute_queue_family);
  if (base) m->derived = rd.base;
  if (ok) vkocc_register_doc_free(&rd);
  if (!base)
    return cli_error(cmd, 1, "calc --regs: no limits of %s: run `vkocc fingerprint` (or surface --registers)",
                     dev->name);
  snprintf(m->source, sizeof m->source, "the cached register document %s", cache);
  return 0;
}

/* The answer in the chosen format: to -o FILE (written whole) or standard output ("-" or no -o). */
static int write_report(const vkocc_calc_report *r, vkocc_calc_format f, const char *output) {
  vkocc_status st;
  if (!output || !strcmp(output, "-")) { /* flushed here: a full disk or a closed pipe is reported now */
    errno = 0;
    st = vkocc_calc_write(r, f, stdout);
    if (st == VKOCC_ERROR_USAGE) return cli_fail("calc", st);
    if (st || fflush(stdout) || ferror(stdout))
      return cli_error("calc", 1, "cannot write to standard output: %s", errno ? strerror(errno) : "write error");
    return 0;
  }
  char *text = NULL;
  size_t len = 0;
  FILE *mem = open_memstream(&text, &len);
  if (!mem) return cli_error("calc", 1, "out of memory");
  st = vkocc_calc_write(r, f, mem);
  fclose(mem);
  if (!st) st = vkocc_write_file_atomic(output, text, len);
  free(text);
  return st ? cli_fail("calc", st) : 0;
}

int cmd_calc(cli_run *run, int argc, char **argv) {
  cli_common c = {.run = run};
  const char *from = NULL, *regs_arg = NULL;
  bool table = false, csv = false, have_wg = false, have_shm = false, suggest = false, have_rule = false;
  uint32_t wg = 0, shm = 0, sg_override = 0, max_wg = 0, base = 0, per_thread = 0, regs = 0;
  enum { OPT_SUGGEST = 3000, OPT_PER_THREAD, OPT_BASE, OPT_MAX_WG, OPT_REGS };
  static const struct option opts[] = {
      CLI_DEVICE_OPTIONS, CLI_JSON_OPTION, CLI_OUTPUT_OPTION, CLI_METHOD_OPTION, {"csv", no_argument, 0, 'c'},
      {"wg", required_argument, 0, 'w'}, {"shmem", required_argument, 0, 's'}, {"table", no_argument, 0, 't'},
      {"from", required_argument, 0, 'f'}, {"subgroup-size", required_argument, 0, 'g'},
      {"suggest-wg", no_argument, 0, OPT_SUGGEST}, {"shared-per-thread", required_argument, 0, OPT_PER_THREAD},
      {"shared-base", required_argument, 0, OPT_BASE}, {"max-wg", required_argument, 0, OPT_MAX_WG},
      {"regs", required_argument, 0, OPT_REGS}, {"help", no_argument, 0, 'h'}, CLI_SHADER_OPTIONS, CLI_ALLOW_OTHER_DEVICE_OPTION, {0}};
  int ch, rc;
  bool want_help = false;
  cli_shader sho = {0};
  while ((ch = getopt_long(argc, argv, "hd:o:", opts, NULL)) != -1) {
    switch (ch) {
    case 'c': csv = true; break;
    case 't': table = true; break;
    case 'f': from = optarg; break;
    case OPT_SUGGEST: suggest = true; break;
    case OPT_REGS: regs_arg = optarg; break;
    case 'w':
      if (!cli_parse_u32(optarg, false, &wg) || wg == 0)
        return cli_error("calc", 2, "--wg '%s': expected a positive integer", optarg);
      have_wg = true;
      break;
    case 's':
      if (!cli_parse_u32(optarg, true, &shm))
        return cli_error("calc", 2, "--shmem '%s': expected bytes (e.g. 16384 or 16K)", optarg);
      have_shm = true;
      break;
    case OPT_PER_THREAD:
      if (!cli_parse_u32(optarg, true, &per_thread))
        return cli_error("calc", 2, "--shared-per-thread '%s': expected bytes (e.g. 16)", optarg);
      have_rule = true;
      break;
    case OPT_BASE:
      if (!cli_parse_u32(optarg, true, &base))
        return cli_error("calc", 2, "--shared-base '%s': expected bytes (e.g. 1024 or 1K)", optarg);
      have_rule = true;
      break;
    case OPT_MAX_WG:
      if (!cli_parse_u32(optarg, false, &max_wg) || max_wg == 0 || max_wg > VKOCC_MAX_WG_SIZE)
        return cli_error("calc", 2, "--max-wg '%s': expected an integer 1..%u", optarg, VKOCC_MAX_WG_SIZE);
      break;
    case 'g':
      if (!cli_parse_u32(optarg, false, &sg_override) || sg_override == 0 || sg_override > 256)
        return cli_error("calc", 2, "--subgroup-size '%s': expected an integer 1..256", optarg);
      break;
    case 'h': want_help = true; break;
    default:
      if ((rc = cli_common_option("calc", ch, optarg, &c)) == 0) break;
      if (rc > 0) return rc;
      if ((rc = cli_shader_option("calc", ch, optarg, &sho)) == 0) break;
      if (rc > 0) return rc;
      return cli_usage_error(regs_arg ? regs_help : help);
    }
  }
  if (want_help) { fputs(regs_arg ? regs_help : help, stdout); return 0; }
  if (optind < argc) return cli_error("calc", 2, "unexpected argument '%s'", argv[optind]);
  if (sho.path) { /* one point live: the pipeline's own P, against the --from surface when given */
    if (have_wg || have_shm || table || suggest || regs_arg)
      return cli_error("calc", 2, "--shader takes its point from the shader: drop --wg, --shmem, --table%s and "
                       "--suggest-wg", regs_arg ? ", --regs" : "");
    if (csv || sg_override || have_rule || max_wg) /* none of them applies to a pipeline: refused, never ignored */
      return cli_error("calc", 2, "--csv, --subgroup-size, --shared-per-thread, --shared-base and --max-wg do not go "
                       "with --shader");
    sho.from = from;
    return cli_probe_shader("calc", &c, &sho, &(vkocc_probe_options){.method = c.have_method ? c.method
                            : VKOCC_METHOD_COMB}, true);
  }
  if (c.have_method) return cli_error("calc", 2, "--method goes with --shader (a live surface uses the default)");
  if (sho.allow_other_device) /* calc --from alone combines the file with no device */
    return cli_error("calc", 2, "--allow-other-device goes with --shader");
  if (regs_arg) {
    if (!cli_parse_u32(regs_arg, false, &regs) || regs == 0)
      return cli_error("calc", 2, "--regs '%s': expected registers per invocation, a positive integer", regs_arg);
    if ((int)table + (int)suggest + (int)have_wg != 1)
      return cli_error("calc", 2, "--regs goes with one of --wg N, --table or --suggest-wg (see calc --help with --regs)");
    if (csv || sg_override)
      return cli_error("calc", 2, "--csv and --subgroup-size do not go with --regs");
  } else {
    if (suggest && (have_wg || have_shm || table || csv))
      return cli_error("calc", 2, "--suggest-wg chooses the workgroup size: drop --wg, --shmem, --table and --csv");
    if (!suggest && (have_rule || max_wg))
      return cli_error("calc", 2, "--shared-per-thread, --shared-base and --max-wg go with --suggest-wg");
    if (!suggest && !table && !(have_wg && have_shm))
      return cli_error("calc", 2, "give --wg and --shmem, --table or --suggest-wg (see --help)");
    if (table && have_wg) return cli_error("calc", 2, "--table lists every workgroup size; drop --wg");
  }
  if (csv && c.json) return cli_error("calc", 2, "--csv and --json exclude each other");
  if ((rc = cli_check_output("calc", "-o", c.output))) return rc; /* before a live measurement */

  vkocc_calc_model m;
  vkocc_status st;
  if (regs) {
    if (from && (st = vkocc_calc_model_load_registers(from, &m))) return cli_fail("calc", st);
    if (!from && (rc = registers_live(&c, &m))) return rc;
  } else if (from) {
    if ((st = vkocc_calc_model_load(from, sg_override, &m))) return cli_fail("calc", st);
  } else {
    vkocc_surface s;
    if ((rc = measure_live(&c, &s, have_wg ? wg : 0, have_shm ? shm : 0))) return rc;
    if (sg_override) s.subgroup_size = sg_override;
    if ((st = vkocc_calc_model_from_surface(&s, &m))) return cli_fail("calc", st);
  }
  const vkocc_device_info *dev = m.surface.has_device ? &m.surface.device : NULL;
  uint32_t dev_max_wg = vkocc_calc_max_wg(&m);
  rc = 0;
  if (regs) {
    const vkocc_register_model *rm = &m.registers;
    /* the model is known up to the most registers measured (the driver's cap where more live values gave no more) */
    uint32_t maxr = rm->max_per_invocation ? rm->max_per_invocation
                    : rm->subgroup_size ? rm->regs_per_sm / rm->subgroup_size : UINT32_MAX;
    if (!dev_max_wg) dev_max_wg = 1024;
    if (!rm->known)
      rc = cli_error("calc", 3, "--regs: the register axis of %s is unknown (no register statistic)",
                     dev ? dev->name : from);
    else if (regs > maxr)
      rc = cli_error("calc", 2, "--regs %u is above the most registers an invocation gets on %s (%u%s)", regs,
                     dev ? dev->name : from, maxr, rm->max_capped ? "" : ", the most measured");
    else if (have_wg && wg > dev_max_wg)
      rc = cli_error("calc", 2, "--wg %u is above the largest workgroup of %s (%u)", wg, dev ? dev->name : from,
                     dev_max_wg);
  } else if (sg_override && m.model_only) {
    rc = cli_error("calc", 2, "--subgroup-size: %s holds derived limits for subgroups of %u; drop the option", from,
                   m.derived.subgroup_size);
  } else if (have_wg && dev_max_wg && wg > dev_max_wg) {
    rc = cli_error("calc", 2, "--wg %u is above maxComputeWorkGroupInvocations = %u of %s", wg, dev_max_wg, dev->name);
  }
  if (!rc && have_shm && dev && dev->max_shared_bytes && shm > dev->max_shared_bytes)
    rc = cli_error("calc", 2, "--shmem %u is above maxComputeSharedMemorySize = %u of %s", shm, dev->max_shared_bytes,
                   dev->name);
  if (rc) { vkocc_calc_model_free(&m); return rc; }

  vkocc_calc_report r = {.model = &m, .from = from, .registers = regs};
  vkocc_calc_suggestion sug;
  vkocc_calc_row one, *rows = NULL;
  if (suggest) {
    r.kind = VKOCC_CALC_SUGGESTION, r.suggestion = &sug;
    st = vkocc_calc_suggest(&m, base, per_thread, max_wg, regs, &sug);
  } else if (table) {
    r.kind = VKOCC_CALC_TABLE;
    /* without --shmem, the points of the file */
    st = vkocc_calc_table(&m, from && !have_shm ? VKOCC_CALC_FILE_POINTS : shm, regs, &rows, &r.count);
    r.rows = rows;
  } else {
    r.kind = VKOCC_CALC_POINT, r.rows = &one, r.count = 1;
    vkocc_calc_point(&m, wg, shm, regs, &one);
    st = VKOCC_OK;
  }
  if (st) rc = cli_fail("calc", st);
  else rc = write_report(&r, csv ? VKOCC_CALC_CSV : c.json || c.output ? VKOCC_CALC_JSON : VKOCC_CALC_TEXT, c.output);
  free(rows);
  vkocc_calc_model_free(&m);
  return rc;
}
