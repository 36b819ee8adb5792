/* The T1 expression language: a recursive-descent parser into a flat node array and a tree-walking
 * evaluator with Python's semantics for the subset (docs/tune.md).
 *
 * Why hand-written: T1 writes its conditions, value lists and sizes in a subset of Python
 * ("block_size_x*block_size_y <= 1024", "[2**i for i in range(6)]", "max(tile)"), which Kernel Tuner and KTT
 * evaluate with an embedded Python interpreter. No maintained C library parses that subset; embedding Python
 * would make every tuning run execute arbitrary code from a spec file. This evaluator runs no code: the
 * parse depth and node count are bounded (TEXPR_MAX_DEPTH, TEXPR_MAX_NODES), list sizes too
 * (TEXPR_MAX_LIST), integer arithmetic is 64-bit and overflow-checked (an error, not a wrap), and division
 * or modulo by zero is an error naming the column. */
#include "expr.h"
#include "internal.h"
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum {
  N_INT, N_FLOAT, N_STR, N_VAR, N_P, N_PSIZE, N_DEVICE, N_NEG, N_POS, N_NOT, N_AND, N_OR, N_BIN, N_CMP, N_MIN, N_MAX,
  N_VARMIN, N_VARMAX, N_INVERT, N_IF
} ntype;

typedef enum { B_ADD, B_SUB, B_MUL, B_DIV, B_FDIV, B_MOD, B_POW, B_BITAND, B_BITOR, B_BITXOR, B_SHL, B_SHR } binop;
typedef enum { C_LT, C_LE, C_GT, C_GE, C_EQ, C_NE } cmpop;

typedef struct node {
  ntype t;
  int op;              /* binop / cmpop */
  uint32_t col;        /* 1-based column of the token, for errors */
  int64_t i;
  double f;
  char *s;
  uint32_t var;        /* N_VAR, N_VARMIN, N_VARMAX; N_DEVICE: index into texpr_device_names */
  int32_t a, b;        /* children (node indices), -1 none; N_IF: a if c else b */
  int32_t c;
  int32_t *args;       /* N_MIN/N_MAX: nargs children */
  uint32_t nargs;
  uint32_t depth;
} node;

const char *const texpr_device_names[TEXPR_NDEVICE] = {"MaxComputeWorkGroupInvocations", "MaxComputeWorkGroupSizeX",
                                                      "MaxComputeSharedMemorySize", "MaxComputeWorkGroupCountX",
                                                      "SubgroupArithmetic"};

struct texpr {
  node *n;
  uint32_t count, cap;
  int32_t root;
  unsigned uses;
  bool *uses_var;
  uint32_t nvars;
  const texpr_var *vars; /* borrowed at parse time, for min/max of a variable */
};

typedef struct parser {
  const char *text, *p;
  const texpr_scope *sc;
  texpr *e;
  char *err;
  size_t errlen;
  bool failed;
  uint32_t depth;
} parser;

static void perr(parser *ps, const char *at, const char *fmt, ...) {
  if (ps->failed) return;
  ps->failed = true;
  int n = snprintf(ps->err, ps->errlen, "column %u: ", (unsigned)(at - ps->text) + 1);
  va_list ap;
  va_start(ap, fmt);
  if (n >= 0 && (size_t)n < ps->errlen) vsnprintf(ps->err + n, ps->errlen - (size_t)n, fmt, ap);
  va_end(ap);
}

static void skip_ws(parser *ps) {
  while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r') ps->p++;
}

static bool is_ident_start(char c) { return isalpha((unsigned char)c) || c == '_'; }

/* the keyword kw at the cursor as a whole word */
static bool kw_at(parser *ps, const char *kw) {
  size_t l = strlen(kw);
  return !strncmp(ps->p, kw, l) && !vkocc_ident_char(ps->p[l]);
}
static bool accept_kw(parser *ps, const char *kw) {
  skip_ws(ps);
  if (!kw_at(ps, kw)) return false;
  ps->p += strlen(kw);
  return true;
}
static bool accept(parser *ps, const char *tok) {
  skip_ws(ps);
  size_t l = strlen(tok);
  if (strncmp(ps->p, tok, l)) return false;
  ps->p += l;
  return true;
}

static int32_t add_node(parser *ps, ntype t, const char *at, int32_t a, int32_t b) {
  texpr *e = ps->e;
  if (ps->failed) return -1;
  if (e->count == TEXPR_MAX_NODES) {
    perr(ps, at, "expression too long (more than %u terms)", TEXPR_MAX_NODES);
    return -1;
  }
  if (e->count == e->cap) {
    e->cap = e->cap ? 2 * e->cap : 16;
    e->n = vkocc_xrealloc(e->n, e->cap * sizeof *e->n);
  }
  node *n = &e->n[e->count];
  memset(n, 0, sizeof *n);
  n->t = t, n->a = a, n->b = b, n->col = (uint32_t)(at - ps->text) + 1;
  uint32_t d = 0;
  if (a >= 0 && e->n[a].depth > d) d = e->n[a].depth;
  if (b >= 0 && e->n[b].depth > d) d = e->n[b].depth;
  n->depth = d + 1;
  if (n->depth > TEXPR_MAX_DEPTH) {
    perr(ps, at, "expression nested too deeply (more than %d levels)", TEXPR_MAX_DEPTH);
    return -1;
  }
  return (int32_t)e->count++;
}

static int32_t parse_or(parser *ps);
static int32_t parse_cond(parser *ps);

static bool enter(parser *ps) {
  if (++ps->depth > TEXPR_MAX_DEPTH) {
    perr(ps, ps->p, "expression nested too deeply (more than %d levels)", TEXPR_MAX_DEPTH);
    return false;
  }
  return true;
}

