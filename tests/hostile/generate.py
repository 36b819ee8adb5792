#!/usr/bin/env python3
"""Writes the hostile corpus: compute modules a hostile user could bring (GLSL, HLSL, SPIR-V assembly and
binaries, bit flips of valid modules), each with the outcome vkocc must give in MANIFEST:

    FILE <TAB> EXIT <TAB> SUBSTRING OF THE MESSAGE (or "P" for exit 0: a P of 1..LP_NUM_THREADS) <TAB> ARGS

tests/test_hostile.c replays it through `vkocc calc --shader` on lavapipe (limits of Mesa 22.3's lavapipe:
maxBoundDescriptorSets 8, maxPushConstantsSize 128, maxPerStageDescriptorStorageBuffers 32, UniformBuffers 15,
Samplers 32, SampledImages 128, StorageImages 64, maxPerStageResources 128, shared 32768 bytes).
Needs spirv-as and glslc (SPIRV-Tools, shaderc) only to regenerate; the outputs are committed.
Bit flips: `generate.py --record VKOCC` runs vkocc on each flipped module and records what it answered
(reviewed by hand before committing: every outcome must be exit 0 with a P, or 2/3 with a reason)."""
import os, random, struct, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
entries = []  # (file, exit, substring, args)


def put(name, text, exit_code, sub, args=""):
    with open(os.path.join(HERE, name), "w") as f:
        f.write(text)
    entries.append((name, exit_code, sub, args))


def glsl(body, head="", local="layout(local_size_x = 64) in;"):
    return "#version 450\n" + head + "\n" + local + "\n" + body + "\n"


OUT = "layout(set = 0, binding = 0) buffer Out { uint v[]; } out_;\n"


def ssbos(n, set_=0, first=0):
    decl = "".join("layout(set = %d, binding = %d) buffer B%d { uint x; } b%d;\n" % (set_, first + i, i, i) for i in range(n))
    use = " + ".join("b%d.x" % i for i in range(n))
    return decl, use


# ---------------------------------------------------------------- descriptors against per-stage limits
for n, code, sub in [(31, 0, "P"), (32, 3, "maxPerStageDescriptorStorageBuffers"), (33, 3, "maxPerStageDescriptorStorageBuffers"),
                     (40, 3, "storage buffers (vkocc's one included): 41")]:
    d, u = ssbos(n)
    put("ssbo_%d.comp" % n, glsl(d + "void main() { b0.x = %s; }" % u), code, sub)
for n, code in [(15, 0), (16, 3)]:
    decl = "".join("layout(set = 0, binding = %d) uniform U%d { uint x; } u%d;\n" % (i + 1, i, i) for i in range(n))
    use = " + ".join("u%d.x" % i for i in range(n))
    put("ubo_%d.comp" % n, glsl(OUT + decl + "void main() { out_.v[0] = %s; }" % use), code,
        "P" if code == 0 else "maxPerStageDescriptorUniformBuffers")
for n, sub in [(64, "storage buffers (vkocc's one included): 65"), (100000, "storage buffers (vkocc's one included): 100001"),
               (1 << 30, "above maxPerStageDescriptorStorageBuffers")]:
    put("ssbo_array_%d.comp" % n, glsl("layout(set = 0, binding = 0) buffer B { uint x; } b[%d];\nvoid main() { b[0].x = 1u; b[%d].x = 2u; }" % (n, n - 1)),
        3, sub)
# arrays of arrays of blocks are not valid Vulkan SPIR-V: the compiler refuses (the 32-bit product of a
# descriptor array's dimensions no longer wraps in reflection either)
put("ssbo_array_2d_wrap.comp", glsl("layout(set = 0, binding = 0) buffer B { uint x; } b[65536][65536];\nvoid main() { b[0][0].x = 1u; b[65535][65535].x = 2u; }"),
    2, "does not compile")
put("samplers_33.comp", glsl(OUT + "layout(set = 0, binding = 1) uniform sampler2D s[33];\nvoid main() { out_.v[0] = uint(texture(s[0], vec2(0)).x + texture(s[32], vec2(0)).x); }"),
    3, "maxPerStageDescriptorSamplers")
