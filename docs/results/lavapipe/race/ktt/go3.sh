#!/usr/bin/env bash
# KTT side by side on this (otherwise idle) machine: 5 rounds quiet, then 5 beside two yes hogs.
# before = /tmp/h4442-brace/build/vkocc (459d1ed, before racing), after = main at 159adf2 (Release, /tmp/ct-Release/vkocc copied to A), KTT 931c415's vadd
set -u
K=/tmp/ktt/Build/03KernelTuningVulkan
B=/tmp/h4442-brace/build/vkocc
A=/tmp/k14/after-vkocc
FP=$1
O=/tmp/k14
cd /work/main
bash bench/tune/lavapipe-ktt.sh $K $B $A /work/main/bench $O/quiet 5 $FP
yes > /dev/null & h1=$!
yes > /dev/null & h2=$!
bash bench/tune/lavapipe-ktt.sh $K $B $A /work/main/bench $O/hogs 5 $FP
kill $h1 $h2
echo done > $O/done
