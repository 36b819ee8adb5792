/* The arguments' and references' data of a T1 spec (tune/spec/t1.h t1_fill_data): constants, random values,
 * binary files and generator expressions, converted to the argument's element type. */
#include "t1_internal.h"
#include <float.h>
#include <limits.h>
#include <pthread.h>

/* ------------------------------------------------------------------ data */

/* conversions that saturate (NaN: 0), never undefined behaviour on out-of-range values */
static int64_t to_i64(double v) {
  if (!(v == v)) return 0;
  if (v >= 9.2e18) return INT64_MAX;
  if (v <= -9.2e18) return INT64_MIN;
  return (int64_t)v;
}
static uint64_t to_u64(double v) {
  if (!(v == v)) return 0;
  if (v < 0) return (uint64_t)to_i64(v); /* two's complement, as C would store it */
  if (v >= 1.8e19) return UINT64_MAX;
  return (uint64_t)v;
}
static float to_f32(double v) {
  if (v > FLT_MAX) return INFINITY;
  if (v < -FLT_MAX) return -INFINITY;
  return (float)v;
}

static void put(void *dst, uint64_t idx, t1_etype t, double v) {
  uint8_t *p = dst;
  switch (t) {
  case T1E_BOOL: { uint32_t x = v != 0; memcpy(p + 4 * idx, &x, 4); break; }
  case T1E_I8: case T1E_U8: case T1E_CUSTOM: p[idx] = (uint8_t)to_u64(v); break;
  case T1E_I16: case T1E_U16: { uint16_t x = (uint16_t)to_u64(v); memcpy(p + 2 * idx, &x, 2); break; }
  case T1E_I32: case T1E_U32: { uint32_t x = (uint32_t)to_u64(v); memcpy(p + 4 * idx, &x, 4); break; }
  case T1E_I64: { int64_t x = to_i64(v); memcpy(p + 8 * idx, &x, 8); break; }
  case T1E_U64: { uint64_t x = to_u64(v); memcpy(p + 8 * idx, &x, 8); break; }
  case T1E_F32: { float x = to_f32(v); memcpy(p + 4 * idx, &x, 4); break; }
  case T1E_F64: memcpy(p + 8 * idx, &v, 8); break;
  }
}

/* A Generator's elements, one chunk of indices per call (util_parallel_for). */
#define GEN_CHUNK (1u << 18)
typedef struct gen_fill {
  const t1_spec *s;
  const t1_data *d;
  t1_etype t;
  void *dst;
  uint64_t comps;
  pthread_mutex_t lock;
  uint64_t bad;              /* the lowest index that failed (UINT64_MAX: none) */
  char err[512];
} gen_fill;

static void gen_chunk(void *user, uint32_t chunk) {
  gen_fill *g = user;
  uint64_t lo = (uint64_t)chunk * GEN_CHUNK, hi = lo + GEN_CHUNK < g->comps ? lo + GEN_CHUNK : g->comps;
  pthread_mutex_lock(&g->lock);
  bool after_failure = lo > g->bad; /* nothing here can be the first to fail */
  pthread_mutex_unlock(&g->lock);
  if (after_failure) return;
  texpr_value slot;
  texpr_env env = {.vars = &slot, .problem_size = g->s->problem, .nproblem = g->s->nproblem};
  /* blocks of indices at once where the expression allows (texpr_eval_range: the same values); element by element
   * where it does not, or a value fails there (which this loop then names) */
  enum { BLOCK = 1024 };
  double vals[BLOCK];
  uint64_t i = lo;
  for (; i < hi; i += BLOCK) {
    uint32_t m = hi - i < BLOCK ? (uint32_t)(hi - i) : BLOCK;
    if (!texpr_eval_range(g->d->gen, &env, (int64_t)i, m, vals)) break;
    for (uint32_t k = 0; k < m; k++) put(g->dst, i + k, g->t, vals[k]);
  }
  for (; i < hi; i++) {
    slot = (texpr_value){.kind = TEXPR_INT, .i = (int64_t)i};
    texpr_value v;
    char err[512];
    if (!texpr_eval(g->d->gen, &env, &v, err, sizeof err) || (v.kind == TEXPR_STR && snprintf(err, sizeof err, "a string"))) {
      pthread_mutex_lock(&g->lock);
      if (i < g->bad) g->bad = i, memcpy(g->err, err, sizeof err);
      pthread_mutex_unlock(&g->lock);
      return;
    }
    put(g->dst, i, g->t, v.kind == TEXPR_INT ? (double)v.i : v.f);
  }
}

vkocc_status t1_fill_data(const t1_spec *s, const t1_data *d, const char *path, const t1_arg *shape, void *dst) {
  uint64_t comps = shape->count * shape->comps;
  switch (d->fill) {
  case T1_FILL_NONE: memset(dst, 0, shape->bytes); return VKOCC_OK;
  case T1_FILL_HOOK: return d->hook(s, shape, dst, d->hook_user);
  case T1_FILL_CONSTANT:
    for (uint64_t i = 0; i < comps; i++) put(dst, i, shape->type, d->value);
    return VKOCC_OK;
  case T1_FILL_RANDOM: {
    tune_rng g;
    tune_rng_seed(&g, d->seed);
    for (uint64_t i = 0; i < comps; i++) {
      uint64_t x = tune_rng_next(&g);
      uint8_t *p = dst;
      switch (shape->type) {
      case T1E_F32: case T1E_F64: put(dst, i, shape->type, (double)(x >> 11) * 0x1.0p-53); break;
      case T1E_BOOL: put(dst, i, shape->type, (double)(x >> 63)); break;
      case T1E_I64: case T1E_U64: memcpy(p + 8 * i, &x, 8); break;
      case T1E_I32: case T1E_U32: { uint32_t y = (uint32_t)(x >> 32); memcpy(p + 4 * i, &y, 4); break; }
      case T1E_I16: case T1E_U16: { uint16_t y = (uint16_t)(x >> 48); memcpy(p + 2 * i, &y, 2); break; }
      default: p[i] = (uint8_t)(x >> 56); break;
      }
    }
    return VKOCC_OK;
  }
  case T1_FILL_BINARY: {
    void *data;
    size_t len;
    if (util_read_file(d->source, &data, &len))
      return vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s.DataSource: %s", s->file, path, vkocc_last_error());
    if (len != shape->bytes) {
      free(data);
      return vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s.DataSource: %s holds %zu bytes, expected %llu", s->file, path,
                        d->source, len, (unsigned long long)shape->bytes);
    }
    memcpy(dst, data, len);
    free(data);
    return VKOCC_OK;
  }
  case T1_FILL_GENERATOR: {
    /* chunks of the index range on a few threads: each element is the same expression of i as on one, so the
     * bytes are the same; a failure names the lowest i that fails */
    gen_fill g = {.s = s, .d = d, .t = shape->type, .dst = dst, .comps = comps, .bad = UINT64_MAX};
    pthread_mutex_init(&g.lock, NULL);
    uint32_t chunks = (uint32_t)((comps + GEN_CHUNK - 1) / GEN_CHUNK);
    /* pure host work: every core (util_parallel_for's 0 means 8) */
    if (chunks > 1) util_parallel_for(chunks, util_cores(0, 32), gen_chunk, &g);
    else if (chunks) gen_chunk(&g, 0);
    pthread_mutex_destroy(&g.lock);
    if (g.bad != UINT64_MAX)
      return vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s.DataSource: '%.200s': %s (at i = %llu)", s->file, path, d->source,
                        g.err, (unsigned long long)g.bad);
    return VKOCC_OK;
  }
  }
  return VKOCC_OK;
}
