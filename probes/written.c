/* P of the pipeline as written. vkocc measures an augmented pipeline (compile/augment.c); the driver may
 * compile it differently (another register count, a spill into shared memory), and then the measured P is
 * not the user's. The decision below is pure (no device): from the two pipelines' statistics, the measured
 * augmented P and the per-SM model it either gives the written pipeline's P with the evidence that gave it,
 * or fails with the reason. It never returns the augmented P where a statistic that bounds occupancy
 * differs, unless a measurement proves them equal. See docs/shader.md "The pipeline as written". */
#include "internal.h"
#include "written_internal.h"
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* What a driver statistic is to occupancy. */
typedef enum { ST_OTHER, ST_REGISTERS, ST_SHARED, ST_BOUNDS, ST_BOUNDS_INVERSE, ST_NEUTRAL } stat_kind;

static bool has(const char *name, const char *word) {
  size_t n = strlen(word);
  for (const char *p = name; *p; p++) {
    size_t i = 0;
    while (i < n && p[i] && tolower((unsigned char)p[i]) == word[i]) i++;
    if (i == n) return true;
  }
  return false;
}

/* Names as NVIDIA (Register Count, Shared Memory Size, Local Memory Size, Stack Size, Binary Size), RADV
 * (VGPRs, SGPRs, Spilled VGPRs, LDS size, Scratch size, Subgroups per SIMD, Code size, ...) and ANV (GRF
 * registers, Workgroup Memory Size, Max dispatch width, Instruction Count, Spill/Fill count, ...) call them. */
static stat_kind classify(const char *name) {
  /* counts of instructions, spills, sizes of code and of per-invocation memory: they change speed, not how
   * many workgroups are resident */
  static const char *neutral[] = {"spill", "fill", "binary", "code size", "instruction", "cycle", "loop", "send",
                                  "stack", "local memory", "scratch", "compile", "hash", "nop", "copies", "branch",
                                  "latency", "throughput", "clause", "vmem", "smem", "salu", "valu", "pre-sched"};
  for (size_t i = 0; i < VKOCC_ARRAY_LEN(neutral); i++)
    if (has(name, neutral[i])) return ST_NEUTRAL;
  if (has(name, "register count") || has(name, "vgpr") || has(name, "grf register")) return ST_REGISTERS;
  if (has(name, "shared memory") || has(name, "lds size") || has(name, "workgroup memory")) return ST_SHARED;
  if (has(name, "subgroups per simd") || has(name, "waves per simd")) return ST_BOUNDS_INVERSE;
  if (has(name, "sgpr") || has(name, "dispatch width") || has(name, "barrier")) return ST_BOUNDS;
  return ST_OTHER;
}

int probes_stat_kind(const char *name) { return (int)classify(name); }

const char *vkocc_written_evidence_name(vkocc_written_evidence e) {
  switch (e) {
  case VKOCC_WRITTEN_NO_STATISTICS: return "measured: the driver reports no statistics to compare";
  case VKOCC_WRITTEN_EQUAL: return "measured: statistics equal";
  case VKOCC_WRITTEN_BOUNDED: return "measured: the augmented pipeline uses no less of any resource and reaches the "
                                     "written pipeline's limit";
  case VKOCC_WRITTEN_PREDICTED: return "predicted from written statistics by the per-SM model";
  case VKOCC_WRITTEN_UNMODIFIED: return "--unmodified";
  case VKOCC_WRITTEN_CACHED: return "cached";
  case VKOCC_WRITTEN_VARIANT: return "measured with an augmentation variant whose statistics equal the written ones";
  default: return "not established";
  }
}

static void append(char *buf, size_t len, const char *fmt, ...) {
  size_t used = strlen(buf);
  if (used + 1 >= len) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf + used, len - used, fmt, ap);
  va_end(ap);
}

static uint32_t u32(double v) { return isfinite(v) && v > 0 ? (v >= UINT32_MAX ? UINT32_MAX : (uint32_t)v) : 0; }

/* The limits, in workgroups per SM, of one pipeline; VKOCC_NO_LIMIT where unknown. */
typedef struct { uint32_t slots, shared, regs; bool shared_known, regs_known; } limits;

