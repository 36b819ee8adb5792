/* The T1 expression evaluator and reader (no device): Python's semantics for the subset, errors with
 * columns and JSON paths, the space enumeration with conditions, P conditions left for later, the device's limits
 * as names (left out until the device is given). */
#include "check.h"
#include "../tune/harness/user.h"
#include <stdlib.h>

static texpr_var vars[3];

static bool ev(const char *text, texpr_value *out, char *err, size_t len, int64_t P) {
  texpr_scope sc = {.vars = vars, .nvars = 3, .allow_P = true, .allow_problem_size = true};
  texpr *e;
  if (!texpr_parse(text, &sc, &e, err, len)) return false;
  static const int64_t ps[2] = {1000, 20};
  texpr_value slots[3] = {{.kind = TEXPR_INT, .i = 16}, {.kind = TEXPR_INT, .i = 4}, {.kind = TEXPR_STR, .s = "row"}};
  texpr_env env = {.vars = slots, .problem_size = ps, .nproblem = 2, .has_P = P >= 0, .P = P};
  bool ok = texpr_eval(e, &env, out, err, len);
  texpr_free(e);
  return ok;
}

static void int_is(const char *text, int64_t want) {
  texpr_value v;
  char err[256] = "";
  bool ok = ev(text, &v, err, sizeof err, 8);
  CHECK(ok && v.kind == TEXPR_INT && v.i == want, "%s: ok %d kind %d i %lld err '%s', expected %lld", text, ok, v.kind,
        (long long)v.i, err, (long long)want);
}
static void float_is(const char *text, double want) {
  texpr_value v;
  char err[256] = "";
  bool ok = ev(text, &v, err, sizeof err, 8);
  CHECK(ok && v.kind == TEXPR_FLOAT && fabs(v.f - want) < 1e-12, "%s: ok %d kind %d f %g err '%s'", text, ok, v.kind, v.f, err);
}
static void err_is(const char *text, const char *want) {
  texpr_value v;
  char err[256] = "";
  bool ok = ev(text, &v, err, sizeof err, -1);
  CHECK(!ok, "%s: accepted", text);
  const char *m = err;
  CHECK_CONTAINS(m, want);
}

