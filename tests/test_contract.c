/* The module contract on synthetic limits (no device): each refusal names the limit or feature and both
 * values, with exit 3 (or 2 for the workgroup, shared memory and constants); the same module passes where
 * the device allows it. And an HLSL kernel whose [numthreads] names a macro nothing defines: an error naming it,
 * where glslang would crash the process. */
#include "check.h"
#include "compile.h"
#include "internal.h"
#include <stdlib.h>

static const compile_module_limits base = {
    .device = "testdev", .max_bound_sets = 8, .max_push_bytes = 128, .max_shared_bytes = 32768,
    .max_invocations = 1024, .max_wg_size = {1024, 1024, 32}, .per_stage_samplers = 16,
    .per_stage_uniform_buffers = 12, .per_stage_storage_buffers = 8, .per_stage_sampled_images = 16,
    .per_stage_storage_images = 8, .per_stage_resources = 40, .max_uniform_range = 65536,
    .max_storage_range = 1u << 27, .subgroup_ops = 0x3f, .supported = ~0ull, .enabled = ~0ull};

/* compiles GLSL, inspects and reflects, runs the contract; returns its status */
static vkocc_status check(const char *glsl, const compile_module_limits *lim, const vkocc_spec_value *spec,
                          uint32_t nspec) {
  uint32_t *spv;
  size_t words;
  vkocc_status s = compile_shader_compile(glsl, strlen(glsl), "t.comp", VKOCC_SHADER_GLSL, NULL, NULL, 0, &spv, &words);
  if (s) { fprintf(stderr, "compile: %s\n", vkocc_last_error()); return s; }
  compile_spirv_info info;
  compile_reflection refl = {0};
  s = compile_spirv_inspect(spv, words, "t.comp", NULL, spec, nspec, &info);
  if (!s) s = compile_reflect(spv, words, info.entry, &refl);
  if (!s) s = compile_module_contract(spv, words, "t.comp", &info, &refl, spec, nspec, true, lim);
  compile_reflection_free(&refl);
  free(spv);
  return s;
}

/* HLSL with [numthreads(ARGS)]: compiled with the defines given */
static vkocc_status hlsl(const char *args, const char *const *defines, uint32_t ndefines, const char *decl) {
  char src[1024];
  snprintf(src, sizeof src, "RWStructuredBuffer<float> b : register(u0);\n%s[numthreads(%s)]\n"
           "void main(uint3 id : SV_DispatchThreadID) { b[id.x] = 1.0; }\n", decl, args);
  uint32_t *spv = NULL;
  size_t words;
  vkocc_status s = compile_shader_compile(src, strlen(src), "k.hlsl", VKOCC_SHADER_HLSL, "main", defines, ndefines, &spv, &words);
  free(spv);
  return s;
}

static void test_hlsl_numthreads(void) {
  const char *x64[] = {"LOCAL_SIZE_X=64"};
  CHECK_EQ_U(hlsl("LOCAL_SIZE_X, 1, 1", x64, 1, ""), VKOCC_OK);
  CHECK_EQ_U(hlsl("LOCAL_SIZE_X, 1, 1", NULL, 0, ""), VKOCC_ERROR_USAGE);
  CHECK_CONTAINS(vkocc_last_error(), "k.hlsl does not compile: [numthreads(...)] names 'LOCAL_SIZE_X', which nothing defines");
  CHECK_EQ_U(hlsl("64, ( (Y) ), 1", NULL, 0, ""), VKOCC_ERROR_USAGE);
  CHECK_CONTAINS(vkocc_last_error(), "names 'Y'");
  /* a name the text declares is glslang's to judge (it compiles); an expression of an unknown one is glslang's error */
  CHECK_EQ_U(hlsl("X, 1, 1", NULL, 0, "static const uint X = 64;\n"), VKOCC_OK);
  CHECK_EQ_U(hlsl("X + 1, 1, 1", NULL, 0, ""), VKOCC_ERROR_USAGE);
  CHECK_CONTAINS(vkocc_last_error(), "k.hlsl does not compile: ");
  CHECK(!strstr(vkocc_last_error(), "nothing defines"), "an expression taken for a lone name: %s", vkocc_last_error());
}

#define HEAD "#version 450\nlayout(local_size_x = 64) in;\n"
#define OUT "layout(set = 0, binding = 0) buffer O { uint v[]; } o;\n"

