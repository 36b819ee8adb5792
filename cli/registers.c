/* The register axis on the command line: `vkocc surface --registers` (measure the register surface, derive the
 * register file, cache it for probe --shader), reached from cmd_surface.c's one parse of the options, and
 * `vkocc plot registers`. The calculator with registers (calc --regs) is the library's (vkocc_calc_*). */
#include "cli.h"
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

const char cli_surface_registers_help[] =
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

int cli_surface_registers(cli_common *cc, const cli_surface_registers_args *a) {
  const char *cmd = "surface";
  cli_common c = *cc;
  const char *from = a->from;
  uint32_t *wg = a->wg, *live = a->live;
  uint32_t nwg = a->nwg, nlive = a->nlive;
  int rc = 0;
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
  vkocc_register_model_write_text(stdout, &m, p);
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
  return rc;
}

/* ---------------------------------------------------------------- plot registers */
#ifdef VKOCC_HAVE_CAIRO
int cli_plot_registers(cli_run *run, int argc, char **argv);
int cli_plot_registers(cli_run *run, int argc, char **argv) {
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
