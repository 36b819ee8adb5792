/* How the host builds pipelines in parallel: K distinct compute pipelines of one kernel (the 2048 matmul of
 * bench/tune/matmul by default, its parameters as -D defines), compiled (shaderc) and then built
 * (core_kernel_build: vkCreateComputePipelines and its layout) by 1, 2, 4, 8 threads, each phase on its own.
 * Every pipeline of the run is distinct (WIDTH differs), so neither the context's pipeline cache nor the
 * driver's hits; turn the driver's disk cache off as well (NVIDIA: __GL_SHADER_DISK_CACHE=0). Not a test: it
 * reports.
 *   build/bench/bench_pipeline_build --shader bench/tune/matmul/matmul.comp [--device D] [--k K]
 *       [--threads 1,2,4,8] [--cache context|none|both] [--repeat R] [--salt N]
 * Per round (cache, threads): the median and p90 of one job's time and the phase's wall, for the compile and the
 * pipeline; then per (cache, threads) the medians over the rounds, and the speedup of the wall against 1 thread. */
#include "compile.h"
#include "exec.h"
#include "util.h"
#include "vkocc.h"
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { MAXK = 512, MAXT = 64, MAXROUNDS = 64 };

typedef struct { int bx, by, tx, ty; } mm_config;

typedef struct {
  vkocc_context *ctx;
  const char *text, *file;
  size_t len;
  uint32_t k;
  mm_config cfg[MAXK];
  unsigned width[MAXK];
  uint32_t *spv[MAXK];
  size_t words[MAXK];
  core_kernel kern[MAXK];
  double ms[MAXK];
  core_buffer buf[3];
  bool uncached, pipeline; /* this phase: the pipelines, else the compiles */
  atomic_uint next;
  atomic_int failed;
} bench;

static double quantile(const double *v, uint32_t n, double q) {
  double *s = malloc((n ? n : 1) * sizeof *s);
  memcpy(s, v, n * sizeof *s);
  qsort(s, n, sizeof *s, util_cmp_double);
  double r = n ? s[(uint32_t)(q * (n - 1) + 0.5)] : 0;
  free(s);
  return r;
}

static int compile_one(bench *b, uint32_t i) {
  char d[4][32], w[32];
  const mm_config *c = &b->cfg[i];
  snprintf(d[0], 32, "block_size_x=%d", c->bx), snprintf(d[1], 32, "block_size_y=%d", c->by);
  snprintf(d[2], 32, "tile_size_x=%d", c->tx), snprintf(d[3], 32, "tile_size_y=%d", c->ty);
  snprintf(w, sizeof w, "WIDTH=%u", b->width[i]);
  const char *defs[5] = {d[0], d[1], d[2], d[3], w};
  return compile_shader_compile(b->text, b->len, b->file, VKOCC_SHADER_GLSL, "main", defs, 5, &b->spv[i], &b->words[i]);
}

static int build_one(bench *b, uint32_t i) {
  core_kernel_resource res[3];
  for (uint32_t r = 0; r < 3; r++) res[r] = (core_kernel_resource){.set = 0, .binding = r, .buffer = &b->buf[r]};
  core_kernel_desc kd = {.spv = b->spv[i], .words = b->words[i], .name = b->file, .entry = "main", .res = res,
                          .nres = 3, .uncached = b->uncached};
  return core_kernel_build(b->ctx, &kd, &b->kern[i]);
}

static void *worker(void *arg) {
  bench *b = arg;
  for (uint32_t i; (i = atomic_fetch_add(&b->next, 1)) < b->k;) {
    double t0 = vkocc_now_ms();
    int st = b->pipeline ? build_one(b, i) : compile_one(b, i);
    b->ms[i] = vkocc_now_ms() - t0;
    if (st) {
      if (!atomic_fetch_add(&b->failed, 1)) fprintf(stderr, "bench_pipeline_build: %s\n", vkocc_last_error());
    }
  }
  return NULL;
}

