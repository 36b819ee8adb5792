/* The calculator's models from files and its one emitter (include/vkocc.h "the occupancy calculator").
 * The emitter is one sequence of calls over the report (as vulkaninfo's printer): each value is handed to a
 * printer with its key; the JSON printer puts it in the document, the CSV printer in a column, the text printer
 * in a slot its layout (a table line, the lines of one point) prints when the row ends. */
#include "io.h"
#include "registers_io.h"
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- models */

void vkocc_calc_model_free(vkocc_calc_model *m) {
  if (m) vkocc_surface_free(&m->surface);
}

vkocc_status vkocc_calc_model_from_surface(vkocc_surface *s, vkocc_calc_model *out) {
  vkocc_clear_error();
  memset(out, 0, sizeof *out);
  out->surface = *s;
  memset(s, 0, sizeof *s);
  vkocc_status st = vkocc_derive(out->surface.points, out->surface.count, out->surface.subgroup_size, &out->derived);
  if (st) vkocc_calc_model_free(out);
  return st;
}


vkocc_status vkocc_calc_model_load(const char *path, uint32_t sg, vkocc_calc_model *out) {
  vkocc_clear_error();
  memset(out, 0, sizeof *out);
  vkocc_status st = vkocc_surface_load_model(path, &out->surface, &out->derived, &out->model_only);
  if (st) return st;
  snprintf(out->source, sizeof out->source, "%s", path);
  if (out->model_only && sg) {
    vkocc_calc_model_free(out);
    return vkocc_fail(VKOCC_ERROR_USAGE, "--subgroup-size: %s holds derived limits for subgroups of %u; drop the "
                      "option", path, out->derived.subgroup_size);
  }
  if (!out->model_only &&
      (st = vkocc_derive(out->surface.points, out->surface.count, sg ? sg : out->surface.subgroup_size, &out->derived)))
    vkocc_calc_model_free(out);
  return st;
}

vkocc_status vkocc_calc_model_load_registers(const char *path, vkocc_calc_model *out) {
  vkocc_clear_error();
  memset(out, 0, sizeof *out);
  snprintf(out->source, sizeof out->source, "%s", path);
  vkocc_register_doc rd;
  vkocc_status st = vkocc_register_doc_load(path, &rd);
  if (st) {
    /* a surface or fingerprint: valid, but only a fingerprint of schema 2 may carry the register axis */
    vkocc_surface s;
    bool mo;
    vkocc_derived dd;
    char why[600];
    snprintf(why, sizeof why, "%s", vkocc_last_error());
    if (vkocc_surface_load_model(path, &s, &dd, &mo) != VKOCC_OK) return vkocc_fail(st, "%s", why);
    json_t *doc = json_load_file(path, 0, NULL);
    json_t *rmj = doc ? json_object_get(doc, "register_model") : NULL;
    json_t *dj = doc ? json_object_get(doc, "derived") : NULL;
    if (!(dj && vkocc_derived_from_json(dj, path, "$.derived", &dd) == VKOCC_OK) && !mo &&
        vkocc_derive(s.points, s.count, s.subgroup_size, &dd) != VKOCC_OK)
      dd.sm_count = 0;
    bool ok = rmj && vkocc_register_model_from_json(rmj, path, "$.register_model", &out->registers) == VKOCC_OK &&
              out->registers.known && dd.sm_count;
    json_decref(doc);
    if (!ok) {
      vkocc_surface_free(&s);
      memset(out, 0, sizeof *out);
      return vkocc_fail(VKOCC_ERROR_USAGE, "--regs: %s holds no register axis (a surface, or a fingerprint without "
                        "registers): give the vkocc.registers document of `vkocc surface --registers`", path);
    }
    vkocc_clear_error();
    out->derived = dd;
    out->surface.device = s.device, out->surface.has_device = s.has_device;
    vkocc_surface_free(&s);
    return VKOCC_OK;
  }
  out->registers = rd.model;
  if (!out->registers.known &&
      (st = vkocc_derive_registers(rd.points, rd.count, rd.has_base ? &rd.base : NULL, &out->registers))) {
    vkocc_register_doc_free(&rd);
    return vkocc_fail(VKOCC_ERROR_USAGE, "--from %s: %s", path, vkocc_last_error());
  }
  if (!rd.has_base) {
    vkocc_register_doc_free(&rd);
    return vkocc_fail(VKOCC_ERROR_USAGE, "--from %s: $.base: missing", path);
  }
  out->derived = rd.base;
  out->surface.device = rd.device, out->surface.has_device = rd.has_device;
  vkocc_register_doc_free(&rd);
  return VKOCC_OK;
}

