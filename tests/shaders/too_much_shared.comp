#version 450
layout(local_size_x = 64) in;
layout(std430, binding = 0) buffer B { uint v[]; };
shared uint big[1048576];  // 4 MiB: above every device's maxComputeSharedMemorySize
void main() { big[gl_LocalInvocationIndex] = 1u; barrier(); v[gl_LocalInvocationIndex] = big[63u - gl_LocalInvocationIndex]; }
