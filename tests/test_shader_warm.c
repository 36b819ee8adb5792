/* The compiler's warm-up (compile_shader_warm): glslang's tables for the kernel's language and #version built on a
 * thread of its own, so that the kernel's first compile costs what a later one does; never the kernel's own text
 * (glslang crashed on an HLSL kernel compiled without its defines). Each case in a child process of its own, forked
 * before any thread: the tables are built once per process. CPU time of the compiling thread, not wall time. */
#include "check.h"
#include "compile.h"
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* a kernel whose #version (460) comes after comments, sized by a define */
static const char kernel[] =
    "// a leading comment\n/* and a block\n   comment */\n\n#version 460\n"
    "layout(local_size_x = LOCAL_SIZE_X) in;\n"
    "layout(std430, binding = 0) buffer A { float a[]; };\n"
    "void main() { a[gl_GlobalInvocationID.x] *= 2.0; }\n";

/* the HLSL kernel glslang crashed on without LOCAL_SIZE_X */
static const char hlsl[] =
    "[[vk::binding(0, 0)]] RWStructuredBuffer<uint> b;\n[numthreads(LOCAL_SIZE_X, 1, 1)]\n"
    "void main(uint3 gid : SV_DispatchThreadID) { b[gid.x] = 2 * b[gid.x]; }\n";

static double thread_cpu_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* the kernel's first compile in this process, in ms of this thread's CPU (negative: it failed) */
static double first_compile_ms(void) {
  const char *defs[] = {"LOCAL_SIZE_X=64"};
  uint32_t *spv;
  size_t words;
  double t0 = thread_cpu_ms();
  vkocc_status st = compile_shader_compile(kernel, strlen(kernel), "k.comp", VKOCC_SHADER_GLSL, "main", defs, 1, &spv, &words);
  double ms = thread_cpu_ms() - t0;
  if (st) return -1;
  free(spv);
  return ms;
}

/* runs what in a child; its first compile's ms come back through a pipe (-2: it died) */
static double in_child(int what) {
  int fd[2];
  if (pipe(fd)) return -2;
  pid_t pid = fork();
  if (pid == 0) {
    close(fd[0]);
    double ms = 0;
    if (what == 1) { /* warmed first */
      compile_shader_warm(kernel, strlen(kernel), VKOCC_SHADER_GLSL);
      compile_shader_warm_wait();
    }
    if (what == 2) { /* the HLSL kernel given: the warm-up must not compile it */
      compile_shader_warm(hlsl, strlen(hlsl), VKOCC_SHADER_HLSL);
      compile_shader_warm_wait();
    }
    if (what != 2) ms = first_compile_ms();
    if (write(fd[1], &ms, sizeof ms) != (ssize_t)sizeof ms) _exit(3);
    _exit(0);
  }
  close(fd[1]);
  double ms = -2;
  if (read(fd[0], &ms, sizeof ms) != (ssize_t)sizeof ms) ms = -2;
  close(fd[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status)) ms = -2;
  return ms;
}

int main(void) {
  double cold = in_child(0), warm = in_child(1), hl = in_child(2);
  fprintf(stderr, "first compile: %.1f ms cold, %.1f ms after the warm-up\n", cold, warm);
  CHECK(cold > 0 && warm > 0, "compiles: cold %g, warm %g", cold, warm);
  /* measured: 110-200 ms cold (glslang's tables for 460), 2-10 after; a warm-up of another version builds other tables */
  CHECK(warm < cold / 4, "after the warm-up the first compile took %.1f ms of CPU, cold %.1f", warm, cold);
  CHECK(hl == 0, "the HLSL warm-up: child %s", hl == -2 ? "died" : "failed");
  /* once per process: a second call does nothing, and waiting twice is harmless */
  compile_shader_warm(kernel, strlen(kernel), VKOCC_SHADER_GLSL);
  compile_shader_warm(kernel, strlen(kernel), VKOCC_SHADER_GLSL);
  compile_shader_warm_wait();
  compile_shader_warm_wait();
  CHECK(first_compile_ms() >= 0, "a compile after two warm-ups");
  return check_report();
}
