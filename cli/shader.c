/* --shader on probe, calc and surface: P of the user's own pipeline (vkocc_pipeline_occupancy), compared
 * with the device surface where one is given (--from), and swept over specialization constants (--vary). */
#include "cli.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ID=VALUE, VALUE an integer or a float */
static bool parse_spec(const char *s, vkocc_spec_value *v) {
  const char *eq = strchr(s, '=');
  if (!eq || eq == s) return false;
  char id[32];
  if ((size_t)(eq - s) >= sizeof id) return false;
  memcpy(id, s, eq - s);
  id[eq - s] = 0;
  if (!cli_parse_u32(id, false, &v->id)) return false;
  char *end;
  v->value = strtod(eq + 1, &end);
  return eq[1] && !*end && isfinite(v->value);
}

int cli_shader_option(const char *cmd, int ch, const char *arg, cli_shader *o) {
  switch (ch) {
  case CLI_OPT_SHADER: o->path = arg; return 0;
  case CLI_OPT_ENTRY: o->entry = arg; return 0;
  case CLI_OPT_FROM: o->from = arg; return 0;
  case CLI_OPT_ALLOW_OTHER_DEVICE: o->allow_other_device = true; return 0;
  case CLI_OPT_SPEC:
    if (o->nspec >= CLI_MAX_SPEC) return cli_error(cmd, 2, "--spec: at most %d", CLI_MAX_SPEC);
    if (!parse_spec(arg, &o->spec[o->nspec]))
      return cli_error(cmd, 2, "--spec '%s': expected ID=VALUE (an integer ID, a number)", arg);
    for (uint32_t i = 0; i < o->nspec; i++) /* the same ID again: the last value wins (one map entry per ID) */
      if (o->spec[i].id == o->spec[o->nspec].id) { o->spec[i].value = o->spec[o->nspec].value; return 0; }
    o->nspec++;
    return 0;
  case CLI_OPT_DEFINE:
    if (o->ndefines >= CLI_MAX_SPEC) return cli_error(cmd, 2, "--define: at most %d", CLI_MAX_SPEC);
    if (!arg[0] || arg[0] == '=') return cli_error(cmd, 2, "--define '%s': expected NAME=VALUE or NAME", arg);
    o->defines[o->ndefines++] = arg;
    return 0;
  case CLI_OPT_VARY: {
    if (o->nvary >= 4) return cli_error(cmd, 2, "--vary: at most 4");
    const char *eq = strchr(arg, '=');
    char id[32];
    cli_vary *v = &o->vary[o->nvary];
    if (!eq || eq == arg || (size_t)(eq - arg) >= sizeof id)
      return cli_error(cmd, 2, "--vary '%s': expected ID=V1,V2,...", arg);
    memcpy(id, arg, eq - arg);
    id[eq - arg] = 0;
    if (!cli_parse_u32(id, false, &v->id) || !cli_parse_list(eq + 1, true, &v->values, &v->n) || !v->n)
      return cli_error(cmd, 2, "--vary '%s': expected ID=V1,V2,... (unsigned values, lists or ranges)", arg);
    o->nvary++;
    return 0;
  }
  }
  return -1;
}

void cli_shader_free(cli_shader *o) {
  for (uint32_t i = 0; i < o->nvary; i++) free(o->vary[i].values);
}

static vkocc_shader_desc desc_of(const cli_shader *o) {
  return (vkocc_shader_desc){.path = o->path, .entry = o->entry, .defines = o->defines, .ndefines = o->ndefines,
                             .spec = o->spec, .nspec = o->nspec, .unmodified = o->unmodified};
}

/* The limit that binds for this pipeline, against the device model derived from a surface (the library's
 * vkocc_pipeline_limits), printed. */
static void print_limits(const vkocc_derived *d, const vkocc_register_model *rm, const vkocc_pipeline_result *r) {
  vkocc_pipeline_limits l;
  vkocc_pipeline_limits_compute(d, rm, r, &l);
  printf("occupancy: %.2f%% of %u threads per SM\n", l.occupancy_pct, l.threads_per_sm);
  printf("per SM: %.2f workgroups measured (%u SMs); limits in workgroups per SM: workgroup slots %u, subgroup "
         "slots %u (%u subgroups each)",
         l.per_sm, l.sm_count, l.by_workgroup_slots, l.by_subgroup_slots, l.subgroups_per_workgroup);
  if (r->shared_bytes) printf(", shared memory %u (%u bytes per SM)", l.by_shared_memory, l.shared_per_sm);
  if (l.by_registers != VKOCC_NO_LIMIT) printf(", registers %u (%u per invocation)", l.by_registers, l.registers);
  else printf(", registers unknown");
  printf("\nsurface predicts P = %u; binding limit: %s\n", l.surface_P, l.binding);
}

