/* The register axis on the command line: `vkocc surface --registers` (measure the register surface, derive the
 * register file, cache it for probe --shader) and `vkocc calc --regs R` (the calculator with registers). Both
 * are reached from their commands by one line that hands over argv (cmd_surface.c, cmd_calc.c). */
#include "cli.h"
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static const char *surface_help =
    "usage: vkocc surface --registers [--wg LIST] [--live LIST] [--from FILE] [-o FILE] [--json] [--device D]\n"
    "                     [--queue Q] [--method comb|bisect|both]\n"
    "The register file, measured (docs/model.md \"Registers\"): vkocc's register probe keeps LIVE values live\n"
    "(specialization constant) at each workgroup size; the driver's own register count of every measured\n"
    "pipeline is read back (VK_KHR_pipeline_executable_properties) and P measured, shared memory 0. From these\n"
    "points: registers per SM, the allocation unit (per subgroup and per invocation), register-file partitions and\n"
    "the most registers one invocation gets; points the fit does not explain are listed. The device's other\n"
    "limits come from --from (a surface or fingerprint of this device and queue family), else its cached\n"
    "fingerprint, else from the register points themselves. The register model is kept in the cache, where\n"
    "probe --shader and calc --regs find it. Default: --wg 64,128,256,512,768,1024 --live 0-256:8.\n"
    "A driver without a register statistic (lavapipe): the register axis is unknown (exit 3), nothing measured.\n"
    "-o writes schema vkocc.registers/1.\n";

static void print_model(const vkocc_register_model *m, const vkocc_register_point *p) {
  if (!m->known) { printf("registers: unknown\n"); return; }
  printf("registers: %u per SM", m->regs_per_sm);
  if (!m->bound_seen) printf(" or more (no point was limited by registers)");
  else if (m->regs_per_sm_max != m->regs_per_sm && m->regs_per_sm_max != UINT32_MAX)
    printf(" (consistent %u..%u)", m->regs_per_sm, m->regs_per_sm_max);
  printf("; allocated per subgroup of %u in units of %u (%u per invocation), %u %s; at most %u per invocation%s%s; "
         "%u/%u points explained\n", m->subgroup_size, m->alloc_unit, m->alloc_unit_per_invocation, m->partitions,
         m->partitions == 1 ? "partition" : "partitions", m->max_per_invocation,
         m->max_capped ? " (more live values gave no more)" : " seen (a lower bound)",
         m->ambiguous ? "; ambiguous: another unit or partition count explains as many points" : "", m->explained,
         m->total);
  for (uint32_t i = 0; p && i < m->n_unexplained; i++)
    printf("  not explained: wg %u, %u registers, %u shared bytes: P %u\n", p[m->unexplained[i]].wg_size,
           p[m->unexplained[i]].registers, p[m->unexplained[i]].shared_bytes, p[m->unexplained[i]].P);
}

/* The device's other limits: --from, else the cached fingerprint of this device and family, else the points. */
static int base_limits(const char *cmd, const char *from, const vkocc_device_info *dev, const vkocc_register_point *p,
                       uint32_t n, vkocc_derived *d, char *source, size_t len) {
  if (from) {
    vkocc_surface s;
    bool model_only;
    vkocc_status st = vkocc_surface_load_model(from, &s, d, &model_only);
    if (st) return cli_fail(cmd, st);
    if (!model_only) st = vkocc_derive(s.points, s.count, s.subgroup_size, d);
    vkocc_surface_free(&s);
    if (st) return cli_fail(cmd, st);
    if (!d->sm_count) return cli_error(cmd, 2, "--from %s: values per SM only (no SM count): give a surface", from);
    snprintf(source, len, "%s", from);
    return 0;
  }
  vkocc_fingerprint fp;
  vkocc_fingerprint_details det;
  if (dev && vkocc_fingerprint_from_cache(dev, 0, &fp, &det)) {
    *d = det.derived;
    snprintf(source, len, "the cached fingerprint %s", det.cache_path);
    vkocc_fingerprint_details_free(&det);
    return 0;
  }
  vkocc_status st = vkocc_register_base(p, n, dev ? dev->subgroup_size : 0, d);
  if (st) return cli_fail(cmd, st);
  snprintf(source, len, "the register points (no surface of this device: shared memory unknown)");
  return 0;
}

