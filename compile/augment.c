/* SPIR-V walker and augmentation. The insertion is small and fixed, so it is written as words here rather
 * than through an optimizer framework: types the module already has are reused (duplicate non-aggregate
 * types are invalid SPIR-V), everything else gets fresh ids from the bound. */
#include "array.h"
#include "compile.h"
#include "util.h"
#include <vulkan/vulkan.h> /* the types of the module contract and reflection: no device here */
#include <math.h>
#include <spirv.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- module scan */

#define MAXSPEC 256
typedef struct {
  const uint32_t *w;
  size_t n;
  uint32_t bound;
  const char *name;
  /* chosen entry */
  size_t entry_at;           /* word index of its OpEntryPoint */
  uint32_t entry_fn;
  uint32_t entry_name_words; /* words of the literal name */
  char entry[128];
} module;

static uint32_t op_of(uint32_t w) { return w & 0xFFFFu; }
static uint32_t len_of(uint32_t w) { return w >> 16; }

/* Header and instruction lengths; every later pass may then trust them. */
static vkocc_status check_stream(const uint32_t *w, size_t n, const char *name, module *m) {
  memset(m, 0, sizeof *m);
  if (n < 5 || w[0] != SpvMagicNumber)
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s: not a SPIR-V module (%s)", name,
                      n < 5 ? "shorter than the 5-word header" : "wrong magic number");
  if (w[1] < 0x10000 || w[1] > 0x10600)
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s: SPIR-V version 0x%x is not one vkocc knows (1.0..1.6)", name, w[1]);
  for (size_t i = 5; i < n;) {
    uint32_t len = len_of(w[i]);
    if (len == 0 || i + len > n)
      return vkocc_fail(VKOCC_ERROR_USAGE, "%s: SPIR-V truncated or corrupt at word %zu (instruction of %u words, "
                        "%zu left)", name, i, len, n - i);
    i += len;
  }
  /* every table of the walker (and SPIRV-Cross's) is sized by the bound: a module of a few words that
   * claims 4 billion ids must not make them allocate 16 GiB */
  if (w[3] > VKOCC_SPIRV_MAX_BOUND)
    return vkocc_fail(VKOCC_ERROR_UNSUPPORTED, "%s: SPIR-V id bound %u is above the %u ids vkocc handles", name, w[3],
                      VKOCC_SPIRV_MAX_BOUND);
  m->w = w;
  m->n = n;
  m->bound = w[3];
  m->name = name;
  return VKOCC_OK;
}

static vkocc_status find_entry(module *m, const char *entry) {
  uint32_t count = 0, compute = 0;
  char others[256] = "";
  for (size_t i = 5; i < m->n; i += len_of(m->w[i])) {
    if (op_of(m->w[i]) != SpvOpEntryPoint) continue;
    const uint32_t *x = m->w + i;
    uint32_t len = len_of(x[0]);
    if (len < 4) return vkocc_fail(VKOCC_ERROR_USAGE, "%s: OpEntryPoint at word %zu is too short", m->name, i);
    const char *nm = (const char *)(x + 3);
    size_t maxc = (len - 3) * 4;
    size_t nl = strnlen(nm, maxc);
    if (nl == maxc) return vkocc_fail(VKOCC_ERROR_USAGE, "%s: entry point name not terminated", m->name);
    count++;
    bool is_compute = x[1] == SpvExecutionModelGLCompute;
    size_t ol = strlen(others);
    if (ol + nl + 4 < sizeof others) snprintf(others + ol, sizeof others - ol, "%s%s", ol ? ", " : "", nm);
    bool want = entry && *entry ? !strcmp(nm, entry) : true;
    if (!want) continue;
    if (!is_compute) {
      if (entry && *entry)
        return vkocc_fail(VKOCC_ERROR_USAGE, "%s: entry point '%s' is not a compute shader (execution model %u)",
                          m->name, nm, x[1]);
      continue;
    }
    compute++;
    if (compute == 1 || !strcmp(nm, "main")) {
      if (nl >= sizeof m->entry) /* never truncated: a shorter name would be another entry point */
        return vkocc_fail(VKOCC_ERROR_UNSUPPORTED, "%s: the entry point's name is %zu bytes long; vkocc handles names of "
                          "up to %zu bytes", m->name, nl, sizeof m->entry - 1);
      m->entry_at = i;
      m->entry_fn = x[2];
      m->entry_name_words = (uint32_t)(nl / 4 + 1);
      snprintf(m->entry, sizeof m->entry, "%s", nm);
    }
  }
  if (!m->entry_at) {
    if (entry && *entry)
      return vkocc_fail(VKOCC_ERROR_USAGE, "%s: no entry point '%s' (the module has: %s)", m->name, entry,
                        count ? others : "none");
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s: no compute entry point (the module has: %s); vkocc measures compute "
                      "shaders only", m->name, count ? others : "none");
  }
  if (compute > 1 && !(entry && *entry) && strcmp(m->entry, "main"))
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s: several compute entry points (%s): choose one with --entry", m->name,
                      others);
  return VKOCC_OK;
}

/* ---------------------------------------------------------------- constant evaluation */

typedef struct {
  uint32_t *val;     /* by id: value of scalar integer/bool constants */
  uint8_t *known;    /* by id: 1 when val holds it */
  const uint32_t **def; /* by id: its defining instruction (types, constants, variables) */
  uint32_t *spec_id; /* by id: SpecId + 1, 0 when none */
} consts;

static void consts_free(consts *c) { free(c->val); free(c->known); free(c->def); free(c->spec_id); }

