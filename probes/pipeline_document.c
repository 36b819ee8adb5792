/* The user's pipeline as a document (vkocc.probe, what `vkocc probe --shader --json` prints) and its P against a
 * device model: the library composes them, the CLI prints what it gets back. */
#include "io.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

void vkocc_pipeline_limits_compute(const vkocc_derived *d, const vkocc_register_model *rm,
                                   const vkocc_pipeline_result *r, vkocc_pipeline_limits *out) {
  memset(out, 0, sizeof *out);
  vkocc_occupancy oc;
  vkocc_occupancy_compute(d, r->wg_size, r->shared_bytes, &oc);
  uint32_t regs = r->written ? r->written->written_registers : 0, by_reg = vkocc_register_limit(rm, r->wg_size, regs);
  if (by_reg != VKOCC_NO_LIMIT) /* the register file is known: the model's P with it */
    oc.wgs = vkocc_model_P(d, rm, r->wg_size, r->shared_bytes, regs, &oc.binding);
  uint32_t sg = d->subgroup_size ? d->subgroup_size : 32;
  uint32_t sgs = (r->wg_size + sg - 1) / sg;
  double per_sm = d->sm_count ? (double)r->P / d->sm_count : 0;
  uint32_t P_sm = (uint32_t)floor(per_sm);
  if (r->P == oc.wgs) {
    snprintf(out->binding, sizeof out->binding, "%s (as the device surface predicts)", vkocc_limit_name(oc.binding));
  } else if (r->P < oc.wgs && r->shared_bytes && P_sm * r->shared_bytes < d->shared_per_sm) {
    /* fewer than the surface: the capacity this pipeline got, if shared memory is what binds */
    snprintf(out->binding, sizeof out->binding,
             "shared memory with less capacity than the probe got: this pipeline got "
             "%u..%u bytes per SM (probe: %u); or registers",
             P_sm * r->shared_bytes, (P_sm + 1) * r->shared_bytes - 1, d->shared_per_sm);
  } else if (r->P < oc.wgs) {
    snprintf(out->binding, sizeof out->binding,
             "something beyond workgroup, subgroup and shared-memory slots (registers?)");
  } else {
    snprintf(out->binding, sizeof out->binding,
             "none of the surface's limits: the pipeline holds more than the surface "
             "predicts (%u > %u)",
             r->P, oc.wgs);
  }
  vkocc_occupancy mo;
  vkocc_occupancy_from_P(d, r->wg_size, r->shared_bytes, r->P, &mo);
  out->occupancy_pct = mo.occupancy_pct;
  out->per_sm = per_sm;
  out->sm_count = d->sm_count;
  out->threads_per_sm = d->threads_per_sm;
  out->shared_per_sm = d->shared_per_sm;
  out->by_workgroup_slots = d->wg_per_sm;
  out->by_subgroup_slots = sgs ? d->subgroups_per_sm / sgs : 0;
  out->subgroups_per_workgroup = sgs;
  out->by_shared_memory = r->shared_bytes ? d->shared_per_sm / r->shared_bytes : UINT32_MAX;
  out->by_registers = by_reg;
  out->registers = regs;
  out->surface_P = oc.wgs;
}

static json_t *limits_json(const vkocc_pipeline_limits *l, bool shared) {
  json_t *o = json_pack("{s:f, s:f, s:I, s:I, s:I, s:I, s:o, s:I, s:s}", "occupancy_pct", l->occupancy_pct, "per_sm",
                        l->per_sm, "sm_count", (json_int_t)l->sm_count, "by_workgroup_slots",
                        (json_int_t)l->by_workgroup_slots, "by_subgroup_slots", (json_int_t)l->by_subgroup_slots,
                        "subgroups_per_workgroup", (json_int_t)l->subgroups_per_workgroup, "by_shared_memory",
                        shared ? json_integer(l->by_shared_memory) : json_null(), "surface_P", (json_int_t)l->surface_P,
                        "binding", l->binding);
  json_object_set_new(o, "by_registers",
                      l->by_registers == VKOCC_NO_LIMIT ? json_null() : json_integer(l->by_registers));
  return o;
}

json_t *vkocc_written_json(const vkocc_written_answer *w) {
  json_t *o = json_pack("{s:I, s:I, s:s, s:b, s:s, s:s}", "P", (json_int_t)w->P, "augmented_P", (json_int_t)w->augmented_P,
                        "evidence", vkocc_written_evidence_name(w->evidence), "confirmed", w->confirmed, "reason",
                        w->reason, "differs", w->differs);
  json_object_set_new(o, "predicted_P", w->predicted_P ? json_integer(w->predicted_P) : json_null());
  json_object_set_new(o, "predicted_augmented_P", w->predicted_augmented_P ? json_integer(w->predicted_augmented_P)
                                                                           : json_null());
  json_object_set_new(o, "binding", w->binding ? json_string(vkocc_limit_name(w->binding)) : json_null());
  json_object_set_new(o, "registers", json_pack("{s:o, s:o}", "written", w->written_registers ?
                      json_integer(w->written_registers) : json_null(), "augmented", w->augmented_registers ?
                      json_integer(w->augmented_registers) : json_null()));
  json_object_set_new(o, "shared_bytes", json_pack("{s:I, s:I}", "written", (json_int_t)w->written_shared, "augmented",
                                                   (json_int_t)w->augmented_shared));
  /* the augmentation variants tried where the statistics differed, and the one that measured P */
  json_object_set_new(o, "variant", w->variant[0] ? json_string(w->variant) : json_null());
  json_object_set_new(o, "variants", w->variants[0] ? json_string(w->variants) : json_null());
  return o;
}

