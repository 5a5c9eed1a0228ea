"""cclabel.label on 3-D volumes against cc3d (connected-components-3d), on the CPU.

Volumes (default 256^3): random binary at densities 0.1, 0.3, 0.5, 0.7 and 0.9 (uint8 0/1,
background 0), smooth blobs (Gaussian-smoothed noise thresholded at its median, uint8 0/1), 5 labels
at random (uint8 1..5, every voxel labelled) and a Voronoi "connectomics-like" label volume (uint32,
about 2,000 cells, nearest of random seeds, no background), each at connectivity 6, 18 and 26.
Times are the best of --repeat runs of labelling alone; cclabel on one thread and on all
(threads=0); every cclabel result is checked equal to cc3d's before it is timed.

    PYTHONPATH=build/py-vol-site python3 bench/volume_cpu.py [--size 256] [--repeat 3]
        [--only "binary 0.3,5 labels"] [--conn 26] [--off NAME[,NAME]] [--cpu-time] [--no-all]

--off turns off ideas of the volume labeller by name (CCLABEL_VOLUME_OFF, read by
src/cpu/label3d_cpu.cpp on each call; never changes the labels): `voxels` (the voxel-wise scan for
short runs: runs everywhere), `runs` (the run scan for long runs: voxels everywhere), `stretches`
(voxels whose code repeats the left one's take its label a stretch at a time), `fg_bits` (rows of
sparse noise visit only their foreground), `byte_runs` (the run scan finds the runs of uint8 rows
32 voxels a compare), `bits` (one-foreground volumes of long runs: runs from bit masks of rows),
`easy` (under 26, rows at least half of whose voxels have left and behind equal fill those 8 at a
time), `gather` (the voxel scan renumbers 8 voxels a gather), `wide_fill` (the run scans write 8
labels a store), `tiles` (volumes without a background scanned as runs tiling each row, and label
volumes at 6), `tiles_cover` (in that scan under 18/26, a run covered by the run behind takes its
set alone), `sparse_first` (the voxel scan's sparse rows visit their foreground before easy rows and
stretches are tried), `behind` (the voxel scan's rows of a later slice whose voxels mostly have the
key of the voxel behind and need no union copy the row behind's labels, the others through the
table), `fused_behind` (those rows of 4-byte keys under 18/26 find the voxels to copy straight from
the keys, codes only for the others), `fixed_hard` (under 6 the behind rows' other voxels check both
union slots, not a loop of the table's count), `packed_rows` (volumes of 80% background or more:
the voxel scan labels into a ring of two slices and stores sparse slices packed, foreground masks
and ids, which the last pass unpacks, instead of writing and rereading every voxel), `mask_codes`
(volumes of 60% background or more: sparse rows whose neighbouring rows have one foreground value
take each foreground voxel's code from bit masks of the rows, not a row of codes), `no_row_roots` (a
volume labelled as one slab, one thread, counts no roots per row after its scan: N is the
numbering's last number), `huge_pages` (the scans' work arrays of 4 MiB or more, reserved for a run
or an id a voxel, on 2 MiB pages: one fault where 4 KiB pages took 512).
"""
from __future__ import annotations

import argparse
import os
import time

import numpy as np

import cc3d


def best(fn, repeat, clock=time.perf_counter):
    t = []
    for _ in range(repeat):
        t0 = clock()
        fn()
        t.append(clock() - t0)
    return min(t)


def blobs(n, rng):
    from scipy import ndimage

    a = ndimage.gaussian_filter(rng.random((n, n, n), dtype=np.float32), sigma=4)
    return (a > np.median(a)).astype(np.uint8)


def voronoi(n, rng, cells=2000):
    from scipy.spatial import cKDTree

    seeds = rng.random((cells, 3)) * n
    g = np.indices((n, n, n), dtype=np.float32).reshape(3, -1).T
    _, idx = cKDTree(seeds).query(g, workers=-1)
    return (idx.astype(np.uint32) + 1).reshape(n, n, n)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size", type=int, default=256)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--only", default="", help="comma-separated volume names")
    ap.add_argument("--conn", default="6,18,26")
    ap.add_argument("--off", default="", help="volume labeller switches to turn off (CCLABEL_VOLUME_OFF)")
    ap.add_argument("--no-all", action="store_true", help="skip the all-threads column")
    ap.add_argument("--cpu-time", action="store_true",
                    help="time cc3d and one thread in processor time (time.process_time), not wall time: "
                         "on a shared machine the waits for a core stay out (the all-threads column stays wall time)")
    args = ap.parse_args()
    if args.off:
        os.environ["CCLABEL_VOLUME_OFF"] = args.off
    import cclabel  # after the environment is set

    n = args.size
    rng = np.random.default_rng(0)
    makers = {f"binary {d}": (lambda d=d: ((rng.random((n, n, n)) < d).astype(np.uint8), 0))
              for d in (0.1, 0.3, 0.5, 0.7, 0.9)}
    makers["blobs"] = lambda: (blobs(n, rng), 0)
    makers["5 labels"] = lambda: (rng.integers(1, 6, (n, n, n)).astype(np.uint8), None)
    makers["voronoi 2k"] = lambda: (voronoi(n, rng), None)
    only = [s.strip() for s in args.only.split(",") if s.strip()]
    conns = [int(c) for c in args.conn.split(",")]
    print(f"{n}^3 volumes, best of {args.repeat}{' (processor time)' if args.cpu_time else ''}, cores {os.cpu_count()}, "
          f"cc3d {getattr(cc3d, '__version__', '')}, off: {args.off or '-'}")
    print(f"{'volume':<12} {'conn':>4} {'cc3d ms':>9} {'1 thread ms':>12} {'x cc3d':>7} {'all ms':>8} {'x cc3d':>7}")
    for name, make in makers.items():
        if only and name not in only:
            continue
        a, bg = make()
        for conn in conns:
            want = cc3d.connected_components(a, connectivity=conn)
            got = cclabel.label(a, connectivity=conn, background=bg, threads=1)
            assert np.array_equal(got, want), (name, conn)
            assert np.array_equal(cclabel.label(a, connectivity=conn, background=bg, threads=0), want), (name, conn)
            clock = time.process_time if args.cpu_time else time.perf_counter
            t_cc3d = best(lambda: cc3d.connected_components(a, connectivity=conn), args.repeat, clock)
            t_one = best(lambda: cclabel.label(a, connectivity=conn, background=bg, threads=1), args.repeat, clock)
            line = f"{name:<12} {conn:>4} {t_cc3d * 1e3:>9.1f} {t_one * 1e3:>12.1f} {t_cc3d / t_one:>7.2f}"
            if not args.no_all:
                t_all = best(lambda: cclabel.label(a, connectivity=conn, background=bg, threads=0), args.repeat)
                line += f" {t_all * 1e3:>8.1f} {t_cc3d / t_all:>7.2f}"
            print(line, flush=True)


if __name__ == "__main__":
    main()
