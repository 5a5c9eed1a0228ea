"""cclabel.label on (Z, Y, X) volumes on the GPU: CuPy arrays and CUDA tensors, connectivity 6, 18
and 26, labelled by cclabel::cuda::label_volume_device on the array's stream and compared with the
CPU path on the same volume (every dtype, background on and off, views that are copied on the GPU,
out=, out_dtype=, return_num with N left on the GPU), and backend="cuda" on host arrays.
Skipped without CuPy / PyTorch, a CUDA device or a CUDA build of cclabel."""
from __future__ import annotations

import numpy as np
import pytest

cclabel = pytest.importorskip("cclabel")

from test_package import cupy, torch, torch_cuda  # noqa: E402,F401  (the GPU fixtures)

DTYPES = ["bool", "uint8", "int8", "uint16", "int16", "uint32", "int32", "int64", "uint64", "float16", "float32",
          "float64"]
CONNECTIVITIES = [6, 18, 26]


def random_volume(dtype: str, shape, k: int, seed: int) -> np.ndarray:
    """Voxels of k values of dtype: floats with 0.0 and -0.0 (equal) and NaN (equal to NaN)."""
    rng = np.random.default_rng(seed)
    if dtype == "bool":
        return rng.integers(0, 2, size=shape).astype(bool)
    if dtype.startswith("float"):
        values = np.array([0.0, -0.0, np.nan, 2.5][: k + 1], dtype=dtype)
    else:
        values = np.array([0, 1, np.iinfo(dtype).max][:k], dtype=dtype)
    return values[rng.integers(0, len(values), size=shape)]


def background_of(a: np.ndarray):
    """A value of the volume to use as background (its first voxel's)."""
    return a.reshape(-1)[0].item() if a.size else None


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("connectivity", CONNECTIVITIES)
def test_cupy_every_dtype_matches_the_cpu(cupy, dtype, connectivity):
    for seed, shape in enumerate([(9, 13, 37), (1, 1, 70), (40, 1, 1), (5, 33, 2), (0, 4, 4)]):
        host = random_volume(dtype, shape, 3, seed)
        for bg in (None, background_of(host)):
            if (dtype == "bool" and bg) or (bg is not None and bg != bg):  # True, or NaN
                continue
            want, want_n = cclabel.label(host, connectivity=connectivity, background=bg, return_num=True)
            labels, n = cclabel.label(cupy.asarray(host), connectivity=connectivity, background=bg, return_num=True)
            assert isinstance(labels, cupy.ndarray) and labels.dtype == cupy.uint32
            assert isinstance(n, cupy.ndarray) and n.dtype == cupy.uint32  # N stays on the GPU
            np.testing.assert_array_equal(cupy.asnumpy(labels), want, err_msg=f"{dtype} {shape} bg {bg}")
            assert int(n) == want_n


def test_cupy_views_out_and_out_dtype(cupy):
    host = random_volume("uint8", (20, 30, 40), 3, 7)
    d = cupy.asarray(host)
    for name, view, hview in [("fortran", cupy.asfortranarray(d), np.asfortranarray(host)),
                              ("reversed z", d[::-1], host[::-1]),
                              ("every 2nd x", d[:, :, ::2], host[:, :, ::2]),
                              ("slice", d[2:15, 3:, 5:30], host[2:15, 3:, 5:30])]:
        np.testing.assert_array_equal(cupy.asnumpy(cclabel.label(view, connectivity=26, background=0)),
                                      cclabel.label(hview, connectivity=26, background=0), err_msg=name)
    want = cclabel.label(host, connectivity=18)
    out = cupy.empty(host.shape, cupy.uint32)
    assert cclabel.label(d, connectivity=18, out=out) is out
    np.testing.assert_array_equal(cupy.asnumpy(out), want)
    small = cclabel.label(d, connectivity=18, out_dtype=np.uint16)
    assert small.dtype == cupy.uint16
    np.testing.assert_array_equal(cupy.asnumpy(small), want)
    stream = cupy.cuda.Stream(non_blocking=True)
    with stream:
        labels = cclabel.label(d, connectivity=6)
    stream.synchronize()
    np.testing.assert_array_equal(cupy.asnumpy(labels), cclabel.label(host, connectivity=6))
    got, n = cclabel.label(d, connectivity=18, return_num=True, num_as_int=True)
    assert type(n) is int and n == int(want.max())
    with pytest.raises(ValueError, match="backend: 'cpu' cannot label an array on the GPU"):
        cclabel.label(d, connectivity=6, backend="cpu")
    with pytest.raises(ValueError, match="shape"):
        cclabel.label(d, connectivity=6, out=cupy.empty((20, 30, 41), cupy.uint32))


