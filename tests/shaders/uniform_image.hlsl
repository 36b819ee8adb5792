// A constant buffer, a storage image (RWTexture2D) and a storage buffer in HLSL (entry CSMain).
struct Params { float4 color; uint flag; };
[[vk::binding(0, 0)]] ConstantBuffer<Params> params;
[[vk::binding(1, 0)]] RWTexture2D<float4> img;
[[vk::binding(0, 1)]] RWStructuredBuffer<uint> marker;

[numthreads(8, 8, 1)]
void CSMain(uint3 lt : SV_GroupThreadID, uint3 grp : SV_GroupID, uint lid : SV_GroupIndex) {
  img[lt.xy] = params.color;
  if (lid == 0) marker[grp.x] = 0xC0FFEE + params.flag;
}
