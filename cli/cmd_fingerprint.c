#include "cli.h"
#include <ctype.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *help =
    "usage: vkocc fingerprint [-o FILE] [--json] [--fresh] [--method comb|bisect|both] [--device D|all] [--queue Q]\n"
    "                         [--no-shader-clock] [--no-registers]\n"
    "       vkocc fingerprint --id-only [--fresh] [--json] [--device D] [--queue Q]\n"
    "Characterizes the device: clock calibration, the occupancy surface on the canonical grid, the derived\n"
    "per-SM limits, the surface normalized per SM, the architecture signature (per-SM, per-clock microbenchmarks)\n"
    "and its cluster ID (recipe c3); writes one JSON document (schema vkocc.fingerprint/3,\n"
    "docs/fingerprint.schema.json) and prints a summary. A fingerprint of the same\n"
    "device (UUID) and driver version is reused from the XDG cache directory unless --fresh.\n"
    "Where the driver reports register statistics, the register axis is measured too (a register sweep of\n"
    "3 workgroup sizes x 9 register counts, a few seconds; the device's cached register model is reused unless\n"
    "--fresh) and recorded as register_model; elsewhere (lavapipe) it is unknown, said once. --no-registers\n"
    "skips it.\n"
    "--id-only: the cluster ID alone (what an application needs at its start; no register axis, no document):\n"
    "from the cache in milliseconds (no device opened), else measured (about a second on a GPU) and cached; prints\n"
    "the ID, or with --json {cluster_id, occupancy_id, from_cache, elapsed_ms, device, queue_family}. The library\n"
    "call is vkocc_cluster_id_only.\n"
    "--device all: every device at once (own thread and context each); -o PREFIX writes PREFIX-N.json per\n"
    "device and PREFIX-summary.json (devices grouped by cluster ID).\n";

void cli_print_fingerprint(json_t *doc, const vkocc_fingerprint *fp, const vkocc_device_info *di) {
  json_t *dev = json_object_get(doc, "device"), *der = json_object_get(doc, "derived");
  json_t *cal = json_object_get(doc, "calibration");
  printf("device:      %s (%s %s)\n", json_string_value(json_object_get(dev, "name")),
         json_string_value(json_object_get(dev, "driver_name")), json_string_value(json_object_get(dev, "driver_info")));
  char qt[96];
  cli_queue_text(di, qt, sizeof qt);
  printf("%s\n", qt);
  json_t *nspt = json_object_get(cal, "ns_per_realtime_tick"), *mhz = json_object_get(cal, "shader_clock_mhz");
  char rt[32] = "n/a", sc[32] = "n/a";
  if (json_is_number(nspt)) snprintf(rt, sizeof rt, "%.4f", json_number_value(nspt));
  if (json_is_number(mhz)) snprintf(sc, sizeof sc, "%.1f", json_number_value(mhz));
  printf("clocks:      realtime %s ns/tick, shader %s MHz, dispatch overhead %.1f us\n", rt, sc,
         json_number_value(json_object_get(cal, "dispatch_overhead_ns")) / 1e3);
  vkocc_derived dl;
  if (vkocc_derived_from_json(der, "fingerprint", "$.derived", &dl) == VKOCC_OK) {
    cli_print_derived("derived:     ", &dl, NULL);
  } else {
    vkocc_clear_error();
  }
  cli_print_vendor_check("vendor:      ", json_object_get(doc, "vendor_reported"));
  printf("cluster ID:  %s%s\n", fp->cluster_id,
         vkocc_cluster_id_recipe(fp->cluster_id) != VKOCC_RECIPE_C1 ? ""
                                                                    : " (recipe c1: depends on the "
                                                                      "queue family's shared capacity)");
  if (fp->signature.present) { /* recipe c3: the occupancy class and the architecture signature */
    const vkocc_signature *g = &fp->signature;
    printf("occupancy:   %s (recipe c2: the occupancy class alone)\n", fp->occupancy_id);
    printf("signature:   vendor 0x%x, subgroup sizes %u..%u, float64 %s, int64 %s, float16 %s\n", g->vendor_id,
           g->subgroup_min, g->subgroup_max, g->float64 ? "yes" : "no", g->int64 ? "yes" : "no", g->float16 ? "yes" : "no");
    for (int i = 0; i < VKOCC_SIG_COUNT; i++) {
      const vkocc_sig_value *v = &g->v[i];
      if (v->repeats)
        printf("             %-15s %9.4g (spread %.1f%%, %u repeats) %s%s%s\n", vkocc_sig_signal_name((vkocc_sig_signal)i),
               v->value, 100 * v->spread, v->repeats, vkocc_sig_state_name(v->state), v->reason[0] ? ": " : "", v->reason);
      else
        printf("             %-15s %s%s%s\n", vkocc_sig_signal_name((vkocc_sig_signal)i), vkocc_sig_state_name(v->state),
               v->reason[0] ? ": " : "", v->reason);
    }
  }
  json_t *cap = json_array_get(json_object_get(doc, "shared_capacity"), 0), *rm = json_object_get(doc, "register_model");
  if (cap) /* an attribute of the queue family, not part of the ID */
    printf("shared:      %lld%s bytes per SM on this %s family (an attribute, not part of the ID)\n",
           (long long)json_integer_value(json_object_get(cap, "shared_bytes_per_sm")),
           json_is_true(json_object_get(cap, "shared_limit_seen")) ? "" : " or more",
           json_string_value(json_object_get(cap, "kind")) ? json_string_value(json_object_get(cap, "kind")) : "?");
  if (json_is_true(json_object_get(rm, "known")))
    printf("registers:   %lld per SM, allocated in units of %lld per invocation, %lld partitions\n",
           (long long)json_integer_value(json_object_get(rm, "regs_per_sm")),
           (long long)json_integer_value(json_object_get(rm, "alloc_unit_per_invocation")),
           (long long)json_integer_value(json_object_get(rm, "partitions")));
  else if (json_is_object(json_object_get(doc, "register_axis")))
    printf("registers:   unknown: %s\n",
           json_string_value(json_object_get(json_object_get(doc, "register_axis"), "reason")));
  else if (json_object_get(doc, "shared_capacity"))
    printf("registers:   not measured (vkocc fingerprint without --no-registers, or vkocc surface --registers)\n");
  printf("normalized surface: resident workgroups per SM ('-': the device cannot run the point)\n%8s", "wg \\ B");
  for (int b = 0; b < VKOCC_CANON_SHARED; b++) printf(" %6u", vkocc_canonical_shared[b]);
  printf("\n");
  for (int a = 0; a < VKOCC_CANON_WG; a++) {
    printf("%8u", vkocc_canonical_wg[a]);
    for (int b = 0; b < VKOCC_CANON_SHARED; b++) {
      double v = fp->normalized[a][b];
      if (isnan(v)) printf(" %6s", "-");
      else if (v == floor(v)) printf(" %6.0f", v);
      else printf(" %6.2f", v);
    }
    printf("\n");
  }
}

