"""Tolerance labelling and the region adjacency graph (cclabel.graph, `cclabel label --tolerance
--adjacency`) against a flood fill written here, cc3d's `delta` where cc3d is right (4-connectivity)
and cc3d's `contacts` / `region_graph`.

cc3d 4.1.1's 8-connected `delta` joins pixels that differ by more than delta ([[11, 2], [10, 9]]
with delta 4 puts the 9 with the 2), so 8-connectivity is checked against the flood fill only.
cc3d's `contacts(..., connectivity=8)` miscounts on 2-D images; its 26-connectivity on a 2-D image
is the 8-neighbourhood and is what `adjacency(..., connectivity=8)` equals.
"""
from __future__ import annotations

import csv
import os

import numpy as np
import pytest

from conftest import bfs_labels, cc3d, run_cli

# The package's tests and the CLI's run together in test.sh's python stage, where the package must
# be there; the pytest stage (the CLI alone, no package installed) skips this module.
if os.environ.get("CCLABEL_PYTHON_REQUIRED") == "1":
    import cclabel
else:
    cclabel = pytest.importorskip("cclabel", reason="the Python package is not installed (pip install .)")
from cclabel.graph import adjacency, label_tolerance  # noqa: E402


def flood_fill(img, tolerance, connectivity, background=None):
    """Raster-order BFS joining neighbours whose every channel differs by at most the tolerance
    (integers compared exactly as int64, floats as float64)."""
    a = np.asarray(img)
    wide = np.float64 if a.dtype.kind == "f" else np.int64
    a = a.astype(wide)
    if a.ndim == 2:
        a = a[:, :, None]
    bg = None if background is None else np.atleast_1d(np.asarray(background, dtype=wide))
    is_bg = np.zeros(a.shape[:2], bool) if bg is None else np.all(a == bg, axis=2)
    return bfs_labels(a.shape[0], a.shape[1], lambda y, x, y2, x2: np.abs(a[y2, x2] - a[y, x]).max() <= tolerance,
                      connectivity, lambda y, x: is_bg[y, x])


def brute_contacts(labels, connectivity, background=False):
    """Each unordered neighbour pair of distinct labels, counted once."""
    h, w = labels.shape
    offs = [(0, 1), (1, 0)] + ([(1, 1), (1, -1)] if connectivity == 8 else [])
    d = {}
    for y in range(h):
        for x in range(w):
            for dy, dx in offs:
                ny, nx = y + dy, x + dx
                if 0 <= ny < h and 0 <= nx < w:
                    p, q = int(labels[y, x]), int(labels[ny, nx])
                    if p != q and (background or (p and q)):
                        k = (min(p, q), max(p, q))
                        d[k] = d.get(k, 0) + 1
    return d


def as_dict(edges):
    return {(int(a), int(b)): int(n) for a, b, n in edges}


def random_image(rng, dtype, shape, spread):
    """Values within `spread` of 0 or of the dtype's top, so that the tolerance matters at both ends."""
    info = np.iinfo(dtype)
    v = rng.integers(0, spread + 1, size=shape)
    top = rng.integers(0, 2, size=shape).astype(bool)
    return np.where(top, int(info.max) - v, int(info.min) + v).astype(dtype)


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.uint32])
@pytest.mark.parametrize("tolerance", [1, 2, 3])
def test_four_connected_equals_cc3d_delta(dtype, tolerance):
    rng = np.random.default_rng(tolerance * 7 + np.dtype(dtype).itemsize)
    for shape in [(1, 1), (1, 17), (17, 1), (9, 13), (40, 33)]:
        img = rng.integers(0, 10, size=shape).astype(dtype)
        got = label_tolerance(img, tolerance, connectivity=4, background=0, backend="cpu")
        want = cc3d.connected_components(img, delta=tolerance, connectivity=4)
        np.testing.assert_array_equal(got, want, err_msg=f"{dtype.__name__} {shape} tolerance {tolerance}")
        np.testing.assert_array_equal(got, flood_fill(img, tolerance, 4, background=0))


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.uint32, np.int8, np.int16, np.int32])
@pytest.mark.parametrize("connectivity", [4, 8])
def test_equals_flood_fill_at_both_ends_of_the_range(dtype, connectivity):
    rng = np.random.default_rng(np.dtype(dtype).itemsize * 10 + connectivity)
    for shape in [(7, 5), (23, 31)]:
        img = random_image(rng, dtype, shape, 8)
        for tolerance in (1, 3):
            for background in (None, int(np.iinfo(dtype).min)):
                got, n = label_tolerance(img, tolerance, connectivity=connectivity, background=background,
                                         return_num=True, threads=3)
                want = flood_fill(img, tolerance, connectivity, background)
                np.testing.assert_array_equal(got, want, err_msg=f"{dtype.__name__} tol {tolerance} bg {background}")
                assert n == int(want.max())


