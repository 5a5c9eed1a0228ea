"""cclabel.label(volume, tolerance=T) for volumes of signed, 64-bit and float dtypes: the tolerance
a number of their values (|a - b| <= T exactly for integers, by value for floats, -0 == +0, a NaN
joins only a NaN), against a 3-D flood fill with its own exact compare (Python ints and floats),
for NumPy arrays and CPU tensors on the CPU, CuPy arrays and CUDA tensors on their GPU, and
backend="cuda" on host volumes (the GPU parts skip without CuPy / PyTorch, a device or a CUDA build);
64-bit extremes whose differences overflow int64; the bad tolerances."""
from __future__ import annotations

import math
from collections import deque

import numpy as np
import pytest

cclabel = pytest.importorskip("cclabel")

from test_package import cupy, torch, torch_cuda  # noqa: E402,F401  (the GPU fixtures)

CONNECTIVITIES = [6, 18, 26]
DTYPES = ["int8", "int16", "int32", "int64", "uint64", "float16", "float32", "float64"]


def offsets(connectivity: int):
    most = {6: 1, 18: 2, 26: 3}[connectivity]
    return [(dz, dy, dx) for dz in (-1, 0, 1) for dy in (-1, 0, 1) for dx in (-1, 0, 1)
            if 0 < (dz != 0) + (dy != 0) + (dx != 0) <= most]


def flood_fill(a: np.ndarray, connectivity: int, tolerance: float, background=None) -> np.ndarray:
    """The reference: Python ints (exact, no overflow) or floats; NaN joins only NaN; the background
    by value (a NaN background: the NaNs)."""
    is_float = a.dtype.kind == "f"
    v = a.tolist()
    shape = a.shape
    out = np.zeros(shape, np.uint32)

    def at(p):
        return v[p[0]][p[1]][p[2]]

    def is_bg(x):
        if background is None:
            return False
        if is_float and math.isnan(background):
            return math.isnan(x)
        return x == background

    def close(x, y):
        if is_float and (math.isnan(x) or math.isnan(y)):
            return math.isnan(x) and math.isnan(y)
        d = abs(x - y)
        return d <= tolerance if not (is_float and math.isnan(d)) else False

    n = 0
    offs = offsets(connectivity)
    for start in np.ndindex(*shape):
        if out[start] or is_bg(at(start)):
            continue
        n += 1
        out[start] = n
        q = deque([start])
        while q:
            z, y, x = q.popleft()
            for dz, dy, dx in offs:
                p = (z + dz, y + dy, x + dx)
                if not all(0 <= p[i] < shape[i] for i in range(3)) or out[p] or is_bg(at(p)):
                    continue
                if close(at((z, y, x)), at(p)):
                    out[p] = n
                    q.append(p)
    return out


def wandering(shape, dtype: str, seed: int) -> np.ndarray:
    """Values that wander by steps of -2..2 units along x (chains whose ends differ by far more
    than the tolerance), with jumps; floats in quarters with NaN, -0 and infinities; int64 in units
    of 2**30, uint64 above 2**63."""
    rng = np.random.default_rng(seed)
    steps = rng.integers(-2, 3, size=shape).astype(np.float64)
    a = np.cumsum(steps, axis=-1) + rng.integers(-20, 20, size=shape[:-1] + (1,))
    jumps = rng.random(shape) < 0.05
    a = np.where(jumps, rng.integers(-100, 100, size=shape), a)
    if dtype.startswith("float"):
        a = a * 0.75
        a = np.round(a * 4) / 4
        special = rng.random(shape)
        a = np.where(special < 0.02, np.nan, a)
        a = np.where((special >= 0.02) & (special < 0.03), -0.0, a)
        a = np.where((special >= 0.03) & (special < 0.04), np.inf, a)
        return a.astype(dtype)
    if dtype == "int8":
        return np.clip(a, -128, 127).astype(np.int8)
    if dtype == "int64":
        return a.astype(np.int64) * (1 << 30)
    if dtype == "uint64":
        return (a.astype(np.int64) + 1000).astype(np.uint64) + np.uint64(1 << 63)
    return a.astype(dtype)