static int32_t parse_number(parser *ps) {
  const char *start = ps->p;
  const char *q = ps->p;
  bool is_float = false;
  if (q[0] == '0' && (q[1] == 'x' || q[1] == 'X')) {
    errno = 0;
    char *end;
    unsigned long long v = strtoull(q + 2, &end, 16);
    if (end == q + 2 || vkocc_ident_char(*end)) { perr(ps, start, "bad hexadecimal literal"); return -1; }
    if (errno || v > INT64_MAX) { perr(ps, start, "integer literal out of the 64-bit range"); return -1; }
    ps->p = end;
    int32_t n = add_node(ps, N_INT, start, -1, -1);
    if (n >= 0) ps->e->n[n].i = (int64_t)v;
    return n;
  }
  while (isdigit((unsigned char)*q) || *q == '_') q++;
  if (*q == '.') { is_float = true; q++; while (isdigit((unsigned char)*q)) q++; }
  if (*q == 'e' || *q == 'E') {
    const char *r = q + 1;
    if (*r == '+' || *r == '-') r++;
    if (isdigit((unsigned char)*r)) { is_float = true; q = r; while (isdigit((unsigned char)*q)) q++; }
  }
  if (vkocc_ident_char(*q)) { perr(ps, start, "bad number"); return -1; }
  char buf[128];
  size_t l = 0;
  for (const char *c = start; c < q && l + 1 < sizeof buf; c++)
    if (*c != '_') buf[l++] = *c;
  buf[l] = 0;
  if ((size_t)(q - start) >= sizeof buf) { perr(ps, start, "number too long"); return -1; }
  ps->p = q;
  if (is_float) {
    double v = strtod(buf, NULL);
    if (!isfinite(v)) { perr(ps, start, "float literal out of range"); return -1; }
    int32_t n = add_node(ps, N_FLOAT, start, -1, -1);
    if (n >= 0) ps->e->n[n].f = v;
    return n;
  }
  errno = 0;
  unsigned long long v = strtoull(buf, NULL, 10);
  if (errno || v > INT64_MAX) { perr(ps, start, "integer literal out of the 64-bit range"); return -1; }
  int32_t n = add_node(ps, N_INT, start, -1, -1);
  if (n >= 0) ps->e->n[n].i = (int64_t)v;
  return n;
}

static int32_t parse_string(parser *ps) {
  const char *start = ps->p;
  char quote = *ps->p++;
  const char *q = ps->p;
  while (*q && *q != quote && *q != '\\') q++;
  if (*q != quote) { perr(ps, start, *q == '\\' ? "escapes in strings are not supported" : "unterminated string"); return -1; }
  int32_t n = add_node(ps, N_STR, start, -1, -1);
  if (n < 0) return -1;
  size_t l = (size_t)(q - ps->p);
  char *s = vkocc_xmalloc(l + 1);
  memcpy(s, ps->p, l);
  s[l] = 0;
  ps->e->n[n].s = s;
  ps->p = q + 1;
  return n;
}

static int32_t lookup_var(parser *ps, const char *name, size_t len) {
  for (uint32_t i = 0; i < ps->sc->nvars; i++)
    if (strlen(ps->sc->vars[i].name) == len && !strncmp(ps->sc->vars[i].name, name, len)) return (int32_t)i;
  return -1;
}

static int32_t parse_call(parser *ps, const char *start, bool is_max) {
  /* after "min(" / "max(" */
  skip_ws(ps);
  const char *argp = ps->p;
  /* min(name) / max(name) of one variable with a range: its smallest / largest value */
  if (is_ident_start(*argp)) {
    const char *q = argp;
    while (vkocc_ident_char(*q)) q++;
    const char *r = q;
    while (*r == ' ' || *r == '\t') r++;
    int32_t v = lookup_var(ps, argp, (size_t)(q - argp));
    if (*r == ')' && v >= 0 && ps->sc->vars[v].has_range) {
      ps->p = r + 1;
      int32_t n = add_node(ps, is_max ? N_VARMAX : N_VARMIN, start, -1, -1);
      if (n >= 0) ps->e->n[n].var = (uint32_t)v;
      return n;
    }
  }
  int32_t args[64];
  uint32_t na = 0;
  do {
    if (na == 64) { perr(ps, ps->p, "more than 64 arguments"); return -1; }
    int32_t a = parse_cond(ps);
    if (a < 0) return -1;
    args[na++] = a;
  } while (accept(ps, ","));
  if (!accept(ps, ")")) { perr(ps, ps->p, "expected ')' after the arguments of %s", is_max ? "max" : "min"); return -1; }
  if (na < 2) {
    perr(ps, start, "%s() of one value needs a parameter's name (its %s value) or two or more arguments",
         is_max ? "max" : "min", is_max ? "largest" : "smallest");
    return -1;
  }
  int32_t n = add_node(ps, is_max ? N_MAX : N_MIN, start, -1, -1);
  if (n < 0) return -1;
  uint32_t d = 0;
  for (uint32_t i = 0; i < na; i++)
    if (ps->e->n[args[i]].depth > d) d = ps->e->n[args[i]].depth;
  node *nd = &ps->e->n[n];
  nd->depth = d + 1;
  if (nd->depth > TEXPR_MAX_DEPTH) { perr(ps, start, "expression nested too deeply"); return -1; }
  nd->args = vkocc_xmalloc(na * sizeof *nd->args);
  memcpy(nd->args, args, na * sizeof *args);
  nd->nargs = na;
  return n;
}

static int32_t parse_atom(parser *ps) {
  skip_ws(ps);
  const char *start = ps->p;
  char c = *ps->p;
  if (isdigit((unsigned char)c) || (c == '.' && isdigit((unsigned char)ps->p[1]))) return parse_number(ps);
  if (c == '\'' || c == '"') return parse_string(ps);
  if (c == '(') {
    ps->p++;
    if (!enter(ps)) return -1;
    int32_t n = parse_cond(ps);
    ps->depth--;
    if (n < 0) return -1;
    if (!accept(ps, ")")) { perr(ps, ps->p, "expected ')'"); return -1; }
    return n;
  }
  if (!is_ident_start(c)) {
    if (!c) perr(ps, start, "unexpected end of the expression");
    else perr(ps, start, "unexpected '%c'", c);
    return -1;
  }
  const char *q = ps->p;
  while (vkocc_ident_char(*q)) q++;
  size_t len = (size_t)(q - start);
  int32_t v = lookup_var(ps, start, len); /* a parameter named like a built-in wins */
  if (v >= 0) {
    ps->p = q;
    int32_t n = add_node(ps, N_VAR, start, -1, -1);
    if (n >= 0) ps->e->n[n].var = (uint32_t)v, ps->e->uses_var[v] = true;
    return n;
  }
#define IS(w) (len == sizeof(w) - 1 && !strncmp(start, w, len))
  if (IS("True") || IS("False")) {
    ps->p = q;
    int32_t n = add_node(ps, N_INT, start, -1, -1);
    if (n >= 0) ps->e->n[n].i = IS("True");
    return n;
  }
  if (IS("P")) {
    if (!ps->sc->allow_P) { perr(ps, start, "P (the occupancy of the configuration's pipeline) is not available here"); return -1; }
    ps->p = q;
    ps->e->uses |= TEXPR_USES_P;
    return add_node(ps, N_P, start, -1, -1);
  }
  for (uint32_t d = 0; d < TEXPR_NDEVICE && ps->sc->allow_device; d++)
    if (len == strlen(texpr_device_names[d]) && !strncmp(start, texpr_device_names[d], len)) {
      ps->p = q;
      ps->e->uses |= TEXPR_USES_DEVICE;
      int32_t n = add_node(ps, N_DEVICE, start, -1, -1);
      if (n >= 0) ps->e->n[n].var = d;
      return n;
    }
  if (IS("ProblemSize")) {
    if (!ps->sc->allow_problem_size) { perr(ps, start, "ProblemSize is not available here"); return -1; }
    ps->p = q;
    if (!accept(ps, "[")) { perr(ps, ps->p, "expected '[' after ProblemSize"); return -1; }
    if (!enter(ps)) return -1;
    int32_t i = parse_cond(ps);
    ps->depth--;
    if (i < 0) return -1;
    if (!accept(ps, "]")) { perr(ps, ps->p, "expected ']'"); return -1; }
    ps->e->uses |= TEXPR_USES_PROBLEM_SIZE;
    return add_node(ps, N_PSIZE, start, i, -1);
  }
  if (IS("min") || IS("max")) {
    bool is_max = IS("max");
    ps->p = q;
    if (!accept(ps, "(")) { perr(ps, ps->p, "expected '(' after %s", is_max ? "max" : "min"); return -1; }
    if (!enter(ps)) return -1;
    int32_t n = parse_call(ps, start, is_max);
    ps->depth--;
    return n;
  }
#undef IS
  perr(ps, start, "unknown name '%.*s'", (int)(len > 64 ? 64 : len), start);
  return -1;
}

