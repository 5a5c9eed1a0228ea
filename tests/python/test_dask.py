"""cclabel.dask: chunked labels of a dask.array equal the whole image's, value for value, against
cc3d (independent) and cclabel.label; the tile steps (cclabel.tiles) by hand; sheet sets through
`cclabel label --scheduler`.

Real worker processes: one dask.distributed LocalCluster (2 worker processes, 1 thread each, on
loopback) for the module. Chunkings cut regions everywhere: 1-pixel-wide columns and rows, 1 x 1
chunks, ragged last chunks, chunk corners on diagonal contacts (TESTING.md A15), a spiral that
crosses every chunk (A17), checkerboards (A11), staircases (A14), x-crossings (A13). A worker is
killed mid-job and the job still completes. The sheet-set test needs the CLI binary
($CCLABEL_CLI, else build/release/src/cli/cclabel). CuPy chunks: skipped without CuPy and a device.
"""
from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from conftest import assert_same, cc3d_labels, cv2, pack, dask_modules

cclabel, dask, da, distributed = dask_modules()
import cclabel.dask as cdask  # noqa: E402
import cclabel.tiles as tiles  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1, host="127.0.0.1",
                                  dashboard_address=None, silence_logs=40) as cluster, \
            distributed.Client(cluster) as c:
        yield c


def reference(img: np.ndarray, conn: int, bg) -> tuple[np.ndarray, int]:
    """cc3d's labels (the independent reference) after checking that cclabel.label agrees."""
    packed = pack(img) if img.dtype != np.int32 else img.astype(np.int64) - np.iinfo(np.int32).min
    bgp = None
    if bg is not None:
        bgp = int(pack(np.array(bg, np.uint8).reshape(1, 1, -1))[0, 0]) if img.ndim == 3 else int(bg)
        if img.dtype == np.int32:
            bgp -= np.iinfo(np.int32).min
    want = cc3d_labels(packed, conn, bgp) if img.dtype != bool else cc3d_labels(packed, conn, 0)
    mine, n = cclabel.label(img, connectivity=conn, background=bg, return_num=True)
    assert_same(mine, want, "cclabel.label vs cc3d")
    return want, n


def check_many(cases, scheduler=None):
    """cases: (what, image, chunks, connectivity, background); one dask.compute for them all."""
    graphs = []
    for what, img, chunks, conn, bg in cases:
        arr = da.from_array(img, chunks=chunks)
        labels, n = cdask.label(arr, connectivity=conn, background=bg)
        assert labels.chunks == arr.chunks[:2]
        graphs.append((labels, n))
    results = dask.compute(graphs, scheduler=scheduler)[0] if scheduler else dask.compute(graphs)[0]
    for (what, img, chunks, conn, bg), (got, got_n) in zip(cases, results):
        want, want_n = reference(img, conn, bg)
        assert got.dtype == np.uint32
        assert_same(got, want, f"{what} chunks={chunks} conn={conn} bg={bg}")
        assert got_n == want_n, f"{what} chunks={chunks} conn={conn} bg={bg}: N {got_n} != {want_n}"


def check(img, chunks, conn, bg, scheduler=None, what=""):
    check_many([(what, img, chunks, conn, bg)], scheduler)


# --- images ---------------------------------------------------------------------------------------

def spiral(h, w):
    """A one-pixel spiral path (A17): one 8- and 4-connected region through every chunk."""
    img = np.zeros((h, w), np.uint8)
    y, x, d = 0, 0, 0
    dirs = [(0, 1), (1, 0), (0, -1), (-1, 0)]
    img[0, 0] = 1

    def free(yy, xx):
        return 0 <= yy < h and 0 <= xx < w and img[yy, xx] == 0

    turns = 0
    while turns < 2:
        dy, dx = dirs[d]
        ny, nx = y + dy, x + dx
        if free(ny, nx) and (not (0 <= ny + dy < h and 0 <= nx + dx < w) or img[ny + dy, nx + dx] == 0):
            img[ny, nx] = 1
            y, x, turns = ny, nx, 0
        else:
            d, turns = (d + 1) % 4, turns + 1
    return img