/* ---------------------------------------------------------------- shared text */

static const char *plural(uint32_t n, const char *one, const char *many) { return n == 1 ? one : many; }

void vkocc_derived_write_text(FILE *f, const char *label, const vkocc_derived *d, const char *from) {
  char sms[96];
  if (d->sm_count) snprintf(sms, sizeof sms, "%u %s%s", d->sm_count, plural(d->sm_count, "SM", "SMs"),
                            d->sm_count_ambiguous ? " (ambiguous: another SM count explains as many points)" : "");
  else snprintf(sms, sizeof sms, "SM count unknown (values per SM)");
  const char *sg_more = d->subgroups_bound_seen ? "" : " or more", *sh_more = d->shared_bound_seen ? "" : " or more";
  fprintf(f, "%s%s; per SM: %u %s, %u%s %s (%u%s %s; subgroup size %u%s), %u%s shared %s; ", label, sms, d->wg_per_sm,
          plural(d->wg_per_sm, "workgroup", "workgroups"), d->subgroups_per_sm, sg_more,
          plural(d->subgroups_per_sm, "subgroup", "subgroups"), d->threads_per_sm, sg_more,
          plural(d->threads_per_sm, "thread", "threads"), d->subgroup_size,
          d->subgroup_size_inferred ? ", inferred" : "", d->shared_per_sm, sh_more,
          plural(d->shared_per_sm, "byte", "bytes"));
  if (from) fprintf(f, "read from %s ($.derived)\n", from);
  else fprintf(f, "%u/%u %s explained\n", d->explained, d->total, plural(d->total, "point", "points"));
}

void vkocc_register_model_write_text(FILE *f, const vkocc_register_model *m, const vkocc_register_point *p) {
  if (!m->known) { fprintf(f, "registers: unknown\n"); return; }
  fprintf(f, "registers: %u per SM", m->regs_per_sm);
  if (!m->bound_seen) fprintf(f, " or more (no point was limited by registers)");
  else if (m->regs_per_sm_max != m->regs_per_sm && m->regs_per_sm_max != UINT32_MAX)
    fprintf(f, " (consistent %u..%u)", m->regs_per_sm, m->regs_per_sm_max);
  fprintf(f, "; allocated per subgroup of %u in units of %u (%u per invocation), %u %s; at most %u per invocation%s%s; "
          "%u/%u points explained\n", m->subgroup_size, m->alloc_unit, m->alloc_unit_per_invocation, m->partitions,
          m->partitions == 1 ? "partition" : "partitions", m->max_per_invocation,
          m->max_capped ? " (more live values gave no more)" : " seen (a lower bound)",
          m->ambiguous ? "; ambiguous: another unit or partition count explains as many points" : "", m->explained,
          m->total);
  for (uint32_t i = 0; p && i < m->n_unexplained; i++)
    fprintf(f, "  not explained: wg %u, %u registers, %u shared bytes: P %u\n", p[m->unexplained[i]].wg_size,
            p[m->unexplained[i]].registers, p[m->unexplained[i]].shared_bytes, p[m->unexplained[i]].P);
}

/* ---------------------------------------------------------------- the printer */