static int32_t parse_unary(parser *ps);

static int32_t parse_power(parser *ps) {
  int32_t a = parse_atom(ps);
  if (a < 0) return -1;
  skip_ws(ps);
  const char *at = ps->p;
  if (accept(ps, "**")) {
    if (!enter(ps)) return -1;
    int32_t b = parse_unary(ps); /* right-associative, binds tighter than a unary minus on its left */
    ps->depth--;
    if (b < 0) return -1;
    int32_t n = add_node(ps, N_BIN, at, a, b);
    if (n >= 0) ps->e->n[n].op = B_POW;
    return n;
  }
  return a;
}

static int32_t parse_unary(parser *ps) {
  skip_ws(ps);
  const char *at = ps->p;
  if (*ps->p == '-' || *ps->p == '+' || *ps->p == '~') {
    char op = *ps->p;
    ps->p++;
    if (!enter(ps)) return -1;
    int32_t a = parse_unary(ps);
    ps->depth--;
    if (a < 0) return -1;
    return add_node(ps, op == '-' ? N_NEG : op == '+' ? N_POS : N_INVERT, at, a, -1);
  }
  return parse_power(ps);
}

/* one binary level: operands from next, operators ops[i] (longest first where one is a prefix of another) */
static int32_t parse_level(parser *ps, int32_t (*next)(parser *), const char *const *ops, const int *codes, int nops) {
  int32_t a = next(ps);
  while (a >= 0) {
    skip_ws(ps);
    const char *at = ps->p;
    int op = -1;
    for (int i = 0; i < nops && op < 0; i++) {
      size_t l = strlen(ops[i]);
      if (!strncmp(ps->p, ops[i], l)) ps->p += l, op = codes[i];
    }
    if (op < 0) break;
    int32_t b = next(ps);
    if (b < 0) return -1;
    a = add_node(ps, N_BIN, at, a, b);
    if (a >= 0) ps->e->n[a].op = op;
  }
  return a;
}
static int32_t parse_term(parser *ps) { /* '**' never reaches here: parse_power took it */
  static const char *const ops[] = {"//", "*", "/", "%"};
  static const int codes[] = {B_FDIV, B_MUL, B_DIV, B_MOD};
  return parse_level(ps, parse_unary, ops, codes, 4);
}
static int32_t parse_arith(parser *ps) {
  static const char *const ops[] = {"+", "-"};
  static const int codes[] = {B_ADD, B_SUB};
  return parse_level(ps, parse_term, ops, codes, 2);
}
static int32_t parse_shift(parser *ps) {
  static const char *const ops[] = {"<<", ">>"};
  static const int codes[] = {B_SHL, B_SHR};
  return parse_level(ps, parse_arith, ops, codes, 2);
}
static int32_t parse_bitand(parser *ps) {
  static const char *const ops[] = {"&"};
  static const int codes[] = {B_BITAND};
  return parse_level(ps, parse_shift, ops, codes, 1);
}
static int32_t parse_bitxor(parser *ps) {
  static const char *const ops[] = {"^"};
  static const int codes[] = {B_BITXOR};
  return parse_level(ps, parse_bitand, ops, codes, 1);
}
static int32_t parse_bitor(parser *ps) {
  static const char *const ops[] = {"|"};
  static const int codes[] = {B_BITOR};
  return parse_level(ps, parse_bitxor, ops, codes, 1);
}

/* a < b <= c is (a < b) and (b <= c) as in Python; b is evaluated twice here, which is harmless (no side effects) */
static int32_t parse_cmp(parser *ps) {
  int32_t a = parse_bitor(ps), result = -1;
  while (a >= 0) {
    skip_ws(ps);
    const char *at = ps->p;
    int op;
    if (accept(ps, "<=")) op = C_LE;
    else if (accept(ps, ">=")) op = C_GE;
    else if (accept(ps, "==")) op = C_EQ;
    else if (accept(ps, "!=")) op = C_NE;
    else if (accept(ps, "<")) op = C_LT;
    else if (accept(ps, ">")) op = C_GT;
    else break;
    int32_t b = parse_bitor(ps);
    if (b < 0) return -1;
    int32_t c = add_node(ps, N_CMP, at, a, b);
    if (c < 0) return -1;
    ps->e->n[c].op = op;
    result = result < 0 ? c : add_node(ps, N_AND, at, result, c);
    if (result < 0) return -1;
    a = b;
  }
  return result >= 0 ? result : a;
}

static int32_t parse_not(parser *ps) {
  skip_ws(ps);
  const char *at = ps->p;
  if (accept_kw(ps, "not")) {
    if (!enter(ps)) return -1;
    int32_t a = parse_not(ps);
    ps->depth--;
    return a < 0 ? -1 : add_node(ps, N_NOT, at, a, -1);
  }
  return parse_cmp(ps);
}