def corner_diagonals(k, cells):
    """A15 at chunk corners: at each corner of the k x k chunk grid, the two diagonal pairs."""
    n = k * cells + 1
    img = np.zeros((n, n), np.uint8)
    c = 1
    for i in range(1, cells + 1):
        for j in range(1, cells + 1):
            y, x = i * k, j * k
            if y < n and x < n:
                img[y - 1, x - 1] = img[y, x] = c
                img[y, x - 1] = img[y - 1, x] = c + 1
                c = c % 250 + 2
    return img


def adversarial():
    yy, xx = np.mgrid[0:29, 0:31]
    rng = np.random.default_rng(5)
    yield "checkerboard", ((yy + xx) % 2).astype(np.uint8), 0
    yield "checkerboard no bg", ((yy + xx) % 2).astype(np.uint8), None
    yield "staircase down", ((xx - yy) % 3 == 0).astype(np.uint8), 0
    yield "staircase up", ((xx + yy) % 3 == 0).astype(np.uint8), 0
    yield "max labels", ((xx % 2 == 0) & (yy % 2 == 0)).astype(np.uint8), 0
    a = rng.integers(1, 255, (15, 16), dtype=np.uint8)
    b = rng.integers(1, 255, (15, 16), dtype=np.uint8)
    x = np.zeros((30, 32), np.uint8)
    x[0::2, 0::2], x[1::2, 1::2], x[0::2, 1::2], x[1::2, 0::2] = a, a, b, b
    yield "x-crossings", x, None
    yield "spiral", spiral(31, 29), 0
    yield "corner diagonals", corner_diagonals(4, 7), 0


# --- cclabel.tiles by hand ------------------------------------------------------------------------

@pytest.mark.parametrize("conn", [4, 8])
def test_tile_steps_by_hand(conn):
    """Four tiles of a 2 x 2 grid, seams on faces and both diagonals, equal the whole image."""
    rng = np.random.default_rng(conn)
    img = rng.integers(0, 3, (13, 17), dtype=np.uint8)
    H, W = img.shape
    cuts = [(0, 6, 0, 9), (0, 6, 9, W), (6, H, 0, 9), (6, H, 9, W)]
    parts = [tiles.label_tile(img[y0:y1, x0:x1], x0, y0, W, connectivity=conn, background=0)
             for y0, y1, x0, x1 in cuts]
    for (y0, y1, x0, x1), (lab, t) in zip(cuts, parts):
        assert_same(lab, cclabel.label(img[y0:y1, x0:x1], connectivity=conn, background=0), "local labels")
        # first_index: each local label's first pixel, by a direct search
        for l in range(1, t.count + 1):
            ys, xs = np.nonzero(lab == l)
            assert t.first_index[l - 1] == (y0 + ys[0]) * W + x0 + xs[0]
    seams = [(a, b, tiles.seam_equivalences(parts[a][1], parts[b][1], conn))
             for a in range(4) for b in range(a + 1, 4)]
    corner = tiles.seam_equivalences(parts[0][1], parts[3][1], conn)
    if conn == 4:
        assert corner.size == 0
    n, maps = tiles.resolve_tiles([t.first_index for _, t in parts], seams)
    out = np.zeros((H, W), np.uint32)
    for (y0, y1, x0, x1), (lab, _), m in zip(cuts, parts, maps):
        out[y0:y1, x0:x1] = tiles.relabel_tile(lab, m)
    want, want_n = reference(img, conn, 0)
    assert_same(out, want, "tile steps")
    assert n == want_n
    wide = tiles.relabel_tile(parts[0][0], maps[0], dtype=np.uint64)
    assert wide.dtype == np.uint64 and np.array_equal(wide, out[:6, :9])


def test_tile_errors():
    lab, t = tiles.label_tile(np.zeros((4, 4), np.uint8), 0, 0, 8)
    with pytest.raises(ValueError, match="overlap"):
        tiles.seam_equivalences(t, t)
    with pytest.raises(ValueError, match="past the image width"):
        tiles.label_tile(np.zeros((4, 4), np.uint8), 6, 0, 8)
    with pytest.raises(ValueError, match="fit a uint32"):
        tiles.relabel_tile(lab, np.array([0, 2 ** 32], np.uint64))
    with pytest.raises(TypeError, match="complex64"):
        tiles.label_tile(np.zeros((4, 4), np.complex64), 0, 0, 4)


