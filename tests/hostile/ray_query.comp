#version 450

layout(local_size_x = 64) in;
#extension GL_EXT_ray_query : require
layout(set = 0, binding = 0) uniform accelerationStructureEXT as;
layout(set = 0, binding = 1) buffer Out { uint v[]; } out_;
void main() { rayQueryEXT q; rayQueryInitializeEXT(q, as, 0u, 0xFFu, vec3(0), 0.0, vec3(1), 1.0); out_.v[0] = uint(rayQueryProceedEXT(q)); }
