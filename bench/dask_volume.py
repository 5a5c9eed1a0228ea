#!/usr/bin/env python3
"""cclabel.dask.label on a (Z, Y, X) volume chunked on all three axes (issue 27), on a LocalCluster.

    python3 bench/dask_volume.py --size 2048 --chunk 128 --workers 16 --connectivity 26 --json out.json

1. The volume is made on the workers, chunk by chunk, never whole on the client: smooth blobs
   (--kind blobs: a coarse random lattice, one value every 8 voxels, hashed from its coordinates,
   interpolated trilinearly and cut into three levels, 0 the background: blobs of every size,
   many crossing chunks) or
   binary noise (--kind noise: density 0.5, seeded per chunk), uint8.
2. For each worker count: a dask.distributed LocalCluster of that many worker processes, one
   thread each. First the volume alone (made and reduced to one sum per slice: the cost that
   is not labelling), then cclabel.dask.label(volume, connectivity, background=0) with the labels
   reduced to one sum per z-slice and N, computed together. Wall times, and each worker's peak RSS
   (VmHWM, read on the worker after the run: the volume's chunks, the local labels held until the
   tree's root is known, the faces and the relabelled chunks).
3. --in-memory: cclabel.label of the whole volume in one process (a subprocess, its own peak RSS),
   and the check that the Dask labels equal it (the sums per slice and N).
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from functools import partial

import numpy as np

STEP = 8        # blobs: one lattice value every STEP voxels
CUTS = (0.58, 0.64, 0.70)   # three levels over about 31% of the voxels: blobs of every size


def lattice(iz, iy, ix, seed) -> np.ndarray:
    """The lattice's values at integer points (open grids): a hash of the coordinates (splitmix64's
    finaliser), so that a chunk makes only the points around it, whatever the volume's size."""
    with np.errstate(over="ignore"):
        h = (iz.astype(np.uint64)[:, None, None] * np.uint64(0x9E3779B97F4A7C15) ^
             iy.astype(np.uint64)[None, :, None] * np.uint64(0xC2B2AE3D27D4EB4F) ^
             ix.astype(np.uint64)[None, None, :] * np.uint64(0x165667B19E3779F9) ^ np.uint64(seed))
        h ^= h >> np.uint64(30)
        h *= np.uint64(0xBF58476D1CE4E5B9)
        h ^= h >> np.uint64(27)
        h *= np.uint64(0x94D049BB133111EB)
        h ^= h >> np.uint64(31)
    return (h >> np.uint64(40)).astype(np.float32) / np.float32(1 << 24)


def blobs(seed, z0, z1, y0, y1, x0, x1) -> np.ndarray:
    """The blob volume's voxels [z0, z1) x [y0, y1) x [x0, x1): a function of the global
    coordinates only, so every chunking gives the same volume."""
    axes = []
    for lo, hi in ((z0, z1), (y0, y1), (x0, x1)):
        t = np.arange(lo, hi, dtype=np.float64) / STEP
        i = np.floor(t).astype(np.int64)
        axes.append((i - i[0], (t - i).astype(np.float32), np.arange(i[0], i[-1] + 2)))
    (iz, fz, gz), (iy, fy, gy), (ix, fx, gx) = axes
    lat = lattice(gz, gy, gx, seed)
    # Trilinear interpolation one axis at a time (x, then y, then z): the same sums for every voxel
    # whatever the chunk, at a fraction of the cost of eight gathers of the whole chunk.
    f = lat[:, :, ix] * (1 - fx) + lat[:, :, ix + 1] * fx
    f = f[:, iy, :] * (1 - fy)[None, :, None] + f[:, iy + 1, :] * fy[None, :, None]
    field = f[iz] * (1 - fz)[:, None, None] + f[iz + 1] * fz[:, None, None]
    return np.searchsorted(np.array(CUTS, np.float32), field).astype(np.uint8)


def noise(seed, z0, z1, y0, y1, x0, x1) -> np.ndarray:
    rng = np.random.default_rng([seed, z0, y0, x0])
    return (rng.random((z1 - z0, y1 - y0, x1 - x0)) < 0.5).astype(np.uint8)


def make_chunk(kind, size, seed, block_info=None):
    (z0, z1), (y0, y1), (x0, x1) = block_info[None]["array-location"]
    return (blobs if kind == "blobs" else noise)(seed, z0, z1, y0, y1, x0, x1)


def whole(kind, size, chunk, seed) -> np.ndarray:
    """The same volume in one array (made chunk by chunk: noise is seeded per chunk)."""
    vol = np.empty((size,) * 3, np.uint8)
    for z in range(0, size, chunk):
        for y in range(0, size, chunk):
            for x in range(0, size, chunk):
                box = (z, min(z + chunk, size), y, min(y + chunk, size), x, min(x + chunk, size))
                vol[box[0]:box[1], box[2]:box[3], box[4]:box[5]] = (blobs if kind == "blobs" else noise)(seed, *box)
    return vol