# --- cclabel.dask.label on the threaded scheduler (many cases, fast) --------------------------------

@pytest.mark.parametrize("conn", [4, 8])
@pytest.mark.parametrize("bg", [None, 0])
def test_random_threaded(conn, bg):
    rng = np.random.default_rng(conn * 10 + (bg is None))
    for trial in range(25):
        h, w = (int(v) for v in rng.integers(1, 30, 2))
        img = rng.integers(0, int(rng.integers(1, 4)), (h, w), dtype=np.uint8)
        chunks = (int(rng.integers(1, h + 1)), int(rng.integers(1, w + 1)))
        check(img, chunks, conn, bg, scheduler="threads", what=f"random {h}x{w}")


@pytest.mark.parametrize("dtype", [bool, np.uint16, np.uint32, np.int32])
def test_dtypes_threaded(dtype):
    rng = np.random.default_rng(3)
    if dtype is bool:
        img, bg = rng.integers(0, 2, (21, 19)).astype(bool), None
    else:
        info = np.iinfo(dtype)
        vals = np.array([info.min, info.max, 0, 1], dtype=dtype)
        img, bg = vals[rng.integers(0, 4, (21, 19))], info.max
    for conn in (4, 8):
        check(img, (4, 5), conn, bg, scheduler="threads", what=str(np.dtype(dtype)))


def test_zero_size_chunks_and_empty():
    img = np.random.default_rng(1).integers(0, 2, (9, 8), dtype=np.uint8)
    arr = da.from_array(img, chunks=((3, 0, 6), (0, 5, 3, 0)))
    labels, n = cdask.label(arr, background=0)
    assert labels.chunks == arr.chunks
    got, n = dask.compute(labels, n, scheduler="threads")
    assert_same(got, reference(img, 8, 0)[0], "zero-size chunks")
    labels, n = cdask.label(da.zeros((0, 7), dtype=np.uint8, chunks=3))
    got, n = dask.compute(labels, n)
    assert got.shape == (0, 7) and n == 0


def test_uint64_labels_and_dtype_argument():
    img = np.random.default_rng(2).integers(0, 3, (20, 20), dtype=np.uint8)
    labels, n = cdask.label(da.from_array(img, chunks=6), dtype=np.uint64)
    got = labels.compute(scheduler="threads")
    assert got.dtype == np.uint64
    assert np.array_equal(got, cclabel.label(img))
    with pytest.raises(TypeError, match="dtype"):
        cdask.label(da.from_array(img, chunks=6), dtype=np.int16)


# --- the merge tree: blocks of many children, ragged blocks, one-row and one-column grids -------------

def merge_tasks(labels_or_n):
    """The merge tasks of a graph: {key: number of children}."""
    graph = dict(labels_or_n.__dask_graph__())
    out = {}
    for k, v in graph.items():
        if isinstance(k, tuple) and str(k[0]).startswith("cclabel-merge-"):
            args = v.args if hasattr(v, "args") else v[1:]
            out[k] = len(args)
    return out


