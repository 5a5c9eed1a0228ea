"""cclabel.label on (Z, Y, X) volumes (connectivity 6, 18, 26) against cc3d on the dense value ids
of each array, and against a 3-D flood fill written here; every dtype, background on and off,
C and Fortran order, out=, return_num, and the errors.

cc3d 4.x numbers 26-connected bool masks in block order, so bool inputs are compared on uint8."""
from __future__ import annotations

from collections import deque

import numpy as np
import pytest

cclabel = pytest.importorskip("cclabel")
cc3d = pytest.importorskip("cc3d", reason="pip install connected-components-3d")

DTYPES = ["bool", "uint8", "int8", "uint16", "int16", "uint32", "int32", "int64", "uint64", "float16", "float32",
          "float64"]
CONNECTIVITIES = [6, 18, 26]


def palette(dtype: str, k: int) -> np.ndarray:
    """k distinct values of dtype (floats: -0.0 beside 0.0 and NaN among them, extremes for ints)."""
    if dtype == "bool":
        return np.array([False, True])
    if dtype.startswith("float"):
        vals = [0.0, -0.0, np.nan, 1.5, -2.25, 1e4, 3.0, -7.0][: max(k + 1, 3)]
        return np.array(vals, dtype=dtype)
    info = np.iinfo(dtype)
    vals = [0, info.max, info.min, 1, 2, info.max - 1, 5, 9]
    return np.array(vals[:k], dtype=dtype)