int cli_surface_registers(int argc, char **argv);
int cli_surface_registers(int argc, char **argv) {
  const char *cmd = "surface";
  cli_common c = {0};
  const char *from = NULL;
  uint32_t *wg = NULL, *live = NULL, nwg = 0, nlive = 0;
  enum { OPT_REGS = 3100, OPT_LIVE, OPT_FROM };
  static const struct option opts[] = {CLI_DEVICE_OPTIONS, CLI_JSON_OPTION, CLI_OUTPUT_OPTION, CLI_METHOD_OPTION,
                                       {"registers", no_argument, 0, OPT_REGS}, {"wg", required_argument, 0, 'w'},
                                       {"live", required_argument, 0, OPT_LIVE}, {"from", required_argument, 0, OPT_FROM},
                                       {"help", no_argument, 0, 'h'}, {0}};
  int ch, rc = 0;
  optind = 1;
  while ((ch = getopt_long(argc, argv, "hd:o:", opts, NULL)) != -1) {
    switch (ch) {
    case OPT_REGS: break;
    case OPT_FROM: from = optarg; break;
    case 'w':
      free(wg);
      if (!cli_parse_list(optarg, false, &wg, &nwg) || !nwg || wg[0] == 0) {
        rc = cli_error(cmd, 2, "--wg '%s': expected positive integers, e.g. 64,128 or 64-1024:64", optarg);
        goto out;
      }
      break;
    case OPT_LIVE:
      free(live);
      if (!cli_parse_list(optarg, false, &live, &nlive) || !nlive || live[nlive - 1] > 256) {
        rc = cli_error(cmd, 2, "--live '%s': expected values 0..256, e.g. 0-256:8", optarg);
        goto out;
      }
      break;
    case 'h': fputs(surface_help, stdout); goto out;
    default:
      if ((rc = cli_common_option(cmd, ch, optarg, &c)) == 0) break;
      if (rc < 0) rc = cli_usage_error(surface_help);
      goto out;
    }
  }
  if (optind < argc) { rc = cli_error(cmd, 2, "unexpected argument '%s'", argv[optind]); goto out; }
  if ((rc = cli_check_output(cmd, "-o", c.output))) goto out;
  vkocc_context *ctx;
  if ((rc = cli_open(cmd, &c, &ctx))) goto out;
  vkocc_device_info dev = *vkocc_context_device(ctx);
  vkocc_vendor_registers vr;
  vkocc_vendor_registers_get(ctx, &vr);
  vkocc_register_surface_options o = {.wg_sizes = wg, .wg_count = nwg, .live = live, .live_count = nlive,
                                      .method = c.method};
  if (cli_is_tty()) o.progress = cli_progress;
  vkocc_register_point *p = NULL;
  uint32_t n = 0;
  vkocc_status st = vkocc_register_surface_measure(ctx, NULL, &o, &p, &n);
  vkocc_context_destroy(ctx);
  if (st) { rc = cli_fail(cmd, st); goto out; }
  vkocc_derived d;
  char source[1200];
  if ((rc = base_limits(cmd, from, &dev, p, n, &d, source, sizeof source))) { free(p); goto out; }
  vkocc_register_model m;
  st = vkocc_derive_registers(p, n, &d, &m);
  if (st) { free(p); rc = cli_fail(cmd, st); goto out; }
  /* with the vendor's own figures where it reports them (VK_NV_shader_sm_builtins, VK_AMD_shader_core_properties) */
  json_t *doc = vkocc_register_document(&dev, p, n, &d, source, &m, &vr);
  char cache[1024];
  vkocc_register_cache_path(&dev, cache, sizeof cache);
  if (cache[0] && vkocc_register_cache_store(&dev, doc)) { /* a cache that cannot be written is no error */
    vkocc_clear_error();
    cache[0] = 0;
  }
  if (c.output && (st = cli_json_write(doc, c.output))) { json_decref(doc); free(p); rc = cli_fail(cmd, st); goto out; }
  if (c.json) { rc = cli_emit_json(cmd, doc, NULL); free(p); goto out; }
  json_decref(doc);
  printf("device: %s\n", dev.name);
  char qt[96];
  cli_queue_text(&dev, qt, sizeof qt);
  printf("%s\n%-8s %-6s %-10s %-8s %-8s %-8s %s\n", qt, "WG size", "live", "registers", "shared", "P", "per SM",
         "model P");
  for (uint32_t i = 0; i < n; i++)
    printf("%-8u %-6u %-10u %-8u %-8u %-8.2f %u\n", p[i].wg_size, p[i].requested, p[i].registers, p[i].shared_bytes,
           p[i].P, d.sm_count ? (double)p[i].P / d.sm_count : 0,
           vkocc_model_P(&d, &m, p[i].wg_size, p[i].shared_bytes, p[i].registers, NULL));
  cli_print_derived("other limits: ", &d, NULL);
  printf("  (from %s)\n", source);
  print_model(&m, p);
  if (vr.source[0])
    printf("vendor: %s reports %u VGPRs per SIMD lane x wave%u x %u SIMDs = %u registers per CU (measured %u..%u: %s), "
           "allocated in units of %u per invocation (measured %u: %s), %u..%u per invocation\n", vr.source,
           vr.vgprs_per_simd, vr.wavefront_size, vr.simds_per_cu, vr.regs_per_sm, m.regs_per_sm, m.regs_per_sm_max,
           m.regs_per_sm <= vr.regs_per_sm && vr.regs_per_sm <= m.regs_per_sm_max ? "agree" : "DIFFER",
           vr.vgpr_granularity, m.alloc_unit_per_invocation,
           m.alloc_unit_per_invocation == vr.vgpr_granularity ? "agree" : "DIFFER", vr.min_vgprs, vr.max_vgprs);
  else if (dev.vendor.source[0])
    printf("vendor: %s reports %u cores, %u subgroups per core, and no register file\n", dev.vendor.source,
           dev.vendor.cores, dev.vendor.warps_per_core);
  if (cache[0]) fprintf(stderr, "vkocc %s: register model kept in %s\n", cmd, cache);
  free(p);
out:
  free(wg);
  free(live);
  return rc;
}