def test_cupy_large_volume(cupy):
    rng = np.random.default_rng(3)
    host = (rng.random((256, 256, 256)) < 0.3).astype(np.uint8)
    for connectivity in CONNECTIVITIES:
        want, want_n = cclabel.label(host, connectivity=connectivity, background=0, return_num=True)
        got, n = cclabel.label(cupy.asarray(host), connectivity=connectivity, background=0, return_num=True)
        assert int(n) == want_n
        np.testing.assert_array_equal(cupy.asnumpy(got), want)


@pytest.mark.parametrize("connectivity", CONNECTIVITIES)
def test_torch_cuda_matches_the_cpu(torch_cuda, connectivity):
    torch = torch_cuda
    for dtype in ("bool", "uint8", "int16", "int32", "int64", "float32", "float64"):
        host = random_volume(dtype, (11, 17, 23), 3, 5)
        want, want_n = cclabel.label(host, connectivity=connectivity, background=None, return_num=True)
        t = torch.from_numpy(host).cuda()
        labels, n = cclabel.label(t, connectivity=connectivity, return_num=True)
        assert labels.is_cuda and labels.dtype == torch.uint32 and n.is_cuda
        np.testing.assert_array_equal(labels.view(torch.int32).cpu().numpy().view(np.uint32), want, err_msg=dtype)
        assert int(n.view(torch.int32).cpu()) == want_n
    t = torch.from_numpy(random_volume("uint8", (11, 17, 23), 3, 6)).cuda()
    want = cclabel.label(t.cpu(), connectivity=connectivity, background=0)
    got = cclabel.label(t.transpose(0, 2).contiguous().transpose(0, 2), connectivity=connectivity, background=0)
    np.testing.assert_array_equal(got.view(torch.int32).cpu().numpy().view(np.uint32), want.numpy())


def test_backend_cuda_on_host_volumes():
    if not cclabel.cuda_available():
        pytest.skip("no CUDA device")
    rng = np.random.default_rng(9)
    host = rng.integers(0, 3, (30, 40, 50)).astype(np.uint16)
    for connectivity in CONNECTIVITIES:
        want, want_n = cclabel.label(host, connectivity=connectivity, background=0, return_num=True)
        got, n = cclabel.label(host, connectivity=connectivity, background=0, backend="cuda", return_num=True)
        assert n == want_n
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("channels", [3, 4])
@pytest.mark.parametrize("connectivity", CONNECTIVITIES)
def test_rgb_volumes_on_the_gpu(cupy, channels, connectivity):
    """(Z, Y, X, 3|4) uint8 CuPy arrays and CUDA tensors: labelled on their GPU with the host's
    labels (each colour a value), a background colour as a tuple or '#rrggbb', channel-strided
    views copied on the GPU, and a host volume through backend "cuda"."""
    rng = np.random.default_rng(channels * 100 + connectivity)
    palette = np.array([[255] * channels, [0] * channels, [200, 10, 10, 255][:channels], [200, 10, 11, 255][:channels]],
                       np.uint8)
    host = palette[rng.integers(0, 4, (13, 21, 34))]
    white = (255,) * channels
    for bg in (None, white, "#ffffff" + ("ff" if channels == 4 else "")):
        want, want_n = cclabel.label(host, connectivity=connectivity, background=bg, return_num=True)
        labels, n = cclabel.label(cupy.asarray(host), connectivity=connectivity, background=bg, return_num=True)
        assert isinstance(labels, cupy.ndarray) and labels.shape == host.shape[:3]
        np.testing.assert_array_equal(cupy.asnumpy(labels), want, err_msg=f"bg {bg}")
        assert int(n) == want_n
        got, n = cclabel.label(host, connectivity=connectivity, background=bg, backend="cuda", return_num=True)
        np.testing.assert_array_equal(got, want, err_msg=f"backend cuda, bg {bg}")
        assert n == want_n
    wide = cupy.asarray(np.concatenate([host, host], axis=3))[..., :channels]  # channel-strided: copied
    np.testing.assert_array_equal(cupy.asnumpy(cclabel.label(wide, connectivity=connectivity)),
                                  cclabel.label(host, connectivity=connectivity))
    with pytest.raises(TypeError, match="uint8"):
        cclabel.label(cupy.asarray(host.astype(np.uint16)), connectivity=connectivity)
    with pytest.raises(ValueError, match="channels"):
        cclabel.label(cupy.asarray(host), connectivity=connectivity, background=(1, 2))
    try:
        import torch
    except ImportError:
        return
    if torch.cuda.is_available():
        t = torch.from_numpy(host).cuda()
        got = cclabel.label(t, connectivity=connectivity, background=white)
        np.testing.assert_array_equal(got.view(torch.int32).cpu().numpy().view(np.uint32),
                                      cclabel.label(host, connectivity=connectivity, background=white))