static void test_expr(void) {
  vars[0] = (texpr_var){.name = "bx", .has_range = true, .min = {.kind = TEXPR_INT, .i = 8}, .max = {.kind = TEXPR_INT, .i = 64}};
  vars[1] = (texpr_var){.name = "ty", .has_range = true, .min = {.kind = TEXPR_INT, .i = 1}, .max = {.kind = TEXPR_INT, .i = 8}};
  vars[2] = (texpr_var){.name = "layout"};
  int_is("1 + 2 * 3", 7);
  int_is("(1 + 2) * 3", 9);
  int_is("2 ** 10", 1024);
  int_is("2 ** 3 ** 2", 512);      /* right-associative */
  int_is("-2 ** 2", -4);           /* ** binds tighter than unary minus */
  int_is("7 // 2", 3);
  int_is("-7 // 2", -4);           /* floors */
  int_is("-7 % 3", 2);             /* sign of the divisor */
  int_is("7 % -3", -2);
  float_is("7 / 2", 3.5);
  float_is("7.0 // 2", 3.0);
  int_is("bx * ty <= 64", 1);
  int_is("bx * ty > 64", 0);
  int_is("1 < ty < 8", 1);         /* chained */
  /* bitwise operators and conditional expressions, at Python's precedence (values checked against CPython) */
  int_is("bx & 12", 0);
  int_is("bx | 3", 19);
  int_is("bx ^ 24", 8);
  int_is("1 << 10", 1024);
  int_is("-7 >> 1", -4);           /* floors, as // 2 */
  int_is("-1 >> 100", -1);
  int_is("5 >> 70", 0);
  int_is("~5", -6);
  int_is("~-1", 0);
  int_is("1 + 2 << 3", 24);        /* + binds tighter than << */
  int_is("1 | 2 ^ 3 & 4", 3);      /* & over ^ over | */
  int_is("bx & bx - 1 == 0", 1);   /* comparisons bind looser than &: (bx & (bx - 1)) == 0, a power of two */
  int_is("ty & 1 == 0", 1);
  int_is("bx if ty > 2 else ty", 16);
  int_is("bx if ty > 8 else ty", 4);
  int_is("1 if ty == 1 else 2 if ty == 4 else 3", 2); /* right-associative */
  int_is("(3 if bx > 100 else 5) * 2", 10);
  int_is("max(1 if P > 4 else 0, 0)", 1);
  int_is("0 if ty == 4 else 1 // 0", 0); /* the branch not taken is not evaluated */
  err_is("1.5 & 1", "'&' needs integers");
  err_is("~1.5", "unary ~ needs an integer");
  err_is("1 << -1", "negative shift count");
  err_is("1 << 63", "integer overflow in <<");
  int_is("-1 << 63", INT64_MIN);    /* fits, as in Python */
  err_is("-1 << 64", "integer overflow in <<");
  err_is("3 << 62", "integer overflow in <<");
  err_is("1 if ty", "expected 'else'");
  err_is("'a' | 1", "needs numbers, not a string");
  int_is("1 < ty < 4", 0);
  int_is("bx % ty == 0 and not ty == 3", 1);
  int_is("0 or 5", 5);             /* Python: the value of the operand */
  int_is("max(bx)", 64);           /* the parameter's largest value */
  int_is("min(bx)", 8);
  int_is("max(bx, ty, 100)", 100);
  int_is("min(bx * 2, ty)", 4);
  int_is("ProblemSize[0] + max(bx) - 1", 1063);
  int_is("ProblemSize[1]", 20);
  int_is("P * 2", 16);
  int_is("layout == 'row'", 1);
  int_is("layout != \"col\"", 1);
  int_is("True + True", 2);
  int_is("0x10", 16);
  int_is("1_000", 1000);
  int_is("9223372036854775807", INT64_MAX);
  err_is("1 / 0", "column 3: division by zero");
  err_is("bx // (ty - 4)", "column 4: division by zero");
  err_is("5 % 0", "modulo by zero");
  err_is("9223372036854775807 + 1", "integer overflow");
  err_is("2 ** 64", "integer overflow in **");
  err_is("-9223372036854775807 - 2", "integer overflow");
  err_is("9223372036854775808", "out of the 64-bit range");
  err_is("1e308 * 10", "not finite");
  err_is("unknown_name + 1", "column 1: unknown name 'unknown_name'");
  err_is("bx +", "unexpected end");
  err_is("(bx", "expected ')'");
  err_is("bx 3", "column 4: unexpected");
  err_is("P + 1", "P is not known yet");
  err_is("ProblemSize[2]", "2 dimensions");
  err_is("layout < 3", "cannot be ordered");
  err_is("max(layout)", "max() of one value");
  err_is("bx && 1", "unexpected");      /* C's && is not Python */
  err_is("", "empty expression");
  /* depth bounds: nesting and long chains */
  char deep[400];
  memset(deep, '(', 200);
  deep[200] = '1';
  memset(deep + 201, ')', 198);
  deep[399] = 0;
  err_is(deep, "nested too deeply");
  char chain[1000];
  strcpy(chain, "1");
  for (int i = 0; i < 100; i++) strcat(chain, "+1");
  err_is(chain, "nested too deeply");
  /* lists */
  texpr_value *v;
  uint32_t n;
  char err[256];
  texpr_scope sc = {.allow_problem_size = true};
  CHECK(texpr_parse_list("[1, 2, 4, 8]", &sc, NULL, &v, &n, err, sizeof err) && n == 4 && v[3].i == 8, "list: %s", err);
  texpr_values_free(v, n);
  CHECK(texpr_parse_list("[2**i for i in range(1, 7)]", &sc, NULL, &v, &n, err, sizeof err) && n == 6 && v[0].i == 2 &&
        v[5].i == 64, "comprehension: %s (n %u)", err, n);
  texpr_values_free(v, n);
  CHECK(texpr_parse_list("[x*16 for x in range(8, 0, -2)]", &sc, NULL, &v, &n, err, sizeof err) && n == 4 &&
        v[0].i == 128 && v[3].i == 32, "comprehension with a step: %s", err);
  texpr_values_free(v, n);
  CHECK(texpr_parse_list("['a', 'b']", &sc, NULL, &v, &n, err, sizeof err) && n == 2 && !strcmp(v[1].s, "b"), "strings: %s", err);
  texpr_values_free(v, n);
  CHECK(!texpr_parse_list("[1, 2", &sc, NULL, &v, &n, err, sizeof err), "unterminated list accepted");
  CHECK(!texpr_parse_list("16", &sc, NULL, &v, &n, err, sizeof err), "a number as a list accepted");
  const char *m = err;
  CHECK_CONTAINS(m, "expected a list");
  CHECK(!texpr_parse_list("[x for x in range(0, 10, 0)]", &sc, NULL, &v, &n, err, sizeof err), "step 0 accepted");
  CHECK(!texpr_parse_list("[1 // 0]", &sc, NULL, &v, &n, err, sizeof err), "1//0 accepted");
  CHECK_CONTAINS(m, "division by zero");
  CHECK(!texpr_parse_list("[x for x in range(10000000)]", &sc, NULL, &v, &n, err, sizeof err), "huge list accepted");
  char t[64];
  texpr_value f = {.kind = TEXPR_FLOAT, .f = 0.5};
  texpr_format(&f, t, sizeof t);
  CHECK(!strcmp(t, "0.5"), "format %s", t);
  f.f = 2;
  texpr_format(&f, t, sizeof t);
  CHECK(!strcmp(t, "2.0"), "format %s", t);
}

