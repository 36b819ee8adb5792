/* A policy database as a C header (`vkocc policy header`): generated C that data cannot subvert. Every name
 * that becomes an identifier (kernel, parameter, cluster ID) is validated, and refused when it is not one, is
 * reserved, is a C keyword or a field of the table, or collides with another after the mapping; strings are
 * escaped whole (octal for anything outside printable ASCII); nothing from the data goes into a comment; a
 * parameter has one C type over every entry and every entry gives it. A database whose names were printed raw
 * ran code in the user's program (a kernel name that closed the comment it was printed in and declared a
 * constructor). */
#include "internal.h"
#include "store.h"
#include "jsonio.h"
#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct hdr {
  FILE *f;
  const char *file;
  json_t *macros;      /* every macro name emitted: a collision is refused */
  json_t *fields;      /* every field name of the tables: a macro of the same name would rewrite it */
} hdr;

static vkocc_status refuse(const hdr *h, const char *path, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static vkocc_status refuse(const hdr *h, const char *path, const char *fmt, ...) {
  char msg[600];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s: %s (vkocc policy header writes C identifiers from these names)", h->file,
                    path, msg);
}

static const char *const keywords[] = {
    "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else", "enum", "extern", "float",
    "for", "goto", "if", "inline", "int", "long", "register", "restrict", "return", "short", "signed", "sizeof",
    "static", "struct", "switch", "typedef", "union", "unsigned", "void", "volatile", "while", "_Alignas", "_Alignof",
    "_Atomic", "_Bool", "_Complex", "_Generic", "_Imaginary", "_Noreturn", "_Static_assert", "_Thread_local",
    "bool", "true", "false", "asm", "typeof", NULL};

/* A name made an identifier: letters, digits, '_' and '-' (written '_'), not starting with a digit, at most
 * 63 characters (C guarantees 63 significant), not a keyword, not reserved (_X, __x). */
static bool ident(const hdr *h, const char *path, const char *name, bool upper, char out[64], vkocc_status *st) {
  size_t n = strlen(name);
  char shown[80];
  snprintf(shown, sizeof shown, "%.60s%s", name, n > 60 ? "..." : "");
  for (char *c = shown; *c; c++)
    if (!isprint((unsigned char)*c)) *c = '?';
  if (!n || n > 63) { *st = refuse(h, path, "'%s': %zu characters; a name takes 1 to 63", shown, n); return false; }
  if (isdigit((unsigned char)name[0])) { *st = refuse(h, path, "'%s' starts with a digit", shown); return false; }
  for (size_t i = 0; i < n; i++)
    if (!(isalnum((unsigned char)name[i]) || name[i] == '_' || name[i] == '-') || (unsigned char)name[i] > 127) {
      *st = refuse(h, path, "'%s': only letters, digits, '_' and '-' make an identifier", shown);
      return false;
    }
  if (name[0] == '_' && (isupper((unsigned char)name[1]) || name[1] == '_')) {
    *st = refuse(h, path, "'%s' is an identifier C reserves", shown);
    return false;
  }
  for (size_t i = 0; i <= n; i++) out[i] = name[i] == '-' ? '_' : upper ? (char)toupper((unsigned char)name[i]) : name[i];
  for (const char *const *k = keywords; *k; k++)
    if (!strcmp(out, *k)) { *st = refuse(h, path, "'%s' is a C keyword", shown); return false; }
  return true;
}

/* a macro name once: two names mapping to one (w-g and w_g, Reduce and reduce) are refused */
static bool macro(hdr *h, const char *path, const char *m, vkocc_status *st) {
  if (json_object_get(h->macros, m)) { *st = refuse(h, path, "gives the macro %s a second time", m); return false; }
  if (json_object_get(h->fields, m)) { *st = refuse(h, path, "gives the macro %s, a field name of a table", m); return false; }
  json_object_set_new(h->macros, m, json_true());
  return true;
}

typedef enum { T_NONE, T_INT, T_REAL, T_STR } ctype;

