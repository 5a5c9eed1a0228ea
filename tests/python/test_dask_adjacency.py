"""cclabel.dask.adjacency (issue 28): the region adjacency graph of a dask label array equals
cclabel.adjacency of the computed array row for row, and test_graph's count of neighbour pairs:
each chunk's own pairs plus the pairs across its seams (straight, and with 8-connectivity the
diagonals along a seam and through the corners where four chunks meet), each counted once.
Chunkings: 1-pixel rows and columns, 1 x 1 chunks, ragged ends, zero-size chunks; the labels of
cclabel.dask.label (lazily, one graph); label dtypes; background pairs on and off. Bad arguments
raise the in-memory call's errors. One case on a LocalCluster (2 processes).
"""
from __future__ import annotations

import re

import numpy as np
import pytest

from conftest import dask_modules  # noqa: E402

cclabel, dask, da, distributed = dask_modules()
import cclabel.dask as cdask  # noqa: E402
from test_graph import as_dict, brute_contacts  # noqa: E402  (the pairs counted by hand)

CHUNKINGS = [(4, 4), (1, 3), (5, 2), (29, 1), (1, 1), (3, 100)]


def check_many(cases, scheduler="threads", brute=False):
    """cases: (labels, chunks, connectivity, background); one dask.compute for them all."""
    graphs = [cdask.adjacency(da.from_array(lab, chunks=chunks), conn, bg) for lab, chunks, conn, bg in cases]
    results = dask.compute(graphs, scheduler=scheduler)[0]
    for (lab, chunks, conn, bg), got in zip(cases, results):
        what = f"{lab.shape} {lab.dtype} chunks={chunks} conn={conn} bg={bg}"
        assert got.dtype == np.uint64 and got.ndim == 2 and got.shape[1] == 3, what
        np.testing.assert_array_equal(got, cclabel.adjacency(lab, conn, bg), err_msg=what)
        if brute:
            assert as_dict(got) == brute_contacts(lab, conn, bg), "pairs counted by hand: " + what


@pytest.mark.parametrize("conn", [4, 8])
@pytest.mark.parametrize("bg", [False, True])
def test_random(conn, bg):
    rng = np.random.default_rng(conn + 10 * bg)
    cases = []
    for shape in [(1, 1), (1, 19), (19, 1), (23, 29)]:
        for k in (3, 40):
            lab = rng.integers(0, k, size=shape).astype(np.uint32)
            cases += [(lab, c, conn, bg) for c in CHUNKINGS]
    check_many(cases)
    lab = rng.integers(0, 5, size=(13, 17)).astype(np.uint32)
    check_many([(lab, c, conn, bg) for c in [(3, 4), (1, 1), (13, 2)]], brute=True)


@pytest.mark.parametrize("conn", [4, 8])
def test_corners_of_the_chunk_grid(conn):
    """Four labels meeting at a grid corner (each diagonal pair touches only through it), and pairs
    that recur along a whole seam."""
    lab = np.zeros((8, 8), np.uint32)
    lab[:4, :4], lab[:4, 4:], lab[4:, :4], lab[4:, 4:] = 1, 2, 3, 4
    cases = [(lab, (4, 4), conn, bg) for bg in (False, True)]
    cross = np.zeros((9, 9), np.uint16)
    cross[np.arange(9), np.arange(9)] = 5
    cross[np.arange(9), 8 - np.arange(9)] = 6
    cases += [(cross, c, conn, bg) for c in [(3, 3), (1, 1), (4, 5)] for bg in (False, True)]
    check_many(cases, brute=True)
    got = cdask.adjacency(da.from_array(lab, chunks=4), conn).compute()
    assert {(int(a), int(b)) for a, b, _ in got} == ({(1, 2), (1, 3), (2, 4), (3, 4)} |
                                                     ({(1, 4), (2, 3)} if conn == 8 else set()))


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.int32, np.int64, np.uint64, bool])
def test_label_dtypes(dtype):
    rng = np.random.default_rng(2)
    lab = rng.integers(0, 2 if dtype is bool else 7, size=(15, 16)).astype(dtype)
    check_many([(lab, c, conn, bg) for c in [(4, 3), (1, 16)] for conn in (4, 8) for bg in (False, True)])


