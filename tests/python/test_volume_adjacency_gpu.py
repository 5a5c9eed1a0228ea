"""cclabel.adjacency of (Z, Y, X) label volumes on the GPU: CuPy arrays and CUDA tensors are read
where they are (cclabel::adjacency of a VolumeView in device memory, src/cuda/adjacency3d_cuda.cu),
NumPy volumes with backend="cuda" are copied up; the edges equal those of the same labels on the
CPU (backend="cpu") row for row, for connectivity 6, 18 and 26 (and scikit-image's 3), with and
without the background: random, multilabel and Voronoi-like volumes, thin volumes, labels of other
integer dtypes and views (converted on the GPU), and the errors. Skipped without CuPy, a CUDA device
or a CUDA build of cclabel (torch tensors also without PyTorch); the CPU emulator of the kernel runs
in CI (tests/emu/test_emu_adjacency3d.cpp)."""
from __future__ import annotations

import numpy as np
import pytest

cclabel = pytest.importorskip("cclabel")

from test_package import cupy, torch, torch_cuda  # noqa: E402,F401  (the GPU fixtures)

CONNECTIVITY = (6, 18, 26)


def random_labels(shape, palette, zeros, seed):
    rng = np.random.default_rng(seed)
    labels = rng.integers(1, palette + 1, size=shape).astype(np.uint32)
    labels[rng.random(shape) < zeros] = 0
    return labels


def voronoi(shape, cells, seed):
    """Cells of the nearest of `cells` random seeds (some 0): boundary surfaces across slices."""
    rng = np.random.default_rng(seed)
    z, y, x = np.indices(shape)
    seeds = np.stack([rng.integers(0, n, cells) for n in shape], axis=1)
    names = rng.integers(1, 2 ** 31, cells).astype(np.uint32)
    names[rng.random(cells) < 0.1] = 0
    best = np.full(shape, np.iinfo(np.int64).max)
    out = np.zeros(shape, np.uint32)
    for (sz, sy, sx), name in zip(seeds, names):
        d = 4 * (z - sz) ** 2 + (y - sy) ** 2 + (x - sx) ** 2
        closer = d < best
        best[closer] = d[closer]
        out[closer] = name
    return out


def volumes():
    yield "random 2", random_labels((5, 33, 40), 2, 0.2, 1)
    yield "random 300", random_labels((7, 65, 65), 300, 0.1, 2)
    yield "thin z", random_labels((1, 45, 77), 3, 0.2, 3)
    yield "thin y", random_labels((45, 1, 77), 3, 0.2, 4)
    yield "thin x", random_labels((45, 77, 1), 3, 0.2, 5)
    yield "one voxel", np.array([[[3]]], np.uint32)
    yield "voronoi", voronoi((24, 70, 90), 60, 6)
    yield "distinct", np.arange(1, 1 + 9 * 40 * 70, dtype=np.uint32).reshape(9, 40, 70)
    yield "uniform", np.full((8, 64, 64), 5, np.uint32)


def test_cupy_volumes_match_the_cpu(cupy):
    for name, host in volumes():
        d = cupy.asarray(host)
        for conn in CONNECTIVITY:
            for bg in (False, True):
                want = cclabel.adjacency(host, conn, bg, backend="cpu")
                got = cclabel.adjacency(d, conn, bg)
                assert isinstance(got, np.ndarray) and got.dtype == np.uint64 and got.shape[1:] == (3,)
                np.testing.assert_array_equal(got, want, err_msg=f"{name} conn {conn} bg {bg}")
                np.testing.assert_array_equal(cclabel.adjacency(d, conn, bg, backend="cuda"), want,
                                              err_msg=f"{name} conn {conn} bg {bg} (cuda)")


def test_numpy_volumes_with_backend_cuda_match_the_cpu(cupy):
    for name, host in volumes():
        for conn in CONNECTIVITY:
            want = cclabel.adjacency(host, conn, backend="cpu")
            np.testing.assert_array_equal(cclabel.adjacency(host, conn, backend="cuda"), want, err_msg=name)
            np.testing.assert_array_equal(cclabel.adjacency(host, conn, backend="auto"), want, err_msg=name)
    # A view with gaps on the host (copied to C order first).
    host = voronoi((10, 30, 80), 20, 7)[:, :, ::2]
    np.testing.assert_array_equal(cclabel.adjacency(host, 26, backend="cuda"), cclabel.adjacency(host, 26, backend="cpu"))


def test_scikit_image_connectivity_3_is_26(cupy):
    host = voronoi((6, 30, 30), 15, 8)
    np.testing.assert_array_equal(cclabel.adjacency(cupy.asarray(host), 3), cclabel.adjacency(host, 26, backend="cpu"))


def test_other_dtypes_and_views_convert_on_the_gpu(cupy):
    host = voronoi((12, 40, 50), 30, 9) % 1000
    want = cclabel.adjacency(host, 18, backend="cpu")
    for name, d in [("int64", cupy.asarray(host.astype(np.int64))),
                    ("uint16", cupy.asarray(host.astype(np.uint16))),
                    ("fortran", cupy.asfortranarray(cupy.asarray(host))),
                    ("every other column", cupy.asarray(np.repeat(host, 2, axis=2))[:, :, ::2])]:
        np.testing.assert_array_equal(cclabel.adjacency(d, 18), want, err_msg=name)


def test_torch_cuda_volumes_match_the_cpu(torch_cuda, cupy):
    host = voronoi((10, 50, 60), 40, 10)
    t = torch_cuda.from_numpy(host.astype(np.int64)).cuda()
    for conn in CONNECTIVITY:
        np.testing.assert_array_equal(cclabel.adjacency(t, conn), cclabel.adjacency(host, conn, backend="cpu"))


@pytest.mark.parametrize("labels, kwargs, error, message", [
    (np.zeros((2, 3, 4), np.uint32), {"connectivity": 8}, ValueError, "8 is for"),
    (np.zeros((2, 3, 4), np.uint32), {"connectivity": 10}, ValueError, "6, 18 or 26"),
    (np.zeros((2, 3, 4), np.uint32), {"connectivity": 26, "backend": "cpu"}, ValueError, "'cpu' reads host"),
    (np.zeros((2, 3, 4), np.float32), {"connectivity": 26}, TypeError, "integer"),
    (-np.ones((2, 3, 4), np.int32), {"connectivity": 26}, ValueError, "negative"),
    (np.zeros((2, 3, 4), np.uint32), {"connectivity": 26, "background": "yes"}, TypeError, "background"),
    (np.zeros((2, 2, 3, 4), np.uint32), {"connectivity": 26}, ValueError, "expected an"),
])
def test_bad_input(cupy, labels, kwargs, error, message):
    with pytest.raises(error, match=message) as e:
        cclabel.adjacency(cupy.asarray(labels), **kwargs)
    assert "\n" not in str(e.value)


def test_empty_volumes(cupy):
    for shape in ((0, 3, 4), (2, 0, 4), (2, 3, 0)):
        edges = cclabel.adjacency(cupy.zeros(shape, cupy.uint32), connectivity=26, background=True)
        assert edges.shape == (0, 3) and edges.dtype == np.uint64
