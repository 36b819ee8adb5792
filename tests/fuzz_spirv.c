/* Fuzz target for the user's module: SPIR-V inspection (compile/augment.c), reflection (compile/reflect.c),
 * the module contract (compile/contract.c) against lavapipe's and a large GPU's limits, and augmentation,
 * the parsers of the most untrusted input vkocc takes. Structure-aware: under libFuzzer the custom mutator
 * edits instructions and operands of SPIR-V modules (ids, decorations, constants, workgroup sizes, entry
 * names, instructions duplicated, dropped or moved) and keeps the mutants SPIRV-Tools validates, so the
 * walker beyond validation is what gets exercised; the replay in the test suite applies the same
 * mutations. Invariants: every refusal is a usage error or (exit 3) a limit, with a message; an accepted
 * module's figures are consistent; an augmented module that the contract accepted validates again. */
#define FUZZ_STRUCTURED_MUTATOR
#include "fuzz_util.h"
#include "compile.h"

/* the few SPIR-V numbers the mutator needs (the SPIR-V specification's) */
enum { SpvMagicNumber = 0x07230202, SpvOpEntryPoint = 15, SpvOpExecutionMode = 16, SpvOpTypeArray = 28,
       SpvOpConstant = 43, SpvOpSpecConstant = 50, SpvOpDecorate = 71, SpvOpMemberDecorate = 72,
       SpvExecutionModeLocalSize = 17 };

#define MAX_WORDS (1u << 16)

static const compile_module_limits lavapipe = {
    .device = "lavapipe", .max_bound_sets = 8, .max_push_bytes = 128, .max_shared_bytes = 32768,
    .max_invocations = 1024, .max_wg_size = {1024, 1024, 1024}, .per_stage_samplers = 32,
    .per_stage_uniform_buffers = 15, .per_stage_storage_buffers = 32, .per_stage_sampled_images = 128,
    .per_stage_storage_images = 64, .per_stage_resources = 128, .max_uniform_range = 65536,
    .max_storage_range = 134217728, .subgroup_ops = 0xbf, .supported = 0x5ffd2bff, .enabled = 0x5ffd2bff};
static const compile_module_limits big = {
    .device = "big", .max_bound_sets = 32, .max_push_bytes = 256, .max_shared_bytes = 232448,
    .max_invocations = 1024, .max_wg_size = {1024, 1024, 64}, .per_stage_samplers = 1048576,
    .per_stage_uniform_buffers = 1048576, .per_stage_storage_buffers = 1048576, .per_stage_sampled_images = 1048576,
    .per_stage_storage_images = 1048576, .per_stage_resources = 4294967295u, .max_uniform_range = 65536,
    .max_storage_range = 4294967295u, .subgroup_ops = 0xff, .supported = ~0ull, .enabled = ~0ull};

/* a refusal: a usage error, or exit 3 for what vkocc or the device cannot take */
static void refusal(vkocc_status s) { fuzz_check_status(s, VKOCC_ERROR_UNSUPPORTED); }

