#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 The gst-motion authors
#
# The benchmarks, in three modes (details in bench/README.md):
#
#   bench/run.sh [cpu] BUILDDIR [bench_blockmatch options...]
#       The CPU figures of the README: prepares the frames, times FFmpeg's
#       mestimate, then runs bench_blockmatch (with the side-by-side FFmpeg
#       table) and, when it was built, bench_element. MATCH_BENCH_STEPS
#       (default "blockmatch element"; "fast" is extra) picks steps.
#
#   bench/run.sh gpu [LOGDIR [BUILDDIR]]
#       The CUDA benchmark issue on one GPU: sad_peak (the GPU's byte-SAD
#       throughput, when built), then bench_blockmatch and bench_element on
#       the paper cases and case 4, CUDA and CPU (CPU rows only where a frame
#       takes < MATCH_BENCH_CPU_MAX_S seconds). Writes LOGDIR/*.txt and *.csv.
#       MATCH_BENCH_STEPS=streams: how many concurrent 1080p30 streams it
#       sustains (bench_streams; not a default step).
#
#   bench/run.sh multigpu [LOGDIR [BUILDDIR]]
#       Several GPUs (devices 0 and 1): one GPU, parallel split on two and
#       serial split on two, for case 1, case 4 1080p +-16 integer and 1080p
#       and 4K +-32 half-pel; kernel level and through the element.
#
# LOGDIR defaults to bench-out (gpu) or bench-out-multigpu (multigpu);
# BUILDDIR to $BUILD_DIR, else build (relative to the current directory,
# else to the source tree).
#
# Env:   MATCH_BENCH_FRAMES   clips directory (default ${TMPDIR:-/tmp}/gst-motion-bench-frames)
#        cpu mode:
#        MATCH_BENCH_FF_REUSE=1  reuse $MATCH_BENCH_FRAMES/ffmpeg-results.txt if
#                             present (FFmpeg's esa takes minutes)
#        MATCH_BENCH_NO_FFMPEG=1 skip FFmpeg
#        MATCH_BENCH_FF_METHODS, MATCH_BENCH_FF_FRAMES: see ffmpeg-mestimate.sh
#        MATCH_BENCH_STEPS    steps, default "blockmatch element" (blockmatch: FFmpeg
#                             and bench_blockmatch; element: bench_element); "fast":
#                             the gpu mode's fast step on the CPU, shortened
#                             (B-480 and 1080-r32), logs in MATCH_BENCH_LOGDIR
#                             (default bench-out-cpu)
#        gpu / multigpu modes:
#        MATCH_BENCH_STEPS    steps to run, default "peak blockmatch element poc stereo
#                             pipeline fast"
#                             (split long sessions: "peak blockmatch", then "element",
#                             then "poc")
#                             poc: bench_poc on pocme's paper cases, CUDA and CPU
#                             (gpu mode only; needs bench_poc built)
#                             stereo: bench_stereo on stereodisparity's cases (720p
#                             and 1080p, 128 and 256 disparities, 7x7), CUDA and CPU,
#                             plain and with sub-pixel + LR check (gpu mode only)
#                             pipeline: bench_pipeline, pocme and stereodisparity
#                             through the element, CUDA (and CPU for stereo;
#                             stereo CUDA at each MATCH_BENCH_DEPTHS depth)
#                             fast: bench_fast (every search method, CUDA and CPU,
#                             integer grid, its cases) and bench_element
#                             --fast-cases on CUDA: B-480 (paper [B]) hierarchical,
#                             1080-r32 diamond and predictive (gpu mode only)
#                             streams: NOT in the default list (several minutes;
#                             MATCH_BENCH_STEPS=streams): bench_streams, how many
#                             concurrent 1080p30 streams blockmatchme sustains (N
#                             pipelines in one process, 16x16 +-16): CUDA full and
#                             hierarchical unpaced and full paced at 30 fps, N up to
#                             128; the CPU full and hierarchical with a short N list
#                             (gpu mode only)
#        MATCH_BENCH_STREAMS  streams: N list on CUDA (default 1,8,16,32,64,96,128)
#        MATCH_BENCH_STREAMS_CPU  N list on the CPU (default 1,4,16)
#        MATCH_BENCH_STREAMS_SECONDS  seconds per measurement (default 5)
#        SAD_PEAK_GPX         use this peak instead of running sad_peak
#        MATCH_BENCH_CPU_MAX_S  CPU rows only when a frame takes less (default 2)
#        MATCH_BENCH_DEPTHS   pipeline depths to time on CUDA (default "0 3")
#        MATCH_BENCH_DEVICES  multigpu: the two devices (default "0,1")
#        MATCH_BENCH_EXTRA    extra options for both bench programs
set -eu

