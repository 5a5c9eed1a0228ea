"""cclabel.label(volume, tolerance=T) on the GPU: CuPy arrays and CUDA tensors (labelled by
cclabel::cuda::label_volume_device on the array's stream) and backend="cuda" on host volumes,
against a 3-D flood fill of the tolerance and the CPU's labels. Skipped without CuPy / PyTorch, a
CUDA device or a CUDA build of cclabel."""
from __future__ import annotations

from collections import deque

import numpy as np
import pytest

cclabel = pytest.importorskip("cclabel")

from test_package import cupy, torch, torch_cuda  # noqa: E402,F401  (the GPU fixtures)

CONNECTIVITIES = [6, 18, 26]


def offsets(connectivity: int):
    most = {6: 1, 18: 2, 26: 3}[connectivity]
    return [(dz, dy, dx) for dz in (-1, 0, 1) for dy in (-1, 0, 1) for dx in (-1, 0, 1)
            if 0 < (dz != 0) + (dy != 0) + (dx != 0) <= most]


def flood_fill(a: np.ndarray, connectivity: int, tolerance: int, background=None) -> np.ndarray:
    """The reference: voxels join when every channel differs by at most the tolerance."""
    shape = a.shape[:3]
    v = a.reshape(shape + (-1,)).astype(np.int64)
    bg = None if background is None else np.array(background, np.int64).reshape(-1)
    out = np.zeros(shape, np.uint32)
    n = 0
    offs = offsets(connectivity)
    for start in np.ndindex(*shape):
        if out[start] or (bg is not None and (v[start] == bg).all()):
            continue
        n += 1
        out[start] = n
        q = deque([start])
        while q:
            z, y, x = q.popleft()
            for dz, dy, dx in offs:
                p = (z + dz, y + dy, x + dx)
                if not all(0 <= p[i] < shape[i] for i in range(3)) or out[p]:
                    continue
                if bg is not None and (v[p] == bg).all():
                    continue
                if (np.abs(v[p] - v[z, y, x]) <= tolerance).all():
                    out[p] = n
                    q.append(p)
    return out


def wandering(shape, dtype, step: int, seed: int) -> np.ndarray:
    """Values that wander by small steps along x and jump now and then: chains whose ends differ by
    far more than the tolerance."""
    rng = np.random.default_rng(seed)
    top = np.iinfo(dtype).max
    steps = rng.integers(-2, 3, size=shape) * step
    a = np.cumsum(steps, axis=-1 if len(shape) == 3 else -2) + rng.integers(0, top // 2, size=shape[:-1] + (1,))
    jumps = rng.random(shape) < 0.05
    a = np.where(jumps, rng.integers(0, top, size=shape), a)
    return np.clip(a, 0, top).astype(dtype)


CASES = [("uint8", 1, (7, 9, 11)), ("uint16", 97, (5, 6, 40)), ("uint32", 100003, (3, 17, 8))]


@pytest.mark.parametrize("connectivity", CONNECTIVITIES)
@pytest.mark.parametrize("dtype,step,shape", CASES)
def test_cupy_tolerance_matches_the_flood_fill(cupy, dtype, step, shape, connectivity):
    for seed, background in enumerate([None, 0]):
        a = wandering(shape, dtype, step, seed)
        tol = 2 * step
        want = flood_fill(a, connectivity, tol, background)
        labels, n = cclabel.label(cupy.asarray(a), connectivity=connectivity, tolerance=tol, background=background,
                                  return_num=True)
        assert isinstance(labels, cupy.ndarray)
        np.testing.assert_array_equal(cupy.asnumpy(labels), want)
        assert int(n) == int(want.max())
        host = cclabel.label(a, connectivity=connectivity, tolerance=tol, background=background, backend="cuda")
        np.testing.assert_array_equal(host, want)
        np.testing.assert_array_equal(cclabel.label(a, connectivity=connectivity, tolerance=tol,
                                                    background=background, backend="cpu"), want)


@pytest.mark.parametrize("connectivity", CONNECTIVITIES)
def test_cupy_rgb_volume_and_views(cupy, connectivity):
    rgb = wandering((4, 6, 9, 3), "uint8", 1, 5)
    want = flood_fill(rgb, connectivity, 2)
    np.testing.assert_array_equal(cupy.asnumpy(cclabel.label(cupy.asarray(rgb), connectivity=connectivity,
                                                             tolerance=2)), want)
    g = wandering((6, 8, 10), "uint8", 1, 6)
    view = g[::-1, :, 1:8]  # copied to C order on the GPU
    np.testing.assert_array_equal(cupy.asnumpy(cclabel.label(cupy.asarray(g)[::-1, :, 1:8],
                                                             connectivity=connectivity, tolerance=1)),
                                  flood_fill(np.ascontiguousarray(view), connectivity, 1))


def test_torch_tolerance_matches_the_flood_fill(torch_cuda):
    a = wandering((5, 7, 13), "uint8", 1, 9)
    t = torch_cuda.from_numpy(a).cuda()
    labels = cclabel.label(t, connectivity=26, tolerance=2, background=0)
    assert labels.is_cuda
    np.testing.assert_array_equal(labels.cpu().numpy(), flood_fill(a, 26, 2, 0))


def test_a_ramp_whose_ends_differ_by_more_is_one_region(cupy):
    # 0, 3, ..., 255 along z (a (2, 43, 1) ramp is two regions under 6: its slices differ by 129)
    a = (np.arange(86, dtype=np.uint8) * 3).reshape(86, 1, 1)
    labels, n = cclabel.label(cupy.asarray(a), connectivity=6, tolerance=3, return_num=True, num_as_int=True)
    assert n == 1 and int(labels.max()) == 1
    assert cclabel.label(cupy.asarray(a), connectivity=6, tolerance=2, return_num=True, num_as_int=True)[1] == 86
    two = a.reshape(2, 43, 1)
    np.testing.assert_array_equal(cupy.asnumpy(cclabel.label(cupy.asarray(two), connectivity=6, tolerance=3)),
                                  flood_fill(two, 6, 3))


def test_bad_tolerances_on_the_gpu(cupy):
    a = cupy.zeros((2, 2, 2), cupy.uint8)
    with pytest.raises(ValueError, match="tolerance 300 is out of range for gray8"):
        cclabel.label(a, connectivity=6, tolerance=300)
    with pytest.raises(ValueError, match="must be a finite number of at least 0"):
        cclabel.label(a.astype(cupy.float32), connectivity=6, tolerance=float("nan"))
    with pytest.raises(TypeError, match="must be a number"):
        cclabel.label(a.astype(cupy.float32), connectivity=6, tolerance="2")
