#!/usr/bin/env python3
"""cclabel.dask against single-process cclabel.label and dask-image's ndmeasure.label, and the
tree reduction's cost as the chunk count grows.

    python3 bench/dask_bench.py --size 20000 --chunk 2048 --workers 1 2 4 8 16 --json out.json

1. A synthetic slide-like image (--size square, uint8): white background (255) with tissue blobs
   in three grey levels and sparse dust, from a smoothed random field (seeded).
2. cclabel.label on the whole image in one process (a subprocess: its peak RSS is its own).
3. For each worker count: a dask.distributed LocalCluster of that many worker processes (one
   thread each): cclabel.dask.label on --chunk chunks (labels and N computed together, labels
   kept on the workers as one persisted array and reduced by a checksum so the client does not
   hold them), and dask-image's ndmeasure.label on the binary mask (image != 255), the same
   chunks, the same way. Wall time and each worker's peak RSS (VmHWM on the worker).
   cclabel's labels are checked equal to the single-process labels (sum of labels per row).
   dask-image runs only at --dask-image-workers (default: every count), each in a process of its
   own that is killed after --dask-image-timeout seconds (reported as "over T s": it is slow).
4. The tree reduction: with the synchronous scheduler, no graph optimisation (no task fusion) and
   dask's Profiler, the time spent in the merge tasks, their number, and the number of seam labels
   (distinct region ids on the chunk borders) for 16, 256 and 4096 chunks of the same image; of the
   merge tasks' time, the merge function's own (timed around each call) and the rest (dask's
   scheduling of the task, mostly a cost per input: a merge reads up to 256 children).
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import time
from functools import partial

import numpy as np


def slide(size: int, seed: int = 0) -> np.ndarray:
    import cv2
    rng = np.random.default_rng(seed)
    coarse = rng.random((max(size // 64, 4), max(size // 64, 4))).astype(np.float32)
    field = cv2.resize(cv2.GaussianBlur(coarse, (0, 0), 1.5), (size, size), interpolation=cv2.INTER_CUBIC)
    fine = cv2.resize(rng.random((size // 4, size // 4)).astype(np.float32), (size, size),
                      interpolation=cv2.INTER_NEAREST)
    img = np.full((size, size), 255, np.uint8)
    img[field > 0.55] = 180
    img[(field > 0.6) & (fine > 0.5)] = 120
    img[(field > 0.68) & (fine > 0.8)] = 60
    dust = rng.random((size // 8, size // 8)) > 0.999
    img[np.repeat(np.repeat(dust, 8, 0), 8, 1)[:size, :size] & (img == 255)] = 0
    return img


def peak_rss_mb() -> float:
    """This process's peak resident memory (VmHWM: unlike getrusage's ru_maxrss, which Linux carries
    over fork and exec from the parent, it starts afresh in each process)."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def single_process(path: str) -> dict:
    code = ("import numpy as np, time, cclabel, json, sys\n"
            "def peak():\n"
            "    return int([l for l in open('/proc/self/status') if l.startswith('VmHWM:')][0].split()[1]) / 1024\n"
            f"img = np.load({path!r})\n"
            "t = time.perf_counter(); labels, n = cclabel.label(img, return_num=True); dt = time.perf_counter() - t\n"
            "print(json.dumps({'seconds': dt, 'n': n, 'row_sums': labels.sum(axis=1, dtype=np.uint64).tolist(),\n"
            "  'peak_rss_mb': peak()}))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def _load(path, block_info=None):
    (y0, y1), (x0, x1) = block_info[None]["array-location"]
    return np.ascontiguousarray(np.load(path, mmap_mode="r")[y0:y1, x0:x1])


def on_cluster(img_path, shape, chunk, workers, which):
    import dask
    import dask.array as da
    from distributed import Client, LocalCluster, wait

    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None,
                      memory_limit=0, silence_logs=40) as cluster, Client(cluster) as client:
        # Each chunk is read from the .npy by its task (the image never travels through the graph).
        img = da.map_blocks(partial(_load, img_path), chunks=da.core.normalize_chunks(chunk, shape),
                            dtype=np.uint8)
        t = time.perf_counter()
        if which == "cclabel":
            import cclabel.dask
            labels, n = cclabel.dask.label(img)
            labels = labels.persist()
            wait(labels)
            row_sums, n = dask.compute(labels.sum(axis=1, dtype=np.uint64), n)
        else:
            from dask_image import ndmeasure
            labels, n = ndmeasure.label(img != 255, structure=np.ones((3, 3)))
            labels = labels.persist()
            wait(labels)
            row_sums, n = dask.compute(labels.sum(axis=1, dtype=np.uint64), n)
        dt = time.perf_counter() - t
        peaks = client.run(peak_rss_mb)
        return {"seconds": dt, "n": int(n), "row_sums": np.asarray(row_sums).tolist(),
                "worker_peak_rss_mb": sorted(peaks.values())}


