#!/bin/bash
# usage: cyc.sh BIN METHOD [extra args]: CPU ms per frame, 1 thread (difference of 450 and 50 pairs)
# (the CPU time of the process, user + system, for 450 and 50 pairs of bench_fast --runs 1:
# the difference over 400 frames; robust to other processes taking the cores,
# unlike wall time)
bin=$1; m=$2; shift 2; extra=("$@")
c() { /usr/bin/time -o /tmp/cyc.t -f "%U %S" $bin --case 1080 --method $m --threads 1 --pairs $1 --runs 1 "${extra[@]}" >/dev/null 2>&1; tail -1 /tmp/cyc.t | awk '{print $1+$2}'; }
a=$(c 50); b=$(c 450)
echo "$m $(echo "($b - $a)/400*1000" | bc -l | cut -c1-6) ms/frame (cpu)"