def test_block_shapes():
    """_block: at least 4 groups (2 x 2, or a row / column), at most 256, within the border budget."""
    for gr, gc, perimeter in [(64, 64, 256), (4, 4, 4096), (10, 10, 8192), (1, 4096, 130), (4096, 1, 130),
                              (2, 2, 45000), (3, 1, 10 ** 6), (1, 1, 4), (7, 5, 10 ** 9), (300, 2, 8)]:
        br, bc = cdask._block(gr, gc, perimeter)
        k = br * bc
        assert 1 <= br <= gr and 1 <= bc <= gc, (gr, gc, perimeter, br, bc)
        assert k <= cdask._MAX_CHILDREN
        assert k <= max(cdask._MIN_CHILDREN, cdask._MERGE_BORDER // perimeter)
        if gr * gc > 1:
            assert k >= min(gr * gc, 2)


@pytest.mark.parametrize("max_children", [4, 9, 256])
def test_merge_blocks_threaded(monkeypatch, max_children):
    """Grids of chunks cut into blocks that do not divide them (2 x 2 and 3 x 3 blocks of 7 x 5,
    11 x 13 grids), 1 x N and N x 1 grids, 1 x 1 chunks (many levels); every label equals."""
    monkeypatch.setattr(cdask, "_MAX_CHILDREN", max_children)
    rng = np.random.default_rng(max_children)
    img = rng.integers(0, 3, (33, 39), dtype=np.uint8)
    small = img[:13, :17]
    cases = [("random", img, chunks, conn, bg) for chunks in [(5, 8), (3, 3), (33, 1), (1, 39), (7, 2)]
             for conn in (4, 8) for bg in (None, 0)]
    cases += [("random 1x1 chunks", small, (1, 1), conn, bg) for conn in (4, 8) for bg in (None, 0)]
    cases += [(name, a, chunks, conn, bg) for name, a, bg in adversarial()
              for chunks in [(2, 2), (a.shape[0], 1), (1, a.shape[1])] for conn in (4, 8)]
    check_many(cases, scheduler="threads")


def test_merge_border_budget(monkeypatch):
    """A small border budget: blocks fall to 2 x 2 (the minimum); a large one: one merge takes all."""
    img = spiral(48, 52)
    arr = da.from_array(img, chunks=(4, 4))  # a 12 x 13 grid, border rings of 16 pixels
    monkeypatch.setattr(cdask, "_MERGE_BORDER", 1)
    labels, n = cdask.label(arr, background=0)
    sizes = merge_tasks(labels)
    assert max(sizes.values()) <= 4 and len({k[1] for k in sizes}) >= 4  # 2 x 2 blocks, >= 4 levels
    got, n = dask.compute(labels, n, scheduler="threads")
    assert n == 1 and np.array_equal(got, img.astype(np.uint32))
    monkeypatch.setattr(cdask, "_MERGE_BORDER", 1 << 30)
    labels, n = cdask.label(arr, background=0)
    assert list(merge_tasks(labels).values()) == [156]
    got, n = dask.compute(labels, n, scheduler="threads")
    assert n == 1 and np.array_equal(got, img.astype(np.uint32))


def test_many_chunks_hierarchical():
    """4,096 chunks: 16 merges of 16 x 16 chunks, then one of 4 x 4 groups (never one task for all)."""
    rng = np.random.default_rng(9)
    img = (rng.random((256, 256)) > 0.45).astype(np.uint8)
    labels, n = cdask.label(da.from_array(img, chunks=4), background=0)
    sizes = merge_tasks(labels)
    assert sorted(sizes.values()) == [16] + [256] * 16
    got, n = dask.compute(labels, n, scheduler="threads")
    want, want_n = reference(img, 8, 0)
    assert_same(got, want, "4,096 chunks")
    assert n == want_n


@pytest.mark.parametrize("conn", [4, 8])
@pytest.mark.parametrize("bg", [None, 0])
def test_tree_merge_equals_the_whole_leaf(conn, bg):
    """One merge (the C++ _cclabel._tree_merge) of the leaves of a grid of chunks gives the leaf of
    the whole block as one chunk: the same border runs, run for run (each id its region's first
    pixel), the same closed ids; renamed ids ascending, each moved to a smaller one. Random grids
    (rows and columns cut anywhere, 1-pixel chunks included) at an offset in a wider image."""
    rng = np.random.default_rng(conn + (bg or 0))
    for t in range(150):
        h, w = (int(v) for v in rng.integers(1, 20, 2))
        img = rng.integers(0, int(rng.integers(1, 4)), (h, w)).astype(np.uint8)
        if t % 3 == 0:
            img = np.kron(img, np.ones((2, 3), np.uint8))[:h, :w]
        Y0, X0 = int(rng.integers(0, 50)), int(rng.integers(0, 50))
        W = X0 + w + int(rng.integers(0, 5))
        cut_y = sorted({int(v) for v in rng.integers(1, h, int(rng.integers(0, 4)))}) if h > 1 else []
        cut_x = sorted({int(v) for v in rng.integers(1, w, int(rng.integers(0, 4)))}) if w > 1 else []
        if not cut_y and not cut_x:
            continue
        ys, xs = [0] + cut_y + [h], [0] + cut_x + [w]

        def leaf(y, x, hh, ww):
            return cdask._chunk(img[y:y + hh, x:x + ww], x0=X0 + x, y0=Y0 + y, image_width=W, connectivity=conn,
                                background=bg, backend="auto")[1]
        children = [leaf(ys[i], xs[j], ys[i + 1] - ys[i], xs[j + 1] - xs[j])
                    for i in range(len(ys) - 1) for j in range(len(xs) - 1)]
        seams = sorted([2 * (Y0 + y) for y in cut_y] + [2 * (X0 + x) + 1 for x in cut_x])
        summary, (renamed, to) = cdask._merge(*children, y0=Y0, x0=X0, h=h, w=w, seams=tuple(seams),
                                              connectivity=conn)
        runs, closed = cdask._unpack(summary)
        want_runs, want_closed = cdask._unpack(leaf(0, 0, h, w))
        case = (t, conn, bg, h, w, cut_y, cut_x)
        assert summary.dtype == np.int64 and renamed.dtype == to.dtype == np.uint64, case
        assert np.array_equal(runs, want_runs), case
        assert np.array_equal(np.sort(closed), want_closed), case
        assert np.all(np.diff(renamed.astype(np.int64)) > 0) and np.all(to < renamed), case


def test_tree_merge_errors():
    """_tree_merge's checks: connectivity 4 or 8, summaries [m, (6, m) runs, closed], sides 0..3."""
    run = cdask._pack(np.zeros((6, 1), np.int64), np.zeros(0, np.uint64))
    assert run.tolist() == [1, 0, 0, 0, 0, 0, 0]
    cclabel._cclabel._tree_merge([run], 0, 0, 1, 1, [], 8)
    with pytest.raises(ValueError):
        cclabel._cclabel._tree_merge([run], 0, 0, 1, 1, [], 6)
    for bad in ([], [2, 0, 0, 0, 0, 0, 0], [-1]):
        with pytest.raises(ValueError):
            cclabel._cclabel._tree_merge([np.array(bad, np.int64)], 0, 0, 1, 1, [], 8)
    side = run.copy()
    side[1] = 4
    with pytest.raises(ValueError):
        cclabel._cclabel._tree_merge([side], 0, 0, 1, 1, [], 8)


# --- on the LocalCluster (worker processes) ---------------------------------------------------------

# Every chunking on the threaded scheduler (the same tasks, fast); a selection on the cluster below.
@pytest.mark.parametrize("conn", [4, 8])
def test_adversarial_threaded(conn):
    check_many([(name, img, chunks, conn, bg) for name, img, bg in adversarial()
                for chunks in [(4, 4), (1, 3), (5, 2), (29, 1)]], scheduler="threads")


@pytest.mark.parametrize("conn", [4, 8])
def test_random_distributed(client, conn):
    rng = np.random.default_rng(100 + conn)
    img = rng.integers(0, 3, (23, 31), dtype=np.uint8)
    small = rng.integers(0, 2, (6, 7), dtype=np.uint8)
    check_many([("random 23x31", img, chunks, conn, bg) for chunks in [(23, 1), (2, 31), (7, 5), (23, 31)]
                for bg in (None, 0)] + [("random 6x7", small, (1, 1), conn, bg) for bg in (None, 0)])


@pytest.mark.parametrize("conn", [4, 8])
def test_adversarial_distributed(client, conn):
    check_many([(name, img, (4, 4), conn, bg) for name, img, bg in adversarial()])


def test_merge_blocks_distributed(client):
    """Blocks of many children on worker processes: 1 x 1 chunks of an 18 x 20 image (16 x 16
    blocks, ragged at the edges, then one block of 2 x 2 groups)."""
    rng = np.random.default_rng(12)
    img = rng.integers(0, 3, (18, 20), dtype=np.uint8)
    check_many([("random 1x1 chunks", img, (1, 1), conn, 0) for conn in (4, 8)])


def test_region_crossing_every_chunk(client):
    img = spiral(40, 40)
    labels, n = cdask.label(da.from_array(img, chunks=(3, 7)), background=0)
    got, n = dask.compute(labels, n)
    assert n == 1 and np.array_equal(got, img.astype(np.uint32))


def test_rgb_single_chunk_colour_axis(client):
    rng = np.random.default_rng(7)
    palette = np.array([[255, 255, 255], [255, 255, 254], [0, 0, 0], [0, 1, 0]], np.uint8)
    img = palette[rng.integers(0, 4, (17, 22))]
    for conn in (4, 8):
        check(img, (5, 4, 3), conn, None, what="RGB")
        check(img, (3, 6, 3), conn, (255, 255, 255), what="RGB bg")
    rgba = np.concatenate([img, rng.integers(254, 256, (17, 22, 1), dtype=np.uint8)], axis=2)
    check(rgba, (4, 4, 4), 8, None, what="RGBA")


def test_worker_killed_mid_job(client):
    """One worker process dies while chunks are being labelled; Dask retries its tasks elsewhere."""
    rng = np.random.default_rng(11)
    img = rng.integers(0, 2, (64, 64), dtype=np.uint8)
    slow = da.from_array(img, chunks=8).map_blocks(lambda b: (time.sleep(0.1), b)[1], dtype=np.uint8)
    labels, n = cdask.label(slow, background=0)
    futures = client.compute([labels, n])
    deadline = time.time() + 60
    while not any(ts.state == "memory" for ts in client.cluster.scheduler.tasks.values()) and time.time() < deadline:
        time.sleep(0.05)
    victim = next(iter(client.scheduler_info()["workers"]))
    assert not futures[0].done(), "the job finished before a worker could be killed (make it slower)"
    try:
        client.run(os._exit, 1, workers=[victim], wait=False)
    except Exception:  # the worker may die before it answers
        pass
    got, got_n = client.gather(futures)
    want, want_n = reference(img, 8, 0)
    assert_same(got, want, "after a worker was killed")
    assert got_n == want_n
    client.wait_for_workers(2, timeout=60)


def test_cupy_chunks(client):
    cupy = pytest.importorskip("cupy", reason="CuPy is not installed")
    if not cclabel.cuda_available():
        pytest.skip("no CUDA device or a build without CUDA")
    img = np.random.default_rng(4).integers(0, 3, (300, 257), dtype=np.uint8)
    arr = da.from_array(cupy.asarray(img), chunks=(64, 100), asarray=False)
    labels, n = cdask.label(arr, background=0)
    got, n = dask.compute(labels, n, scheduler="threads")
    assert type(got).__module__.startswith("cupy")
    want, want_n = reference(img, 8, 0)
    assert_same(cupy.asnumpy(got), want, "CuPy chunks")
    assert n == want_n


# --- errors -----------------------------------------------------------------------------------------

def test_errors():
    img = np.zeros((8, 8, 3), np.uint8)
    with pytest.raises(ValueError, match=r"colour axis .* split across chunks"):
        cdask.label(da.from_array(img, chunks=(4, 4, 1)))
    with pytest.raises(TypeError, match="dtype complex64 is not supported"):
        cdask.label(da.zeros((8, 8), dtype=np.complex64, chunks=4))
    with pytest.raises(ValueError, match="expected shape"):
        cdask.label(da.zeros((2, 8, 8), dtype=np.uint16, chunks=4))
    with pytest.raises(TypeError, match="dask.array"):
        cdask.label(np.zeros((8, 8), np.uint8))
    with pytest.raises(ValueError, match="connectivity"):
        cdask.label(da.zeros((8, 8), dtype=np.uint8, chunks=4), connectivity=6)
    with pytest.raises(ValueError, match="background"):
        cdask.label(da.zeros((8, 8), dtype=np.uint8, chunks=4), background=300)
    with pytest.raises(ValueError, match="unknown size"):
        arr = da.zeros((8, 8), dtype=np.uint8, chunks=4)
        cdask.label(arr[arr[:, 0] == 0])


def test_unreachable_scheduler():
    with pytest.raises(ConnectionError, match="cannot reach the Dask scheduler at tcp://127.0.0.1:9"):
        cdask.label_files(["x.png"], scheduler="tcp://127.0.0.1:9", cli=sys.executable, connect_timeout=2)


# --- sheet sets through `cclabel label --scheduler` ------------------------------------------------------

@pytest.fixture(scope="module")
def cli_binary():
    path = os.path.abspath(os.environ.get("CCLABEL_CLI") or ROOT / "build/release/src/cli/cclabel")
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        pytest.skip(f"no cclabel CLI binary at {path} (set CCLABEL_CLI)")
    return path


def run_cli(cli, *args):
    env = dict(os.environ)
    # the package the CLI's Python must import: the one under test
    env["PYTHONPATH"] = os.pathsep.join([str(Path(cclabel.__file__).parents[1]), env.get("PYTHONPATH", "")])
    return subprocess.run([cli, "label", *map(str, args)], capture_output=True, text=True, timeout=300, env=env)


def test_sheet_set_through_scheduler(client, cli_binary, tmp_path):
    rng = np.random.default_rng(21)
    sheets = {}
    for i in range(30):
        img = (rng.integers(0, 3, (int(rng.integers(20, 60)), int(rng.integers(20, 60)))) * 100).astype(np.uint8)
        path = tmp_path / f"sheet{i:02d}.png"
        assert cv2.imwrite(str(path), img)
        sheets[path] = img
    corrupt = tmp_path / "sheet_corrupt.png"
    corrupt.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(rng.integers(0, 256, 200, dtype=np.uint8)))
    out = tmp_path / "labels"
    files = sorted(sheets) + [corrupt]
    proc = run_cli(cli_binary, "--scheduler", client.scheduler.address, *files, "-o", out, "-c", "4", "-b", "0")
    assert proc.returncode == 1, proc.stderr
    assert str(corrupt) in proc.stderr and "1 of 31 files failed" in proc.stderr, proc.stderr
    assert proc.stdout.count("regions") == 30, proc.stdout
    for path, img in sheets.items():
        got = np.load(out / f"{path.stem}.npy")
        assert_same(got, reference(img, 4, 0)[0], path.name)
    assert not (out / "sheet_corrupt.npy").exists()
    # without -o: next to each input as <stem>.labels.npy
    proc = run_cli(cli_binary, "--scheduler", client.scheduler.address, files[0])
    assert proc.returncode == 0, proc.stderr
    assert np.array_equal(np.load(tmp_path / "sheet00.labels.npy"), cclabel.label(sheets[files[0]]))