def test_regression_cc3d_eight_connected_delta_joins_too_far():
    # cc3d 4.1.1 labels this [[1, 2], [1, 2]]: the 9 (1 from the 10) goes with the 2 (7 away).
    img = np.array([[11, 2], [10, 9]], dtype=np.uint8)
    got = label_tolerance(img, 4, connectivity=8)
    np.testing.assert_array_equal(got, flood_fill(img, 4, 8))
    np.testing.assert_array_equal(got, [[1, 2], [1, 1]])


@pytest.mark.parametrize("channels", [3, 4])
@pytest.mark.parametrize("connectivity", [4, 8])
def test_colour_compares_every_channel(channels, connectivity):
    rng = np.random.default_rng(channels + connectivity)
    img = rng.integers(0, 4, size=(29, 23, channels)).astype(np.uint8)
    img[rng.integers(0, 2, size=img.shape[:2]).astype(bool)] += 250  # some pixels near 255
    for tolerance in (1, 2, 3):
        got = label_tolerance(img, tolerance, connectivity=connectivity)
        np.testing.assert_array_equal(got, flood_fill(img, tolerance, connectivity))
    bg = tuple(int(c) for c in img[0, 0])
    np.testing.assert_array_equal(label_tolerance(img, 2, connectivity=connectivity, background=bg),
                                  flood_fill(img, 2, connectivity, bg))


def test_chain_whose_ends_differ_by_more_joins():
    ramp = np.arange(0, 256, 5, dtype=np.uint8)[None, :]
    assert label_tolerance(ramp, 5).max() == 1
    assert label_tolerance(ramp, 4).max() == ramp.size


def test_zero_is_exact_labelling():
    rng = np.random.default_rng(5)
    img = rng.integers(0, 3, size=(31, 37)).astype(np.uint8)
    for connectivity in (4, 8):
        np.testing.assert_array_equal(label_tolerance(img, 0, connectivity=connectivity),
                                      cclabel.label(img, connectivity=connectivity))


@pytest.mark.parametrize("bad, error", [(-1, ValueError), (1.5, TypeError), (2.0, TypeError), ("3", TypeError),
                                        (None, TypeError), (True, TypeError), (256, ValueError),
                                        (2 ** 32, ValueError), (-(2 ** 70), ValueError)])
def test_bad_tolerance_is_a_clear_error(bad, error):
    with pytest.raises(error, match="tolerance"):
        label_tolerance(np.zeros((2, 2), np.uint8), bad)


def test_tolerance_range_follows_the_format():
    assert label_tolerance(np.array([[0, 65535]], np.uint16), 65535).max() == 1
    with pytest.raises(ValueError, match="tolerance 65536 is out of range for gray16"):
        label_tolerance(np.zeros((2, 2), np.uint16), 65536)
    assert label_tolerance(np.array([[0, 2 ** 32 - 1]], np.uint32), 2 ** 32 - 1).max() == 1
    assert label_tolerance(np.array([[0, 2 ** 32 - 1]], np.uint32), np.uint32(2 ** 32 - 2)).max() == 2