/* quiet: a cache that does not load is no error (returns 1 without a message) */
static int load_derived(const char *cmd, const char *from, vkocc_derived *d, bool *have, bool quiet,
                        vkocc_register_model *d_regs) {
  *have = false;
  if (!from) return 0;
  vkocc_surface s;
  vkocc_status st = vkocc_surface_load(from, &s);
  if (st && d_regs) { /* a register document: its device limits and register model */
    vkocc_register_doc rd;
    if (vkocc_register_doc_load(from, &rd) == VKOCC_OK) {
      vkocc_clear_error();
      *d = rd.base;
      *d_regs = rd.model;
      *have = rd.has_base;
      vkocc_register_doc_free(&rd);
      return 0;
    }
  }
  if (st) return quiet ? 1 : cli_fail(cmd, st);
  st = vkocc_derive(s.points, s.count, s.subgroup_size, d);
  vkocc_surface_free(&s);
  if (st) return quiet ? 1 : cli_fail(cmd, st);
  *have = true;
  return 0;
}


/* The per-SM model a command needs where neither --from nor the cache has it: measured on the device the
 * command holds, as `vkocc fingerprint` measures it (and cached as it caches it), the register file too where
 * want_rm (it serves every queue family). Said on stderr on a terminal; what was measured is recorded in *how
 * ({"derived": "measured"|"cached", "registers": ...}) for the command's document. */
static int measure_model(const char *cmd, const cli_common *c, vkocc_context *ctx, vkocc_derived *d, bool *have_d,
                         vkocc_register_model *rm, bool want_rm, json_t *how) {
  bool tty = cli_is_tty() && !c->quiet;
  const vkocc_device_info *dev = vkocc_context_device(ctx);
  vkocc_fingerprint fp;
  vkocc_fingerprint_details det;
  if (tty)
    fprintf(stderr, "vkocc %s: no per-SM model of %s on queue family %u is cached: measuring it (as vkocc "
            "fingerprint does; --from FILE gives one offline)\n", cmd, dev->name, dev->compute_queue_family);
  vkocc_fingerprint_options fo = {.method = c->method, .progress = tty ? cli_progress : NULL};
  vkocc_status st = vkocc_fingerprint_measure(ctx, &fo, &fp, &det);
  if (st) return cli_fail(cmd, st);
  if (!*have_d) {
    *d = det.derived;
    *have_d = true;
    json_object_set_new(how, "derived", json_string(det.from_cache ? "cached fingerprint" : "measured"));
  }
  if (want_rm && !rm->known) {
    if (tty) fprintf(stderr, "vkocc %s: the register file of %s is not cached: measuring it\n", cmd, dev->name);
    vkocc_fingerprint_register_options ro = {.progress = tty ? cli_progress : NULL};
    bool known = false;
    vkocc_fingerprint_registers(ctx, NULL, &ro, &det, &known);
    json_t *m = json_object_get(vkocc_fingerprint_details_json(&det), "register_model");
    if (known && m && vkocc_register_model_from_json(m, "the register sweep", "$.register_model", rm) == VKOCC_OK)
      json_object_set_new(how, "registers", json_string("measured"));
    else
      json_object_set_new(how, "registers", json_string("unknown"));
    vkocc_clear_error();
  }
  vkocc_fingerprint_details_free(&det);
  return 0;
}

