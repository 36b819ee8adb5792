#version 450
// Test fixture: out[i] = 2 * in[i], ITEMS consecutive elements per invocation. Deliberately wrong for one
// value of a specialization constant: with ITEMS == 8 each invocation leaves its last element unwritten, so
// the poisoned output shows it; the tuner must detect that and never choose it.
layout(local_size_x_id = 0) in;
layout(constant_id = 0) const uint WG = 64;
layout(constant_id = 1) const uint ITEMS = 1;
layout(std430, set = 0, binding = 0) readonly buffer In { uint a[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Out { uint b[]; };
layout(push_constant) uniform Push { uint n; };

void main() {
  uint first = gl_GlobalInvocationID.x * ITEMS;
  uint items = ITEMS == 8 ? ITEMS - 1 : ITEMS;   // the bug
  for (uint k = 0; k < items; k++)
    if (first + k < n) b[first + k] = 2 * a[first + k];
}
