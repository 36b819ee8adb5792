RWStructuredBuffer<uint> o : register(u0);
[numthreads(LOCAL_SIZE_X, 1, 1)]
void CSMain(uint3 id : SV_DispatchThreadID) { o[id.x] = id.x; }
