/* The user's shader to SPIR-V: GLSL and HLSL through libshaderc at run time (file names kept, so the
 * compiler's messages carry the user's file:line; the source is passed unmodified, augmentation happens
 * on the binary), SPIR-V files read as they are. #include "x" (and <x>) resolves next to the including file;
 * #include <vkocc/...> from the copies of glsl/ embedded in the library (cmake/barrier.cmake). */
#include "compile.h"
#include "util.h"
#include <vulkan/vulkan.h> /* the types of the module contract and reflection: no device here */
#include <shaderc/shaderc.h>
#include <spirv-tools/libspirv.h>
#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VKOCC_MAX_INCLUDE_DEPTH 32
#define VKOCC_STR_(x) #x
#define VKOCC_STR(x) VKOCC_STR_(x)

vkocc_shader_lang compile_shader_lang_of(const char *path) {
  const char *dot = path ? strrchr(path, '.') : NULL;
  if (!dot) return VKOCC_SHADER_AUTO;
  if (!strcasecmp(dot, ".spv")) return VKOCC_SHADER_SPIRV;
  if (!strcasecmp(dot, ".hlsl")) return VKOCC_SHADER_HLSL;
  if (!strcasecmp(dot, ".comp") || !strcasecmp(dot, ".glsl")) return VKOCC_SHADER_GLSL;
  return VKOCC_SHADER_AUTO;
}

typedef struct { shaderc_include_result r; char *name; void *data; } include_result;

const char *compile_embedded_text(const char *name, size_t *len) {
  for (unsigned i = 0; i < compile_embedded_text_count; i++)
    if (!strcmp(compile_embedded_texts[i].name, name)) {
      if (len) *len = compile_embedded_texts[i].len;
      return compile_embedded_texts[i].text;
    }
  return NULL;
}

static shaderc_include_result *resolve(void *user, const char *requested, int type, const char *requesting,
                                       size_t depth) {
  include_result *ir = util_xcalloc(1, sizeof *ir);
  size_t elen = 0;
  if (depth > VKOCC_MAX_INCLUDE_DEPTH) { /* a file that includes itself (directly or around a cycle) */
    static const char msg[] = "#include nested deeper than " VKOCC_STR(VKOCC_MAX_INCLUDE_DEPTH)
                              " levels (does a file include itself?)";
    ir->r.content = msg;
    ir->r.content_length = sizeof msg - 1;
    ir->r.source_name = "";
    return &ir->r;
  }
  bool ours = type == shaderc_include_type_standard && !strncmp(requested, "vkocc/", 6);
  const char *emb = ours ? compile_embedded_text(requested, &elen) : NULL;
  if (ours && !emb) { /* other <...> names resolve next to the including file, as before */
    static const char msg[] = "no such vkocc include (<vkocc/device_barrier.glsl>, <vkocc/persistent.glsl>)";
    ir->r.content = msg;
    ir->r.content_length = sizeof msg - 1;
    ir->r.source_name = "";
    return &ir->r;
  }
  if (emb) { /* names stay <vkocc/...> in messages; the text is the library's own copy */
    ir->name = util_xmalloc(strlen(requested) + 1);
    memcpy(ir->name, requested, strlen(requested) + 1);
    ir->data = util_xmalloc(elen + 1);
    memcpy(ir->data, emb, elen + 1);
    ir->r.source_name = ir->name;
    ir->r.source_name_length = strlen(ir->name);
    ir->r.content = ir->data;
    ir->r.content_length = elen;
    return &ir->r;
  }
  const char *slash = strrchr(requesting, '/');
  size_t dl = slash ? (size_t)(slash - requesting + 1) : 0;
  size_t need = dl + strlen(requested) + 1;
  ir->name = util_xmalloc(need);
  if (requested[0] == '/') snprintf(ir->name, need, "%s", requested);
  else snprintf(ir->name, need, "%.*s%s", (int)dl, requesting, requested);
  size_t len = 0;
  if (util_read_file(ir->name, &ir->data, &len)) {
    free(ir->name);
    ir->name = NULL;
    static const char msg[] = "cannot read the included file";
    ir->r.content = msg;
    ir->r.content_length = sizeof msg - 1;
    ir->r.source_name = "";
    return &ir->r;
  }
  ir->r.source_name = ir->name;
  ir->r.source_name_length = strlen(ir->name);
  ir->r.content = ir->data;
  ir->r.content_length = len;
  return &ir->r;
}