static const char *spec_text =
    "{\"General\": {\"FormatVersion\": 1},"
    " \"ConfigurationSpace\": {\"TuningParameters\": ["
    "   {\"Name\": \"TX\", \"Type\": \"int\", \"Values\": \"[2**i for i in range(3, 7)]\", \"Default\": 16},"
    "   {\"Name\": \"TY\", \"Type\": \"int\", \"Values\": \"[1, 2, 4, 8]\"},"
    "   {\"Name\": \"UNROLL\", \"Type\": \"bool\", \"Values\": \"[True, False]\"}],"
    "  \"Conditions\": [{\"Parameters\": [\"TX\", \"TY\"], \"Expression\": \"TX * TY <= 128\"},"
    "                  {\"Parameters\": [\"TX\"], \"Expression\": \"TX * 4 <= P * 64\"}]},"
    " \"Budget\": [{\"Type\": \"ConfigurationCount\", \"BudgetValue\": 10}],"
    " \"Search\": {\"Name\": \"Deterministic\", \"Attributes\": [{\"Name\": \"seed\", \"Value\": 3}]},"
    " \"KernelSpecification\": {\"Language\": \"Vulkan\", \"KernelName\": \"main\", \"KernelFile\": \"k.comp\","
    "   \"CompilerOptions\": [\"-DBLOCK=4\", \"-O\"], \"ProblemSize\": [1000, 64],"
    "   \"LocalSize\": {\"X\": \"TX\", \"Y\": \"TY\"}, \"GlobalSize\": {\"X\": \"ProblemSize[0]\", \"Y\": \"ProblemSize[1]\"},"
    "   \"GlobalSizeType\": \"OpenCL\","
    "   \"Arguments\": [{\"Name\": \"in\", \"Type\": \"float\", \"MemoryType\": \"Vector\", \"Size\": \"ProblemSize[0]*ProblemSize[1]\","
    "                    \"FillType\": \"Generator\", \"DataSource\": \"i % 7\", \"AccessType\": \"ReadOnly\"},"
    "                   {\"Name\": \"out\", \"Type\": \"float\", \"MemoryType\": \"Vector\", \"Size\": 64000, \"Output\": 1,"
    "                    \"AccessType\": \"WriteOnly\"},"
    "                   {\"Name\": \"n\", \"Type\": \"uint32\", \"MemoryType\": \"Scalar\", \"FillType\": \"Constant\", \"FillValue\": 64000}],"
    "   \"ReferenceArguments\": [{\"Name\": \"ref\", \"TargetName\": \"out\", \"FillType\": \"Generator\","
    "                             \"DataSource\": \"(i % 7) * 2\", \"ValidationMethod\": \"SideBySideComparison\"}]}}";