def test_cuda_backend_with_a_tolerance():
    """On the GPU (the pixel pipeline with close-neighbour joins) the labels are the CPU's; with
    no device, backend "cuda" is a ValueError."""
    rng = np.random.default_rng(5)
    img = np.cumsum(rng.integers(-3, 4, (300, 257)), axis=1).astype(np.int64) % 256
    img = img.astype(np.uint8)
    rgb = np.stack([img, img[::-1], img[:, ::-1]], axis=2).copy()
    if not cclabel.cuda_available():
        with pytest.raises(ValueError):
            label_tolerance(img, 3, backend="cuda")
        return
    for picture, zero in ((img, 0), (rgb, (0, 0, 0))):
        for conn in (4, 8):
            for bg in (None, zero):
                want, n = label_tolerance(picture, 3, connectivity=conn, background=bg, backend="cpu",
                                          return_num=True)
                got, m = label_tolerance(picture, 3, connectivity=conn, background=bg, backend="cuda",
                                         return_num=True)
                assert m == n
                np.testing.assert_array_equal(got, want)


def test_gpu_arrays_with_a_tolerance_label_on_their_gpu():
    """CuPy arrays and CUDA tensors with a tolerance go to the device API (no host copy): labels
    equal to the host's, of the same library; batches and out= as without a tolerance; signed
    pictures by value; dtypes with no tolerance on the GPU are refused."""
    if not cclabel.cuda_available():
        pytest.skip("no CUDA device")
    cp = pytest.importorskip("cupy")
    rng = np.random.default_rng(8)
    img = (np.cumsum(rng.integers(-3, 4, (120, 97)), axis=1).astype(np.int64) % 256).astype(np.uint8)
    rgb = np.stack([img, img[::-1], img[:, ::-1]], axis=2).copy()
    wide = img.astype(np.uint16) * 200
    for picture, tol, zero in ((img, 3, 0), (rgb, 3, (0, 0, 0)), (wide, 700, 0), (img > 128, 1, 0)):
        for conn in (4, 8):
            for bg in (None, zero):
                want, n = label_tolerance(picture, tol, connectivity=conn, background=bg, backend="cpu",
                                          return_num=True)
                got, m = cclabel.label(cp.asarray(picture), connectivity=conn, background=bg, tolerance=tol,
                                       return_num=True)
                assert isinstance(got, cp.ndarray) and m == n
                np.testing.assert_array_equal(cp.asnumpy(got), want)
                via = label_tolerance(cp.asarray(picture), tol, connectivity=conn, background=bg)
                np.testing.assert_array_equal(cp.asnumpy(via), want)
    batch = cp.asarray(np.stack([img, img[::-1]]))
    labels, counts = cclabel.label(batch, tolerance=3, return_num=True)
    for b, picture in enumerate((img, img[::-1])):
        want, n = label_tolerance(picture, 3, return_num=True)
        np.testing.assert_array_equal(cp.asnumpy(labels[b]), want)
        assert int(counts[b]) == n
    out = cp.empty(img.shape, cp.uint32)
    assert cclabel.label(cp.asarray(img), tolerance=3, out=out) is out
    # A signed picture is labelled by value on its GPU (tests/python/test_tolerance_typed_gpu.py);
    # a dtype the GPU has no tolerance for is refused by name.
    np.testing.assert_array_equal(cp.asnumpy(cclabel.label(cp.asarray(img.astype(np.int16)), tolerance=3)),
                                  label_tolerance(img.astype(np.int16), 3))
    with pytest.raises(TypeError, match="tolerance on the GPU"):
        cclabel.label(cp.asarray(img).astype(cp.complex64), tolerance=3)
    with pytest.raises(ValueError):
        cclabel.label(cp.asarray(img), tolerance=-1)
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        t = torch.as_tensor(img, device="cuda")
        got = cclabel.label(t, tolerance=3)
        assert isinstance(got, torch.Tensor) and got.device.type == "cuda"
        np.testing.assert_array_equal(got.view(torch.int32).cpu().numpy().view(np.uint32), label_tolerance(img, 3))