static uint32_t augmented_ok, augmented_invalid;
/* how often an augmented module (of one the contract accepted) validated: printed at exit */
__attribute__((destructor)) static void augment_report(void) {
  if (augmented_ok || augmented_invalid)
    fprintf(stderr, "augmented modules: %u validate, %u do not (refused as vkocc's, exit 3)\n", augmented_ok,
            augmented_invalid);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size % 4 || size / 4 > MAX_WORDS) return 0;
  size_t words = size / 4;
  uint32_t *spv = malloc(size + 4);
  if (size) memcpy(spv, data, size);
  compile_spirv_info info;
  vkocc_status s = compile_spirv_inspect(spv, words, "fuzz.spv", NULL, NULL, 0, &info);
  refusal(s);
  if (s) { free(spv); return 0; }
  fuzz_accepted++;
  FUZZ_CHECK(info.wg[0] && info.wg[1] && info.wg[2]);
  FUZZ_CHECK(info.entry[0] && strlen(info.entry) < sizeof info.entry);
  FUZZ_CHECK(info.first_free_set <= 2048);
  compile_reflection refl;
  s = compile_reflect(spv, words, info.entry, &refl);
  refusal(s);
  if (!s) {
    /* the contract against both devices; then the constants at their edges */
    vkocc_status a = compile_module_contract(spv, words, "fuzz.spv", &info, &refl, NULL, 0, true, &lavapipe);
    vkocc_status b = compile_module_contract(spv, words, "fuzz.spv", &info, &refl, NULL, 0, true, &big);
    refusal(a), refusal(b);
    for (uint32_t i = 0; i < refl.nbindings; i++) FUZZ_CHECK(refl.bindings[i].count >= 1);
    /* one constant at one edge, chosen by the input (each inspection validates again: one per input keeps the
     * rate; the corpus covers the rest) */
    static const double edge[] = {0, 1, 64, 1024, 65536, 4294967295.0, -1, 0.5, 1e300};
    uint32_t hsum = 0;
    for (size_t i = 0; i < size; i += 61) hsum = hsum * 31 + data[i];
    for (uint32_t k = refl.nspecs ? hsum % refl.nspecs : 0, once = 0; k < refl.nspecs && !once; once = 1)
      for (size_t e = hsum / 7 % (sizeof edge / sizeof *edge), one = 0; !one; one = 1) {
        vkocc_spec_value sv[2] = {{refl.specs[k].id, edge[e]}, {refl.specs[k].id, 1}};
        compile_spirv_info si;
        vkocc_status t = compile_spirv_inspect(spv, words, "fuzz.spv", NULL, sv, 1, &si);
        refusal(t);
        if (!t) refusal(compile_module_contract(spv, words, "fuzz.spv", &si, &refl, sv, 2, true, &big)); /* twice */
        if (!t) refusal(compile_module_contract(spv, words, "fuzz.spv", &si, &refl, sv, 1, true, &lavapipe));
      }
    if (!b) { /* what reaches the driver: the augmented module must validate */
      uint32_t *aug;
      size_t aw;
      vkocc_status t = compile_spirv_augment(spv, words, "fuzz.spv", info.entry, info.first_free_set, &aug, &aw);
      refusal(t);
      if (!t) {
        vkocc_status v = compile_spirv_validate(aug, aw, "fuzz.spv", "the augmented module");
        if (v) augmented_invalid++; /* refused as vkocc's fault (exit 3) by the pipeline builder */
        else augmented_ok++;
        if (v && getenv("FUZZ_STRICT_AUGMENT")) {
          fprintf(stderr, "augmented module does not validate: %s\n", vkocc_last_error());
          abort();
        }
        free(aug);
      }
    }
    compile_reflection_free(&refl);
  }
  free(spv);
  return 0;
}

/* ---------------------------------------------------------------- structure-aware mutation */

static uint64_t mrng;
static uint32_t mnext(void) {
  mrng ^= mrng << 13, mrng ^= mrng >> 7, mrng ^= mrng << 17;
  return (uint32_t)(mrng >> 16);
}

/* word offsets of the instructions; 0 when the stream does not parse */
static uint32_t instructions(const uint32_t *w, size_t n, uint32_t *at, uint32_t max) {
  if (n < 5 || w[0] != SpvMagicNumber) return 0;
  uint32_t k = 0;
  for (size_t i = 5; i < n && k < max;) {
    uint32_t len = w[i] >> 16;
    if (!len || i + len > n) return 0;
    at[k++] = (uint32_t)i;
    i += len;
  }
  return k;
}

static uint32_t edge_value(uint32_t bound) {
  static const uint32_t v[] = {0, 1, 2, 3, 4, 7, 8, 31, 32, 33, 63, 64, 65, 127, 128, 255, 256, 1024, 2047, 2048, 4095,
                               4096, 32768, 65535, 65536, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFE, 0xFFFFFFFF};
  uint32_t r = mnext() % 34;
  if (r < sizeof v / sizeof *v) return v[r];
  return r & 1 ? bound : bound ? bound - 1 - mnext() % bound : 0;
}