static bool eval_op(uint32_t op, uint32_t a, uint32_t b, uint32_t *r) {
  switch (op) {
  case SpvOpIAdd: *r = a + b; return true;
  case SpvOpISub: *r = a - b; return true;
  case SpvOpIMul: *r = a * b; return true;
  case SpvOpUDiv: if (!b) return false; *r = a / b; return true;
  case SpvOpSDiv: if (!b) return false; *r = (uint32_t)((int32_t)a / (int32_t)b); return true;
  case SpvOpUMod: if (!b) return false; *r = a % b; return true;
  case SpvOpShiftLeftLogical: *r = b < 32 ? a << b : 0; return true;
  case SpvOpShiftRightLogical: *r = b < 32 ? a >> b : 0; return true;
  case SpvOpBitwiseAnd: *r = a & b; return true;
  case SpvOpBitwiseOr: *r = a | b; return true;
  case SpvOpBitwiseXor: *r = a ^ b; return true;
  case SpvOpIEqual: *r = a == b; return true;
  case SpvOpINotEqual: *r = a != b; return true;
  case SpvOpULessThan: *r = a < b; return true;
  case SpvOpUGreaterThanEqual: *r = a >= b; return true;
  default: return false;
  }
}

static vkocc_status eval_consts(const module *m, const vkocc_spec_value *spec, uint32_t nspec, consts *c) {
  c->val = util_xcalloc(m->bound + 1, 4);
  c->known = util_xcalloc(m->bound + 1, 1);
  c->def = util_xcalloc(m->bound + 1, sizeof *c->def);
  c->spec_id = util_xcalloc(m->bound + 1, 4);
  for (size_t i = 5; i < m->n; i += len_of(m->w[i])) {
    const uint32_t *x = m->w + i;
    if (op_of(x[0]) == SpvOpDecorate && x[2] == SpvDecorationSpecId && len_of(x[0]) >= 4 && x[1] < m->bound)
      c->spec_id[x[1]] = x[3] + 1;
  }
  for (uint32_t k = 0; k < nspec; k++) {
    bool found = false;
    for (uint32_t id = 0; id < m->bound && !found; id++) found = c->spec_id[id] == spec[k].id + 1;
    if (!found)
      return vkocc_fail(VKOCC_ERROR_USAGE, "%s: no specialization constant with ID %u (--spec %u=...)", m->name,
                        spec[k].id, spec[k].id);
  }
  for (size_t i = 5; i < m->n; i += len_of(m->w[i])) {
    const uint32_t *x = m->w + i;
    uint32_t op = op_of(x[0]), len = len_of(x[0]);
    uint32_t rid = 0;
    switch (op) {
    case SpvOpTypeVoid: case SpvOpTypeBool: case SpvOpTypeInt: case SpvOpTypeFloat: case SpvOpTypeStruct:
    case SpvOpTypeImage: case SpvOpTypeSampler: case SpvOpTypeSampledImage:
    case SpvOpTypeRuntimeArray: case SpvOpTypeFunction:
      if (len >= 2) rid = x[1];
      break;
    case SpvOpTypeVector: case SpvOpTypeMatrix: case SpvOpTypeArray: case SpvOpTypePointer:
      if (len >= 2) rid = x[1];
      break;
    case SpvOpConstant: case SpvOpSpecConstant: case SpvOpConstantTrue: case SpvOpConstantFalse:
    case SpvOpSpecConstantTrue: case SpvOpSpecConstantFalse: case SpvOpConstantComposite:
    case SpvOpSpecConstantComposite: case SpvOpSpecConstantOp: case SpvOpConstantNull: case SpvOpVariable:
      if (len >= 3) rid = x[2];
      break;
    }
    if (!rid || rid >= m->bound) continue;
    c->def[rid] = x;
    uint32_t v = 0;
    bool ok = true;
    switch (op) {
    case SpvOpConstant: case SpvOpSpecConstant: v = len >= 4 ? x[3] : 0; break;
    case SpvOpConstantTrue: case SpvOpSpecConstantTrue: v = 1; break;
    case SpvOpConstantFalse: case SpvOpSpecConstantFalse: case SpvOpConstantNull: v = 0; break;
    case SpvOpSpecConstantOp:
      if (len >= 6 && x[4] < m->bound && x[5] < m->bound && c->known[x[4]] && c->known[x[5]])
        ok = eval_op(x[3], c->val[x[4]], c->val[x[5]], &v);
      else if (len == 7 && x[3] == SpvOpSelect && c->known[x[4]] && c->known[x[5]] && c->known[x[6]])
        v = c->val[x[4]] ? c->val[x[5]] : c->val[x[6]];
      else ok = false;
      break;
    default: ok = false;
    }
    if (c->spec_id[rid] && (op == SpvOpSpecConstant || op == SpvOpSpecConstantTrue || op == SpvOpSpecConstantFalse)) {
      for (uint32_t k = 0; k < nspec; k++) {
        if (spec[k].id + 1 != c->spec_id[rid]) continue;
        const uint32_t *t = x[1] < m->bound ? c->def[x[1]] : NULL;
        if (t && op_of(t[0]) == SpvOpTypeFloat) {
          float f = spec[k].value > 3.4e38 ? 3.4e38f : spec[k].value < -3.4e38 ? -3.4e38f : (float)spec[k].value;
          memcpy(&v, &f, 4);
        } else if (op != SpvOpSpecConstant) v = spec[k].value != 0;
        else {
          /* an integer constant takes a whole number in its type's range (never a value that wraps) */
          double val = spec[k].value;
          bool sgn = t && op_of(t[0]) == SpvOpTypeInt && len_of(t[0]) >= 4 && t[3];
          uint32_t bits = t && op_of(t[0]) == SpvOpTypeInt && len_of(t[0]) >= 3 ? t[2] : 32;
          double lo = sgn ? -ldexp(1, (int)bits - 1) : 0, hi = sgn ? ldexp(1, (int)bits - 1) - 1 : ldexp(1, (int)bits) - 1;
          if (bits > 32) lo = sgn ? -9223372036854775808.0 : 0, hi = sgn ? 9223372036854775807.0 : 9223372036854775807.0;
          if (!(val >= lo && val <= hi && val == floor(val))) {
            vkocc_status st = vkocc_fail(VKOCC_ERROR_USAGE, "%s: specialization constant %u = %g is not %s %u-bit "
                                         "integer (%.0f..%.0f)", m->name, spec[k].id, val,
                                         sgn ? "a signed" : "an unsigned", bits, lo, hi);
            return st;
          }
          v = (uint32_t)(int64_t)val;
        }
      }
    }
    if (ok) { c->val[rid] = v; c->known[rid] = 1; }
  }
  return VKOCC_OK;
}

