// Ground truth for vkocc's register axis, from CUDA on the same machine: the device properties that bound
// occupancy (cudaGetDeviceProperties: regsPerMultiprocessor, regsPerBlock, maxThreadsPerMultiProcessor, ...) and,
// for every block size given on the command line and every register count 1..255, the resident blocks per SM
// that CUDA's header-only calculator computes (cuda_occupancy.h, cudaOccMaxActiveBlocksPerMultiprocessor with
// numRegs set), with the register limit alone and the limiting factors. Also the same from a real kernel's
// attributes (cudaFuncGetAttributes) with numRegs overridden. Prints JSON on stdout.
//   nvcc -O2 -o cuda_regs cuda_regs.cu && ./cuda_regs 64 128 256 512 768 1024
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <cuda_occupancy.h>

__global__ void plain(unsigned *out) { out[blockIdx.x * blockDim.x + threadIdx.x] = threadIdx.x; }

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e)); return 1; } } while (0)

int main(int argc, char **argv) {
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  cudaFuncAttributes fa;
  CK(cudaFuncGetAttributes(&fa, plain));
  printf("{\n  \"name\": \"%s\",\n  \"cc\": \"%d.%d\",\n  \"multiProcessorCount\": %d,\n", p.name, p.major, p.minor,
         p.multiProcessorCount);
  printf("  \"regsPerMultiprocessor\": %d,\n  \"regsPerBlock\": %d,\n  \"maxThreadsPerMultiProcessor\": %d,\n",
         p.regsPerMultiprocessor, p.regsPerBlock, p.maxThreadsPerMultiProcessor);
  printf("  \"maxBlocksPerMultiProcessor\": %d,\n  \"warpSize\": %d,\n  \"maxThreadsPerBlock\": %d,\n",
         p.maxBlocksPerMultiProcessor, p.warpSize, p.maxThreadsPerBlock);
  printf("  \"sharedMemPerMultiprocessor\": %zu,\n  \"sharedMemPerBlockOptin\": %zu,\n", p.sharedMemPerMultiprocessor,
         p.sharedMemPerBlockOptin);
  printf("  \"plain_kernel_numRegs\": %d,\n  \"occupancy\": [\n", fa.numRegs);
  cudaOccDeviceProp prop(p);
  cudaOccDeviceState state;
  bool first = true;
  for (int a = 1; a < argc; a++) {
    int bs = atoi(argv[a]);
    if (bs <= 0 || bs > p.maxThreadsPerBlock) continue;
    for (int r = 1; r <= 255; r++) {
      cudaOccFuncAttributes attr(fa);
      attr.numRegs = r;
      attr.maxThreadsPerBlock = p.maxThreadsPerBlock;
      cudaOccResult res;
      cudaOccError e = cudaOccMaxActiveBlocksPerMultiprocessor(&res, &prop, &attr, &state, bs, 0);
      printf("%s    {\"wg\": %d, \"regs\": %d, \"status\": %d, \"blocks_per_sm\": %d, \"limit_regs\": %d, "
             "\"limit_warps\": %d, \"limit_blocks\": %d, \"limiting\": %u, \"P\": %d}",
             first ? "" : ",\n", bs, r, (int)e, e == CUDA_OCC_SUCCESS ? res.activeBlocksPerMultiprocessor : -1,
             res.blockLimitRegs, res.blockLimitWarps, res.blockLimitBlocks, res.limitingFactors,
             e == CUDA_OCC_SUCCESS ? res.activeBlocksPerMultiprocessor * p.multiProcessorCount : -1);
      first = false;
    }
  }
  printf("\n  ]\n}\n");
  return 0;
}
