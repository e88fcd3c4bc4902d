#!/bin/bash
# ab.sh ROUNDS BIN... : min over rounds of CPU ms/frame (1 thread), diamond / predictive / predictive 2f
rounds=$1; shift
declare -A best
for r in $(seq $rounds); do
  for b in "$@"; do
    for m in "diamond" "predictive" "predictive --two-frames"; do
      v=$(/tmp/cyc.sh $b $m | awk '{print $2}')
      k="$b|$m"
      if [ -z "${best[$k]}" ] || (( $(echo "$v < ${best[$k]}" | bc -l) )); then best[$k]=$v; fi
    done
  done
done
for b in "$@"; do printf "%-22s" $(basename $b); for m in "diamond" "predictive" "predictive --two-frames"; do printf " %8s" ${best["$b|$m"]}; done; echo; done
