/* A range of the first variable evaluated at once (tune/spec/expr.h texpr_eval_range): one column of values per
 * node, so that enumerating a space evaluates a condition once per row instead of once per configuration. */
#include "expr_internal.h"

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
  if (out->is_int) out->i = util_xmalloc((size_t)n * sizeof *out->i);
  else out->f = util_xmalloc((size_t)n * sizeof *out->f);
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
    if (c->is_int) c->i = util_xmalloc((size_t)n * sizeof *c->i);
    else c->f = util_xmalloc((size_t)n * sizeof *c->f);
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
