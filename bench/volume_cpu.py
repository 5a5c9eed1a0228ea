"""cclabel.label on 3-D volumes against cc3d (connected-components-3d), on the CPU.

Volumes (default 256^3): random binary at density 0.3 and 0.5 (uint8 0/1, background 0) and
5 labels at random (uint8 1..5, every voxel labelled), each at connectivity 6, 18 and 26. Times
are the best of --repeat runs of labelling alone; cclabel on one thread and on all (threads=0);
every cclabel result is checked equal to cc3d's before it is timed.

    PYTHONPATH=build/py-vol-site python3 bench/volume_cpu.py [--size 256] [--repeat 3]
"""
from __future__ import annotations

import argparse
import os
import time

import numpy as np

import cc3d
import cclabel


def best(fn, repeat):
    t = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        t.append(time.perf_counter() - t0)
    return min(t)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size", type=int, default=256)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    n = args.size
    rng = np.random.default_rng(0)
    volumes = {
        "binary 0.3": ((rng.random((n, n, n)) < 0.3).astype(np.uint8), 0),
        "binary 0.5": ((rng.random((n, n, n)) < 0.5).astype(np.uint8), 0),
        "5 labels": (rng.integers(1, 6, (n, n, n)).astype(np.uint8), None),
    }
    print(f"{n}^3 volumes, best of {args.repeat}, cores {os.cpu_count()}, cc3d {cc3d.__version__ if hasattr(cc3d, '__version__') else ''}")
    print(f"{'volume':<12} {'conn':>4} {'cc3d ms':>9} {'1 thread ms':>12} {'x cc3d':>7} {'all ms':>8} {'x cc3d':>7}")
    for name, (a, bg) in volumes.items():
        for conn in (6, 18, 26):
            want = cc3d.connected_components(a, connectivity=conn)
            got = cclabel.label(a, connectivity=conn, background=bg, threads=1)
            assert np.array_equal(got, want), (name, conn)
            t_cc3d = best(lambda: cc3d.connected_components(a, connectivity=conn), args.repeat)
            t_one = best(lambda: cclabel.label(a, connectivity=conn, background=bg, threads=1), args.repeat)
            t_all = best(lambda: cclabel.label(a, connectivity=conn, background=bg, threads=0), args.repeat)
            print(f"{name:<12} {conn:>4} {t_cc3d * 1e3:>9.1f} {t_one * 1e3:>12.1f} {t_cc3d / t_one:>7.2f} "
                  f"{t_all * 1e3:>8.1f} {t_cc3d / t_all:>7.2f}")


if __name__ == "__main__":
    main()