int main(void) {
  test_hlsl_numthreads();
  compile_module_limits l = base;
  /* a feature the device has but does not enable: named, with both sides */
  const char *i64 = HEAD "#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require\n" OUT
                         "void main() { uint64_t a = uint64_t(o.v[1]) << 40; o.v[0] = uint(a >> 40); }\n";
  CHECK_EQ_U(check(i64, &l, NULL, 0), VKOCC_OK);
  l.enabled &= ~(1ull << VKOCC_FEAT_INT64);
  CHECK_EQ_U(check(i64, &l, NULL, 0), VKOCC_ERROR_UNSUPPORTED);
  CHECK_CONTAINS(vkocc_last_error(), "capability Int64 needs the feature shaderInt64");
  CHECK_CONTAINS(vkocc_last_error(), "enabled: no, supported by the device: yes");
  l.supported &= ~(1ull << VKOCC_FEAT_INT64);
  check(i64, &l, NULL, 0);
  CHECK_CONTAINS(vkocc_last_error(), "supported by the device: no");
  /* subgroup operations of the compute stage */
  l = base;
  const char *clustered = HEAD "#extension GL_KHR_shader_subgroup_clustered : require\n" OUT
                               "void main() { o.v[0] = subgroupClusteredAdd(o.v[1], 4); }\n";
  CHECK_EQ_U(check(clustered, &l, NULL, 0), VKOCC_ERROR_UNSUPPORTED);
  CHECK_CONTAINS(vkocc_last_error(), "GroupNonUniformClustered needs subgroup operations 0x40");
  l.subgroup_ops = 0xff;
  CHECK_EQ_U(check(clustered, &l, NULL, 0), VKOCC_OK);
  /* storage buffers: 7 of the module's + vkocc's = 8 pass, 8 + 1 do not */
  l = base;
  char src[4096];
  int off = snprintf(src, sizeof src, HEAD);
  for (int i = 0; i < 8; i++) off += snprintf(src + off, sizeof src - off, "layout(set = 0, binding = %d) buffer B%d { uint x; } b%d;\n", i, i, i);
  snprintf(src + off, sizeof src - off, "void main() { b0.x = b1.x + b2.x + b3.x + b4.x + b5.x + b6.x + b7.x; }\n");
  CHECK_EQ_U(check(src, &l, NULL, 0), VKOCC_ERROR_UNSUPPORTED);
  CHECK_CONTAINS(vkocc_last_error(), "storage buffers (vkocc's one included): 9, above maxPerStageDescriptorStorageBuffers = 8 of testdev");
  l.per_stage_storage_buffers = 9;
  CHECK_EQ_U(check(src, &l, NULL, 0), VKOCC_OK);
  /* sets: set 7 and vkocc's at 0 fit 8; set 8 does not */
  l = base;
  CHECK_EQ_U(check(HEAD "layout(set = 7, binding = 0) buffer B { uint x; } b;\nvoid main() { b.x = 1u; }\n", &l, NULL, 0), VKOCC_OK);
  CHECK_EQ_U(check(HEAD "layout(set = 8, binding = 0) buffer B { uint x; } b;\nvoid main() { b.x = 1u; }\n", &l, NULL, 0),
             VKOCC_ERROR_UNSUPPORTED);
  CHECK_CONTAINS(vkocc_last_error(), "needs 9 descriptor sets (set indices 0..8, vkocc's set included), above maxBoundDescriptorSets = 8");
  /* push constants */
  CHECK_EQ_U(check(HEAD OUT "layout(push_constant) uniform P { uint a[33]; } pc;\nvoid main() { o.v[0] = pc.a[32]; }\n", &l, NULL, 0),
             VKOCC_ERROR_UNSUPPORTED);
  CHECK_CONTAINS(vkocc_last_error(), "push-constant bytes: 132, above maxPushConstantsSize = 128");
  /* workgroup: a dimension above its own limit (z 32) */
  CHECK_EQ_U(check("#version 450\nlayout(local_size_x = 1, local_size_y = 1, local_size_z = 64) in;\n" OUT "void main() { o.v[0] = 1u; }\n", &l, NULL, 0),
             VKOCC_ERROR_USAGE);
  CHECK_CONTAINS(vkocc_last_error(), "maxComputeWorkGroupSize[2] = 32");
  /* constants: given twice (the C API refuses), out of range */
  const char *sp = HEAD OUT "layout(constant_id = 3) const uint N = 4;\nshared uint s[N];\nvoid main() { s[0] = 1u; barrier(); o.v[0] = s[N - 1u]; }\n";
  vkocc_spec_value twice[2] = {{3, 8}, {3, 16}};
  CHECK_EQ_U(check(sp, &l, twice, 2), VKOCC_ERROR_USAGE);
  CHECK_CONTAINS(vkocc_last_error(), "specialization constant 3 given twice");
  vkocc_spec_value neg = {3, -1};
  CHECK_EQ_U(check(sp, &l, &neg, 1), VKOCC_ERROR_USAGE);
  CHECK_CONTAINS(vkocc_last_error(), "is not an unsigned 32-bit integer");
  vkocc_spec_value zero = {3, 0};
  CHECK_EQ_U(check(sp, &l, &zero, 1), VKOCC_ERROR_USAGE);
  CHECK_CONTAINS(vkocc_last_error(), "an array needs at least one element");
  vkocc_spec_value big = {3, 8193};
  CHECK_EQ_U(check(sp, &l, &big, 1), VKOCC_ERROR_USAGE);
  CHECK_CONTAINS(vkocc_last_error(), "32772 bytes of shared memory is above maxComputeSharedMemorySize = 32768");
  /* an application's device (nothing known enabled): a module needing no feature passes */
  l = base;
  l.enabled = 0;
  CHECK_EQ_U(check(HEAD OUT "void main() { o.v[0] = 1u; }\n", &l, NULL, 0), VKOCC_OK);
  return check_report();
}
