"""The Python package's region statistics and filters (`cclabel.regions`, `label(..., stats=True)`,
`remove_small`, `keep_largest`) against real peers: OpenCV's connectedComponentsWithStats (binary
images), scikit-image's regionprops and cc3d's statistics (colour and gray images), exactly
(centroids to floating-point rounding); the filters against cc3d's dust and largest_k. The CPU
and CUDA backends must give the same columns; CuPy inputs are skipped without CuPy and a device.

test.sh's python stage installs the package and sets CCLABEL_PYTHON_REQUIRED=1, so there a missing
package fails instead of skipping.
"""
from __future__ import annotations

import os

import numpy as np
import pytest

from conftest import cc3d, cv2, measure

if os.environ.get("CCLABEL_PYTHON_REQUIRED") == "1":
    import cclabel
else:
    cclabel = pytest.importorskip("cclabel", reason="the Python package is not installed (pip install .)")

COLUMNS = ["label", "area", "left", "top", "width", "height", "centroid_x", "centroid_y", "perimeter", "value"]


def brute_perimeter(labels: np.ndarray, conn: int) -> np.ndarray:
    """Per label: pixels with a neighbour (under conn) outside the image or of another label."""
    h, w = labels.shape
    pad = np.pad(labels.astype(np.int64), 1, constant_values=-1)
    edge = np.zeros((h, w), bool)
    offsets = [(-1, 0), (1, 0), (0, -1), (0, 1)]
    if conn == 8:
        offsets += [(-1, -1), (-1, 1), (1, -1), (1, 1)]
    for dy, dx in offsets:
        edge |= pad[1 + dy:1 + dy + h, 1 + dx:1 + dx + w] != labels
    return np.bincount(labels.ravel(), weights=edge.ravel(), minlength=int(labels.max()) + 1).astype(np.uint64)


def check_columns(table, n: int):
    assert list(table) == COLUMNS
    for name in COLUMNS:
        assert len(table[name]) == n + 1, name
    assert np.array_equal(table["label"], np.arange(n + 1))


@pytest.mark.parametrize("conn", [4, 8])
@pytest.mark.parametrize("density", [0.2, 0.5, 0.8])
def test_binary_columns_equal_opencv(conn, density):
    rng = np.random.default_rng(int(density * 10) + conn)
    mask = rng.random((97, 131)) < density
    labels, n = cclabel.label(mask, connectivity=conn, return_num=True)
    t = cclabel.regions(labels, mask, connectivity=conn)
    check_columns(t, n)
    cv_n, cv_labels, st, cen = cv2.connectedComponentsWithStatsWithAlgorithm(
        mask.astype(np.uint8), conn, cv2.CV_32S, cv2.CCL_SAUF)
    assert cv_n == n + 1 and np.array_equal(labels, cv_labels.astype(np.uint32))
    assert np.array_equal(t["left"], st[:, cv2.CC_STAT_LEFT])
    assert np.array_equal(t["top"], st[:, cv2.CC_STAT_TOP])
    assert np.array_equal(t["width"], st[:, cv2.CC_STAT_WIDTH])
    assert np.array_equal(t["height"], st[:, cv2.CC_STAT_HEIGHT])
    assert np.array_equal(t["area"], st[:, cv2.CC_STAT_AREA])
    np.testing.assert_allclose(t["centroid_x"], cen[:, 0], rtol=1e-12, atol=1e-9)
    np.testing.assert_allclose(t["centroid_y"], cen[:, 1], rtol=1e-12, atol=1e-9)
    assert np.array_equal(t["perimeter"], brute_perimeter(labels, conn))
    assert t["value"].shape == (n + 1, 1)
    assert np.array_equal(t["value"][1:, 0], np.ones(n))  # bool images read 0/1