/* one phase with t threads: its wall, b->ms per job */
static double phase(bench *b, bool pipeline, uint32_t t) {
  pthread_t th[MAXT];
  b->pipeline = pipeline;
  atomic_store(&b->next, 0);
  double t0 = vkocc_now_ms();
  uint32_t n = 0;
  for (uint32_t i = 0; i < t; i++)
    if (!pthread_create(&th[n], NULL, worker, b)) n++;
  for (uint32_t i = 0; i < n; i++) pthread_join(th[i], NULL);
  return vkocc_now_ms() - t0;
}

typedef struct { bool uncached; uint32_t t; double c_med, c_p90, c_wall, p_med, p_p90, p_wall; } round_result;

int main(int argc, char **argv) {
  const char *device = NULL, *shader = NULL, *cache = "both", *tlist = "1,2,4,8";
  uint32_t k = 32, repeat = 2;
  unsigned salt = (unsigned)time(NULL) % 1000;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--device")) device = argv[i + 1];
    else if (!strcmp(argv[i], "--shader")) shader = argv[i + 1];
    else if (!strcmp(argv[i], "--k")) k = (uint32_t)strtoul(argv[i + 1], NULL, 10);
    else if (!strcmp(argv[i], "--threads")) tlist = argv[i + 1];
    else if (!strcmp(argv[i], "--cache")) cache = argv[i + 1];
    else if (!strcmp(argv[i], "--repeat")) repeat = (uint32_t)strtoul(argv[i + 1], NULL, 10);
    else if (!strcmp(argv[i], "--salt")) salt = (unsigned)strtoul(argv[i + 1], NULL, 10) % 1000;
    else { fprintf(stderr, "bench_pipeline_build: unknown option %s\n", argv[i]); return 2; }
  }
  if (!shader || !k || k > MAXK || !repeat) {
    fprintf(stderr, "usage: bench_pipeline_build --shader FILE [--device D] [--k 1..%d] [--threads 1,2,4,8] "
                    "[--cache context|none|both] [--repeat R] [--salt N]\n", MAXK);
    return 2;
  }
  uint32_t ts[16], nt = 0;
  for (const char *p = tlist; *p && nt < 16;) {
    unsigned long v = strtoul(p, (char **)&p, 10);
    if (v >= 1 && v <= MAXT) ts[nt++] = (uint32_t)v;
    if (*p == ',') p++;
    else break;
  }
  bool modes[2] = {strcmp(cache, "none") != 0, strcmp(cache, "context") != 0}; /* [0] context's cache, [1] none */
  setvbuf(stdout, NULL, _IOLBF, 0);
  static bench b;
  FILE *f = fopen(shader, "rb");
  if (!f) { fprintf(stderr, "bench_pipeline_build: cannot open %s\n", shader); return 2; }
  static char text[1 << 16];
  b.len = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  b.text = text, b.file = shader, b.k = k;
  vkocc_context_options o = {.device = device};
  if (vkocc_context_create(&o, &b.ctx)) { fprintf(stderr, "bench_pipeline_build: %s\n", vkocc_last_error()); return 3; }
  printf("device %s\n", vkocc_context_device(b.ctx)->name);
  const char *dc = getenv("__GL_SHADER_DISK_CACHE");
  printf("host cores %ld, __GL_SHADER_DISK_CACHE %s, K %u distinct pipelines per round, salt %u\n",
         sysconf(_SC_NPROCESSORS_ONLN), dc ? dc : "(unset)", k, salt);
  for (int r = 0; r < 3; r++)
    if (core_buffer_create(b.ctx, 1 << 16, false, &b.buf[r])) { fprintf(stderr, "%s\n", vkocc_last_error()); return 1; }
  /* the matmul's configurations (block_size_x == block_size_y * tile_size_y, at most 1024 invocations and 48 KiB
   * of shared memory), cycled */
  mm_config all[256];
  uint32_t nall = 0;
  for (int bx = 16; bx <= 64; bx *= 2)
    for (int by = 1; by <= 32; by *= 2)
      for (int tx = 1; tx <= 8; tx *= 2)
        for (int ty = 1; ty <= 8; ty *= 2) {
          unsigned shared = 4u * (unsigned)(by * ty * bx + by * ty * bx * tx);
          if (bx == by * ty && bx * by <= 1024 && shared <= 49152 && nall < 256) all[nall++] = (mm_config){bx, by, tx, ty};
        }
  unsigned serial = 0;
  /* the first compile and pipeline of the process (the compiler's and driver's start-up), on their own */
  b.k = 1, b.cfg[0] = all[0], b.width[0] = 2048 + 16 * (salt * 10000 + serial++);
  double c0 = phase(&b, false, 1), p0 = b.failed ? 0 : phase(&b, true, 1);
  printf("first compile %.1f ms, first pipeline %.1f ms\n", c0, p0);
  core_kernel_destroy(b.ctx, &b.kern[0]), free(b.spv[0]);
  b.k = k;
  static round_result rr[MAXROUNDS];
  uint32_t nr = 0;
  for (uint32_t rep = 0; rep < repeat; rep++)
    for (uint32_t m = 0; m < 2; m++) {
      if (!modes[m]) continue;
      for (uint32_t j = 0; j < nt && nr < MAXROUNDS; j++) {
        uint32_t t = ts[rep % 2 ? nt - 1 - j : j]; /* 1,2,4,8 then 8,4,2,1 */
        for (uint32_t i = 0; i < k; i++) b.cfg[i] = all[i % nall], b.width[i] = 2048 + 16 * (salt * 10000 + serial++);
        b.uncached = m == 1;
        round_result *x = &rr[nr++];
        x->uncached = b.uncached, x->t = t;
        x->c_wall = phase(&b, false, t);
        x->c_med = quantile(b.ms, k, 0.5), x->c_p90 = quantile(b.ms, k, 0.9);
        x->p_wall = b.failed ? 0 : phase(&b, true, t);
        x->p_med = quantile(b.ms, k, 0.5), x->p_p90 = quantile(b.ms, k, 0.9);
        printf("round cache %-7s threads %2u  compile: median %7.2f p90 %7.2f ms wall %8.1f ms (%6.2f per pipeline)  "
               "pipeline: median %7.2f p90 %7.2f ms wall %8.1f ms (%6.2f per pipeline)\n",
               x->uncached ? "none" : "context", t, x->c_med, x->c_p90, x->c_wall, x->c_wall / k, x->p_med, x->p_p90,
               x->p_wall, x->p_wall / k);
        for (uint32_t i = 0; i < k; i++) core_kernel_destroy(b.ctx, &b.kern[i]), free(b.spv[i]), b.spv[i] = NULL;
        if (b.failed) return 1;
      }
    }
  /* per (cache, threads): medians over the rounds; speedup = 1 thread's wall / this wall */
  printf("summary (medians over %u rounds each; speedup of the phase's wall against 1 thread)\n", repeat);
  for (uint32_t m = 0; m < 2; m++) {
    if (!modes[m]) continue;
    double c1 = 0, p1 = 0;
    for (uint32_t j = 0; j < nt; j++) {
      double v[6][MAXROUNDS];
      uint32_t n = 0;
      for (uint32_t i = 0; i < nr; i++)
        if (rr[i].uncached == (m == 1) && rr[i].t == ts[j])
          v[0][n] = rr[i].c_med, v[1][n] = rr[i].c_wall, v[2][n] = rr[i].p_med, v[3][n] = rr[i].p_wall, n++;
      double cm = quantile(v[0], n, 0.5), cw = quantile(v[1], n, 0.5), pm = quantile(v[2], n, 0.5),
             pw = quantile(v[3], n, 0.5);
      if (ts[j] == 1) c1 = cw, p1 = pw;
      printf("cache %-7s threads %2u  compile median %7.2f ms, %6.2f ms wall per pipeline, speedup %5.2f  |  "
             "pipeline median %7.2f ms, %6.2f ms wall per pipeline, speedup %5.2f\n",
             m ? "none" : "context", ts[j], cm, cw / k, c1 > 0 ? c1 / cw : 0, pm, pw / k, p1 > 0 ? p1 / pw : 0);
    }
  }
  for (int r = 0; r < 3; r++) core_buffer_destroy(b.ctx, &b.buf[r]);
  vkocc_context_destroy(b.ctx);
  return 0;
}
