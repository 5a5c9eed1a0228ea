"""Every dtype through the pieces-of-one-image APIs (issue 23): cclabel.dask.label and the tile steps
(cclabel.tiles) take int8..int64, uint8..uint64 and float16..float64 and give exactly
cclabel.label's labels of the whole image, checked against cc3d on the dense value ids
(`np.unique(..., return_inverse=True)`, test_dtypes_package.cc3d_ids) as well.

The risk these pieces add is keys that differ between chunks: seams join border pixels of equal
32-bit keys, so the tests cut regions with chunk edges everywhere (1-pixel rows and columns, ragged
chunks, 3 x 3 chunks), put -0.0 / +0.0 and NaNs of different bit patterns on both sides of a seam,
and 64-bit values equal in their low 32 bits side by side across one. Both 64-bit key maps
(value - min, and ranks among the distinct values found by a tree over more than 16 chunks), the
tile API's keys= argument (and its errors), and a dask.distributed run (the map pickled to worker
processes) are covered.
"""
from __future__ import annotations

import os

import numpy as np
import pytest

from conftest import assert_same
from test_dtypes_package import DTYPES, FLOATS, blobs, cc3d_ids, name, value_set

if os.environ.get("CCLABEL_PYTHON_REQUIRED") == "1":
    import cclabel
    import dask
    import dask.array as da
else:
    cclabel = pytest.importorskip("cclabel", reason="the Python package is not installed (pip install .)")
    dask = pytest.importorskip("dask", reason="pip install 'dask[array]' distributed")
    da = pytest.importorskip("dask.array", reason="pip install 'dask[array]' distributed")
import cclabel.dask as cdask  # noqa: E402
import cclabel.tiles as tiles  # noqa: E402

WIDE = [np.int64, np.uint64, np.float64]