def random_volume(dtype: str, shape, k: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    p = palette(dtype, k)
    return p[rng.integers(0, len(p), size=shape)]


def dense_ids(a: np.ndarray) -> np.ndarray:
    """One id a distinct value (NaNs one value, -0.0 equal to 0.0), from 0."""
    if a.dtype == bool:
        return a.astype(np.int64)
    return np.unique(a, return_inverse=True)[1].reshape(a.shape)


def cc3d_reference(a: np.ndarray, connectivity: int, background=None) -> np.ndarray:
    ids = dense_ids(a) + 1
    if a.dtype == bool:
        ids = a.astype(np.uint32)  # False is background; uint8-like ids, not bool (block order)
    elif background is not None:
        ids[a == background if not (isinstance(background, float) and np.isnan(background)) else np.isnan(a)] = 0
    return cc3d.connected_components(np.ascontiguousarray(ids.astype(np.uint32)),
                                     connectivity=connectivity).astype(np.uint32)


def bfs(shape, connectivity: int, bg: np.ndarray, joins) -> np.ndarray:
    """Breadth-first fill from each unlabelled voxel in raster order over the 6/18/26 offsets:
    voxels where bg is set stay 0, neighbours p, q join when joins(p, q)."""
    most = {6: 1, 18: 2, 26: 3}[connectivity]
    offsets = [(dz, dy, dx) for dz in (-1, 0, 1) for dy in (-1, 0, 1) for dx in (-1, 0, 1)
               if 0 < (dz != 0) + (dy != 0) + (dx != 0) <= most]
    labels = np.zeros(shape, np.uint32)
    n = 0
    Z, Y, X = shape
    for start in np.ndindex(shape):
        if labels[start] or bg[start]:
            continue
        n += 1
        labels[start] = n
        queue = deque([start])
        while queue:
            p = queue.popleft()
            for dz, dy, dx in offsets:
                q = (p[0] + dz, p[1] + dy, p[2] + dx)
                if 0 <= q[0] < Z and 0 <= q[1] < Y and 0 <= q[2] < X and not labels[q] and not bg[q] and joins(p, q):
                    labels[q] = n
                    queue.append(q)
    return labels


def flood_fill(a: np.ndarray, connectivity: int, background=None) -> np.ndarray:
    """Voxels of one value joined."""
    ids = dense_ids(a)
    bg = np.zeros(a.shape, bool)
    if a.dtype == bool:
        bg = ~a
    elif background is not None:
        bg = a == background
    return bfs(a.shape, connectivity, bg, lambda p, q: ids[p] == ids[q])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("connectivity", CONNECTIVITIES)
def test_every_dtype_matches_cc3d(dtype, connectivity):
    for seed, (shape, k) in enumerate([((7, 9, 11), 2), ((13, 5, 17), 3), ((1, 1, 1), 2), ((1, 1, 40), 3),
                                       ((40, 1, 1), 2), ((6, 31, 3), 4), ((24, 24, 24), 3)]):
        a = random_volume(dtype, shape, k, seed)
        want = cc3d_reference(a, connectivity)
        got, n = cclabel.label(a, connectivity=connectivity, return_num=True)
        assert got.dtype == np.uint32 and got.shape == a.shape
        np.testing.assert_array_equal(got, want, err_msg=f"{dtype} {shape} conn {connectivity}")
        assert n == int(want.max(initial=0))
        if dtype != "bool":
            bg = a.flat[0].item()
            want = cc3d_reference(a, connectivity, background=bg)
            got = cclabel.label(a, connectivity=connectivity, background=bg)
            np.testing.assert_array_equal(got, want, err_msg=f"{dtype} {shape} conn {connectivity} background {bg}")
        f = np.asfortranarray(a)
        np.testing.assert_array_equal(cclabel.label(f, connectivity=connectivity),
                                      cclabel.label(a, connectivity=connectivity))


@pytest.mark.parametrize("connectivity", CONNECTIVITIES)
def test_matches_flood_fill(connectivity):
    for seed, dtype in enumerate(["bool", "uint8", "float32", "int64"]):
        a = random_volume(dtype, (6, 7, 8), 3, 50 + seed)
        np.testing.assert_array_equal(cclabel.label(a, connectivity=connectivity), flood_fill(a, connectivity))
        if dtype != "bool":
            bg = a.flat[0].item()
            np.testing.assert_array_equal(cclabel.label(a, connectivity=connectivity, background=bg),
                                          flood_fill(a, connectivity, background=bg))


def test_each_offset_alone_and_scikit_image_3():
    for dz in (-1, 0, 1):
        for dy in (-1, 0, 1):
            for dx in (-1, 0, 1):
                if dz == dy == dx == 0:
                    continue
                a = np.zeros((3, 3, 3), np.uint8)
                a[1, 1, 1] = a[1 + dz, 1 + dy, 1 + dx] = 1
                nonzero = (dz != 0) + (dy != 0) + (dx != 0)
                for conn, most in ((6, 1), (18, 2), (26, 3), (3, 3)):
                    _, n = cclabel.label(a, connectivity=conn, background=0, return_num=True)
                    assert n == (1 if nonzero <= most else 2), (dz, dy, dx, conn)


def test_one_and_two_keep_their_batch_meaning():
    a = random_volume("uint8", (4, 9, 10), 2, 7)
    for conn, plane in ((1, 4), (2, 8), (4, 4), (8, 8)):
        got = cclabel.label(a, connectivity=conn)
        for b in range(a.shape[0]):
            np.testing.assert_array_equal(got[b], cclabel.label(a[b], connectivity=plane))


def test_views_out_and_out_dtype():
    a = random_volume("uint16", (9, 10, 11), 3, 3)
    want = cclabel.label(a, connectivity=26, background=0)
    for view in (a[::-1], a[:, ::2], a[:, :, ::-1], a.transpose(2, 1, 0), a[2:7, 1:9, 3:10]):
        np.testing.assert_array_equal(cclabel.label(view, connectivity=26, background=0),
                                      cclabel.label(np.ascontiguousarray(view), connectivity=26, background=0))
    out = np.empty(a.shape, np.uint32)
    res, n = cclabel.label(a, connectivity=26, background=0, out=out, return_num=True)
    assert res is out and n == int(want.max())
    np.testing.assert_array_equal(out, want)
    small = cclabel.label(a, connectivity=26, background=0, out_dtype=np.uint16)
    assert small.dtype == np.uint16
    np.testing.assert_array_equal(small, want)
    for t in (1, 2, 3, 7):
        np.testing.assert_array_equal(cclabel.label(a, connectivity=26, background=0, threads=t), want)
    big = a.byteswap().view(a.dtype.newbyteorder())
    np.testing.assert_array_equal(cclabel.label(big, connectivity=26, background=0), want)
    np.testing.assert_array_equal(cclabel.label(a.tolist(), connectivity=26, background=0),
                                  cclabel.label(np.asarray(a.tolist()), connectivity=26, background=0))


def tolerance_flood_fill(a: np.ndarray, connectivity: int, tolerance: int, background=None) -> np.ndarray:
    """Neighbours joined when their values differ by at most the tolerance."""
    v = a.astype(np.int64)
    bg = np.zeros(a.shape, bool) if background is None else a == background
    return bfs(a.shape, connectivity, bg, lambda p, q: abs(v[q] - v[p]) <= tolerance)


@pytest.mark.parametrize("dtype", ["uint8", "uint16", "uint32"])
@pytest.mark.parametrize("connectivity", CONNECTIVITIES)
def test_tolerance_matches_flood_fill(dtype, connectivity):
    rng = np.random.default_rng(connectivity)
    for shape in [(6, 7, 9), (1, 1, 30), (11, 4, 5)]:
        # values that wander by small steps along x, so that chains of close voxels cross slices
        a = np.cumsum(rng.integers(-2, 3, size=shape), axis=2) % 40
        a = a.astype(dtype)
        for tolerance in (1, 2):
            for background in (None, 0):
                got, n = cclabel.label(a, connectivity=connectivity, tolerance=tolerance, background=background,
                                       return_num=True, threads=3)
                want = tolerance_flood_fill(a, connectivity, tolerance, background)
                np.testing.assert_array_equal(got, want, err_msg=f"{shape} tol {tolerance} bg {background}")
                assert n == want.max()
                if connectivity == 6 and background == 0:  # cc3d's 6-connected delta agrees with the flood fill
                    np.testing.assert_array_equal(got, cc3d.connected_components(a, connectivity=6, delta=tolerance))


def test_errors():
    a = np.zeros((3, 4, 5), np.uint8)
    with pytest.raises(ValueError, match="must be 4 or 8"):
        cclabel.label(np.zeros((4, 5), np.uint8), connectivity=26)  # a 2-D array is not a volume
    if not cclabel.cuda_available():  # with a GPU, backend="cuda" labels (tests/python/test_volume_gpu.py)
        with pytest.raises(ValueError, match="backend cuda"):
            cclabel.label(a, connectivity=6, backend="cuda")
    with pytest.raises(ValueError, match="out of range"):
        cclabel.label(a, connectivity=6, background=300)
    with pytest.raises(ValueError, match="always False"):
        cclabel.label(a.astype(bool), connectivity=6, background=True)
    with pytest.raises(ValueError, match="shape"):
        cclabel.label(a, connectivity=6, out=np.empty((3, 4, 6), np.uint32))
    with pytest.raises(ValueError, match="overlap"):
        buf = np.zeros((3, 4, 5), np.uint32)
        cclabel.label(buf, connectivity=6, out=buf)
    labels, table = cclabel.label(a, connectivity=6, stats=True)  # statistics of volumes are there now
    np.testing.assert_array_equal(labels, cclabel.label(a, connectivity=6))
    want = cclabel.regions(labels, a, connectivity=6)
    assert set(table) == set(want)
    for k in want:  # the background row's centroid is NaN on both sides
        np.testing.assert_array_equal(table[k], want[k])
    # Typed volumes take a tolerance in their values (tests/python/test_volume_tolerance_typed.py).
    with pytest.raises(ValueError, match="must be a finite number of at least 0"):
        cclabel.label(a.astype(np.float32), connectivity=6, tolerance=-2.0)
    with pytest.raises(ValueError, match="not a whole number"):
        cclabel.label(a.astype(np.int16), connectivity=6, tolerance=1.5)
    with pytest.raises(ValueError, match="tolerance 300 is out of range for gray8"):
        cclabel.label(a, connectivity=6, tolerance=300)
    if not cclabel.cuda_available():  # with a GPU it labels (tests/python/test_volume_tolerance_gpu.py)
        with pytest.raises(ValueError, match="backend cuda"):
            cclabel.label(a, connectivity=6, tolerance=2, backend="cuda")
    with pytest.raises(TypeError, match="tolerance"):
        cclabel.label(a, connectivity=6, tolerance=1.5)
    with pytest.raises(TypeError, match="not supported"):
        cclabel.label(np.zeros((2, 2, 2), np.complex64), connectivity=6)
    with pytest.raises(ValueError, match="negative"):
        cclabel.label(a, connectivity=6, threads=-1)


@pytest.mark.parametrize("channels", [3, 4])
@pytest.mark.parametrize("connectivity", CONNECTIVITIES)
def test_rgb_volumes(channels, connectivity):
    """(Z, Y, X, 3|4) uint8 volumes: each colour a value, as cc3d labels their colour ids; the
    background as a tuple or '#rrggbb'; a tolerance compares every channel."""
    rng = np.random.default_rng(channels * 100 + connectivity)
    palette = rng.integers(0, 256, (3, channels)).astype(np.uint8)
    palette[0] = 255
    v = palette[rng.integers(0, 3, (6, 7, 9))]
    colour_ids = np.unique(v.reshape(-1, channels), axis=0, return_inverse=True)[1].reshape(v.shape[:3]).astype(np.uint32)
    white = (255,) * channels
    got, n = cclabel.label(v, connectivity=connectivity, return_num=True)
    np.testing.assert_array_equal(got, flood_fill(colour_ids, connectivity))
    assert n == got.max()
    with_bg = cclabel.label(v, connectivity=connectivity, background=white)
    is_white = np.all(v == 255, axis=3)
    np.testing.assert_array_equal(with_bg, flood_fill(np.where(is_white, -1, colour_ids.astype(np.int64)), connectivity, background=-1))
    hex_bg = "#" + "ff" * channels
    np.testing.assert_array_equal(cclabel.label(v, connectivity=connectivity, background=hex_bg), with_bg)
    np.testing.assert_array_equal(cclabel.label(v, connectivity=connectivity, out_dtype=np.uint16), got)
    # a tolerance of 255 joins every neighbour: the non-background voxels' components
    joined = cclabel.label(v, connectivity=connectivity, background=white, tolerance=255)
    np.testing.assert_array_equal(joined, flood_fill((~is_white).astype(np.uint8), connectivity, background=0))
    with pytest.raises(ValueError, match="tuple of"):
        cclabel.label(v, connectivity=connectivity, background=255)
    with pytest.raises(TypeError, match="uint8"):
        cclabel.label(v.astype(np.uint16), connectivity=connectivity)
