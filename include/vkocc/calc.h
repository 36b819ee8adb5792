/* vkocc/calc.h: the occupancy calculator; part of <vkocc.h>. */
#ifndef VKOCC_API_CALC_H
#define VKOCC_API_CALC_H

#include <stdio.h>  /* FILE: the calculator's emitter */
#include "common.h"
#include "surface.h"
#include "registers.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ================================================================ the occupancy calculator (`vkocc calc`)
 * From a model (derived limits, the points they came from, optionally the register file): one point, a table
 * over workgroup sizes, or the workgroup size to use; then one emitter writes the answer as text, CSV or a
 * vkocc.calc/1 document. No device: a live surface or fingerprint gives the model as well as a file does.
 *     vkocc_calc_model m;
 *     if (vkocc_calc_model_load("fingerprint.json", 0, &m) == VKOCC_OK) {
 *       vkocc_calc_row r;
 *       vkocc_calc_point(&m, 256, 16384, &r);   // 256 threads, 16 KiB shared memory
 *       printf("%.2f%%%s\n", r.occupancy.occupancy_pct, r.bound == VKOCC_CALC_EXACT ? "" : " (at most)");
 *       vkocc_calc_model_free(&m);
 *     } */

/* Where a row's P comes from. */
typedef enum vkocc_calc_source {
  VKOCC_CALC_MODEL = 0,     /* the derived model: no point of the file is here */
  VKOCC_CALC_MEASURED = 1,  /* a measured point */
  VKOCC_CALC_PREDICTED = 2, /* a point an adaptive surface predicted and did not measure */
} vkocc_calc_source;
const char *vkocc_calc_source_name(vkocc_calc_source s); /* "model", "measured", "predicted" */

/* What a row's occupancy_pct is. The per-SM thread maximum is S x subgroup size, known exactly only when some
 * point was limited by subgroup slots (vkocc_derived.subgroups_bound_seen): else it is a lower bound and the
 * percentage an upper one. A point whose threads exceed the maximum (a point the model does not explain) shows
 * 100% "at most", never more. */
typedef enum vkocc_calc_bound {
  VKOCC_CALC_EXACT = 0,
  VKOCC_CALC_AT_MOST = 1,   /* an upper bound */
  VKOCC_CALC_ESTIMATE = 2,  /* neither bound: subgroup slots bind and S is only a lower bound */
} vkocc_calc_bound;
const char *vkocc_calc_bound_name(vkocc_calc_bound b); /* "exact", "at_most", "estimate" */

typedef struct vkocc_calc_row {
  uint32_t wg_size, shared_bytes;
  uint32_t registers;          /* per invocation; 0: registers take no part */
  vkocc_occupancy occupancy;   /* occupancy_pct never above 100; without registers wgs/subgroups/threads are
                                  the device totals (0 when the SM count is unknown) */
  vkocc_limits_per_sm limits;  /* workgroups per SM by each limit (registers: VKOCC_NO_LIMIT when 0) */
  vkocc_calc_source source;
  vkocc_calc_bound bound;
} vkocc_calc_row;

typedef struct vkocc_calc_model {
  vkocc_derived derived;       /* the limits; sm_count 0: values per SM only (the SM count is unknown) */
  vkocc_surface surface;       /* the points (none for a fingerprint without its surface) and the device */
  bool model_only;             /* derived read from the file ($.derived or its normalized surface), not fitted */
  vkocc_register_model registers; /* known: the register file (vkocc_calc_model_load_registers) */
  char source[1200];           /* where the limits came from (registers: a file or a cache entry) */
} vkocc_calc_model;

/* A model from a surface file (vkocc_surface_load_model: a surface, fingerprint, calc document or CSV).
 * subgroup_size 0: the file's (inferred for a CSV); another value overrides it, VKOCC_ERROR_USAGE for a file
 * holding derived limits only. Errors: vkocc_surface_load_model's and vkocc_derive's. */