static void release(void *user, shaderc_include_result *r) {
  include_result *ir = (include_result *)r;
  free(ir->name);
  free(ir->data);
  free(ir);
}

/* The first line of the compiler's output that names an error (then the first line at all). */
static void first_error_line(const char *msg, char *out, size_t n) {
  const char *p = strstr(msg, "error");
  const char *start = p ? p : msg;
  while (p && start > msg && start[-1] != '\n') start--;
  const char *end = strchr(start, '\n');
  size_t len = end ? (size_t)(end - start) : strlen(start);
  snprintf(out, n, "%.*s", (int)(len < n ? len : n - 1), start);
}

/* One compiler for the process, never released. glslang builds its built-in symbol tables once while any compiler
 * lives and frees them when the last one is released: a compiler made and released per compile paid them every
 * time (110-190 ms of CPU per compile of KTT's vadd on a 2-core host, against 1-3 ms with them kept). libshaderc
 * lets threads compile on one compiler without a lock (shaderc_compile_into_spv takes it const). */
static shaderc_compiler_t process_compiler;
static pthread_once_t process_compiler_once = PTHREAD_ONCE_INIT;
static void process_compiler_make(void) { process_compiler = shaderc_compiler_initialize(); }

bool compile_hlsl_numthreads_unknown(const char *t, size_t tlen, char *name, size_t len) {
  static const char key[] = "numthreads";
  if (len) name[0] = 0;
  for (size_t i = 0; t && i + sizeof key - 1 <= tlen; i++) {
    if (memcmp(t + i, key, sizeof key - 1) || (i > 0 && util_ident_char(t[i - 1]))) continue;
    size_t p = i + sizeof key - 1;
    while (p < tlen && isspace((unsigned char)t[p])) p++;
    if (p >= tlen || t[p] != '(') continue;
    size_t open = p, close = p + 1;
    for (int depth = 1; close < tlen && depth; close++) depth += t[close] == '(' ? 1 : t[close] == ')' ? -1 : 0;
    /* each argument between the parentheses, split at the commas of depth 0 */
    for (size_t a = open + 1; a < close;) {
      size_t b = a;
      for (int depth = 0; b < close - 1 && (depth || t[b] != ','); b++) depth += t[b] == '(' ? 1 : t[b] == ')' ? -1 : 0;
      size_t x = a, y = b;
      for (;;) { /* spaces and enclosing parentheses off */
        while (x < y && isspace((unsigned char)t[x])) x++;
        while (y > x && isspace((unsigned char)t[y - 1])) y--;
        if (y - x >= 2 && t[x] == '(' && t[y - 1] == ')') x++, y--;
        else break;
      }
      bool ident = y > x && (isalpha((unsigned char)t[x]) || t[x] == '_');
      for (size_t k = x; ident && k < y; k++) ident = util_ident_char(t[k]);
      /* named anywhere else in the text (a static const declared there): glslang's to judge */
      if (ident && !util_word_in(t, tlen, 0, i, t + x, y - x) && !util_word_in(t, tlen, close, tlen, t + x, y - x)) {
        if (len) snprintf(name, len, "%.*s", (int)(y - x), t + x);
        return true;
      }
      a = b + 1;
    }
  }
  return false;
}

