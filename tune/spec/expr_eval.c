/* Evaluating a parsed T1 expression (tune/spec/expr.h) against an environment, with Python's semantics for the
 * subset: integer and float arithmetic, floor division and modulo, comparisons, and/or/not, min, max, if-else. */
#include "expr_internal.h"
#include <stdarg.h>

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
