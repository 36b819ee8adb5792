#version 450
// A uniform buffer, a storage image and a storage buffer in two sets (so vkocc's set goes to index 2).
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0) uniform Params { vec4 color; uint flag; } params;
layout(set = 0, binding = 1, rgba8) uniform writeonly image2D img;
layout(std430, set = 1, binding = 0) buffer Marker { uint marker[]; };

void main() {
  imageStore(img, ivec2(gl_LocalInvocationID.xy), params.color);
  if (gl_LocalInvocationIndex == 0u) marker[gl_WorkGroupID.x] = 0xC0FFEEu + params.flag;
}
