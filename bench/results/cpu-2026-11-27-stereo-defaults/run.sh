#!/usr/bin/env bash
# The accuracy table and the CPU speed of the element's new defaults
# (2026-11-27; 2-core machine, CPU backend, OpenCV 4.6), from the repository root.
d=bench/results/cpu-2026-11-27-stereo-defaults
/usr/bin/python3 bench/stereo_accuracy.py --build build --backend cpu \
  --configs block-sad,sgm-census-8-basic,sgm-census-4,sgm-census-8,sgm-census-ad-8,sgm-census-8-refined \
  --opencv bm,sgbm,hh --json $d/accuracy.json > $d/accuracy.txt 2> >(grep -v 'libpng warning' >&2)
/usr/bin/python3 bench/stereo_accuracy.py --build build --speed --bench-stereo build/bench/bench_stereo \
  --configs sgm-census-8-basic,sgm-census-8,sgm-census-8-refined --runs 3 --bench-frames 2 \
  > $d/speed.txt 2> >(grep -v 'libpng warning' >&2)