/* calc/probe --shader on a module compiled already: `written` names the file in the document, `sh` measures */
static int probe_module(const char *cmd, const cli_common *c, cli_shader *o, const vkocc_probe_options *po,
                        bool use_cache, const vkocc_shader_desc *written, vkocc_shader_desc sh) {
  vkocc_derived d;
  bool have_d;
  vkocc_register_model rm = {0};
  int rc = cli_check_output(cmd, "-o", c->output); /* before anything is measured */
  if (!rc) rc = load_derived(cmd, o->from, &d, &have_d, false, &rm);
  if (rc) return rc;
  vkocc_context *ctx;
  if ((rc = cli_open(cmd, c, &ctx))) return rc;
  const vkocc_device_info *dev = vkocc_context_device(ctx);
  vkocc_device_identity id;
  char why[1400];
  /* the --from limits with this device's P: only when one device and driver measured both */
  if (o->from && !o->allow_other_device && vkocc_document_device(o->from, &id) == VKOCC_OK &&
      !vkocc_device_identity_same(&id, dev, why, sizeof why)) {
    return cli_error(cmd, 2, "--from %s: %s; give --allow-other-device to combine them anyway", o->from, why);
  }
  vkocc_clear_error(); /* a file that names no device (a CSV) is checked by nothing */
  char fp_path[1024] = "";
  if (!o->from) { /* no surface given: the device's cached fingerprint, when `vkocc fingerprint` made one */
    vkocc_fingerprint fp; /* sealed with this device's key, verified (an edited or foreign file is a miss) */
    vkocc_fingerprint_details det;
    have_d = vkocc_fingerprint_from_cache(dev, 0, &fp, &det);
    if (have_d) {
      d = det.derived;
      snprintf(fp_path, sizeof fp_path, "%s", det.cache_path);
      vkocc_fingerprint_details_free(&det);
    }
  }
  if (!rm.known) vkocc_register_model_from_cache(dev, &rm); /* `vkocc surface --registers` stores it */
  vkocc_pipeline_result r;
  vkocc_status st = vkocc_pipeline_occupancy_model(ctx, NULL, &sh, po, have_d ? &d : NULL, rm.known ? &rm : NULL,
                                                   use_cache, &r);
  /* refused for want of a model the device can give: measured, then the pipeline again with it */
  json_t *how = json_object();
  for (int again = 0; again < 2 && st == VKOCC_ERROR_RUNTIME && !o->from &&
                      vkocc_last_reason() == VKOCC_REASON_WRITTEN_UNKNOWN && r.written_needs;
       again++) {
    bool want_rm = !rm.known && (r.written_needs & VKOCC_WRITTEN_NEEDS_REGISTERS);
    size_t before = json_object_size(how);
    vkocc_pipeline_result_free(&r);
    if ((rc = measure_model(cmd, c, ctx, &d, &have_d, &rm, want_rm, how))) { json_decref(how); return rc; }
    if (json_object_size(how) == before) break; /* nothing new to try */
    st = vkocc_pipeline_occupancy_model(ctx, NULL, &sh, po, have_d ? &d : NULL, rm.known ? &rm : NULL, use_cache, &r);
  }
  if (st == VKOCC_ERROR_RUNTIME && r.nstats && vkocc_last_reason() == VKOCC_REASON_WRITTEN_UNKNOWN) {
    /* measured, but P as written cannot be established: the evidence is shown, no P, exit 1 */
    char why[700];
    snprintf(why, sizeof why, "%s", vkocc_last_error());
    if (c->json) { /* -o gets no file: the command fails (exit 1) */
      cli_emit_json(cmd, vkocc_pipeline_document(dev, written, &r, have_d ? &d : NULL, &rm, how, why), NULL);
    } else {
      printf("measured on the augmented pipeline: P = %u (not the pipeline as written)\n", r.probe.P);
      printf("driver statistics (VK_KHR_pipeline_executable_properties), as written / augmented:\n");
      for (uint32_t i = 0; i < r.nstats; i++)
        printf("  %-40s %12g %12g%s\n", r.stats[i].name, r.stats[i].value, r.stats[i].augmented,
               r.stats[i].value == r.stats[i].augmented ? "" : "  (differs)");
    }
    vkocc_pipeline_result_free(&r);
    json_decref(how);
    return cli_error(cmd, 1, "%s", why);
  }
  if (st) { vkocc_pipeline_result_free(&r); json_decref(how); return cli_fail(cmd, st); }
  if (fp_path[0] && !c->json) fprintf(stderr, "vkocc %s: per SM from the cached fingerprint %s\n", cmd, fp_path);
  if (c->json || c->output) { /* -o: the document --json prints */
    json_t *doc = vkocc_pipeline_document(dev, written, &r, have_d ? &d : NULL, &rm, how, NULL);
    json_decref(how);
    how = NULL;
    /* -o FILE: the document there and nothing on standard output; "-" is standard output */
    vkocc_status ws = c->output ? cli_json_write(doc, c->output) : VKOCC_OK;
    if (ws || c->json || c->output) {
      vkocc_pipeline_result_free(&r);
      if (ws || c->output) { json_decref(doc); return ws ? cli_fail(cmd, ws) : 0; }
      return cli_emit_json(cmd, doc, NULL);
    }
    json_decref(doc);
  }
  json_decref(how);
  printf("device: %s\nshader: %s, entry %s: workgroup %ux%ux%u (%u threads), %u shared bytes%s\n", dev->name, o->path,
         r.entry, r.wg[0], r.wg[1], r.wg[2], r.wg_size, r.shared_bytes, r.shared_exact ? "" : " or more");
  char qt[96];
  cli_queue_text(dev, qt, sizeof qt);
  printf("%s\n", qt);
  printf("P = %u (the pipeline as written: %s)\n", r.P, r.written ? vkocc_written_evidence_name(r.written->evidence) : "?");
  if (r.written && r.written->evidence != VKOCC_WRITTEN_EQUAL && r.written->evidence != VKOCC_WRITTEN_CACHED)
    printf("  %s\n", r.written->reason);
  if (r.written && r.written->variants[0]) printf("augmentation variants tried: %s\n", r.written->variants);
  printf("measured on the %s pipeline: P = %u", r.unmodified ? "unmodified" : "augmented", r.probe.P ? r.probe.P : r.P);
  if (r.from_cache) printf(" (cached)");
  else {
    if (r.probe.method & VKOCC_METHOD_COMB) printf("; comb median %u [%u..%u]", r.probe.comb_median, r.probe.comb_min, r.probe.comb_max);
    if (r.probe.method & VKOCC_METHOD_BISECT)
      printf("; bisect median %u [%u..%u]", r.probe.bisect_median, r.probe.bisect_min, r.probe.bisect_max);
    printf("; %s", r.probe.agree ? "all runs agree" : "RUNS DISAGREE");
  }
  printf("\n");
  if (r.unmodified && !r.from_cache)
    printf("unmodified pipeline, runtime in us: empty dispatch %.1f (noise %.1f), 1 workgroup %.1f (a workgroup %.1f);"
           " %u: %.1f, %u: %.1f, %u: %.1f, %u: %.1f; %u dispatches, %.2f s\n", r.unmod.empty_ns / 1e3,
           r.unmod.noise_ns / 1e3, r.unmod.one_ns / 1e3, r.unmod.wave_ns / 1e3, r.P, r.unmod.at_P_ns / 1e3, r.P + 1,
           r.unmod.at_P1_ns / 1e3, 2 * r.P, r.unmod.at_2P_ns / 1e3, 2 * r.P + 1, r.unmod.at_2P1_ns / 1e3,
           r.unmod.dispatches, r.unmod.wall_ns / 1e9);
  if (r.unmodified && dev->device_type == 4 /* VK_PHYSICAL_DEVICE_TYPE_CPU */)
    printf("note: on a CPU device the runtime shows the worker threads the host ran side by side (a busy host "
           "shows fewer)\n");
  if (r.nstats) printf("driver statistics (VK_KHR_pipeline_executable_properties), as written / augmented:\n");
  for (uint32_t i = 0; i < r.nstats; i++)
    printf("  %-40s %12g %12g%s\n", r.stats[i].name, r.stats[i].value, r.stats[i].augmented,
           r.stats[i].value == r.stats[i].augmented ? "" : "  (differs)");
  if (have_d) print_limits(&d, &rm, &r);
  bool agree = r.from_cache || r.probe.agree;
  vkocc_pipeline_result_free(&r);
  return agree ? 0 : 1;
}

