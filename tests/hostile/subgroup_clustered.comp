#version 450
#extension GL_KHR_shader_subgroup_clustered : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Out { uint v[]; } out_;
void main() { out_.v[0] = subgroupClusteredAdd(gl_LocalInvocationIndex, 4); }