static ctype kind_of(json_t *v) {
  return json_is_integer(v) || json_is_boolean(v) ? T_INT : json_is_real(v) ? T_REAL : json_is_string(v) ? T_STR : T_NONE;
}

/* a value as a C literal of type t (an integer in a double field is written as a double) */
static void literal(FILE *f, json_t *v, ctype t) {
  if (t == T_STR) {
    fputc('"', f);
    const char *s = json_string_value(v);
    size_t n = json_string_length(v);
    for (size_t i = 0; i < n; i++) {
      unsigned char c = (unsigned char)s[i];
      if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
      else if (c == '?') fputs("\\?", f); /* no trigraphs */
      else if (c >= 0x20 && c < 0x7f) fputc(c, f);
      else fprintf(f, "\\%03o", c);
    }
    fputc('"', f);
  } else if (t == T_REAL) {
    double x = json_is_boolean(v) ? json_is_true(v) : json_number_value(v);
    char b[40];
    snprintf(b, sizeof b, "%.17g", x);
    fprintf(f, "%s%s", b, strpbrk(b, ".eEn") ? "" : ".0");
  } else {
    json_int_t x = json_is_boolean(v) ? json_is_true(v) : json_integer_value(v);
    if (x == INT64_MIN) fputs("(-9223372036854775807LL - 1)", f);
    else fprintf(f, "%" PRId64 "LL", (int64_t)x);
  }
}

/* The parameters of a kernel (its default's, else its first entry's) and the C type of each over every entry;
 * every entry must give the same parameters. */
static vkocc_status kernel_types(hdr *h, const char *kpath, json_t *k, json_t *proto, json_t *types) {
  json_t *entries = json_object_get(k, "entries"), *def = json_object_get(json_object_get(k, "default"), "params");
  vkocc_status st = VKOCC_OK;
  for (size_t i = 0; i <= json_array_size(entries) && !st; i++) {
    json_t *params = i < json_array_size(entries) ? json_object_get(json_array_get(entries, i), "params") : def;
    if (!params) continue;
    char path[600];
    if (i < json_array_size(entries)) snprintf(path, sizeof path, "%s.entries[%zu].params", kpath, i);
    else snprintf(path, sizeof path, "%s.default.params", kpath);
    if (json_object_size(params) != json_object_size(proto))
      return refuse(h, path, "%zu parameters, but the kernel's sets have %zu: every set gives every parameter",
                    json_object_size(params), json_object_size(proto));
    const char *pn;
    json_t *pv;
    json_object_foreach(params, pn, pv) {
      char vp[700];
      snprintf(vp, sizeof vp, "%s.%.60s", path, pn);
      if (!json_object_get(proto, pn)) return refuse(h, vp, "a parameter the kernel's other sets do not have");
      ctype t = kind_of(pv), have = (ctype)json_integer_value(json_object_get(types, pn));
      if (t == T_NONE) return refuse(h, vp, "not a number, boolean or string");
      if (have && have != t) {
        if ((have == T_INT && t == T_REAL) || (have == T_REAL && t == T_INT)) t = T_REAL;
        else return refuse(h, vp, "a string in one set and a number in another: no one C type");
      }
      json_object_set_new(types, pn, json_integer(t));
    }
  }
  return st;
}

/* problem_size bounds as long long: an integer (a number that is one), else refused */
static vkocc_status bound(hdr *h, const char *path, json_t *v, long long *out) {
  *out = -1;
  if (!v) return VKOCC_OK;
  double x = json_number_value(v);
  if (!(x >= 0 && x <= 9.2e18 && x == floor(x))) return refuse(h, path, "%g is not a problem size (an integer >= 0)", x);
  *out = (long long)x;
  return VKOCC_OK;
}

