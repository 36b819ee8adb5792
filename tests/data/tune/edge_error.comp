#version 450
// Test fixture: out[i] = (i + 1) / 2, exactly the reference, but for one element: the first, the middle or the
// last (POS 0, 1, 2), off by nothing, half the validation threshold or twice it (DEV 0, 1, 2), relative to the
// element where the spec's compare is relative (push constant `relative`). A validation that loosens its
// threshold or skips an element (the last) lets DEV 2 pass; one that tightens it fails DEV 1.
layout(local_size_x_id = 0) in;
layout(constant_id = 0) const uint WG = 64;
layout(constant_id = 1) const uint POS = 0;
layout(constant_id = 2) const uint DEV = 0;
layout(std430, set = 0, binding = 0) writeonly buffer Out { float b[]; };
layout(push_constant) uniform Push { uint n; float th; uint relative; };

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i >= n) return;
  float want = float(i + 1u) * 0.5;
  uint at = POS == 0u ? 0u : POS == 1u ? n / 2u : n - 1u;
  float d = DEV == 0u ? 0.0 : DEV == 1u ? 0.5 * th : 2.0 * th;
  if (i == at) want += relative != 0u ? want * d : d;
  b[i] = want;
}
