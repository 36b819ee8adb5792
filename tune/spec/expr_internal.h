/* Internal to the spec's room (tune/spec/): an expression's parsed form, shared by the parser (expr.c), the
 * evaluator (expr_eval.c) and the evaluation of a range of values at once (expr_range.c). */
#ifndef VKOCC_TUNE_EXPR_INTERNAL_H
#define VKOCC_TUNE_EXPR_INTERNAL_H
#include "expr.h"
#include "internal.h"
#include <math.h>
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

struct texpr {
  node *n;
  uint32_t count, cap;
  int32_t root;
  unsigned uses;
  bool *uses_var;
  uint32_t nvars;
  const texpr_var *vars; /* borrowed at parse time, for min/max of a variable */
};

/* ------------------------------------------------------------------ evaluation */

typedef struct evaluator {
  const texpr *e;
  const texpr_env *env;
  char *err;
  size_t errlen;
} evaluator;
#endif
