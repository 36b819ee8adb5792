RWStructuredBuffer<uint> o : register(u0);
[numthreads(64, 1, 1)]
void CSMain(uint3 id : SV_DispatchThreadID) { uint i = 0; while (o[1] == 0) { i++; } o[0] = i; }