put("samplers_32.comp", glsl(OUT + "layout(set = 0, binding = 1) uniform sampler2D s[32];\nvoid main() { out_.v[0] = uint(texture(s[0], vec2(0)).x + texture(s[31], vec2(0)).x); }"),
    0, "P")
put("storage_images_65.comp", glsl(OUT + "layout(set = 0, binding = 1, r32ui) uniform uimage2D im[65];\nvoid main() { imageStore(im[0], ivec2(0), uvec4(1)); imageStore(im[64], ivec2(0), uvec4(1)); }"),
    3, "maxPerStageDescriptorStorageImages")
put("sampled_images_129.comp", glsl(OUT + "layout(set = 0, binding = 1) uniform texture2D t[129];\nlayout(set = 0, binding = 2) uniform sampler smp;\n"
                                    "void main() { out_.v[0] = uint(texture(sampler2D(t[0], smp), vec2(0)).x + texture(sampler2D(t[128], smp), vec2(0)).x); }"),
    3, "maxPerStageDescriptorSampledImages")
put("resources_129.comp", glsl("layout(set = 0, binding = 0, r32ui) uniform uimage2D im[64];\nlayout(set = 0, binding = 1) uniform texture2D t[64];\n"
                               "layout(set = 0, binding = 2) uniform sampler smp;\n"
                               "void main() { imageStore(im[0], ivec2(0), uvec4(texture(sampler2D(t[0], smp), vec2(0)).x)); imageStore(im[63], ivec2(0), uvec4(texture(sampler2D(t[63], smp), vec2(0)).x)); }"),
    3, "maxPerStageResources")
# more than 64 bindings in one set (each type within its limit): vkocc's layout table would have cut them
decl = ""
use = []
for i in range(14):
    decl += "layout(set = 0, binding = %d) uniform U%d { uint x; } u%d;\n" % (i, i, i); use.append("u%d.x" % i)
for i in range(30):
    decl += "layout(set = 0, binding = %d) buffer S%d { uint x; } s%d;\n" % (14 + i, i, i); use.append("s%d.x" % i)
for i in range(26):
    decl += "layout(set = 0, binding = %d, r32ui) uniform uimage2D im%d;\n" % (44 + i, i); use.append("imageLoad(im%d, ivec2(0)).x" % i)
put("bindings_70_one_set.comp", glsl(decl + "void main() { s0.x = %s; }" % " + ".join(use)), 3, "vkocc binds at most 64 per set")
put("binding_4095.comp", glsl("layout(set = 0, binding = 4095) buffer B { uint x; } b;\nvoid main() { b.x = 1u; }"), 0, "P")
put("binding_100000.comp", glsl("layout(set = 0, binding = 100000) buffer B { uint x; } b;\nvoid main() { b.x = 1u; }"), 2, "binding is too large")
put("runtime_array.comp", glsl("#extension GL_EXT_nonuniform_qualifier : require\nlayout(set = 0, binding = 0) buffer B { uint x; } b[];\nvoid main() { b[nonuniformEXT(gl_LocalInvocationIndex)].x = 1u; }"),
    3, "sized at run time")

# ---------------------------------------------------------------- sets
for set_, code, sub in [(7, 0, "P"), (8, 3, "maxBoundDescriptorSets = 8"), (20, 3, "maxBoundDescriptorSets = 8"), (31, 3, "maxBoundDescriptorSets"),
                        (32, 3, "maxBoundDescriptorSets"), (100, 2, "set is too large"), (2047, 2, "set is too large"),
                        (2048, 2, "set is too large"), (100000, 2, "set is too large")]:
    put("set_%d.comp" % set_, glsl("layout(set = %d, binding = 0) buffer B { uint x; } b;\nvoid main() { b.x = 1u; }" % set_), code, sub)
d = "".join("layout(set = %d, binding = 0) buffer B%d { uint x; } b%d;\n" % (i, i, i) for i in range(8))
put("sets_0_to_7_full.comp", glsl(d + "void main() { b0.x = " + " + ".join("b%d.x" % i for i in range(8)) + "; }"), 3, "vkocc's set included")