/* glslang (in libshaderc) does not fail but crashes (SEGV in handleEntryPointAttributes) on an HLSL
 * [numthreads(...)] argument that is a lone identifier it does not know, parenthesized or not: a macro the spec's
 * parameters leave undefined, such as numthreads(LOCAL_SIZE_X, 1, 1). The preprocessed text (macros expanded,
 * comments gone) is scanned for it first (compile_hlsl_numthreads_unknown). */
static vkocc_status hlsl_numthreads_known(shaderc_compiler_t comp, const char *text, size_t len, const char *name,
                                          const char *ep, shaderc_compile_options_t opts) {
  shaderc_compilation_result_t pre =
      shaderc_compile_into_preprocessed_text(comp, text, len, shaderc_compute_shader, name, ep, opts);
  vkocc_status s = VKOCC_OK;
  char unknown[128];
  if (shaderc_result_get_compilation_status(pre) == shaderc_compilation_status_success &&
      compile_hlsl_numthreads_unknown(shaderc_result_get_bytes(pre), shaderc_result_get_length(pre), unknown, sizeof unknown))
    s = vkocc_fail(VKOCC_ERROR_USAGE, "%s does not compile: [numthreads(...)] names '%s', which nothing defines (a macro "
                   "the spec's parameters do not set?); the compiler would crash on it", name, unknown);
  shaderc_result_release(pre);
  return s;
}

vkocc_status compile_shader_compile(const char *text, size_t len, const char *name, vkocc_shader_lang lang,
                                  const char *entry, const char *const *defines, uint32_t ndefines,
                                  uint32_t **spv, size_t *words) {
  *spv = NULL;
  *words = 0;
  if (lang != VKOCC_SHADER_GLSL && lang != VKOCC_SHADER_HLSL)
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s: source language must be GLSL or HLSL", name);
  pthread_once(&process_compiler_once, process_compiler_make);
  shaderc_compiler_t comp = process_compiler;
  shaderc_compile_options_t opts = comp ? shaderc_compile_options_initialize() : NULL;
  if (!comp || !opts) {
    if (opts) shaderc_compile_options_release(opts);
    return vkocc_fail(VKOCC_ERROR_RUNTIME, "libshaderc could not be initialized");
  }
  shaderc_compile_options_set_source_language(opts, lang == VKOCC_SHADER_HLSL ? shaderc_source_language_hlsl
                                                                              : shaderc_source_language_glsl);
  shaderc_compile_options_set_target_env(opts, shaderc_target_env_vulkan, shaderc_env_version_vulkan_1_1);
  shaderc_compile_options_set_optimization_level(opts, shaderc_optimization_level_performance);
  shaderc_compile_options_set_include_callbacks(opts, resolve, release, NULL);
  for (uint32_t i = 0; i < ndefines; i++) {
    const char *eq = strchr(defines[i], '=');
    size_t nl = eq ? (size_t)(eq - defines[i]) : strlen(defines[i]);
    const char *val = eq ? eq + 1 : "1";
    shaderc_compile_options_add_macro_definition(opts, defines[i], nl, val, strlen(val));
  }
  const char *ep = entry && *entry ? entry : "main";
  if (lang == VKOCC_SHADER_HLSL) {
    vkocc_status u = hlsl_numthreads_known(comp, text, len, name, ep, opts);
    if (u) {
      shaderc_compile_options_release(opts);
      return u;
    }
  }
  shaderc_compilation_result_t res =
      shaderc_compile_into_spv(comp, text, len, shaderc_compute_shader, name, ep, opts);
  vkocc_status s = VKOCC_OK;
  shaderc_compilation_status cs = shaderc_result_get_compilation_status(res);
  /* warnings that change what is measured are errors: glslang only warns when HLSL's entry point is
   * missing, and then compiles an empty entry of its own */
  const char *warn = cs == shaderc_compilation_status_success && shaderc_result_get_num_warnings(res)
                         ? shaderc_result_get_error_message(res) : NULL;
  if (warn && (strstr(warn, "Entry point not found") || strstr(warn, "entry point"))) {
    char line[512];
    const char *w = strstr(warn, "Entry point not found") ? strstr(warn, "Entry point not found") : warn;
    const char *end = strchr(w, '\n');
    snprintf(line, sizeof line, "%.*s", (int)(end ? end - w : (long)strlen(w)), w);
    s = vkocc_fail(VKOCC_ERROR_USAGE, "%s: no entry point '%s' in the source (the compiler says: %s)", name, ep, line);
  } else if (cs != shaderc_compilation_status_success) {
    char line[512];
    first_error_line(shaderc_result_get_error_message(res), line, sizeof line);
    s = vkocc_fail(VKOCC_ERROR_USAGE, "%s does not compile: %s", name, line[0] ? line : "(no message)");
  } else {
    size_t bytes = shaderc_result_get_length(res);
    *spv = util_xmalloc(bytes ? bytes : 4);
    memcpy(*spv, shaderc_result_get_bytes(res), bytes);
    *words = bytes / 4;
  }
  shaderc_result_release(res);
  shaderc_compile_options_release(opts);
  return s;
}