static json_t *shader_json(const vkocc_shader_desc *sh, const vkocc_pipeline_result *r) {
  json_t *spec = json_object();
  for (uint32_t i = 0; i < sh->nspec; i++) {
    char k[16];
    snprintf(k, sizeof k, "%u", sh->spec[i].id);
    json_object_set_new(spec, k, json_real(sh->spec[i].value));
  }
  return json_pack("{s:s, s:s, s:[I,I,I], s:I, s:I, s:b, s:o, s:I, s:I, s:I, s:b}", "path", sh->path, "entry", r->entry,
                   "workgroup", (json_int_t)r->wg[0], (json_int_t)r->wg[1], (json_int_t)r->wg[2], "wg_size",
                   (json_int_t)r->wg_size, "shared_bytes", (json_int_t)r->shared_bytes, "shared_exact", r->shared_exact,
                   "spec", spec, "augmentation_set", (json_int_t)r->aug_set, "descriptors", (json_int_t)r->descriptors,
                   "push_bytes", (json_int_t)r->push_bytes, "from_cache", r->from_cache);
}

static json_t *stats_json(const vkocc_pipeline_result *r) {
  json_t *stats = json_array();
  for (uint32_t i = 0; i < r->nstats; i++)
    json_array_append_new(stats, json_pack("{s:s, s:o, s:f}", "name", r->stats[i].name, "value",
                                           isnan(r->stats[i].value) ? json_null() : json_real(r->stats[i].value),
                                           "augmented", r->stats[i].augmented));
  return stats;
}

/* The refusal's document: the evidence, no P */
static json_t *refusal(const vkocc_device_info *dev, const vkocc_shader_desc *sh, const vkocc_pipeline_result *r,
                       const vkocc_derived *d, const vkocc_register_model *rm, json_t *model, const char *error) {
  json_t *doc =
      vkocc_doc_stamp(json_pack("{s:o, s:o, s:n, s:I, s:s, s:o, s:o}", "device", vkocc_device_info_json(dev), "shader",
                                shader_json(sh, r), "P", "augmented_P", (json_int_t)r->probe.P, "error", error,
                                "statistics", stats_json(r), "register_model", vkocc_register_model_json(rm)),
                      VKOCC_DOC_PROBE);
  if (model && json_object_size(model)) json_object_set_new(doc, "model", json_incref(model));
  /* the derived limits alone: what the refusal weighed */
  if (d)
    json_object_set_new(doc, "derived",
                        vkocc_derived_json(&(vkocc_derived){.sm_count = d->sm_count,
                                                            .wg_per_sm = d->wg_per_sm,
                                                            .subgroups_per_sm = d->subgroups_per_sm,
                                                            .subgroup_size = d->subgroup_size,
                                                            .threads_per_sm = d->threads_per_sm,
                                                            .shared_per_sm = d->shared_per_sm,
                                                            .shared_bound_seen = d->shared_bound_seen,
                                                            .subgroups_per_sm_max = d->subgroups_per_sm_max,
                                                            .shared_per_sm_max = d->shared_per_sm_max},
                                           NULL));
  return doc;
}

json_t *vkocc_pipeline_document(const vkocc_device_info *dev, const vkocc_shader_desc *sh,
                                const vkocc_pipeline_result *r, const vkocc_derived *d, const vkocc_register_model *rm,
                                json_t *model, const char *error) {
  vkocc_register_model none = {0};
  if (!rm) rm = &none;
  if (error) return refusal(dev, sh, r, d, rm, model, error);
  json_t *doc = vkocc_doc_stamp(json_pack("{s:o, s:o, s:o}", "device", vkocc_device_info_json(dev), "probe",
                                          vkocc_probe_result_json(&r->probe), "shader", shader_json(sh, r)),
                                VKOCC_DOC_PROBE);
  json_object_set_new(json_object_get(doc, "probe"), "P", json_integer(r->P));
  if (r->unmodified) { /* only here: the default --shader document stays as it was */
    json_object_set_new(doc, "unmodified", json_true());
    json_object_set_new(json_object_get(doc, "probe"), "bisect_workload", json_string("user-pipeline"));
    if (!r->from_cache)
      json_object_set_new(doc, "runtime",
                          json_pack("{s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:I, s:f}", "empty_ns", r->unmod.empty_ns,
                                    "noise_ns", r->unmod.noise_ns, "one_ns", r->unmod.one_ns, "wave_ns",
                                    r->unmod.wave_ns, "at_P_ns", r->unmod.at_P_ns, "at_P1_ns", r->unmod.at_P1_ns,
                                    "at_2P_ns", r->unmod.at_2P_ns, "at_2P1_ns", r->unmod.at_2P1_ns, "dispatches",
                                    (json_int_t)r->unmod.dispatches, "wall_ns", r->unmod.wall_ns));
  }
  if (d) {
    vkocc_pipeline_limits l;
    vkocc_pipeline_limits_compute(d, rm, r, &l);
    json_object_set_new(doc, "limits", limits_json(&l, r->shared_bytes != 0));
  }
  if (model && json_object_size(model)) json_object_set_new(doc, "model", json_incref(model));
  if (r->written) json_object_set_new(doc, "written", vkocc_written_json(r->written));
  json_object_set_new(doc, "register_model", vkocc_register_model_json(rm));
  json_object_set_new(doc, "statistics", stats_json(r));
  return doc;
}