def test_cli_scheduler_errors(cli_binary, tmp_path):
    proc = run_cli(cli_binary, "--scheduler", "tcp://127.0.0.1:9", "--connect-timeout", "2", tmp_path / "a.png")
    assert proc.returncode == 2
    assert "cannot reach the Dask scheduler at tcp://127.0.0.1:9" in proc.stderr, proc.stderr
    env = dict(os.environ, CCLABEL_PYTHON=str(tmp_path / "no-python"))
    proc = subprocess.run([cli_binary, "label", "--scheduler", "tcp://127.0.0.1:9", "a.png"], capture_output=True,
                          text=True, env=env)
    assert proc.returncode == 2
    assert "--scheduler needs Python 3" in proc.stderr and "no-python" in proc.stderr, proc.stderr
    # Python without the package
    env = dict(os.environ, PYTHONPATH=str(tmp_path), PYTHONNOUSERSITE="1")
    proc = subprocess.run([cli_binary, "label", "--scheduler", "tcp://127.0.0.1:9", "a.png"], capture_output=True,
                          text=True, env=env, cwd=tmp_path)
    if proc.returncode != 0 and "No module named 'cclabel" in proc.stderr:
        assert "--scheduler needs the cclabel Python package" in proc.stderr, proc.stderr


def test_threads_per_task_keep_the_labels_and_are_checked():
    rng = np.random.default_rng(7)
    img = (rng.random((97, 131)) < 0.45).astype(np.uint8)
    expected = cclabel.label(img, background=0)
    for threads in (None, 1, 3):
        labels, n = cdask.label(da.from_array(img, chunks=(40, 50)), background=0, threads=threads)
        got, n = dask.compute(labels, n, scheduler="threads")
        assert np.array_equal(got, expected), threads
        assert int(n) == int(expected.max())
    with pytest.raises(ValueError, match="threads: must not be negative"):
        cdask.label(da.from_array(img, chunks=40), threads=-1)
    with pytest.raises(TypeError, match="threads: expected None or an int"):
        cdask.label(da.from_array(img, chunks=40), threads=2.0)


def test_a_distributed_worker_gives_each_task_its_share_of_the_cores():
    from cclabel.dask import _task_threads
    assert _task_threads(5) == 5
    assert _task_threads(None) is None  # not on a worker: the library's rule
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    with distributed.Client(n_workers=1, threads_per_worker=2, processes=False, dashboard_address=":0",
                            silence_logs=40) as client:
        got = client.submit(_task_threads, None, pure=False).result()
    assert got == max(1, cores // 2)
