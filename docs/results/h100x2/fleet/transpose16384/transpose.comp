#version 450
// Tiled matrix transpose: out (H x W) = transpose(in (W x H)), row-major floats.
// A workgroup of TILE_X x TILE_Y invocations moves a tile of TILE_X columns x TILE_Y*ELEMS rows; with
// USE_SHARED the tile goes through shared memory (padded by PAD floats per row against bank conflicts) so
// that both the reads and the writes are coalesced; without it each invocation copies its elements directly.
// TILE_X, TILE_Y and ELEMS are specialization constants (no recompile); USE_SHARED and PAD are -D defines.
layout(local_size_x_id = 0, local_size_y_id = 1) in;
layout(constant_id = 0) const uint TILE_X = 16;
layout(constant_id = 1) const uint TILE_Y = 16;
layout(constant_id = 2) const uint ELEMS = 1;

layout(std430, set = 0, binding = 0) readonly buffer In { float a[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Out { float b[]; };
layout(push_constant) uniform Push { uint W; uint H; };

#if USE_SHARED
shared float tile[TILE_Y * ELEMS][TILE_X + PAD];
#endif

void main() {
  uint x0 = gl_WorkGroupID.x * TILE_X, y0 = gl_WorkGroupID.y * TILE_Y * ELEMS;
  uint tx = gl_LocalInvocationID.x, ty = gl_LocalInvocationID.y;
#if USE_SHARED
  for (uint e = 0; e < ELEMS; e++) {
    uint y = y0 + ty + e * TILE_Y, x = x0 + tx;
    if (x < W && y < H) tile[ty + e * TILE_Y][tx] = a[y * W + x];
  }
  barrier();
  // write the tile transposed: consecutive invocations write consecutive columns of the output
  uint rows = TILE_Y * ELEMS, n = TILE_X * TILE_Y;
  for (uint k = ty * TILE_X + tx; k < TILE_X * rows; k += n) {
    uint c = k % rows, r = k / rows;
    uint ox = x0 + r, oy = y0 + c;
    if (ox < W && oy < H) b[ox * H + oy] = tile[c][r];
  }
#else
  for (uint e = 0; e < ELEMS; e++) {
    uint y = y0 + ty + e * TILE_Y, x = x0 + tx;
    if (x < W && y < H) b[x * H + y] = a[y * W + x];
  }
#endif
}