def capped_dask_image(path, size, chunk, workers, timeout):
    """on_cluster(..., "dask-image") in a new session, killed with its cluster after @p timeout s."""
    import signal
    p = subprocess.Popen([sys.executable, __file__, "--one", path, str(size), str(chunk), str(workers)],
                         stdout=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, _ = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        return None
    if p.returncode != 0:
        raise RuntimeError(f"dask-image run failed (exit {p.returncode})")
    return json.loads(out.strip().splitlines()[-1])


def tree_cost(img, chunks_per_side):
    import dask
    import dask.array as da
    from dask.diagnostics import Profiler

    import cclabel.dask
    size = img.shape[0]
    arr = da.from_array(img, chunks=-(-size // chunks_per_side))
    # The merge function's own time (ours), beside the merge tasks' time under the Profiler (ours
    # plus dask's per-task and per-input cost): the tasks call the function bound at graph building.
    merge, inside = cclabel.dask._merge, []

    def timed(*children, **kw):
        t = time.perf_counter()
        out = merge(*children, **kw)
        inside.append(time.perf_counter() - t)
        return out
    cclabel.dask._merge = timed
    try:
        labels, n = cclabel.dask.label(arr)
    finally:
        cclabel.dask._merge = merge
    graph = dict(n.__dask_graph__())
    with Profiler() as prof:
        # optimize_graph=False: no task fusion, so that every merge task keeps its own key (the top
        # merge would otherwise be fused with the roots task and missed).
        dask.compute(n, scheduler="sync", optimize_graph=False)
    spent = {}
    for r in prof.results:
        key = r.key[0] if isinstance(r.key, tuple) else r.key
        kind = str(key).split("-")[1]
        spent[kind] = spent.get(kind, 0.0) + (r.end_time - r.start_time)
    leaf_keys = [k for k in graph if isinstance(k, tuple) and str(k[0]).startswith("cclabel-leaf-")]
    leaves = dask.get(graph, leaf_keys)
    # A leaf is its border runs and closed ids (one summary array since the C++ merge; a tuple
    # before): row 5 of the runs holds the ids of the labelled border pixels.
    unpack = getattr(cclabel.dask, "_unpack", lambda leaf: leaf)
    seam_labels = int(sum(np.unique(unpack(leaf)[0][5]).size for leaf in leaves))
    merge_keys = [k for k in graph if isinstance(k, tuple) and str(k[0]).startswith("cclabel-merge-")]
    inputs = sum(len(graph[k].args if hasattr(graph[k], "args") else graph[k][1:]) for k in merge_keys)
    return {"chunks": chunks_per_side ** 2, "seam_labels": seam_labels, "merges": len(merge_keys),
            "merge_inputs": inputs,
            "merge_seconds": spent.get("merge", 0.0),
            "merge_function_seconds": sum(inside),
            "roots_seconds": spent.get("roots", 0.0),
            "n": int(n.compute(scheduler="sync"))}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", type=int, default=20000)
    ap.add_argument("--chunk", type=int, default=2048)
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--tree-size", type=int, default=None, help="image side for the tree-cost runs (default --size)")
    ap.add_argument("--no-dask-image", action="store_true")
    ap.add_argument("--dask-image-workers", type=int, nargs="+", default=None,
                    help="worker counts for the dask-image runs (default: all of --workers)")
    ap.add_argument("--dask-image-timeout", type=float, default=None, help="seconds before a dask-image run is stopped")
    ap.add_argument("--one", nargs=4, metavar=("PATH", "SIZE", "CHUNK", "WORKERS"), help=argparse.SUPPRESS)
    ap.add_argument("--json")
    ap.add_argument("--tmp", default="/tmp")
    a = ap.parse_args()
    if a.one:  # one dask-image run in a process of its own (see capped_dask_image)
        path, size, chunk, workers = a.one
        r = on_cluster(path, (int(size), int(size)), int(chunk), int(workers), "dask-image")
        print(json.dumps(r))
        return

    t = time.perf_counter()
    img = slide(a.size)
    path = os.path.join(a.tmp, f"cclabel-dask-bench-{a.size}.npy")
    np.save(path, img)
    print(f"image {a.size} x {a.size} uint8 slide, made in {time.perf_counter() - t:.1f} s; "
          f"{os.cpu_count()} cores, {platform.processor() or platform.machine()}", flush=True)
    result = {"size": a.size, "chunk": a.chunk, "cores": os.cpu_count()}

    single = single_process(path)
    print(f"cclabel.label, one process: {single['seconds']:.2f} s, N = {single['n']:,}, "
          f"peak {single['peak_rss_mb']:.0f} MB", flush=True)
    result["single"] = {k: v for k, v in single.items() if k != "row_sums"}

    result["cluster"] = []
    for w in a.workers:
        di = not a.no_dask_image and (a.dask_image_workers is None or w in a.dask_image_workers)
        for which in ["cclabel"] + (["dask-image"] if di else []):
            if which == "dask-image":
                r = capped_dask_image(path, a.size, a.chunk, w, a.dask_image_timeout)
                if r is None:
                    print(f"dask-image {w:2d} workers: over {a.dask_image_timeout:.0f} s (stopped)", flush=True)
                    result["cluster"].append({"method": which, "workers": w, "seconds": None,
                                              "over_seconds": a.dask_image_timeout})
                    continue
            else:
                r = on_cluster(path, img.shape, a.chunk, w, which)
            same = r["row_sums"] == single["row_sums"] and r["n"] == single["n"] if which == "cclabel" else None
            print(f"{which:10s} {w:2d} workers: {r['seconds']:.2f} s, N = {r['n']:,}, worker peak RSS "
                  f"{', '.join(f'{m:.0f}' for m in r['worker_peak_rss_mb'])} MB"
                  + ("" if same is None else f", equal to cclabel.label: {same}"), flush=True)
            if same is False:
                sys.exit("cclabel.dask differs from cclabel.label")
            result["cluster"].append({"method": which, "workers": w, "seconds": r["seconds"], "n": r["n"],
                                      "worker_peak_rss_mb": r["worker_peak_rss_mb"]})

    tree_img = img if a.tree_size is None else slide(a.tree_size)
    result["tree"] = []
    for side in (4, 16, 64):
        r = tree_cost(tree_img, side)
        per = r["merge_seconds"] / max(r["seam_labels"], 1) * 1e6
        own = r["merge_function_seconds"] / max(r["seam_labels"], 1) * 1e6
        rest = (r["merge_seconds"] - r["merge_function_seconds"]) / max(r["merge_inputs"], 1) * 1e6
        print(f"tree: {r['chunks']:5d} chunks, {r['seam_labels']:9,d} seam labels, {r['merges']:5d} merge tasks "
              f"{r['merge_seconds']:.4f} s ({per:.2f} us per seam label); in the merge function "
              f"{r['merge_function_seconds']:.4f} s ({own:.2f} us per seam label); the rest (dask) "
              f"{rest:.2f} us per merge input ({r['merge_inputs']} inputs); roots {r['roots_seconds']:.4f} s",
              flush=True)
        result["tree"].append(r)
    os.remove(path)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