/* Sizes saturate at SAT (far above any device's shared memory): nested arrays sized by specialization
 * constants would otherwise wrap around 2^64 and read as a few bytes. */
#define SAT ((uint64_t)1 << 40)
static uint64_t sat_mul(uint64_t a, uint64_t b) { return a && b > SAT / a ? SAT : a * b > SAT ? SAT : a * b; }
static uint64_t sat_add(uint64_t a, uint64_t b) { return a + b > SAT ? SAT : a + b; }
static uint64_t sat_align(uint64_t off, uint32_t a) { return a <= 1 ? off : off >= SAT ? SAT : (off + a - 1) / a * a; }

/* Size and alignment of a type in Workgroup storage, naturally aligned (what drivers allocate, up to
 * padding they may add). false when an array length cannot be evaluated. */
static bool type_size(const module *m, const consts *c, uint32_t id, int depth, uint64_t *size, uint32_t *align) {
  if (id >= m->bound || !c->def[id] || depth > 32) return false;
  const uint32_t *t = c->def[id];
  uint32_t op = op_of(t[0]);
  uint64_t s;
  uint32_t a;
  switch (op) {
  case SpvOpTypeBool: *size = 4; *align = 4; return true;
  case SpvOpTypeInt: case SpvOpTypeFloat:
    if (len_of(t[0]) < 3) return false;
    *size = t[2] / 8;
    *align = t[2] / 8 ? t[2] / 8 : 1;
    return true;
  case SpvOpTypeVector: case SpvOpTypeMatrix:
    if (len_of(t[0]) < 4 || !type_size(m, c, t[2], depth + 1, &s, &a)) return false;
    *size = sat_mul(s, t[3]);
    *align = op == SpvOpTypeVector ? a * (t[3] == 3 ? 4 : t[3]) : a;
    if (op == SpvOpTypeMatrix) *align = a;
    return true;
  case SpvOpTypeArray:
    if (len_of(t[0]) < 4 || !type_size(m, c, t[2], depth + 1, &s, &a) || t[3] >= m->bound || !c->known[t[3]])
      return false;
    *size = sat_mul(s, c->val[t[3]]);
    *align = a;
    return true;
  case SpvOpTypeStruct: {
    uint64_t off = 0;
    uint32_t al = 1;
    for (uint32_t k = 2; k < len_of(t[0]); k++) {
      if (!type_size(m, c, t[k], depth + 1, &s, &a)) return false;
      off = sat_add(sat_align(off, a), s);
      if (a > al) al = a;
    }
    *size = sat_align(off, al);
    *align = al;
    return true;
  }
  default: return false;
  }
}

vkocc_status compile_spirv_inspect(const uint32_t *spv, size_t words, const char *name, const char *entry,
                                 const vkocc_spec_value *spec, uint32_t nspec, compile_spirv_info *info) {
  memset(info, 0, sizeof *info);
  module m;
  vkocc_status s = check_stream(spv, words, name, &m);
  if (!s) s = find_entry(&m, entry); /* before validation: "no compute entry point" beats a validator message */
  if (!s) s = compile_spirv_validate(spv, words, name, "the module");
  if (s) return s;
  consts c;
  if ((s = eval_consts(&m, spec, nspec, &c))) { consts_free(&c); return s; }
  /* arrays sized by specialization constants: 0 (or negative) with the constants given is no array */
  for (size_t i = 5; i < m.n; i += len_of(m.w[i])) {
    const uint32_t *x = m.w + i;
    if (op_of(x[0]) != SpvOpTypeArray || len_of(x[0]) < 4 || x[3] >= m.bound || !c.known[x[3]]) continue;
    const uint32_t *lt = c.def[x[3]] && c.def[x[3]][1] < m.bound ? c.def[c.def[x[3]][1]] : NULL;
    bool is_signed = lt && op_of(lt[0]) == SpvOpTypeInt && len_of(lt[0]) >= 4 && lt[3];
    if (c.val[x[3]] == 0 || (is_signed && (int32_t)c.val[x[3]] < 0)) {
      uint32_t sid = c.spec_id[x[3]];
      int32_t len = (int32_t)c.val[x[3]];
      consts_free(&c);
      if (sid)
        return vkocc_fail(VKOCC_ERROR_USAGE, "%s: an array's length is %d with specialization constant %u as given "
                          "(an array needs at least one element)", name, len, sid - 1);
      return vkocc_fail(VKOCC_ERROR_USAGE, "%s: an array's length evaluates to %d with the specialization constants "
                        "given (an array needs at least one element)", name, len);
    }
  }
  info->version = spv[1];
  snprintf(info->entry, sizeof info->entry, "%s", m.entry);
  uint32_t used_sets[64] = {0}; /* sets 0..2047; any higher value still counts in max_set_plus1 */
  uint64_t max_set = 0;
  uint32_t wg_builtin = 0;
  for (size_t i = 5; i < m.n; i += len_of(m.w[i])) {
    const uint32_t *x = m.w + i;
    uint32_t op = op_of(x[0]), len = len_of(x[0]);
    if (op == SpvOpExecutionMode && len >= 6 && x[1] == m.entry_fn && x[2] == SpvExecutionModeLocalSize)
      info->wg[0] = x[3], info->wg[1] = x[4], info->wg[2] = x[5];
    if (op == SpvOpExecutionModeId && len >= 6 && x[1] == m.entry_fn && x[2] == SpvExecutionModeLocalSizeId)
      for (int k = 0; k < 3; k++) info->wg[k] = x[3 + k] < m.bound && c.known[x[3 + k]] ? c.val[x[3 + k]] : 0;
    if (op == SpvOpDecorate && len >= 4 && x[2] == SpvDecorationBuiltIn && x[3] == SpvBuiltInWorkgroupSize)
      wg_builtin = x[1];
    if (op == SpvOpDecorate && len >= 4 && x[2] == SpvDecorationDescriptorSet) {
      if (x[3] < 64 * 32) used_sets[x[3] / 32] |= 1u << (x[3] % 32);
      if ((uint64_t)x[3] + 1 > max_set) max_set = (uint64_t)x[3] + 1;
    }
  }
  /* The WorkgroupSize built-in (local_size_x_id in GLSL) overrides the execution mode. */
  if (wg_builtin && wg_builtin < m.bound && c.def[wg_builtin] && len_of(c.def[wg_builtin][0]) >= 6) {
    const uint32_t *x = c.def[wg_builtin];
    for (int k = 0; k < 3; k++) info->wg[k] = x[3 + k] < m.bound && c.known[x[3 + k]] ? c.val[x[3 + k]] : 0;
  }
  if (!info->wg[0] || !info->wg[1] || !info->wg[2]) {
    consts_free(&c);
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s: the workgroup size of '%s' could not be determined", name, m.entry);
  }
  info->first_free_set = 64 * 32;
  for (uint32_t set = 0; set < 64 * 32; set++)
    if (!(used_sets[set / 32] >> (set % 32) & 1)) { info->first_free_set = set; break; }
  info->max_set_plus1 = max_set > UINT32_MAX ? UINT32_MAX : (uint32_t)max_set;
  /* Shared memory: Workgroup variables. A module may hold variables another entry point uses; in SPIR-V
   * before 1.4 the interface does not list them, so all are counted (an overestimate only then). */
  info->shared_exact = true;
  uint64_t total = 0;
  for (size_t i = 5; i < m.n; i += len_of(m.w[i])) {
    const uint32_t *x = m.w + i;
    if (op_of(x[0]) != SpvOpVariable || len_of(x[0]) < 4 || x[3] != SpvStorageClassWorkgroup) continue;
    const uint32_t *p = x[1] < m.bound ? c.def[x[1]] : NULL;
    uint64_t sz;
    uint32_t al;
    if (p && op_of(p[0]) == SpvOpTypePointer && type_size(&m, &c, p[3], 0, &sz, &al))
      total = sat_add(sat_align(total, al), sz);
    else info->shared_exact = false;
  }
  info->shared_bytes = total > UINT32_MAX ? UINT32_MAX : (uint32_t)total;
  consts_free(&c);
  return VKOCC_OK;
}

