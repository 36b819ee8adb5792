groupshared uint s[9000];
RWStructuredBuffer<uint> o : register(u0);
[numthreads(64, 1, 1)]
void CSMain(uint3 id : SV_DispatchThreadID) { s[id.x] = 1; GroupMemoryBarrierWithGroupSync(); o[id.x] = s[8999]; }