static void test_reader(void) {
  t1_spec s;
  vkocc_status st = t1_parse(spec_text, strlen(spec_text), "spec.json", ".", false, &s);
  CHECK(st == VKOCC_OK, "parse: %s", vkocc_last_error());
  if (st) return;
  CHECK_EQ_U(s.nparams, 3);
  CHECK_EQ_U(s.params[0].nvalues, 4);
  CHECK(s.params[0].values[3].i == 64, "TX max %lld", (long long)s.params[0].values[3].i);
  CHECK(s.params[0].def == 1, "default index %d", s.params[0].def);
  CHECK_EQ_U(s.nconds, 2);
  CHECK(!s.conds[0].uses_P && s.conds[1].uses_P && s.uses_P, "P use");
  CHECK(s.global_is_invocations, "OpenCL global size");
  CHECK(s.ndefines == 1 && !strcmp(s.defines[0], "BLOCK=4"), "defines");
  CHECK(s.budget.max_evals == 10, "budget");
  CHECK(!strcmp(s.search, "Deterministic") && json_integer_value(json_object_get(s.search_attrs, "seed")) == 3, "search");
  CHECK_EQ_U(s.nargs, 3);
  CHECK(s.args[0].count == 64000 && s.args[0].bytes == 256000, "arg 0 size %llu", (unsigned long long)s.args[0].count);
  CHECK(s.args[1].output && !s.args[2].vector, "output / scalar");
  CHECK(s.nrefs == 1 && s.refs[0].target == 1, "reference target");
  t1_space sp;
  st = t1_enumerate(&s, &sp);
  CHECK(st == VKOCC_OK, "enumerate: %s", vkocc_last_error());
  /* TX in {8,16,32,64} x TY in {1,2,4,8} x 2: TX*TY <= 128 drops (32,8), (64,4), (64,8) -> 13 * 2 */
  CHECK_EQ_U(sp.total, 32);
  CHECK_EQ_U(sp.count, 26);
  CHECK_EQ_U(sp.constrained, 6);
  uint32_t l[3], g[3];
  uint32_t c0[3] = {1, 2, 0}; /* TX 16, TY 4 */
  CHECK(t1_sizes(&s, c0, -1, l, g) == VKOCC_OK && l[0] == 16 && l[1] == 4 && g[0] == 63 && g[1] == 16,
        "sizes %u %u %u %u", l[0], l[1], g[0], g[1]);
  bool ok;
  char why[256];
  CHECK(t1_check_P(&s, c0, 1, &ok, why, sizeof why) == VKOCC_OK && ok, "P condition holds at P=1 for TX 16");
  uint32_t c1[3] = {3, 0, 0}; /* TX 64: 256 <= 64 P needs P >= 4 */
  CHECK(t1_check_P(&s, c1, 2, &ok, why, sizeof why) == VKOCC_OK && !ok, "P condition fails at P=2 for TX 64");
  const char *w = why;
  CHECK_CONTAINS(w, "Conditions[1]");
  char key[256];
  t1_config_key(&s, c0, key, sizeof key);
  CHECK(!strcmp(key, "{\"TX\":16,\"TY\":4,\"UNROLL\":true}"), "key %s", key);
  float buf[64000];
  CHECK(t1_fill_data(&s, &s.args[0].data, s.args[0].path, &s.args[0], buf) == VKOCC_OK && buf[9] == 2.0f, "generator");
  t1_space_free(&sp);
  t1_free(&s);
}

/* A condition that names P and cannot be evaluated at the measured P (a division by P - 2 at P = 2) is an error
 * naming the condition and the configuration, never taken as true or as false; at another P it is judged. */
static void test_P_condition_error(void) {
  char *text = strdup(spec_text);
  const char *from = "TX * 4 <= P * 64";
  char *at = strstr(text, from);
  CHECK(at != NULL, "the spec's P condition");
  if (!at) { free(text); return; }
  const char *to = "TX//(P-2) >= 0"; /* no longer than `from`: blanks fill the rest */
  CHECK(strlen(to) <= strlen(from), "replacement length");
  memset(at, ' ', strlen(from));
  memcpy(at, to, strlen(to));
  t1_spec s;
  vkocc_status st = t1_parse(text, strlen(text), "spec.json", ".", false, &s);
  CHECK(st == VKOCC_OK, "parse: %s", vkocc_last_error());
  free(text);
  if (st) return;
  bool ok = true;
  char why[256] = "";
  uint32_t c[3] = {1, 2, 0}; /* TX 16 */
  st = t1_check_P(&s, c, 2, &ok, why, sizeof why);
  CHECK(st == VKOCC_ERROR_USAGE, "P = 2: status %d, expected a usage error (ok %d, why '%s')", (int)st, ok, why);
  const char *e = vkocc_last_error();
  CHECK_CONTAINS(e, "Conditions[1]");
  CHECK_CONTAINS(e, "TX//(P-2) >= 0");
  CHECK_CONTAINS(e, "division by zero (at TX=16, TY=4");
  vkocc_clear_error();
  CHECK(t1_check_P(&s, c, 3, &ok, why, sizeof why) == VKOCC_OK && ok, "P = 3: 16 // 1 >= 0 holds");
  CHECK(t1_check_P(&s, c, 1, &ok, why, sizeof why) == VKOCC_OK && !ok, "P = 1: 16 // -1 = -16 < 0 is false");
  t1_free(&s);
}