here=$(cd "$(dirname "$0")" && pwd)

usage() {
  sed -n '5,/^set -eu/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//' >&2
  exit 2
}

mode=cpu
case "${1:-}" in
  cpu) mode=cpu; shift ;;
  gpu) mode=gpu; shift ;;
  multigpu) mode=multigpu; shift ;;
  -h|--help|"") usage ;;
esac

MATCH_BENCH_FRAMES=${MATCH_BENCH_FRAMES:-${TMPDIR:-/tmp}/gst-motion-bench-frames}
export MATCH_BENCH_FRAMES
status=0

# Runs "$@" with stdout and stderr into $log/$name.txt and on the terminal;
# remembers a failure in $status and goes on.
logged() {
  name=$1
  shift
  echo "run.sh: $* > $log/$name.txt" >&2
  rcfile=$log/.rc.$$
  { rc=0; "$@" 2>&1 || rc=$?; echo "$rc" > "$rcfile"; } | tee "$log/$name.txt"
  rc=$(cat "$rcfile" 2>/dev/null || echo 1)
  rm -f "$rcfile"
  if [ "$rc" != 0 ]; then
    echo "run.sh: $name exited with status $rc (see $log/$name.txt)" >&2
    status=1
  fi
  return 0
}

has_step() {
  case " $steps " in *" $1 "*) return 0 ;; esac
  return 1
}