/* ---------------------------------------------------------------- word buffers */

typedef struct { uint32_t *w; size_t n, cap; } wbuf;

static void put(wbuf *b, uint32_t v) {
  util_array_room(b->w, b->n, b->cap, 256);
  b->w[b->n++] = v;
}
static void putn(wbuf *b, const uint32_t *v, size_t n) { for (size_t i = 0; i < n; i++) put(b, v[i]); }
static void ins(wbuf *b, uint32_t op, uint32_t n, ...) {
  va_list ap;
  va_start(ap, n);
  put(b, (n + 1) << 16 | op);
  for (uint32_t i = 0; i < n; i++) put(b, va_arg(ap, uint32_t));
  va_end(ap);
}
static void ins_str(wbuf *b, uint32_t op, const char *s) {
  uint32_t nw = (uint32_t)(strlen(s) / 4 + 1);
  put(b, (nw + 1) << 16 | op);
  uint32_t tmp[16] = {0};
  memcpy(tmp, s, strlen(s));
  putn(b, tmp, nw);
}

/* ---------------------------------------------------------------- augmentation */

typedef struct {
  module *m;
  uint32_t next_id;
  wbuf types, decos;
  const uint32_t **def;
} aug;

static uint32_t fresh(aug *a) { return a->next_id++; }

/* Finds a type instruction with these operands (after the result id) or adds one. */
static uint32_t type_get(aug *a, uint32_t op, uint32_t n, const uint32_t *operands) {
  for (size_t i = 5; i < a->m->n; i += len_of(a->m->w[i])) {
    const uint32_t *x = a->m->w + i;
    if (op_of(x[0]) == op && len_of(x[0]) == n + 2 && (!n || !memcmp(x + 2, operands, n * 4))) return x[1];
  }
  for (size_t i = 0; i < a->types.n; i += len_of(a->types.w[i])) {
    const uint32_t *x = a->types.w + i;
    if (op_of(x[0]) == op && len_of(x[0]) == n + 2 && (!n || !memcmp(x + 2, operands, n * 4))) return x[1];
  }
  uint32_t id = fresh(a);
  put(&a->types, (n + 2) << 16 | op);
  put(&a->types, id);
  if (n) putn(&a->types, operands, n);
  return id;
}
static uint32_t t0(aug *a, uint32_t op) { return type_get(a, op, 0, NULL); }
static uint32_t t2(aug *a, uint32_t op, uint32_t x, uint32_t y) { uint32_t o[2] = {x, y}; return type_get(a, op, 2, o); }
static uint32_t konst(aug *a, uint32_t type, uint32_t v) {
  uint32_t id = fresh(a);
  ins(&a->types, SpvOpConstant, 3, type, id, v);
  return id;
}

typedef struct { uint32_t var, ptr_elem; bool is_signed, is_vec, in_interface; } builtin_var;

/* An Input variable decorated with the built-in: reused when the module has one (a second would be
 * invalid in Vulkan), else added. */
static void builtin_get(aug *a, uint32_t which, bool vec3, builtin_var *out) {
  module *m = a->m;
  memset(out, 0, sizeof *out);
  for (size_t i = 5; i < m->n; i += len_of(m->w[i])) {
    const uint32_t *x = m->w + i;
    if (op_of(x[0]) == SpvOpDecorate && len_of(x[0]) >= 4 && x[2] == SpvDecorationBuiltIn && x[3] == which &&
        x[1] < m->bound && a->def[x[1]] && op_of(a->def[x[1]][0]) == SpvOpVariable) {
      out->var = x[1];
      const uint32_t *p = a->def[a->def[x[1]][1]];
      const uint32_t *t = a->def[p[3]];
      out->is_vec = op_of(t[0]) == SpvOpTypeVector;
      const uint32_t *e = out->is_vec ? a->def[t[2]] : t;
      out->is_signed = e[3] != 0;
      break;
    }
  }
  uint32_t uint_t = t2(a, SpvOpTypeInt, 32, 0);
  if (!out->var) {
    uint32_t ty = vec3 ? t2(a, SpvOpTypeVector, uint_t, 3) : uint_t;
    uint32_t ptr = t2(a, SpvOpTypePointer, SpvStorageClassInput, ty);
    out->var = fresh(a);
    out->is_vec = vec3;
    ins(&a->types, SpvOpVariable, 3, ptr, out->var, SpvStorageClassInput);
    ins(&a->decos, SpvOpDecorate, 3, out->var, SpvDecorationBuiltIn, which);
  }
  /* Is it in the entry point's interface already? */
  const uint32_t *e = m->w + m->entry_at;
  for (uint32_t k = 3 + m->entry_name_words; k < len_of(e[0]); k++)
    if (e[k] == out->var) out->in_interface = true;
}

