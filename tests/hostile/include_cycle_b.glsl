#include "include_cycle_a.glsl"