static int32_t parse_and(parser *ps) {
  int32_t a = parse_not(ps);
  while (a >= 0) {
    skip_ws(ps);
    const char *at = ps->p;
    if (!accept_kw(ps, "and")) break;
    int32_t b = parse_not(ps);
    if (b < 0) return -1;
    a = add_node(ps, N_AND, at, a, b);
  }
  return a;
}

static int32_t parse_or(parser *ps) {
  int32_t a = parse_and(ps);
  while (a >= 0) {
    skip_ws(ps);
    const char *at = ps->p;
    if (!accept_kw(ps, "or")) break;
    int32_t b = parse_and(ps);
    if (b < 0) return -1;
    a = add_node(ps, N_OR, at, a, b);
  }
  return a;
}

/* X if C else Y (Python's conditional expression, the lowest precedence; right-associative) */
static int32_t parse_cond(parser *ps) {
  int32_t a = parse_or(ps);
  if (a < 0) return -1;
  skip_ws(ps);
  const char *at = ps->p;
  if (!accept_kw(ps, "if")) return a;
  if (!enter(ps)) return -1;
  int32_t c = parse_or(ps), b = -1;
  if (c >= 0) {
    skip_ws(ps);
    if (!accept_kw(ps, "else")) perr(ps, ps->p, "expected 'else' in 'X if C else Y'");
    else b = parse_cond(ps);
  }
  ps->depth--;
  if (c < 0 || b < 0) return -1;
  int32_t n = add_node(ps, N_IF, at, a, b);
  if (n >= 0) {
    node *nd = &ps->e->n[n];
    nd->c = c;
    if (ps->e->n[c].depth + 1 > nd->depth) nd->depth = ps->e->n[c].depth + 1;
    if (nd->depth > TEXPR_MAX_DEPTH) { perr(ps, at, "expression nested too deeply (more than %d levels)", TEXPR_MAX_DEPTH); return -1; }
  }
  return n;
}

static texpr *texpr_new(const texpr_scope *sc) {
  texpr *e = vkocc_xcalloc(1, sizeof *e);
  e->nvars = sc->nvars, e->vars = sc->vars;
  e->uses_var = vkocc_xcalloc(sc->nvars ? sc->nvars : 1, sizeof *e->uses_var);
  e->root = -1;
  return e;
}

/* parses one expression from ps->p on; the caller checks what follows */
static bool parse_at(parser *ps) {
  ps->e->root = parse_cond(ps);
  return !ps->failed && ps->e->root >= 0;
}

bool texpr_parse(const char *text, const texpr_scope *scope, texpr **out, char *err, size_t errlen) {
  *out = NULL;
  parser ps = {.text = text, .p = text, .sc = scope, .err = err, .errlen = errlen};
  ps.e = texpr_new(scope);
  skip_ws(&ps);
  if (!*ps.p) perr(&ps, ps.p, "empty expression");
  else if (parse_at(&ps)) {
    skip_ws(&ps);
    if (*ps.p) perr(&ps, ps.p, "unexpected '%.16s' after the expression", ps.p);
  }
  if (ps.failed) { texpr_free(ps.e); return false; }
  *out = ps.e;
  return true;
}

void texpr_free(texpr *e) {
  if (!e) return;
  for (uint32_t i = 0; i < e->count; i++) free(e->n[i].s), free(e->n[i].args);
  free(e->n), free(e->uses_var), free(e);
}

unsigned texpr_uses(const texpr *e, bool *uses_var) {
  if (uses_var)
    for (uint32_t i = 0; i < e->nvars; i++) uses_var[i] = uses_var[i] || e->uses_var[i];
  return e->uses;
}

/* ------------------------------------------------------------------ evaluation */

typedef struct evaluator {
  const texpr *e;
  const texpr_env *env;
  char *err;
  size_t errlen;
} evaluator;

static bool eerr(evaluator *ev, const node *n, const char *fmt, ...) {
  int k = snprintf(ev->err, ev->errlen, "column %u: ", n->col);
  va_list ap;
  va_start(ap, fmt);
  if (k >= 0 && (size_t)k < ev->errlen) vsnprintf(ev->err + k, ev->errlen - (size_t)k, fmt, ap);
  va_end(ap);
  return false;
}

bool texpr_truthy(const texpr_value *v) {
  switch (v->kind) {
  case TEXPR_INT: return v->i != 0;
  case TEXPR_FLOAT: return v->f != 0;
  default: return v->s && v->s[0];
  }
}

static double as_f(const texpr_value *v) { return v->kind == TEXPR_INT ? (double)v->i : v->f; }

static bool finite_or_err(evaluator *ev, const node *n, double f, texpr_value *out) {
  if (!isfinite(f)) return eerr(ev, n, "floating-point overflow (result not finite)");
  out->kind = TEXPR_FLOAT, out->f = f;
  return true;
}

static bool ipow(int64_t b, int64_t e, int64_t *out) {
  int64_t r = 1;
  while (e > 0) {
    if (e & 1 && __builtin_mul_overflow(r, b, &r)) return false;
    e >>= 1;
    if (e && __builtin_mul_overflow(b, b, &b)) return false;
  }
  *out = r;
  return true;
}

static bool eval_node(evaluator *ev, int32_t idx, texpr_value *out);

