#version 450
// Grid-stride SAXPY (y = a * x + y) launched with P * C workgroups: each invocation handles EPT elements per
// grid step, WG apart, so that consecutive invocations touch consecutive floats.
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint EPT = 1;

layout(std430, binding = 0) readonly buffer X { float x[]; };
layout(std430, binding = 1) buffer Y { float y[]; };
layout(push_constant) uniform PC { uint n; float a; } pc;

void main() {
  uint wg = gl_WorkGroupSize.x;
  uint stride = gl_NumWorkGroups.x * wg * EPT;
  for (uint base = gl_WorkGroupID.x * wg * EPT + gl_LocalInvocationID.x; base < pc.n; base += stride) {
    for (uint e = 0u; e < EPT; ++e) {
      uint i = base + e * wg;
      if (i < pc.n) y[i] = pc.a * x[i] + y[i];
    }
  }
}
