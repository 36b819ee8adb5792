#version 450
// Test fixture for racing: out[i] = 2 * in[i] over a grid-stride loop of a few workgroups (lavapipe's cost per
// workgroup would hide the work), after WORK x 64 rounds of an LCG per element that change nothing in
// the answer (the result is compared with n, an even number the LCG's odd values never equal, so the compiler
// cannot drop the loop). WORK is a specialization constant: WORK 6 and 16 are clear losers against WORK 1.
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint WORK = 1u;
layout(std430, set = 0, binding = 0) readonly buffer In { uint a[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Out { uint b[]; };
layout(push_constant) uniform Push { uint n; };

void main() {
  uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint i = gl_GlobalInvocationID.x; i < n; i += stride) {
    uint x = a[i];
    for (uint k = 0u; k < WORK * 64u; k++) x = x * 1664525u + 1013904223u;
    b[i] = 2u * a[i] + ((x | 1u) == n ? 1u : 0u);
  }
}
