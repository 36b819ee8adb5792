/* The run-time compiler's cost per module, without a device: glslang's built-in tables are built once per process,
 * not once per compile (each of a tuning's define sets is a compile), and threads compiling at once (the tuner's
 * pool) get the modules a lone thread gets. CPU time of the compiling thread, so a busy host does not move it. */
#include "check.h"
#include "compile.h"
#include "internal.h"
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* KTT's vadd kernel (bench/tune/vadd), sized by -D LOCAL_SIZE_X as KTT sizes it */
static const char vadd[] =
    "#version 450\n"
    "layout(local_size_x = LOCAL_SIZE_X, local_size_y = 1, local_size_z = 1) in;\n"
    "layout(std430, binding = 0) readonly buffer A { float a[]; };\n"
    "layout(std430, binding = 1) readonly buffer B { float b[]; };\n"
    "layout(std430, binding = 2) writeonly buffer R { float result[]; };\n"
    "layout(push_constant) uniform P { float scalar; } pc;\n"
    "void main() { uint i = gl_GlobalInvocationID.x; result[i] = a[i] + b[i] + pc.scalar; }\n";

#define NSIZES 8

static double thread_cpu_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static vkocc_status compile_size(uint32_t local, uint32_t **spv, size_t *words) {
  char def[64];
  snprintf(def, sizeof def, "LOCAL_SIZE_X=%u", local);
  const char *defs[] = {def};
  return compile_shader_compile(vadd, strlen(vadd), "vadd.comp", VKOCC_SHADER_GLSL, "main", defs, 1, spv, words);
}

typedef struct { uint32_t first; uint32_t *spv[NSIZES]; size_t words[NSIZES]; int failed; } job;

static void *compile_half(void *arg) {
  job *j = arg;
  for (uint32_t k = j->first; k < NSIZES; k += 2)
    if (compile_size(8u << k, &j->spv[k], &j->words[k])) j->failed++;
  return NULL;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(void) {
  /* one thread, one define set after another: the first compile builds the tables, the next ones reuse them (a
   * compiler made and released per compile built them every time: each compile cost about what the first did) */
  double ms[NSIZES];
  uint32_t *serial[NSIZES] = {0};
  size_t serial_words[NSIZES] = {0};
  for (uint32_t k = 0; k < NSIZES; k++) {
    double t0 = thread_cpu_ms();
    vkocc_status st = compile_size(8u << k, &serial[k], &serial_words[k]);
    ms[k] = thread_cpu_ms() - t0;
    CHECK(st == VKOCC_OK, "compile LOCAL_SIZE_X=%u: %s", 8u << k, vkocc_last_error());
  }
  double later[NSIZES - 1];
  memcpy(later, ms + 1, sizeof later);
  qsort(later, NSIZES - 1, sizeof *later, cmp_double);
  double median_later = later[(NSIZES - 1) / 2];
  fprintf(stderr, "first compile %.1f ms of CPU, the next %u: median %.1f ms\n", ms[0], NSIZES - 1, median_later);
  CHECK(median_later < ms[0] / 5, "a later compile took %.1f ms of CPU (median), the first %.1f: the compiler's tables "
        "are built again per compile", median_later, ms[0]);

  /* two threads at once, alternate sizes: the same modules, word for word */
  job jobs[2] = {{.first = 0}, {.first = 1}};
  pthread_t th[2];
  for (int i = 0; i < 2; i++) pthread_create(&th[i], NULL, compile_half, &jobs[i]);
  for (int i = 0; i < 2; i++) pthread_join(th[i], NULL);
  CHECK(jobs[0].failed + jobs[1].failed == 0, "%d compiles failed on two threads", jobs[0].failed + jobs[1].failed);
  for (uint32_t k = 0; k < NSIZES; k++) {
    const job *j = &jobs[k % 2];
    CHECK(j->words[k] == serial_words[k] && j->spv[k] && serial[k] && !memcmp(j->spv[k], serial[k], 4 * serial_words[k]),
          "LOCAL_SIZE_X=%u: %zu words on two threads, %zu alone", 8u << k, j->words[k], serial_words[k]);
    free(j->spv[k]), free(serial[k]);
  }

  /* a compile error after all that still names the file and line */
  uint32_t *spv;
  size_t words;
  const char bad[] = "#version 450\nlayout(local_size_x = 1) in;\nvoid main() { undefined_name = 1; }\n";
  CHECK(compile_shader_compile(bad, strlen(bad), "bad.comp", VKOCC_SHADER_GLSL, "main", NULL, 0, &spv, &words) == VKOCC_ERROR_USAGE,
        "a bad shader compiles");
  CHECK_CONTAINS(vkocc_last_error(), "bad.comp:3");
  return check_report();
}