/* Loads the x component (or the scalar) of a built-in as uint. */
static uint32_t load_builtin_u32(aug *a, wbuf *f, const builtin_var *b) {
  uint32_t uint_t = t2(a, SpvOpTypeInt, 32, 0);
  uint32_t int_t = b->is_signed ? t2(a, SpvOpTypeInt, 32, 1) : uint_t;
  uint32_t load_t = b->is_vec ? t2(a, SpvOpTypeVector, int_t, 3) : int_t;
  uint32_t v = fresh(a);
  ins(f, SpvOpLoad, 3, load_t, v, b->var);
  if (b->is_vec) {
    uint32_t x = fresh(a);
    ins(f, SpvOpCompositeExtract, 4, int_t, x, v, 0);
    v = x;
  }
  if (b->is_signed) {
    uint32_t u = fresh(a);
    ins(f, SpvOpBitcast, 3, uint_t, u, v);
    v = u;
  }
  return v;
}

vkocc_status compile_spirv_augment(const uint32_t *spv, size_t words, const char *name, const char *entry,
                                 uint32_t set, uint32_t **out, size_t *out_words) {
  return compile_spirv_augment_variant(spv, words, name, entry, set, compile_aug_resolve(VKOCC_AUG_AUTO, 0), out,
                                     out_words);
}


/* The variants: how the sleeping loop does its work between clock reads (the record and the barrier are the
 * same in all; every one bounds its loop by the time and by params[MAX_ROUNDS]). */
static const struct { const char *name; uint32_t steps; bool rolled; } variants[VKOCC_AUG_VARIANTS] = {
    [VKOCC_AUG_COMPACT] = {"compact", 32, false},   /* 32 ALU steps per clock read */
    [VKOCC_AUG_UNROLLED] = {"unrolled", 128, false}, /* the same 128 steps written out (vkocc's earlier default) */
    [VKOCC_AUG_SMALL] = {"small", 8, false},         /* 8 steps per clock read */
    [VKOCC_AUG_CLOCK_ONLY] = {"clock-only", 0, false}, /* no work between clock reads: the fewest live values */
    [VKOCC_AUG_ROLLED] = {"rolled", 128, true}       /* 128 steps as an inner loop (lavapipe cuts it short) */
};

const char *compile_aug_variant_name(uint32_t v) {
  return v < VKOCC_AUG_VARIANTS ? variants[v].name : v == VKOCC_AUG_AUTO ? "auto" : "?";
}

uint32_t compile_aug_resolve(uint32_t variant, uint32_t device_type) {
  if (variant < VKOCC_AUG_VARIANTS) return variant;
  return device_type == 4 /* VK_PHYSICAL_DEVICE_TYPE_CPU */ ? VKOCC_AUG_UNROLLED : VKOCC_AUG_COMPACT;
}

uint32_t compile_aug_rounds_scale(uint32_t v, uint32_t device_type) {
  if (device_type == 4 || v >= VKOCC_AUG_VARIANTS) return 1;
  return variants[v].steps ? 128 / variants[v].steps : 128;
}

vkocc_status compile_aug_parse(const char *name, uint32_t *variant) {
  *variant = VKOCC_AUG_AUTO;
  if (!name || !strcmp(name, "auto")) return VKOCC_OK;
  for (uint32_t v = 0; v < VKOCC_AUG_VARIANTS; v++)
    if (!strcmp(name, variants[v].name)) {
      *variant = v;
      return VKOCC_OK;
    }
  return vkocc_fail(VKOCC_ERROR_USAGE, "augmentation '%s': expected auto (the default: compact on GPUs, unrolled on "
                    "CPU devices), compact, unrolled, small, clock-only or rolled", name);
}

vkocc_status vkocc_augmentation_check(const char *name) {
  vkocc_clear_error();
  uint32_t v;
  return compile_aug_parse(name, &v);
}

