// Shared-memory histogram in HLSL (entry CSMain): its real path writes the marker.
[[vk::constant_id(1)]] const uint BINS = 256;
[[vk::binding(0, 0)]] StructuredBuffer<uint> data;
[[vk::binding(1, 0)]] RWStructuredBuffer<uint> hist;
groupshared uint local_hist[256];

[numthreads(64, 1, 1)]
void CSMain(uint3 gid : SV_DispatchThreadID, uint lid : SV_GroupIndex) {
  for (uint i = lid; i < 256; i += 64) local_hist[i] = 0;
  GroupMemoryBarrierWithGroupSync();
  uint prev;
  InterlockedAdd(local_hist[data[gid.x] % BINS], 1, prev);
  GroupMemoryBarrierWithGroupSync();
  for (uint j = lid; j < 256; j += 64) InterlockedAdd(hist[j + 1], local_hist[j] + 1, prev);
  if (lid == 0) hist[0] = 0xC0FFEE;
}
