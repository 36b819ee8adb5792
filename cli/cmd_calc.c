#include "cli.h"
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
    "0 bytes): occupancy, workgroups, subgroups and threads per SM, then P (resident workgroups, whole device). --csv: the same columns as the JSON rows, for one point or the table. -o FILE writes the JSON\n"
    "document (schema vkocc.calc/1) as --json prints it.\n"
    "--suggest-wg: the workgroup size (a multiple of the subgroup size up to --max-wg, default the device's\n"
    "largest, 1024 when the file does not record the device) with the highest occupancy when a workgroup of W threads needs --shared-base + W x --shared-per-thread\n"
    "shared bytes; ties go to the larger size (the counterpart of cudaOccupancyMaxPotentialBlockSize).\n"
    "--subgroup-size N overrides the subgroup size a CSV cannot carry (default: inferred).\n"
    "       vkocc calc --shader FILE [--entry NAME] [--spec ID=VALUE]... [--define NAME=VALUE]... [--from FILE]\n"
    "                  [--method M] [--json] [-o FILE]\n"
    "P of your own pipeline, measured live (cached; --method as for probe, default comb); with --from: per SM\n"
    "and the limit that binds.\n"
    "       vkocc calc --regs R (--wg N [--shmem B] | --table | --suggest-wg) [--from REGISTERS.json]\n"
    "With registers per invocation: the register file as a fourth limit (see calc --regs 1 --help).\n";

typedef struct { uint32_t wg, shared, P; bool measured; } row;

static int cmp_point(const void *a, const void *b) {
  const vkocc_surface_point *x = a, *y = b;
  if (x->wg_size != y->wg_size) return x->wg_size < y->wg_size ? -1 : 1;
  return (x->shared_bytes > y->shared_bytes) - (x->shared_bytes < y->shared_bytes);
}

/* The measured P at (wg, sh) from points sorted by cmp_point (binary search: a table over a large file
 * stays O(n log n)). */
static bool measured_P(const vkocc_surface_point *sorted, uint32_t n, uint32_t wg, uint32_t sh, uint32_t *P) {
  vkocc_surface_point key = {.wg_size = wg, .shared_bytes = sh};
  const vkocc_surface_point *p = bsearch(&key, sorted, n, sizeof *sorted, cmp_point);
  if (p) *P = p->P;
  return p != NULL;
}

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
    vkocc_context_destroy(ctx);
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
  vkocc_context_destroy(ctx);
  return st ? cli_fail("calc", st) : 0;
}


typedef struct { uint32_t base, per_thread; } shared_rule;
static uint32_t shared_of(void *user, uint32_t wg) {
  const shared_rule *r = user;
  uint64_t b = r->base + (uint64_t)r->per_thread * wg;
  return b > VKOCC_MAX_SHARED_BYTES ? VKOCC_NO_LIMIT : (uint32_t)b;
}