int cli_probe_shader(const char *cmd, const cli_common *c, cli_shader *o, const vkocc_probe_options *po,
                     bool use_cache) {
  /* compiled before the device is opened: a module that does not compile is refused at once, on any machine,
   * and the module is compiled once (the measurement takes the SPIR-V) */
  int rc = cli_check_output(cmd, "-o", c->output);
  if (rc) return rc;
  vkocc_shader_desc written = desc_of(o), sh = desc_of(o);
  uint32_t *spv = NULL;
  size_t words = 0;
  vkocc_status st = vkocc_shader_spirv(&written, &spv, &words);
  if (st) return cli_fail(cmd, st);
  sh.path = NULL, sh.name = o->path, sh.spirv = spv, sh.spirv_words = words;
  rc = probe_module(cmd, c, o, po, use_cache, &written, sh);
  free(spv);
  return rc;
}

/* Combination k of the --vary values (the last --vary varies fastest) into spec[base ...]. */
static void set_combination(cli_shader *o, uint32_t base, uint32_t k) {
  for (int v = (int)o->nvary - 1; v >= 0; v--) {
    o->spec[base + v] = (vkocc_spec_value){o->vary[v].id, o->vary[v].values[k % o->vary[v].n]};
    k /= o->vary[v].n;
  }
}