def peak_rss_mb() -> float:
    """This process's peak resident memory (VmHWM starts afresh in each process)."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def in_memory(kind, size, chunk, seed, connectivity) -> dict:
    """cclabel.label of the whole volume in a subprocess: time, N, sums per slice, peak RSS."""
    code = ("import json, sys, time, numpy as np, cclabel\n"
            f"sys.path.insert(0, {os.path.dirname(os.path.abspath(__file__))!r})\n"
            "import dask_volume as b\n"
            f"vol = b.whole({kind!r}, {size}, {chunk}, {seed})\n"
            "t = time.perf_counter()\n"
            f"labels, n = cclabel.label(vol, connectivity={connectivity}, background=0, return_num=True)\n"
            "dt = time.perf_counter() - t\n"
            "print(json.dumps({'seconds': dt, 'n': int(n), 'slice_sums': labels.sum(axis=(1, 2), dtype=np.uint64)"
            ".tolist(), 'peak_rss_mb': b.peak_rss_mb()}))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def on_cluster(kind, size, chunk, seed, connectivity, workers) -> dict:
    import dask
    import dask.array as da
    from distributed import Client, LocalCluster

    import cclabel.dask

    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None,
                      memory_limit=0, silence_logs=40) as cluster, Client(cluster) as client:
        chunks = da.core.normalize_chunks(chunk, (size,) * 3)
        vol = da.map_blocks(partial(make_chunk, kind, size, seed), chunks=chunks, dtype=np.uint8)
        t = time.perf_counter()
        vol.sum(axis=(1, 2), dtype=np.uint64).compute()
        made = time.perf_counter() - t
        client.run(_reset_peak)
        t = time.perf_counter()
        labels, n = cclabel.dask.label(vol, connectivity=connectivity, background=0)
        sums, n = dask.compute(labels.sum(axis=(1, 2), dtype=np.uint64), n)
        dt = time.perf_counter() - t
        peaks = client.run(peak_rss_mb)
    return {"workers": workers, "seconds": dt, "volume_only_seconds": made, "n": int(n),
            "slice_sums": np.asarray(sums).tolist(), "labels_dtype": str(labels.dtype),
            "chunks": int(np.prod([len(c) for c in chunks])), "worker_peak_rss_mb": sorted(peaks.values())}


def _reset_peak():
    """Resets VmHWM (Linux: writing 5 to clear_refs), so the peak is the labelling run's."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        pass


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", type=int, default=256, help="the cube's side (the issue's run: 2048)")
    ap.add_argument("--chunk", type=int, default=128, help="the chunks' side")
    ap.add_argument("--workers", type=int, nargs="+", default=[2])
    ap.add_argument("--connectivity", type=int, default=26, choices=(6, 18, 26))
    ap.add_argument("--kind", choices=("blobs", "noise"), default="blobs")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--in-memory", action="store_true", help="also label the whole volume in one process, and check")
    ap.add_argument("--json")
    a = ap.parse_args()

    voxels = a.size ** 3
    print(f"{a.kind} volume {a.size}^3 uint8 ({voxels / 1e6:.0f} Mvx) in {a.chunk}^3 chunks, connectivity "
          f"{a.connectivity}; {os.cpu_count()} cores, {platform.processor() or platform.machine()}", flush=True)
    result = {"size": a.size, "chunk": a.chunk, "kind": a.kind, "connectivity": a.connectivity, "runs": []}
    ref = None
    if a.in_memory:
        ref = in_memory(a.kind, a.size, a.chunk, a.seed, a.connectivity)
        result["in_memory"] = {k: v for k, v in ref.items() if k != "slice_sums"}
        print(f"cclabel.label, one process: {ref['seconds']:.2f} s, N = {ref['n']:,}, "
              f"{voxels / ref['seconds'] / 1e6:.0f} Mvx/s, peak RSS {ref['peak_rss_mb']:.0f} MB", flush=True)
    print("| workers | chunks | volume alone s | cclabel.dask.label s | Mvx/s | N | equal | peak RSS per worker MB |")
    print("|---:|---:|---:|---:|---:|---:|---|---|")
    for w in a.workers:
        r = on_cluster(a.kind, a.size, a.chunk, a.seed, a.connectivity, w)
        equal = "–" if ref is None else ("yes" if (r["n"] == ref["n"] and r["slice_sums"] == ref["slice_sums"])
                                          else "**NO**")
        r["equal"] = equal
        print(f"| {w} | {r['chunks']} | {r['volume_only_seconds']:.2f} | {r['seconds']:.2f} | "
              f"{voxels / r['seconds'] / 1e6:.1f} | {r['n']:,} | {equal} | "
              f"{', '.join(f'{m:.0f}' for m in r['worker_peak_rss_mb'])} |", flush=True)
        result["runs"].append({k: v for k, v in r.items() if k != "slice_sums"})
    if a.json:
        with open(a.json, "w") as f:
            json.dump(result, f, indent=1)
    if any(r["equal"] == "**NO**" for r in result["runs"]):
        sys.exit(1)


if __name__ == "__main__":
    main()