int cmd_fingerprint(cli_run *run, int argc, char **argv) {
  cli_common c = {.run = run};
  bool fresh = false, registers = true, id_only = false;
  static const struct option opts[] = {CLI_DEVICE_OPTIONS, CLI_JSON_OPTION, CLI_OUTPUT_OPTION, CLI_METHOD_OPTION,
                                       {"fresh", no_argument, 0, 'f'}, {"no-registers", no_argument, 0, 'R'},
                                       {"id-only", no_argument, 0, 'I'},
                                       {"help", no_argument, 0, 'h'}, {0}};
  int ch, rc;
  while ((ch = getopt_long(argc, argv, "hd:o:", opts, NULL)) != -1) {
    if (ch == 'f') fresh = true;
    else if (ch == 'R') registers = false;
    else if (ch == 'I') id_only = true;
    else if (ch == 'h') { fputs(help, stdout); return 0; }
    else if ((rc = cli_common_option("fingerprint", ch, optarg, &c)) > 0) return rc;
    else if (rc < 0) return cli_usage_error(help);
  }
  if (optind < argc) return cli_error("fingerprint", 2, "unexpected argument '%s'", argv[optind]);
  if (id_only) {
    if (c.output || (c.device && !strcmp(c.device, "all")) || c.method || c.no_clock || !registers)
      return cli_error("fingerprint", 2, "--id-only gives the ID alone: drop -o, --device all, --method, "
                       "--no-shader-clock and --no-registers");
    vkocc_context_options co = {.device = c.device, .queue = c.queue};
    vkocc_cluster_id_answer a;
    vkocc_status st = vkocc_cluster_id_only(&co, fresh, &a);
    if (st) return cli_fail("fingerprint", st);
    if (c.json)
      return cli_emit_json("fingerprint", json_pack("{s:s, s:s, s:b, s:f, s:s, s:I}", "cluster_id", a.cluster_id,
                                                     "occupancy_id", a.occupancy_id, "from_cache", a.from_cache,
                                                     "elapsed_ms", a.elapsed_ms, "device", a.device_name,
                                                     "queue_family", (json_int_t)a.queue_family), NULL);
    printf("%s\n", a.cluster_id);
    return 0;
  }
  if ((rc = cli_check_output("fingerprint", "-o", c.output))) return rc; /* before a measurement of half a minute */
  if (c.device && !strcmp(c.device, "all")) return cli_all_fingerprints(&c, fresh, registers, c.output); /* multi_device.c */
  vkocc_fingerprint fp;
  vkocc_fingerprint_details det;
  if ((rc = cli_fingerprint_measure("fingerprint", &c, fresh, &fp, &det))) return rc;
  if (registers) cli_fingerprint_registers(&c, fresh, &det);
  vkocc_status st = c.output ? vkocc_fingerprint_save(&fp, &det, c.output) : VKOCC_OK;
  if (st) { vkocc_fingerprint_details_free(&det); return cli_fail("fingerprint", st); }
  json_t *doc = json_incref(vkocc_fingerprint_details_json(&det));
  vkocc_device_info dev = det.device; /* as the document records it (a cache entry without it is a miss) */
  vkocc_fingerprint_details_free(&det);
  if (c.json) return cli_emit_json("fingerprint", doc, NULL);
  cli_print_fingerprint(doc, &fp, &dev);
  if (c.output) printf("written:     %s\n", c.output);
  json_decref(doc);
  return 0;
}