/* replaces the first occurrence of from with to in spec_text, parses, and expects a usage error naming path */
static void bad_spec(const char *from, const char *to, const char *path, const char *what) {
  char text[8192];
  const char *at = strstr(spec_text, from);
  CHECK(at != NULL, "'%s' not in the spec", from);
  if (!at) return;
  snprintf(text, sizeof text, "%.*s%s%s", (int)(at - spec_text), spec_text, to, at + strlen(from));
  t1_spec s;
  vkocc_status st = t1_parse(text, strlen(text), "spec.json", ".", false, &s);
  if (st == VKOCC_OK) {
    t1_space sp;
    st = t1_enumerate(&s, &sp);
    if (!st) t1_space_free(&sp);
    t1_free(&s);
  }
  CHECK(st == VKOCC_ERROR_USAGE, "%s -> %s: status %d", from, to, st);
  const char *m = vkocc_last_error();
  CHECK(!strncmp(m, "spec.json: ", 11), "message '%s' does not start with the file", m);
  CHECK_CONTAINS(m, path);
  CHECK_CONTAINS(m, what);
  CHECK(!strchr(m, '\n'), "message has several lines: %s", m);
}

static void test_bad(void) {
  bad_spec("\"Vulkan\", \"KernelName\"", "\"CUDA\", \"KernelName\"", "$.KernelSpecification.Language", "'CUDA'");
  /* names and paths longer than vkocc keeps are refused, never cut */
  char longname[300], longfile[1200];
  memset(longname, 'm', 200), longname[200] = 0;
  memset(longfile, 'f', 1100), longfile[1100] = 0;
  char to[1300];
  snprintf(to, sizeof to, "\"KernelName\": \"%s\"", longname);
  bad_spec("\"KernelName\": \"main\"", to, "$.KernelSpecification.KernelName", "longer than 127 characters");
  snprintf(to, sizeof to, "\"KernelFile\": \"%s\"", longfile);
  bad_spec("\"KernelFile\": \"k.comp\"", to, "$.KernelSpecification.KernelFile", "longer than 1023 bytes");
  bad_spec("\"Values\": \"[1, 2, 4, 8]\"", "\"Values\": \"16\"", "$.ConfigurationSpace.TuningParameters[1].Values", "expected a list");
  bad_spec("\"Values\": \"[1, 2, 4, 8]\"", "\"Values\": [1, 2]", "$.ConfigurationSpace.TuningParameters[1]", "'Values' must be a string");
  bad_spec("TX * TY <= 128", "TX * TZ <= 128", "$.ConfigurationSpace.Conditions[0].Expression", "unknown name 'TZ'");
  bad_spec("\"Parameters\": [\"TX\", \"TY\"]", "\"Parameters\": [\"TX\", \"TQ\"]", "Conditions[0].Parameters[1]", "'TQ' is not a tuning parameter");
  bad_spec("TX * TY <= 128", "TX // (TY - 4) <= 128", "$.ConfigurationSpace.Conditions[0].Expression", "division by zero");
  bad_spec("\"Size\": 64000", "\"Size\": \"2**62\"", "Arguments[1].Size", "1 TiB");
  bad_spec("\"Size\": 64000", "\"Size\": \"2**63\"", "Arguments[1].Size", "integer overflow");
  bad_spec("\"KernelFile\": \"k.comp\", ", "", "$.KernelSpecification", "missing required member 'KernelFile'");
  bad_spec("\"DataSource\": \"i % 7\", ", "", "Arguments[0]", "needs 'DataSource'");
  bad_spec("\"TargetName\": \"out\"", "\"TargetName\": \"nope\"", "ReferenceArguments[0]", "names no argument");
  bad_spec("\"Type\": \"int\", \"Values\": \"[2**i", "\"Type\": \"integer\", \"Values\": \"[2**i", "TuningParameters[0]", "Type 'integer'");
  bad_spec("\"General\": {\"FormatVersion\": 1},", "\"Extra\": 1,", "$", "member 'Extra' is not part of the T1 subset");
  bad_spec("\"GlobalSizeType\": \"OpenCL\"", "\"GlobalSizeType\": \"OpenCL\", \"SharedMemory\": 1024", "SharedMemory", "not supported");
  bad_spec("\"ProblemSize\": [1000, 64]", "\"ProblemSize\": [1000, 0]", "ProblemSize[1]", "expected 1");
  bad_spec("\"Name\": \"Deterministic\"", "\"Name\": \"annealing_by_magic\"", "$.Search.Name", "unknown search");
  bad_spec("\"X\": \"TX\"", "\"X\": \"P\"", "LocalSize", "cannot depend on P");
  bad_spec("\"BudgetValue\": 10", "\"BudgetValue\": -1", "$.Budget[0]", "positive integer");
  bad_spec("{\"General\"", "[{\"General\"", "spec.json", "not JSON");
}