# ---------------------------------------------------------------- push constants, buffers, shared memory
for n, code, sub in [(128, 0, "P"), (132, 3, "maxPushConstantsSize = 128"), (256, 3, "push-constant bytes: 256"),
                     (1 << 20, 3, "maxPushConstantsSize")]:
    put("push_%d.comp" % n, glsl(OUT + "layout(push_constant) uniform P { uint a[%d]; } pc;\nvoid main() { out_.v[0] = pc.a[0] + pc.a[%d]; }" % (n // 4, n // 4 - 1)),
        code, sub)
put("ubo_80k.comp", glsl(OUT + "layout(set = 0, binding = 1) uniform U { uint a[20000]; } u;\nvoid main() { out_.v[0] = u.a[gl_LocalInvocationIndex]; }"),
    3, "maxUniformBufferRange")
put("ssbo_declared_1g.comp", glsl("layout(set = 0, binding = 0) buffer B { uint a[268435456]; } b;\nvoid main() { b.a[gl_LocalInvocationIndex] = 1u; }"),
    3, "maxStorageBufferRange")
put("ssbo_declared_16m.comp", glsl("layout(set = 0, binding = 0) buffer B { uint a[4194304]; } b;\nvoid main() { b.a[gl_LocalInvocationIndex] = 1u; }"),
    0, "P")
put("shared_32768.comp", glsl(OUT + "shared uint s[8192];\nvoid main() { s[gl_LocalInvocationIndex] = 1u; barrier(); out_.v[0] = s[8191]; }"), 0, "P")
put("shared_32772.comp", glsl(OUT + "shared uint s[8193];\nvoid main() { s[gl_LocalInvocationIndex] = 1u; barrier(); out_.v[0] = s[8192]; }"),
    2, "32772 bytes of shared memory is above maxComputeSharedMemorySize = 32768")
SPEC3 = glsl(OUT + "layout(constant_id = 0) const uint N = 4;\nshared uint s[N][N][N];\nvoid main() { s[gl_LocalInvocationIndex % N][0][0] = 1u; barrier(); out_.v[0] = s[0][0][0]; }")
put("shared_spec_nested.comp", SPEC3, 0, "P")
for v, code, sub in [("65536", 2, "at least 4294967295 bytes"), ("4294967295", 2, "at least 4294967295 bytes"), ("2097152", 2, "at least 4294967295 bytes"),
                     ("0", 2, "an array needs at least one element"), ("-1", 2, "an unsigned 32-bit integer"), ("1e300", 2, "an unsigned 32-bit integer"),
                     ("0.5", 2, "an unsigned 32-bit integer")]:
    entries.append(("shared_spec_nested.comp", code, sub, "--spec 0=%s" % v))
entries.append(("shared_spec_nested.comp", 2, "no specialization constant with ID 7", "--spec 7=1"))
entries.append(("shared_spec_nested.comp", 0, "P", "--spec 0=8 --spec 0=16"))  # repeated: the last wins
put("shared_deep_struct.comp", glsl(OUT + "".join("struct S%d { %s x; uint y; };\n" % (i, "S%d" % (i - 1) if i else "uint") for i in range(40)) +
                                   "shared S39 s;\nvoid main() { s.y = 1u; barrier(); out_.v[0] = s.y; }"), 0, "P")

# ---------------------------------------------------------------- workgroup size
put("wg_spec.comp", glsl(OUT + "void main() { out_.v[gl_LocalInvocationIndex] = 1u; }", local="layout(local_size_x_id = 0) in;"), 0, "P")
for v, sub in [("4294967295", "maxComputeWorkGroupSize[0] = 1024"), ("2048", "maxComputeWorkGroupSize[0] = 1024"), ("0", "could not be determined")]:
    entries.append(("wg_spec.comp", 2, sub, "--spec 0=%s" % v))
put("wg_1024x2.comp", glsl(OUT + "void main() { out_.v[0] = 1u; }", local="layout(local_size_x = 1024, local_size_y = 2) in;"),
    2, "maxComputeWorkGroupInvocations = 1024")

# ---------------------------------------------------------------- features and capabilities
FEATURES = [
    ("int64.comp", "#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require", "uint64_t a = uint64_t(gl_LocalInvocationIndex) << 40; out_.v[0] = uint(a >> 40);", 0, "P"),
    ("float64.comp", "", "double a = double(gl_LocalInvocationIndex) * 1.5LF; out_.v[0] = uint(a);", 0, "P"),
    ("int16.comp", "#extension GL_EXT_shader_explicit_arithmetic_types_int16 : require", "uint16_t a = uint16_t(gl_LocalInvocationIndex); out_.v[0] = uint(a * a);", 0, "P"),
    ("float16.comp", "#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require", "float16_t a = float16_t(gl_LocalInvocationIndex); out_.v[0] = uint(a * a);", 0, "P"),
    ("int8.comp", "#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require", "uint8_t a = uint8_t(gl_LocalInvocationIndex); out_.v[0] = uint(a * a);", 0, "P"),
    ("subgroup_arith.comp", "#extension GL_KHR_shader_subgroup_arithmetic : require", "out_.v[0] = subgroupAdd(gl_LocalInvocationIndex);", 0, "P"),
    ("subgroup_clustered.comp", "#extension GL_KHR_shader_subgroup_clustered : require", "out_.v[0] = subgroupClusteredAdd(gl_LocalInvocationIndex, 4);", 3,
     "GroupNonUniformClustered needs subgroup operations 0x40"),
    ("clock_in_user_code.comp", "#extension GL_EXT_shader_realtime_clock : require", "out_.v[0] = uint(clockRealtimeEXT());", 0, "P"),
    ("buffer_reference.comp", "#extension GL_EXT_buffer_reference : require\nlayout(buffer_reference) buffer R { uint x; };\nlayout(push_constant) uniform PC { R r; } pc;",
     "pc.r.x = 1u; out_.v[0] = 1u;", 3, "PhysicalStorageBufferAddresses"),
]
for name, ext, body, code, sub in FEATURES:
    put(name, glsl(OUT + "void main() { %s }" % body, head=ext), code, sub)
put("atomic_float32_add.comp", glsl("#extension GL_EXT_shader_atomic_float : require\nlayout(set = 0, binding = 0) buffer B { float f; } b;\nvoid main() { atomicAdd(b.f, 1.0); }"),
    3, "capability AtomicFloat32AddEXT is not one vkocc can check")
put("atomic_float64_add.comp", glsl("#extension GL_EXT_shader_atomic_float : require\nlayout(set = 0, binding = 0) buffer B { double f; } b;\nvoid main() { atomicAdd(b.f, 1.0LF); }"),
    3, "capability AtomicFloat64AddEXT")
put("atomic_float16_add.comp", glsl("#extension GL_EXT_shader_atomic_float2 : require\n#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require\n"
                                     "layout(set = 0, binding = 0) buffer B { float16_t f; } b;\nvoid main() { atomicAdd(b.f, float16_t(1.0)); }"),
    3, "not one vkocc can check")
put("atomic_float32_minmax.comp", glsl("#extension GL_EXT_shader_atomic_float2 : require\nlayout(set = 0, binding = 0) buffer B { float f; } b;\nvoid main() { atomicMax(b.f, 1.0); }"),
    3, "not one vkocc can check")
put("atomic_int64.comp", glsl("#extension GL_EXT_shader_atomic_int64 : require\n#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require\n"
                               "layout(set = 0, binding = 0) buffer B { uint64_t c; } b;\nvoid main() { atomicAdd(b.c, 1ul); }"), 0, "P")
put("image_atomic_int64.comp", glsl("#extension GL_EXT_shader_image_int64 : require\n#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require\n"
                                     "layout(set = 0, binding = 0, r64ui) uniform u64image2D im;\nvoid main() { imageAtomicAdd(im, ivec2(0), 1ul); }"),
    3, "capability Int64ImageEXT")
put("image_read_without_format.comp", glsl(OUT + "layout(set = 0, binding = 1) uniform readonly uimage2D im;\nvoid main() { out_.v[0] = imageLoad(im, ivec2(0)).x; }",
                                           head="#extension GL_EXT_shader_image_load_formatted : require"),
    3, "shaderStorageImageReadWithoutFormat")
put("sampler_dynamic_index.comp", glsl(OUT + "layout(set = 0, binding = 1) uniform sampler2D s[4];\nvoid main() { out_.v[0] = uint(texture(s[gl_LocalInvocationIndex % 4], vec2(0)).x); }"),
    0, "P")  # the compiler declares no dynamic-indexing capability: nothing to refuse, and the code never runs
put("sparse_residency.comp", glsl(OUT + "layout(set = 0, binding = 1) uniform sampler2D s;\nvoid main() { vec4 t; out_.v[0] = uint(sparseTextureARB(s, vec2(0), t)); }",
                                  head="#extension GL_ARB_sparse_texture2 : require"),
    3, "shaderResourceResidency")
put("ray_query.comp", glsl("#extension GL_EXT_ray_query : require\nlayout(set = 0, binding = 0) uniform accelerationStructureEXT as;\n" + OUT.replace("binding = 0", "binding = 1") +
                           "void main() { rayQueryEXT q; rayQueryInitializeEXT(q, as, 0u, 0xFFu, vec3(0), 0.0, vec3(1), 1.0); out_.v[0] = uint(rayQueryProceedEXT(q)); }",
                           head=""),
    2, "does not compile")  # ray queries need SPIR-V 1.4; vkocc compiles for Vulkan 1.1

# ---------------------------------------------------------------- code that must never run while measured
put("infinite_loop.comp", glsl(OUT + "void main() { uint i = 0u; while (out_.v[1] == 0u) { i++; } out_.v[0] = i; }"), 0, "P")
put("empty.comp", glsl("void main() {}"), 0, "P")
put("barrier_divergent.comp", glsl(OUT + "void main() { if (gl_LocalInvocationIndex < 7u) { barrier(); } out_.v[0] = 1u; }"), 0, "P")

# ---------------------------------------------------------------- sources that are not compute shaders, includes
put("syntax_error.comp", "#version 450\nlayout(local_size_x = 64) in;\nvoid main() { this is not glsl }\n", 2, "does not compile")
put("binary_garbage.comp", "".join(chr(c) for c in random.Random(7).choices(range(1, 256), k=600)), 2, "does not compile")
put("fragment_as_compute.comp", "#version 450\nlayout(location = 0) out vec4 c;\nvoid main() { c = vec4(1); }\n", 2, "does not compile")
put("no_main.comp", "#version 450\nlayout(local_size_x = 64) in;\nvoid notmain() {}\n", 2, "does not compile")
INC = "#extension GL_GOOGLE_include_directive : require\n"
put("include_self.comp", "#version 450\n" + INC + "#include \"include_self.glsl\"\nlayout(local_size_x = 64) in;\nvoid main() {}\n", 2, "nested deeper than 32 levels")
with open(os.path.join(HERE, "include_self.glsl"), "w") as f:
    f.write("#include \"include_self.glsl\"\n")
put("include_cycle.comp", "#version 450\n" + INC + "#include \"include_cycle_a.glsl\"\nlayout(local_size_x = 64) in;\nvoid main() {}\n", 2, "nested deeper than 32 levels")
with open(os.path.join(HERE, "include_cycle_a.glsl"), "w") as f:
    f.write("#include \"include_cycle_b.glsl\"\n")
with open(os.path.join(HERE, "include_cycle_b.glsl"), "w") as f:
    f.write("#include \"include_cycle_a.glsl\"\n")
put("include_missing.comp", "#version 450\n" + INC + "#include \"no_such_file.glsl\"\nlayout(local_size_x = 64) in;\nvoid main() {}\n", 2, "cannot read the included file")
put("include_vkocc_unknown.comp", "#version 450\n" + INC + "#include <vkocc/no_such.glsl>\nlayout(local_size_x = 64) in;\nvoid main() {}\n", 2, "no such vkocc include")
entries.append(("no_such_file.comp", 2, "cannot read the shader file", ""))
entries.append((".", 2, "unknown shader kind", ""))
put("unknown_extension.txt", "hello\n", 2, "unknown shader kind")

# ---------------------------------------------------------------- HLSL
HL = "RWStructuredBuffer<uint> o : register(u0);\n[numthreads(64, 1, 1)]\nvoid CSMain(uint3 id : SV_DispatchThreadID) { o[id.x] = id.x; }\n"
put("hlsl_ok.hlsl", HL, 0, "P", "--entry CSMain")
entries.append(("hlsl_ok.hlsl", 2, "no entry point 'main'", ""))
entries.append(("hlsl_ok.hlsl", 2, "no entry point 'Nope'", "--entry Nope"))
LONG = "E" * 200
put("hlsl_long_entry.hlsl", HL.replace("CSMain", LONG), 3, "name is 200 bytes long", "--entry " + LONG)
put("hlsl_groupshared_36k.hlsl", "groupshared uint s[9000];\n" + HL.replace("o[id.x] = id.x;", "s[id.x] = 1; GroupMemoryBarrierWithGroupSync(); o[id.x] = s[8999];"),
    2, "above maxComputeSharedMemorySize", "--entry CSMain")
put("hlsl_33_buffers.hlsl", "".join("RWStructuredBuffer<uint> b%d : register(u%d);\n" % (i, i) for i in range(33)) +
    "[numthreads(64, 1, 1)]\nvoid CSMain(uint3 id : SV_DispatchThreadID) { b0[0] = " + " + ".join("b%d[1]" % i for i in range(33)) + "; }\n",
    3, "maxPerStageDescriptorStorageBuffers", "--entry CSMain")
put("hlsl_set_20.hlsl", "[[vk::binding(0, 20)]] RWStructuredBuffer<uint> o;\n[numthreads(64, 1, 1)]\nvoid CSMain(uint3 id : SV_DispatchThreadID) { o[id.x] = 1; }\n",
    3, "maxBoundDescriptorSets", "--entry CSMain")
put("hlsl_push_256.hlsl", "struct P { uint4 a[16]; };\n[[vk::push_constant]] ConstantBuffer<P> pc;\nRWStructuredBuffer<uint> o : register(u0);\n"
    "[numthreads(64, 1, 1)]\nvoid CSMain(uint3 id : SV_DispatchThreadID) { o[id.x] = pc.a[0].x + pc.a[15].w; }\n", 3, "maxPushConstantsSize", "--entry CSMain")
put("hlsl_syntax.hlsl", "[numthreads(64,1,1)] void CSMain( { }\n", 2, "does not compile", "--entry CSMain")
# glslang crashes on a lone undefined name in numthreads (compile/compile.c checks it first); defined, it measures
put("hlsl_numthreads_undefined.hlsl", HL.replace("numthreads(64, 1, 1)", "numthreads(LOCAL_SIZE_X, 1, 1)"), 2,
    "names 'LOCAL_SIZE_X', which nothing defines", "--entry CSMain")
entries.append(("hlsl_numthreads_undefined.hlsl", 0, "P", "--entry CSMain --define LOCAL_SIZE_X=64"))
put("hlsl_infinite.hlsl", HL.replace("o[id.x] = id.x;", "uint i = 0; while (o[1] == 0) { i++; } o[0] = i;"), 0, "P", "--entry CSMain")

# ---------------------------------------------------------------- SPIR-V assembly
HEAD = """OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "{entry}"
OpExecutionMode %main LocalSize {lx} {ly} {lz}
{decos}
%void = OpTypeVoid
%fn = OpTypeFunction %void
%uint = OpTypeInt 32 0
%sb = OpTypeStruct %uint
%psb = OpTypePointer StorageBuffer %sb
%var = OpVariable %psb StorageBuffer
%main = OpFunction %void None %fn
%l = OpLabel
OpReturn
OpFunctionEnd
"""
DECO = "OpDecorate %sb Block\nOpMemberDecorate %sb 0 Offset 0\nOpDecorate %var DescriptorSet {set}\nOpDecorate %var Binding 0"


def asm(name, text, code, sub, args="", version="1.3"):
    src = os.path.join(HERE, name + "asm")
    with open(src, "w") as f:
        f.write(text)
    subprocess.run(["spirv-as", "--target-env", "spv" + version, src, "-o", os.path.join(HERE, name)], check=True)
    entries.append((name, code, sub, args))


def mod(entry="main", lx=64, ly=1, lz=1, set_=0):
    return HEAD.format(entry=entry, lx=lx, ly=ly, lz=lz, decos=DECO.format(set=set_))


asm("asm_ok.spv", mod(), 0, "P")
asm("asm_set_2048.spv", mod(set_=2048), 3, "set indices 0..2048")
asm("asm_set_4294967295.spv", mod(set_=4294967295), 3, "4294967296 descriptor sets")
asm("asm_set_8.spv", mod(set_=8), 3, "maxBoundDescriptorSets = 8")
asm("asm_entry_200.spv", mod(entry="x" * 200), 3, "name is 200 bytes long")
asm("asm_entry_127.spv", mod(entry="y" * 127), 0, "P")
asm("asm_entry_128.spv", mod(entry="z" * 128), 3, "name is 128 bytes long")
asm("asm_wg_65536x65536.spv", mod(lx=65536, ly=65536), 2, "maxComputeWorkGroupSize[0] = 1024")
asm("asm_wg_0.spv", mod(lx=0), 2, "could not be determined")
asm("asm_wg_1024x1024x1024.spv", mod(lx=1024, ly=1024, lz=1024), 2, "maxComputeWorkGroupInvocations = 1024")
asm("asm_kernel_cap.spv", "OpCapability Kernel\n" + mod(), 2, "does not validate")
def with_cap(cap, ext):
    return mod().replace("OpCapability Shader\n", "OpCapability Shader\nOpCapability %s\nOpExtension \"%s\"\n" % (cap, ext))


asm("asm_int64_image_cap.spv", with_cap("Int64ImageEXT", "SPV_EXT_shader_image_int64"), 3, "capability Int64ImageEXT")
asm("asm_float_controls.spv", with_cap("DenormPreserve", "SPV_KHR_float_controls"), 3, "capability DenormPreserve")
asm("asm_atomic_float64_cap.spv", with_cap("AtomicFloat64AddEXT", "SPV_EXT_shader_atomic_float_add"), 3, "capability AtomicFloat64AddEXT")
asm("asm_binding_100000.spv", mod().replace("OpDecorate %var Binding 0", "OpDecorate %var Binding 100000"), 3, "binding numbers above 4095")
asm("asm_set_100.spv", mod(set_=100), 3, "maxBoundDescriptorSets = 8")
asm("asm_fragment_only.spv", """OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint Fragment %main "main"
OpExecutionMode %main OriginUpperLeft
%void = OpTypeVoid
%fn = OpTypeFunction %void
%main = OpFunction %void None %fn
%l = OpLabel
OpReturn
OpFunctionEnd
""", 2, "no compute entry point")
asm("asm_two_compute.spv", """OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %a "first"
OpEntryPoint GLCompute %b "second"
OpExecutionMode %a LocalSize 64 1 1
OpExecutionMode %b LocalSize 32 1 1
%void = OpTypeVoid
%fn = OpTypeFunction %void
%a = OpFunction %void None %fn
%la = OpLabel
OpReturn
OpFunctionEnd
%b = OpFunction %void None %fn
%lb = OpLabel
OpReturn
OpFunctionEnd
""", 2, "several compute entry points")
entries.append(("asm_two_compute.spv", 0, "P", "--entry second"))
entries.append(("asm_two_compute.spv", 2, "no entry point 'third'", "--entry third"))
asm("asm_aliased_binding.spv", mod().replace("%main = OpFunction", "%var2 = OpVariable %psb StorageBuffer\n%main = OpFunction").replace(
    "OpDecorate %var Binding 0", "OpDecorate %var Binding 0\nOpDecorate %var2 DescriptorSet 0\nOpDecorate %var2 Binding 0"), 3, "declared twice")
asm("asm_bad_id.spv", mod().replace("%var = OpVariable %psb StorageBuffer", "%var = OpVariable %nope StorageBuffer"), 2, "does not validate")
# shared memory from a 64-bit-wrapping nested array with literal lengths
asm("asm_shared_wrap.spv", """OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main" %s
OpExecutionMode %main LocalSize 64 1 1
%void = OpTypeVoid
%fn = OpTypeFunction %void
%uint = OpTypeInt 32 0
%big = OpConstant %uint 4294967295
%a1 = OpTypeArray %uint %big
%a2 = OpTypeArray %a1 %big
%a3 = OpTypeArray %a2 %big
%pw = OpTypePointer Workgroup %a3
%s = OpVariable %pw Workgroup
%main = OpFunction %void None %fn
%l = OpLabel
OpReturn
OpFunctionEnd
""", 2, "at least 4294967295 bytes", version="1.4")

# ---------------------------------------------------------------- malformed binaries
def binary(name, data, code, sub, args=""):
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(data)
    entries.append((name, code, sub, args))


with open(os.path.join(HERE, "asm_ok.spv"), "rb") as f:
    OK = f.read()
words = list(struct.unpack("<%dI" % (len(OK) // 4), OK))
binary("bin_empty.spv", b"", 2, "shorter than the 5-word header")
binary("bin_3_bytes.spv", OK[:3], 2, "not a whole number of words")
binary("bin_header_only.spv", OK[:20], 2, "no compute entry point")
binary("bin_wrong_magic.spv", struct.pack("<I", 0x07230202) + OK[4:], 2, "wrong magic number")
binary("bin_big_endian.spv", b"".join(struct.pack(">I", w) for w in words), 2, "wrong magic number")
binary("bin_version_2_0.spv", OK[:4] + struct.pack("<I", 0x20000) + OK[8:], 2, "is not one vkocc knows")
binary("bin_truncated.spv", OK[:len(OK) - 12], 2, "truncated or corrupt")
w = list(words); w[5] = (0xFFFF << 16) | (w[5] & 0xFFFF)
binary("bin_length_past_end.spv", struct.pack("<%dI" % len(w), *w), 2, "truncated or corrupt")
w = list(words); w[5] = w[5] & 0xFFFF
binary("bin_length_zero.spv", struct.pack("<%dI" % len(w), *w), 2, "truncated or corrupt")
w = list(words); w[3] = 0xFFFFFFFF
binary("bin_bound_max.spv", struct.pack("<%dI" % len(w), *w), 3, "id bound 4294967295")
w = list(words); w[3] = 1
binary("bin_bound_1.spv", struct.pack("<%dI" % len(w), *w), 2, "does not validate")
binary("bin_random_words.spv", OK[:20] + bytes(random.Random(3).randrange(256) for _ in range(400)), 2, "")

# ---------------------------------------------------------------- bit flips of valid modules (outcomes recorded)
bases = {}
for src in ["reduction.comp", "uniform_image.comp", "histogram.comp"]:
    out = os.path.join(HERE, "base_" + src.replace(".comp", ".spv"))
    subprocess.run(["glslc", "--target-env=vulkan1.1", "-O", os.path.join(HERE, "..", "shaders", src), "-o", out], check=True)
    with open(out, "rb") as f:
        bases[src] = f.read()
    os.remove(out)
rng = random.Random(20261124)
flips = []
for k in range(36):
    src = ["reduction.comp", "uniform_image.comp", "histogram.comp"][k % 3]
    data = bytearray(bases[src])
    n = len(data) // 4
    for _ in range(1 + k % 3):
        at = rng.randrange(5, n)
        word = struct.unpack_from("<I", data, at * 4)[0]
        word = word ^ (1 << rng.randrange(32)) if k % 4 else rng.randrange(1 << 32)
        struct.pack_into("<I", data, at * 4, word)
    name = "flip_%02d_%s" % (k, src.replace(".comp", ".spv"))
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(bytes(data))
    flips.append(name)

old = {}
mpath = os.path.join(HERE, "MANIFEST")
if os.path.exists(mpath):
    for line in open(mpath):
        if line.startswith("flip_"):
            p = line.rstrip("\n").split("\t")
            old[p[0]] = (int(p[1]), p[2], p[3] if len(p) > 3 else "")
if len(sys.argv) > 2 and sys.argv[1] == "--record":
    env = dict(os.environ, LP_NUM_THREADS="2", XDG_CACHE_HOME="/tmp/vkocc-hostile-record")
    for name in flips:
        r = subprocess.run([sys.argv[2], "calc", "--shader", os.path.join(HERE, name), "--json"], capture_output=True, text=True,
                           env=env, timeout=120)
        msg = r.stderr.strip().splitlines()[-1] if r.stderr.strip() else ""
        sub = "P" if r.returncode == 0 else msg.split(": ", 2)[-1][:48]
        old[name] = (r.returncode, sub, "")
        print(name, r.returncode, msg[:150])
for name in flips:
    code, sub, args = old.get(name, (-1, "UNRECORDED", ""))
    entries.append((name, code, sub, args))

with open(mpath, "w") as f:
    f.write("# FILE\tEXIT\tSUBSTRING (P: exit 0 with 1 <= P <= LP_NUM_THREADS)\tARGS  (written by generate.py)\n")
    for e in entries:
        f.write("%s\t%d\t%s\t%s\n" % e)
print(len(entries), "cases,", len(set(e[0] for e in entries)), "modules")