#define SLOTS 32
typedef struct printer {
  vkocc_calc_format format;
  FILE *out;
  json_t *stack[4];            /* JSON: the objects being filled, innermost last */
  int depth;
  const char *prefix;          /* CSV: the column prefix of the nested object ("limit_") */
  bool header_done;            /* CSV */
  char header[1024], line[1024];
  struct { char key[48], text[64]; } slot[SLOTS]; /* text: the row's values by key (nested: prefixed) */
  int nslots;
} printer;

static void p_begin(printer *p, const char *key, const char *csv_prefix) {
  if (p->format == VKOCC_CALC_JSON) {
    json_t *o = json_object();
    if (p->depth) json_object_set_new(p->stack[p->depth - 1], key, o);
    p->stack[p->depth++] = o;
  } else {
    p->prefix = csv_prefix;
  }
}
static void p_end(printer *p) {
  if (p->format == VKOCC_CALC_JSON) p->depth--;
  else p->prefix = NULL;
}

static void append(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void append(char *buf, size_t len, const char *fmt, ...) {
  size_t at = strlen(buf);
  va_list ap;
  va_start(ap, fmt);
  if (at < len) vsnprintf(buf + at, len - at, fmt, ap);
  va_end(ap);
}

/* one value: json (a new reference), its CSV cell, its text; csv false: JSON and text only */
static void p_value(printer *p, const char *key, json_t *json, const char *cell, const char *text, bool csv) {
  if (p->format == VKOCC_CALC_JSON) {
    json_object_set_new(p->stack[p->depth - 1], key, json);
    return;
  }
  json_decref(json);
  if (p->format == VKOCC_CALC_CSV) {
    if (!csv) return;
    if (!p->header_done) append(p->header, sizeof p->header, "%s%s%s", p->header[0] ? "," : "", p->prefix ? p->prefix : "", key);
    append(p->line, sizeof p->line, "%s%s", p->line[0] ? "," : "", cell);
    return;
  }
  if (p->nslots < SLOTS) {
    snprintf(p->slot[p->nslots].key, sizeof p->slot[0].key, "%s%s", p->prefix ? p->prefix : "", key);
    snprintf(p->slot[p->nslots++].text, sizeof p->slot[0].text, "%s", text);
  }
}
static void p_u32(printer *p, const char *key, uint64_t v) {
  char s[24];
  snprintf(s, sizeof s, "%llu", (unsigned long long)v);
  p_value(p, key, json_integer((json_int_t)v), s, s, true);
}
static void p_str(printer *p, const char *key, const char *v) { p_value(p, key, json_string(v), v, v, true); }
static void p_limit(printer *p, const char *key, uint32_t v, bool csv) {
  char s[16];
  snprintf(s, sizeof s, "%u", v);
  bool none = v == VKOCC_NO_LIMIT;
  p_value(p, key, none ? json_null() : json_integer(v), none ? "" : s, none ? "-" : s, csv);
}
/* the occupancy: a number in JSON and CSV; in text marked as the bound it is ("<=" at most, "~" estimate) */
static void p_pct(printer *p, const char *key, double v, vkocc_calc_bound b, const char *unit) {
  char cell[24], text[32];
  snprintf(cell, sizeof cell, "%.2f", v);
  snprintf(text, sizeof text, "%s%.2f%s", b == VKOCC_CALC_AT_MOST ? "<=" : b == VKOCC_CALC_ESTIMATE ? "~" : "", v,
           unit);
  p_value(p, key, json_real(v), cell, text, true);
}
static const char *slot(const printer *p, const char *key) {
  for (int i = 0; i < p->nslots; i++) if (!strcmp(p->slot[i].key, key)) return p->slot[i].text;
  return "";
}

/* ---------------------------------------------------------------- the report */

/* some row's occupancy is a bound: the documents say which (absent: every occupancy is exact) */
static bool any_bound(const vkocc_calc_report *r) {
  for (uint32_t i = 0; i < r->count; i++) if (r->rows[i].bound != VKOCC_CALC_EXACT) return true;
  return r->suggestion && r->suggestion->row.bound != VKOCC_CALC_EXACT;
}

static void limits(printer *p, const vkocc_limits_per_sm *l, bool registers_column) {
  p_begin(p, "limits_per_sm", "limit_");
  p_limit(p, "workgroup_slots", l->workgroup_slots, true);
  p_limit(p, "subgroup_slots", l->subgroup_slots, true);
  p_limit(p, "threads", l->threads, !registers_column);
  p_limit(p, "shared_memory", l->shared_memory, true);
  p_limit(p, "registers", l->registers, registers_column);
  p_end(p);
}

/* One row, every value once, in the document's order. */
static void emit_row(printer *p, const vkocc_calc_report *r, const vkocc_calc_row *w, bool suggestion, bool bounds) {
  const vkocc_calc_model *m = r->model;
  bool per_sm = m->derived.sm_count == 0;
  const vkocc_occupancy *o = &w->occupancy;
  p_u32(p, "wg_size", w->wg_size);
  p_u32(p, "shared_bytes", w->shared_bytes);
  if (r->registers) {
    p_u32(p, "registers", w->registers);
    p_pct(p, "occupancy_pct", o->occupancy_pct, w->bound, "");
    if (w->bound != VKOCC_CALC_EXACT) p_str(p, "occupancy_bound", vkocc_calc_bound_name(w->bound));
    p_u32(p, "workgroups_per_sm", o->wg_per_sm);
    p_u32(p, "workgroups", (uint64_t)o->wg_per_sm * m->derived.sm_count);
    p_str(p, "limit", vkocc_limit_name(w->limits.binding));
    limits(p, &w->limits, true);
    return;
  }
  p_pct(p, "occupancy_pct", o->occupancy_pct, w->bound, "%");
  if (p->format == VKOCC_CALC_CSV ? bounds : w->bound != VKOCC_CALC_EXACT)
    p_str(p, "occupancy_bound", vkocc_calc_bound_name(w->bound));
  if (suggestion) {
    p_u32(p, "workgroups_per_sm", o->wg_per_sm);
    p_str(p, "limit", vkocc_limit_name(o->binding));
    return; /* the rule and the limits follow in the suggestion */
  }
  if (!per_sm) {
    p_u32(p, "workgroups", o->wgs);
    p_u32(p, "subgroups", o->subgroups);
    p_u32(p, "threads", o->threads);
  }
  p_u32(p, "workgroups_per_sm", o->wg_per_sm);
  p_u32(p, "subgroups_per_sm", o->subgroups_per_sm);
  p_u32(p, "threads_per_sm", o->threads_per_sm);
  p_str(p, "limit", vkocc_limit_name(o->binding));
  p_str(p, "source", vkocc_calc_source_name(w->source));
  limits(p, &w->limits, false);
}

static int limit_width(void) {
  int w = 5;
  for (int b = 1; b <= 7; b++) {
    int l = (int)strlen(vkocc_limit_name((uint32_t)b));
    if (l > w) w = l;
  }
  return w;
}

static const char *device_name(const vkocc_calc_report *r) {
  const vkocc_calc_model *m = r->model;
  return m->surface.has_device ? m->surface.device.name : r->from ? r->from : "?";
}

/* "56.25% of 2048", "at most 56.25% of 2048 or more" */
static void occupancy_text(const vkocc_calc_row *w, const vkocc_derived *d, char *out, size_t len) {
  snprintf(out, len, "%s%.2f%% of %u%s", w->bound == VKOCC_CALC_AT_MOST ? "at most " : w->bound == VKOCC_CALC_ESTIMATE
           ? "about " : "", w->occupancy.occupancy_pct, d->threads_per_sm, d->subgroups_bound_seen ? "" : " or more");
}

/* The text layouts of one row, from the printer's slots. */
static void text_row(printer *p, const vkocc_calc_report *r, const vkocc_calc_row *w) {
  FILE *f = p->out;
  const vkocc_derived *d = &r->model->derived;
  bool per_sm = d->sm_count == 0;
  char occ[96];
  occupancy_text(w, d, occ, sizeof occ);
  if (r->registers) {
    if (r->kind == VKOCC_CALC_TABLE) {
      fprintf(f, "%-8s %-10s %-10s %-13s %-8s %-8s %-8s %-8s %-8s %s\n", slot(p, "wg_size"), slot(p, "shared_bytes"),
              slot(p, "registers"), slot(p, "occupancy_pct"), slot(p, "workgroups_per_sm"),
              slot(p, "limit_workgroup_slots"), slot(p, "limit_subgroup_slots"), slot(p, "limit_shared_memory"),
              slot(p, "limit_registers"), slot(p, "limit"));
      return;
    }
    if (r->kind == VKOCC_CALC_SUGGESTION) {
      fprintf(f, "suggested workgroup size: %s threads, %s shared bytes, %u registers per invocation (%u sizes "
              "considered)\n", slot(p, "wg_size"), slot(p, "shared_bytes"), r->registers, r->suggestion->candidates);
      fprintf(f, "occupancy: %s threads per SM, %s workgroups per SM; binding limit: %s\n", occ,
              slot(p, "workgroups_per_sm"), slot(p, "limit"));
    } else {
      fprintf(f, "device: %s\npoint:  workgroup %s threads, %s shared bytes, %u registers per invocation\n",
              r->model->surface.has_device ? r->model->surface.device.name : r->from, slot(p, "wg_size"),
              slot(p, "shared_bytes"), r->registers);
      fprintf(f, "resident workgroups: %s on the device, %s per SM; occupancy %s threads per SM; binding limit: %s\n",
              slot(p, "workgroups"), slot(p, "workgroups_per_sm"), occ, slot(p, "limit"));
    }
    fprintf(f, "workgroups per SM by limit: workgroup slots %s, subgroup slots %s, shared memory %s, registers %s\n",
            slot(p, "limit_workgroup_slots"), slot(p, "limit_subgroup_slots"), slot(p, "limit_shared_memory"),
            slot(p, "limit_registers"));
    return;
  }
  const char *by_limit = "workgroups per SM by limit: workgroup slots %s, subgroup slots %s, threads %s, shared memory "
                         "%s, registers unknown\n";
  if (r->kind == VKOCC_CALC_SUGGESTION) {
    const vkocc_calc_suggestion *s = r->suggestion;
    fprintf(f, "suggested workgroup size: %s threads, %s shared bytes (%u + %u per thread; %u sizes considered)\n",
            slot(p, "wg_size"), slot(p, "shared_bytes"), s->shared_base, s->shared_per_thread, s->candidates);
    fprintf(f, "occupancy: %s threads per SM, %u %s per SM; binding limit: %s\n", occ, w->occupancy.wg_per_sm,
            w->occupancy.wg_per_sm == 1 ? "workgroup" : "workgroups", slot(p, "limit"));
  } else if (r->kind == VKOCC_CALC_TABLE) {
    fprintf(f, "%-8s %-11s %-10s %-7s %-7s %-7s", slot(p, "wg_size"), slot(p, "shared_bytes"), slot(p, "occupancy_pct"),
            slot(p, "workgroups_per_sm"), slot(p, "subgroups_per_sm"), slot(p, "threads_per_sm"));
    if (!per_sm) fprintf(f, " %-12s", slot(p, "workgroups"));
    fprintf(f, " %-*s %s\n", limit_width(), slot(p, "limit"), slot(p, "source"));
    return;
  } else {
    fprintf(f, "device: %s\n", device_name(r));
    /* P 0 from a file that names no device limits: the file says the device cannot run the point */
    bool unrunnable = w->source != VKOCC_CALC_MODEL && w->occupancy.wg_per_sm == 0;
    fprintf(f, "point:  workgroup %s threads, %s shared bytes (%s)\n", slot(p, "wg_size"), slot(p, "shared_bytes"),
            unrunnable ? "P 0 in the file: the device cannot run this point" : slot(p, "source"));
    static const char *rows[][2] = {{"resident workgroups", "workgroups"}, {"resident subgroups", "subgroups"},
                                    {"resident threads", "threads"}};
    if (per_sm) fprintf(f, "%-22s %10s\n", "", "per SM");
    else fprintf(f, "%-22s %10s %10s\n", "", "device", "per SM");
    for (int i = 0; i < 3; i++) {
      char key[32];
      snprintf(key, sizeof key, "%s_per_sm", rows[i][1]);
      if (per_sm) fprintf(f, "%-22s %10s\n", rows[i][0], slot(p, key));
      else fprintf(f, "%-22s %10s %10s\n", rows[i][0], slot(p, rows[i][1]), slot(p, key));
    }
    fprintf(f, "occupancy: %s threads per SM; binding limit: %s\n", occ, slot(p, "limit"));
  }
  fprintf(f, by_limit, slot(p, "limit_workgroup_slots"), slot(p, "limit_subgroup_slots"), slot(p, "limit_threads"),
          slot(p, "limit_shared_memory"));
}

static void row_done(printer *p, const vkocc_calc_report *r, const vkocc_calc_row *w) {
  if (p->format == VKOCC_CALC_CSV) {
    if (!p->header_done) fprintf(p->out, "%s\n", p->header);
    p->header_done = true;
    fprintf(p->out, "%s\n", p->line);
    p->line[0] = 0;
  } else if (p->format == VKOCC_CALC_TEXT) {
    text_row(p, r, w);
  }
  p->nslots = 0;
}

/* The derived limits as the document records them (values per SM: the SM count null). */
static json_t *derived_json(const vkocc_calc_report *r) {
  const vkocc_calc_model *m = r->model;
  const vkocc_derived *d = &m->derived;
  if (r->registers) /* the limits the register model was fitted with, without the points' bookkeeping */
    return vkocc_derived_json(&(vkocc_derived){.sm_count = d->sm_count, .wg_per_sm = d->wg_per_sm,
        .subgroups_per_sm = d->subgroups_per_sm, .subgroups_per_sm_max = d->subgroups_per_sm_max,
        .subgroups_bound_seen = d->subgroups_bound_seen, .subgroup_size = d->subgroup_size,
        .threads_per_sm = d->threads_per_sm, .shared_per_sm = d->shared_per_sm,
        .shared_per_sm_max = d->shared_per_sm_max, .shared_bound_seen = d->shared_bound_seen,
        .explained = d->explained, .total = d->total}, NULL);
  vkocc_derived dd = *d;
  if (!dd.sm_count) dd.sm_count = 1;
  json_t *o = vkocc_derived_json(&dd, &m->surface);
  if (!d->sm_count) json_object_set_new(o, "sm_count", json_null()); /* unknown: the rows are per SM */
  return o;
}

/* The whole report through one printer. */
static void emit(printer *p, const vkocc_calc_report *r) {
  const vkocc_calc_model *m = r->model;
  bool per_sm = m->derived.sm_count == 0, bounds = any_bound(r);
  if (p->format == VKOCC_CALC_JSON) {
    json_t *doc;
    if (r->registers) {
      doc = vkocc_doc_new(VKOCC_DOC_CALC);
      json_object_set_new(doc, "derived", derived_json(r));
      json_object_set_new(doc, "register_model", vkocc_register_model_json(&m->registers));
      json_object_set_new(doc, "registers", json_integer(r->registers));
    } else {
      doc = vkocc_doc_stamp(json_pack("{s:o}", "derived", derived_json(r)), VKOCC_DOC_CALC);
    }
    if (m->surface.has_device) json_object_set_new(doc, "device", vkocc_device_info_json(&m->surface.device));
    p->stack[p->depth++] = doc;
  }
  if (r->kind == VKOCC_CALC_SUGGESTION) {
    const vkocc_calc_suggestion *s = r->suggestion;
    p_begin(p, "suggestion", NULL);
    emit_row(p, r, &s->row, true, bounds);
    if (r->registers) {
      p_u32(p, "candidates", s->candidates);
      if (p->format == VKOCC_CALC_JSON) json_object_set_new(p->stack[0], "rows", json_array()); /* as ever */
    } else {
      p_u32(p, "candidates", s->candidates);
      p_u32(p, "shared_base", s->shared_base);
      p_u32(p, "shared_per_thread", s->shared_per_thread);
      limits(p, &s->row.limits, false);
    }
    row_done(p, r, &s->row);
    p_end(p);
  } else {
    if (p->format == VKOCC_CALC_TEXT && !r->registers && per_sm)
      fprintf(p->out, "note: %s holds values per SM only (a normalized fingerprint): the SM count is unknown, the "
              "counts below are per SM\n", r->from);
    if (p->format == VKOCC_CALC_TEXT && r->kind == VKOCC_CALC_TABLE) {
      if (r->registers) {
        fprintf(p->out, "%-8s %-10s %-10s %-13s %-8s %-8s %-8s %-8s %-8s %s\n", "WG size", "Shared [B]", "Registers",
                "Occupancy [%]", "WGs/SM", "by slots", "by sgs", "by shm", "by regs", "Limit");
      } else {
        fprintf(p->out, "%-8s %-11s %-10s %-7s %-7s %-7s", "WG size", "Shared [B]", "Occupancy", "WGs/SM", "Sgs/SM",
                "Thr/SM");
        if (!per_sm) fprintf(p->out, " %-12s", "P (device)");
        fprintf(p->out, " %-*s %s\n", limit_width(), "Limit", "Source");
      }
    }
    json_t *rows = p->format == VKOCC_CALC_JSON ? json_array() : NULL;
    for (uint32_t i = 0; i < r->count; i++) {
      if (rows) p->stack[p->depth++] = json_object();
      emit_row(p, r, &r->rows[i], false, bounds);
      if (rows) json_array_append_new(rows, p->stack[--p->depth]);
      row_done(p, r, &r->rows[i]);
    }
    if (rows) json_object_set_new(p->stack[p->depth - 1], "rows", rows);
  }
  if (p->format != VKOCC_CALC_TEXT) return;
  if (r->registers) {
    vkocc_register_model_write_text(p->out, &m->registers, NULL);
    fprintf(p->out, "  (limits from %s)\n", m->source);
  } else {
    vkocc_derived_write_text(p->out, "derived: ", &m->derived, m->model_only && !per_sm ? r->from : NULL);
  }
}

json_t *vkocc_calc_document(const vkocc_calc_report *r) {
  printer p = {.format = VKOCC_CALC_JSON};
  emit(&p, r);
  return p.stack[0];
}

vkocc_status vkocc_calc_write(const vkocc_calc_report *r, vkocc_calc_format format, FILE *out) {
  vkocc_clear_error();
  if (format == VKOCC_CALC_CSV && (r->kind == VKOCC_CALC_SUGGESTION || r->registers))
    return vkocc_fail(VKOCC_ERROR_USAGE, "CSV holds the rows of a point or a table without registers");
  if (format == VKOCC_CALC_JSON) {
    json_t *doc = vkocc_calc_document(r);
    int rc = json_dumpf(doc, out, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
    json_decref(doc);
    if (rc || fputc('\n', out) == EOF) return vkocc_fail(VKOCC_ERROR_RUNTIME, "cannot write the calc document");
  } else {
    printer p = {.format = format, .out = out};
    emit(&p, r);
  }
  return ferror(out) ? vkocc_fail(VKOCC_ERROR_RUNTIME, "cannot write the calc answer") : VKOCC_OK;
}