# ---------------------------------------------------------------- cpu mode
if [ "$mode" = cpu ]; then
  steps=${MATCH_BENCH_STEPS:-blockmatch element}
  if [ $# -lt 1 ] || [ ! -d "$1/bench" ] ||
     { has_step blockmatch && [ ! -x "$1/bench/bench_blockmatch" ]; }; then
    echo "usage: $0 [cpu] BUILDDIR [bench_blockmatch options]  (BUILDDIR/bench/bench_blockmatch must exist)" >&2
    exit 2
  fi
  build=$1
  shift

  have_frames=1
  "$here/prepare-frames.sh" "$MATCH_BENCH_FRAMES" >&2 || have_frames=0

  if has_step blockmatch; then
    ffargs=
    results=$MATCH_BENCH_FRAMES/ffmpeg-results.txt
    if [ "$have_frames" = 1 ] && [ "${MATCH_BENCH_NO_FFMPEG:-0}" != 1 ]; then
      if [ "${MATCH_BENCH_FF_REUSE:-0}" = 1 ] && [ -s "$results" ]; then
        echo "run.sh: reusing $results" >&2
      else
        echo "run.sh: timing FFmpeg mestimate (several minutes for esa)..." >&2
        "$here/ffmpeg-mestimate.sh" "$MATCH_BENCH_FRAMES" > "$results.tmp"
        mv "$results.tmp" "$results"
      fi
      ffargs="--ffmpeg $results"
    fi

    # shellcheck disable=SC2086 # ffargs is empty or two words
    "$build/bench/bench_blockmatch" --frames-dir "$MATCH_BENCH_FRAMES" $ffargs "$@"
  fi

  if has_step element && [ -x "$build/bench/bench_element" ]; then
    echo
    "$build/bench/bench_element" --frames-dir "$MATCH_BENCH_FRAMES"
  fi

  # The gpu mode's fast step on the CPU, short: paper [B]'s case and 1080p.
  if has_step fast; then
    log=${MATCH_BENCH_LOGDIR:-bench-out-cpu}
    mkdir -p "$log"
    log=$(cd "$log" && pwd)
    if [ -x "$build/bench/bench_fast" ]; then
      logged fast "$build/bench/bench_fast" --frames-dir "$MATCH_BENCH_FRAMES" --backend cpu \
        --case B-480 --case 1080-r32 --pairs 3 --runs 1
    else
      echo "run.sh: $build/bench/bench_fast not built: bench_fast skipped" >&2
    fi
    if [ -x "$build/bench/bench_element" ]; then
      logged fast_element "$build/bench/bench_element" --frames-dir "$MATCH_BENCH_FRAMES" \
        --fast-cases --case B-480 --method hierarchical --backend cpu --runs 1 \
        --min-run-time 0.2 --csv "$log/fast_element.csv"
      logged fast_element_1080 "$build/bench/bench_element" --frames-dir "$MATCH_BENCH_FRAMES" \
        --fast-cases --case 1080-r32 --method diamond --method predictive --backend cpu \
        --runs 1 --min-run-time 0.2 --csv "$log/fast_element_1080.csv"
    else
      echo "run.sh: $build/bench/bench_element not built (needs gstreamer-app): skipped" >&2
    fi
    echo
    echo "run.sh: fast logs in $log"
  fi
  exit "$status"
fi

# ------------------------------------------------------ gpu / multigpu modes
if [ "$mode" = gpu ]; then
  log=${1:-bench-out}
else
  log=${1:-bench-out-multigpu}
fi
build=${2:-${BUILD_DIR:-build}}
if [ ! -x "$build/bench/bench_blockmatch" ] && [ -z "${2:-}" ] && [ -z "${BUILD_DIR:-}" ] &&
   [ -x "$here/../build/bench/bench_blockmatch" ]; then
  build=$here/../build
fi
if [ ! -x "$build/bench/bench_blockmatch" ]; then
  echo "run.sh: $build/bench/bench_blockmatch not found: build first (meson setup $build -Dcuda=enabled && ninja -C $build)," >&2
  echo "        or give the build directory: $0 $mode LOGDIR BUILDDIR (or BUILD_DIR=...)" >&2
  exit 2
fi
mkdir -p "$log"
log=$(cd "$log" && pwd)
steps=${MATCH_BENCH_STEPS:-peak blockmatch element poc stereo pipeline fast}
cpu_max=${MATCH_BENCH_CPU_MAX_S:-2}
extra=${MATCH_BENCH_EXTRA:-}
depth_bm=
depth_el=
for d in ${MATCH_BENCH_DEPTHS:-0 3}; do
  depth_bm="$depth_bm --depth $d"
  depth_el="$depth_el --pipeline-depth $d"
done

# What ran where.
{
  echo "date:      $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  echo "mode:      $mode; steps: $steps"
  echo "host:      $(uname -n) $(uname -srm)"
  echo "cpu:       $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //'), $(nproc 2>/dev/null || echo '?') cores"
  echo "build:     $(cd "$build" && pwd)"
  echo "source:    $(git -C "$here/.." describe --always --dirty 2>/dev/null || echo '(no git)')"
  echo "frames:    $MATCH_BENCH_FRAMES"
  if command -v nvidia-smi >/dev/null 2>&1; then
    nvidia-smi -L 2>&1 || true
    nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm,clocks.max.mem,power.limit,persistence_mode --format=csv 2>&1 || true
  else
    echo "nvidia-smi: not found"
  fi
} > "$log/env.txt" 2>&1
cat "$log/env.txt"

"$here/prepare-frames.sh" "$MATCH_BENCH_FRAMES" >&2 ||
  echo "run.sh: prepare-frames made no clips: the benchmarks use the clips already in $MATCH_BENCH_FRAMES (resampled to other sizes), else synthetic frames, and say which" >&2

# The GPU's byte-SAD throughput: the compute floor.
peak=${SAD_PEAK_GPX:-}
if [ -n "$peak" ]; then
  echo "run.sh: SAD_PEAK_GPX=$peak from the environment" >&2
elif has_step peak; then
  if [ -x "$build/bench/sad_peak" ]; then
    logged sad_peak "$build/bench/sad_peak"
    peak=$(sed -n 's/^SAD_PEAK_GPX[[:space:]]*//p' "$log/sad_peak.txt" | tail -n 1)
    [ -n "$peak" ] || echo "run.sh: sad_peak printed no SAD_PEAK_GPX: floor columns stay empty" >&2
  else
    echo "run.sh: $build/bench/sad_peak not built (needs the CUDA build): floor columns stay empty" >&2
  fi
elif [ -s "$log/sad_peak.txt" ]; then
  peak=$(sed -n 's/^SAD_PEAK_GPX[[:space:]]*//p' "$log/sad_peak.txt" | tail -n 1)
fi
peakarg=
[ -n "$peak" ] && peakarg="--peak-gpx $peak"

el=$build/bench/bench_element
if [ "$mode" = gpu ]; then
  # Paper cases 1-3 and case 4, CUDA (depths 0 and 3) and CPU where feasible.
  if has_step blockmatch; then
    # shellcheck disable=SC2086
    logged blockmatch "$build/bench/bench_blockmatch" --frames-dir "$MATCH_BENCH_FRAMES" \
      --paper-cases --backend cuda --backend cpu --cpu-max-s "$cpu_max" $depth_bm $peakarg \
      --csv "$log/blockmatch.csv" $extra
  fi
  if has_step element; then
    if [ -x "$el" ]; then
      # shellcheck disable=SC2086
      logged element "$el" --frames-dir "$MATCH_BENCH_FRAMES" --paper-cases --backend cuda \
        --backend cpu --cpu-max-s "$cpu_max" --runs 3 $depth_el --csv "$log/element.csv" $extra
    else
      echo "run.sh: $el not built (needs gstreamer-app): element step skipped" >&2
    fi
  fi
  # pocme (POC) on its paper cases: CUDA with the CPU agreement check, then
  # the CPU (a CUDA row without a CUDA POC backend says "unavailable").
  if has_step poc; then
    if [ -x "$build/bench/bench_poc" ]; then
      # shellcheck disable=SC2086
      logged poc "$build/bench/bench_poc" --frames-dir "$MATCH_BENCH_FRAMES" --paper-cases \
        --backend cuda --backend cpu --frames 10 --runs 3 --csv "$log/poc.csv"
    else
      echo "run.sh: $build/bench/bench_poc not built: poc step skipped" >&2
    fi
  fi
  # stereodisparity's block SAD stereo: CUDA and CPU, plain and with
  # sub-pixel + left-right check (a CUDA row without a device says so).
  if has_step stereo; then
    if [ -x "$build/bench/bench_stereo" ]; then
      logged stereo_plain "$build/bench/bench_stereo" \
        --backend cuda --backend cpu --plain --frames 10 --runs 3 --csv "$log/stereo_plain.csv"
      logged stereo "$build/bench/bench_stereo" \
        --backend cuda --backend cpu --frames 10 --runs 3 --csv "$log/stereo.csv"
      # Semi-global matching with the element's defaults (census 9x7, cost
      # window 3, edge-aware P2 32, 3x3 median, LR check 1, row fill, 7x7
      # joint median), 8 and 4 paths, at 720p/1080p with 128 disparities
      # and libSGM's benchmark size (1024x440); the CPU at 720p.
      sgm_defaults="--method sgm --cost census --cost-window 3 --p2-edge 32 --median --lr 1 --fill --joint-median 3"
      for paths in 8 4; do
        # shellcheck disable=SC2086
        logged "stereo_sgm$paths" "$build/bench/bench_stereo" --backend cuda \
          $sgm_defaults --paths $paths \
          --case 720p-128 --case 1080p-128 --case custom --size 1024x440 --disparities 128 --window 7 \
          --frames 20 --runs 3 --csv "$log/stereo_sgm$paths.csv"
      done
      # shellcheck disable=SC2086
      logged stereo_sgm_cpu "$build/bench/bench_stereo" --backend cpu \
        $sgm_defaults --paths 8 --case 720p-128 \
        --frames 4 --runs 3 --csv "$log/stereo_sgm_cpu.csv"
    else
      echo "run.sh: $build/bench/bench_stereo not built: stereo step skipped" >&2
    fi
  fi
  # Both elements in a pipeline (the issues' "through the element" figures):
  # CUDA for both, the CPU for stereodisparity only (pocme's CPU rows take
  # seconds per frame and are in poc.txt at the matcher level).
  # The CUDA rows at each MATCH_BENCH_DEPTHS pipeline-depth (default 0 and
  # 3; CPU rows run at 0).
  if has_step pipeline; then
    pl=$build/bench/bench_pipeline
    if [ -x "$pl" ]; then
      # shellcheck disable=SC2086
      logged pipeline "$pl" --frames-dir "$MATCH_BENCH_FRAMES" --backend cuda $depth_el \
        --csv "$log/pipeline.csv"
      logged pipeline_layers0 "$pl" --frames-dir "$MATCH_BENCH_FRAMES" --element pocme \
        --backend cuda --layers 0 --csv "$log/pipeline_layers0.csv"
      # shellcheck disable=SC2086
      # stereodisparity's defaults (SGM, census) are in pipeline.csv; this
      # is the plain block SAD of paper [D], as before SGM.
      logged pipeline_plain "$pl" --frames-dir "$MATCH_BENCH_FRAMES" \
        --element stereodisparity --backend cuda --backend cpu --plain $depth_el \
        --set method=block --set cost=sad --set median=false \
        --set fill-invalid=false --set joint-median=0 \
        --csv "$log/pipeline_plain.csv"
      logged pipeline_cpu "$pl" --frames-dir "$MATCH_BENCH_FRAMES" \
        --element stereodisparity --backend cpu --csv "$log/pipeline_cpu.csv"
    else
      echo "run.sh: $pl not built (needs gstreamer-app): pipeline step skipped" >&2
    fi
  fi
  # The search methods: bench_fast (speed, and SAD and agreement with full
  # search, every method, CUDA and CPU, integer grid, its three cases), then
  # through the element on CUDA: paper [B]'s case hierarchical (the issue's
  # > 10,000 fps target), and diamond and predictive at 1080p +-32.
  if has_step fast; then
    if [ -x "$build/bench/bench_fast" ]; then
      logged fast "$build/bench/bench_fast" --frames-dir "$MATCH_BENCH_FRAMES" --backend cuda \
        --backend cpu
    else
      echo "run.sh: $build/bench/bench_fast not built: bench_fast skipped" >&2
    fi
    if [ -x "$el" ]; then
      # shellcheck disable=SC2086
      logged fast_element "$el" --frames-dir "$MATCH_BENCH_FRAMES" --fast-cases --case B-480 \
        --method hierarchical --backend cuda --runs 3 $depth_el --csv "$log/fast_element.csv"
      # shellcheck disable=SC2086
      logged fast_element_1080 "$el" --frames-dir "$MATCH_BENCH_FRAMES" --fast-cases \
        --case 1080-r32 --method diamond --method predictive --backend cuda --runs 3 $depth_el \
        --csv "$log/fast_element_1080.csv"
    else
      echo "run.sh: $el not built (needs gstreamer-app): fast step's element rows skipped" >&2
    fi
  fi
  # Many camera streams on one machine (issue 7): N pipelines appsrc !
  # blockmatchme ! fakesink in one process, 1080p GRAY8, 16x16 +-16; the
  # largest N at which every stream runs at >= 30 fps. CUDA at
  # pipeline-depth 2: unpaced (as fast as each stream goes) for full and
  # hierarchical search, then paced at 30 fps (late frames) for full; the
  # CPU (n-threads = cores / N) with a short N list. Not a default step.
  if has_step streams; then
    st=$build/bench/bench_streams
    if [ -x "$st" ]; then
      sn=${MATCH_BENCH_STREAMS:-1,8,16,32,64,96,128}
      sncpu=${MATCH_BENCH_STREAMS_CPU:-1,4,16}
      ssec=${MATCH_BENCH_STREAMS_SECONDS:-5}
      logged streams "$st" --frames-dir "$MATCH_BENCH_FRAMES" --backend cuda --method full \
        --method hierarchical --block 16 --range 16 --pipeline-depth 2 --streams "$sn" \
        --seconds "$ssec" --csv "$log/streams.csv"
      logged streams_paced "$st" --frames-dir "$MATCH_BENCH_FRAMES" --backend cuda --method full \
        --block 16 --range 16 --pipeline-depth 2 --streams "$sn" --paced --seconds "$ssec" \
        --csv "$log/streams_paced.csv"
      logged streams_cpu "$st" --frames-dir "$MATCH_BENCH_FRAMES" --backend cpu --method full \
        --method hierarchical --block 16 --range 16 --streams "$sncpu" --seconds "$ssec" \
        --csv "$log/streams_cpu.csv"
    else
      echo "run.sh: $st not built (needs gstreamer-app): streams step skipped" >&2
    fi
  fi
else
  devs=${MATCH_BENCH_DEVICES:-0,1}
  first=${devs%%,*}
  cases="--case 1 --case 4-1080 --case 4-2160-r32-half"
  if has_step blockmatch; then
    # shellcheck disable=SC2086
    logged multigpu_blockmatch "$build/bench/bench_blockmatch" --frames-dir "$MATCH_BENCH_FRAMES" \
      $cases --backend cuda --devices "$first" --devices "$devs" --multi-gpu parallel \
      --multi-gpu serial $depth_bm $peakarg --csv "$log/multigpu_blockmatch.csv" $extra
  fi
  if has_step element; then
    if [ -x "$el" ]; then
      # shellcheck disable=SC2086
      logged multigpu_element "$el" --frames-dir "$MATCH_BENCH_FRAMES" $cases --backend cuda \
        --devices "$first" --devices "$devs" --multi-gpu parallel --multi-gpu serial --runs 3 \
        $depth_el --csv "$log/multigpu_element.csv" $extra
    else
      echo "run.sh: $el not built (needs gstreamer-app): element step skipped" >&2
    fi
  fi
fi

echo
echo "run.sh: logs in $log:"
for f in "$log"/*; do
  [ -e "$f" ] && echo "  $(basename "$f")"
done
[ "$status" = 0 ] || echo "run.sh: some step failed or reported differences (see above)" >&2
exit "$status"