/* ---------------------------------------------------------------- calc --regs */

static const char *calc_help =
    "usage: vkocc calc --regs R --wg N [--shmem BYTES] [--from FILE] [--json] [-o FILE] [--device D] [--queue Q]\n"
    "       vkocc calc --regs R --table [--shmem BYTES] [--from FILE] [--json]\n"
    "       vkocc calc --regs R --suggest-wg [--shared-per-thread B] [--shared-base B] [--max-wg N] [--from FILE]\n"
    "The calculator with registers: R registers per invocation (as the driver's statistics or your compiler report\n"
    "them). Resident workgroups, occupancy and the workgroups per SM each limit allows (workgroup slots, subgroup\n"
    "slots, shared memory, registers), naming the one that binds. The register file comes from --from (a\n"
    "vkocc.registers document of `vkocc surface --registers`) or the device's cache (measured there when absent);\n"
    "the other limits from that document, or the device's cached fingerprint.\n"
    "R must be 1 .. the most registers an invocation gets; a device without a register statistic: exit 3.\n";

typedef struct { uint32_t base, per_thread; } shared_rule;


static json_t *row_json(const vkocc_derived *d, const vkocc_register_model *m, uint32_t wg, uint32_t sh, uint32_t regs,
                        vkocc_limits_per_sm *l, double *pct) {
  vkocc_limits_per_sm_registers(d, m, wg, sh, regs, l);
  *pct = d->threads_per_sm ? 100.0 * l->wg_per_sm * wg / d->threads_per_sm : 0;
  json_t *r = json_pack("{s:I, s:I, s:I, s:f, s:I, s:I, s:s}", "wg_size", (json_int_t)wg, "shared_bytes", (json_int_t)sh,
                        "registers", (json_int_t)regs, "occupancy_pct", *pct, "workgroups_per_sm",
                        (json_int_t)l->wg_per_sm, "workgroups", (json_int_t)((uint64_t)l->wg_per_sm * d->sm_count),
                        "limit", vkocc_limit_name(l->binding));
  json_object_set_new(r, "limits_per_sm", cli_limits_json(l));
  return r;
}