int cli_calc_registers(int argc, char **argv); /* cli/registers.c */
int cmd_calc(int argc, char **argv) {
  for (int i = 1; i < argc; i++) if (!strncmp(argv[i], "--regs", 6)) return cli_calc_registers(argc, argv);
  cli_common c = {0};
  const char *from = NULL;
  bool table = false, csv = false, have_wg = false, have_shm = false, suggest = false, have_rule = false;
  uint32_t wg = 0, shm = 0, sg_override = 0, max_wg = 0;
  shared_rule rule = {0, 0};
  enum { OPT_SUGGEST = 3000, OPT_PER_THREAD, OPT_BASE, OPT_MAX_WG };
  static const struct option opts[] = {
      CLI_DEVICE_OPTIONS, CLI_JSON_OPTION, CLI_OUTPUT_OPTION, CLI_METHOD_OPTION, {"csv", no_argument, 0, 'c'},
      {"wg", required_argument, 0, 'w'}, {"shmem", required_argument, 0, 's'}, {"table", no_argument, 0, 't'},
      {"from", required_argument, 0, 'f'}, {"subgroup-size", required_argument, 0, 'g'},
      {"suggest-wg", no_argument, 0, OPT_SUGGEST}, {"shared-per-thread", required_argument, 0, OPT_PER_THREAD},
      {"shared-base", required_argument, 0, OPT_BASE}, {"max-wg", required_argument, 0, OPT_MAX_WG},
      {"help", no_argument, 0, 'h'}, CLI_SHADER_OPTIONS, {0}};
  int ch, rc;
  cli_shader sho = {0};
  while ((ch = getopt_long(argc, argv, "hd:o:", opts, NULL)) != -1) {
    switch (ch) {
    case 'c': csv = true; break;
    case 't': table = true; break;
    case 'f': from = optarg; break;
    case OPT_SUGGEST: suggest = true; break;
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
      if (!cli_parse_u32(optarg, true, &rule.per_thread))
        return cli_error("calc", 2, "--shared-per-thread '%s': expected bytes (e.g. 16)", optarg);
      have_rule = true;
      break;
    case OPT_BASE:
      if (!cli_parse_u32(optarg, true, &rule.base))
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
    case 'h': fputs(help, stdout); return 0;
    default:
      if ((rc = cli_common_option("calc", ch, optarg, &c)) == 0) break;
      if (rc > 0) return rc;
      if ((rc = cli_shader_option("calc", ch, optarg, &sho)) == 0) break;
      if (rc > 0) return rc;
      return cli_usage_error(help);
    }
  }
  if (optind < argc) return cli_error("calc", 2, "unexpected argument '%s'", argv[optind]);
  if (sho.path) { /* one point live: the pipeline's own P, against the --from surface when given */
    if (have_wg || have_shm || table || suggest)
      return cli_error("calc", 2, "--shader takes its point from the shader: drop --wg, --shmem, --table and "
                       "--suggest-wg");
    if (csv || sg_override || have_rule || max_wg) /* none of them applies to a pipeline: refused, never ignored */
      return cli_error("calc", 2, "--csv, --subgroup-size, --shared-per-thread, --shared-base and --max-wg do not go "
                       "with --shader");
    sho.from = from;
    return cli_probe_shader("calc", &c, &sho, &(vkocc_probe_options){.method = c.have_method ? c.method
                            : VKOCC_METHOD_COMB}, true);
  }
  if (c.have_method) return cli_error("calc", 2, "--method goes with --shader (a live surface uses the default)");
  if (suggest && (have_wg || have_shm || table || csv))
    return cli_error("calc", 2, "--suggest-wg chooses the workgroup size: drop --wg, --shmem, --table and --csv");
  if (!suggest && (have_rule || max_wg))
    return cli_error("calc", 2, "--shared-per-thread, --shared-base and --max-wg go with --suggest-wg");
  if (!suggest && !table && !(have_wg && have_shm))
    return cli_error("calc", 2, "give --wg and --shmem, --table or --suggest-wg (see --help)");
  if (table && have_wg) return cli_error("calc", 2, "--table lists every workgroup size; drop --wg");
  if (csv && c.json) return cli_error("calc", 2, "--csv and --json exclude each other");
  if ((rc = cli_check_output("calc", "-o", c.output))) return rc; /* before a live measurement */

  vkocc_surface s;
  vkocc_derived d;
  bool model_only = false; /* a fingerprint without its surface: the limits only */
  if (from) {
    vkocc_status st = vkocc_surface_load_model(from, &s, &d, &model_only);
    if (st) return cli_fail("calc", st);
  } else if ((rc = measure_live(&c, &s, have_wg ? wg : 0, have_shm ? shm : 0))) {
    return rc;
  }
  if (model_only && sg_override) {
    vkocc_surface_free(&s);
    return cli_error("calc", 2, "--subgroup-size: %s holds derived limits for subgroups of %u; drop the option", from,
                     d.subgroup_size);
  }
  /* only a normalized surface: values per SM, the SM count is unknown; device totals become per-SM ones */
  bool per_sm = model_only && d.sm_count == 0;
  if (per_sm) d.sm_count = 1;
  uint32_t sg = sg_override ? sg_override : s.subgroup_size;
  vkocc_status st = model_only ? VKOCC_OK : vkocc_derive(s.points, s.count, sg, &d);
  if (st) { vkocc_surface_free(&s); return cli_fail("calc", st); }
  uint32_t dev_max_wg = s.has_device ? vkocc_device_max_wg_size(&s.device) : 0;
  if (have_wg && dev_max_wg && wg > dev_max_wg) {
    vkocc_surface_free(&s);
    return cli_error("calc", 2, "--wg %u is above maxComputeWorkGroupInvocations = %u of %s", wg, dev_max_wg,
                     s.device.name);
  }
  if (have_shm && s.has_device && s.device.max_shared_bytes && shm > s.device.max_shared_bytes) {
    vkocc_surface_free(&s);
    return cli_error("calc", 2, "--shmem %u is above maxComputeSharedMemorySize = %u of %s", shm,
                     s.device.max_shared_bytes, s.device.name);
  }
  vkocc_derived shown = d; /* as printed: SM count 0 = unknown */
  if (per_sm) shown.sm_count = 0;
  json_t *der = vkocc_derived_json(&d, &s);
  if (per_sm) json_object_set_new(der, "sm_count", json_null()); /* unknown: the rows are per SM */
  json_t *doc = vkocc_doc_stamp(json_pack("{s:o}", "derived", der), VKOCC_DOC_CALC);
  if (s.has_device) json_object_set_new(doc, "device", vkocc_device_info_json(&s.device));

  if (suggest) {
    vkocc_wg_suggestion w;
    /* a file without the device: 1024, the largest workgroup most devices allow */
    uint32_t limit_wg = max_wg ? max_wg : dev_max_wg ? dev_max_wg : 1024;
    st = vkocc_suggest_wg_size(&d, shared_of, &rule, limit_wg,
                               s.has_device ? s.device.max_shared_bytes : 0, &w);
    if (st) { json_decref(doc); vkocc_surface_free(&s); return cli_fail("calc", st); }
    json_t *j = json_pack("{s:I, s:I, s:f, s:I, s:s, s:I, s:I, s:I}", "wg_size", (json_int_t)w.wg_size, "shared_bytes",
                          (json_int_t)w.shared_bytes, "occupancy_pct", w.occupancy.occupancy_pct, "workgroups_per_sm",
                          (json_int_t)w.occupancy.wg_per_sm, "limit", vkocc_limit_name(w.occupancy.binding),
                          "candidates", (json_int_t)w.candidates, "shared_base", (json_int_t)rule.base,
                          "shared_per_thread", (json_int_t)rule.per_thread);
    json_object_set_new(j, "limits_per_sm", cli_limits_json(&w.limits));
    json_object_set_new(doc, "suggestion", j);
    if (!c.json) {
      char a[16], b[16], t[16], m[16];
      cli_limit_text(w.limits.workgroup_slots, a), cli_limit_text(w.limits.subgroup_slots, b);
      cli_limit_text(w.limits.threads, t), cli_limit_text(w.limits.shared_memory, m);
      printf("suggested workgroup size: %u threads, %u shared bytes (%u + %u per thread; %u sizes considered)\n",
             w.wg_size, w.shared_bytes, rule.base, rule.per_thread, w.candidates);
      printf("occupancy: %.2f%% of %u threads per SM, %u %s per SM; binding limit: %s\n", w.occupancy.occupancy_pct,
             d.threads_per_sm, w.occupancy.wg_per_sm, w.occupancy.wg_per_sm == 1 ? "workgroup" : "workgroups",
             vkocc_limit_name(w.occupancy.binding));
      printf("workgroups per SM by limit: workgroup slots %s, subgroup slots %s, threads %s, shared memory %s, "
             "registers unknown\n", a, b, t, m);
    }
  } else {
    /* rows: one point, the file's points, or every workgroup size at one shared size */
    row *rows;
    uint32_t nr = 0;
    if (!table) {
      rows = cli_xmalloc(sizeof *rows);
      if (rows) rows[nr++] = (row){wg, shm, 0, false};
    } else if (from && !have_shm && s.count) {
      rows = cli_xmalloc(s.count * sizeof *rows);
      for (uint32_t i = 0; rows && i < s.count; i++)
        rows[nr++] = (row){s.points[i].wg_size, s.points[i].shared_bytes, 0, false};
    } else {
      /* sizes in 64 bits and capped: a device limit read from a file may be any 32-bit value */
      uint64_t maxwg = s.count ? 0 : 1024, step = d.subgroup_size ? d.subgroup_size : 1;
      for (uint32_t i = 0; i < s.count; i++) if (s.points[i].wg_size > maxwg) maxwg = s.points[i].wg_size;
      if (dev_max_wg) maxwg = dev_max_wg;
      if (maxwg > VKOCC_MAX_WG_SIZE) maxwg = VKOCC_MAX_WG_SIZE;
      rows = cli_xmalloc((maxwg / step + 1) * sizeof *rows);
      for (uint64_t w = step; rows && w <= maxwg; w += step) rows[nr++] = (row){(uint32_t)w, shm, 0, false};
    }
    vkocc_surface_point *sorted = cli_xmalloc((s.count + 1) * sizeof *sorted);
    if (!rows || !sorted) {
      free(rows), free(sorted), json_decref(doc), vkocc_surface_free(&s);
      return cli_error("calc", 1, "out of memory");
    }
    if (s.count) memcpy(sorted, s.points, s.count * sizeof *sorted);
    qsort(sorted, s.count, sizeof *sorted, cmp_point);
    json_t *jrows = json_array();
    if (per_sm && !c.json && !csv)
      printf("note: %s holds values per SM only (a normalized fingerprint): the SM count is unknown, the counts below "
             "are per SM\n", from);
    if (csv && !c.json)
      printf("wg_size,shared_bytes,occupancy_pct,%sworkgroups_per_sm,subgroups_per_sm,threads_per_sm,limit,source,"
             "limit_workgroup_slots,limit_subgroup_slots,limit_threads,limit_shared_memory\n",
             per_sm ? "" : "workgroups,subgroups,threads,");
    /* the human table: per SM first (as a CUDA occupancy calculator reads), the device-wide P after it, the
     * limit column as wide as its longest name */
    int limit_w = 5;
    for (int b = 1; b <= 7; b++) {
      int l = (int)strlen(vkocc_limit_name((vkocc_limit)b));
      if (l > limit_w) limit_w = l;
    }
    if (table && !c.json && !csv) {
      printf("%-8s %-11s %-10s %-7s %-7s %-7s", "WG size", "Shared [B]", "Occupancy", "WGs/SM", "Sgs/SM", "Thr/SM");
      if (!per_sm) printf(" %-12s", "P (device)");
      printf(" %-*s %s\n", limit_w, "Limit", "Source");
    }
    for (uint32_t i = 0; i < nr; i++) {
      vkocc_occupancy oc;
      vkocc_limits_per_sm lim;
      rows[i].measured = measured_P(sorted, s.count, rows[i].wg, rows[i].shared, &rows[i].P);
      if (rows[i].measured) vkocc_occupancy_from_P(&d, rows[i].wg, rows[i].shared, rows[i].P, &oc);
      else vkocc_occupancy_compute(&d, rows[i].wg, rows[i].shared, &oc);
      vkocc_limits_per_sm_compute(&d, rows[i].wg, rows[i].shared, &lim);
      const char *src = rows[i].measured ? "measured" : "model";
      json_t *r = json_pack("{s:I, s:I, s:f}", "wg_size", (json_int_t)rows[i].wg, "shared_bytes",
                            (json_int_t)rows[i].shared, "occupancy_pct", oc.occupancy_pct);
      if (!per_sm) {
        json_object_set_new(r, "workgroups", json_integer(oc.wgs));
        json_object_set_new(r, "subgroups", json_integer(oc.subgroups));
        json_object_set_new(r, "threads", json_integer(oc.threads));
      }
      json_t *rest = json_pack("{s:I, s:I, s:I, s:s, s:s}", "workgroups_per_sm", (json_int_t)oc.wg_per_sm,
                               "subgroups_per_sm", (json_int_t)oc.subgroups_per_sm, "threads_per_sm",
                               (json_int_t)oc.threads_per_sm, "limit", vkocc_limit_name(oc.binding), "source", src);
      json_object_update(r, rest);
      json_decref(rest);
      json_object_set_new(r, "limits_per_sm", cli_limits_json(&lim));
      json_array_append_new(jrows, r);
      char a[16], b[16], t[16], m[16];
      cli_limit_text(lim.workgroup_slots, a), cli_limit_text(lim.subgroup_slots, b);
      cli_limit_text(lim.threads, t), cli_limit_text(lim.shared_memory, m);
      if (c.json) continue;
      if (csv) {
        printf("%u,%u,%.2f,", rows[i].wg, rows[i].shared, oc.occupancy_pct);
        if (!per_sm) printf("%u,%u,%u,", oc.wgs, oc.subgroups, oc.threads);
        printf("%u,%u,%u,%s,%s,%s,%s,%s,%s\n", oc.wg_per_sm, oc.subgroups_per_sm, oc.threads_per_sm,
               vkocc_limit_name(oc.binding), src, lim.workgroup_slots == VKOCC_NO_LIMIT ? "" : a,
               lim.subgroup_slots == VKOCC_NO_LIMIT ? "" : b, lim.threads == VKOCC_NO_LIMIT ? "" : t,
               lim.shared_memory == VKOCC_NO_LIMIT ? "" : m);
      } else if (table) {
        char pct[16];
        snprintf(pct, sizeof pct, "%.2f%%", oc.occupancy_pct);
        printf("%-8u %-11u %-10s %-7u %-7u %-7u", rows[i].wg, rows[i].shared, pct, oc.wg_per_sm, oc.subgroups_per_sm,
               oc.threads_per_sm);
        if (!per_sm) printf(" %-12u", oc.wgs);
        printf(" %-*s %s\n", limit_w, vkocc_limit_name(oc.binding), src);
      } else {
        printf("device: %s\n", s.has_device ? s.device.name : (from ? from : "?"));
        printf("point:  workgroup %u threads, %u shared bytes (%s)\n", rows[i].wg, rows[i].shared, src);
        if (per_sm) {
          printf("%-22s %10s\n", "", "per SM");
          printf("%-22s %10u\n", "resident workgroups", oc.wg_per_sm);
          printf("%-22s %10u\n", "resident subgroups", oc.subgroups_per_sm);
          printf("%-22s %10u\n", "resident threads", oc.threads_per_sm);
        } else {
          printf("%-22s %10s %10s\n", "", "device", "per SM");
          printf("%-22s %10u %10u\n", "resident workgroups", oc.wgs, oc.wg_per_sm);
          printf("%-22s %10u %10u\n", "resident subgroups", oc.subgroups, oc.subgroups_per_sm);
          printf("%-22s %10u %10u\n", "resident threads", oc.threads, oc.threads_per_sm);
        }
        printf("occupancy: %.2f%% of %u threads per SM; binding limit: %s\n", oc.occupancy_pct, d.threads_per_sm,
               vkocc_limit_name(oc.binding));
        printf("workgroups per SM by limit: workgroup slots %s, subgroup slots %s, threads %s, shared memory %s, "
               "registers unknown\n", a, b, t, m);
      }
    }
    free(sorted);
    free(rows);
    json_object_set_new(doc, "rows", jrows);
  }
  if (!c.json && !csv) cli_print_derived("derived: ", &shown, model_only && !per_sm ? from : NULL);
  vkocc_surface_free(&s);
  if (c.output && (st = cli_json_write(doc, c.output))) { json_decref(doc); return cli_fail("calc", st); }
  if (c.json) return cli_emit_json("calc", doc, NULL);
  json_decref(doc);
  return 0;
}
