/* vkocc barrier-test: the device-wide barrier kernel with P + K workgroups against the CPU (docs/barrier.md). */
#include "cli.h"
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static const char *help =
    "usage: vkocc barrier-test [--device D] [--queue Q] [--shader FILE] [--extra K] [--runs N] [--bound-ms MS]\n"
    "                          [--rounds R] [--wg N] [--max-iters N] [--P N] [--fresh] [--no-shader-clock] [--json]\n"
    "Measures P of the barrier kernel's own pipeline (augmentation + comb, cached), dispatches P + K workgroups\n"
    "(K = --extra, default 0) of it N times (default 1), each R device-wide barriers (default 16), and checks the\n"
    "values against the CPU. Every wait in the shader is bounded: MS milliseconds on the realtime clock (default\n"
    "1000; the subgroup clock where only that exists) and an iteration budget (--max-iters; default 60000 on CPU\n"
    "devices, under lavapipe's loop cap of 65535, else 2^24). Exit 0: every run completed with correct values;\n"
    "1: a bound fired (\"barrier timed out: fewer than P workgroups were resident\") or a wrong value.\n"
    "--shader FILE: your kernel with the interface of kernels/barrier/barrier_test.comp (binding 0 the state of\n"
    "<vkocc/device_barrier.glsl>, binding 1 uint v[2 n], constant_id 0 the workgroup size, push { rounds }).\n"
    "--P N takes P as given (no measurement); --fresh ignores the cached P. --no-shader-clock: as if the device had\n"
    "no shader clock (the waits are bounded by iterations only; measuring P needs the clock, so give --P).\n";

static json_t *run_json(const vkocc_barrier_run *r) {
  return json_pack("{s:b, s:b, s:i, s:i, s:f, s:f, s:f, s:f, s:i}", "completed", r->completed, "correct", r->correct,
                   "abort_bits", (json_int_t)r->abort_bits, "mismatches", (json_int_t)r->mismatches, "gpu_ms", r->gpu_ms,
                   "wall_ms", r->wall_ms, "max_wait_ms", r->max_wait_ms, "fired_wait_ms", r->fired_wait_ms,
                   "max_wait_iterations", (json_int_t)r->max_used);
}

static void stats(const vkocc_barrier_test_result *r, bool completed, bool gpu, vkocc_summary *sm) {
  double *v = cli_xmalloc((r->runs ? r->runs : 1) * sizeof *v);
  uint32_t n = 0;
  for (uint32_t i = 0; i < r->runs; i++)
    if (r->run[i].completed == completed) v[n++] = gpu ? r->run[i].gpu_ms : r->run[i].wall_ms;
  memset(sm, 0, sizeof *sm);
  if (n) vkocc_summarize(v, n, sm);
  free(v);
}

static json_t *summary_json(const vkocc_summary *s) {
  if (!s->n) return json_null();
  return json_pack("{s:i, s:f, s:f, s:f}", "n", (json_int_t)s->n, "median", s->median, "min", s->min, "max", s->max);
}

