#!/usr/bin/env bash
# One device call that decides a switch: builds (scripts/gpu_check.sh build), runs the GPU test whose
# switch list flips every switch, then bench_cuda at 800 dpi with the defaults and with the switch
# flipped, interleaved (PAIRS pairs, medians of 15 calls; the first pair checks the labels against
# the CPU backend), then the other GPU tests and compute-sanitizer memcheck while BUDGET seconds
# (default 570) last. Most important first, so a call cut short still brings back the comparison.
#   OUT=$OUT bash scripts/gpu_ab.sh seg_start_zeroes
# Needs .device/googletest carried (see gpu_check.sh). Logs: $OUT/summary.txt, ab.txt, gtest_*.log.
set -u -o pipefail
cd "$(dirname "$0")/.." || exit 1
switch=${1:?usage: gpu_ab.sh SWITCH}
OUT=${OUT:-$PWD/gpu-out}
BUDGET=${BUDGET:-570}
PAIRS=${PAIRS:-3}
export B=${B:-/tmp/build-gpu}
mkdir -p "$OUT"
T0=$SECONDS
left() { echo $((BUDGET - (SECONDS - T0))); }
say() { echo "== [$((SECONDS - T0)) s] $*" | tee -a "$OUT/summary.txt"; }
OUT=$OUT bash scripts/gpu_check.sh build || exit 1
t=$B/tests/cuda/cclabel_cuda_tests
timeout 120 "$t" --gtest_filter='Cuda.RandomImages*:Cuda.BitHelpers*' >"$OUT/gtest_switches.log" 2>&1
say "switch-list test rc=$?: $(grep -E '^\[  (PASSED|FAILED) ' "$OUT/gtest_switches.log" | tr '\n' ' ')"
bench=$B/bench/cuda/bench_cuda
for i in $(seq "$PAIRS"); do
  chk=--no-check
  [ "$i" = 1 ] && chk=""
  for flip in "" "--flip $switch"; do
    # shellcheck disable=SC2086
    timeout 90 "$bench" --dpi 800 --variants 0 --reps 15 --no-host $chk $flip 2>&1 | tee -a "$OUT/ab.txt" |
      grep -E "^800|main table"
  done
  say "pair $i"
done
if [ "$(left)" -gt 100 ]; then
  timeout $(($(left) - 80)) "$t" --gtest_filter='-Cuda.RandomImages*' >"$OUT/gtest_rest.log" 2>&1
  say "other GPU tests rc=$?: $(grep -E '^\[  (PASSED|FAILED) ' "$OUT/gtest_rest.log" | tr '\n' ' ')"
  grep -E "^\[  FAILED" "$OUT/gtest_rest.log" | head
fi
if [ "$(left)" -gt 50 ]; then
  OUT=$OUT SAN_TOOLS=memcheck SAN_TIMEOUT=$(($(left) - 15)) SAN_FILTER='Cuda.RandomImages*:Cuda.EmptyAndTiny' \
    bash scripts/gpu_check.sh sanitize
fi
say "done"
