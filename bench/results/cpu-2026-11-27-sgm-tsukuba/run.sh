#!/bin/sh
# The model runs of README.md, from the repository root:
#   sh bench/results/cpu-2026-11-27-sgm-tsukuba/run.sh [CACHE_DIR]
# (one process at a time; with a cache of S about 12 min on 2 cores, 5 GB)
set -e
out=bench/results/cpu-2026-11-27-sgm-tsukuba
cache=${1:-/tmp/sgm-s-cache}
row="fill=2,fill_occ='lowest',fill_mis='lowest'"
sp="speckle_size=100,speckle_range=2"
wm="wmedian=3,wmedian_tau=16"
set -- \
  --config "" \
  --config "cost='census-ad'" \
  --config "p2_edge=32" \
  --config "$sp" \
  --config "fill=8" \
  --config "fill=8,fill_occ='lowest'" \
  --config "fill=16" \
  --config "$row" \
  --config "lr=1,fill=8" \
  --config "lr=0,fill=8,fill_median=True" \
  --config "lr=1,fill=8,$sp" \
  --config "lr=1,fill=8,$sp,speckle_after=True" \
  --config "cost='census-ad',fill=8" \
  --config "cost='census-ad',lr=1,fill=8" \
  --config "cost='census-ad',lr=1,fill=8,fill_median=True" \
  --config "cost='census-ad',p1=12,p2=149,lr=1,fill=8,$wm" \
  --config "lr=1,fill=8,$wm" \
  --config "lr=1,fill=8,wmedian=5,wmedian_tau=16" \
  --config "lr=1,$sp,$row,$wm" \
  --config "cost='census-ad',fill=8,$wm" \
  --config "cost='census-ad',lr=1,fill=8,$wm" \
  --config "cost='census-ad',lr=1,fill=8,$wm,$sp" \
  --config "cost='census-ad',p2_edge=32,lr=1,fill=8,$wm" \
  --config "p2_edge=32,fill=8" \
  --config "p2_edge=32,lr=1,fill=8" \
  --config "p2_edge=32,fill=8,$wm" \
  --config "p2_edge=32,lr=1,fill=8,$wm" \
  --config "p2_edge=32,lr=1,$sp,fill=8,$wm" \
  --config "p2_edge=32,lr=1,$sp,fill=8,$wm,fill_occ='lowest'" \
  --config "p2_edge=32,lr=1,$sp,fill=16,$wm" \
  --config "p2_edge=32,lr=1,$sp,fill=8,$wm,occ_tol=1" \
  --config "p2_edge=32,lr=1,$sp,$row,$wm" \
  --config "p2_edge=32,lr=1,$row,$wm" \
  --config "p2_edge=32,$row,$wm" \
  --config "p2_edge=32,$sp,$row,$wm" \
  --config "p2_edge=32,lr=1,$sp,$row" \
  --config "p2_edge=32,lr=1,$sp,$row,wmedian=2,wmedian_tau=16" \
  --config "p2_edge=32,lr=1,$sp,$row,wmedian=4,wmedian_tau=16" \
  --config "p2_edge=32,lr=1,$sp,$row,wmedian=3,wmedian_tau=8" \
  --config "p2_edge=32,lr=1,$sp,$row,wmedian=3,wmedian_tau=32" \
  --config "p2_edge=16,lr=1,$sp,$row,$wm" \
  --config "p2_edge=64,lr=1,$sp,$row,$wm"
/usr/bin/python3 bench/stereo_sgm_model.py --scenes all --cache "$cache" "$@" > $out/model-all.txt
/usr/bin/python3 bench/stereo_sgm_model.py --scenes derived --cache "$cache" "$@" > $out/model-derived.txt
# the joint median's neighbourhood and threshold with census-ad (README, last table)
set --
for r in 2 3 4 5; do for t in 4 8 16 32; do
  set -- "$@" --config "cost='census-ad',lr=1,fill=8,wmedian=$r,wmedian_tau=$t"
done; done
/usr/bin/python3 bench/stereo_sgm_model.py --scenes all --cache "$cache" "$@" > $out/model-wmedian-grid.txt