def test_complex_and_rgb_float_images_are_refused():
    with pytest.raises(TypeError):
        label_tolerance(np.zeros((2, 2), np.complex64), 1)
    with pytest.raises((TypeError, ValueError)):
        label_tolerance(np.zeros((2, 2, 3), np.float32), 1)


@pytest.mark.parametrize("connectivity", [4, 8])
def test_adjacency_equals_cc3d_contacts_and_region_graph(connectivity):
    rng = np.random.default_rng(connectivity)
    for shape in [(1, 1), (1, 9), (9, 1), (2, 2), (17, 23), (64, 48)]:
        for palette in (2, 5, 40):
            labels = rng.integers(0, palette, size=shape).astype(np.uint32)
            got = adjacency(labels, connectivity=connectivity)
            assert got.dtype == np.uint64 and got.shape[1] == 3
            pairs = [tuple(map(int, r[:2])) for r in got]
            assert pairs == sorted(pairs) and all(a < b for a, b in pairs)
            # cc3d's 2-D 8-neighbourhood is connectivity=26 (its connectivity=8 miscounts contacts).
            cc3d_conn = 4 if connectivity == 4 else 26
            want = cc3d.contacts(labels, connectivity=cc3d_conn, surface_area=False)
            assert as_dict(got) == {k: int(v) for k, v in want.items()}, f"{shape} palette {palette}"
            assert set(pairs) == set(cc3d.region_graph(labels, connectivity=connectivity))
            assert as_dict(got) == brute_contacts(labels, connectivity)
            assert as_dict(adjacency(labels, connectivity, background=True)) == brute_contacts(labels, connectivity, True)


def test_adjacency_of_gpu_labels_equals_the_host_graph():
    """A CuPy label image is read on the GPU, in place (uint32) or converted there (int64, a view
    with gaps); the edges equal those of the same labels on the host."""
    if not cclabel.cuda_available():
        pytest.skip("no CUDA device")
    cp = pytest.importorskip("cupy")
    rng = np.random.default_rng(11)
    img = np.kron(rng.integers(0, 4, (60, 80)), np.ones((3, 3), np.int64)).astype(np.uint8)
    labels = cclabel.label(img, connectivity=4)
    for conn in (4, 8):
        for bg in (False, True):
            want = adjacency(labels, connectivity=conn, background=bg)
            # in place; converted from int64; a view with gaps between pixels (every other column)
            for dev in (cp.asarray(labels), cp.asarray(labels.astype(np.int64)),
                        cp.asarray(np.repeat(labels, 2, axis=1))[:, ::2]):
                got = adjacency(dev, connectivity=conn, background=bg)
                np.testing.assert_array_equal(got, want)


def test_adjacency_on_threads_equals_one_thread():
    """Bands of rows side by side: pairs whose boundaries cross band seams are summed once; the
    edges never depend on the thread count."""
    rng = np.random.default_rng(5)
    img = np.kron(rng.integers(0, 5, (90, 70)), np.ones((4, 3), np.int64)).astype(np.uint8)
    labels = cclabel.label(img, connectivity=8, backend="cpu")
    want = brute_contacts(labels, 8)
    for threads in (None, 1, 2, 7):
        assert as_dict(adjacency(labels, threads=threads, backend="cpu")) == want, threads


def test_adjacency_of_tolerance_labels():
    rng = np.random.default_rng(11)
    img = rng.integers(0, 12, size=(40, 40)).astype(np.uint8)
    labels = label_tolerance(img, 2, background=0)
    assert as_dict(adjacency(labels)) == brute_contacts(labels, 8)
    assert as_dict(adjacency(labels.astype(np.int64), 4)) == brute_contacts(labels, 4)


