#include "cli.h"
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static const char *help =
    "usage: vkocc calc --wg N --shmem BYTES [--from FILE] [--json]\n"
    "       vkocc calc --table [--shmem BYTES] [--from FILE] [--csv | --json]\n"
    "Occupancy calculator. From a live device (a surface is measured) or, with --from, from saved data\n"
    "with no device: a surface or fingerprint JSON, or a CSV with the header wg_size,shared_bytes,P.\n"
    "One point: resident workgroups, subgroups and threads on the whole device and per SM, occupancy in\n"
    "percent of the per-SM thread maximum, and the limit that binds. --table: the listing for every\n"
    "workgroup size at --shmem (default: the points of the --from file, else 0 bytes).\n"
    "--subgroup-size N overrides the subgroup size a CSV cannot carry (default: inferred).\n";

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
static int measure_live(const cli_common *c, uint32_t want_wg, uint32_t want_shm, vkocc_surface *s) {
  vkocc_context *ctx;
  int rc = cli_open("calc", c, &ctx);
  if (rc) return rc;
  const vkocc_device_info *d = vkocc_context_device(ctx);
  /* the point is checked against the device before seconds of measurement, not after */
  if (want_wg > d->max_invocations || want_shm > d->max_shared_bytes) {
    rc = want_wg > d->max_invocations
             ? cli_error("calc", 2, "--wg %u is above maxComputeWorkGroupInvocations = %u of %s", want_wg,
                         d->max_invocations, d->name)
             : cli_error("calc", 2, "--shmem %u is above maxComputeSharedMemorySize = %u of %s", want_shm,
                         d->max_shared_bytes, d->name);
    vkocc_context_destroy(ctx);
    return rc;
  }
  uint32_t sg = d->subgroup_size ? d->subgroup_size : 32, maxwg = d->max_invocations, wg[256], n = 0;
  for (uint32_t k = 1; k * sg <= maxwg && n < 255; k = k < 8 ? k + 1 : k + k / 4) wg[n++] = k * sg;
  if (wg[n - 1] != maxwg / sg * sg) wg[n++] = maxwg / sg * sg;
  vkocc_surface_options o = {.wg_sizes = wg, .wg_count = n};
  vkocc_calibration cal;
  vkocc_calibrate_options co = {.lengths = 4, .repeats = 3, .longest_ns = 1e6};
  vkocc_status st = vkocc_calibrate(ctx, &co, &cal);
  if (!st) st = vkocc_surface_measure(ctx, &cal, &o, s);
  vkocc_context_destroy(ctx);
  return st ? cli_fail("calc", st) : 0;
}