static vkocc_status emit_kernel(hdr *h, const char *kname, json_t *k) {
  char kpath[200], K[64], kl[64];
  vkocc_status st = VKOCC_OK;
  snprintf(kpath, sizeof kpath, "$.kernels.%.60s", kname);
  for (char *c = kpath; *c; c++)
    if (!isprint((unsigned char)*c)) *c = '?';
  if (!ident(h, kpath, kname, true, K, &st) || !ident(h, kpath, kname, false, kl, &st)) return st;
  json_t *entries = json_object_get(k, "entries"), *def = json_object_get(json_object_get(k, "default"), "params");
  json_t *proto = json_is_object(def) ? def : json_object_get(json_array_get(entries, 0), "params");
  if (!json_is_object(proto)) return VKOCC_OK; /* no parameter set: nothing to write */
  char tname[128];
  snprintf(tname, sizeof tname, "vkocc_tuned_%s", kl);
  if (!macro(h, kpath, tname, &st)) return st;
  json_t *types = json_object();
  if ((st = kernel_types(h, kpath, k, proto, types))) { json_decref(types); return st; }
  /* the parameters' identifiers: macros K_P, fields p (not the table's own fields) */
  const char *pn;
  json_t *pv;
  json_t *field = json_object(), *mname = json_object();
  json_object_foreach(proto, pn, pv) {
    char pp[300], P[64], p[64], m[140];
    snprintf(pp, sizeof pp, "%s.default.params.%.60s", kpath, pn);
    for (char *c = pp; *c; c++)
      if (!isprint((unsigned char)*c)) *c = '?';
    if (!ident(h, pp, pn, true, P, &st) || !ident(h, pp, pn, false, p, &st)) break;
    if (!strcmp(p, "cluster_id") || !strcmp(p, "problem_size_min") || !strcmp(p, "problem_size_max")) {
      st = refuse(h, pp, "'%s' is a field of the header's table", p);
      break;
    }
    if (json_object_get(field, p) || json_object_get(mname, P)) { st = refuse(h, pp, "two parameters map to '%s'", p); break; }
    if (json_object_get(h->macros, p)) { st = refuse(h, pp, "the field '%s' is also a macro of the header", p); break; }
    json_object_set_new(h->fields, p, json_true());
    snprintf(m, sizeof m, "%s_%s", K, P);
    if (!macro(h, pp, m, &st)) break;
    json_object_set_new(field, pn, json_string(p));
    json_object_set_new(mname, pn, json_string(m));
  }
  FILE *f = h->f;
  /* compile-time blocks: the first cluster entry (no device key) of each cluster */
  json_t *seen = json_object();
  size_t i;
  json_t *e;
  bool first = true;
  json_array_foreach(entries, i, e) {
    if (st) break;
    const char *cl = json_string_value(json_object_get(e, "cluster"));
    if (json_object_get(e, "device") || !cl || json_object_get(seen, cl)) continue;
    json_object_set_new(seen, cl, json_true());
    char cp[300], C[64];
    snprintf(cp, sizeof cp, "%s.entries[%zu].cluster", kpath, i);
    if (!ident(h, cp, cl, false, C, &st)) break;
    char mc[80]; /* beside the raw IDs in seen: a control character keeps the two apart */
    snprintf(mc, sizeof mc, "\x01%s", C);
    if (json_object_get(seen, mc)) { st = refuse(h, cp, "two cluster IDs map to VKOCC_CLUSTER_%s", C); break; }
    json_object_set_new(seen, mc, json_true());
    fprintf(f, "#%s defined(VKOCC_CLUSTER_%s)\n", first ? "if" : "elif", C);
    first = false;
    json_object_foreach(json_object_get(e, "params"), pn, pv) {
      fprintf(f, "#define %s ", json_string_value(json_object_get(mname, pn)));
      literal(f, pv, (ctype)json_integer_value(json_object_get(types, pn)));
      fputc('\n', f);
    }
  }
  json_decref(seen);
  if (!st && json_is_object(def)) {
    fputs(first ? "/* default: the best worst-case efficiency over every result */\n" : "#else /* default */\n", f);
    json_object_foreach(def, pn, pv) {
      fprintf(f, "#define %s ", json_string_value(json_object_get(mname, pn)));
      literal(f, pv, (ctype)json_integer_value(json_object_get(types, pn)));
      fputc('\n', f);
    }
  }
  if (!st && !first) fputs("#endif\n", f);
  /* the run-time table of every cluster entry */
  size_t rows = 0;
  json_array_foreach(entries, i, e) rows += !json_object_get(e, "device");
  if (!st) {
    fprintf(f, "\ntypedef struct %s {\n  const char *cluster_id;\n  long long problem_size_min, problem_size_max; /* -1: no bound */\n", tname);
    json_object_foreach(proto, pn, pv) {
      ctype t = (ctype)json_integer_value(json_object_get(types, pn));
      fprintf(f, "  %s %s;\n", t == T_STR ? "const char *" : t == T_REAL ? "double" : "long long",
              json_string_value(json_object_get(field, pn)));
    }
    fprintf(f, "} %s;\n", tname);
    if (rows) fprintf(f, "\nstatic const %s %s_table[] = {\n", tname, tname);
  }
  json_array_foreach(entries, i, e) {
    if (st) break;
    if (json_object_get(e, "device")) continue;
    json_t *ps = json_object_get(json_object_get(e, "when"), "problem_size");
    long long mn = -1, mx = -1;
    char bp[300];
    snprintf(bp, sizeof bp, "%s.entries[%zu].when.problem_size", kpath, i);
    if (json_is_object(ps) && ((st = bound(h, bp, json_object_get(ps, "min"), &mn)) || (st = bound(h, bp, json_object_get(ps, "max"), &mx))))
      break;
    fputs("    {", f);
    literal(f, json_object_get(e, "cluster"), T_STR);
    fprintf(f, ", %lld, %lld", mn, mx);
    json_object_foreach(proto, pn, pv) {
      fputs(", ", f);
      literal(f, json_object_get(json_object_get(e, "params"), pn), (ctype)json_integer_value(json_object_get(types, pn)));
    }
    fputs("},\n", f);
  }
  if (!st && rows) fputs("};\n", f);
  if (!st) fputc('\n', f);
  json_decref(field), json_decref(mname), json_decref(types);
  return st;
}

