#include "include_self.glsl"