/* A Generator filled in chunks on several threads: every element the expression of its index as one thread
 * wrote it (float, int and bool arguments; a partial last chunk), and a failure names the lowest index that fails
 * (not the first a thread met). */
static void generator_spec(const char *source, const char *type, long n, t1_spec *s) {
  char text[2048];
  snprintf(text, sizeof text,
           "{\"ConfigurationSpace\": {\"TuningParameters\": [{\"Name\": \"WG\", \"Type\": \"int\", \"Values\": \"[64]\"}]},"
           " \"KernelSpecification\": {\"Language\": \"Vulkan\", \"KernelName\": \"main\", \"KernelFile\": \"k.comp\","
           "  \"ProblemSize\": [%ld], \"LocalSize\": {\"X\": \"WG\"}, \"GlobalSize\": {\"X\": \"ProblemSize[0]\"},"
           "  \"GlobalSizeType\": \"OpenCL\","
           "  \"Arguments\": [{\"Name\": \"in\", \"Type\": \"%s\", \"MemoryType\": \"Vector\", \"Size\": \"ProblemSize[0]\","
           "                   \"FillType\": \"Generator\", \"DataSource\": \"%s\", \"AccessType\": \"ReadOnly\"}]}}",
           n, type, source);
  vkocc_status st = t1_parse(text, strlen(text), "spec.json", ".", false, s);
  CHECK(st == VKOCC_OK, "generator spec: %s", vkocc_last_error());
}

/* texpr_eval_range against texpr_eval element by element: the same value for every index (bit for bit), true for
 * arithmetic on i, numbers and ProblemSize[N]; false where a value fails or for what it does not take. */
static void range_same(const char *text, int64_t lo, uint32_t n, bool want_ok) {
  static const texpr_var iv[1] = {{.name = "i"}};
  texpr_scope sc = {.vars = iv, .nvars = 1, .allow_problem_size = true};
  texpr *e;
  char err[256];
  int64_t ps[2] = {1000, 64};
  CHECK(texpr_parse(text, &sc, &e, err, sizeof err), "%s: %s", text, err);
  texpr_value slot;
  texpr_env env = {.vars = &slot, .problem_size = ps, .nproblem = 2};
  double *got = calloc(n, sizeof *got);
  bool ok = texpr_eval_range(e, &env, lo, n, got);
  CHECK(ok == want_ok, "%s from %lld: range %s", text, (long long)lo, ok ? "took it" : "refused");
  uint32_t differ = 0;
  for (uint32_t k = 0; ok && k < n; k++) {
    slot = (texpr_value){.kind = TEXPR_INT, .i = lo + k};
    texpr_value v;
    bool one = texpr_eval(e, &env, &v, err, sizeof err);
    double x = v.kind == TEXPR_INT ? (double)v.i : v.f;
    differ += !one || memcmp(&x, &got[k], sizeof x) != 0;
  }
  CHECK(differ == 0, "%s from %lld: %u of %u values differ from texpr_eval", text, (long long)lo, differ, n);
  free(got);
  texpr_free(e);
}