int cmd_barrier_test(cli_run *run, int argc, char **argv) {
  cli_common c = {.run = run};
  vkocc_barrier_test_options o = {.use_cache = true};
  static const struct option opts[] = {
      {"device", required_argument, 0, 'd'}, CLI_QUEUE_OPTION, {"json", no_argument, 0, 'j'},
      {"shader", required_argument, 0, 's'}, {"extra", required_argument, 0, 'k'}, {"runs", required_argument, 0, 'n'},
      {"bound-ms", required_argument, 0, 'b'}, {"rounds", required_argument, 0, 'r'}, {"wg", required_argument, 0, 'w'},
      {"max-iters", required_argument, 0, 'i'}, {"P", required_argument, 0, 'P'}, {"fresh", no_argument, 0, 'f'},
      {"no-shader-clock", no_argument, 0, 'c'},
      {"help", no_argument, 0, 'h'}, {0}};
  int ch;
  uint32_t v;
  while ((ch = getopt_long(argc, argv, "hd:", opts, NULL)) != -1) {
    switch (ch) {
    case 'd': c.device = optarg; break;
    case CLI_OPT_QUEUE: c.queue = optarg; break;
    case 'j': c.json = true; break;
    case 's': o.shader = optarg; break;
    case 'f': o.use_cache = false; break;
    case 'c': c.no_clock = true; break;
    case 'k':
      if (!cli_parse_u32(optarg, false, &v) || v > 1000000)
        return cli_error("barrier-test", 2, "--extra '%s': expected an integer 0..1000000", optarg);
      o.extra = v;
      break;
    case 'n':
      if (!cli_parse_u32(optarg, false, &v) || v < 1 || v > 100000)
        return cli_error("barrier-test", 2, "--runs '%s': expected an integer 1..100000", optarg);
      o.runs = v;
      break;
    case 'r':
      if (!cli_parse_u32(optarg, false, &v) || v < 1 || v > 4096)
        return cli_error("barrier-test", 2, "--rounds '%s': expected an integer 1..4096", optarg);
      o.rounds = v;
      break;
    case 'w':
      if (!cli_parse_u32(optarg, false, &v) || v < 1 || v > 65536)
        return cli_error("barrier-test", 2, "--wg '%s': expected an integer 1..65536", optarg);
      o.wg_size = v;
      break;
    case 'i':
      if (!cli_parse_u32(optarg, false, &v) || v < 1 || v > 0x7fffffffu)
        return cli_error("barrier-test", 2, "--max-iters '%s': expected an integer 1..2^31-1", optarg);
      o.max_iters = v;
      break;
    case 'P':
      if (!cli_parse_u32(optarg, false, &v) || v < 1 || v > 1000000)
        return cli_error("barrier-test", 2, "--P '%s': expected an integer 1..1000000", optarg);
      o.P = v;
      break;
    case 'b': {
      double ms;
      if (!cli_parse_double(optarg, 0.001, 600000, &ms))
        return cli_error("barrier-test", 2, "--bound-ms '%s': expected a number 0.001..600000", optarg);
      o.bound_ms = ms;
      break;
    }
    case 'h': fputs(help, stdout); return 0;
    default: fputs(help, stderr); return 2;
    }
  }
  if (optind < argc) return cli_error("barrier-test", 2, "unexpected argument '%s'", argv[optind]);
  if (o.shader) {
    FILE *f = fopen(o.shader, "rb");
    if (!f) return cli_error("barrier-test", 2, "--shader %s: cannot read the file", o.shader);
    fclose(f);
  }
  vkocc_context *ctx;
  int rc = cli_open("barrier-test", &c, &ctx);
  if (rc) return rc;
  vkocc_barrier_test_result r;
  vkocc_status s = vkocc_barrier_test(ctx, &o, &r);
  if (s && !r.runs) { /* nothing ran: a usage, compile or device error */
    vkocc_barrier_test_result_free(&r);
    return cli_fail("barrier-test", s);
  }
  char msg[1024];
  snprintf(msg, sizeof msg, "%s", s ? vkocc_last_error() : "");
  const vkocc_device_info *d = vkocc_context_device(ctx);
  vkocc_summary ok_gpu, to_gpu, to_wall;
  stats(&r, true, true, &ok_gpu);
  stats(&r, false, true, &to_gpu);
  stats(&r, false, false, &to_wall);
  double max_wait = 0;
  uint32_t max_used = 0;
  for (uint32_t i = 0; i < r.runs; i++) {
    if (r.run[i].completed && r.run[i].max_wait_ms > max_wait) max_wait = r.run[i].max_wait_ms;
    if (r.run[i].max_used > max_used) max_used = r.run[i].max_used;
  }
  if (c.json) {
    json_t *runs = json_array();
    for (uint32_t i = 0; i < r.runs; i++) json_array_append_new(runs, run_json(&r.run[i]));
    json_t *doc = json_pack(
        "{s:s, s:s, s:o, s:s, s:i, s:s, s:f, s:i, s:i, s:i, s:i, s:i,"
        " s:{s:s, s:f, s:f, s:b, s:i, s:i, s:f},"
        " s:i, s:i, s:i, s:i, s:i, s:b, s:s, s:o, s:o, s:o, s:f, s:o}",
        "schema", vkocc_doc_schema_string(VKOCC_DOC_BARRIER_TEST), "tool_version", vkocc_version(), "device", vkocc_device_info_json(d),
        "kernel", o.shader ? o.shader : "kernels/barrier/barrier_test.comp", "P", (json_int_t)r.P, "P_source",
        r.P_given ? "given" : r.P_from_cache ? "cache" : "measured", "P_measure_ms", r.measure_ms,
        "extra", (json_int_t)o.extra, "groups", (json_int_t)r.groups, "wg_size", (json_int_t)r.wg_size, "rounds",
        (json_int_t)r.rounds, "runs", (json_int_t)r.runs, "bounds", "clock", r.bounds.clock, "bound_ms",
        r.bounds.bound_ms, "asked_ms", r.bounds.asked_ms, "clamped", r.bounds.clamped, "bound_ticks",
        (json_int_t)r.bounds.bound_ticks, "max_iterations", (json_int_t)r.bounds.max_iters, "ns_per_tick", r.bounds.ns_per_tick, "completed", (json_int_t)r.completed,
        "correct", (json_int_t)r.correct, "timed_out", (json_int_t)r.timed_out, "wrong", (json_int_t)r.wrong,
        "max_wait_iterations", (json_int_t)max_used, "ok", s == VKOCC_OK, "message", msg, "completed_gpu_ms",
        summary_json(&ok_gpu), "timed_out_gpu_ms", summary_json(&to_gpu), "timed_out_wall_ms", summary_json(&to_wall),
        "max_completed_wait_ms", max_wait, "run", runs);
    rc = cli_emit_json("barrier-test", doc, NULL);
  } else {
    char qt[96];
    cli_queue_text(d, qt, sizeof qt);
    printf("device: %s (%s %s), %s\n", d->name, d->driver_name, d->driver_info, qt);
    printf("kernel: %s, workgroup %u, %u barriers per run\n", o.shader ? o.shader : "kernels/barrier/barrier_test.comp",
           r.wg_size, r.rounds);
    printf("P = %u (%s%s), dispatched %u = P + %u\n", r.P, r.P_given ? "given" : r.P_from_cache ? "cache" : "measured",
           r.P_given || r.P_from_cache ? "" : ", augmented pipeline, comb", r.groups, o.extra);
    if (r.bounds.bound_ticks) {
      printf("bounds: %.0f ms on the %s clock (%u ticks), %u wait iterations per invocation\n", r.bounds.bound_ms,
             r.bounds.clock, r.bounds.bound_ticks, r.bounds.max_iters);
      if (r.bounds.clamped)
        printf("note: --bound-ms %g clamped to %.0f ms: the shader compares 32-bit differences of the %s clock "
               "(1..2^31 - 1 ticks)\n", r.bounds.asked_ms, r.bounds.bound_ms, r.bounds.clock);
    } else
      printf("bounds: no shader clock, iterations only: %u wait iterations per invocation\n", r.bounds.max_iters);
    printf("runs: %u, completed %u (correct %u, wrong %u), timed out %u\n", r.runs, r.completed, r.correct, r.wrong,
           r.timed_out);
    if (ok_gpu.n)
      printf("completed runs: %.3f ms median (%.3f..%.3f), longest wait %.3f ms, most wait iterations %u\n",
             ok_gpu.median, ok_gpu.min, ok_gpu.max, max_wait, max_used);
    if (to_gpu.n)
      printf("timed-out runs: %.1f ms median on the GPU (%.1f..%.1f), %.1f ms on the host (%.1f..%.1f)\n", to_gpu.median,
             to_gpu.min, to_gpu.max, to_wall.median, to_wall.min, to_wall.max);
  }
  if (s) {
    fprintf(stderr, "vkocc barrier-test: %s\n", msg);
    if (!rc) rc = s;
  }
  vkocc_barrier_test_result_free(&r);
  return rc;
}