static bool binary(evaluator *ev, const node *n, texpr_value a, texpr_value b, texpr_value *out) {
  static const char *names[] = {"+", "-", "*", "/", "//", "%", "**", "&", "|", "^", "<<", ">>"};
  if (a.kind == TEXPR_STR || b.kind == TEXPR_STR) {
    if (n->op == B_ADD && a.kind == TEXPR_STR && b.kind == TEXPR_STR)
      return eerr(ev, n, "joining strings with + is not supported");
    return eerr(ev, n, "'%s' needs numbers, not a string", names[n->op]);
  }
  bool ints = a.kind == TEXPR_INT && b.kind == TEXPR_INT;
  out->kind = TEXPR_INT;
  if (n->op >= B_BITAND && !ints) return eerr(ev, n, "'%s' needs integers", names[n->op]);
  switch (n->op) {
  case B_BITAND: out->i = a.i & b.i; return true;
  case B_BITOR: out->i = a.i | b.i; return true;
  case B_BITXOR: out->i = a.i ^ b.i; return true;
  case B_SHL:
  case B_SHR:
    if (b.i < 0) return eerr(ev, n, "negative shift count");
    if (n->op == B_SHR) { /* Python floors: a >> k == a // 2**k */
      out->i = b.i >= 63 ? (a.i < 0 ? -1 : 0) : (a.i < 0 ? ~(~a.i >> b.i) : a.i >> b.i);
      return true;
    }
    if (a.i == 0) { out->i = 0; return true; }
    if (b.i >= 64) return eerr(ev, n, "integer overflow in <<");
    out->i = (int64_t)((uint64_t)a.i << b.i);
    if ((a.i < 0 ? ~(~out->i >> b.i) : out->i >> b.i) != a.i) return eerr(ev, n, "integer overflow in <<");
    return true;
  case B_ADD:
    if (ints) return __builtin_add_overflow(a.i, b.i, &out->i) ? eerr(ev, n, "integer overflow in +") : true;
    return finite_or_err(ev, n, as_f(&a) + as_f(&b), out);
  case B_SUB:
    if (ints) return __builtin_sub_overflow(a.i, b.i, &out->i) ? eerr(ev, n, "integer overflow in -") : true;
    return finite_or_err(ev, n, as_f(&a) - as_f(&b), out);
  case B_MUL:
    if (ints) return __builtin_mul_overflow(a.i, b.i, &out->i) ? eerr(ev, n, "integer overflow in *") : true;
    return finite_or_err(ev, n, as_f(&a) * as_f(&b), out);
  case B_DIV:
    if (as_f(&b) == 0) return eerr(ev, n, "division by zero");
    return finite_or_err(ev, n, as_f(&a) / as_f(&b), out);
  case B_FDIV:
  case B_MOD:
    if (ints) {
      if (b.i == 0) return eerr(ev, n, n->op == B_MOD ? "modulo by zero" : "division by zero");
      if (a.i == INT64_MIN && b.i == -1) return eerr(ev, n, "integer overflow in %s", names[n->op]);
      int64_t q = a.i / b.i, r = a.i % b.i;
      if (r != 0 && ((r < 0) != (b.i < 0))) q -= 1, r += b.i; /* Python floors */
      out->i = n->op == B_FDIV ? q : r;
      return true;
    } else {
      double x = as_f(&a), y = as_f(&b);
      if (y == 0) return eerr(ev, n, n->op == B_MOD ? "modulo by zero" : "division by zero");
      double q = floor(x / y);
      return finite_or_err(ev, n, n->op == B_FDIV ? q : x - q * y, out);
    }
  case B_POW:
    if (ints && b.i >= 0) {
      if (!ipow(a.i, b.i, &out->i)) return eerr(ev, n, "integer overflow in **");
      return true;
    }
    if (as_f(&a) == 0 && as_f(&b) < 0) return eerr(ev, n, "zero to a negative power (division by zero)");
    if (as_f(&a) < 0 && as_f(&b) != floor(as_f(&b))) return eerr(ev, n, "negative number to a fractional power");
    return finite_or_err(ev, n, pow(as_f(&a), as_f(&b)), out);
  }
  return eerr(ev, n, "unknown operator");
}

bool texpr_equal(const texpr_value *a, const texpr_value *b) {
  if (a->kind == TEXPR_STR || b->kind == TEXPR_STR)
    return a->kind == b->kind && !strcmp(a->s ? a->s : "", b->s ? b->s : "");
  if (a->kind == TEXPR_INT && b->kind == TEXPR_INT) return a->i == b->i;
  return as_f(a) == as_f(b);
}

/* <0, 0, >0; false when not ordered (a string and a number) */
static bool order(const texpr_value *a, const texpr_value *b, int *c) {
  if (a->kind == TEXPR_STR || b->kind == TEXPR_STR) {
    if (a->kind != b->kind) return false;
    *c = strcmp(a->s, b->s);
    return true;
  }
  if (a->kind == TEXPR_INT && b->kind == TEXPR_INT) *c = (a->i > b->i) - (a->i < b->i);
  else *c = (as_f(a) > as_f(b)) - (as_f(a) < as_f(b));
  return true;
}

static bool eval_node(evaluator *ev, int32_t idx, texpr_value *out) {
  const node *n = &ev->e->n[idx];
  texpr_value a, b;
  memset(out, 0, sizeof *out);
  switch (n->t) {
  case N_INT: out->kind = TEXPR_INT, out->i = n->i; return true;
  case N_FLOAT: out->kind = TEXPR_FLOAT, out->f = n->f; return true;
  case N_STR: out->kind = TEXPR_STR, out->s = n->s; return true;
  case N_VAR:
    if (!ev->env || !ev->env->vars) return eerr(ev, n, "'%s' has no value here", ev->e->vars[n->var].name);
    *out = ev->env->vars[n->var];
    return true;
  case N_VARMIN: *out = ev->e->vars[n->var].min; return true;
  case N_VARMAX: *out = ev->e->vars[n->var].max; return true;
  case N_P:
    if (!ev->env || !ev->env->has_P) return eerr(ev, n, "P is not known yet (it is measured on the configuration's pipeline)");
    out->kind = TEXPR_INT, out->i = ev->env->P;
    return true;
  case N_DEVICE:
    if (!ev->env || !ev->env->device) return eerr(ev, n, "%s is not known here (no device yet)", texpr_device_names[n->var]);
    out->kind = TEXPR_INT, out->i = ev->env->device[n->var];
    return true;
  case N_PSIZE: {
    if (!eval_node(ev, n->a, &a)) return false;
    if (a.kind != TEXPR_INT) return eerr(ev, n, "ProblemSize[...] needs an integer index");
    uint32_t np = ev->env ? ev->env->nproblem : 0;
    if (a.i < 0 || (uint64_t)a.i >= np) return eerr(ev, n, "ProblemSize[%lld]: the problem has %u dimensions", (long long)a.i, np);
    out->kind = TEXPR_INT, out->i = ev->env->problem_size[a.i];
    return true;
  }
  case N_NEG:
    if (!eval_node(ev, n->a, &a)) return false;
    if (a.kind == TEXPR_STR) return eerr(ev, n, "unary - needs a number");
    if (a.kind == TEXPR_INT) {
      if (a.i == INT64_MIN) return eerr(ev, n, "integer overflow in unary -");
      out->kind = TEXPR_INT, out->i = -a.i;
    } else out->kind = TEXPR_FLOAT, out->f = -a.f;
    return true;
  case N_POS:
    if (!eval_node(ev, n->a, out)) return false;
    if (out->kind == TEXPR_STR) return eerr(ev, n, "unary + needs a number");
    return true;
  case N_INVERT: /* Python's ~x = -x - 1, integers only */
    if (!eval_node(ev, n->a, &a)) return false;
    if (a.kind != TEXPR_INT) return eerr(ev, n, "unary ~ needs an integer");
    out->kind = TEXPR_INT, out->i = ~a.i;
    return true;
  case N_IF:
    if (!eval_node(ev, n->c, &a)) return false;
    return eval_node(ev, texpr_truthy(&a) ? n->a : n->b, out);
  case N_NOT:
    if (!eval_node(ev, n->a, &a)) return false;
    out->kind = TEXPR_INT, out->i = !texpr_truthy(&a);
    return true;
  case N_AND: /* Python: the first falsy operand, else the last */
    if (!eval_node(ev, n->a, &a)) return false;
    if (!texpr_truthy(&a)) { *out = a; return true; }
    return eval_node(ev, n->b, out);
  case N_OR:
    if (!eval_node(ev, n->a, &a)) return false;
    if (texpr_truthy(&a)) { *out = a; return true; }
    return eval_node(ev, n->b, out);
  case N_BIN:
    if (!eval_node(ev, n->a, &a) || !eval_node(ev, n->b, &b)) return false;
    return binary(ev, n, a, b, out);
  case N_CMP: {
    if (!eval_node(ev, n->a, &a) || !eval_node(ev, n->b, &b)) return false;
    out->kind = TEXPR_INT;
    if (n->op == C_EQ || n->op == C_NE) {
      out->i = texpr_equal(&a, &b) == (n->op == C_EQ);
      return true;
    }
    int c;
    if (!order(&a, &b, &c)) return eerr(ev, n, "a string and a number cannot be ordered");
    out->i = n->op == C_LT ? c < 0 : n->op == C_LE ? c <= 0 : n->op == C_GT ? c > 0 : c >= 0;
    return true;
  }
  case N_MIN:
  case N_MAX:
    for (uint32_t i = 0; i < n->nargs; i++) {
      if (!eval_node(ev, n->args[i], &a)) return false;
      int c = 0;
      if (i && !order(&a, out, &c)) return eerr(ev, n, "%s() of a string and a number", n->t == N_MAX ? "max" : "min");
      if (!i || (n->t == N_MAX ? c > 0 : c < 0)) *out = a;
    }
    return true;
  }
  return eerr(ev, n, "bad expression node");
}