vkocc_status compile_spirv_augment_variant(const uint32_t *spv, size_t words, const char *name, const char *entry,
                                         uint32_t set, uint32_t variant, uint32_t **out, size_t *out_words) {
  *out = NULL;
  *out_words = 0;
  if (variant >= VKOCC_AUG_VARIANTS)
    return vkocc_fail(VKOCC_ERROR_USAGE, "augmentation variant %u is not one of vkocc's (0..%u)", variant,
                      VKOCC_AUG_VARIANTS - 1);
  module m;
  vkocc_status s = check_stream(spv, words, name, &m);
  if (!s) s = find_entry(&m, entry);
  if (s) return s;
  aug a = {.m = &m, .next_id = m.bound};
  a.def = util_xcalloc(m.bound + 1, sizeof *a.def);
  bool has_clock_cap = false, has_clock_ext = false, has_sb_ext = false;
  for (size_t i = 5; i < m.n; i += len_of(m.w[i])) {
    const uint32_t *x = m.w + i;
    uint32_t op = op_of(x[0]), len = len_of(x[0]);
    if (op == SpvOpCapability && x[1] == SpvCapabilityShaderClockKHR) has_clock_cap = true;
    if (op == SpvOpExtension && !strcmp((const char *)(x + 1), "SPV_KHR_shader_clock")) has_clock_ext = true;
    if (op == SpvOpExtension && !strcmp((const char *)(x + 1), "SPV_KHR_storage_buffer_storage_class"))
      has_sb_ext = true;
    uint32_t rid = 0;
    if (op >= SpvOpTypeVoid && op <= SpvOpTypeFunction && len >= 2) rid = x[1];
    if (op == SpvOpVariable && len >= 3) rid = x[2];
    if (rid && rid < m.bound) a.def[rid] = x;
  }
  bool v14 = m.w[1] >= 0x10400; /* interfaces list every global variable from 1.4 on */

  /* Types and constants */
  uint32_t void_t = t0(&a, SpvOpTypeVoid); (void)void_t;
  uint32_t bool_t = t0(&a, SpvOpTypeBool);
  uint32_t uint_t = t2(&a, SpvOpTypeInt, 32, 0);
  uint32_t v2u_t = t2(&a, SpvOpTypeVector, uint_t, 2);
  uint32_t ptr_u = t2(&a, SpvOpTypePointer, SpvStorageClassStorageBuffer, uint_t);
  /* A fresh runtime array and struct (aggregates may repeat): their decorations stay ours alone. */
  uint32_t rta = fresh(&a), st = fresh(&a);
  ins(&a.types, SpvOpTypeRuntimeArray, 2, rta, uint_t);
  ins(&a.types, SpvOpTypeStruct, 2, st, rta);
  uint32_t ptr_st = t2(&a, SpvOpTypePointer, SpvStorageClassStorageBuffer, st);
  uint32_t var = fresh(&a);
  ins(&a.types, SpvOpVariable, 3, ptr_st, var, SpvStorageClassStorageBuffer);
  ins(&a.decos, SpvOpDecorate, 3, rta, SpvDecorationArrayStride, 4);
  ins(&a.decos, SpvOpDecorate, 2, st, SpvDecorationBlock);
  ins(&a.decos, SpvOpMemberDecorate, 4, st, 0, SpvDecorationOffset, 0);
  ins(&a.decos, SpvOpDecorate, 3, var, SpvDecorationDescriptorSet, set);
  ins(&a.decos, SpvOpDecorate, 3, var, SpvDecorationBinding, 0);
  builtin_var wgid, lidx;
  builtin_get(&a, SpvBuiltInWorkgroupId, true, &wgid);
  builtin_get(&a, SpvBuiltInLocalInvocationIndex, false, &lidx);
  uint32_t c[9];
  for (uint32_t k = 0; k < 9; k++) c[k] = konst(&a, uint_t, k);
  uint32_t c_scope = konst(&a, uint_t, SpvScopeDevice);
  uint32_t c_sem = konst(&a, uint_t, SpvMemorySemanticsAcquireReleaseMask | SpvMemorySemanticsWorkgroupMemoryMask);
  uint32_t c_mul = konst(&a, uint_t, 1664525u), c_add = konst(&a, uint_t, 1013904223u), c_13 = konst(&a, uint_t, 13);
  uint32_t c_true = fresh(&a), c_false = fresh(&a);
  ins(&a.types, SpvOpConstantTrue, 2, bool_t, c_true);
  ins(&a.types, SpvOpConstantFalse, 2, bool_t, c_false);

  /* The estimator, emitted at the top of the entry function (after its first block's OpVariables). */
  wbuf f = {0};
  uint32_t L_est = fresh(&a), L_sleep = fresh(&a), L_head = fresh(&a), L_cond = fresh(&a), L_body = fresh(&a),
           L_cont = fresh(&a), L_merge = fresh(&a), L_est_end = fresh(&a);
  /* entry block tail: flag = data[MODE]; if (flag != 0) estimator else user's first block (L_user) */
  uint32_t L_user = 0; /* the user's first label, filled in while copying */
  wbuf head = {0};
  uint32_t p_mode = fresh(&a), mode = fresh(&a), is_est = fresh(&a);
  ins(&head, SpvOpAccessChain, 5, ptr_u, p_mode, var, c[0], c[VKOCC_AUG_MODE]);
  ins(&head, SpvOpLoad, 3, uint_t, mode, p_mode);
  ins(&head, SpvOpINotEqual, 4, bool_t, is_est, mode, c[0]);
  /* OpSelectionMerge and OpBranchConditional come when L_user is known. */

  ins(&f, SpvOpLabel, 1, L_est);
  uint32_t li = load_builtin_u32(&a, &f, &lidx);
  uint32_t is0 = fresh(&a);
  ins(&f, SpvOpIEqual, 4, bool_t, is0, li, c[0]);
  ins(&f, SpvOpSelectionMerge, 2, L_est_end, 0);
  ins(&f, SpvOpBranchConditional, 3, is0, L_sleep, L_est_end);

  ins(&f, SpvOpLabel, 1, L_sleep);
  uint32_t wgx = load_builtin_u32(&a, &f, &wgid);
  uint32_t prm[3], pp[3];
  const uint32_t which[3] = {VKOCC_AUG_SLEEP_TICKS, VKOCC_AUG_MAX_ROUNDS, VKOCC_AUG_KEY};
  for (int k = 0; k < 3; k++) {
    pp[k] = fresh(&a), prm[k] = fresh(&a);
    ins(&f, SpvOpAccessChain, 5, ptr_u, pp[k], var, c[0], c[which[k]]);
    ins(&f, SpvOpLoad, 3, uint_t, prm[k], pp[k]);
  }
  uint32_t tstart = fresh(&a);
  ins(&f, SpvOpReadClockKHR, 3, v2u_t, tstart, c_scope);
  uint32_t t0x = fresh(&a);
  ins(&f, SpvOpCompositeExtract, 4, uint_t, t0x, tstart, 0);
  ins(&f, SpvOpBranch, 1, L_head);

  /* loop header: r, x, t (last clock read) */
  uint32_t r = fresh(&a), x = fresh(&a), t = fresh(&a), r_next = fresh(&a), x_next = fresh(&a), t_now = fresh(&a);
  ins(&f, SpvOpLabel, 1, L_head);
  ins(&f, SpvOpPhi, 6, uint_t, r, c[0], L_sleep, r_next, L_cont);
  ins(&f, SpvOpPhi, 6, uint_t, x, prm[2], L_sleep, x_next, L_cont);
  ins(&f, SpvOpPhi, 6, v2u_t, t, tstart, L_sleep, t_now, L_cont);
  ins(&f, SpvOpLoopMerge, 3, L_merge, L_cont, 0);
  ins(&f, SpvOpBranch, 1, L_cond);

  uint32_t more = fresh(&a);
  ins(&f, SpvOpLabel, 1, L_cond);
  ins(&f, SpvOpULessThan, 4, bool_t, more, r, prm[1]);
  ins(&f, SpvOpBranchConditional, 3, more, L_body, L_merge);

  /* body: read the clock, leave when the sleep is over (32-bit difference of the low words: exact
   * across one wrap of the low word for sleeps < 2^32 ticks) */
  uint32_t tnx = fresh(&a), dt = fresh(&a), done = fresh(&a), rb = fresh(&a);
  ins(&f, SpvOpLabel, 1, L_body);
  ins(&f, SpvOpReadClockKHR, 3, v2u_t, t_now, c_scope);
  ins(&f, SpvOpCompositeExtract, 4, uint_t, tnx, t_now, 0);
  ins(&f, SpvOpISub, 4, uint_t, dt, tnx, t0x);
  ins(&f, SpvOpUGreaterThanEqual, 4, bool_t, done, dt, prm[0]);
  ins(&f, SpvOpIAdd, 4, uint_t, rb, r, c[1]);
  /* ALU steps per clock read, as in shaders/probe.comp (lavapipe ends loops after 65535 iterations, so each
   * must take time): written out (unrolled), or as an inner loop of a constant count (compact: the binary
   * stays small, so the driver compiles the user's code beside less of ours) */
  uint32_t steps = variants[variant].steps;
  bool rolled = variants[variant].rolled && steps > 0;
  uint32_t L_ih = 0, L_icond = 0, L_ib = 0, L_ic = 0, L_im = 0;
  if (rolled) L_ih = fresh(&a), L_icond = fresh(&a), L_ib = fresh(&a), L_ic = fresh(&a), L_im = fresh(&a);
  ins(&f, SpvOpBranchConditional, 3, done, L_merge, rolled ? L_ih : L_cont);
  if (rolled) {
    /* for (j = 0; j < steps; j++) y = step(y); the loop's own bound is the constant */
    uint32_t j = fresh(&a), y = fresh(&a), j_next = fresh(&a), y1 = fresh(&a), more_j = fresh(&a);
    uint32_t c_steps = konst(&a, uint_t, steps);
    ins(&f, SpvOpLabel, 1, L_ih);
    ins(&f, SpvOpPhi, 6, uint_t, j, c[0], L_body, j_next, L_ic);
    ins(&f, SpvOpPhi, 6, uint_t, y, x, L_body, y1, L_ic);
    ins(&f, SpvOpLoopMerge, 3, L_im, L_ic, 0);
    ins(&f, SpvOpBranch, 1, L_icond);
    ins(&f, SpvOpLabel, 1, L_icond);
    ins(&f, SpvOpULessThan, 4, bool_t, more_j, j, c_steps);
    ins(&f, SpvOpBranchConditional, 3, more_j, L_ib, L_im);
    ins(&f, SpvOpLabel, 1, L_ib);
    uint32_t m1 = fresh(&a), a1 = fresh(&a), s1 = fresh(&a);
    ins(&f, SpvOpIMul, 4, uint_t, m1, y, c_mul);
    ins(&f, SpvOpIAdd, 4, uint_t, a1, m1, c_add);
    ins(&f, SpvOpShiftRightLogical, 4, uint_t, s1, a1, c_13);
    ins(&f, SpvOpBitwiseXor, 4, uint_t, y1, a1, s1);
    ins(&f, SpvOpBranch, 1, L_ic);
    ins(&f, SpvOpLabel, 1, L_ic);
    ins(&f, SpvOpIAdd, 4, uint_t, j_next, j, c[1]);
    ins(&f, SpvOpBranch, 1, L_ih);
    ins(&f, SpvOpLabel, 1, L_im);
    ins(&f, SpvOpBranch, 1, L_cont);
    ins(&f, SpvOpLabel, 1, L_cont);
    ins(&f, SpvOpCopyObject, 3, uint_t, x_next, y);
  } else {
    ins(&f, SpvOpLabel, 1, L_cont);
    uint32_t cur = x;
    for (uint32_t k = 0; k < steps; k++) {
      uint32_t m1 = fresh(&a), a1 = fresh(&a), s1 = fresh(&a), x1 = k + 1 == steps ? x_next : fresh(&a);
      ins(&f, SpvOpIMul, 4, uint_t, m1, cur, c_mul);
      ins(&f, SpvOpIAdd, 4, uint_t, a1, m1, c_add);
      ins(&f, SpvOpShiftRightLogical, 4, uint_t, s1, a1, c_13);
      ins(&f, SpvOpBitwiseXor, 4, uint_t, x1, a1, s1);
      cur = x1;
    }
    if (!steps) ins(&f, SpvOpCopyObject, 3, uint_t, x_next, x);
  }
  ins(&f, SpvOpIAdd, 4, uint_t, r_next, r, c[1]);
  ins(&f, SpvOpBranch, 1, L_head);

  /* merge: from L_cond (bound reached: flag 2) or L_body (time reached) */
  uint32_t t_end = fresh(&a), ok = fresh(&a), iters = fresh(&a), flags = fresh(&a);
  ins(&f, SpvOpLabel, 1, L_merge);
  /* iterations: those completed, plus the one that read the clock when the time was reached */
  ins(&f, SpvOpPhi, 6, v2u_t, t_end, t, L_cond, t_now, L_body);
  ins(&f, SpvOpPhi, 6, bool_t, ok, c_false, L_cond, c_true, L_body);
  ins(&f, SpvOpPhi, 6, uint_t, iters, r, L_cond, rb, L_body);
  ins(&f, SpvOpSelect, 5, uint_t, flags, ok, c[1], c[3]);
  uint32_t base = fresh(&a), base8 = fresh(&a);
  ins(&f, SpvOpIMul, 4, uint_t, base, wgx, c[8]);
  ins(&f, SpvOpIAdd, 4, uint_t, base8, base, c[8]);
  uint32_t vals[8];
  uint32_t e[4];
  for (int k = 0; k < 2; k++) {
    e[2 * k] = fresh(&a), e[2 * k + 1] = fresh(&a);
    ins(&f, SpvOpCompositeExtract, 4, uint_t, e[2 * k], k ? t_end : tstart, 0);
    ins(&f, SpvOpCompositeExtract, 4, uint_t, e[2 * k + 1], k ? t_end : tstart, 1);
  }
  vals[0] = e[0], vals[1] = e[1], vals[2] = e[2], vals[3] = e[3], vals[5] = iters, vals[6] = x, vals[7] = c[0];
  vals[4] = flags;
  const int order[7] = {0, 1, 2, 3, 5, 6, 4}; /* flags last, as the probe writes them */
  for (int k = 0; k < 7; k++) {
    uint32_t idx = fresh(&a), p = fresh(&a);
    ins(&f, SpvOpIAdd, 4, uint_t, idx, base8, c[order[k]]);
    ins(&f, SpvOpAccessChain, 5, ptr_u, p, var, c[0], idx);
    ins(&f, SpvOpStore, 2, p, vals[order[k]]);
  }
  ins(&f, SpvOpBranch, 1, L_est_end);
  ins(&f, SpvOpLabel, 1, L_est_end);
  /* Every invocation waits here for invocation 0's sleep, so the whole workgroup stays resident as the
   * user's would: on the H100 warps that returned at once freed their slots, and wg 1024 read 32 per SM. */
  ins(&f, SpvOpControlBarrier, 3, c[SpvScopeWorkgroup], c[SpvScopeWorkgroup], c_sem);
  ins(&f, SpvOpReturn, 0);

  /* ---- emit */
  wbuf o = {0};
  putn(&o, m.w, 5);
  bool caps_done = false, decos_done = false, types_done = false;
  for (size_t i = 5; i < m.n;) {
    const uint32_t *xw = m.w + i;
    uint32_t op = op_of(xw[0]), len = len_of(xw[0]);
    if (!caps_done && op != SpvOpCapability) {
      if (!has_clock_cap) ins(&o, SpvOpCapability, 1, SpvCapabilityShaderClockKHR);
      if (!has_clock_ext) ins_str(&o, SpvOpExtension, "SPV_KHR_shader_clock");
      if (!has_sb_ext && m.w[1] < 0x10300) ins_str(&o, SpvOpExtension, "SPV_KHR_storage_buffer_storage_class");
      caps_done = true;
    }
    bool debug_or_deco = op == SpvOpCapability || op == SpvOpExtension || op == SpvOpExtInstImport ||
                         op == SpvOpMemoryModel || op == SpvOpEntryPoint || op == SpvOpExecutionMode ||
                         op == SpvOpExecutionModeId || op == SpvOpString || op == SpvOpSource ||
                         op == SpvOpSourceContinued || op == SpvOpSourceExtension || op == SpvOpName ||
                         op == SpvOpMemberName || op == SpvOpModuleProcessed || op == SpvOpDecorate ||
                         op == SpvOpMemberDecorate || op == SpvOpDecorationGroup || op == SpvOpGroupDecorate ||
                         op == SpvOpGroupMemberDecorate || op == SpvOpDecorateId || op == SpvOpDecorateString ||
                         op == SpvOpMemberDecorateString;
    if (!decos_done && !debug_or_deco) {
      putn(&o, a.decos.w, a.decos.n);
      decos_done = true;
    }
    if (!types_done && op == SpvOpFunction) {
      putn(&o, a.types.w, a.types.n);
      types_done = true;
    }
    if (i == m.entry_at) {
      /* the entry point with our variables added to its interface */
      uint32_t extra[3], ne = 0;
      if (v14) extra[ne++] = var;
      if (!wgid.in_interface) extra[ne++] = wgid.var;
      if (!lidx.in_interface) extra[ne++] = lidx.var;
      put(&o, (len + ne) << 16 | op);
      putn(&o, xw + 1, len - 1);
      putn(&o, extra, ne);
      i += len;
      continue;
    }
    if (op == SpvOpFunction && xw[2] == m.entry_fn) {
      putn(&o, xw, len);
      i += len;
      /* the first block: its label, then OpVariables (and debug lines) stay first in our new entry block */
      if (i >= m.n || op_of(m.w[i]) != SpvOpLabel) {
        free(o.w); free(f.w); free(head.w); free(a.types.w); free(a.decos.w); free(a.def);
        return vkocc_fail(VKOCC_ERROR_USAGE, "%s: entry function of '%s' has parameters or no body", name, m.entry);
      }
      L_user = m.w[i + 1];
      i += len_of(m.w[i]);
      uint32_t L_new = fresh(&a);
      ins(&o, SpvOpLabel, 1, L_new);
      while (i < m.n && (op_of(m.w[i]) == SpvOpVariable || op_of(m.w[i]) == SpvOpLine ||
                         op_of(m.w[i]) == SpvOpNoLine)) {
        putn(&o, m.w + i, len_of(m.w[i]));
        i += len_of(m.w[i]);
      }
      putn(&o, head.w, head.n);
      ins(&o, SpvOpSelectionMerge, 2, L_user, 0);
      ins(&o, SpvOpBranchConditional, 3, is_est, L_est, L_user);
      putn(&o, f.w, f.n);
      ins(&o, SpvOpLabel, 1, L_user);
      continue;
    }
    putn(&o, xw, len);
    i += len;
  }
  free(f.w); free(head.w); free(a.types.w); free(a.decos.w); free(a.def);
  if (!L_user || !types_done) {
    free(o.w);
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s: no function body for entry point '%s'", name, m.entry);
  }
  o.w[3] = a.next_id;
  *out = o.w;
  *out_words = o.n;
  return VKOCC_OK;
}
