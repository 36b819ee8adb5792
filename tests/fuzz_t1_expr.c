/* Fuzz target for the T1 expression evaluator (tune/spec/expr.c): the input is parsed as a condition (with three
 * parameters, P and ProblemSize) and evaluated at several environments, and as a Values list. Invariants:
 * a parse or evaluation error is a message with a column; an accepted expression evaluates without a
 * crash, an overflow or a division trap (UBSan halts on any); where the block evaluator (texpr_eval_range)
 * takes it, its values are texpr_eval's bit for bit; a list has 1 to TEXPR_MAX_LIST elements. */
#include "fuzz_util.h"
#include "../tune/spec/expr.h"
#include <math.h>

static void check_err(const char *err) { FUZZ_CHECK(!strncmp(err, "column ", 7) || strstr(err, "expected")); }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 4096) return 0;
  char text[4097];
  memcpy(text, data, size);
  text[size] = 0;
  if (strlen(text) != size) return 0; /* a NUL inside: not a T1 string */
  static const texpr_var vars[3] = {
      {.name = "bx", .has_range = true, .min = {.kind = TEXPR_INT, .i = 1}, .max = {.kind = TEXPR_INT, .i = 1024}},
      {.name = "f", .has_range = true, .min = {.kind = TEXPR_FLOAT, .f = -0.5}, .max = {.kind = TEXPR_FLOAT, .f = 2.5}},
      {.name = "s"}};
  texpr_scope sc = {.vars = vars, .nvars = 3, .allow_P = true, .allow_problem_size = true};
  static const int64_t ps[3] = {4096, 1, INT64_MAX};
  char err[512] = "";
  texpr *e;
  if (texpr_parse(text, &sc, &e, err, sizeof err)) {
    fuzz_accepted++;
    bool uses[3] = {0};
    unsigned u = texpr_uses(e, uses);
    FUZZ_CHECK((u & ~3u) == 0);
    static const int64_t ints[] = {0, 1, -1, 7, INT64_MAX, INT64_MIN};
    for (unsigned k = 0; k < 6; k++) {
      texpr_value slots[3] = {{.kind = TEXPR_INT, .i = ints[k]}, {.kind = TEXPR_FLOAT, .f = (double)ints[k] / 3},
                              {.kind = TEXPR_STR, .s = k & 1 ? "row" : ""}};
      texpr_env env = {.vars = slots, .problem_size = ps, .nproblem = 3, .has_P = k != 2, .P = ints[k]};
      texpr_value v;
      err[0] = 0;
      if (!texpr_eval(e, &env, &v, err, sizeof err)) check_err(err);
      else if (v.kind == TEXPR_FLOAT) FUZZ_CHECK(isfinite(v.f));
      int64_t i;
      if (!texpr_eval_int(e, &env, &i, err, sizeof err)) FUZZ_CHECK(err[0]);
    }
    /* the block evaluator (a Generator's fill) against texpr_eval, element by element: where it takes the
     * expression, every value bit for bit, around zero and at both ends of the integers */
    static const int64_t los[] = {-9, 1000, INT64_MAX - 20, INT64_MIN};
    for (unsigned k = 0; k < 4; k++) {
      texpr_value slots[3] = {{.kind = TEXPR_INT}, {.kind = TEXPR_FLOAT, .f = 0.5}, {.kind = TEXPR_STR, .s = ""}};
      texpr_env env = {.vars = slots, .problem_size = ps, .nproblem = 3};
      double got[16];
      if (!texpr_eval_range(e, &env, los[k], 16, got)) continue;
      for (unsigned j = 0; j < 16; j++) {
        slots[0].i = los[k] + (int64_t)j;
        texpr_value v;
        FUZZ_CHECK(texpr_eval(e, &env, &v, err, sizeof err) && v.kind != TEXPR_STR);
        double x = v.kind == TEXPR_INT ? (double)v.i : v.f;
        FUZZ_CHECK(!memcmp(&x, &got[j], sizeof x));
      }
    }
    texpr_free(e);
  } else check_err(err);
  texpr_value *vals;
  uint32_t n;
  texpr_scope lsc = {.allow_problem_size = true};
  texpr_env lenv = {.problem_size = ps, .nproblem = 2};
  if (texpr_parse_list(text, &lsc, &lenv, &vals, &n, err, sizeof err)) {
    fuzz_accepted++;
    FUZZ_CHECK(n >= 1 && n <= TEXPR_MAX_LIST);
    char out[64];
    for (uint32_t i = 0; i < n && i < 8; i++) texpr_format(&vals[i], out, sizeof out);
    texpr_values_free(vals, n);
  } else FUZZ_CHECK(err[0]);
  return 0;
}
