"""Shared fixtures of the peer tests: the cclabel CLI (from $CCLABEL_CLI) and reference labellers.

Parity conditions (see shared/design/TESTING.md), because they decide whether a comparison means
anything:
- cc3d numbers in memory order of a C-contiguous array, takes 0 as background and defaults to
  26-connectivity; a bool array takes a 2x2-block path with block numbering. So it gets an
  unsigned integer array with every value offset by one (0 only where cclabel's background is)
  and connectivity=4 or 8 explicitly.
- OpenCV numbers in raster order only with CCL_SAUF and CV_32S labels, on binary images.
- scikit-image's measure.label joins equal values in raster order; background=-1 on non-negative
  values labels everything.
"""
from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import numpy as np
import pytest

cc3d = pytest.importorskip("cc3d", reason="pip install connected-components-3d")
cv2 = pytest.importorskip("cv2", reason="pip install opencv-python-headless")
measure = pytest.importorskip("skimage.measure", reason="pip install scikit-image")


@pytest.fixture(scope="session")
def cli() -> str:
    path = os.environ.get("CCLABEL_CLI", "")
    if not path:
        pytest.skip("CCLABEL_CLI is not set: point it at the built cclabel binary "
                    "(e.g. CCLABEL_CLI=build/release/src/cli/cclabel)")
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        pytest.skip(f"CCLABEL_CLI={path} is not an executable file: build the cclabel_cli target first")
    return path


def run_cli(cli: str, *args: str | os.PathLike, expect_ok: bool = True) -> subprocess.CompletedProcess:
    """Runs `cclabel label ARGS...`; with expect_ok, fails the test on a non-zero exit."""
    proc = subprocess.run([cli, "label", *map(str, args)], capture_output=True, text=True, timeout=300)
    if expect_ok and proc.returncode != 0:
        pytest.fail(f"cclabel label {' '.join(map(str, args))} exited {proc.returncode}\n"
                    f"stdout: {proc.stdout}\nstderr: {proc.stderr}")
    return proc


def regions_reported(stdout: str) -> list[int]:
    """The region counts of the CLI's per-file lines ('..., 1,234 regions, ...')."""
    return [int(m.replace(",", "")) for m in re.findall(r"([\d,]+) regions", stdout)]


def load_labels(path: Path, shape: tuple[int, int]) -> np.ndarray:
    labels = np.load(path)
    assert labels.dtype == np.uint32, f"{path}: dtype {labels.dtype}, expected uint32"
    assert labels.shape == shape, f"{path}: shape {labels.shape}, expected {shape}"
    return labels


def pack(image: np.ndarray) -> np.ndarray:
    """One non-negative int64 per pixel that is equal exactly where the pixels are equal."""
    if image.ndim == 2:
        return image.astype(np.int64)
    out = np.zeros(image.shape[:2], dtype=np.int64)
    for c in range(image.shape[2]):
        out |= image[..., c].astype(np.int64) << (8 * c)
    return out


def cc3d_labels(packed: np.ndarray, connectivity: int, background: int | None = None) -> np.ndarray:
    """cc3d multilabel on packed values, offset by one so that only the background is 0."""
    offset = packed.astype(np.uint64) + np.uint64(1)
    if background is not None:
        offset[packed == background] = 0
    return cc3d.connected_components(np.ascontiguousarray(offset), connectivity=connectivity).astype(np.uint32)


def skimage_labels(packed: np.ndarray, connectivity: int, background: int | None = None) -> np.ndarray:
    return measure.label(packed.astype(np.int64), background=-1 if background is None else background,
                         connectivity=1 if connectivity == 4 else 2).astype(np.uint32)


def opencv_labels(mask: np.ndarray, connectivity: int) -> np.ndarray:
    n, labels = cv2.connectedComponentsWithAlgorithm((mask != 0).astype(np.uint8), connectivity, cv2.CV_32S,
                                                     cv2.CCL_SAUF)
    return labels.astype(np.uint32)


def assert_same(got: np.ndarray, want: np.ndarray, what: str) -> None:
    if got.shape == want.shape and np.array_equal(got, want):
        return
    if got.shape != want.shape:
        pytest.fail(f"{what}: shape {got.shape} != {want.shape}")
    ys, xs = np.nonzero(got != want)
    y, x = int(ys[0]), int(xs[0])
    pytest.fail(f"{what}: {ys.size} pixels differ; first at (row {y}, col {x}): cclabel {got[y, x]}, "
                f"peer {want[y, x]}; cclabel max {got.max()}, peer max {want.max()}")


def bfs_labels(h, w, joins, connectivity, is_background=lambda y, x: False):
    """The tests' reference labeller: breadth-first search from each unlabelled pixel in raster order,
    stepping to a 4- or 8-neighbour (y2, x2) of (y, x) when joins(y, x, y2, x2); background pixels
    get 0 and join nothing. Regions are numbered 1..N by their first pixel. Callers say what joins
    (equal values, NaN with NaN, a tolerance), so every such rule shares one search."""
    from collections import deque
    steps = [(-1, 0), (1, 0), (0, -1), (0, 1)]
    if connectivity == 8:
        steps += [(-1, -1), (-1, 1), (1, -1), (1, 1)]
    labels = np.zeros((h, w), np.uint32)
    n = 0
    for y in range(h):
        for x in range(w):
            if labels[y, x] or is_background(y, x):
                continue
            n += 1
            labels[y, x] = n
            queue = deque([(y, x)])
            while queue:
                cy, cx = queue.popleft()
                for dy, dx in steps:
                    ny, nx = cy + dy, cx + dx
                    if (0 <= ny < h and 0 <= nx < w and not labels[ny, nx] and not is_background(ny, nx)
                            and joins(cy, cx, ny, nx)):
                        labels[ny, nx] = n
                        queue.append((ny, nx))
    return labels


def dask_modules():
    """cclabel, dask, dask.array and distributed for the Dask tests: imported, or the test module
    skipped when one is missing (an import error instead when CCLABEL_PYTHON_REQUIRED=1, as CI sets)."""
    if os.environ.get("CCLABEL_PYTHON_REQUIRED") == "1":
        import importlib
        return tuple(importlib.import_module(m) for m in ("cclabel", "dask", "dask.array", "distributed"))
    return (pytest.importorskip("cclabel", reason="the Python package is not installed (pip install .)"),
            pytest.importorskip("dask", reason="pip install 'dask[array]' distributed"),
            pytest.importorskip("dask.array", reason="pip install 'dask[array]' distributed"),
            pytest.importorskip("distributed", reason="pip install 'dask[array]' distributed"))
