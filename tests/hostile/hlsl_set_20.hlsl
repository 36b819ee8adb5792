[[vk::binding(0, 20)]] RWStructuredBuffer<uint> o;
[numthreads(64, 1, 1)]
void CSMain(uint3 id : SV_DispatchThreadID) { o[id.x] = 1; }
