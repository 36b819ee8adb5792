// Tree reduction in HLSL (entry CSMain).
[[vk::binding(0, 0)]] StructuredBuffer<float> x;
[[vk::binding(1, 0)]] RWStructuredBuffer<float> sums;
groupshared float partial[128];

[numthreads(128, 1, 1)]
void CSMain(uint3 gid : SV_DispatchThreadID, uint3 grp : SV_GroupID, uint lid : SV_GroupIndex) {
  partial[lid] = x[gid.x];
  GroupMemoryBarrierWithGroupSync();
  for (uint s = 64; s > 0; s >>= 1) {
    if (lid < s) partial[lid] += partial[lid + s];
    GroupMemoryBarrierWithGroupSync();
  }
  if (lid == 0) sums[grp.x] = partial[0] + 1.0;
}