bool texpr_eval(const texpr *e, const texpr_env *env, texpr_value *out, char *err, size_t errlen) {
  evaluator ev = {.e = e, .env = env, .err = err, .errlen = errlen};
  return eval_node(&ev, e->root, out);
}

/* ------------------------------------------------------------------ a range of the first variable at once */

/* One node's values over the range: integers or floats, as texpr_eval's kinds would be (they follow from the
 * node types alone in the subset range_node takes). What is known of them beside: the same value everywhere (cst),
 * or, for integers, first + k at k (seq: i itself, or i plus a constant), which lets a floor division or modulo by
 * a positive constant step through the range instead of dividing (the 64-bit division was a fill's largest cost). */
typedef struct column { bool is_int, cst, seq; int64_t first; int64_t *i; double *f; } column;

static void column_free(column *c) { free(c->i), free(c->f), c->i = NULL, c->f = NULL; }

/* i // y and i % y as Python has them (binary()'s C expressions) */
static void floor_divmod(int64_t x, int64_t y, int64_t *q, int64_t *m) {
  *q = x / y, *m = x % y;
  if (*m != 0 && ((*m < 0) != (y < 0))) *q -= 1, *m += y;
}

/* Each value as binary() computes it, the same C expressions; false where binary() would fail (the caller then
 * evaluates element by element and names the failure) or for an operator outside the subset. */
static bool range_binary(int op, const column *a, const column *b, uint32_t n, column *out) {
  bool ints = a->is_int && b->is_int;
  if (op >= B_BITAND && !ints) return false;
  if (op == B_POW || op == B_SHL || op == B_SHR) return false;
  out->is_int = ints && op != B_DIV;
  out->cst = a->cst && b->cst;
  if (out->is_int) out->i = vkocc_xmalloc((size_t)n * sizeof *out->i);
  else out->f = vkocc_xmalloc((size_t)n * sizeof *out->f);
  if (out->is_int) {
    int64_t *r = out->i;
    const int64_t *x = a->i, *y = b->i;
    if ((op == B_FDIV || op == B_MOD) && a->seq && b->cst && y[0] > 0) {
      /* consecutive integers over a positive constant: the quotient and remainder step, no division per element */
      int64_t d = y[0], q, m;
      floor_divmod(a->first, d, &q, &m);
      for (uint32_t k = 0; k < n; k++) {
        r[k] = op == B_FDIV ? q : m;
        if (k + 1 < n && ++m == d) m = 0, q++; /* only toward a next element: past INT64_MAX there is none */
      }
      return true;
    }
    if ((op == B_FDIV || op == B_MOD) && b->cst && y[0] > 0 && !(y[0] & (y[0] - 1))) {
      /* any integers over a positive power of two: a shift and a mask floor as Python does (two's complement) */
      int sh = __builtin_ctzll((unsigned long long)y[0]);
      int64_t mask = y[0] - 1;
      if (op == B_FDIV) for (uint32_t k = 0; k < n; k++) r[k] = x[k] >> sh;
      else for (uint32_t k = 0; k < n; k++) r[k] = x[k] & mask;
      return true;
    }
    /* i plus or minus a constant stays consecutive */
    if ((op == B_ADD && ((a->seq && b->cst) || (a->cst && b->seq))) || (op == B_SUB && a->seq && b->cst)) out->seq = true;
    switch (op) {
    case B_ADD: for (uint32_t k = 0; k < n; k++) if (__builtin_add_overflow(x[k], y[k], &r[k])) return false; break;
    case B_SUB: for (uint32_t k = 0; k < n; k++) if (__builtin_sub_overflow(x[k], y[k], &r[k])) return false; break;
    case B_MUL: for (uint32_t k = 0; k < n; k++) if (__builtin_mul_overflow(x[k], y[k], &r[k])) return false; break;
    case B_BITAND: for (uint32_t k = 0; k < n; k++) r[k] = x[k] & y[k]; break;
    case B_BITOR: for (uint32_t k = 0; k < n; k++) r[k] = x[k] | y[k]; break;
    case B_BITXOR: for (uint32_t k = 0; k < n; k++) r[k] = x[k] ^ y[k]; break;
    default: /* B_FDIV, B_MOD: Python floors */
      for (uint32_t k = 0; k < n; k++) {
        if (y[k] == 0 || (x[k] == INT64_MIN && y[k] == -1)) return false;
        int64_t q, m;
        floor_divmod(x[k], y[k], &q, &m);
        r[k] = op == B_FDIV ? q : m;
      }
    }
    if (out->seq) out->first = r[0];
    return true;
  }
  /* doubles: an operand's integers converted as texpr_eval converts them; one loop per operator */
  double *r = out->f;
  bool ai = a->is_int, bi = b->is_int;
#define X(k) (ai ? (double)a->i[k] : a->f[k])
#define Y(k) (bi ? (double)b->i[k] : b->f[k])
#define EACH(EXPR, FAIL)                                                                                               \
  for (uint32_t k = 0; k < n; k++) {                                                                                   \
    double x = X(k), y = Y(k);                                                                                         \
    (void)y;                                                                                                           \
    if (FAIL) return false;                                                                                            \
    r[k] = (EXPR);                                                                                                     \
    if (!isfinite(r[k])) return false;                                                                                 \
  }
  switch (op) {
  case B_ADD: EACH(x + y, false) break;
  case B_SUB: EACH(x - y, false) break;
  case B_MUL: EACH(x * y, false) break;
  case B_DIV: EACH(x / y, y == 0) break;
  case B_FDIV: EACH(floor(x / y), y == 0) break;
  default: EACH(x - floor(x / y) * y, y == 0) break; /* B_MOD */
  }
#undef EACH
#undef X
#undef Y
  return true;
}

