#version 450
// Kernel Tuner's shared-memory matmul (examples/cuda/matmul_shared.cu) in GLSL: C = A * B for WIDTH x WIDTH
// floats; each workgroup computes a (block_size_y * tile_size_y) x (block_size_x * tile_size_x) tile of C.
// This variant takes the parameters as specialization constants (one SPIR-V module for every configuration, no
// compiler at run time; what a GPU run with a stand-in for shaderc can tune).
#define WIDTH 2048
layout(local_size_x_id = 10, local_size_y_id = 11) in;
layout(constant_id = 0) const int block_size_x = 16;
layout(constant_id = 1) const int block_size_y = 16;
layout(constant_id = 2) const int tile_size_x = 1;
layout(constant_id = 3) const int tile_size_y = 1;

layout(std430, binding = 0) writeonly buffer OutC { float C[]; };
layout(std430, binding = 1) readonly buffer InA { float A[]; };
layout(std430, binding = 2) readonly buffer InB { float B[]; };

shared float sA[block_size_y * tile_size_y][block_size_x];
shared float sB[block_size_y * tile_size_y][block_size_x * tile_size_x];

void main() {
  int tx = int(gl_LocalInvocationID.x), ty = int(gl_LocalInvocationID.y);
  int x = int(gl_WorkGroupID.x) * block_size_x * tile_size_x + tx;
  int y = int(gl_WorkGroupID.y) * block_size_y * tile_size_y + ty;
  float sum[tile_size_y][tile_size_x];
  for (int i = 0; i < tile_size_y; i++)
    for (int j = 0; j < tile_size_x; j++) sum[i][j] = 0.0;
  for (int k = 0; k < WIDTH; k += block_size_x) {
    barrier();
    for (int i = 0; i < tile_size_y; i++) {
      sA[ty + block_size_y * i][tx] = A[(y + i * block_size_y) * WIDTH + k + tx];
      for (int j = 0; j < tile_size_x; j++)
        sB[ty + block_size_y * i][tx + j * block_size_x] = B[(k + ty + block_size_y * i) * WIDTH + x + j * block_size_x];
    }
    barrier();
    for (int kb = 0; kb < block_size_x; kb++)
      for (int i = 0; i < tile_size_y; i++)
        for (int j = 0; j < tile_size_x; j++)
          sum[i][j] += sA[ty + block_size_y * i][kb] * sB[kb][tx + j * block_size_x];
  }
  for (int i = 0; i < tile_size_y; i++)
    for (int j = 0; j < tile_size_x; j++)
      C[(y + i * block_size_y) * WIDTH + x + j * block_size_x] = sum[i][j];
}
