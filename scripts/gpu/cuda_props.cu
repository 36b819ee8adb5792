// Ground truth from CUDA on the same machine: device properties and, for every (block size, shared
// bytes) point, cudaOccupancyMaxActiveBlocksPerMultiprocessor for a kernel that, like vkocc's probe,
// uses few registers and the given dynamic shared memory. Prints JSON on stdout.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void probe_like(unsigned *out) {
  extern __shared__ unsigned s[];
  s[threadIdx.x] = threadIdx.x;
  __syncthreads();
  if (s[(threadIdx.x * 7) % blockDim.x] == 0xFFFFFFFFu) out[blockIdx.x] = 1;
}

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e)); return 1; } } while (0)

// cudaOccupancyMaxActiveBlocksPerMultiprocessor over vkocc's probe grid, as a JSON array.
static int print_grid(int sms) {
  const int wgs[] = {32, 64, 96, 128, 192, 256, 384, 512, 768, 1024};
  const int shm[] = {0, 1024, 4096, 8192, 16384, 32768, 49152};
  printf("[\n");
  for (int a = 0; a < 10; a++)
    for (int b = 0; b < 7; b++) {
      int blocks = 0;
      CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, probe_like, wgs[a], shm[b] ? shm[b] : 4));
      printf("%s    {\"wg\": %d, \"shared\": %d, \"blocks_per_sm\": %d, \"P\": %d}", a + b ? ",\n" : "", wgs[a],
             shm[b], blocks, blocks * sms);
    }
  printf("\n  ]");
  return 0;
}

int main() {
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  int clock_khz = 0;
  cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0);
  CK(cudaFuncSetAttribute(probe_like, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)p.sharedMemPerBlockOptin));
  printf("{\n  \"name\": \"%s\",\n  \"cc\": \"%d.%d\",\n  \"multiProcessorCount\": %d,\n", p.name, p.major, p.minor,
         p.multiProcessorCount);
  printf("  \"maxBlocksPerMultiProcessor\": %d,\n  \"maxThreadsPerMultiProcessor\": %d,\n  \"warpSize\": %d,\n",
         p.maxBlocksPerMultiProcessor, p.maxThreadsPerMultiProcessor, p.warpSize);
  printf("  \"maxWarpsPerMultiProcessor\": %d,\n", p.maxThreadsPerMultiProcessor / p.warpSize);
  printf("  \"sharedMemPerMultiprocessor\": %zu,\n  \"sharedMemPerBlock\": %zu,\n  \"sharedMemPerBlockOptin\": %zu,\n",
         p.sharedMemPerMultiprocessor, p.sharedMemPerBlock, p.sharedMemPerBlockOptin);
  printf("  \"reservedSharedMemPerBlock\": %zu,\n  \"regsPerMultiprocessor\": %d,\n  \"clockRate_kHz\": %d,\n",
         p.reservedSharedMemPerBlock, p.regsPerMultiprocessor, clock_khz);
  printf("  \"occupancy\": ");
  if (print_grid(p.multiProcessorCount)) return 1;
  // The same grid with the shared-memory carveout asked down to 100 KiB (the driver rounds the percentage
  // to a supported configuration): what a CUDA kernel gets when configured like the Vulkan pipelines.
  int pct = (int)(100.0 * 102400 / p.sharedMemPerMultiprocessor); // rounded down: the driver rounds up to a step
  CK(cudaFuncSetAttribute(probe_like, cudaFuncAttributePreferredSharedMemoryCarveout, pct));
  printf(",\n  \"carveout_percent\": %d,\n  \"occupancy_carveout_100k\": ", pct);
  if (print_grid(p.multiProcessorCount)) return 1;
  printf("\n}\n");
  return 0;
}