static limits limits_of(const vkocc_derived *d, const vkocc_register_model *m, uint32_t wg, uint32_t shared,
                        uint32_t regs) {
  limits l = {0};
  vkocc_limits_per_sm x;
  vkocc_limits_per_sm_compute(d, wg, 0, &x); /* workgroup and subgroup slots: resource-free */
  l.slots = x.wg_per_sm;
  vkocc_limits_per_sm_compute(d, wg, shared, &x);
  l.shared_known = shared == 0 || d->shared_bound_seen;
  l.shared = shared == 0 ? VKOCC_NO_LIMIT : x.shared_memory;
  l.regs_known = m && m->known && regs > 0;
  l.regs = l.regs_known ? vkocc_register_limit(m, wg, regs) : VKOCC_NO_LIMIT;
  return l;
}

static uint32_t min3(uint32_t a, uint32_t b, uint32_t c) { return a < b ? (a < c ? a : c) : (b < c ? b : c); }

static uint32_t total(const vkocc_derived *d, uint32_t per_sm) {
  uint64_t P = (uint64_t)per_sm * d->sm_count;
  return P > UINT32_MAX ? UINT32_MAX : (uint32_t)P;
}

static vkocc_status fail(vkocc_written_answer *o, const char *fmt, ...) {
  char why[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, sizeof why, fmt, ap);
  va_end(ap);
  snprintf(o->reason, sizeof o->reason, "could not establish P of the pipeline as written: %s", why);
  o->P = 0;
  o->evidence = VKOCC_WRITTEN_NONE;
  return vkocc_fail_reason(VKOCC_ERROR_RUNTIME, VKOCC_REASON_WRITTEN_UNKNOWN, "%s", o->reason);
}