/* The warm-up: a trivial compute shader of the kernel's language (and, for GLSL, its #version line: glslang's
 * built-in tables are per version, profile and stage) compiled on a thread of its own, its result dropped.
 * Never the kernel's own text: without its defines glslang may not just fail but crash on it (an HLSL
 * [numthreads(LOCAL_SIZE_X, 1, 1)] without LOCAL_SIZE_X faulted in handleEntryPointAttributes). Joined at exit
 * (an atexit handler runs before the destructors of glslang's static objects, registered earlier). */
typedef struct { char text[320]; vkocc_shader_lang lang; } warm_job;
static pthread_t warm_thread;
static pthread_mutex_t warm_lock = PTHREAD_MUTEX_INITIALIZER;
static bool warm_started, warm_running;

static void *warm_main(void *arg) {
  warm_job *j = arg;
  uint32_t *spv;
  size_t words;
  if (!compile_shader_compile(j->text, strlen(j->text), "warm-up", j->lang, "main", NULL, 0, &spv, &words)) free(spv);
  free(j);
  return NULL;
}

void compile_shader_warm_wait(void) {
  pthread_mutex_lock(&warm_lock);
  bool join = warm_running;
  warm_running = false;
  if (join) pthread_join(warm_thread, NULL);
  pthread_mutex_unlock(&warm_lock);
}

/* the kernel's "#version ..." line (a GLSL source starts with it, comments and blank lines aside), or "" */
static void version_line(const char *text, size_t len, char *out, size_t n) {
  out[0] = 0;
  size_t i = 0;
  while (i < len) {
    while (i < len && (text[i] == ' ' || text[i] == '\t' || text[i] == '\r' || text[i] == '\n')) i++;
    if (i + 1 < len && text[i] == '/' && text[i + 1] == '/') {
      while (i < len && text[i] != '\n') i++;
      continue;
    }
    if (i + 1 < len && text[i] == '/' && text[i + 1] == '*') {
      const char *e = NULL;
      for (size_t k = i + 2; k + 1 < len && !e; k++)
        if (text[k] == '*' && text[k + 1] == '/') e = text + k + 2;
      if (!e) return;
      i = (size_t)(e - text);
      continue;
    }
    break;
  }
  if (len - i < 8 || strncmp(text + i, "#version", 8)) return;
  size_t e = i;
  while (e < len && text[e] != '\n' && text[e] != '\r') e++;
  if (e - i < n - 1) snprintf(out, n, "%.*s", (int)(e - i), text + i);
}