@pytest.mark.parametrize("labels, kwargs, error", [
    (np.zeros((2, 2, 2), np.uint32), {}, ValueError),
    (np.zeros((2, 2), np.float32), {}, TypeError),
    (-np.ones((2, 2), np.int32), {}, ValueError),
    (np.full((2, 2), 2 ** 40, np.int64), {}, ValueError),
    (np.zeros((2, 2), np.uint32), {"connectivity": 6}, ValueError),
    (np.zeros((2, 2), np.uint32), {"background": "yes"}, TypeError),
    (np.zeros((2, 2), np.uint32), {"threads": -1}, ValueError),
    (np.zeros((2, 2), np.uint32), {"threads": 1.5}, TypeError),
    (np.zeros((2, 2), np.uint32), {"backend": "gpu"}, ValueError),
])
def test_adjacency_bad_arguments(labels, kwargs, error):
    with pytest.raises(error):
        adjacency(labels, **kwargs)


def test_cli_tolerance_and_adjacency(cli, tmp_path):
    rng = np.random.default_rng(3)
    img = rng.integers(0, 12, size=(37, 41)).astype(np.uint8)
    np.save(tmp_path / "in.npy", img)
    for connectivity in (4, 8):
        out, edges = tmp_path / f"labels{connectivity}.npy", tmp_path / f"edges{connectivity}.csv"
        proc = run_cli(cli, tmp_path / "in.npy", "--tolerance", "2", "-b", "0", "-c", str(connectivity),
                       "--backend", "cpu", "-o", out, "--adjacency", edges)
        assert "tolerance 2" in proc.stdout
        labels = np.load(out)
        np.testing.assert_array_equal(labels, flood_fill(img, 2, connectivity, background=0))
        with open(edges, newline="") as f:
            rows = list(csv.reader(f))
        assert rows[0] == ["a", "b", "contacts"]
        assert {(int(a), int(b)): int(n) for a, b, n in rows[1:]} == brute_contacts(labels, connectivity)
    with_bg = tmp_path / "edges_bg.csv"
    run_cli(cli, tmp_path / "in.npy", "-b", "0", "--adjacency", with_bg, "--adjacency-background")
    with open(with_bg, newline="") as f:
        rows = list(csv.reader(f))[1:]
    assert {(int(a), int(b)): int(n) for a, b, n in rows} == brute_contacts(cclabel.label(img, background=0), 8, True)


@pytest.mark.parametrize("value, code, message", [("-1", 2, "--tolerance -1"), ("abc", 2, "--tolerance abc"),
                                                  ("1.5", 2, "--tolerance 1.5"), ("300", 1, "tolerance 300")])
def test_cli_bad_tolerance(cli, tmp_path, value, code, message):
    np.save(tmp_path / "in.npy", np.zeros((3, 3), np.uint8))
    proc = run_cli(cli, tmp_path / "in.npy", "--tolerance", value, expect_ok=False)
    assert proc.returncode == code
    assert message in proc.stderr and proc.stderr.count("\n") == 1, proc.stderr


def test_cli_tolerance_refuses_exact_only_options(cli, tmp_path):
    np.save(tmp_path / "in.npy", np.zeros((3, 3), np.uint8))
    for extra in (["--verify"], ["--threshold", "3"]):
        proc = run_cli(cli, tmp_path / "in.npy", "--tolerance", "2", *extra, expect_ok=False)
        assert proc.returncode == 2 and "tolerance" in proc.stderr, proc.stderr


def test_cli_tolerance_in_tiles_and_streamed(cli, tmp_path):
    """--tile and --stream join their seams by the tolerance too: the same labels as the flood fill."""
    tifffile = pytest.importorskip("tifffile", reason="pip install tifffile")
    rng = np.random.default_rng(8)
    img = rng.integers(0, 9, size=(45, 38, 3)).astype(np.uint8)
    np.save(tmp_path / "in.npy", img)
    tifffile.imwrite(tmp_path / "in.tif", img, photometric="rgb", rowsperstrip=4)
    for connectivity in (4, 8):
        want = flood_fill(img, 2, connectivity, background=(0, 0, 0))
        for source, extra in (("in.npy", ["--tile", "7x5"]), ("in.npy", ["--tile", "1x1"]), ("in.tif", ["--stream"]),
                              ("in.tif", ["--stream", "--tile", "9x4"])):
            out = tmp_path / f"labels{connectivity}{extra[-1]}.npy"
            run_cli(cli, tmp_path / source, "--tolerance", "2", "-b", "0,0,0", "-c", str(connectivity),
                    "--backend", "cpu", "-o", out, *extra)
            np.testing.assert_array_equal(np.load(out), want, err_msg=f"{source} {extra} conn {connectivity}")