@pytest.mark.parametrize("conn", [4, 8])
def test_colour_columns_equal_skimage_and_cc3d(conn):
    rng = np.random.default_rng(conn)
    rgb = (rng.integers(0, 3, size=(83, 71, 3)) * 60).astype(np.uint8)
    rgb[::7] = 255
    labels, n = cclabel.label(rgb, connectivity=conn, background="#ffffff", return_num=True)
    t = cclabel.regions(labels, rgb, connectivity=conn)
    check_columns(t, n)
    assert t["value"].shape == (n + 1, 3)
    for p in measure.regionprops(labels.astype(np.int64)):
        r0, c0, r1, c1 = p.bbox
        lab = p.label
        assert t["area"][lab] == p.area
        assert (t["left"][lab], t["top"][lab], t["width"][lab], t["height"][lab]) == (c0, r0, c1 - c0, r1 - r0)
        assert t["centroid_y"][lab] == pytest.approx(p.centroid[0], rel=1e-12, abs=1e-9)
        assert t["centroid_x"][lab] == pytest.approx(p.centroid[1], rel=1e-12, abs=1e-9)
        y, x = p.coords[0]  # first pixel in raster order: the region's colour
        assert list(t["value"][lab]) == list(rgb[y, x])
    s = cc3d.statistics(labels)
    assert np.array_equal(t["area"], s["voxel_counts"])
    for lab, (rows, cols) in enumerate(s["bounding_boxes"]):
        if t["area"][lab]:
            assert (t["top"][lab], t["left"][lab]) == (rows.start, cols.start)
            assert (t["height"][lab], t["width"][lab]) == (rows.stop - rows.start, cols.stop - cols.start)
    np.testing.assert_allclose(t["centroid_y"], s["centroids"][:, 0], rtol=1e-12, atol=1e-9)
    np.testing.assert_allclose(t["centroid_x"], s["centroids"][:, 1], rtol=1e-12, atol=1e-9)
    assert np.array_equal(t["perimeter"], brute_perimeter(labels, conn))


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.uint32, np.int32])
def test_one_channel_values_and_label_with_stats(dtype):
    rng = np.random.default_rng(3)
    img = rng.integers(0, 4, size=(40, 57)).astype(dtype) * (np.iinfo(dtype).max // 4)
    labels, n, t = cclabel.label(img, connectivity=4, return_num=True, stats=True)
    want = cclabel.regions(labels, img, connectivity=4)
    for name in COLUMNS:
        np.testing.assert_array_equal(t[name], want[name], err_msg=name)
    first = {}
    for i, lab in enumerate(labels.ravel()):
        first.setdefault(int(lab), i)
    assert t["value"].dtype == img.dtype  # the image's own dtype
    for lab in range(1, n + 1):
        assert t["value"][lab, 0] == img.ravel()[first[lab]]
    labels2, t2 = cclabel.label(img, connectivity=4, stats=True)
    assert np.array_equal(labels2, labels) and np.array_equal(t2["area"], t["area"])
    batch = np.stack([img, img[::-1].copy()])
    lb, tables = cclabel.label(batch, stats=True)
    assert len(tables) == 2 and np.array_equal(tables[1]["area"], cclabel.regions(lb[1], batch[1])["area"])


def test_label_images_not_from_the_labeller():
    # Gaps in the numbering: missing labels get area 0, a NaN centroid and zeros.
    img = np.zeros((5, 6), np.uint8)
    labels = np.zeros((5, 6), np.uint32)
    labels[1:3, 1:4] = 7
    labels[4, 5] = 2
    t = cclabel.regions(labels, img)
    assert len(t["area"]) == 8
    assert list(t["area"][[2, 7]]) == [1, 6] and t["area"][3] == 0
    assert np.isnan(t["centroid_x"][3]) and t["width"][3] == 0
    assert (t["left"][7], t["top"][7], t["width"][7], t["height"][7]) == (1, 1, 3, 2)
    assert t["perimeter"][7] == 6  # a 3 x 2 block: every pixel touches the outside


def renumber_by_first(a: np.ndarray) -> np.ndarray:
    uniq, first = np.unique(a.ravel(), return_index=True)
    order = uniq[np.argsort(first)]
    order = order[order != 0]
    lut = np.zeros(int(a.max()) + 1, np.uint32)
    lut[order] = np.arange(1, len(order) + 1)
    return lut[a]


@pytest.mark.parametrize("conn", [4, 8])
@pytest.mark.parametrize("backend", ["cpu", "auto"])
def test_filters_equal_cc3d(conn, backend):
    rng = np.random.default_rng(11 + conn)
    img = rng.integers(0, 4, size=(64, 90)).astype(np.uint8)
    labels = cclabel.label(img, connectivity=conn)
    ref = cc3d.connected_components(img.astype(np.uint32) + 1, connectivity=conn).astype(np.uint32)
    assert np.array_equal(labels, ref)
    for min_size in (1, 2, 3, 7, 10**6):
        dusted = cc3d.dust(ref.copy(), min_size, connectivity=conn, precomputed_ccl=True)
        got, m = cclabel.remove_small(labels, min_size, return_num=True, backend=backend)
        assert np.array_equal(got, renumber_by_first(dusted)), min_size
        assert m == len(np.unique(dusted)) - (1 if (dusted == 0).any() else 0)
    areas = np.sort(np.bincount(labels.ravel())[1:])[::-1]
    ks = [k for k in range(1, len(areas)) if areas[k - 1] != areas[k]][:4]  # no tie at the cut
    for k in ks + [0, len(areas) + 5]:
        want = cc3d.largest_k(ref, k, connectivity=conn, precomputed_ccl=True)
        got = cclabel.keep_largest(labels, k, backend=backend)
        assert np.array_equal(got > 0, want > 0), k
        assert np.array_equal(got, renumber_by_first(got)), k  # renumbered 1..M in raster order
    # Ties at the cut: raster order decides (the earlier first pixel wins).
    two = np.array([[1, 0, 2], [3, 3, 0]], np.uint32)
    assert np.array_equal(cclabel.keep_largest(two, 2), np.array([[1, 0, 0], [2, 2, 0]], np.uint32))
    # In place, or a copy.
    work = labels.copy()
    out = cclabel.remove_small(work, 3, in_place=True)
    assert out is work and np.array_equal(work, cclabel.remove_small(labels, 3))


def test_bad_arguments():
    img = np.zeros((4, 5), np.uint8)
    labels = np.zeros((4, 5), np.uint32)
    with pytest.raises(TypeError, match="labels: dtype must be an integer type"):
        cclabel.regions(labels.astype(np.float32), img)
    with pytest.raises(ValueError, match="labels: label -1 is negative"):
        cclabel.regions(labels.astype(np.int64) - 1, img)
    with pytest.raises(ValueError, match="labels: label 4294967296 exceeds 2\\*\\*32 - 1"):
        cclabel.regions(labels.astype(np.uint64) + 2**32, img)
    with pytest.raises(ValueError, match="does not match"):
        cclabel.regions(labels, np.zeros((4, 6), np.uint8))
    with pytest.raises(ValueError, match="connectivity"):
        cclabel.regions(labels, img, connectivity=6)
    bad = labels.copy()
    bad[0, 0] = 21
    with pytest.raises(ValueError, match="exceeds the number of pixels"):
        cclabel.regions(bad, img)
    with pytest.raises(ValueError, match="exceeds the number of pixels"):
        cclabel.remove_small(bad, 2)
    with pytest.raises(ValueError, match="min_size"):
        cclabel.remove_small(labels, -1)
    with pytest.raises(TypeError, match="k: expected an int"):
        cclabel.keep_largest(labels, 2.5)
    ro = labels.copy()
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        cclabel.remove_small(ro, 2, in_place=True)
    with pytest.raises(TypeError, match="stats"):
        cclabel.label(img, stats="yes")


@pytest.mark.skipif(not cclabel.cuda_available(), reason="no CUDA device (or a build without CUDA)")
def test_cuda_backend_equals_cpu_for_host_arrays():
    rng = np.random.default_rng(5)
    img = rng.integers(0, 3, size=(1100, 1000, 3)).astype(np.uint8) * 100  # above Auto's 2^20 pixels
    labels = cclabel.label(img, backend="cpu")
    a = cclabel.regions(labels, img, backend="cpu")
    b = cclabel.regions(labels, img, backend="cuda")
    for name in COLUMNS:
        np.testing.assert_array_equal(a[name], b[name], err_msg=name)
    for f, p in ((cclabel.remove_small, 3), (cclabel.keep_largest, 50)):
        assert np.array_equal(f(labels, p, backend="cpu"), f(labels, p, backend="cuda"))


def _cupy_or_skip():
    cp = pytest.importorskip("cupy", reason="CuPy is not installed")
    if not cclabel.built_with_cuda or not cclabel.cuda_available():
        pytest.skip("no CUDA device or a build without CUDA")
    return cp


def test_cupy_regions_and_filters_equal_numpy():
    cp = _cupy_or_skip()
    rng = np.random.default_rng(8)
    img = rng.integers(0, 3, size=(333, 517, 4)).astype(np.uint8) * 80
    labels = cclabel.label(img, background="#00000000")
    d_img, d_labels = cp.asarray(img), cp.asarray(labels)
    want = cclabel.regions(labels, img, connectivity=4)
    got = cclabel.regions(d_labels, d_img, connectivity=4)
    for name in COLUMNS:
        assert isinstance(got[name], cp.ndarray), name
        np.testing.assert_array_equal(cp.asnumpy(got[name]), want[name], err_msg=name)
    _, t = cclabel.label(d_img, background="#00000000", stats=True)
    np.testing.assert_array_equal(cp.asnumpy(t["perimeter"]), cclabel.regions(labels, img)["perimeter"])
    for f, p in ((cclabel.remove_small, 4), (cclabel.keep_largest, 9)):
        out, m = f(d_labels, p, return_num=True)
        ref, rm = f(labels, p, return_num=True)
        assert isinstance(out, cp.ndarray) and m == rm
        np.testing.assert_array_equal(cp.asnumpy(out), ref)
    assert np.array_equal(cp.asnumpy(d_labels), labels)  # not in place by default
