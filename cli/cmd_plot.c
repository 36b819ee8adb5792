#include "cli.h"
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static const char *help =
    "usage: vkocc plot surface FILE -o OUT                  occupancy heatmap (wg size x shared memory)\n"
    "       vkocc plot wg FILE [--shmem LIST] -o OUT         occupancy against workgroup size, a line per shared size\n"
    "                                                        (--shmem: up to 8; default: 6 spread over the ladder)\n"
    "       vkocc plot comb RAWFILE -o OUT                   start-time histogram of one probe (probe --raw)\n"
    "       vkocc plot compare A.json B.json ... -o OUT      normalized surfaces of fingerprints side by side\n"
    "       vkocc plot registers REGS.json --wg N --regs R [--shmem B] -o OUT   occupancy against registers, shared\n"
    "                                                        memory and workgroup size (surface --registers -o)\n"
    "options: --width W --height H: pixels (PNG) or points (SVG, PDF); default 1000 x 700, for PDF a 6.5 x 4 inch\n"
    "page (468 x 288). OUT ends in .png, .svg or .pdf; SVG text is SVG <text> (searchable, selectable).\n"
    "FILE is any surface vkocc writes (surface, surface --shader --vary, fingerprint, calc -o JSON) or a CSV\n"
    "wg_size,shared_bytes,P (calc --csv output reads back too).\n";

#ifdef VKOCC_HAVE_CAIRO
int cli_plot_registers(cli_run *run, int argc, char **argv); /* cli/registers.c */
/* a plot kind with options of its own; the other kinds share the options below */
static const cli_command kinds[] = {{"registers", cli_plot_registers, "the register file at a point", CLI_NO_DEVICE}};
int cmd_plot(cli_run *run, int argc, char **argv) {
  (void)run;
  const cli_command *kind_cmd = cli_find_command(kinds, 1, argc > 1 ? argv[1] : NULL);
  if (kind_cmd) return cli_dispatch(kind_cmd, "plot", argc - 1, argv + 1);
  if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
    fputs(help, argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  const char *kind = argv[1];
  if (strcmp(kind, "surface") && strcmp(kind, "wg") && strcmp(kind, "comb") && strcmp(kind, "compare"))
    return cli_error("plot", 2, "unknown plot '%s' (surface, wg, comb or compare)", kind);
  argc--, argv++;
  char prog[32] = "vkocc plot";
  argv[0] = prog; /* getopt's messages: "vkocc plot: unrecognized option", not "surface: ..." */
  const char *out = NULL;
  vkocc_plot_options po = {0};
  uint32_t *shm = NULL, nshm = 0;
  static const struct option opts[] = {{"output", required_argument, 0, 'o'}, {"width", required_argument, 0, 'W'},
                                       {"height", required_argument, 0, 'H'}, {"shmem", required_argument, 0, 's'},
                                       {"help", no_argument, 0, 'h'}, {0}};
  int ch, rc = 0;
  while ((ch = getopt_long(argc, argv, "ho:", opts, NULL)) != -1) {
    switch (ch) {
    case 'o': out = optarg; break;
    case 'W':
      if (!cli_parse_u32(optarg, false, &po.width) || po.width < 200 || po.width > 10000)
        { rc = cli_error("plot", 2, "--width '%s': expected 200..10000", optarg); goto done; }
      break;
    case 'H':
      if (!cli_parse_u32(optarg, false, &po.height) || po.height < 150 || po.height > 10000)
        { rc = cli_error("plot", 2, "--height '%s': expected 150..10000", optarg); goto done; }
      break;
    case 's':
      free(shm);
      if (!cli_parse_list(optarg, true, &shm, &nshm) || nshm > 8)
        { rc = cli_error("plot", 2, "--shmem '%s': expected up to 8 byte counts, e.g. 0,16K,32K", optarg); goto done; }
      break;
    case 'h': fputs(help, stdout); goto done;
    default: fputs(help, stderr); rc = 2; goto done;
    }
  }
  if (!out) { rc = cli_error("plot", 2, "-o OUT is required (.png, .svg or .pdf)"); goto done; }
  /* the output checked before the input is read and derived, which can take a while */
  const char *ext = strrchr(out, '.');
  if (!ext || (strcasecmp(ext, ".png") && strcasecmp(ext, ".svg") && strcasecmp(ext, ".pdf"))) {
    rc = cli_error("plot", 2, "-o '%s': unknown image type (use .png, .svg or .pdf)", out);
    goto done;
  }
  if ((rc = cli_check_output("plot", "-o", out))) goto done;
  uint32_t nfiles = (uint32_t)(argc - optind);
  if (nfiles == 0 || (strcmp(kind, "compare") && nfiles != 1)) {
    rc = cli_error("plot", 2, "plot %s takes %s", kind, strcmp(kind, "compare") ? "one input file" : "1 to 6 fingerprints");
    goto done;
  }
  vkocc_status st = VKOCC_OK;
  if (!strcmp(kind, "comb")) {
    vkocc_interval *iv;
    uint32_t n;
    vkocc_device_info dev;
    if (!(st = vkocc_raw_probe_load(argv[optind], &iv, &n, &dev))) {
      char ttl[1200];
      snprintf(ttl, sizeof ttl, "%s — %s %s", dev.name[0] ? dev.name : "device unknown", dev.driver_name, dev.driver_info);
      st = vkocc_plot_comb(iv, n, ttl, out, &po);
      free(iv);
    }
  } else if (!strcmp(kind, "compare")) {
    if (nfiles > 6) { rc = cli_error("plot", 2, "plot compare takes at most 6 fingerprints"); goto done; }
    vkocc_fingerprint fps[6];
    for (uint32_t i = 0; i < nfiles && !st; i++) st = vkocc_fingerprint_load(argv[optind + i], &fps[i]);
    if (!st) st = vkocc_plot_compare(fps, nfiles, out, &po);
  } else {
    vkocc_surface s;
    vkocc_derived d;
    bool model_only;
    if (!(st = vkocc_surface_load_model(argv[optind], &s, &d, &model_only))) {
      if (model_only) {
        vkocc_surface_free(&s);
        rc = cli_error("plot", 2, "plot %s needs a measured surface: %s is a fingerprint without one (its normalized "
                       "surface: vkocc plot compare %s)", kind, argv[optind], argv[optind]);
        goto done;
      }
      if (!(st = vkocc_derive(s.points, s.count, s.subgroup_size, &d))) {
        uint32_t def[6], ndef = shm ? 0 : vkocc_plot_wg_default_sizes(&s, def, 6);
        if (!strcmp(kind, "surface")) st = vkocc_plot_surface(&s, &d, out, &po);
        else st = vkocc_plot_wg(&s, &d, shm ? shm : def, shm ? nshm : ndef, out, &po);
      }
      vkocc_surface_free(&s);
    }
  }
  if (st) rc = cli_fail("plot", st);
done:
  free(shm);
  return rc;
}
#else
int cmd_plot(cli_run *run, int argc, char **argv) {
  if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) { fputs(help, stdout); return 0; }
  return cli_error("plot", 3, "this vkocc was built without cairo (VKOCC_WITH_VIEWER=OFF)");
}
#endif