/* surface --shader: every combination of the --vary values, the --spec values held. */
int cli_surface_shader(const char *cmd, const cli_common *c, cli_shader *o, const vkocc_probe_options *po,
                       const char *out_path) {
  if (!o->nvary) return cli_error(cmd, 2, "--shader needs at least one --vary ID=V1,V2,...");
  uint32_t total = 1, base = o->nspec;
  for (uint32_t v = 0; v < o->nvary; v++) total *= o->vary[v].n;
  if (base + o->nvary > CLI_MAX_SPEC) { return cli_error(cmd, 2, "too many constants"); }
  json_t *points = json_array();
  /* Compiled once, before the device is opened; every combination checked before anything is measured or
   * printed, so bad input (an unknown ID, a point above the device's limits) is one line and nothing else. */
  uint32_t *spv = NULL;
  size_t words = 0;
  vkocc_shader_desc whole = desc_of(o);
  vkocc_status st = vkocc_shader_spirv(&whole, &spv, &words);
  if (st) {
    free(spv);
    json_decref(points);
    return cli_fail(cmd, st);
  }
  vkocc_context *ctx;
  int rc = cli_open(cmd, c, &ctx);
  if (rc) {
    free(spv);
    json_decref(points);
    return rc;
  }
  const vkocc_device_info *dev = vkocc_context_device(ctx);
  for (uint32_t k = 0; k < total && !st; k++) {
    set_combination(o, base, k);
    vkocc_shader_desc each = desc_of(o);
    each.path = NULL, each.name = o->path, each.spirv = spv, each.spirv_words = words;
    each.nspec = base + o->nvary;
    vkocc_shader_info info;
    st = vkocc_shader_inspect(NULL, &each, &info);
    uint32_t wgs = info.wg[0] * info.wg[1] * info.wg[2];
    if (!st && (info.shared_bytes > dev->max_shared_bytes || wgs > dev->max_invocations))
      st = vkocc_fail(VKOCC_ERROR_USAGE, "%s: a point of --vary (workgroup %u, %u shared bytes) is above the limits of "
                      "%s (%u invocations, %u shared bytes)", o->path, wgs, info.shared_bytes, dev->name,
                      dev->max_invocations, dev->max_shared_bytes);
    if (!st) st = vkocc_shader_inspect(ctx, &each, &info); /* the contract, every point, up front */
  }
  /* calibrated only once every point has passed: bad input costs no measurement */
  vkocc_calibration cal;
  vkocc_calibrate_options co;
  vkocc_calibrate_preset(VKOCC_CALIBRATION_QUICK, &co);
  if (!st) st = vkocc_calibrate(ctx, &co, &cal);
  if (st) { free(spv); json_decref(points); return cli_fail(cmd, st); }
  uint32_t prevP = 0, unestablished = 0;
  vkocc_register_model rm;
  bool have_rm = vkocc_register_model_from_cache(dev, &rm);
  /* the per-SM model: the cached fingerprint's, else measured at the first point that needs it */
  vkocc_derived d;
  vkocc_fingerprint fp;
  vkocc_fingerprint_details det;
  bool have_d = vkocc_fingerprint_from_cache(dev, 0, &fp, &det);
  if (have_d) d = det.derived, vkocc_fingerprint_details_free(&det);
  json_t *how = json_object();
  for (uint32_t k = 0; k < total && !st; k++) {
    set_combination(o, base, k);
    o->nspec = base + o->nvary;
    vkocc_shader_desc sh = desc_of(o);
    sh.path = NULL;
    sh.name = o->path;
    sh.spirv = spv;
    sh.spirv_words = words;
    vkocc_probe_options p = *po;
    p.hint = prevP;
    vkocc_pipeline_result r;
    st = vkocc_pipeline_occupancy_model(ctx, &cal, &sh, &p, have_d ? &d : NULL, have_rm ? &rm : NULL, false, &r);
    for (int again = 0; again < 2 && st == VKOCC_ERROR_RUNTIME && vkocc_last_reason() == VKOCC_REASON_WRITTEN_UNKNOWN &&
                        r.written_needs;
         again++) {
      /* refused for want of a model the device can give: measured once, this point again with it */
      bool want_rm = !rm.known && (r.written_needs & VKOCC_WRITTEN_NEEDS_REGISTERS);
      size_t before = json_object_size(how);
      vkocc_pipeline_result_free(&r);
      if ((rc = measure_model(cmd, c, ctx, &d, &have_d, &rm, want_rm, how))) {
        free(spv), json_decref(points), json_decref(how);
        return rc;
      }
      have_rm = rm.known;
      if (json_object_size(how) == before) break;
      st = vkocc_pipeline_occupancy_model(ctx, &cal, &sh, &p, have_d ? &d : NULL, have_rm ? &rm : NULL, false, &r);
    }
    o->nspec = base;
    if (st == VKOCC_ERROR_RUNTIME && vkocc_last_reason() == VKOCC_REASON_WRITTEN_UNKNOWN) {
      /* this point's P as written cannot be established: said, no P, and exit 1 at the end */
      json_t *spec = json_object();
      for (uint32_t v = 0; v < o->nvary; v++) {
        char key[16];
        snprintf(key, sizeof key, "%u", o->vary[v].id);
        json_object_set_new(spec, key, json_real(o->spec[base + v].value));
      }
      json_array_append_new(points, json_pack("{s:o, s:n, s:s}", "spec", spec, "P", "error", vkocc_last_error()));
      fprintf(stderr, "vkocc %s: %s\n", cmd, vkocc_last_error());
      unestablished++;
      st = VKOCC_OK;
      continue;
    }
    if (st) break;
    prevP = r.P;
    if (!c->json && k == 0) { /* the header once the first point stands: bad input prints only its error */
      for (uint32_t v = 0; v < o->nvary; v++) printf("spec %-5u ", o->vary[v].id);
      printf("%-8s %-12s %-6s %s\n", "WG size", "Shared [B]", "P", "agree");
    }
    json_t *spec = json_object();
    for (uint32_t v = 0; v < o->nvary; v++) {
      char key[16];
      snprintf(key, sizeof key, "%u", o->vary[v].id);
      json_object_set_new(spec, key, json_real(o->spec[base + v].value));
      if (!c->json) printf("%-10g ", o->spec[base + v].value);
    }
    if (!c->json) {
      printf("%-8u %-12u %-6u %s", r.wg_size, r.shared_bytes, r.P, r.probe.agree ? "yes" : "NO");
      if (r.written && r.P != r.probe.P) /* the augmented pipeline measured another P: say where P came from */
        printf("  (as written; augmented %u: %s)", r.probe.P, vkocc_written_evidence_name(r.written->evidence));
      printf("\n");
    }
    json_t *pt = json_pack("{s:o, s:I, s:I, s:I, s:I, s:I, s:b}", "spec", spec, "wg_size",
                           (json_int_t)r.wg_size, "shared_bytes", (json_int_t)r.shared_bytes, "P",
                           (json_int_t)r.P, "comb_P", (json_int_t)r.probe.comb_median, "bisect_P",
                           (json_int_t)r.probe.bisect_median, "agree", r.probe.agree);
    if (r.written) json_object_set_new(pt, "written", vkocc_written_json(r.written));
    json_array_append_new(points, pt);
    vkocc_pipeline_result_free(&r);
  }
  free(spv);
  json_t *doc = vkocc_doc_stamp(json_pack("{s:o, s:s, s:o}", "device", vkocc_device_info_json(vkocc_context_device(ctx)),
                                          "shader", o->path, "points", points), VKOCC_DOC_SHADER_SURFACE);
  if (json_object_size(how)) json_object_set_new(doc, "model", json_incref(how)); /* measured for this command */
  json_decref(how);
  if (st) { json_decref(doc); return cli_fail(cmd, st); }
  if (out_path && (st = cli_json_write(doc, out_path))) { json_decref(doc); return cli_fail(cmd, st); }
  int rc_out = 0;
  if (c->json) rc_out = cli_emit_json(cmd, doc, NULL);
  else json_decref(doc);
  if (!rc_out && unestablished)
    return cli_error(cmd, 1, "%u of %u points: P of the pipeline as written could not be established", unestablished,
                     total);
  return rc_out;
}
