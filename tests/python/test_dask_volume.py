"""cclabel.dask.label on (Z, Y, X) dask arrays with connectivity 6, 18 and 26 (issue 27): the labels
equal the in-memory cclabel.label(volume, connectivity=...) value for value (raster order z, then
y, then x), cc3d's (independent, on unsigned values offset by one) and, on small cases, the 3-D
flood fill of test_volume.py. Chunked along all three axes: 1-voxel slabs, rows and columns,
1 x 1 x 1 chunks, ragged ends, 96^3 in 32^3 chunks and odd chunkings; contacts only through the
edges and corners of the chunk grid (where four and eight chunks meet); every dtype the volume
labeller takes; background on and off. Bad arguments raise the in-memory call's errors when
label() is called. One case on a LocalCluster (2 processes).
"""
from __future__ import annotations

import itertools
import re

import numpy as np
import pytest

from conftest import cc3d, dask_modules
from test_volume import flood_fill  # the volume tests' 3-D flood fill

cclabel, dask, da, distributed = dask_modules()
import cclabel.dask as cdask  # noqa: E402


def steps(conn):
    return [o for o in itertools.product((-1, 0, 1), repeat=3)
            if any(o) and sum(map(bool, o)) <= {6: 1, 18: 2, 26: 3}[conn]]


def cc3d_reference(vol, conn, background):
    """cc3d on dense value ids offset by one (0 only where the background is)."""
    _, ids = np.unique(vol, return_inverse=True)
    ids = ids.reshape(vol.shape).astype(np.uint32) + 1
    if background is not None:
        ids[vol == background] = 0
    return cc3d.connected_components(np.ascontiguousarray(ids), connectivity=conn).astype(np.uint32)


def check_many(cases, scheduler="threads", flood=False, peer=True):
    """cases: (volume, chunks, connectivity, background); one dask.compute for them all."""
    graphs = []
    for vol, chunks, conn, bg in cases:
        arr = da.from_array(vol, chunks=chunks)
        labels, n = cdask.label(arr, connectivity=conn, background=bg)
        assert labels.chunks == arr.chunks and labels.dtype == np.uint32
        graphs.append((labels, n))
    results = dask.compute(graphs, scheduler=scheduler)[0]
    for (vol, chunks, conn, bg), (got, got_n) in zip(cases, results):
        what = f"{vol.shape} {vol.dtype} chunks={chunks} conn={conn} bg={bg!r}"
        want, want_n = cclabel.label(vol, connectivity=conn, background=bg, return_num=True)
        np.testing.assert_array_equal(got, want, err_msg=what)
        assert int(got_n) == want_n, what
        if peer and vol.dtype.kind in "biu":
            np.testing.assert_array_equal(got, cc3d_reference(vol, conn, bg), err_msg="cc3d: " + what)
        if flood:
            np.testing.assert_array_equal(got, flood_fill(vol, conn, bg), err_msg="flood fill: " + what)


CHUNKINGS = [(4, 4, 4), (1, 5, 3), (3, 1, 7), (5, 6, 1), (2, 2, 2), (100, 3, 100)]


@pytest.mark.parametrize("conn", [6, 18, 26])
def test_random_small(conn):
    rng = np.random.default_rng(conn)
    cases = []
    for shape in [(1, 1, 1), (1, 1, 17), (1, 13, 1), (11, 1, 1), (9, 11, 10)]:
        for k in (2, 3):
            vol = rng.integers(0, k, size=shape).astype(np.uint8)
            for bg in (None, 0):
                cases += [(vol, c, conn, bg) for c in CHUNKINGS]
    check_many(cases)
    vol = rng.integers(0, 2, size=(6, 7, 5)).astype(np.uint8)
    check_many([(vol, (2, 3, 2), conn, None), (vol, (1, 1, 1), conn, 0)], flood=True)


def blobs(shape, seed, levels=3):
    """Smooth random blobs (box-filtered noise, thresholded): regions that span many chunks."""
    rng = np.random.default_rng(seed)
    v = rng.random(shape)
    for axis in range(3):
        v = sum(np.roll(v, s, axis=axis) for s in range(-3, 4))
    cuts = np.quantile(v, np.linspace(0, 1, levels + 1)[1:-1])
    return np.searchsorted(cuts, v).astype(np.uint8)