int cli_calc_registers(int argc, char **argv);
int cli_calc_registers(int argc, char **argv) {
  const char *cmd = "calc";
  cli_common c = {0};
  const char *from = NULL, *regs_arg = NULL;
  bool table = false, suggest = false, have_wg = false;
  uint32_t wg = 0, shm = 0, max_wg = 0;
  shared_rule rule = {0, 0};
  enum { OPT_REGS = 3200, OPT_SUGGEST, OPT_PER_THREAD, OPT_BASE, OPT_MAX_WG };
  static const struct option opts[] = {
      CLI_DEVICE_OPTIONS, CLI_JSON_OPTION, CLI_OUTPUT_OPTION, {"regs", required_argument, 0, OPT_REGS},
      {"wg", required_argument, 0, 'w'}, {"shmem", required_argument, 0, 's'}, {"table", no_argument, 0, 't'},
      {"from", required_argument, 0, 'f'}, {"suggest-wg", no_argument, 0, OPT_SUGGEST},
      {"shared-per-thread", required_argument, 0, OPT_PER_THREAD}, {"shared-base", required_argument, 0, OPT_BASE},
      {"max-wg", required_argument, 0, OPT_MAX_WG}, {"help", no_argument, 0, 'h'}, {0}};
  int ch, rc;
  optind = 1;
  while ((ch = getopt_long(argc, argv, "hd:o:", opts, NULL)) != -1) {
    switch (ch) {
    case OPT_REGS: regs_arg = optarg; break;
    case 't': table = true; break;
    case 'f': from = optarg; break;
    case OPT_SUGGEST: suggest = true; break;
    case 'w':
      if (!cli_parse_u32(optarg, false, &wg) || wg == 0) return cli_error(cmd, 2, "--wg '%s': expected a positive integer", optarg);
      have_wg = true;
      break;
    case 's':
      if (!cli_parse_u32(optarg, true, &shm)) return cli_error(cmd, 2, "--shmem '%s': expected bytes (e.g. 16384 or 16K)", optarg);
      break;
    case OPT_PER_THREAD:
      if (!cli_parse_u32(optarg, true, &rule.per_thread)) return cli_error(cmd, 2, "--shared-per-thread '%s': expected bytes", optarg);
      break;
    case OPT_BASE:
      if (!cli_parse_u32(optarg, true, &rule.base)) return cli_error(cmd, 2, "--shared-base '%s': expected bytes", optarg);
      break;
    case OPT_MAX_WG:
      if (!cli_parse_u32(optarg, false, &max_wg) || max_wg == 0 || max_wg > VKOCC_MAX_WG_SIZE)
        return cli_error(cmd, 2, "--max-wg '%s': expected an integer 1..%u", optarg, VKOCC_MAX_WG_SIZE);
      break;
    case 'h': fputs(calc_help, stdout); return 0;
    default:
      if ((rc = cli_common_option(cmd, ch, optarg, &c)) == 0) break;
      if (rc > 0) return rc;
      return cli_usage_error(calc_help);
    }
  }
  if (optind < argc) return cli_error(cmd, 2, "unexpected argument '%s'", argv[optind]);
  uint32_t regs;
  if (!regs_arg || !cli_parse_u32(regs_arg, false, &regs) || regs == 0)
    return cli_error(cmd, 2, "--regs '%s': expected registers per invocation, a positive integer", regs_arg ? regs_arg : "");
  if ((int)table + (int)suggest + (int)have_wg != 1)
    return cli_error(cmd, 2, "--regs goes with one of --wg N, --table or --suggest-wg (see calc --help with --regs)");
  if ((rc = cli_check_output(cmd, "-o", c.output))) return rc;
  /* the register model and the other limits */
  vkocc_register_model m = {0};
  vkocc_derived d;
  vkocc_device_info dev = {0};
  bool has_dev = false;
  char source[1200] = "";
  if (from) {
    vkocc_register_doc rd;
    vkocc_status st = vkocc_register_doc_load(from, &rd);
    if (st) {
      /* a surface or fingerprint: valid, but it carries no register axis */
      vkocc_surface s;
      bool mo;
      vkocc_derived dd;
      char why[600];
      snprintf(why, sizeof why, "%s", vkocc_last_error());
      if (vkocc_surface_load_model(from, &s, &dd, &mo) == VKOCC_OK) {
        /* a fingerprint of schema 2 may carry the register axis */
        json_t *doc = json_load_file(from, 0, NULL);
        json_t *rmj = doc ? json_object_get(doc, "register_model") : NULL;
        json_t *dj = doc ? json_object_get(doc, "derived") : NULL;
        if (!(dj && vkocc_derived_from_json(dj, from, "$.derived", &dd) == VKOCC_OK) && !mo &&
            vkocc_derive(s.points, s.count, s.subgroup_size, &dd) != VKOCC_OK)
          dd.sm_count = 0;
        bool ok = rmj && vkocc_register_model_from_json(rmj, from, "$.register_model", &m) == VKOCC_OK && m.known &&
                  dd.sm_count;
        json_decref(doc);
        if (ok) {
          d = dd, dev = s.device, has_dev = s.has_device;
          snprintf(source, sizeof source, "%s", from);
          vkocc_surface_free(&s);
          goto have_model;
        }
        vkocc_surface_free(&s);
        return cli_error(cmd, 2, "--regs: %s holds no register axis (a surface, or a fingerprint without registers): "
                         "give the vkocc.registers document of `vkocc surface --registers`", from);
      }
      return cli_error(cmd, 2, "%s", why);
    }
    m = rd.model;
    if (!m.known && (st = vkocc_derive_registers(rd.points, rd.count, rd.has_base ? &rd.base : NULL, &m))) {
      vkocc_register_doc_free(&rd);
      return cli_error(cmd, 2, "--from %s: %s", from, vkocc_last_error());
    }
    if (!rd.has_base) { vkocc_register_doc_free(&rd); return cli_error(cmd, 2, "--from %s: $.base: missing", from); }
    d = rd.base;
    dev = rd.device, has_dev = rd.has_device;
    snprintf(source, sizeof source, "%s", from);
    vkocc_register_doc_free(&rd);
  } else {
    vkocc_context *ctx;
    if ((rc = cli_open(cmd, &c, &ctx))) return rc;
    dev = *vkocc_context_device(ctx), has_dev = true;
    vkocc_status st = VKOCC_OK;
    if (!vkocc_register_model_from_cache(&dev, &m)) {
      vkocc_register_point *p = NULL;
      uint32_t n = 0;
      if (!(st = vkocc_register_surface_measure(ctx, NULL, &(vkocc_register_surface_options){0}, &p, &n))) {
        if (!vkocc_register_base(p, n, dev.subgroup_size, &d) && !(st = vkocc_derive_registers(p, n, &d, &m))) {
          json_t *doc = vkocc_register_document(&dev, p, n, &d, NULL, &m, NULL);
          if (vkocc_register_cache_store(&dev, doc)) vkocc_clear_error();
          json_decref(doc);
        }
        free(p);
      }
    }
    vkocc_context_destroy(ctx);
    if (st) return cli_fail(cmd, st); /* no register statistic: exit 3, said once */
    vkocc_fingerprint fp;
    vkocc_fingerprint_details det;
    if (vkocc_fingerprint_from_cache(&dev, 0, &fp, &det)) {
      d = det.derived;
      snprintf(source, sizeof source, "the cached fingerprint %s and register model", det.cache_path);
      vkocc_fingerprint_details_free(&det);
    } else {
      char cache[1024];
      vkocc_register_cache_path(&dev, cache, sizeof cache);
      vkocc_register_doc rd;
      bool ok = vkocc_register_doc_from_cache(&dev, &rd), base = ok && rd.has_base;
      if (base) d = rd.base;
      if (ok) vkocc_register_doc_free(&rd);
      if (!base)
        return cli_error(cmd, 1, "calc --regs: no limits of %s: run `vkocc fingerprint` (or surface --registers)",
                         dev.name);
      snprintf(source, sizeof source, "the cached register document %s", cache);
    }
  }
have_model:
  if (!m.known) return cli_error(cmd, 3, "--regs: the register axis of %s is unknown (no register statistic)",
                                 has_dev ? dev.name : from);
  /* the model is known up to the most registers measured (the driver's cap where more live values gave no more) */
  uint32_t maxr = m.max_per_invocation ? m.max_per_invocation
                  : m.subgroup_size ? m.regs_per_sm / m.subgroup_size : UINT32_MAX;
  if (regs > maxr)
    return cli_error(cmd, 2, "--regs %u is above the most registers an invocation gets on %s (%u%s)", regs,
                     has_dev ? dev.name : from, maxr, m.max_capped ? "" : ", the most measured");
  uint32_t dev_max_wg = has_dev && dev.max_invocations ? vkocc_device_max_wg_size(&dev) : 1024;
  if (have_wg && wg > dev_max_wg)
    return cli_error(cmd, 2, "--wg %u is above the largest workgroup of %s (%u)", wg, has_dev ? dev.name : from, dev_max_wg);
  if (has_dev && dev.max_shared_bytes && shm > dev.max_shared_bytes)
    return cli_error(cmd, 2, "--shmem %u is above maxComputeSharedMemorySize = %u of %s", shm, dev.max_shared_bytes,
                     dev.name);
  json_t *doc = vkocc_doc_new(VKOCC_DOC_CALC), *rows = json_array();
  json_object_set_new(doc, "derived", vkocc_derived_json(&(vkocc_derived){.sm_count = d.sm_count, .wg_per_sm = d.wg_per_sm,
      .subgroups_per_sm = d.subgroups_per_sm, .subgroups_per_sm_max = d.subgroups_per_sm_max,
      .subgroups_bound_seen = d.subgroups_bound_seen, .subgroup_size = d.subgroup_size, .threads_per_sm = d.threads_per_sm,
      .shared_per_sm = d.shared_per_sm, .shared_per_sm_max = d.shared_per_sm_max, .shared_bound_seen = d.shared_bound_seen,
      .explained = d.explained, .total = d.total}, NULL));
  json_object_set_new(doc, "register_model", vkocc_register_model_json(&m));
  json_object_set_new(doc, "registers", json_integer(regs));
  if (has_dev) json_object_set_new(doc, "device", vkocc_device_info_json(&dev));
  uint32_t sg = d.subgroup_size ? d.subgroup_size : 1;
  vkocc_limits_per_sm l;
  double pct;
  if (suggest) {
    uint32_t limit = max_wg ? max_wg : dev_max_wg, best_wg = 0, best_thr = 0, cands = 0, best_sh = 0;
    for (uint32_t w = sg; w <= limit; w += sg) {
      uint64_t sh = rule.base + (uint64_t)rule.per_thread * w;
      if (sh > VKOCC_MAX_SHARED_BYTES || (has_dev && dev.max_shared_bytes && sh > dev.max_shared_bytes)) continue;
      cands++;
      vkocc_limits_per_sm_registers(&d, &m, w, (uint32_t)sh, regs, &l);
      if (l.wg_per_sm && l.wg_per_sm * w >= best_thr) best_thr = l.wg_per_sm * w, best_wg = w, best_sh = (uint32_t)sh;
    }
    if (!best_wg) {
      json_decref(rows), json_decref(doc);
      return cli_error(cmd, 2, "--suggest-wg: none of %u sizes fits with %u registers per invocation", cands, regs);
    }
    json_t *r = row_json(&d, &m, best_wg, best_sh, regs, &l, &pct);
    json_object_set_new(r, "candidates", json_integer(cands));
    json_object_set_new(doc, "suggestion", r);
    if (!c.json) {
      char a[16], b[16], sh[16], rg[16];
      cli_limit_text(l.workgroup_slots, a), cli_limit_text(l.subgroup_slots, b), cli_limit_text(l.shared_memory, sh), cli_limit_text(l.registers, rg);
      printf("suggested workgroup size: %u threads, %u shared bytes, %u registers per invocation (%u sizes considered)\n",
             best_wg, best_sh, regs, cands);
      printf("occupancy: %.2f%% of %u threads per SM, %u workgroups per SM; binding limit: %s\n", pct, d.threads_per_sm,
             l.wg_per_sm, vkocc_limit_name(l.binding));
      printf("workgroups per SM by limit: workgroup slots %s, subgroup slots %s, shared memory %s, registers %s\n", a, b,
             sh, rg);
    }
  } else {
    if (table && !c.json)
      printf("%-8s %-10s %-10s %-13s %-8s %-8s %-8s %-8s %-8s %s\n", "WG size", "Shared [B]", "Registers",
             "Occupancy [%]", "WGs/SM", "by slots", "by sgs", "by shm", "by regs", "Limit");
    for (uint32_t w = table ? sg : wg; table ? w <= dev_max_wg : w == wg; w += table ? sg : 1) {
      json_t *r = row_json(&d, &m, w, shm, regs, &l, &pct);
      json_array_append_new(rows, r);
      if (c.json) continue;
      char a[16], b[16], sh[16], rg[16];
      cli_limit_text(l.workgroup_slots, a), cli_limit_text(l.subgroup_slots, b), cli_limit_text(l.shared_memory, sh), cli_limit_text(l.registers, rg);
      if (table) {
        printf("%-8u %-10u %-10u %-13.2f %-8u %-8s %-8s %-8s %-8s %s\n", w, shm, regs, pct, l.wg_per_sm, a, b, sh, rg,
               vkocc_limit_name(l.binding));
        continue;
      }
      printf("device: %s\npoint:  workgroup %u threads, %u shared bytes, %u registers per invocation\n",
             has_dev ? dev.name : from, w, shm, regs);
      printf("resident workgroups: %u on the device, %u per SM; occupancy %.2f%% of %u threads per SM; binding "
             "limit: %s\n", (uint32_t)((uint64_t)l.wg_per_sm * d.sm_count), l.wg_per_sm, pct, d.threads_per_sm,
             vkocc_limit_name(l.binding));
      printf("workgroups per SM by limit: workgroup slots %s, subgroup slots %s, shared memory %s, registers %s\n", a, b,
             sh, rg);
    }
  }
  json_object_set_new(doc, "rows", rows);
  if (!c.json) {
    print_model(&m, NULL);
    printf("  (limits from %s)\n", source);
  }
  vkocc_status st;
  if (c.output && (st = cli_json_write(doc, c.output))) { json_decref(doc); return cli_fail(cmd, st); }
  if (c.json) return cli_emit_json(cmd, doc, NULL);
  json_decref(doc);
  return 0;
}

