struct P { uint4 a[16]; };
[[vk::push_constant]] ConstantBuffer<P> pc;
RWStructuredBuffer<uint> o : register(u0);
[numthreads(64, 1, 1)]
void CSMain(uint3 id : SV_DispatchThreadID) { o[id.x] = pc.a[0].x + pc.a[15].w; }