void compile_shader_warm(const char *text, size_t len, vkocc_shader_lang lang) {
  if (lang != VKOCC_SHADER_GLSL && lang != VKOCC_SHADER_HLSL) return;
  warm_job *j = util_xcalloc(1, sizeof *j);
  j->lang = lang;
  if (lang == VKOCC_SHADER_HLSL) {
    snprintf(j->text, sizeof j->text, "[numthreads(1, 1, 1)] void main() {}\n");
  } else {
    char v[200];
    version_line(text, len, v, sizeof v);
    snprintf(j->text, sizeof j->text, "%s\nlayout(local_size_x = 1) in;\nvoid main() {}\n", v[0] ? v : "#version 450");
  }
  pthread_mutex_lock(&warm_lock);
  bool first = !warm_started; /* once per process: the tables, once built, stay */
  warm_started = true;
  if (first) warm_running = !pthread_create(&warm_thread, NULL, warm_main, j);
  bool started = first && warm_running;
  pthread_mutex_unlock(&warm_lock);
  if (!started) free(j);
  else atexit(compile_shader_warm_wait);
}

vkocc_status compile_shader_load_file(const char *path, vkocc_shader_lang lang, const char *entry,
                                    const char *const *defines, uint32_t ndefines, uint32_t **spv, size_t *words) {
  *spv = NULL;
  *words = 0;
  if (lang == VKOCC_SHADER_AUTO) lang = compile_shader_lang_of(path);
  if (lang == VKOCC_SHADER_AUTO)
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s: unknown shader kind (expected .comp/.glsl, .hlsl or .spv)", path);
  void *data;
  size_t len;
  if (util_read_file(path, &data, &len))
    return vkocc_fail(VKOCC_ERROR_USAGE, "%s: cannot read the shader file", path);
  vkocc_status s;
  if (lang == VKOCC_SHADER_SPIRV) {
    if (len % 4) {
      free(data);
      return vkocc_fail(VKOCC_ERROR_USAGE, "%s: not a SPIR-V module (%zu bytes, not a whole number of words)", path,
                        len);
    }
    *spv = data;
    *words = len / 4;
    return VKOCC_OK;
  }
  s = compile_shader_compile(data, len, path, lang, entry, defines, ndefines, spv, words);
  free(data);
  return s;
}

/* Full validation through SPIRV-Tools (linked with libshaderc), for the Vulkan version the module's SPIR-V
 * version implies, lenient on block layouts (device features decide those). The walker in augment.c trusts
 * ids and types only after this. */
vkocc_status compile_spirv_validate(const uint32_t *spv, size_t words, const char *name, const char *what) {
  uint32_t v = words >= 2 ? spv[1] : 0;
  spv_target_env env = v <= 0x10300 ? SPV_ENV_VULKAN_1_1 : v == 0x10400 ? SPV_ENV_VULKAN_1_1_SPIRV_1_4
                       : v == 0x10500 ? SPV_ENV_VULKAN_1_2 : SPV_ENV_VULKAN_1_3;
  spv_context c = spvContextCreate(env);
  spv_validator_options o = spvValidatorOptionsCreate();
  spvValidatorOptionsSetRelaxBlockLayout(o, true);
  spvValidatorOptionsSetScalarBlockLayout(o, true);
  spv_const_binary_t bin = {spv, words};
  spv_diagnostic diag = NULL;
  spv_result_t r = spvValidateWithOptions(c, o, &bin, &diag);
  vkocc_status s = VKOCC_OK;
  if (r != SPV_SUCCESS) {
    char msg[400] = "";
    if (diag && diag->error) {
      snprintf(msg, sizeof msg, "%s", diag->error);
      for (char *p = msg; *p; p++) if (*p == '\n') *p = ' ';
    }
    s = vkocc_fail(VKOCC_ERROR_USAGE, "%s: %s does not validate: %s", name, what, msg[0] ? msg : "(no message)");
  }
  spvDiagnosticDestroy(diag);
  spvValidatorOptionsDestroy(o);
  spvContextDestroy(c);
  return s;
}
