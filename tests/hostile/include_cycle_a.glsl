#include "include_cycle_b.glsl"