int cmd_calc(int argc, char **argv) {
  cli_common c = {0};
  const char *from = NULL;
  bool table = false, csv = false, have_wg = false, have_shm = false;
  uint32_t wg = 0, shm = 0, sg_override = 0;
  static const struct option opts[] = {
      {"device", required_argument, 0, 'd'}, {"json", no_argument, 0, 'j'}, {"csv", no_argument, 0, 'c'},
      {"wg", required_argument, 0, 'w'}, {"shmem", required_argument, 0, 's'}, {"table", no_argument, 0, 't'},
      {"from", required_argument, 0, 'f'}, {"subgroup-size", required_argument, 0, 'g'},
      {"no-shader-clock", no_argument, 0, 'n'}, {"help", no_argument, 0, 'h'}, {0}};
  int ch;
  while ((ch = getopt_long(argc, argv, "hd:", opts, NULL)) != -1) {
    switch (ch) {
    case 'd': c.device = optarg; break;
    case 'j': c.json = true; break;
    case 'c': csv = true; break;
    case 't': table = true; break;
    case 'n': c.no_clock = true; break;
    case 'f': from = optarg; break;
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
    case 'g':
      if (!cli_parse_u32(optarg, false, &sg_override) || sg_override == 0 || sg_override > 256)
        return cli_error("calc", 2, "--subgroup-size '%s': expected an integer 1..256", optarg);
      break;
    case 'h': fputs(help, stdout); return 0;
    default: fputs(help, stderr); return 2;
    }
  }
  if (optind < argc) return cli_error("calc", 2, "unexpected argument '%s'", argv[optind]);
  if (!table && !(have_wg && have_shm)) return cli_error("calc", 2, "give --wg and --shmem, or --table (see --help)");
  if (table && have_wg) return cli_error("calc", 2, "--table lists every workgroup size; drop --wg");
  if (csv && c.json) return cli_error("calc", 2, "--csv and --json exclude each other");
  if (csv && !table) return cli_error("calc", 2, "--csv is for --table");

  vkocc_surface s;
  vkocc_derived d;
  int rc;
  bool model_only = false; /* a fingerprint without its surface: the limits only */
  if (from) {
    vkocc_status st = vkocc_surface_load_model(from, &s, &d, &model_only);
    if (st) return cli_fail("calc", st);
  } else if ((rc = measure_live(&c, have_wg ? wg : 0, have_shm ? shm : 0, &s))) {
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
  if (have_wg && s.has_device && s.device.max_invocations && wg > s.device.max_invocations) {
    vkocc_surface_free(&s);
    return cli_error("calc", 2, "--wg %u is above maxComputeWorkGroupInvocations = %u of %s", wg,
                     s.device.max_invocations, s.device.name);
  }
  if (have_shm && s.has_device && s.device.max_shared_bytes && shm > s.device.max_shared_bytes) {
    vkocc_surface_free(&s);
    return cli_error("calc", 2, "--shmem %u is above maxComputeSharedMemorySize = %u of %s", shm,
                     s.device.max_shared_bytes, s.device.name);
  }

  /* rows: one point, the file's points, or every workgroup size at one shared size */
  row *rows;
  uint32_t nr = 0;
  if (!table) {
    rows = malloc(sizeof *rows);
    rows[nr++] = (row){wg, shm, 0, false};
  } else if (from && !have_shm && s.count) {
    rows = malloc(s.count * sizeof *rows);
    for (uint32_t i = 0; i < s.count; i++) rows[nr++] = (row){s.points[i].wg_size, s.points[i].shared_bytes, 0, false};
  } else {
    /* sizes in 64 bits and capped: a device limit read from a file may be any 32-bit value */
    uint64_t maxwg = s.count ? 0 : 1024, step = d.subgroup_size ? d.subgroup_size : 1;
    for (uint32_t i = 0; i < s.count; i++) if (s.points[i].wg_size > maxwg) maxwg = s.points[i].wg_size;
    if (s.has_device && s.device.max_invocations) maxwg = s.device.max_invocations;
    if (maxwg > VKOCC_MAX_WG_SIZE) maxwg = VKOCC_MAX_WG_SIZE;
    rows = malloc((maxwg / step + 1) * sizeof *rows);
    for (uint64_t w = step; w <= maxwg; w += step) rows[nr++] = (row){(uint32_t)w, shm, 0, false};
  }
  vkocc_surface_point *sorted = malloc((s.count + 1) * sizeof *sorted);
  if (s.count) memcpy(sorted, s.points, s.count * sizeof *sorted);
  qsort(sorted, s.count, sizeof *sorted, cmp_point);
  json_t *jrows = json_array();
  if (per_sm && !c.json && !csv)
    printf("note: %s holds values per SM only (a normalized fingerprint): the SM count is unknown, the counts below "
           "are per SM\n", from);
  if (table && !c.json) {
    if (csv)
      printf("wg_size,shared_bytes,occupancy_pct,%s,limit,source\n",
             per_sm ? "workgroups_per_sm,subgroups_per_sm,threads_per_sm" : "workgroups,subgroups,threads");
    else printf("%-8s %-14s %-13s %-8s %-10s %-9s %-26s %s\n", "WG size", "Shared [B]", "Occupancy [%]",
                per_sm ? "WGs/SM" : "WGs", per_sm ? "Sgs/SM" : "Subgroups", per_sm ? "Thr/SM" : "Threads", "Limit",
                "Source");
  }
  for (uint32_t i = 0; i < nr; i++) {
    vkocc_occupancy oc;
    rows[i].measured = measured_P(sorted, s.count, rows[i].wg, rows[i].shared, &rows[i].P);
    if (rows[i].measured) vkocc_occupancy_from_P(&d, rows[i].wg, rows[i].shared, rows[i].P, &oc);
    else vkocc_occupancy_compute(&d, rows[i].wg, rows[i].shared, &oc);
    const char *src = rows[i].measured ? "measured" : "model";
    if (c.json && per_sm) {
      json_array_append_new(jrows, json_pack("{s:I, s:I, s:f, s:I, s:I, s:I, s:s, s:s}", "wg_size",
                                             (json_int_t)rows[i].wg, "shared_bytes", (json_int_t)rows[i].shared,
                                             "occupancy_pct", oc.occupancy_pct, "workgroups_per_sm",
                                             (json_int_t)oc.wg_per_sm, "subgroups_per_sm",
                                             (json_int_t)oc.subgroups_per_sm, "threads_per_sm",
                                             (json_int_t)oc.threads_per_sm, "limit", vkocc_limit_name(oc.binding),
                                             "source", src));
    } else if (c.json) {
      json_array_append_new(jrows, json_pack("{s:I, s:I, s:f, s:I, s:I, s:I, s:I, s:I, s:I, s:s, s:s}", "wg_size",
                                             (json_int_t)rows[i].wg, "shared_bytes", (json_int_t)rows[i].shared,
                                             "occupancy_pct", oc.occupancy_pct, "workgroups", (json_int_t)oc.wgs,
                                             "subgroups", (json_int_t)oc.subgroups, "threads", (json_int_t)oc.threads,
                                             "workgroups_per_sm", (json_int_t)oc.wg_per_sm, "subgroups_per_sm",
                                             (json_int_t)oc.subgroups_per_sm, "threads_per_sm",
                                             (json_int_t)oc.threads_per_sm, "limit", vkocc_limit_name(oc.binding),
                                             "source", src));
    } else if (csv) {
      printf("%u,%u,%.2f,%u,%u,%u,%s,%s\n", rows[i].wg, rows[i].shared, oc.occupancy_pct, oc.wgs, oc.subgroups,
             oc.threads, vkocc_limit_name(oc.binding), src);
    } else if (table) {
      printf("%-8u %-14u %-13.2f %-8u %-10u %-9u %-26s %s\n", rows[i].wg, rows[i].shared, oc.occupancy_pct, oc.wgs,
             oc.subgroups, oc.threads, vkocc_limit_name(oc.binding), src);
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
    }
  }
  free(sorted);
  char sms[32];
  if (per_sm) snprintf(sms, sizeof sms, "SM count unknown");
  else snprintf(sms, sizeof sms, "%u SMs", d.sm_count);
  if (!c.json && !csv && model_only && !per_sm)
    printf("derived: %s; per SM %u workgroups, %u subgroups of %u, %u threads, %u shared bytes%s (from %s: "
           "$.derived)\n", sms, d.wg_per_sm, d.subgroups_per_sm, d.subgroup_size, d.threads_per_sm, d.shared_per_sm,
           d.shared_bound_seen ? "" : " or more", from);
  else if (!c.json && !csv)
    printf("derived: %s; per SM %u workgroups, %u subgroups of %u%s, %u threads, %u shared bytes%s "
           "(%u/%u points explained)\n", sms, d.wg_per_sm, d.subgroups_per_sm, d.subgroup_size,
           d.subgroup_size_inferred ? " (inferred)" : "", d.threads_per_sm, d.shared_per_sm,
           d.shared_bound_seen ? "" : " or more", d.explained, d.total);
  free(rows);
  if (c.json) {
    json_t *der = vkocc_derived_json(&d, &s);
    if (per_sm) json_object_set_new(der, "sm_count", json_null()); /* unknown: the rows are per SM */
    json_t *doc = json_pack("{s:s, s:s, s:o, s:o}", "schema", "vkocc.calc/1", "tool_version", vkocc_version(),
                            "derived", der, "rows", jrows);
    if (s.has_device) json_object_set_new(doc, "device", vkocc_device_info_json(&s.device));
    vkocc_surface_free(&s);
    return cli_emit_json("calc", doc, NULL);
  }
  json_decref(jrows);
  vkocc_surface_free(&s);
  return 0;
}
