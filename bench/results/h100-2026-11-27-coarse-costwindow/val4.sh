#!/usr/bin/env bash
# Per-kernel GPU time (ncu) of SGM at 1080p/128, 8 and 4 paths, libSGM's settings: 5efff17 vs now.
out=$1; mkdir -p "$out/v"; o=$out/v
build=$(cat .gpu/payload.build)
tar -xJf .gpu/payload.tar.xz
source .gpu/gpu-env.sh .gpu/rt "$build" > /dev/null 2>&1
export MATCH_BENCH_FRAMES=$PWD/.gpu/frames
xz -d -k .gpu/bench_stereo_5efff17.xz 2>/dev/null; chmod +x .gpu/bench_stereo_5efff17
ncu=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
echo "ncu: $ncu"
for bin in .gpu/bench_stereo_5efff17 "$build/bench/bench_stereo"; do
  for p in 8 4; do
    echo "== $bin $p paths"
    "$ncu" --clock-control none --metrics gpu__time_duration.sum,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active \
      --kernel-name regex:'sgm|census|stereo' --launch-skip 30 --launch-count 12 --csv \
      "$bin" --backend cuda --method sgm --cost census --case 1080p-128 --paths $p --frames 10 --runs 1 2>/dev/null \
      > /tmp/ncu.csv
    awk -F'","' '/gpu__time|registers|warps_active/ {k=$5; gsub(/\(anonymous namespace\)::/,"",k); sub(/\(match.*$/,"",k); sub(/^void /,"",k); gsub(/match::cuda::/,"",k); gsub(/ /,"",k); m=$(NF-2); v=$NF; gsub(/[",]/,"",v); s[k" "m]+=v; n[k" "m]++} END {for (x in s) printf "%-70s %10.2f (n=%d)\n", x, s[x]/n[x], n[x]}' /tmp/ncu.csv | sort
  done
done > "$o/ncu.txt" 2>&1
cat "$o/ncu.txt"
cd "$out" && tar czf v-ncu.tar.gz v && rm -rf v
