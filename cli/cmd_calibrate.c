#include "cli.h"
#include <getopt.h>
#include <stdlib.h>

static const char *help =
    "usage: vkocc calibrate [--device D] [--queue Q] [--json] [--lengths N] [--repeats K] [--longest-ms MS]\n"
    "                       [--no-shader-clock] [-o FILE]\n"
    "Measures clockRealtimeEXT and clockARB against vkCmdWriteTimestamp around the same spin: N spin\n"
    "lengths spanning 20x (default 8), K repeats each (default 5), warm-ups discarded, then a robust\n"
    "least-squares fit of queue nanoseconds against in-shader ticks. Reports ns per realtime tick (from\n"
    "the dispatches' starts: each start timestamp against the realtime clock at its spin's start, one line\n"
    "over the run; the intervals' fit beside it), the shader clock in MHz, the dispatch overhead\n"
    "(intercept), R^2 and the largest relative residual. N is 4..64: 2 or 3 points fit a line whatever they\n"
    "measured. A fit below R^2 0.999, or one the timestamps do not allow (a spin whose ticks would outlast its\n"
    "dispatch, spins too short to judge), is measured again with longer spins, then refused: exit 1 with the\n"
    "numbers, and -o writes no file.\n"
    "--no-shader-clock measures as if the device had no VK_KHR_shader_clock. -o FILE writes the JSON\n"
    "document (schema vkocc.calibration/1) that --json prints.\n";

static void print_fit(const char *what, const vkocc_linfit *f) {
  printf("  %-22s R^2 %.6f, max rel. residual %.2f%%, %u/%u points kept\n", what, f->r2, 100 * f->max_rel_residual,
         f->n_used, f->n);
}

int cmd_calibrate(cli_run *run, int argc, char **argv) {
  cli_common c = {.run = run};
  vkocc_calibrate_options o = {0};
  static const struct option opts[] = {CLI_DEVICE_OPTIONS, CLI_JSON_OPTION, CLI_OUTPUT_OPTION,
                                       {"lengths", required_argument, 0, 'l'}, {"repeats", required_argument, 0, 'r'},
                                       {"longest-ms", required_argument, 0, 'L'}, {"help", no_argument, 0, 'h'}, {0}};
  int ch;
  uint32_t v;
  while ((ch = getopt_long(argc, argv, "hd:o:", opts, NULL)) != -1) {
    switch (ch) {
    case 'l':
      if (!cli_parse_u32(optarg, false, &v) || v > 64)
        return cli_error("calibrate", 2, "--lengths '%s': expected an integer 4..64", optarg);
      if (v < 4) /* the library's VKOCC_CALIBRATION_MIN_LENGTHS */
        return cli_error("calibrate", 2, "--lengths %u: a calibration needs at least 4 spin lengths (2 or 3 points fit a "
                         "line with R^2 near 1 whatever they measured)", v);
      o.lengths = v;
      break;
    case 'r':
      if (!cli_parse_u32(optarg, false, &v) || v < 1 || v > 64)
        return cli_error("calibrate", 2, "--repeats '%s': expected an integer 1..64", optarg);
      o.repeats = v;
      break;
    case 'L': {
      double ms;
      if (!cli_parse_double(optarg, 0.01, 1000, &ms))
        return cli_error("calibrate", 2, "--longest-ms '%s': expected a number 0.01..1000", optarg);
      o.longest_ns = ms * 1e6;
      break;
    }
    case 'h': fputs(help, stdout); return 0;
    default: {
      int rc = cli_common_option("calibrate", ch, optarg, &c);
      if (rc > 0) return rc;
      if (rc < 0) return cli_usage_error(help);
    }
    }
  }
  if (optind < argc) return cli_error("calibrate", 2, "unexpected argument '%s'", argv[optind]);
  int rc = cli_check_output("calibrate", "-o", c.output);
  if (rc) return rc;
  vkocc_context *ctx;
  rc = cli_open("calibrate", &c, &ctx);
  if (rc) return rc;
  vkocc_calibration cal;
  /* a poor fit is refused (exit 1) but still printed (--json: the document marked poor_fit): the numbers are the
   * evidence. It writes no -o file: that would replace a calibration the user kept there with a refused one. */
  vkocc_status s = vkocc_calibrate(ctx, &o, &cal);
  if (s && !cal.poor_fit) return cli_fail("calibrate", s);
  if (s) fprintf(stderr, "vkocc calibrate: %s\n", vkocc_last_error());
  const vkocc_device_info *d = vkocc_context_device(ctx);
  vkocc_status w;
  if (c.output && !cal.poor_fit && (w = vkocc_calibration_save(d, &cal, c.output))) return cli_fail("calibrate", w);
  if (c.json) { /* poor_fit is in the document */
    w = vkocc_calibration_save(d, &cal, "-");
    return w ? cli_fail("calibrate", w) : cal.poor_fit ? 1 : 0;
  }
  printf("device: %s (%s %s)\n", d->name, d->driver_name, d->driver_info);
  char qt[96];
  cli_queue_text(d, qt, sizeof qt);
  printf("%s\n", qt);
  if (cal.has_device_clock) {
    printf("realtime clock:          %.4f ns per tick (%.2f MHz), from the dispatch %s\n", cal.ns_per_tick,
           1e3 / cal.ns_per_tick, cal.from_starts ? "starts" : "intervals");
    printf("  starts fit:            %.4f ns per tick over %.1f ms, %u/%u starts kept\n", cal.anchor_fit.slope,
           cal.anchor_span_ns / 1e6, cal.anchor_fit.n_used, cal.anchor_fit.n);
    printf("  intervals fit:         %.4f ns per tick, R^2 %.6f, max rel. residual %.2f%%, %u/%u points kept\n",
           cal.realtime_fit.slope, cal.realtime_fit.r2, 100 * cal.realtime_fit.max_rel_residual, cal.realtime_fit.n_used,
           cal.realtime_fit.n);
  } else {
    printf("realtime clock:          not available\n");
  }
  if (cal.has_subgroup_clock) {
    printf("shader (subgroup) clock: %.1f MHz\n", cal.shader_clock_mhz);
    print_fit("subgroup fit:", &cal.subgroup_fit);
  } else {
    printf("shader (subgroup) clock: not available\n");
  }
  printf("spin rate:               %.4f ns per iteration\n", cal.spin_fit.slope);
  print_fit("spin fit:", &cal.spin_fit);
  printf("dispatch overhead:       %.1f us (fit intercept)\n", cal.overhead_ns / 1e3);
  printf("timestampPeriod:         %g ns, %u valid bits", cal.timestamp_period, cal.timestamp_valid_bits);
  if (cal.has_device_clock)
    printf("; realtime tick %s timestampPeriod", cal.tick_equals_period ? "equals" : "differs from");
  printf("\nsamples:                 %u (longest %.2f ms), %u wraps corrected, %u backwards dropped\n", cal.samples,
         cal.longest_ns / 1e6, cal.wraps, cal.backwards);
  if (cal.attempts > 1) printf("attempts:                %u (a poor fit is measured again)\n", cal.attempts);
  if (cal.note[0]) printf("note: %s\n", cal.note);
  return cal.poor_fit ? 1 : 0;
}
