"""cclabel.label on 3-D volumes on the GPU (CuPy arrays) against cupyx.scipy.ndimage.label and
cucim.skimage.measure.label, the same volumes, the same GPU.

Volumes (default 512^3, as bench/volume_cpu.py's): random binary at densities 0.1, 0.3, 0.5 and 0.9
(uint8 0/1, background 0), smooth blobs (Gaussian-smoothed noise thresholded at its median), 5
labels at random (uint8 1..5, every voxel labelled) and a Voronoi label volume (uint32, about 2,000
cells, no background), each at connectivity 6, 18 and 26. Times: median of --repeat runs after one
unmeasured run, each synchronised (cupy.cuda.Device().synchronize()), labelling alone, the volume
already on the GPU. cclabel's labels are checked equal to its CPU labels (which equal cc3d's) once
per row; the peers' region counts are checked equal to cclabel's. CuPy's label takes binary input
only (nonzero voxels, so its rows are the binary and blob volumes); cuCIM's labels equal values.

    python3 bench/volume_gpu.py [--size 512] [--repeat 5] [--only "binary 0.3,blobs"] [--conn 6,26]
"""
from __future__ import annotations

import argparse
import time

import numpy as np
import cupy
from cupyx.scipy import ndimage as cnd

import cclabel

try:
    from cucim.skimage import measure as cucim_measure
except Exception:  # not installed, or no matching CUDA
    cucim_measure = None


def gpu_ms(fn, repeat):
    fn()
    cupy.cuda.Device().synchronize()
    t = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        cupy.cuda.Device().synchronize()
        t.append((time.perf_counter() - t0) * 1e3)
    return float(np.median(t))


def blobs(n, rng):
    a = cnd.gaussian_filter(cupy.asarray(rng.random((n, n, n), dtype=np.float32)), sigma=4)
    return (a > cupy.median(a)).astype(cupy.uint8)


def voronoi(n, rng, cells=2000):
    from scipy.spatial import cKDTree

    seeds = rng.random((cells, 3)) * n
    g = np.indices((n, n, n), dtype=np.float32).reshape(3, -1).T
    _, idx = cKDTree(seeds).query(g, workers=-1)
    return cupy.asarray((idx.astype(np.uint32) + 1).reshape(n, n, n))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size", type=int, default=512)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--only", default="", help="comma-separated volume names")
    ap.add_argument("--conn", default="6,18,26")
    args = ap.parse_args()
    n = args.size
    rng = np.random.default_rng(0)
    makers = {f"binary {d}": (lambda d=d: (cupy.asarray((rng.random((n, n, n)) < d).astype(np.uint8)), 0))
              for d in (0.1, 0.3, 0.5, 0.9)}
    makers["blobs"] = lambda: (blobs(n, rng), 0)
    makers["5 labels"] = lambda: (cupy.asarray(rng.integers(1, 6, (n, n, n)).astype(np.uint8)), None)
    makers["voronoi 2k"] = lambda: (voronoi(n, rng), None)
    only = [s.strip() for s in args.only.split(",") if s.strip()]
    conns = [int(c) for c in args.conn.split(",")]
    props = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)
    print(f"{n}^3 volumes on {props['name'].decode()}, median of {args.repeat}, cupy {cupy.__version__}, "
          f"cucim {'yes' if cucim_measure else 'not installed'}")
    print(f"{'volume':<11} {'conn':>4} {'cclabel ms':>10} {'GVx/s':>7} {'cupy ms':>9} {'x':>6} {'cucim ms':>9} "
          f"{'x':>6}  check")
    failures = 0
    for name, make in makers.items():
        if only and name not in only:
            continue
        d, bg = make()
        host = cupy.asnumpy(d)
        for conn in conns:
            labels, num = cclabel.label(d, connectivity=conn, background=bg, return_num=True)
            want, want_n = cclabel.label(host, connectivity=conn, background=bg, return_num=True)
            ok = int(num) == want_n and np.array_equal(cupy.asnumpy(labels), want)
            t = gpu_ms(lambda: cclabel.label(d, connectivity=conn, background=bg), args.repeat)
            notes = [] if ok else ["cclabel DIFF"]
            failures += not ok
            t_cupy = t_cucim = float("nan")
            rank = {6: 1, 18: 2, 26: 3}[conn]
            if bg == 0:  # CuPy's label: nonzero voxels of binary volumes
                structure = cnd.generate_binary_structure(3, rank)
                try:
                    _, k = cnd.label(d, structure=structure)
                    if int(k) != want_n:
                        notes.append(f"cupy {int(k)} regions")
                    t_cupy = gpu_ms(lambda: cnd.label(d, structure=structure), args.repeat)
                except Exception as e:
                    notes.append(f"cupy: {type(e).__name__}: {str(e)[:60]}")
            if cucim_measure is not None:
                # No background: one below every value of the volume (skimage's background=-1 idiom).
                cbg = bg if bg is not None else -1
                try:
                    _, k = cucim_measure.label(d, background=cbg, connectivity=rank, return_num=True)
                    if int(k) != want_n:
                        notes.append(f"cucim {int(k)} regions")
                    t_cucim = gpu_ms(lambda: cucim_measure.label(d, background=cbg, connectivity=rank), args.repeat)
                except Exception as e:  # a peer's refusal is a note in the row, not the end of the run
                    notes.append(f"cucim: {type(e).__name__}: {str(e)[:60]}")
            print(f"{name:<11} {conn:>4} {t:>10.3f} {n ** 3 / t * 1e-6:>7.1f} {t_cupy:>9.2f} {t_cupy / t:>6.1f} "
                  f"{t_cucim:>9.2f} {t_cucim / t:>6.1f}  {'ok' if not notes else ', '.join(notes)}", flush=True)
        del d
        cupy.get_default_memory_pool().free_all_blocks()
    raise SystemExit(1 if failures else 0)


if __name__ == "__main__":
    main()