/* The values of node idx with the first variable = lo + k, k < n: numbers, arithmetic and ProblemSize[constant];
 * false for anything else or a value texpr_eval would refuse. */
static bool range_node(const texpr *e, const texpr_env *env, int32_t idx, int64_t lo, uint32_t n, column *c) {
  const node *nd = &e->n[idx];
  memset(c, 0, sizeof *c);
  column a, b;
  switch (nd->t) {
  case N_INT: case N_FLOAT: case N_VAR: case N_PSIZE: {
    int64_t iv = nd->i;
    if (nd->t == N_VAR && nd->var != 0) return false;
    if (nd->t == N_PSIZE) {
      const node *ix = &e->n[nd->a];
      if (ix->t != N_INT || !env || ix->i < 0 || (uint64_t)ix->i >= env->nproblem) return false;
      iv = env->problem_size[ix->i];
    }
    c->is_int = nd->t != N_FLOAT;
    c->cst = nd->t != N_VAR;
    c->seq = nd->t == N_VAR, c->first = lo;
    if (c->is_int) c->i = vkocc_xmalloc((size_t)n * sizeof *c->i);
    else c->f = vkocc_xmalloc((size_t)n * sizeof *c->f);
    for (uint32_t k = 0; k < n; k++) {
      if (nd->t == N_VAR) c->i[k] = lo + (int64_t)k;
      else if (c->is_int) c->i[k] = iv;
      else c->f[k] = nd->f;
    }
    return true;
  }
  case N_POS:
    return range_node(e, env, nd->a, lo, n, c);
  case N_NEG:
    if (!range_node(e, env, nd->a, lo, n, c)) return false;
    c->seq = false; /* -(first + k) runs downwards */
    for (uint32_t k = 0; k < n; k++) {
      if (c->is_int && c->i[k] == INT64_MIN) return column_free(c), false;
      if (c->is_int) c->i[k] = -c->i[k];
      else c->f[k] = -c->f[k];
    }
    return true;
  case N_BIN: {
    if (!range_node(e, env, nd->a, lo, n, &a)) return false;
    if (!range_node(e, env, nd->b, lo, n, &b)) return column_free(&a), false;
    bool ok = range_binary(nd->op, &a, &b, n, c);
    column_free(&a), column_free(&b);
    if (!ok) column_free(c);
    return ok;
  }
  default:
    return false;
  }
}

bool texpr_eval_range(const texpr *e, const texpr_env *env, int64_t lo, uint32_t n, double *out) {
  column c;
  if (!n || !range_node(e, env, e->root, lo, n, &c)) return false;
  for (uint32_t k = 0; k < n; k++) out[k] = c.is_int ? (double)c.i[k] : c.f[k];
  column_free(&c);
  return true;
}

bool texpr_eval_int(const texpr *e, const texpr_env *env, int64_t *out, char *err, size_t errlen) {
  texpr_value v;
  if (!texpr_eval(e, env, &v, err, errlen)) return false;
  if (v.kind == TEXPR_INT) { *out = v.i; return true; }
  if (v.kind == TEXPR_FLOAT && v.f == floor(v.f) && fabs(v.f) < 9.2e18) { *out = (int64_t)v.f; return true; }
  snprintf(err, errlen, "expected an integer, got %s", v.kind == TEXPR_STR ? "a string" : "a fractional number");
  return false;
}

void texpr_format(const texpr_value *v, char *out, size_t len) {
  switch (v->kind) {
  case TEXPR_INT: snprintf(out, len, "%lld", (long long)v->i); break;
  case TEXPR_FLOAT:
    snprintf(out, len, "%.17g", v->f);
    /* shortest text that reads back the same, with a '.' so it stays a float */
    for (int p = 1; p <= 17; p++) {
      char b[64];
      snprintf(b, sizeof b, "%.*g", p, v->f);
      if (strtod(b, NULL) == v->f) { snprintf(out, len, "%s%s", b, strpbrk(b, ".eni") ? "" : ".0"); break; }
    }
    break;
  default: snprintf(out, len, "%s", v->s ? v->s : ""); break;
  }
}

void texpr_values_free(texpr_value *vals, uint32_t n) {
  if (!vals) return;
  for (uint32_t i = 0; i < n; i++)
    if (vals[i].kind == TEXPR_STR) free((char *)vals[i].s);
  free(vals);
}

static void push_value(texpr_value **vals, uint32_t *n, uint32_t *cap, texpr_value v) {
  if (*n == *cap) {
    *cap = *cap ? 2 * *cap : 16;
    *vals = vkocc_xrealloc(*vals, *cap * sizeof **vals);
  }
  if (v.kind == TEXPR_STR) v.s = vkocc_xstrdup(v.s ? v.s : "");
  (*vals)[(*n)++] = v;
}

