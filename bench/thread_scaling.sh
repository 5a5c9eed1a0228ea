#!/usr/bin/env bash
# How the CPU labeller's time falls with threads on small and medium pictures: the figures behind
# Options::threads = 0's rule (at most one thread a kAutoPixelsPerThread pixels, src/core/validate.cpp).
# For each picture, cclabel_time (median of --repeat calls into a reused buffer) at 1, 2, 4, ... up to
# every core, interleaved over ROUNDS rounds; prints one JSON line a measurement.
#   bash bench/thread_scaling.sh BUILD_DIR [ROUNDS]
set -euo pipefail
build=$1
rounds=${2:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gen=$build/bench/cclabel_gen
for side in 256 512 1024 2048; do
  "$gen" binary --width $side --height $side --density 0.5 --granularity 8 --seed 5 -o "$tmp/blocky$side.npy" >/dev/null
  "$gen" binary --width $side --height $side --density 0.5 --granularity 1 --seed 6 -o "$tmp/noise$side.npy" >/dev/null
  "$gen" palette --width $side --height $side --colours 4 --seed 7 -o "$tmp/palette$side.npy" >/dev/null
done
cores=$(nproc)
for r in $(seq "$rounds"); do
  for img in "$tmp"/*.npy; do
    t=1
    while [ $t -le "$cores" ]; do
      echo "{\"round\": $r, \"name\": \"$(basename "$img" .npy)\", \"result\": $("$build/bench/cclabel_time" "$img" --repeat 21 --threads $t)}"
      t=$((t * 2))
    done
  done
done