/* ---------------------------------------------------------------- plot registers */
#ifdef VKOCC_HAVE_CAIRO
int cli_plot_registers(int argc, char **argv);
int cli_plot_registers(int argc, char **argv) {
  const char *cmd = "plot", *out = NULL, *from = NULL;
  uint32_t wg = 0, shm = 0, regs = 0;
  vkocc_plot_options po = {0};
  static const struct option opts[] = {{"output", required_argument, 0, 'o'}, {"wg", required_argument, 0, 'w'},
                                       {"shmem", required_argument, 0, 's'}, {"regs", required_argument, 0, 'r'},
                                       {"width", required_argument, 0, 'W'}, {"height", required_argument, 0, 'H'},
                                       {0}};
  int ch;
  optind = 1;
  while ((ch = getopt_long(argc, argv, "o:", opts, NULL)) != -1) {
    switch (ch) {
    case 'o': out = optarg; break;
    case 'w': if (!cli_parse_u32(optarg, false, &wg) || !wg) return cli_error(cmd, 2, "--wg '%s': a positive integer", optarg); break;
    case 's': if (!cli_parse_u32(optarg, true, &shm)) return cli_error(cmd, 2, "--shmem '%s': bytes", optarg); break;
    case 'r': if (!cli_parse_u32(optarg, false, &regs) || !regs) return cli_error(cmd, 2, "--regs '%s': a positive integer", optarg); break;
    case 'W': if (!cli_parse_u32(optarg, false, &po.width) || po.width < 200 || po.width > 10000) return cli_error(cmd, 2, "--width '%s': 200..10000", optarg); break;
    case 'H': if (!cli_parse_u32(optarg, false, &po.height) || po.height < 150 || po.height > 10000) return cli_error(cmd, 2, "--height '%s': 150..10000", optarg); break;
    default: return cli_error(cmd, 2, "usage: vkocc plot registers FILE --wg N --regs R [--shmem B] -o OUT");
    }
  }
  if (optind != argc - 1) return cli_error(cmd, 2, "plot registers: give one FILE (a vkocc.registers document)");
  from = argv[optind];
  if (!out || !wg || !regs) return cli_error(cmd, 2, "plot registers: -o OUT, --wg N and --regs R are required");
  int rc = cli_check_output(cmd, "-o", out);
  if (rc) return rc;
  vkocc_register_doc rd;
  vkocc_status st = vkocc_register_doc_load(from, &rd);
  if (st) return cli_fail(cmd, st);
  vkocc_register_model m = rd.model;
  if (!rd.has_base) { vkocc_register_doc_free(&rd); return cli_error(cmd, 2, "%s: $.base: missing", from); }
  if (!m.known && (st = vkocc_derive_registers(rd.points, rd.count, &rd.base, &m))) {
    vkocc_register_doc_free(&rd);
    return cli_fail(cmd, st);
  }
  st = vkocc_plot_registers(&rd.base, &m, rd.has_device ? &rd.device : NULL, wg, shm, regs, out, &po);
  vkocc_register_doc_free(&rd);
  return st ? cli_fail(cmd, st) : 0;
}
#endif