@pytest.mark.parametrize("conn", [6, 18, 26])
def test_96_cubed(conn):
    vol = blobs((96, 96, 96), conn)
    noise = (np.random.default_rng(conn).random((96, 96, 96)) < 0.3).astype(np.uint8)
    check_many([(vol, (32, 32, 32), conn, None), (vol, (25, 40, 31), conn, 0), (noise, (32, 32, 32), conn, 0),
                (noise, (17, 96, 50), conn, None)])


def test_edges_and_corners_of_the_chunk_grid():
    """Voxels that touch only across an edge of the chunk grid (four chunks meet: 18 and 26) or a
    corner (eight chunks meet: 26 only), in every orientation."""
    vol = np.zeros((16, 16, 16), np.uint8)
    corners = itertools.product((4, 8, 12), repeat=3)   # grid corners 4 apart: the pairs never touch
    pairs = [o for o in steps(26) if sum(map(bool, o)) >= 2]
    for c, (o, corner) in enumerate(zip(pairs, corners), start=1):
        a = tuple(k - 1 if d >= 0 else k for k, d in zip(corner, o))   # beside the corner ...
        b = tuple(p + d for p, d in zip(a, o))                          # ... and its neighbour across it
        vol[a] = vol[b] = c
    cases = [(vol, (4, 4, 4), conn, 0) for conn in (6, 18, 26)]
    check_many(cases, flood=True)
    for conn, want in ((6, 2 * 20), (18, 2 * 8 + 12), (26, 20)):
        assert int(cclabel.label(vol, connectivity=conn, background=0, return_num=True)[1]) == want


def test_regions_crossing_every_chunk():
    """A 3-D comb: one region through every chunk, with teeth that each cross one seam."""
    vol = np.zeros((12, 12, 12), np.uint8)
    vol[:, 0, :] = 1
    vol[::2, :, ::3] = 1
    vol[1::2, 5:, 1::3] = 2
    check_many([(vol, c, conn, None) for conn in (6, 26) for c in [(1, 1, 1), (5, 5, 5), (12, 1, 12)]])


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint16", "int32", "int64", "uint64", "float32", "float64"])
def test_dtypes(dtype):
    rng = np.random.default_rng(7)
    raw = rng.integers(0, 3, size=(9, 10, 11))
    if dtype == "bool":
        vol = raw.astype(bool)
    elif dtype in ("int64", "uint64"):
        vol = (raw.astype(np.uint64) << np.uint64(40)).astype(dtype)   # values equal in their low 32 bits
        vol[raw == 0] = 5
    elif dtype.startswith("float"):
        vol = np.choose(raw, [np.float64(0.0), np.float64(-0.0), np.nan]).astype(dtype)
        vol[0, 0, :3] = 1.5
    else:
        vol = (raw - 1).astype(dtype)
    bg = {"bool": None, "float32": np.nan, "float64": 0.0}.get(dtype, -1 if dtype[0] == "i" else 5)
    check_many([(vol, c, conn, b) for c in [(3, 4, 5), (1, 10, 2)] for conn in (6, 26) for b in (None, bg)],
               peer=dtype != "bool")


def test_big_endian_and_threads():
    """Chunks of a big-endian array are read in native order; threads= never changes the labels."""
    vol = np.random.default_rng(8).integers(0, 3, size=(10, 9, 12)).astype(">u2")
    want = cclabel.label(vol.astype(np.uint16), connectivity=18)
    for threads in (None, 1, 2):
        labels, _ = cdask.label(da.from_array(vol, chunks=(4, 5, 6)), connectivity=18, threads=threads)
        np.testing.assert_array_equal(labels.compute(scheduler="threads"), want)


