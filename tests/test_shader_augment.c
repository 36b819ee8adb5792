/* The user's shader without a device: compilation (GLSL and HLSL through libshaderc, SPIR-V from glslc at
 * build time), inspection (workgroup size and shared bytes under specialization constants), augmentation
 * (every augmented module passes spirv-val for Vulkan 1.1) and the bad-input errors.
 * argv: source dir of tests/shaders, build dir of the .spv files, spirv-val path (may be missing). */
#include "check.h"
#include "compile.h"
#include "internal.h"
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *src_dir, *spv_dir, *spirv_val;

/* Writes the module to a temporary file and runs spirv-val on it; returns its exit code. */
static int validate(const uint32_t *w, size_t n, const char *what) {
  char path[] = "/tmp/vkocc-aug-XXXXXX";
  int fd = mkstemp(path);
  if (fd < 0) return -1;
  ssize_t put = write(fd, w, n * 4);
  close(fd);
  if (put != (ssize_t)(n * 4)) return -1;
  char cmd[1024];
  snprintf(cmd, sizeof cmd, "'%s' --target-env vulkan1.1 '%s' 1>&2", spirv_val, path);
  int rc = system(cmd);
  if (rc) fprintf(stderr, "spirv-val failed on the augmented %s (kept: %s)\n", what, path);
  else unlink(path);
  return rc;
}

typedef struct { const char *file; bool built_spv; const char *entry; uint32_t wg[3], shared; } shader_case;

static void one(const shader_case *c, const vkocc_spec_value *spec, uint32_t nspec, uint32_t want_shared,
                uint32_t want_wg0) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s%s", c->built_spv ? spv_dir : src_dir, c->file, c->built_spv ? ".spv" : "");
  uint32_t *spv;
  size_t words;
  vkocc_status s = compile_shader_load_file(path, VKOCC_SHADER_AUTO, c->entry, NULL, 0, &spv, &words);
  CHECK(s == VKOCC_OK, "%s: %s", path, vkocc_last_error());
  if (s) return;
  compile_spirv_info info;
  s = compile_spirv_inspect(spv, words, path, c->entry, spec, nspec, &info);
  CHECK(s == VKOCC_OK, "inspect %s: %s", path, vkocc_last_error());
  if (!s) {
    CHECK(info.wg[0] == want_wg0 && info.wg[1] == c->wg[1] && info.wg[2] == c->wg[2], "%s: wg %ux%ux%u", path,
          info.wg[0], info.wg[1], info.wg[2]);
    CHECK(info.shared_bytes == want_shared && info.shared_exact, "%s: shared %u (exact %d), expected %u", path,
          info.shared_bytes, info.shared_exact, want_shared);
    uint32_t *aug;
    size_t aw;
    s = compile_spirv_augment(spv, words, path, c->entry, info.first_free_set, &aug, &aw);
    CHECK(s == VKOCC_OK, "augment %s: %s", path, vkocc_last_error());
    if (!s) {
      CHECK(aw > words + 100, "%s: augmented %zu words from %zu", path, aw, words);
      if (spirv_val) CHECK(validate(aug, aw, path) == 0, "spirv-val on augmented %s", path);
      /* the augmented module inspects the same (its own set counted now) */
      compile_spirv_info again;
      CHECK(compile_spirv_inspect(aug, aw, path, c->entry, spec, nspec, &again) == VKOCC_OK, "re-inspect");
      CHECK(again.shared_bytes == info.shared_bytes && again.wg[0] == info.wg[0], "augmented keeps shared and wg");
      CHECK(again.first_free_set != info.first_free_set, "augmented uses set %u", info.first_free_set);
      free(aug);
    }
  }
  free(spv);
}

static void expect_fail(const char *file, bool in_spv_dir, const char *entry, const vkocc_spec_value *spec,
                        uint32_t nspec, const char *needle) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", in_spv_dir ? spv_dir : src_dir, file);
  uint32_t *spv = NULL;
  size_t words = 0;
  vkocc_status s = compile_shader_load_file(path, VKOCC_SHADER_AUTO, entry, NULL, 0, &spv, &words);
  compile_spirv_info info;
  if (!s) s = compile_spirv_inspect(spv, words, path, entry, spec, nspec, &info);
  CHECK(s == VKOCC_ERROR_USAGE, "%s: expected a usage error, got %d", path, s);
  CHECK_CONTAINS(vkocc_last_error(), needle);
  CHECK(!strchr(vkocc_last_error(), '\n'), "one line: '%s'", vkocc_last_error());
  free(spv);
}

