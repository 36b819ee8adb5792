#version 450
// MODE is a -D define holding a string-valued parameter's text; the two modes differ only after 79
// characters (written by generate.py).
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) writeonly buffer Out { uint b[]; };
#define AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA1 1u
#define AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA2 2u
void main() { b[gl_GlobalInvocationID.x] = MODE; }