def test_64_bit_labels_and_zero_size():
    vol = (np.indices((4, 5, 6)).sum(axis=0) % 2).astype(np.uint8)   # a 3-D checkerboard: 120 regions at 6
    arr = da.from_array(vol, chunks=((2, 0, 2), (5,), (3, 3)))
    labels, n = cdask.label(arr, connectivity=6, dtype=np.uint64)
    assert labels.chunks == arr.chunks and labels.dtype == np.uint64
    got, n = dask.compute(labels, n, scheduler="threads")
    np.testing.assert_array_equal(got, cclabel.label(vol, connectivity=6))
    assert int(n) == 4 * 5 * 6
    labels, n = cdask.label(da.zeros((0, 4, 4), dtype=np.uint8, chunks=2), connectivity=26)
    got, n = dask.compute(labels, n, scheduler="threads")
    assert got.shape == (0, 4, 4) and int(n) == 0


def test_many_chunks_several_levels(monkeypatch):
    from cclabel import _dask_faces
    monkeypatch.setattr(_dask_faces, "_BUDGET", 64)
    vol = blobs((20, 21, 22), 5)
    labels, _ = cdask.label(da.from_array(vol, chunks=3), connectivity=26)
    assert len({k[1] for k in labels.dask if isinstance(k, tuple) and str(k[0]).startswith("cclabel-merge")}) >= 3
    check_many([(vol, (3, 3, 3), conn, None) for conn in (6, 18, 26)])


def in_memory_error(img, **kw):
    with pytest.raises(Exception) as info:
        cclabel.label(img, **kw)
    return info.type, re.escape(str(info.value))


@pytest.mark.parametrize("kw, img", [
    (dict(connectivity=26), np.zeros((4, 4), np.uint8)),             # a volume's connectivity on a picture
    (dict(connectivity=6), np.zeros((4, 4), np.uint8)),
    (dict(connectivity=26, background=300), np.zeros((4, 4, 4), np.uint8)),
    (dict(connectivity=26, background=1.5), np.zeros((4, 4, 4), np.int16)),
    (dict(connectivity=26), np.zeros((4, 4, 4), np.complex64)),
    (dict(connectivity=18, threads=-1), np.zeros((4, 4, 4), np.uint8)),
])
def test_errors_are_the_in_memory_calls(kw, img):
    kind, message = in_memory_error(img, **kw)
    with pytest.raises(kind, match=message):
        cdask.label(da.from_array(img, chunks=2), **kw)


def test_other_errors():
    with pytest.raises(ValueError, match="a \\(Z, Y, X\\) volume takes connectivity 6, 18 or 26"):
        cdask.label(da.zeros((4, 4, 4), dtype=np.uint16, chunks=2), connectivity=8)   # in memory: a batch
    with pytest.raises(ValueError, match="unknown size"):
        arr = da.zeros((4, 8, 8), dtype=np.uint8, chunks=4)
        cdask.label(arr[arr[:, 0, 0] == 0], connectivity=6)
    with pytest.raises(TypeError, match="dtype"):
        cdask.label(da.zeros((4, 4, 4), dtype=np.uint8, chunks=2), connectivity=6, dtype=np.uint16)


@pytest.mark.parametrize("tolerance", [0, 2])
def test_cupy_chunks_are_refused_for_now(tolerance):
    cupy = pytest.importorskip("cupy", reason="CuPy is not installed")
    if not cclabel.cuda_available():
        pytest.skip("no CUDA device or a build without CUDA")
    arr = da.from_array(cupy.zeros((4, 6, 8), cupy.uint8), chunks=2, asarray=False)
    with pytest.raises(TypeError, match="CuPy chunks are not supported"):
        cdask.label(arr, connectivity=26, tolerance=tolerance)


def test_distributed():
    vol = blobs((40, 36, 44), 1)
    with distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1, host="127.0.0.1",
                                  dashboard_address=None, silence_logs=40) as cluster, distributed.Client(cluster):
        labels, n = cdask.label(da.from_array(vol, chunks=(16, 13, 20)), connectivity=26, background=0)
        got, n = dask.compute(labels, n)
    want, want_n = cclabel.label(vol, connectivity=26, background=0, return_num=True)
    np.testing.assert_array_equal(got, want)
    assert int(n) == want_n
