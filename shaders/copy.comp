#version 450
// A buffer copy by a compute dispatch (core/restore.c, core_copy): 16 bytes per invocation and step, grid-stride.
// On an H100 vkCmdCopyBuffer restored 256 MiB in 0.64 ms (0.84 TB/s read+write), this in 0.19 ms; the harness
// keeps vkCmdCopyBuffer by default (a kernel timed after this copy ran 0.5% slower: core/gpucheck.h).
layout(local_size_x = 256) in;
layout(push_constant) uniform PC { uint n; } pc; // 16-byte words to copy
layout(std430, binding = 0) readonly buffer Src { uvec4 s[]; };
layout(std430, binding = 1) writeonly buffer Dst { uvec4 d[]; };

void main() {
  uint stride = gl_NumWorkGroups.x * 256u;
  for (uint i = gl_GlobalInvocationID.x; i < pc.n; i += stride) d[i] = s[i];
}
