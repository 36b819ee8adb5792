#!/usr/bin/env bash
# Builds the carveout experiment into DIR on the Debian machine: the variant SPIR-V
# (docs/results/h100/carveout/program/carveout.comp with one switch at a time, and shaders/probe.comp itself), the manifest and the
# standalone host program. Run on the GPU machine:  DIR/carveout DIR/manifest.txt OUT.json
#   docs/results/h100/carveout/program/build.sh DIR
set -euo pipefail
root=$(cd "$(dirname "$0")/../../../../.." && pwd)
dir=${1:?usage: build.sh DIR}
mkdir -p "$dir/spv"
src=$root/docs/results/h100/carveout/program/carveout.comp
sizes="2048 4096 6144 8192 12288 16384 24576 32768 49152"
glslc --target-env=vulkan1.1 -O -Werror -DHAS_DEVICE_CLOCK -o "$dir/spv/probe.spv" "$root/shaders/probe.comp"
: > "$dir/manifest.txt"
echo "probe $dir/spv/probe.spv" >> "$dir/manifest.txt"
echo "probe_capture $dir/spv/probe.spv capture" >> "$dir/manifest.txt"
variant() { # NAME DEFINES...
  local name=$1; shift
  glslc --target-env=vulkan1.1 -O -Werror "$@" -o "$dir/spv/$name.spv" "$src"
  echo "$name $dir/spv/$name.spv" >> "$dir/manifest.txt"
}
plain="-DCLK64 -DNO_ALU -DNO_CHASE -DNO_MODE -DREAD_LID"
# one switch away from the probe
variant base
for d in CLK64 NO_ALU NO_CHASE NO_MODE NO_FILL NO_BAR1 NO_BAR2 READ_LID NO_READ NO_PUSH; do
  variant "base-$d" -D$d
done
for s in $sizes; do
  glslc --target-env=vulkan1.1 -O -Werror -DLIT_WORDS=$((s / 4))u -o "$dir/spv/base-LIT-$s.spv" "$src"
done
echo "base-LIT $dir/spv/base-LIT-%u.spv" >> "$dir/manifest.txt"
# the plain comb, and one probe feature put back at a time
variant plain $plain
variant plain+CLK2x32 -DNO_ALU -DNO_CHASE -DNO_MODE -DREAD_LID
variant plain+ALU -DCLK64 -DNO_CHASE -DNO_MODE -DREAD_LID
variant plain+MODE -DCLK64 -DNO_ALU -DNO_CHASE -DREAD_LID
variant plain+MODE+CHASE -DCLK64 -DNO_ALU -DREAD_LID
variant plain+HASHREAD -DCLK64 -DNO_ALU -DNO_CHASE -DNO_MODE
variant plain+ALU+CLK2x32 -DNO_CHASE -DNO_MODE -DREAD_LID
variant minimal $plain -DNO_PUSH -DNO_BAR2
cc -O2 -std=c11 -Wall -Wextra -o "$dir/carveout" "$root/docs/results/h100/carveout/program/carveout.c" -lvulkan -ljansson
# spirv-val every variant (a malformed module would make a row meaningless)
for f in "$dir"/spv/*.spv; do spirv-val --target-env vulkan1.1 "$f"; done
wc -l < "$dir/manifest.txt"
