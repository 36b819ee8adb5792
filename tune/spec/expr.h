/* Internal to libvkocc: the expression language of T1 tuning specifications (docs/tune.md, "T1 subset").
 *
 * An expression is parsed once against a scope (the names it may use) into a small tree, then evaluated
 * many times (once per configuration) against an environment of values. Parse errors and evaluation errors
 * (division by zero, integer overflow, a string where a number is needed) are messages that carry the
 * 1-based column of the offending token, for the caller to prefix with the file and JSON path. */
#ifndef VKOCC_TUNE_EXPR_H
#define VKOCC_TUNE_EXPR_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum { TEXPR_INT = 0, TEXPR_FLOAT = 1, TEXPR_STR = 2 } texpr_kind;

/* A value: Python's int (64-bit here, overflow is an error), float, or str. bool is the int 0 or 1. */
typedef struct texpr_value {
  texpr_kind kind;
  int64_t i;
  double f;
  const char *s;  /* TEXPR_STR: borrowed (from the tree or the caller), NUL-terminated */
} texpr_value;

/* A name an expression may use. min/max: the smallest and largest of its values, for min(name) and
 * max(name) (Kernel Tuner's reading of max(parameter)); has_range false when it has none (a loop variable). */
typedef struct texpr_var {
  const char *name;
  bool has_range;
  texpr_value min, max;
} texpr_var;

typedef struct texpr_scope {
  const texpr_var *vars;      /* slot i of the environment holds vars[i]'s value */
  uint32_t nvars;
  bool allow_P;               /* P: the occupancy of the configuration's pipeline */
  bool allow_problem_size;    /* ProblemSize[i] */
  bool allow_device;          /* the device's limits by their Vulkan names (texpr_device_names) */
} texpr_scope;

/* The device's limits an expression may name (a condition of a space that depends on the device), in this order:
 * MaxComputeWorkGroupInvocations, MaxComputeWorkGroupSizeX, MaxComputeSharedMemorySize,
 * MaxComputeWorkGroupCountX (VkPhysicalDeviceLimits), SubgroupArithmetic (1 when compute shaders have subgroup
 * arithmetic, else 0). */
#define TEXPR_NDEVICE 5
extern const char *const texpr_device_names[TEXPR_NDEVICE];

typedef struct texpr_env {
  const texpr_value *vars;    /* nvars of the scope it was parsed in */
  const int64_t *problem_size;
  uint32_t nproblem;
  bool has_P;
  int64_t P;
  const int64_t *device;      /* TEXPR_NDEVICE values in texpr_device_names' order; NULL: not known here */
} texpr_env;

typedef struct texpr texpr;

enum { TEXPR_USES_P = 1, TEXPR_USES_PROBLEM_SIZE = 2, TEXPR_USES_DEVICE = 4 };
#define TEXPR_MAX_DEPTH 64      /* nesting of the tree (a chain a+b+c counts one per operator) */
#define TEXPR_MAX_NODES 4096
#define TEXPR_MAX_LIST (1u << 20) /* elements of a list literal or comprehension */

/* Parses text (a whole expression). false with err filled ("column N: ...") on error. */
bool texpr_parse(const char *text, const texpr_scope *scope, texpr **out, char *err, size_t errlen);
void texpr_free(texpr *e);
/* TEXPR_USES_* bits; uses_var (nvars entries, may be NULL) is set for each variable the expression names. */
unsigned texpr_uses(const texpr *e, bool *uses_var);
/* Evaluates e; false with err filled on a runtime error (division by zero, overflow, P unknown...). */
bool texpr_eval(const texpr *e, const texpr_env *env, texpr_value *out, char *err, size_t errlen);
/* Evaluates e to an integer (a float with an integral value is accepted); false naming the problem. */
bool texpr_eval_int(const texpr *e, const texpr_env *env, int64_t *out, char *err, size_t errlen);
/* e for its first variable = lo, lo + 1, ... lo + n - 1 at once (a Generator's i), each value as texpr_eval gives
 * it (an integer as a double) into out: true where e is arithmetic on numbers, that variable and ProblemSize[N]
 * and no value fails; false otherwise (then evaluate element by element: that names a failure). */
bool texpr_eval_range(const texpr *e, const texpr_env *env, int64_t lo, uint32_t n, double *out);
bool texpr_truthy(const texpr_value *v);

/* A T1 Values string: a list literal "[1, 2, 'a']" or a comprehension "[EXPR for x in range(a[, b[, c]])]"
 * (EXPR may use x; a, b, c are integer expressions). scope gives what else the elements may name (usually
 * nothing, or ProblemSize). *vals: malloc'd, strings strdup'd; free with texpr_values_free. */
bool texpr_parse_list(const char *text, const texpr_scope *scope, const texpr_env *env, texpr_value **vals,
                      uint32_t *n, char *err, size_t errlen);
void texpr_values_free(texpr_value *vals, uint32_t n);
/* Python's str() of a value ("16", "0.5", "abc"), for -D defines and keys. */
void texpr_format(const texpr_value *v, char *out, size_t len);
/* ==, as Python compares (1 == 1.0; a str equals only a str) */
bool texpr_equal(const texpr_value *a, const texpr_value *b);
#endif