/* One structural edit of w (n words, room for cap); returns the new length, 0 when none applied. */
static size_t mutate_once(uint32_t *w, size_t n, size_t cap) {
  static uint32_t at[MAX_WORDS / 2];
  uint32_t k = instructions(w, n, at, MAX_WORDS / 2);
  if (!k) return 0;
  uint32_t bound = w[3];
  uint32_t pick = at[mnext() % k], op = w[pick] & 0xFFFF, len = w[pick] >> 16;
  switch (mnext() % 10) {
  case 0: /* an operand: another id, or an edge value */
  case 1:
    if (len < 2) return 0;
    w[pick + 1 + mnext() % (len - 1)] = mnext() % 3 ? (bound ? 1 + mnext() % bound : 0) : edge_value(bound);
    return n;
  case 2: { /* a decoration's value (set, binding, built-in, spec ID, offset, stride) */
    for (uint32_t tries = 0; tries < 16; tries++) {
      uint32_t p = at[mnext() % k];
      if ((w[p] & 0xFFFF) == SpvOpDecorate && (w[p] >> 16) >= 4) { w[p + 3] = edge_value(bound); return n; }
      if ((w[p] & 0xFFFF) == SpvOpMemberDecorate && (w[p] >> 16) >= 5) { w[p + 4] = edge_value(bound); return n; }
    }
    return 0;
  }
  case 3: { /* a constant's or the workgroup size's value */
    for (uint32_t tries = 0; tries < 16; tries++) {
      uint32_t p = at[mnext() % k], o = w[p] & 0xFFFF, l = w[p] >> 16;
      if ((o == SpvOpConstant || o == SpvOpSpecConstant) && l >= 4) { w[p + 3] = edge_value(bound); return n; }
      if (o == SpvOpExecutionMode && l >= 6 && w[p + 2] == SpvExecutionModeLocalSize) {
        w[p + 3 + mnext() % 3] = edge_value(bound);
        return n;
      }
      if (o == SpvOpTypeArray && l >= 4) { w[p + 3] = bound ? 1 + mnext() % bound : 0; return n; }
    }
    return 0;
  }
  case 4: /* duplicate an instruction in place */
    if (n + len > cap) return 0;
    memmove(w + pick + len, w + pick, (n - pick) * 4);
    return n + len;
  case 5: /* drop one */
    memmove(w + pick, w + pick + len, (n - pick - len) * 4);
    return n - len;
  case 6: { /* move one to another instruction boundary */
    uint32_t to = at[mnext() % k];
    if (len > 256 || to == pick) return 0;
    uint32_t tmp[256];
    memcpy(tmp, w + pick, len * 4);
    memmove(w + pick, w + pick + len, (n - pick - len) * 4);
    if (to > pick) to -= len;
    memmove(w + to + len, w + to, (n - len - to) * 4);
    memcpy(w + to, tmp, len * 4);
    return n;
  }
  case 7: { /* the entry point's name: longer, shorter, unterminated */
    for (uint32_t tries = 0; tries < 8; tries++) {
      uint32_t p = at[mnext() % k];
      if ((w[p] & 0xFFFF) != SpvOpEntryPoint || (w[p] >> 16) < 4) continue;
      uint32_t extra = 1 + mnext() % 40;
      if (n + extra > cap) return 0;
      memmove(w + p + 3 + extra, w + p + 3, (n - p - 3) * 4);
      memset(w + p + 3, 'x', extra * 4);
      if (mnext() % 2) w[p + 3 + extra - 1] &= 0x00FFFFFF; /* still terminated further on */
      w[p] += extra << 16;
      return n + extra;
    }
    return 0;
  }
  case 8: /* the header's bound */
    w[3] = mnext() % 2 ? bound + 1 + mnext() % 64 : edge_value(bound);
    return n;
  default: /* an opcode changed to a neighbour (same length) */
    w[pick] = (w[pick] & 0xFFFF0000u) | ((op + (mnext() % 2 ? 1 : 0xFFFF)) & 0xFFFF);
    return n;
  }
}

/* Up to 3 tries for a mutant SPIRV-Tools validates; otherwise the last one (refusals are tested too). */
static size_t mutate_spirv(uint8_t *data, size_t size, size_t max_size, unsigned seed) {
  mrng = seed * 0x9E3779B97F4A7C15ull + 1;
  size_t cap = max_size / 4 < MAX_WORDS ? max_size / 4 : MAX_WORDS, n = size / 4;
  if (size % 4 || n < 5 || cap < n) return 0;
  static uint32_t orig[MAX_WORDS], w[MAX_WORDS];
  memcpy(orig, data, n * 4);
  size_t got = 0;
  for (int attempt = 0; attempt < 3; attempt++) {
    memcpy(w, orig, n * 4);
    size_t m = n;
    for (uint32_t e = 0, edits = 1 + mnext() % 3; e < edits && m; e++) {
      size_t r = mutate_once(w, m, cap);
      if (r) m = r;
    }
    if (m < 5) continue;
    memcpy(data, w, m * 4);
    got = m * 4;
    if (!compile_spirv_validate(w, m, "mutant", "the module")) break;
  }
  vkocc_clear_error();
  return got;
}

#ifndef VKOCC_LIBFUZZER
/* the replay: structural mutations of every corpus file on top of fuzz_util.h's byte mutations */
static size_t fuzz_structured_mutate(uint8_t *data, size_t size, size_t max_size, unsigned seed) {
  return mutate_spirv(data, size, max_size, seed);
}
#else
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed) {
  size_t r = seed % 8 ? mutate_spirv(data, size, max_size, seed) : 0;
  return r ? r : LLVMFuzzerMutate(data, size, max_size); /* bytes now and then, and for what does not parse */
}
#endif
