#version 450
// A tiled 1-D stencil of the kind users write: the workgroup loads a tile of T floats (specialization constant 1)
// into shared memory, then each invocation sums 8 weighted windows of it in 8 accumulators; workgroup size
// constant 0. Its real path runs only when the first word of its buffer holds a magic value (vkocc's dummies are
// zero). Used on the GPU to check that probe/surface --shader give the same P with and without a cached
// fingerprint where shared memory, not registers, limits P.
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint T = 64;
layout(set = 0, binding = 0) buffer Data { uint flag; uint n; float v[]; } data;
shared float tile[T];

void main() {
  if (data.flag != 0x53544E43u) return; // never taken on vkocc's zero-filled buffer
  uint l = gl_LocalInvocationIndex;
  for (uint i = l; i < T; i += gl_WorkGroupSize.x) tile[i] = data.v[gl_WorkGroupID.x * T + i];
  barrier();
  float acc[8];
  for (int k = 0; k < 8; k++) acc[k] = 0.0;
  for (uint i = 0u; i < 8u; i++)
    for (int k = 0; k < 8; k++) acc[k] += tile[(l + i + uint(k)) % T] * float(k + 1);
  float s = 0.0;
  for (int k = 0; k < 8; k++) s += acc[k];
  data.v[gl_GlobalInvocationID.x] = s;
}