vkocc_status vkocc_written_decide(const vkocc_written_input *in, vkocc_written_answer *o) {
  vkocc_clear_error();
  memset(o, 0, sizeof *o);
  o->augmented_P = in->augmented_P;
  o->written_shared = o->augmented_shared = in->shared_bytes;
  const vkocc_derived *d = in->derived && in->derived->sm_count && in->derived->wg_per_sm ? in->derived : NULL;
  /* a register file only bounded from below (no point was limited by registers) does not predict */
  const vkocc_register_model *rm = in->registers && in->registers->known && in->registers->bound_seen ? in->registers
                                                                                                       : NULL;
  if (in->unmodified) {
    o->P = in->augmented_P;
    o->evidence = VKOCC_WRITTEN_UNMODIFIED;
    o->confirmed = true;
    snprintf(o->reason, sizeof o->reason, "measured on the pipeline as written (--unmodified)");
    return VKOCC_OK;
  }
  if (in->nstats == 0) {
    o->P = in->augmented_P;
    o->evidence = VKOCC_WRITTEN_NO_STATISTICS;
    snprintf(o->reason, sizeof o->reason, "the driver reports no executable statistics: a difference between the "
             "pipeline as written and the one measured cannot show");
    return VKOCC_OK;
  }
  /* the statistics that bound occupancy, compared */
  bool differ = false, unknown_differs = false, no_less = true, missing = false;
  char unknown_name[96] = "", missing_name[96] = "";
  for (uint32_t i = 0; i < in->nstats; i++) {
    stat_kind k = classify(in->names[i]);
    double w = in->written[i], a = in->augmented[i];
    if (k == ST_REGISTERS) o->written_registers = u32(w), o->augmented_registers = u32(a);
    if (k == ST_SHARED) o->written_shared = u32(w), o->augmented_shared = u32(a);
    if (k == ST_NEUTRAL) continue;
    if (isnan(w) != isnan(a)) {
      missing = true;
      if (!missing_name[0]) snprintf(missing_name, sizeof missing_name, "%s", in->names[i]);
      continue;
    }
    if (isnan(w) || w == a) continue;
    differ = true;
    append(o->differs, sizeof o->differs, "%s%s %g written / %g augmented", o->differs[0] ? "; " : "", in->names[i], w, a);
    if (k == ST_OTHER) {
      unknown_differs = true;
      if (!unknown_name[0]) snprintf(unknown_name, sizeof unknown_name, "%s", in->names[i]);
    }
    if (k == ST_BOUNDS_INVERSE ? a > w : a < w) no_less = false;
  }
  if (differ && in->variant_P) {
    /* a variant compiled to the written pipeline's statistics was measured: its P is the written one's */
    o->P = in->variant_P;
    o->evidence = VKOCC_WRITTEN_VARIANT;
    o->confirmed = true;
    snprintf(o->variant, sizeof o->variant, "%s", in->variant ? in->variant : "?");
    char pred[120] = "";
    if (d && !unknown_differs) {
      o->predicted_P = vkocc_model_P(d, rm, in->wg_size, o->written_shared, o->written_registers, &o->binding);
      if (rm || !o->written_registers)
        snprintf(pred, sizeof pred, "; the per-SM model predicts %u from the written statistics%s", o->predicted_P,
                 o->predicted_P == o->P ? "" : " (it does not agree)");
    }
    snprintf(o->reason, sizeof o->reason, "statistics that bound occupancy differ in the default augmentation (%.200s); "
             "the '%s' augmentation compiles to the written statistics and measured P = %u%s", o->differs, o->variant,
             o->P, pred);
    return VKOCC_OK;
  }
  if (missing)
    return fail(o, "the driver gives '%s' for one of the two pipelines only (the pipeline as written could not be "
                "compiled for its statistics?); measure it with --unmodified", missing_name);
  if (!differ) {
    o->P = in->augmented_P;
    o->evidence = VKOCC_WRITTEN_EQUAL;
    o->confirmed = true;
    snprintf(o->reason, sizeof o->reason, "every statistic that bounds occupancy is equal in the pipeline as written "
             "and the one measured: its P is the measured one");
    if (d) o->binding = 0, vkocc_model_P(d, rm, in->wg_size, o->written_shared, o->written_registers, &o->binding);
    return VKOCC_OK;
  }
  if (unknown_differs)
    return fail(o, "the driver statistic '%s' differs (%s) and vkocc does not know whether it bounds occupancy; "
                "measure the pipeline as written with --unmodified", unknown_name, o->differs);
  if (!d) {
    o->needs = VKOCC_WRITTEN_NEEDS_MODEL;
    return fail(o, "statistics that bound occupancy differ (%s) and no per-SM model of this device and queue family "
                "is known: give --from a surface or fingerprint of it (vkocc fingerprint caches one), or measure the "
                "pipeline as written with --unmodified", o->differs);
  }
  uint32_t N = d->sm_count;
  limits lw = limits_of(d, rm, in->wg_size, o->written_shared, o->written_registers);
  /* 1. The bound: the augmented pipeline uses no less of any resource, so the written one holds at least as
   * many workgroups; where the augmented P already reaches a limit the written pipeline has too (the slots,
   * or its own known shared-memory or register limit), both are equal. */
  uint32_t cap_w = min3(lw.slots, lw.shared_known ? lw.shared : VKOCC_NO_LIMIT, lw.regs_known ? lw.regs : VKOCC_NO_LIMIT);
  if (no_less && in->augmented_P % N == 0 && total(d, cap_w) == in->augmented_P) {
    o->P = in->augmented_P;
    o->evidence = VKOCC_WRITTEN_BOUNDED;
    o->confirmed = true;
    o->predicted_P = total(d, cap_w);
    vkocc_model_P(d, rm, in->wg_size, o->written_shared, o->written_registers, &o->binding);
    snprintf(o->reason, sizeof o->reason, "the augmented pipeline uses no less of any resource (%s), so the pipeline "
             "as written holds at least its %u workgroups; %u per SM is already the written pipeline's own limit",
             o->differs, in->augmented_P, cap_w);
    return VKOCC_OK;
  }
  /* 2. The model: every limit that differs must be known for both pipelines, and the model must reproduce the
   * measured augmented P from the augmented statistics. */
  bool regs_differ = o->written_registers != o->augmented_registers;
  bool shared_differ = o->written_shared != o->augmented_shared;
  bool other_differ = false;
  for (uint32_t i = 0; i < in->nstats; i++) {
    stat_kind k = classify(in->names[i]);
    if ((k == ST_BOUNDS || k == ST_BOUNDS_INVERSE) && !isnan(in->written[i]) && in->written[i] != in->augmented[i])
      other_differ = true;
  }
  if (other_differ)
    return fail(o, "statistics that bound occupancy differ (%s), among them one the per-SM model does not cover; "
                "measure the pipeline as written with --unmodified", o->differs);
  if (regs_differ && !rm) {
    o->needs = VKOCC_WRITTEN_NEEDS_MODEL | VKOCC_WRITTEN_NEEDS_REGISTERS;
    return fail(o, "the register counts differ (%u written, %u augmented) and the register file of this device is "
                "unknown: measure it with `vkocc surface --registers` (probe --shader then finds it), or measure the "
                "pipeline as written with --unmodified", o->written_registers, o->augmented_registers);
  }
  if (shared_differ && !d->shared_bound_seen)
    return fail(o, "the shared memory differs (%u bytes written, %u augmented) and the shared capacity per SM of this "
                "queue family is unknown (no point of the surface was limited by it); measure the pipeline as written "
                "with --unmodified", o->written_shared, o->augmented_shared);
  uint32_t binding_a = 0;
  o->predicted_augmented_P = vkocc_model_P(d, rm, in->wg_size, o->augmented_shared, o->augmented_registers, &binding_a);
  o->predicted_P = vkocc_model_P(d, rm, in->wg_size, o->written_shared, o->written_registers, &o->binding);
  if (o->predicted_augmented_P != in->augmented_P)
    return fail(o, "statistics that bound occupancy differ (%s); the per-SM model predicts P = %u for the augmented "
                "pipeline (%s binds) but %u was measured, so it does not describe this pipeline (a model of another "
                "queue family?) and its prediction for the pipeline as written (%u) is not trusted; measure the "
                "pipeline as written with --unmodified", o->differs, o->predicted_augmented_P,
                vkocc_limit_name(binding_a), in->augmented_P, o->predicted_P);
  /* Limits the model does not know are equal in both pipelines (checked above) and, since the augmented P
   * was measured, allow at least pa per SM: they cannot bind below that. Above it they could. */
  bool unknown_limit = !lw.regs_known || !lw.shared_known;
  if (unknown_limit && o->predicted_P > in->augmented_P) {
    /* the register file is what a measurement can add (a shared-memory limit no point reached stays unknown) */
    o->needs = VKOCC_WRITTEN_NEEDS_MODEL | VKOCC_WRITTEN_NEEDS_REGISTERS;
    return fail(o, "statistics that bound occupancy differ (%s); the per-SM model predicts P = %u for the pipeline "
                "as written, more than the %u measured, and its %s limit is unknown and could bind in between; "
                "measure the register file with `vkocc surface --registers`, or the pipeline as written with "
                "--unmodified", o->differs, o->predicted_P, in->augmented_P, !lw.regs_known ? "register" : "shared-memory");
  }
  o->P = o->predicted_P;
  o->evidence = VKOCC_WRITTEN_PREDICTED;
  o->confirmed = o->P == in->augmented_P; /* the measurement shows it directly only where they are equal */
  snprintf(o->reason, sizeof o->reason, "statistics that bound occupancy differ (%s): P = %u predicted from the written "
           "statistics by the per-SM model (%s binds), which reproduces the %u measured on the augmented pipeline",
           o->differs, o->P, vkocc_limit_name(o->binding), in->augmented_P);
  return VKOCC_OK;
}

bool probes_written_stats_equal(uint32_t n, const char *const *names, const double *a, const double *b) {
  for (uint32_t i = 0; i < n; i++) {
    if (classify(names[i]) == ST_NEUTRAL) continue;
    if (isnan(a[i]) != isnan(b[i]) || (!isnan(a[i]) && a[i] != b[i])) return false;
  }
  return true;
}

int probes_written_pick_variant(uint32_t n, const char *const *names, const double *written,
                               const double *const *variant_stats, uint32_t nvariants) {
  for (uint32_t v = 0; v < nvariants; v++)
    if (variant_stats[v] && probes_written_stats_equal(n, names, written, variant_stats[v])) return (int)v;
  return -1;
}