static void test_eval_range(void) {
  range_same("i", -3000, 5000, true);
  range_same("(i % 1024) * 0.25", -3000, 5000, true);
  range_same("(i % 1024) * 0.5 + i % 7", 0, 4096, true);
  range_same("(i - 500) // 7 + (i - 500) % -7 - -i", -3000, 5000, true);
  range_same("(i * 0.37 - 11) // 0.9 + (i * 0.37 - 11) % 0.9", -3000, 5000, true);
  range_same("i / 3 + +i * 2654435761 % 4294967296", 0, 5000, true);
  range_same("(i & 255) ^ (i | 3) + ProblemSize[1] * i - ProblemSize[0]", -100, 5000, true);
  range_same("1.5e300 * 1e10 + i", 0, 10, false);            /* not finite */
  range_same("1 // (i - 7)", 0, 100, false);                 /* division by zero at i = 7 */
  range_same("i * 4611686018427387904", 0, 10, false);      /* integer overflow */
  range_same("i ** 2", 0, 10, false);                        /* outside the subset */
  range_same("i if i < 5 else 2 * i", 0, 10, false);
  range_same("i < 5", 0, 10, false);
  range_same("ProblemSize[2] + i", 0, 10, false);            /* no such dimension: the element path says so */
  /* consecutive integers over a positive constant step (no division): across zero, from a negative start, after
   * i + c and i - c, nested, and the cases that keep dividing (a negative divisor, i * 2, -i, a float) */
  range_same("i // 8192 % 3 + 1 + (i % 8192) % 5", -20000, 40000, true);
  range_same("(i + 5) // 3 + (i - 7) % 4 + (3 + i) % 1 + (i - -9) // 1", -5000, 10000, true);
  range_same("(i // 7) % 5 + (i % 7) // 2", -70, 300, true);
  range_same("i // -3 + i % -7 + (2 * i) % 6 + (-i) % 5 + (i * 1.0) % 3", -500, 1000, true);
  range_same("(i + 9223372036854775800) % 1024", 0, 5, true);
  range_same("(i + 9223372036854775800) % 1024", 0, 10, false); /* i + c overflows at i = 8: the element path says so */
  range_same("(i + 5) // 1 % 7 + (i - 3) // 5", 9223372036854775807 - 20, 16, true); /* i + 5 up to INT64_MAX (fuzz) */
  range_same("i % ProblemSize[1] + i // ProblemSize[0]", -3000, 5000, true);
  /* any integers over a power of two: a shift and a mask, negative ones too */
  range_same("(3 * i - 700) // 64 + (3 * i - 700) % 64 + (i * i) % 1 + (-i) // 1024 + (i - 5000) % 4611686018427387904", -3000, 5000, true);
  range_same("(i * 9223372036854775) % 2 + (i * -9223372036854775) // 8", -1000, 2000, true);
}

