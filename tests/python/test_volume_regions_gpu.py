"""cclabel.regions() and label(..., stats=True) of (Z, Y, X) label volumes on the GPU (CuPy arrays,
CUDA tensors through CuPy): cclabel::cuda::regions_volume_device, the columns CuPy arrays on the
labels' GPU, equal column for column (centroids bit for bit, NaN rows included) to regions() of the
same labels and volume on the host (cclabel::regions_volume on the CPU). Every dtype, RGB/RGBA,
6/18/26, views copied on the GPU, labels of other integer dtypes, thin volumes, gaps in the
labels, and the errors. The host-only logic (the value decoding shared with the CPU path) is
covered by test_volume_regions.py. Skipped without CuPy, a CUDA device or a CUDA build of cclabel."""
from __future__ import annotations

import numpy as np
import pytest

cclabel = pytest.importorskip("cclabel")

from test_package import cupy, torch, torch_cuda  # noqa: E402,F401  (the GPU fixtures)
from test_volume_gpu import DTYPES, background_of, random_volume  # noqa: E402

COLUMNS = ("label", "voxels", "left", "top", "front", "width", "height", "depth", "centroid_x", "centroid_y",
           "centroid_z", "surface", "value")


def assert_same_table(got, want, what, cp):
    assert set(got) == set(want), what
    for col in COLUMNS:
        assert isinstance(got[col], cp.ndarray), f"{what}: {col} is not on the GPU"
        g = cp.asnumpy(got[col])
        assert g.dtype == want[col].dtype and g.shape == want[col].shape, f"{what}: {col}"
        if g.dtype.kind == "f":  # bit for bit (NaN rows too)
            np.testing.assert_array_equal(g.view(f"u{g.itemsize}"), want[col].view(f"u{g.itemsize}"),
                                          err_msg=f"{what}: {col}")
        else:
            np.testing.assert_array_equal(g, want[col], err_msg=f"{what}: {col}")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("connectivity", [6, 18, 26])
def test_every_dtype_matches_the_host(cupy, dtype, connectivity):
    for seed, shape in enumerate([(9, 13, 37), (1, 1, 70), (40, 1, 1), (5, 33, 2), (1, 17, 19), (0, 4, 4)]):
        host = random_volume(dtype, shape, 3, seed)
        # A bool volume's background can only be False (its first voxel may be True).
        for bg in (None, False if dtype == "bool" else background_of(host)):
            labels = cclabel.label(host, connectivity=connectivity, background=bg)
            want = cclabel.regions(labels, host, connectivity=connectivity)
            got = cclabel.regions(cupy.asarray(labels), cupy.asarray(host), connectivity=connectivity)
            assert_same_table(got, want, f"{dtype} {shape} bg {bg}", cupy)


@pytest.mark.parametrize("channels", [3, 4])
def test_rgb_and_rgba_volumes(cupy, channels):
    rng = np.random.default_rng(channels)
    palette = rng.integers(0, 256, size=(4, channels), dtype=np.uint8)
    host = palette[rng.integers(0, 4, size=(6, 11, 23))]
    labels = cclabel.label(host, connectivity=18)
    want = cclabel.regions(labels, host, connectivity=18)
    got = cclabel.regions(cupy.asarray(labels), cupy.asarray(host), connectivity=18)
    assert_same_table(got, want, f"rgb{channels}", cupy)
    assert got["value"].shape == (int(labels.max()) + 1, channels)


def test_label_stats_true_on_the_gpu(cupy):
    host = random_volume("uint16", (12, 20, 31), 3, 5)
    labels, n, table = cclabel.label(cupy.asarray(host), connectivity=26, background=0, return_num=True, stats=True)
    want_labels, want_n, want = cclabel.label(host, connectivity=26, background=0, return_num=True, stats=True)
    np.testing.assert_array_equal(cupy.asnumpy(labels), want_labels)
    assert int(n) == want_n
    assert_same_table(table, want, "stats=True", cupy)


def test_views_other_label_dtypes_and_gaps(cupy):
    host = random_volume("int32", (10, 12, 14), 3, 7)
    labels = cclabel.label(host, connectivity=6)
    want = cclabel.regions(labels, host, connectivity=6)
    d = cupy.asarray(host)
    for name, lab, img in [("fortran image", cupy.asarray(labels), cupy.asfortranarray(d)),
                           ("int64 labels", cupy.asarray(labels.astype(np.int64)), d),
                           ("uint8 labels", cupy.asarray(labels.astype(np.uint8)) if labels.max() < 256 else None, d),
                           ("fortran labels", cupy.asfortranarray(cupy.asarray(labels)), d)]:
        if lab is None:
            continue
        assert_same_table(cclabel.regions(lab, img, connectivity=6), want, name, cupy)
    gaps = (labels * 3).astype(np.uint32)  # labels with no voxel: empty rows, NaN centroids
    assert_same_table(cclabel.regions(cupy.asarray(gaps), d, connectivity=6),
                      cclabel.regions(gaps, host, connectivity=6), "gaps", cupy)
    offset = cupy.asarray(host)[:, 1:, 2:]  # a view with strides: read in place or copied on the GPU
    lab2 = cclabel.label(cupy.asnumpy(offset), connectivity=6)
    assert_same_table(cclabel.regions(cupy.asarray(lab2), offset, connectivity=6),
                      cclabel.regions(lab2, cupy.asnumpy(offset), connectivity=6), "strided view", cupy)


def test_errors(cupy):
    host = random_volume("uint8", (4, 5, 6), 3, 1)
    labels = cclabel.label(host, connectivity=26)
    d_lab, d_img = cupy.asarray(labels), cupy.asarray(host)
    with pytest.raises(ValueError, match="image: must be on the labels' GPU"):
        cclabel.regions(d_lab, host, connectivity=26)
    with pytest.raises(ValueError, match="backend"):
        cclabel.regions(d_lab, d_img, connectivity=26, backend="cpu")
    with pytest.raises(ValueError, match="does not match"):
        cclabel.regions(d_lab, d_img[:, :, :5], connectivity=26)
    big = d_lab.copy()
    big[0, 0, 0] = 10 ** 6
    with pytest.raises(ValueError, match="exceeds the number of voxels"):
        cclabel.regions(big, d_img, connectivity=26)
    with pytest.raises(ValueError, match="negative"):
        cclabel.regions(cupy.asarray(labels.astype(np.int32) - 2), d_img, connectivity=26)  # labels start at 1
    with pytest.raises(TypeError, match="dtype"):
        cclabel.regions(d_lab.astype(cupy.float32), d_img, connectivity=26)


def test_cuda_tensors_through_cupy(cupy, torch_cuda):
    torch = torch_cuda
    host = random_volume("uint8", (7, 9, 11), 3, 3)
    labels = cclabel.label(host, connectivity=18)
    t_lab = torch.from_numpy(labels.astype(np.int64)).cuda()
    t_img = torch.from_numpy(host).cuda()
    assert_same_table(cclabel.regions(t_lab, t_img, connectivity=18), cclabel.regions(labels, host, connectivity=18),
                      "tensors", cupy)
