/* The validate phase (tune/harness/harness.h): the first run, on poisoned outputs and restored inputs, within its
 * bound, its outputs compared with the reference (on the device where it can, else read back). */
#include "harness.h"

/* ------------------------------------------------------------------ validation */

/* true when out matches the reference of argument i; why names the first difference */
static bool compare(harness *h, uint32_t i, const void *out, char *why, size_t len) {
  const t1_arg *a = &h->s->args[i];
  const t1_ref *ref = h->ref_of[i];
  t1_validation m = ref ? ref->method : T1_SIDE_BY_SIDE;
  double th = ref ? ref->threshold : 0;
  uint64_t n = a->count * a->comps;
  if (tu_host_bytes_pass(a, ref, out, h->expect[i])) return true; /* equal bytes: the loop below would pass them */
  core_compare_desc cd; /* the element type and the kind of compare as the device compare takes them */
  tu_gpu_compare_desc(a, ref, NULL, NULL, &cd);
  if (cd.mode == VKOCC_CMP_EXACT) { /* compare the bytes, report the first element that differs */
    if (!memcmp(out, h->expect[i], a->bytes)) return true;
    for (uint64_t k = 0; k < n; k++)
      if (core_elem_value(out, k, cd.elem) != core_elem_value(h->expect[i], k, cd.elem)) {
        snprintf(why, len, "%s[%llu] = %.17g, expected %.17g", a->name, (unsigned long long)k, core_elem_value(out, k, cd.elem),
                 core_elem_value(h->expect[i], k, cd.elem));
        return false;
      }
    snprintf(why, len, "%s differs from the reference", a->name);
    return false;
  }
  double sum = 0;
  for (uint64_t k = 0; k < n; k++) {
    double x = core_elem_value(out, k, cd.elem), y = core_elem_value(h->expect[i], k, cd.elem), d = fabs(x - y);
    if (isnan(x) != isnan(y) || (isnan(d) && !isnan(x))) d = INFINITY;
    else if (isnan(d)) d = 0;
    if (m == T1_ABS_DIFF) { sum += d; continue; }
    double lim = m == T1_SIDE_BY_SIDE_REL ? th * fabs(y) : th;
    if (m == T1_SIDE_BY_SIDE_REL && y == 0) lim = th;
    if (!(d <= lim)) {
      snprintf(why, len, "%s[%llu] = %.9g, expected %.9g (%s, threshold %g)", a->name, (unsigned long long)k, x, y,
               m == T1_SIDE_BY_SIDE_REL ? "relative" : "side by side", th);
      return false;
    }
  }
  if (m == T1_ABS_DIFF && !(sum <= th)) {
    snprintf(why, len, "%s: the absolute differences sum to %.9g, threshold %g", a->name, sum, th);
    return false;
  }
  return true;
}

/* ---- validate: the first run, on poisoned outputs and restored inputs, within the bound */

/* The reference must write every element of its outputs: it runs again under another poison, and an element
 * that kept both poisons was never written (with no reference, a kernel that wrote nothing was judged right
 * against its own poisoned output). Then its outputs are the reference. */
static tu_outcome validate_as_reference(harness *h, trial *t) {
  t1_spec *s = h->s;
  uint8_t **keep = util_xcalloc(s->nargs + 1, sizeof *keep);
  for (uint32_t i = 0; i < s->nargs; i++)
    if (s->args[i].output && h->readback[i].map) {
      keep[i] = util_xmalloc(s->args[i].bytes + 1);
      memcpy(keep[i], h->readback[i].map, s->args[i].bytes);
    }
  double again;
  h->poison = POISON2;
  tu_outcome out = tu_dispatch(h, t, 1, true, true, &again);
  h->poison = 0;
  for (uint32_t i = 0; i < s->nargs && out == TU_GO; i++) {
    if (!keep[i] || s->args[i].data.fill != T1_FILL_NONE) continue;
    for (uint64_t w = 0; w < s->args[i].bytes / 4 && out == TU_GO; w++) {
      uint32_t a, b;
      memcpy(&a, keep[i] + 4 * w, 4), memcpy(&b, (uint8_t *)h->readback[i].map + 4 * w, 4);
      if (a == POISON && b == POISON2)
        out = tu_invalid(t, TU_CORRECTNESS, "leaves %s unwritten from byte %llu (it kept the poison of two runs), so its "
                      "output cannot be the reference", s->args[i].name, (unsigned long long)(4 * w));
    }
  }
  for (uint32_t i = 0; i < s->nargs; i++) free(keep[i]);
  free(keep);
  if (out != TU_GO) return out;
  for (uint32_t i = 0; i < s->nargs; i++) {
    if (h->expect[i] == (void *)1) h->expect[i] = NULL;
    if (s->args[i].output) h->expect[i] = memcpy(util_xmalloc(s->args[i].bytes), h->readback[i].map, s->args[i].bytes);
  }
  h->have_reference = true;
  snprintf(h->run->reference, sizeof h->run->reference, "%s", t->x->key);
  return TU_GO;
}

tu_outcome tu_phase_validate(harness *h, trial *t) {
  tu_outcome out = tu_dispatch(h, t, 1, true, true, &t->first_ns);
  if (out != TU_GO) return out;
  if (h->racing_now && h->probe_on) {
    bool cpu = vkocc_context_device(CTX(h))->device_type == VK_PHYSICAL_DEVICE_TYPE_CPU;
    bool steady = tu_clock_judge(&h->clk, NULL, h->clock_before, h->clock_after, 0) == TU_CLOCK_OK;
    t->first_counts = tu_race_validation_counts(cpu, steady) && t->first_ns > 0;
  }
  if (t->first_ns > t->timeout_s * 1e9)
    return tu_invalid(t, TU_TIMEOUT, "one dispatch took %.3f s, more than the bound of %.1f s", t->first_ns / 1e9,
                   t->timeout_s);
  if (h->expect && !h->have_reference) return validate_as_reference(h, t);
  char why[400];
  return tu_outputs_right(h, why, sizeof why) ? TU_GO : tu_invalid(t, TU_CORRECTNESS, "wrong output: %s", why);
}

/* The outputs just read back against the reference (validated outputs only); false with the message in why.
 * True when nothing can be validated (no Output argument). */
bool tu_outputs_right(harness *h, char *why, size_t len) {
  if (!h->expect || !h->have_reference) return true;
  for (uint32_t i = 0; h->gpu_check == 1 && i < h->s->nargs; i++) {
    core_compare_result res;
    if (!tu_validated(h, i)) continue;
    core_compare_read(&h->cmp[i], &res);
    if (!res.pass) return tu_gpu_compare_why(&h->s->args[i], h->ref_of[i], &res, why, len), false;
  }
  if (h->gpu_check == 1) return h->run->validated_on_device = true;
  for (uint32_t i = 0; i < h->s->nargs; i++)
    if (tu_validated(h, i) && h->readback[i].map && !compare(h, i, h->readback[i].map, why, len)) return false;
  return true;
}

/* A final-round candidate whose output is wrong: invalid (correctness), never chosen. */
void tu_final_wrong(tu_result *r, const char *when, const char *why) {
  r->inv = TU_CORRECTNESS;
  r->median_ns = NAN;
  r->confirm_runs = 0;
  snprintf(r->error, sizeof r->error, "wrong output in the final round (%s): %s", when, why);
}