static void test_generator_threads(void) {
  const long n = (1 << 20) + 7; /* 5 chunks, the last partial */
  t1_spec s;
  generator_spec("(i % 1024) * 0.25 + i // 3", "float", n, &s);
  float *f = malloc((size_t)n * sizeof *f);
  CHECK(t1_fill_data(&s, &s.args[0].data, s.args[0].path, &s.args[0], f) == VKOCC_OK, "fill: %s", vkocc_last_error());
  long wrong = 0;
  for (long i = 0; i < n; i++) wrong += f[i] != (float)((double)(i % 1024) * 0.25 + (double)(i / 3));
  CHECK(wrong == 0, "%ld of %ld float elements differ from the expression", wrong, n);
  free(f);
  t1_free(&s);
  generator_spec("i * 2654435761 % 4294967296", "uint32", n, &s);
  uint32_t *u = malloc((size_t)n * sizeof *u);
  CHECK(t1_fill_data(&s, &s.args[0].data, s.args[0].path, &s.args[0], u) == VKOCC_OK, "fill: %s", vkocc_last_error());
  wrong = 0;
  for (long i = 0; i < n; i++) wrong += u[i] != (uint32_t)((uint64_t)i * 2654435761u % 4294967296u);
  CHECK(wrong == 0, "%ld of %ld uint32 elements differ from the expression", wrong, n);
  t1_free(&s);
  /* i = 700001 and every later one fail: the message names the first, whichever thread met a later one first */
  generator_spec("1 // (700001 - i) if i <= 700001 else 1 // (i - i)", "uint32", n, &s);
  vkocc_status st0 = t1_fill_data(&s, &s.args[0].data, s.args[0].path, &s.args[0], u);
  CHECK(st0 == VKOCC_ERROR_USAGE && strstr(vkocc_last_error(), "(at i = 700001)"), "element by element: %s", vkocc_last_error());
  t1_free(&s);
  /* the same inside the subset a block takes at once: the failing block is evaluated element by element */
  generator_spec("1 // (700001 - i)", "uint32", n, &s);
  vkocc_status st = t1_fill_data(&s, &s.args[0].data, s.args[0].path, &s.args[0], u);
  const char *msg = vkocc_last_error();
  CHECK(st == VKOCC_ERROR_USAGE, "a failing generator: %d", st);
  CHECK_CONTAINS(msg, "(at i = 700001)");
  CHECK_CONTAINS(msg, "division by zero");
  free(u);
  t1_free(&s);
}

/* MaxComputeWorkGroupInvocations and friends: names of expressions, evaluated once the device is known */
static void test_device_limits(void) {
  texpr_scope none = {0}, dev = {.allow_device = true};
  texpr *e;
  char err[256] = "";
  CHECK(!texpr_parse("MaxComputeSharedMemorySize // 2", &none, &e, err, sizeof err), "a device limit outside its scope");
  CHECK(texpr_parse("MaxComputeSharedMemorySize // 2 + SubgroupArithmetic", &dev, &e, err, sizeof err), "parse: %s", err);
  CHECK(texpr_uses(e, NULL) & TEXPR_USES_DEVICE, "uses the device");
  const int64_t limits[TEXPR_NDEVICE] = {128, 1024, 49152, 65535, 1};
  texpr_env env = {.device = limits}, nodev = {0};
  texpr_value v;
  CHECK(texpr_eval(e, &env, &v, err, sizeof err) && v.i == 24577, "value %lld: %s", (long long)v.i, err);
  CHECK(!texpr_eval(e, &nodev, &v, err, sizeof err) && strstr(err, "not known here"), "without a device: %s", err);
  texpr_free(e);
  /* a spec whose first condition is the device's: left out without the device, applied with it */
  char *text = strdup(spec_text), *at = strstr(text, "TX * TY <= 128");
  const char *limit = "TX*TY<=MaxComputeWorkGroupInvocations";
  char buf[4096];
  snprintf(buf, sizeof buf, "%.*s%s%s", (int)(at - text), text, limit, at + strlen("TX * TY <= 128"));
  free(text);
  tu_run run = {0};
  CHECK(t1_parse(buf, strlen(buf), "spec.json", ".", false, &run.spec) == VKOCC_OK, "parse: %s", vkocc_last_error());
  CHECK(run.spec.uses_device && run.spec.conds[0].uses_device && !run.spec.conds[1].uses_device, "device use");
  CHECK(tu_begin(&run) == VKOCC_OK, "begin: %s", vkocc_last_error());
  CHECK_EQ_U(run.space.count, 32);
  CHECK(tu_bind_device(&run, limits) == VKOCC_OK, "bind: %s", vkocc_last_error());
  CHECK_EQ_U(run.space.count, 26); /* TX * TY <= 128, as with the number written */
  CHECK(run.space.by_cond[0] == 6 && run.space.by_cond[1] == 0, "counted by condition");
  run.r[0].measured = true;
  CHECK(tu_bind_device(&run, limits) == VKOCC_OK, "the same device again: nothing to redo");
  run.spec.has_device = false;
  CHECK(tu_bind_device(&run, limits) == VKOCC_ERROR_USAGE, "a device given after results");
  tu_run_free(&run);
}

int main(void) {
  test_expr();
  test_device_limits();
  test_reader();
  test_P_condition_error();
  test_eval_range();
  test_generator_threads();
  test_bad();
  return check_report();
}
