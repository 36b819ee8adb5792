#!/bin/bash
# KTT side by side: 5 rounds quiet, then 5 beside two yes hogs
K=/tmp/ktt/Build/03KernelTuningVulkan
B=/tmp/h4442-brace/build/vkocc
A=/tmp/h4442-ktt/after-vkocc
FP=$(ls /tmp/h4442-ktt/fingerprint-*.json)
cd /work/h4442
bash bench/tune/lavapipe-ktt.sh $K $B $A /work/h4442/bench /tmp/h4442-ktt/quiet 5 $FP
yes > /dev/null & h1=$!
yes > /dev/null & h2=$!
bash bench/tune/lavapipe-ktt.sh $K $B $A /work/h4442/bench /tmp/h4442-ktt/hogs 5 $FP
kill $h1 $h2
echo done > /tmp/h4442-ktt/done
