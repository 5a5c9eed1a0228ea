#!/usr/bin/env python3
"""The segment pipeline against the pixel pipeline on every workload of bench/peers.py (issue 26).

Writes each workload of peerbench.workloads.schedule as .npy (the same pictures the peers get) and
runs bench/cuda/bench_pipelines on it: both pipelines on the GPU, picture and labels in device
memory, labels compared. Binary masks and batches take 0 as background, as every peer does; the
sheets run with the paper labelled and as background.

  python3 bench/pipelines.py --build BUILD [--dpi 50,100,200,800] [--quick] [--reps 7]

Prints bench_pipelines' rows; exit code 1 when a pair of label images differed.
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from peerbench.workloads import Generator, schedule  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", type=Path, required=True, help="a CUDA build with bench_pipelines and cclabel_gen")
    ap.add_argument("--dpi", default="50,100,200,800")
    ap.add_argument("--quick", action="store_true", help="peers.py's quick set of binary pictures")
    ap.add_argument("--reps", type=int, default=7)
    args = ap.parse_args()
    bench = args.build / "bench" / "cuda" / "bench_pipelines"
    status = 0
    with tempfile.TemporaryDirectory() as tmp:
        gen = Generator(args.build / "bench" / "cclabel_gen", Path(tmp))
        dpis = [int(d) for d in args.dpi.split(",")]
        late: list[str] = []
        first = True
        for wl in schedule(gen, dpis, args.quick, lambda: False, late):
            path = wl.path
            if path is None or not path.exists():
                path = Path(tmp) / f"w{abs(hash(wl.name))}.npy"
                np.save(path, np.ascontiguousarray(wl.image))
            arg = f"{path}:bg" if wl.background is not None or wl.kind in ("binary", "batch") else str(path)
            r = subprocess.run([str(bench), "--reps", str(args.reps), arg], capture_output=True, text=True)
            lines = r.stdout.splitlines()
            if first:
                print("\n".join(lines[:2]))
                first = False
            for line in lines[2:]:
                print(f"{wl.name:<44.44} {line[41:]}")
            if r.returncode != 0:
                status = 1
                print(r.stderr.strip(), file=sys.stderr)
            sys.stdout.flush()
    return status


if __name__ == "__main__":
    sys.exit(main())
