#!/usr/bin/env bash
# Issue 21's CLI row on the GPU machine: `cclabel label` of an 800 dpi sheet PNG with --backend auto,
# cpu and cuda, wall time of the whole command (decode, label, count) and the tool's own labelling
# time, median of REPS. The machine has no libtiff or CLI11: build them in from .device/clideps
# (Debian's headers and shared libraries, copied there; see docs/benchmarks.md).
#   OUT=$OUT GEN=<build>/bench/cclabel_gen bash scripts/gpu_cli_row.sh
set -u -o pipefail
cd "$(dirname "$0")/.." || exit 1
OUT=${OUT:-$PWD/gpu-out}
DPI=${DPI:-800}
REPS=${REPS:-3}
D=$PWD/.device/clideps
B=/tmp/build-cli
export LD_LIBRARY_PATH=$D/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
bench=OFF
[ -n "${GEN:-}" ] || bench=ON  # alone: the generator is built here too
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCCLABEL_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DCCLABEL_BUILD_TESTS=OFF -DCCLABEL_BUILD_BENCH=$bench -DCCLABEL_BUILD_CLI=ON -DCLI11_DIR=$D/share/cmake/CLI11 \
  -DTIFF_INCLUDE_DIR=$D/include -DTIFF_LIBRARY=$D/lib/libtiff.so.6 -DCMAKE_EXE_LINKER_FLAGS="-Wl,-rpath-link,$D/lib" \
  >"$OUT/cli_build.log" 2>&1 && ninja -C $B -j16 cclabel_cli >>"$OUT/cli_build.log" 2>&1 || { tail -20 "$OUT/cli_build.log"; exit 1; }
tool=$B/src/cli/cclabel
[ -x "$tool" ] || { echo "no $tool"; exit 1; }
if [ -z "${GEN:-}" ]; then  # alone: build the generator too
  ninja -C $B -j16 cclabel_gen >>"$OUT/cli_build.log" 2>&1 || true
  GEN=$(find $B -name cclabel_gen -type f | head -1)
fi
png=/tmp/sheet$DPI.png
"$GEN" drawing --dpi "$DPI" -o /tmp/sheet$DPI.npy >/dev/null &&
  python3 -c "import numpy as np, cv2, sys; a = np.load('/tmp/sheet$DPI.npy'); cv2.imwrite('$png', a[..., ::-1], [cv2.IMWRITE_PNG_COMPRESSION, 1])" ||
  { echo "could not write $png"; exit 1; }
rm -f /tmp/sheet$DPI.npy
echo "sheet $DPI dpi PNG: $(stat -c %s $png) bytes; $tool" | tee "$OUT/cli_row.txt"
# VARIANTS="name:ENV=value,... name2:..." runs `--backend auto` once per variant with those
# environment variables (e.g. CCLABEL_CLI_OFF=ahead) and CCLABEL_TRACE_AUTO=1, the traces kept,
# instead of the cpu / cuda / auto rows.
if [ -n "${VARIANTS:-}" ]; then
  for v in cpu:CCLABEL_RATES=cpu $VARIANTS; do
    name=${v%%:*}
    envs=$(echo "${v#*:}" | tr ',' ' ')
    s=$(date +%s.%N)
    env CCLABEL_TRACE_AUTO=1 CCLABEL_TRACE_THREADS=1 $envs "$tool" label "$png" --backend auto >"$OUT/cli_$name.log" 2>&1
    e=$(date +%s.%N)
    echo "$name ($envs) wall $(python3 -c "print(f'{($e - $s) * 1e3:.0f}')") ms | $(tail -1 "$OUT/cli_$name.log")" |
      tee -a "$OUT/cli_row.txt"
    grep -v "^/tmp" "$OUT/cli_$name.log" | head -12
  done
  exit 0
fi
for backend in cpu cuda auto; do
  for r in $(seq "$REPS"); do
    s=$(date +%s.%N)
    line=$("$tool" label "$png" --backend $backend 2>&1 | tail -1)
    e=$(date +%s.%N)
    echo "$backend wall $(python3 -c "print(f'{($e - $s) * 1e3:.0f}')") ms | $line" | tee -a "$OUT/cli_row.txt"
  done
done