def test_of_dask_labels_in_one_graph():
    """adjacency(cclabel.dask.label(...)) lazily: one compute gives the labels, N and the graph."""
    rng = np.random.default_rng(4)
    img = rng.integers(0, 4, size=(60, 70)).astype(np.uint8)
    labels, n = cdask.label(da.from_array(img, chunks=(16, 25)), connectivity=8, background=0)
    edges = cdask.adjacency(labels, connectivity=8, background=True)
    got_labels, got_n, got_edges = dask.compute(labels, n, edges, scheduler="threads")
    want = cclabel.label(img, connectivity=8, background=0)
    np.testing.assert_array_equal(got_labels, want)
    np.testing.assert_array_equal(got_edges, cclabel.adjacency(want, 8, True))


def test_zero_size_chunks_and_empty():
    lab = np.arange(30, dtype=np.uint32).reshape(5, 6) // 4
    arr = da.from_array(lab, chunks=((2, 0, 3), (0, 4, 2)))
    np.testing.assert_array_equal(cdask.adjacency(arr, 8).compute(), cclabel.adjacency(lab, 8))
    got = cdask.adjacency(da.zeros((0, 7), dtype=np.uint32, chunks=3)).compute()
    assert got.shape == (0, 3) and got.dtype == np.uint64


def in_memory_error(lab, *args, **kw):
    with pytest.raises(Exception) as info:
        cclabel.adjacency(lab, *args, **kw)
    return info.type, re.escape(str(info.value))


@pytest.mark.parametrize("args, kw, lab", [
    ((), {}, np.zeros((4, 4), np.float32)),
    ((6,), {}, np.zeros((4, 4), np.uint32)),
    ((26,), {}, np.zeros((4, 4), np.uint32)),
    ((8, 1), {}, np.zeros((4, 4), np.uint32)),
    ((), dict(threads=-1), np.zeros((4, 4), np.uint32)),
    ((), dict(backend="gpu"), np.zeros((4, 4), np.uint32)),
])
def test_errors_are_the_in_memory_calls(args, kw, lab):
    kind, message = in_memory_error(lab, *args, **kw)
    with pytest.raises(kind, match=message):
        cdask.adjacency(da.from_array(lab, chunks=2), *args, **kw)


def test_volumes_are_refused():
    # cclabel.adjacency takes (Z, Y, X) NumPy volumes; the dask graph takes pictures only, for now.
    for conn in (8, 26):
        with pytest.raises(ValueError, match=r"labels: expected shape \(H, W\), got \(4, 4, 4\)"):
            cdask.adjacency(da.from_array(np.zeros((4, 4, 4), np.uint32), chunks=2), conn)


@pytest.mark.parametrize("lab", [np.array([[1, -2], [3, 4]], np.int32), np.array([[1, 2**32], [3, 4]], np.int64)])
def test_bad_values_are_found_by_compute(lab):
    kind, message = in_memory_error(lab)
    edges = cdask.adjacency(da.from_array(lab, chunks=1))
    with pytest.raises(kind, match=message):
        edges.compute(scheduler="threads")


def test_not_a_dask_array():
    with pytest.raises(TypeError, match="dask.array"):
        cdask.adjacency(np.zeros((4, 4), np.uint32))


def test_cupy_chunks():
    """CuPy chunks: each chunk's graph on its GPU (cclabel.adjacency), the rings copied to the host."""
    cupy = pytest.importorskip("cupy", reason="CuPy is not installed")
    if not cclabel.cuda_available():
        pytest.skip("no CUDA device or a build without CUDA")
    lab = np.random.default_rng(6).integers(0, 20, size=(70, 90)).astype(np.uint32)
    arr = da.from_array(cupy.asarray(lab), chunks=(32, 40), asarray=False)
    for conn in (4, 8):
        got = cdask.adjacency(arr, conn, True).compute(scheduler="threads")
        np.testing.assert_array_equal(got, cclabel.adjacency(lab, conn, True))


def test_distributed():
    rng = np.random.default_rng(9)
    lab = rng.integers(0, 30, size=(90, 80)).astype(np.uint32)
    with distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1, host="127.0.0.1",
                                  dashboard_address=None, silence_logs=40) as cluster, distributed.Client(cluster):
        got = cdask.adjacency(da.from_array(lab, chunks=(20, 33)), 8, True).compute()
    np.testing.assert_array_equal(got, cclabel.adjacency(lab, 8, True))