def tolerance_of(dtype: str):
    return 2 * (1 << 30) if dtype == "int64" else 1.5 if dtype.startswith("float") else 2


def background_of(dtype: str):
    return (1 << 63) + 1000 if dtype == "uint64" else 0.0 if dtype.startswith("float") else 0


@pytest.mark.parametrize("connectivity", CONNECTIVITIES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_host_volumes_match_the_flood_fill(dtype, connectivity):
    for seed, background in enumerate([None, background_of(dtype)]):
        a = wandering((5, 6, 9), dtype, seed + 10 * connectivity)
        tol = tolerance_of(dtype)
        want = flood_fill(a, connectivity, tol, background)
        labels, n = cclabel.label(a, connectivity=connectivity, tolerance=tol, background=background,
                                  return_num=True, backend="cpu")
        np.testing.assert_array_equal(labels, want)
        assert n == int(want.max())
        # A view whose rows are not C-ordered (copied once) and a byte-swapped array give the same.
        view = np.asfortranarray(a)
        np.testing.assert_array_equal(cclabel.label(view, connectivity=connectivity, tolerance=tol,
                                                    background=background), want)
        if a.dtype.itemsize > 1:
            swapped = a.astype(a.dtype.newbyteorder(">"))
            np.testing.assert_array_equal(cclabel.label(swapped, connectivity=connectivity, tolerance=tol,
                                                        background=background), want)


def test_cpu_tensors_and_out(torch):
    a = wandering((4, 7, 8), "float32", 3)
    want = flood_fill(a, 26, 1.5)
    got = cclabel.label(torch.from_numpy(a), connectivity=26, tolerance=1.5)
    assert isinstance(got, torch.Tensor)
    np.testing.assert_array_equal(got.numpy(), want)
    out = np.empty(a.shape, np.uint32)
    assert cclabel.label(a, connectivity=26, tolerance=1.5, out=out) is out
    np.testing.assert_array_equal(out, want)


def test_a_ramp_whose_ends_differ_by_more_is_one_region():
    a = (np.arange(101, dtype=np.float32) * 0.5).reshape(101, 1, 1)  # 0, 0.5, ..., 50
    assert cclabel.label(a, connectivity=6, tolerance=0.5, return_num=True)[1] == 1
    assert cclabel.label(a, connectivity=6, tolerance=0.25, return_num=True)[1] == 101
    assert cclabel.label(a, connectivity=6, tolerance=0, return_num=True)[1] == 101  # exact


def test_sixty_four_bit_extremes_whose_differences_overflow():
    lo, hi = np.iinfo(np.int64).min, np.iinfo(np.int64).max
    q = 1 << 62
    a = np.array([lo, hi, lo + 1, hi - 1, -1, 0, lo, lo + q, -q, 0, q, hi], np.int64).reshape(6, 1, 2)
    for conn in CONNECTIVITIES:
        for tol in (2, q, 4 * q):
            np.testing.assert_array_equal(cclabel.label(a, connectivity=conn, tolerance=tol),
                                          flood_fill(a, conn, tol), err_msg=f"{conn} {tol}")
    labels = cclabel.label(a, connectivity=6, tolerance=2)
    assert labels[0, 0, 0] != labels[0, 0, 1]  # min beside max: 2**64 - 1 apart, not 1
    top = np.iinfo(np.uint64).max
    u = np.array([0, top, top - 1, 1, 2, top - 2, top, 0, 3, 1 << 63, (1 << 63) - 1, top], np.uint64).reshape(2, 2, 3)
    for conn in (6, 26):
        for tol in (1, 2, 10 ** 19):
            np.testing.assert_array_equal(cclabel.label(u, connectivity=conn, tolerance=tol),
                                          flood_fill(u, conn, tol), err_msg=f"{conn} {tol}")
        np.testing.assert_array_equal(cclabel.label(u, connectivity=conn, tolerance=1, background=int(top)),
                                      flood_fill(u, conn, 1, int(top)))


def test_nan_negative_zero_and_infinity():
    nan, inf = float("nan"), float("inf")
    values = [nan, nan, 1, -0.0, 0.0, inf, 2, nan, 1.5, inf, inf, -inf, nan, 3, 4.5, -inf, 0.25, -0.0]
    for dtype in ("float16", "float32", "float64"):
        a = np.array(values, dtype).reshape(3, 2, 3)
        for conn in CONNECTIVITIES:
            for tol, bg in ((1.0, None), (1.0, 0.0), (1.0, -0.0), (1.0, nan), (1e300 if dtype == "float64" else 1e30, None)):
                np.testing.assert_array_equal(cclabel.label(a, connectivity=conn, tolerance=tol, background=bg),
                                              flood_fill(a, conn, tol, bg), err_msg=f"{dtype} {conn} {tol} {bg}")


@pytest.mark.parametrize("tolerance, kind, match", [
    (-1.0, ValueError, "must be a finite number of at least 0"),
    (float("nan"), ValueError, "must be a finite number of at least 0"),
    (float("inf"), ValueError, "must be a finite number of at least 0"),
    ("1", TypeError, "must be a number"),
    (True, TypeError, "must be a number"),
    ([1], TypeError, "must be a number"),
])
def test_bad_tolerances(tolerance, kind, match):
    for dtype in ("int16", "float32", "uint64"):
        with pytest.raises(kind, match=match):
            cclabel.label(np.zeros((2, 3, 4), dtype), connectivity=26, tolerance=tolerance)


def test_integer_volumes_take_whole_tolerances_only():
    with pytest.raises(ValueError, match="not a whole number"):
        cclabel.label(np.zeros((2, 3, 4), np.int32), connectivity=6, tolerance=0.5)
    a = np.array([0, 3, 6], np.int32).reshape(3, 1, 1)
    assert cclabel.label(a, connectivity=6, tolerance=3.0, return_num=True)[1] == 1


# --- on the GPU ---------------------------------------------------------------------------------

@pytest.mark.parametrize("connectivity", CONNECTIVITIES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_cupy_volumes_match_the_flood_fill(cupy, dtype, connectivity):
    for seed, background in enumerate([None, background_of(dtype)]):
        a = wandering((6, 9, 37), dtype, seed)
        tol = tolerance_of(dtype)
        want = flood_fill(a, connectivity, tol, background)
        labels, n = cclabel.label(cupy.asarray(a), connectivity=connectivity, tolerance=tol, background=background,
                                  return_num=True)
        assert isinstance(labels, cupy.ndarray)
        np.testing.assert_array_equal(cupy.asnumpy(labels), want)
        assert int(n) == int(want.max())
        np.testing.assert_array_equal(cclabel.label(a, connectivity=connectivity, tolerance=tol,
                                                    background=background, backend="cuda"), want)
        view = cupy.asarray(a)[::-1, :, 1:30]  # copied to C order on the GPU
        np.testing.assert_array_equal(cupy.asnumpy(cclabel.label(view, connectivity=connectivity, tolerance=tol,
                                                                 background=background)),
                                      flood_fill(np.ascontiguousarray(a[::-1, :, 1:30]), connectivity, tol, background))


def test_torch_volumes_match_the_flood_fill(torch_cuda):
    for dtype in ("float32", "int64", "int16"):
        a = wandering((5, 7, 13), dtype, 9)
        t = torch_cuda.from_numpy(a).cuda()
        labels = cclabel.label(t, connectivity=26, tolerance=tolerance_of(dtype), background=background_of(dtype))
        assert labels.is_cuda
        np.testing.assert_array_equal(labels.cpu().numpy(), flood_fill(a, 26, tolerance_of(dtype), background_of(dtype)))


def test_bad_tolerances_on_the_gpu(cupy):
    a = cupy.zeros((2, 2, 2), cupy.float64)
    with pytest.raises(ValueError, match="must be a finite number of at least 0"):
        cclabel.label(a, connectivity=6, tolerance=-0.5)
    with pytest.raises(TypeError, match="must be a number"):
        cclabel.label(a, connectivity=6, tolerance=[1])