vkocc_status vkocc_calc_model_load(const char *path, uint32_t subgroup_size, vkocc_calc_model *out);
/* A model from a measured surface (taken over: freed with the model). */
vkocc_status vkocc_calc_model_from_surface(vkocc_surface *surface, vkocc_calc_model *out);
/* A model with the register file from a vkocc.registers document or a fingerprint that carries one.
 * VKOCC_ERROR_USAGE naming the file for one without a register axis. */
vkocc_status vkocc_calc_model_load_registers(const char *path, vkocc_calc_model *out);
void vkocc_calc_model_free(vkocc_calc_model *m);
/* The largest workgroup the model's device allows (0: the file names no device). */
uint32_t vkocc_calc_max_wg(const vkocc_calc_model *m);

/* One point; registers 0 without the register file. */
void vkocc_calc_point(const vkocc_calc_model *m, uint32_t wg_size, uint32_t shared_bytes, uint32_t registers,
                      vkocc_calc_row *out);
/* Every multiple of the subgroup size up to the device's largest workgroup (without a device: the largest
 * point, 1024 without points) at shared_bytes; VKOCC_CALC_FILE_POINTS: the file's own points. *rows malloc'd. */
#define VKOCC_CALC_FILE_POINTS UINT32_MAX
vkocc_status vkocc_calc_table(const vkocc_calc_model *m, uint32_t shared_bytes, uint32_t registers,
                              vkocc_calc_row **rows, uint32_t *count);
/* vkocc_suggest_wg_size over the model (with registers when given), max_wg_size 0: the device's largest, 1024
 * when the file names no device; sizes whose shared bytes exceed the device's maximum are skipped. */
typedef struct vkocc_calc_suggestion {
  vkocc_calc_row row;          /* the chosen size */
  uint32_t candidates;         /* sizes considered */
  uint32_t shared_base, shared_per_thread; /* the rule: base + wg x per thread shared bytes */
} vkocc_calc_suggestion;
vkocc_status vkocc_calc_suggest(const vkocc_calc_model *m, uint32_t shared_base, uint32_t shared_per_thread,
                                uint32_t max_wg_size, uint32_t registers, vkocc_calc_suggestion *out);

/* The answer as one report, written by one emitter in each format. */
typedef enum vkocc_calc_format { VKOCC_CALC_TEXT = 0, VKOCC_CALC_CSV = 1, VKOCC_CALC_JSON = 2 } vkocc_calc_format;
typedef enum vkocc_calc_kind { VKOCC_CALC_POINT = 0, VKOCC_CALC_TABLE = 1, VKOCC_CALC_SUGGESTION = 2 } vkocc_calc_kind;
typedef struct vkocc_calc_report {
  const vkocc_calc_model *model;
  const char *from;            /* the file the model came from (NULL: measured live) */
  vkocc_calc_kind kind;
  const vkocc_calc_row *rows;  /* point and table */
  uint32_t count;
  const vkocc_calc_suggestion *suggestion;
  uint32_t registers;          /* per invocation; 0: without the register file */
} vkocc_calc_report;
/* Writes the report to out (CSV: point and table only; JSON: the vkocc.calc/1 document as vkocc writes every
 * document). VKOCC_ERROR_USAGE for CSV of a suggestion, VKOCC_ERROR_RUNTIME when out fails. */
vkocc_status vkocc_calc_write(const vkocc_calc_report *r, vkocc_calc_format format, FILE *out);
/* The vkocc.calc/1 document of the report (a new reference). */
struct json_t *vkocc_calc_document(const vkocc_calc_report *r);
/* The lines of text vkocc prints for derived limits and a register model (label first; from: the file they
 * were read from, NULL: fitted to points), shared by calc, surface and fingerprint. */
void vkocc_derived_write_text(FILE *out, const char *label, const vkocc_derived *d, const char *from);
void vkocc_register_model_write_text(FILE *out, const vkocc_register_model *m, const vkocc_register_point *points);

#ifdef __cplusplus
}
#endif
#endif
