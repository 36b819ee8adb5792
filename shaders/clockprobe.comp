#version 450
// Clock evidence beside a timed batch (core/clockprobe.c): one invocation spins a short dependent chain and
// reads the subgroup clock (clockARB, SM cycles) and the device clock (clockRealtimeEXT) around it; their
// ratio is the SM clock in realtime ticks. Writes 4 words at slot * 4: realtime delta, clock delta, the
// sink, the stamp of the recording (so a reading recorded and not yet run reads as none). The low words suffice: a spin lasts microseconds.
#extension GL_EXT_shader_realtime_clock : require
#extension GL_ARB_shader_clock : require
layout(local_size_x = 1) in;
layout(push_constant) uniform PC { uint rounds; uint slot; uint stamp; } pc;
layout(std430, binding = 0) buffer Out { uint o[]; };

void main() {
  uvec2 rt0 = clockRealtime2x32EXT();
  uvec2 c0 = clock2x32ARB();
  uint x = pc.slot + 12345u;
#define STEP x = x * 1664525u + 1013904223u; x ^= x >> 13;
#define STEP8 STEP STEP STEP STEP STEP STEP STEP STEP
#define STEP64 STEP8 STEP8 STEP8 STEP8 STEP8 STEP8 STEP8 STEP8
  for (uint j = 0u; j < pc.rounds; ++j) { // bounded: the host caps rounds
    STEP64 STEP64 STEP64 STEP64
  }
  uvec2 c1 = clock2x32ARB();
  uvec2 rt1 = clockRealtime2x32EXT();
  uint base = pc.slot * 4u;
  o[base] = rt1.x - rt0.x;
  o[base + 1u] = c1.x - c0.x;
  o[base + 2u] = x;
  o[base + 3u] = pc.stamp;
}
