#!/usr/bin/env bash
# The main job: set up, build (once), and run the cclabel command-line tool with the given arguments.
#   ./run.sh label examples/plan.png -o plan.npy --background '#ffffff' --preview plan-regions.png
set -euo pipefail
root=$(cd "$(dirname "$0")" && pwd)
"$root/scripts/setup.sh" >&2
build="$root/build/release"
# Reuse the test command's release build where it exists; otherwise configure a lean one.
[[ -f "$build/CMakeCache.txt" ]] ||
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCCLABEL_BUILD_TESTS=OFF -DCCLABEL_BUILD_BENCH=OFF >/dev/null
cmake --build "$build" -j"$(nproc)" --target cclabel_cli >/dev/null
(($#)) || set -- label "$root/examples/plan.png" --background auto
exec "$build/src/cli/cclabel" "$@"