def chunkings(h, w):
    """Chunk edges through every region: 3 x 3, one-pixel rows and columns, ragged, one chunk."""
    return [(3, 3), (1, w), (h, 1), (7, 5), ((h - h // 3, h // 3) if h > 2 else h, (2, w - 2) if w > 2 else w),
            (h, w)]


def backgrounds(img):
    out = [None, img.flat[0], img.flat[-1]]
    if img.dtype.kind == "f":
        out.append(np.nan)
    return out


def check_many(cases):
    """cases: (what, image, chunks, connectivity, background); one dask.compute (threads) for all;
    each equal to cclabel.label of the whole image and to cc3d on the dense value ids."""
    graphs = [cdask.label(da.from_array(img, chunks=chunks), connectivity=conn, background=bg)
              for _, img, chunks, conn, bg in cases]
    results = dask.compute(graphs, scheduler="threads")[0]
    for (what, img, chunks, conn, bg), (got, n) in zip(cases, results):
        what = f"{name(img.dtype)} {what} chunks={chunks} conn={conn} bg={bg}"
        want = cclabel.label(img, connectivity=conn, background=bg)
        assert got.dtype == np.uint32, what
        assert_same(got, want, what + " vs cclabel.label")
        assert_same(got, cc3d_ids(img, conn, bg), what + " vs cc3d")
        assert int(n) == int(want.max(initial=0)), what


# --- cclabel.dask.label ------------------------------------------------------------------------------

@pytest.mark.parametrize("connectivity", [4, 8])
@pytest.mark.parametrize("dtype", DTYPES, ids=name)
def test_dask_every_dtype_equals_the_whole_image(dtype, connectivity):
    rng = np.random.default_rng(7 + 2 * DTYPES.index(dtype) + connectivity)
    vals = value_set(dtype)
    cases = []
    for h, w, blob in ((1, 37, 1), (23, 1, 2), (26, 29, 1), (26, 29, 3)):
        img = blobs(rng, h, w, vals, blob)
        for chunks in chunkings(h, w):
            for bg in backgrounds(img):
                cases.append((f"{h}x{w} blob {blob}", img, chunks, connectivity, bg))
    check_many(cases)


@pytest.mark.parametrize("search_max", [0, 1 << 20], ids=["sorted queries", "pixel order"])
@pytest.mark.parametrize("dtype", WIDE, ids=name)
def test_dask_both_64_bit_key_maps(dtype, search_max, monkeypatch):
    """value - min up to a span of exactly 2**32 - 1, ranks among the distinct values beyond it
    (found by a tree of merges: 13 x 13 = 169 chunks, two levels of up to 16); both equal cc3d.
    Ranks are searched in pixel order while the table is small, in sorted order past
    DENSE_SEARCH_MAX values (0 here: always)."""
    monkeypatch.setattr(cclabel._arrays, "DENSE_SEARCH_MAX", search_max)
    if dtype is np.float64:
        sets = {"narrow": (np.array([1.0, 1.0 + 2**-52, 1.0 + 2**-51], dtype), False),  # bit patterns 1 apart
                "wide": (np.array([1.0, -1.0, 1e300, -0.0, np.nan], dtype), True)}
    else:
        base = 2**40 if dtype is np.int64 else 2**63
        sets = {"narrow": (np.array([base, base + 1, base + 7], dtype), False),
                "span 2**32 - 1": (np.array([base, base + 2**32 - 1, base + 3], dtype), False),
                "across 2**63": (np.array([2**63 - 2, 2**63 + 1, 2**63 + 3], np.uint64).astype(dtype), dtype is np.int64),
                "span 2**32": (np.array([base, base + 2**32, base + 3], dtype), True),
                "low bits equal": (np.array([base + 9, base + 9 + 2**32, base + 9 - 2**32], dtype), True)}
    rng = np.random.default_rng(11)
    cases = []
    for what, (vals, table) in sets.items():
        img = blobs(rng, 39, 37, vals, 2)
        keys = cdask._value_keys(da.from_array(img, chunks=3))
        assert (keys.table is not None) == table, what
        if table:  # the tree's merges against one sort of the whole image's canonical bits
            assert np.array_equal(keys.table, np.unique(cdask.ordered_bits(img, "numpy", name(dtype)))), what
        for connectivity in (4, 8):
            for bg in (None, vals[1]):
                cases.append((what, img, 3, connectivity, bg))
    check_many(cases)


def test_dask_values_equal_in_their_low_32_bits_never_join_across_a_seam():
    for dtype, a, b in ((np.int64, 7, 7 + 2**32), (np.int64, -1, 2**32 - 1), (np.uint64, 3, 3 + 2**63),
                        (np.uint64, 0, 2**64 - 2**32), (np.float64, 1.0, np.float64(1.0) + 2**-20)):
        img = np.array([[a, a, b, b], [a, a, b, b]], dtype)
        for chunks in ((2, 2), (1, 1), (2, 1)):
            labels, n = dask.compute(*cdask.label(da.from_array(img, chunks=chunks), connectivity=4),
                                     scheduler="threads")
            np.testing.assert_array_equal(labels, [[1, 1, 2, 2], [1, 1, 2, 2]], err_msg=f"{dtype} {chunks}")
            assert int(n) == 2


def test_dask_and_tiles_read_big_endian_arrays():
    rng = np.random.default_rng(13)
    cases = []
    for dtype in (np.int16, np.float32, np.int64, np.uint64, np.float64):
        img = blobs(rng, 19, 23, value_set(dtype), 2)
        big = img.astype(img.dtype.newbyteorder(">"))
        cases += [("big-endian", big, (4, 6), conn, bg) for conn in (4, 8) for bg in (None, img.flat[0])]
        keys = tiles.value_keys(big) if dtype in WIDE else None
        out, _ = tiled(big, (5,), (7, 8), 8, img.flat[0], keys)
        assert_same(out, cc3d_ids(img, 8, img.flat[0]), f"{name(dtype)} big-endian tiles")
    check_many(cases)


@pytest.mark.parametrize("dtype", FLOATS, ids=name)
def test_dask_zeros_and_nans_join_across_seams(dtype):
    """-0.0 | +0.0 and NaNs of four bit patterns meet at chunk edges: one value each."""
    from test_dtypes_package import NAN_BITS
    ubits, nans = NAN_BITS[dtype]
    n1, n2, n3, n4 = np.array(nans, ubits).view(dtype)
    img = np.array([[-0.0, 0.0, 1.0, 1.0], [n1, n2, -0.0, 0.0], [n3, n4, 2.0, -0.0]], dtype)
    for chunks in ((1, 1), (2, 2), (3, 1), (1, 4)):
        arr = da.from_array(img, chunks=chunks)
        got = dask.compute(cdask.label(arr, connectivity=4)[0], cdask.label(arr, connectivity=4, background=np.nan)[0],
                           cdask.label(arr, connectivity=8, background=-0.0)[0], scheduler="threads")
        np.testing.assert_array_equal(got[0], [[1, 1, 2, 2], [3, 3, 4, 4], [3, 3, 5, 4]], err_msg=str(chunks))
        np.testing.assert_array_equal(got[1], [[1, 1, 2, 2], [0, 0, 3, 3], [0, 0, 4, 3]], err_msg=str(chunks))
        np.testing.assert_array_equal(got[2], [[0, 0, 1, 1], [2, 2, 0, 0], [2, 2, 3, 0]], err_msg=str(chunks))


def test_dask_64_bit_map_is_made_once_and_float32_needs_none(monkeypatch):
    """The map is one value of the graph (not one per task); float16/32 arrays are not read by label()."""
    img = blobs(np.random.default_rng(3), 20, 20, value_set(np.int64), 2)
    labels, _ = cdask.label(da.from_array(img, chunks=5))
    graph = dict(labels.__dask_graph__())
    assert sum(1 for k in graph if str(k).startswith("cclabel-keys-")) == 1
    monkeypatch.setattr(cdask, "_value_keys", lambda array: pytest.fail("a float32 array needs no map"))
    cdask.label(da.from_array(img.astype(np.float32), chunks=5))


def test_dask_64_bit_on_distributed_worker_processes():
    """The map and the 64-bit chunks pickled to two worker processes."""
    if os.environ.get("CCLABEL_PYTHON_REQUIRED") == "1":
        import distributed
    else:
        distributed = pytest.importorskip("distributed", reason="pip install 'dask[array]' distributed")
    with distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1, host="127.0.0.1",
                                  dashboard_address=None, silence_logs=40) as cluster, \
            distributed.Client(cluster):
        rng = np.random.default_rng(4)
        cases = [(f"{name(dt)} distributed", blobs(rng, 33, 35, value_set(dt), 2), (8, 6), conn, None)
                 for dt in (np.int64, np.uint64, np.float64, np.float32) for conn in (4, 8)]
        graphs = [cdask.label(da.from_array(img, chunks=chunks), connectivity=conn) for _, img, chunks, conn, _ in cases]
        results = dask.compute(graphs)[0]
    for (what, img, _, conn, _), (got, n) in zip(cases, results):
        assert_same(got, cc3d_ids(img, conn), what)
        assert int(n) == int(got.max())


@pytest.mark.parametrize("dtype", [np.int8, np.float16, np.float32, np.int64, np.uint64, np.float64], ids=name)
def test_dask_cupy_chunks_of_every_converted_dtype(dtype):
    """CuPy chunks: keys made on the chunk's GPU (the 64-bit map's table uploaded), ring keys read
    back; equal to cc3d on the host copy. Skipped without CuPy and a device (scripts/gpu_round.sh)."""
    cupy = pytest.importorskip("cupy", reason="CuPy is not installed")
    if not cclabel.cuda_available():
        pytest.skip("no CUDA device or a build without CUDA")
    rng = np.random.default_rng(12)
    img = blobs(rng, 61, 67, value_set(dtype), 2)
    arr = da.from_array(cupy.asarray(img), chunks=(16, 25), asarray=False)
    for conn in (4, 8):
        for bg in backgrounds(img):
            labels, n = dask.compute(*cdask.label(arr, connectivity=conn, background=bg), scheduler="threads")
            assert type(labels).__module__.startswith("cupy")
            assert_same(cupy.asnumpy(labels), cc3d_ids(img, conn, bg), f"{name(dtype)} CuPy chunks conn {conn} bg {bg}")
            assert int(n) == int(cupy.asnumpy(labels).max(initial=0))


def test_dask_bad_combinations_name_the_argument(monkeypatch):
    monkeypatch.setattr(cdask, "_value_keys", lambda array: pytest.fail("checks come before reading the array"))
    z = {dt: da.zeros((8, 8), dtype=dt, chunks=4) for dt in DTYPES}
    for dt in DTYPES:
        with pytest.raises(ValueError, match="connectivity"):
            cdask.label(z[dt], connectivity=6)
        with pytest.raises(ValueError, match="backend"):
            cdask.label(z[dt], backend="abacus")
        with pytest.raises(TypeError, match="background"):
            cdask.label(z[dt], background="zero")
        with pytest.raises(TypeError, match="background"):
            cdask.label(z[dt], background=True)
    for dt, bg in ((np.int64, 2**63), (np.uint64, -1), (np.uint64, 2**64), (np.float16, 1e6), (np.float32, 1e39),
                   (np.int64, 0.5), (np.int8, 128), (np.uint16, -1)):
        with pytest.raises(ValueError, match="background"):
            cdask.label(z[dt], background=bg)


# --- cclabel.tiles by hand -----------------------------------------------------------------------

def tiled(img, cut_y, cut_x, conn, bg, keys=None):
    """The four tile steps over a grid cut at rows cut_y and columns cut_x."""
    H, W = img.shape
    ys, xs = [0, *cut_y, H], [0, *cut_x, W]
    boxes = [(ys[i], ys[i + 1], xs[j], xs[j + 1]) for i in range(len(ys) - 1) for j in range(len(xs) - 1)]
    parts = [tiles.label_tile(img[y0:y1, x0:x1], x0, y0, W, connectivity=conn, background=bg, keys=keys)
             for y0, y1, x0, x1 in boxes]
    for (y0, y1, x0, x1), (lab, t) in zip(boxes, parts):
        tile = img[y0:y1, x0:x1]
        assert_same(lab, cclabel.label(tile, connectivity=conn, background=bg), "local labels")
        ring = np.concatenate([tile[0], tile[-1], tile[:, 0], tile[:, -1]])
        assert np.array_equal(t.edge_keys, tiles.edge_keys(ring, keys)), "edge_keys() = the table's keys"
    seams = [(a, b, tiles.seam_equivalences(parts[a][1], parts[b][1], conn))
             for a in range(len(parts)) for b in range(a + 1, len(parts))]
    n, maps = tiles.resolve_tiles([t.first_index for _, t in parts], seams)
    out = np.zeros((H, W), np.uint32)
    for (y0, y1, x0, x1), (lab, _), m in zip(boxes, parts, maps):
        out[y0:y1, x0:x1] = tiles.relabel_tile(lab, m)
    return out, n


@pytest.mark.parametrize("dtype", DTYPES, ids=name)
def test_tiles_every_dtype_equal_the_whole_image(dtype):
    rng = np.random.default_rng(5 + DTYPES.index(dtype))
    img = blobs(rng, 21, 24, value_set(dtype), 2)
    wide = dtype in WIDE
    maps = [tiles.value_keys(img), tiles.value_keys(np.unique(img))] if wide else [None]
    for keys in maps:
        for conn in (4, 8):
            for bg in backgrounds(img):
                out, n = tiled(img, (7, 8), (5, 11, 12), conn, bg, keys)
                want = cclabel.label(img, connectivity=conn, background=bg)
                what = f"{name(dtype)} conn {conn} bg {bg} keys {keys}"
                assert_same(out, want, what + " vs cclabel.label")
                assert_same(out, cc3d_ids(img, conn, bg), what + " vs cc3d")
                assert n == int(want.max(initial=0)), what


@pytest.mark.parametrize("dtype", [np.int64, np.uint64], ids=name)
def test_tiles_value_keys_from_min_and_max(dtype):
    """The cheap map: [min, max] when max - min < 2**32, across 0 (int64) and 2**63 (uint64)."""
    rng = np.random.default_rng(9)
    base = 2**63 - 9 if dtype is np.uint64 else -9
    vals = np.array([base, base + 2**32 - 1, base + 8, base + 9, base + 10], dtype)
    img = blobs(rng, 21, 24, vals, 2)
    keys = tiles.value_keys([img.min(), img.max()], dtype=dtype)
    assert keys.table is None
    for conn in (4, 8):
        for bg in (None, vals[3], base - 1):
            out, n = tiled(img, (7, 8), (5, 11, 12), conn, bg, keys)
            assert_same(out, cc3d_ids(img, conn, bg if bg != base - 1 else None), f"{name(dtype)} conn {conn} bg {bg}")


def test_tiles_value_keys_from_min_and_max_background():
    img = np.array([[2**40, 2**40 + 3, 2**40 + 3], [2**40, 2**40, 2**40 + 3]], np.int64)
    keys = tiles.value_keys([2**40, 2**40 + 3], dtype=np.int64)
    assert keys.table is None
    out, n = tiled(img, (1,), (1, 2), 4, 2**40, keys)
    np.testing.assert_array_equal(out, [[0, 1, 1], [0, 0, 1]])
    out, n = tiled(img, (1,), (1, 2), 4, 2**40 + 99, keys)  # a background no pixel has: none
    np.testing.assert_array_equal(out, [[1, 2, 2], [1, 1, 2]])


def test_tiles_bad_combinations_name_the_argument(monkeypatch):
    i64 = np.zeros((4, 4), np.int64)
    with pytest.raises(TypeError, match="keys: int64 tiles need"):
        tiles.label_tile(i64, 0, 0, 4)
    with pytest.raises(TypeError, match="keys: expected a cclabel.tiles.ValueKeys"):
        tiles.label_tile(i64, 0, 0, 4, keys=(0, 1))
    with pytest.raises(ValueError, match="keys: the map was made from uint64"):
        tiles.label_tile(i64, 0, 0, 4, keys=tiles.value_keys(np.zeros(1, np.uint64)))
    for dt in (np.float32, np.float16, np.uint8, np.int32, bool):
        with pytest.raises(ValueError, match="keys: only int64, uint64 and float64"):
            tiles.label_tile(np.zeros((4, 4), dt), 0, 0, 4, keys=tiles.value_keys(i64))
    with pytest.raises(ValueError, match="keys: the tile holds a value .* outside the range the int64"):
        tiles.label_tile(i64 + 5, 0, 0, 4, keys=tiles.value_keys([0, 4], dtype=np.int64))
    wide = tiles.value_keys(np.array([0, 2**40], np.int64))
    assert wide.table is not None
    for search_max in (0, 1 << 20):  # ranks searched in sorted order, in pixel order
        monkeypatch.setattr(cclabel._arrays, "DENSE_SEARCH_MAX", search_max)
        with pytest.raises(ValueError, match="keys: the tile holds a value that is not among the 2 int64"):
            tiles.label_tile(i64 + 5, 0, 0, 4, keys=wide)
    with pytest.raises(TypeError, match="values: dtype must be int64, uint64 or float64"):
        tiles.value_keys(np.zeros(3, np.float32))
    with pytest.raises(ValueError, match="values: empty"):
        tiles.value_keys(np.zeros(0, np.int64))
    with pytest.raises(ValueError, match="background"):
        tiles.label_tile(i64, 0, 0, 4, background=2**63, keys=tiles.value_keys(i64))
    with pytest.raises(ValueError, match="background"):
        tiles.label_tile(np.zeros((4, 4), np.float16), 0, 0, 4, background=1e6)
    with pytest.raises(ValueError, match="connectivity"):
        tiles.label_tile(np.zeros((4, 4), np.float64), 0, 0, 4, connectivity=6, keys=tiles.value_keys([0.0]))
    with pytest.raises(ValueError, match="a batch"):
        tiles.label_tile(np.zeros((2, 4, 4), np.float32), 0, 0, 4)
