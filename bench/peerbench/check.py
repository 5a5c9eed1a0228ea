"""The check: is a peer's answer cclabel's? Every answer is compared with cclabel's CPU labels.

Same partition of the pixels (regions), identical numbers, and where wrong the number of regions
split and joined and one wrong pixel, from which shrink() crops the smallest failing input it can
find. --self-test runs self_test(): the checker against cases worked out by hand, no peer needed.
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from . import log
from .workloads import Workload, pack

if TYPE_CHECKING:  # methods.py uses compare(): a run-time import would be circular
    from .methods import Method


def compare(ref: np.ndarray, got: np.ndarray, peer_labels_background: bool = True, xp=None) -> dict:
    """Same partition of the pixels as ref (cclabel's labels, 0 = background)? Identical numbers?

    Where not: ref regions split (spread over several peer labels), peer labels joining several ref
    regions, pixels whose background/foreground status differs, and one wrong pixel (y, x).
    NPP labels every value (no background): there only ref's foreground pixels are compared.
    xp: numpy, or cupy to count the differences of a large picture on the GPU."""
    got = np.asarray(got)
    if got.shape != ref.shape:
        return {"identical": False, "same": False, "why": f"shape {got.shape} vs {ref.shape}"}
    if np.array_equal(ref, got):
        return {"identical": True, "same": True}
    xp = xp or np
    try:
        return _differences(xp.asarray(ref), xp.asarray(got), peer_labels_background, xp)
    finally:
        if xp is not np:
            xp.get_default_memory_pool().free_all_blocks()


def _differences(ref, got, peer_labels_background: bool, xp) -> dict:
    fg = ref != 0
    bad_pixel = None
    bg_diff = 0
    if peer_labels_background:
        diff = (got != 0) != fg
        bg_diff = int(xp.count_nonzero(diff))
        if bg_diff:
            bad_pixel = np.unravel_index(int(xp.argmax(diff)), ref.shape)
        del diff
    # Same partition: the map ref label -> peer label is a function, and so is its inverse. Each map
    # is built by scattering (any one pixel's value wins), then every pixel is checked against it.
    a = ref[fg].astype(xp.int64)
    b = got[fg].astype(xp.int64)
    if b.size and int(b.min()) < 0:
        b -= b.min()
    split = joined = 0
    if a.size:
        f = xp.zeros(int(a.max()) + 1, xp.int64)
        f[a] = b
        bad_a = f[a] != b
        del f
        split = int(xp.unique(a[bad_a]).size)
        bmax = int(b.max())
        if bmax < 8 * b.size + 1024:
            g = xp.zeros(bmax + 1, xp.int64)
            g[b] = a
            bad_b = g[b] != a
        else:  # sparse labels: compress them first
            _, inv = xp.unique(b, return_inverse=True)
            g = xp.zeros(int(inv.max()) + 1, xp.int64)
            g[inv] = a
            bad_b = g[inv] != a
        del g
        joined = int(xp.unique(b[bad_b]).size)
        wrong = bad_a | bad_b
        if bad_pixel is None and bool(wrong.any()):
            bad_pixel = np.unravel_index(int(xp.flatnonzero(fg)[int(xp.argmax(wrong))]), ref.shape)
    same = split == 0 and joined == 0 and bg_diff == 0
    res = {"identical": False, "same": same, "split": split, "joined": joined, "background_pixels_differ": bg_diff}
    if bad_pixel is not None:
        res["bad_pixel"] = [int(v) for v in bad_pixel]
    return res


def verdict(refs: list, labels: list, peer_bg: bool, xp=None, kept_runs=()) -> tuple[dict, int | None, list]:
    """One verdict on a method's answer to a workload, from compare() on each of its images.

    Returns the check (a batch's counts summed over its images), the index of the first image whose
    regions differ (None if every one agrees) and the checks of kept_runs: NPP's later runs of the
    first image, which count too, since NPP's answer can change from run to run: the verdict is
    wrong if any run was."""
    checks = [compare(r, g, peer_bg, xp) for r, g in zip(refs, labels)]
    bad = next((i for i, c in enumerate(checks) if not c["same"]), None)
    c = checks[bad] if bad is not None else checks[0]
    if len(checks) > 1:  # batch: one verdict over all images
        c = dict(c, identical=all(x["identical"] for x in checks), same=all(x["same"] for x in checks),
                 split=sum(x.get("split", 0) for x in checks), joined=sum(x.get("joined", 0) for x in checks),
                 background_pixels_differ=sum(x.get("background_pixels_differ", 0) for x in checks))
    kept_checks = [compare(refs[0], k, peer_bg, xp) for k in kept_runs]
    if kept_checks:
        worse = next((x for x in kept_checks if not x["same"]), None)
        if c["same"] and worse is not None:
            c, bad = worse, 0
        failing = sum(not x["same"] for x in [checks[0], *kept_checks])
        c = dict(c, failing_runs=f"{failing} of {len(kept_checks) + 1}")
    return c, bad, kept_checks


def shrink(method: Method, reference, img: np.ndarray, wl: Workload, yx, peer_bg: bool, out_dir: Path,
           tag: str) -> dict | None:
    """Crops around a wrong pixel, smaller and smaller, while the method still fails; saves the smallest."""
    best = None
    y, x = yx
    size = min(8192, 1 << int(np.ceil(np.log2(max(img.shape[0], img.shape[1])))))
    tries = 0
    while size > 4 and tries < 14:
        size //= 2
        tries += 1
        y0, x0 = max(0, min(y - size // 2, img.shape[0] - size)), max(0, min(x - size // 2, img.shape[1] - size))
        crop = np.ascontiguousarray(img[y0:y0 + size, x0:x0 + size])
        try:
            got = method.labels_of(crop, wl)
        except Exception as e:  # noqa: BLE001 - a crop the peer cannot take ends the search
            log(f"    shrink {tag}: {size}: {e}")
            break
        ref = reference(crop, wl)
        results = [compare(ref, g, peer_bg) for g in (got if isinstance(got, list) else [got])]
        failing = [r for r in results if not r["same"]]
        if not failing:
            if size <= 64:
                break
            continue  # this window missed the fault; a smaller one around the same pixel may still hold it
        r = failing[0]
        best = {"shape": list(crop.shape), "origin": [int(y0), int(x0)], "split": r.get("split", 0),
                "joined": r.get("joined", 0), "failing_runs": f"{len(failing)} of {len(results)}"}
        np.save(out_dir / f"smallest_{tag}.npy", crop)
        best["file"] = f"smallest_{tag}.npy"
        if "bad_pixel" in r:
            y, x = y0 + r["bad_pixel"][0], x0 + r["bad_pixel"][1]
    return best


def self_test() -> None:
    """compare() against cases worked out by hand (run by --self-test; no peer needed)."""
    ref = np.array([[1, 1, 0, 2],
                    [0, 1, 0, 2],
                    [3, 0, 4, 4]], np.uint32)
    assert compare(ref, ref.copy()) == {"identical": True, "same": True}
    renumbered = np.array([[2, 2, 0, 1], [0, 2, 0, 1], [9, 0, 5, 5]], np.int32)
    r = compare(ref, renumbered)
    assert (r["identical"], r["same"], r["split"], r["joined"], r["background_pixels_differ"]) == (False, True, 0, 0, 0), r
    split = np.array([[1, 7, 0, 2], [0, 7, 0, 2], [3, 0, 4, 4]])     # region 1 in two pieces
    r = compare(ref, split)
    assert (r["same"], r["split"], r["joined"], r["bad_pixel"]) == (False, 1, 0, [0, 0]), r
    joined = np.array([[1, 1, 0, 2], [0, 1, 0, 2], [2, 0, 4, 4]])    # regions 2 and 3 as one
    r = compare(ref, joined)
    assert (r["same"], r["split"], r["joined"]) == (False, 0, 1), r
    both = np.array([[5, 6, 0, 5], [0, 6, 0, 5], [3, 0, 4, 4]])      # 1 split, and 5 joins 1 and 2
    r = compare(ref, both)
    assert (r["same"], r["split"], r["joined"]) == (False, 1, 1), r
    bg = ref.copy()
    bg[0, 2] = 8                                                     # a background pixel labelled
    r = compare(ref, bg)
    assert (r["same"], r["background_pixels_differ"], r["bad_pixel"]) == (False, 1, [0, 2]), r
    no_bg = np.where(ref == 0, 11, ref + 100)                        # NPP-like: background labelled too
    assert compare(ref, no_bg, peer_labels_background=False)["same"]
    assert not compare(ref, no_bg)["same"]
    sparse = np.where(ref == 0, 0, ref.astype(np.int64) * 10**9)     # labels far apart: the compressing path
    assert compare(ref, sparse)["same"]
    assert not compare(ref, np.where(ref == 4, 10**9, sparse))["same"]
    assert not compare(ref, ref[:2])["same"]
    rgb = np.zeros((2, 2, 3), np.uint8)
    rgb[0, 0] = (255, 255, 255)
    rgb[1, 1] = (1, 2, 3)
    assert pack(rgb, False).tolist() == [[0xFFFFFF + 1, 1], [1, 0x030201 + 1]]
    assert pack(rgb, True).tolist() == [[0, 1], [1, 0x030201 + 1]]
    print("self-test passed")