def test_label_takes_tolerance_and_cc3d_delta():
    rng = np.random.default_rng(11)
    img = rng.integers(0, 40, (23, 31)).astype(np.uint8)
    for conn in (4, 8):
        expected = label_tolerance(img, 5, connectivity=conn)
        assert np.array_equal(cclabel.label(img, tolerance=5, connectivity=conn), expected)
        assert np.array_equal(cclabel.connected_components(img, delta=5, connectivity=conn), expected)
        got, n = cclabel.label(img, tolerance=5, connectivity=conn, return_num=True)
        assert n == int(expected.max())
    # tolerance 0 is exact labelling, on the usual path
    assert np.array_equal(cclabel.label(img, tolerance=0), cclabel.label(img))
    with pytest.raises(TypeError, match="out: dtype must be uint32"):
        cclabel.label(img, tolerance=5, out=np.empty(img.shape, np.int32))
    with pytest.raises(TypeError, match="delta and tolerance"):
        cclabel.connected_components(img, delta=2, tolerance=3)
    with pytest.raises((TypeError, ValueError), match="tolerance"):
        cclabel.label(img, tolerance=-1)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.int64, np.uint64])
def test_float_and_64_bit_pictures_join_by_value(dtype):
    """Values within the tolerance join (floats: -0.0 equals 0.0, a NaN joins only a NaN), against
    the flood fill on the same values."""
    rng = np.random.default_rng(np.dtype(dtype).itemsize)
    steps = rng.integers(-2, 3, size=(19, 23)).cumsum(axis=1)
    if np.dtype(dtype).kind == "f":
        img = (steps * 0.25).astype(dtype)
        img[rng.random(img.shape) < 0.05] = np.nan
        img[rng.random(img.shape) < 0.05] = -0.0
        tolerance = 0.5
    else:
        img = (steps + (10 if dtype == np.uint64 else -5) * 10 ** 12).astype(dtype)
        tolerance = 2
    v = img.astype(np.float64)

    def joins(y, x, y2, x2):
        a, b = v[y, x], v[y2, x2]
        return (np.isnan(a) and np.isnan(b)) if (np.isnan(a) or np.isnan(b)) else abs(a - b) <= tolerance

    for connectivity in (4, 8):
        for background in (None, 0):
            got, n = cclabel.label(img, tolerance=tolerance, connectivity=connectivity, background=background,
                                   return_num=True)
            is_bg = (lambda y, x: False) if background is None else (lambda y, x: v[y, x] == 0)
            want = bfs_labels(img.shape[0], img.shape[1], joins, connectivity, is_bg)
            np.testing.assert_array_equal(got, want, err_msg=f"{np.dtype(dtype)} conn {connectivity} bg {background}")
            assert n == want.max()
    if np.dtype(dtype).kind == "f":
        with pytest.raises(ValueError, match="finite"):
            cclabel.label(img, tolerance=float("nan"))
    else:
        with pytest.raises(ValueError, match="whole number"):
            cclabel.label(img, tolerance=0.5)
    # The GPU compares the values as the CPU does (label_device of a typed picture, since 51c68fe);
    # without a CUDA device or build the call says so.
    if cclabel.cuda_available():
        np.testing.assert_array_equal(cclabel.label(img, tolerance=tolerance, backend="cuda"),
                                      cclabel.label(img, tolerance=tolerance, backend="cpu"))
    else:
        with pytest.raises(ValueError, match="backend cuda"):
            cclabel.label(img, tolerance=tolerance, backend="cuda")
