#version 450
// out[i] = 2 * in[i] + add for i < n: the kernel of the hostile tuning corpus (generate.py).
layout(local_size_x_id = 0) in;
layout(constant_id = 0) const uint WG = 64;
layout(std430, set = 0, binding = 0) readonly buffer In { uint a[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Out { uint b[]; };
layout(push_constant) uniform Push { uint n; uint add; };

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < n) b[i] = 2 * a[i] + add;
}