vkocc_status vkocc_policy_header(const char *db_path, char **text) {
  vkocc_clear_error();
  if (!db_path || !text) return vkocc_fail(VKOCC_ERROR_USAGE, "vkocc_policy_header: no database or output");
  *text = NULL;
  /* the database must be one select accepts */
  vkocc_policy_db *check;
  vkocc_status st = vkocc_policy_db_load(db_path, &check);
  if (st) return st;
  vkocc_policy_db_free(check);
  json_error_t je;
  json_t *db = json_load_file(db_path, JSON_REJECT_DUPLICATES, &je);
  if (!db) return vkocc_fail(VKOCC_ERROR_USAGE, "%s: line %d: %s", db_path, je.line, je.text);
  st = policy_header_doc(db, db_path, text);
  json_decref(db);
  return st;
}

vkocc_status policy_header_doc(json_t *db, const char *label, char **text) {
  *text = NULL;
  vkocc_status st = VKOCC_OK;
  size_t len = 0;
  hdr h = {.file = label, .macros = json_object(), .fields = json_object()};
  json_object_set_new(h.macros, "VKOCC_TUNED_H", json_true());
  h.f = open_memstream(text, &len);
  if (!h.f) { json_decref(h.macros), json_decref(h.fields); return vkocc_fail(VKOCC_ERROR_RUNTIME, "out of memory"); }
  fprintf(h.f, "/* Generated by vkocc %s (vkocc policy header): tuned parameters per cluster ID.\n"
               " * Compile time: define VKOCC_CLUSTER_<id> (the device's cluster ID with '-' as '_'), else the default.\n"
               " * Run time: look the device's cluster ID (vkocc fingerprint) up in the kernel's table. */\n"
               "#ifndef VKOCC_TUNED_H\n#define VKOCC_TUNED_H\n\n", vkocc_version());
  const char *kname;
  json_t *k;
  json_object_foreach(json_object_get(db, "kernels"), kname, k) {
    if ((st = emit_kernel(&h, kname, k))) break;
  }
  fputs("#endif\n", h.f);
  fclose(h.f);
  json_decref(h.macros), json_decref(h.fields);
  if (st) { free(*text); *text = NULL; }
  return st;
}
