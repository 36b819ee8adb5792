#!/usr/bin/env bash
# watch.sh LIMIT_S LOG cmd...: runs cmd, and if it outlives LIMIT_S dumps its threads' state, then kills it
lim=$1 log=$2; shift 2
t0=$(date +%s%N)
"$@" >>"$log" 2>&1 & pid=$!
for i in $(seq 1 $((lim * 10))); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
if kill -0 $pid 2>/dev/null; then
  echo "HUNG after ${lim}s: $*" >>"$log"
  for t in /proc/$pid/task/*; do echo "$t $(cat $t/comm) wchan=$(cat $t/wchan) $(awk '{print $3}' $t/stat)" >>"$log"; done
  command -v gdb >/dev/null && gdb -batch -ex "thread apply all bt" -p $pid >>"$log" 2>&1
  kill -9 $pid; wait $pid; echo "rc killed" >>"$log"; return 0 2>/dev/null || exit 0
fi
wait $pid; echo "rc $? $(( ($(date +%s%N) - t0) / 1000000 )) ms: $*" >>"$log"
