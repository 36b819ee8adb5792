#version 450
// Test fixture for the harness's speed: out[i] = 2 * in[i] over a grid-stride loop. SCALE is a -D define that
// changes nothing in the answer (one compile per value, for the pool that compiles ahead); the workgroup size is a
// specialization constant; the workgroup count (C, or P * C) reaches only the launch, so every C has one pipeline.
layout(local_size_x_id = 0) in;
layout(std430, set = 0, binding = 0) readonly buffer In { uint a[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Out { uint b[]; };
layout(push_constant) uniform Push { uint n; };

void main() {
  uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint i = gl_GlobalInvocationID.x; i < n; i += stride) b[i] = 2u * a[i] + (uint(SCALE) - uint(SCALE));
}
