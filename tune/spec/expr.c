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
#include "expr_internal.h"
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>

const char *const texpr_device_names[TEXPR_NDEVICE] = {"MaxComputeWorkGroupInvocations", "MaxComputeWorkGroupSizeX",
                                                      "MaxComputeSharedMemorySize", "MaxComputeWorkGroupCountX",
                                                      "SubgroupArithmetic"};

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
  return !strncmp(ps->p, kw, l) && !util_ident_char(ps->p[l]);
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
    e->n = util_xrealloc(e->n, e->cap * sizeof *e->n);
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
    if (end == q + 2 || util_ident_char(*end)) { perr(ps, start, "bad hexadecimal literal"); return -1; }
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
  if (util_ident_char(*q)) { perr(ps, start, "bad number"); return -1; }
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
  char *s = util_xmalloc(l + 1);
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
    while (util_ident_char(*q)) q++;
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
  nd->args = util_xmalloc(na * sizeof *nd->args);
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
  while (util_ident_char(*q)) q++;
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
  texpr *e = util_xcalloc(1, sizeof *e);
  e->nvars = sc->nvars, e->vars = sc->vars;
  e->uses_var = util_xcalloc(sc->nvars ? sc->nvars : 1, sizeof *e->uses_var);
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

void texpr_values_free(texpr_value *vals, uint32_t n) {
  if (!vals) return;
  for (uint32_t i = 0; i < n; i++)
    if (vals[i].kind == TEXPR_STR) free((char *)vals[i].s);
  free(vals);
}

static void push_value(texpr_value **vals, uint32_t *n, uint32_t *cap, texpr_value v) {
  if (*n == *cap) {
    *cap = *cap ? 2 * *cap : 16;
    *vals = util_xrealloc(*vals, *cap * sizeof **vals);
  }
  if (v.kind == TEXPR_STR) v.s = util_xstrdup(v.s ? v.s : "");
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
    else if (!depth && !strncmp(q, "for", 3) && (q == body || !util_ident_char(q[-1])) && !util_ident_char(q[3])) for_at = q;
  }
  if (for_at) {
    /* [EXPR for NAME in range(a[, b[, c]])] */
    ps.p = for_at + 3;
    skip_ws(&ps);
    const char *nm = ps.p;
    while (util_ident_char(*ps.p)) ps.p++;
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
    vars = util_xcalloc(scope->nvars + 1, sizeof *vars);
    if (scope->nvars) memcpy(vars, scope->vars, scope->nvars * sizeof *vars);
    vars[scope->nvars] = (texpr_var){.name = name};
    sc2.vars = vars, sc2.nvars = scope->nvars + 1;
    ps.p = body;
    if (!(elem = parse_sub(&ps, &sc2))) goto out;
    skip_ws(&ps);
    if (ps.p != for_at) { perr(&ps, ps.p, "unexpected '%.8s' before 'for'", ps.p); goto out; }
    texpr_value *slots = util_xcalloc(sc2.nvars, sizeof *slots);
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