int main(int argc, char **argv) {
  if (argc < 3) { fprintf(stderr, "usage: test_shader_augment SRC_DIR SPV_DIR [SPIRV_VAL]\n"); return 2; }
  src_dir = argv[1];
  spv_dir = argv[2];
  spirv_val = argc > 3 && argv[3][0] && access(argv[3], X_OK) == 0 ? argv[3] : NULL;
  if (!spirv_val) fprintf(stderr, "note: no spirv-val; augmented modules are not validated\n");

  const shader_case cases[] = {
      /* histogram: local_size_x_id = 0 (default 1), BINS spec 1 default 256 -> 1024 bytes */
      {"histogram.comp", false, NULL, {1, 1, 1}, 1024},
      {"histogram.comp", true, NULL, {1, 1, 1}, 1024},
      {"reduction.comp", false, NULL, {128, 1, 1}, 512},
      {"reduction.comp", true, NULL, {128, 1, 1}, 512},
      {"uniform_image.comp", false, NULL, {8, 8, 1}, 0},
      {"uniform_image.comp", true, NULL, {8, 8, 1}, 0},
      {"histogram.hlsl", false, "CSMain", {64, 1, 1}, 1024},
      {"histogram.hlsl", true, "CSMain", {64, 1, 1}, 1024},
      {"reduction.hlsl", false, "CSMain", {128, 1, 1}, 512},
      {"reduction.hlsl", true, "CSMain", {128, 1, 1}, 512},
      {"uniform_image.hlsl", false, "CSMain", {8, 8, 1}, 0},
      {"uniform_image.hlsl", true, "CSMain", {8, 8, 1}, 0},
  };
  for (size_t i = 0; i < VKOCC_ARRAY_LEN(cases); i++) one(&cases[i], NULL, 0, cases[i].shared, cases[i].wg[0]);
  /* specialization: workgroup 256 and 4096 bins -> 16 KiB, both as GLSL and as glslc's SPIR-V */
  vkocc_spec_value sp[2] = {{0, 256}, {1, 4096}};
  one(&cases[0], sp, 2, 16384, 256);
  one(&cases[1], sp, 2, 16384, 256);

  /* reflection: kinds, sets and push constants */
  char path[1024];
  uint32_t *spv;
  size_t words;
  snprintf(path, sizeof path, "%s/uniform_image.comp.spv", spv_dir);
  if (compile_shader_load_file(path, VKOCC_SHADER_AUTO, NULL, NULL, 0, &spv, &words) == VKOCC_OK) {
    compile_reflection r;
    CHECK(compile_reflect(spv, words, "main", &r) == VKOCC_OK, "reflect: %s", vkocc_last_error());
    CHECK_EQ_U(r.nbindings, 3);
    uint32_t seen = 0;
    for (uint32_t i = 0; i < r.nbindings; i++) {
      const compile_reflect_binding *b = &r.bindings[i];
      if (b->set == 0 && b->binding == 0 && b->type == 6 /* UNIFORM_BUFFER */) seen |= 1;
      if (b->set == 0 && b->binding == 1 && b->type == 3 /* STORAGE_IMAGE */ && b->image_format == 4 /* Rgba8 */) seen |= 2;
      if (b->set == 1 && b->binding == 0 && b->type == 7 /* STORAGE_BUFFER */) seen |= 4;
    }
    CHECK_EQ_U(seen, 7);
    compile_spirv_info info;
    CHECK(compile_spirv_inspect(spv, words, path, NULL, NULL, 0, &info) == VKOCC_OK, "inspect");
    CHECK_EQ_U(info.first_free_set, 2);
    compile_reflection_free(&r);
    free(spv);
  }
  snprintf(path, sizeof path, "%s/reduction.comp.spv", spv_dir);
  if (compile_shader_load_file(path, VKOCC_SHADER_AUTO, NULL, NULL, 0, &spv, &words) == VKOCC_OK) {
    compile_reflection r;
    CHECK(compile_reflect(spv, words, "main", &r) == VKOCC_OK, "reflect: %s", vkocc_last_error());
    CHECK_EQ_U(r.push_bytes, 8);
    compile_reflection_free(&r);
    /* truncated: half the module */
    CHECK(compile_spirv_inspect(spv, words / 2, "half.spv", NULL, NULL, 0, &(compile_spirv_info){0}) == VKOCC_ERROR_USAGE,
          "truncated");
    CHECK_CONTAINS(vkocc_last_error(), "truncated");
    free(spv);
  }
  snprintf(path, sizeof path, "%s/histogram.comp.spv", spv_dir);
  if (compile_shader_load_file(path, VKOCC_SHADER_AUTO, NULL, NULL, 0, &spv, &words) == VKOCC_OK) {
    compile_reflection r;
    CHECK(compile_reflect(spv, words, "main", &r) == VKOCC_OK, "reflect: %s", vkocc_last_error());
    CHECK_EQ_U(r.nspecs, 2);
    for (uint32_t i = 0; i < r.nspecs; i++)
      CHECK(r.specs[i].id == 0 ? r.specs[i].default_value == 1 : r.specs[i].id == 1 && r.specs[i].default_value == 256,
            "spec %u default %llu", r.specs[i].id, (unsigned long long)r.specs[i].default_value);
    compile_reflection_free(&r);
    free(spv);
  }

  /* corrupted modules: random word flips of a valid module are rejected with a usage error or pass
   * validation and augment; nothing reads out of bounds (the sanitizer build checks) */
  snprintf(path, sizeof path, "%s/uniform_image.hlsl.spv", spv_dir);
  if (compile_shader_load_file(path, VKOCC_SHADER_AUTO, "CSMain", NULL, 0, &spv, &words) == VKOCC_OK) {
    uint64_t rng = 0x9E3779B97F4A7C15ull;
    uint32_t rejected = 0, accepted = 0;
    uint32_t *mut = malloc(words * 4);
    for (int k = 0; k < 300; k++) {
      memcpy(mut, spv, words * 4);
      for (int f = 0; f < 1 + k % 3; f++) {
        rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
        size_t at = 1 + rng % (words - 1);
        mut[at] = (k & 4) ? (uint32_t)(rng >> 32) : mut[at] ^ (1u << (rng >> 59));
      }
      size_t n = (k % 7 == 0) ? words - 1 - (rng % (words / 2)) : words;
      compile_spirv_info info;
      vkocc_status s = compile_spirv_inspect(mut, n, "mutated", "CSMain", NULL, 0, &info);
      /* a usage error, or (exit 3) an id bound above what vkocc's tables take */
      if (s) {
        rejected++;
        CHECK(s == VKOCC_ERROR_USAGE || (s == VKOCC_ERROR_UNSUPPORTED && strstr(vkocc_last_error(), "id bound")),
              "mutation %d: status %d: %s", k, s, vkocc_last_error());
        continue;
      }
      uint32_t *aug;
      size_t aw;
      if (compile_spirv_augment(mut, n, "mutated", "CSMain", info.first_free_set, &aug, &aw) == VKOCC_OK) {
        accepted++;
        CHECK(compile_spirv_validate(aug, aw, "mutated", "the augmented module") == VKOCC_OK, "mutation %d: %s", k,
              vkocc_last_error());
        free(aug);
      }
    }
    fprintf(stderr, "mutations: %u rejected, %u augmented\n", rejected, accepted);
    CHECK(rejected > 200, "most mutations rejected: %u", rejected);
    free(mut);
    free(spv);
  }

  /* --define reaches the preprocessor, #include resolves next to the including file */
  snprintf(path, sizeof path, "%s/reduction.comp", src_dir);
  const char *defs[] = {"WG=256"};
  if (compile_shader_load_file(path, VKOCC_SHADER_AUTO, NULL, defs, 1, &spv, &words) == VKOCC_OK) {
    compile_spirv_info info;
    CHECK(compile_spirv_inspect(spv, words, path, NULL, NULL, 0, &info) == VKOCC_OK, "inspect: %s", vkocc_last_error());
    CHECK(info.wg[0] == 256 && info.shared_bytes == 1024, "WG=256: wg %u shared %u", info.wg[0], info.shared_bytes);
    free(spv);
  } else CHECK(0, "reduction.comp with WG=256: %s", vkocc_last_error());

  /* bad input: one line naming the problem */
  expect_fail("bad_syntax.comp", false, NULL, NULL, 0, "bad_syntax.comp:5: error");
  expect_fail("bad_include.comp", false, NULL, NULL, 0, "bad_include.comp:3: error");
  expect_fail("fragment.frag.spv", true, NULL, NULL, 0, "no compute entry point");
  expect_fail("reduction.comp.spv", true, "nosuch", NULL, 0, "no entry point 'nosuch'");
  vkocc_spec_value unknown = {7, 1};
  expect_fail("histogram.comp.spv", true, NULL, &unknown, 1, "no specialization constant with ID 7");
  /* not SPIR-V: text in a .spv file, and a file of 7 bytes */
  char tmp[] = "/tmp/vkocc-notspv-XXXXXX";
  int fd = mkstemp(tmp);
  CHECK(fd >= 0 && write(fd, "#version 450\nvoid main(){}\n", 28) == 28, "temp file");
  close(fd);
  char named[64];
  snprintf(named, sizeof named, "%s.spv", tmp);
  CHECK(rename(tmp, named) == 0, "rename");
  uint32_t *w = NULL;
  size_t nw = 0;
  vkocc_status s = compile_shader_load_file(named, VKOCC_SHADER_AUTO, NULL, NULL, 0, &w, &nw);
  compile_spirv_info info;
  if (!s) s = compile_spirv_inspect(w, nw, named, NULL, NULL, 0, &info);
  CHECK(s == VKOCC_ERROR_USAGE, "text as SPIR-V: %d", s);
  CHECK_CONTAINS(vkocc_last_error(), "wrong magic number");
  free(w);
  truncate(named, 7);
  CHECK(compile_shader_load_file(named, VKOCC_SHADER_AUTO, NULL, NULL, 0, &w, &nw) == VKOCC_ERROR_USAGE, "7 bytes");
  CHECK_CONTAINS(vkocc_last_error(), "not a whole number of words");
  unlink(named);
  return check_report();
}