/* parses the expression at ps->p into its own tree (ps->e replaced) */
static texpr *parse_sub(parser *ps, const texpr_scope *sc) {
  parser sub = *ps;
  sub.sc = sc;
  sub.e = texpr_new(sc);
  sub.depth = 0;
  if (!parse_at(&sub)) {
    ps->failed = true;
    texpr_free(sub.e);
    return NULL;
  }
  ps->p = sub.p;
  return sub.e;
}

bool texpr_parse_list(const char *text, const texpr_scope *scope, const texpr_env *env, texpr_value **vals,
                      uint32_t *n, char *err, size_t errlen) {
  *vals = NULL, *n = 0;
  uint32_t cap = 0;
  parser ps = {.text = text, .p = text, .sc = scope, .err = err, .errlen = errlen};
  texpr *elem = NULL, *r[3] = {NULL, NULL, NULL};
  texpr_var *vars = NULL;
  bool ok = false;
  if (!accept(&ps, "[")) { perr(&ps, ps.p, "expected a list: '[' ... ']' or '[EXPR for x in range(...)]'"); goto out; }
  if (accept(&ps, "]")) { perr(&ps, ps.p - 1, "the list is empty"); goto out; }
  /* a comprehension names its loop variable after the first expression: look for " for " at depth 0 */
  const char *body = ps.p;
  int depth = 0;
  const char *for_at = NULL;
  for (const char *q = body; *q && !for_at; q++) {
    if (*q == '\'' || *q == '"') { const char *e2 = strchr(q + 1, *q); if (!e2) break; q = e2; continue; }
    if (*q == '(' || *q == '[') depth++;
    else if (*q == ')' || *q == ']') depth--;
    else if (!depth && !strncmp(q, "for", 3) && (q == body || !vkocc_ident_char(q[-1])) && !vkocc_ident_char(q[3])) for_at = q;
  }
  if (for_at) {
    /* [EXPR for NAME in range(a[, b[, c]])] */
    ps.p = for_at + 3;
    skip_ws(&ps);
    const char *nm = ps.p;
    while (vkocc_ident_char(*ps.p)) ps.p++;
    if (ps.p == nm || !is_ident_start(*nm)) { perr(&ps, nm, "expected a loop variable after 'for'"); goto out; }
    size_t nl = (size_t)(ps.p - nm);
    char name[64];
    snprintf(name, sizeof name, "%.*s", (int)(nl < 63 ? nl : 63), nm);
    if (!accept_kw(&ps, "in")) { perr(&ps, ps.p, "expected 'in' after the loop variable"); goto out; }
    if (!accept_kw(&ps, "range") || !accept(&ps, "(")) { perr(&ps, ps.p, "expected range(...) (the only iterable supported)"); goto out; }
    uint32_t nr = 0;
    do {
      if (nr == 3) { perr(&ps, ps.p, "range() takes at most 3 arguments"); goto out; }
      if (!(r[nr++] = parse_sub(&ps, scope))) goto out;
    } while (accept(&ps, ","));
    if (!accept(&ps, ")")) { perr(&ps, ps.p, "expected ')' after the arguments of range"); goto out; }
    if (!accept(&ps, "]")) { perr(&ps, ps.p, "expected ']' at the end of the comprehension"); goto out; }
    skip_ws(&ps);
    if (*ps.p) { perr(&ps, ps.p, "unexpected text after the list"); goto out; }
    int64_t rv[3];
    for (uint32_t i = 0; i < nr; i++)
      if (!texpr_eval_int(r[i], env, &rv[i], err, errlen)) goto out;
    int64_t start = nr >= 2 ? rv[0] : 0, stop = nr >= 2 ? rv[1] : rv[0], step = nr == 3 ? rv[2] : 1;
    if (step == 0) { perr(&ps, text, "range() step is zero"); goto out; }
    /* the element expression: the scope plus the loop variable (last slot) */
    texpr_scope sc2 = *scope;
    vars = vkocc_xcalloc(scope->nvars + 1, sizeof *vars);
    if (scope->nvars) memcpy(vars, scope->vars, scope->nvars * sizeof *vars);
    vars[scope->nvars] = (texpr_var){.name = name};
    sc2.vars = vars, sc2.nvars = scope->nvars + 1;
    ps.p = body;
    if (!(elem = parse_sub(&ps, &sc2))) goto out;
    skip_ws(&ps);
    if (ps.p != for_at) { perr(&ps, ps.p, "unexpected '%.8s' before 'for'", ps.p); goto out; }
    texpr_value *slots = vkocc_xcalloc(sc2.nvars, sizeof *slots);
    if (env && env->vars && scope->nvars) memcpy(slots, env->vars, scope->nvars * sizeof *slots);
    texpr_env env2 = env ? *env : (texpr_env){0};
    env2.vars = slots;
    ok = true;
    for (int64_t x = start; step > 0 ? x < stop : x > stop; x += step) {
      if (*n >= TEXPR_MAX_LIST) { perr(&ps, text, "the list has more than %u elements", TEXPR_MAX_LIST); ok = false; break; }
      slots[scope->nvars] = (texpr_value){.kind = TEXPR_INT, .i = x};
      texpr_value v;
      if (!texpr_eval(elem, &env2, &v, err, errlen)) { ok = false; break; }
      push_value(vals, n, &cap, v);
      if ((step > 0 && x > INT64_MAX - step) || (step < 0 && x < INT64_MIN - step)) break;
    }
    free(slots);
    if (ok && !*n) { perr(&ps, text, "the range is empty"); ok = false; }
    goto out;
  }
  /* a list literal */
  do {
    texpr *e = parse_sub(&ps, scope);
    if (!e) goto out;
    texpr_value v;
    bool good = texpr_eval(e, env, &v, err, errlen);
    if (good) {
      if (*n >= TEXPR_MAX_LIST) { perr(&ps, ps.p, "the list has more than %u elements", TEXPR_MAX_LIST); good = false; }
      else push_value(vals, n, &cap, v);
    }
    texpr_free(e);
    if (!good) goto out;
  } while (accept(&ps, ",") && (skip_ws(&ps), *ps.p != ']'));
  if (!accept(&ps, "]")) { perr(&ps, ps.p, "expected ',' or ']' in the list"); goto out; }
  skip_ws(&ps);
  if (*ps.p) { perr(&ps, ps.p, "unexpected text after the list"); goto out; }
  ok = true;
out:
  texpr_free(elem);
  for (int i = 0; i < 3; i++) texpr_free(r[i]);
  free(vars);
  if (!ok) { texpr_values_free(*vals, *n); *vals = NULL, *n = 0; }
  return ok;
}
