"""docs/migration.md's rows, run: every call it says gives equal labels (or the same regions, where
the peer numbers otherwise) does so on a seeded image, so the table cannot drift from the code."""
from __future__ import annotations

import os

import numpy as np
import pytest

from conftest import cc3d, cv2, measure

if os.environ.get("CCLABEL_PYTHON_REQUIRED") == "1":
    import cclabel
else:
    cclabel = pytest.importorskip("cclabel", reason="the Python package is not installed (pip install .)")

ndimage = pytest.importorskip("scipy.ndimage", reason="SciPy is not installed")

RNG = np.random.default_rng(2026)
IMG = np.repeat(np.repeat(RNG.integers(0, 4, size=(40, 45)), 2, 0), 3, 1).astype(np.uint8)
IMG[RNG.random(IMG.shape) < 0.1] = 3  # specks
MASK = IMG > 1


def same_regions(a: np.ndarray, b: np.ndarray) -> bool:
    """The same partition (background 0 in both), whatever the numbers."""
    if a.shape != b.shape or not np.array_equal(a == 0, b == 0):
        return False
    pairs = np.unique(np.stack([a.ravel(), b.ravel()]), axis=1)
    return len(np.unique(pairs[0])) == pairs.shape[1] == len(np.unique(pairs[1]))


def test_same_regions_can_fail():
    assert same_regions(np.array([[1, 2]]), np.array([[5, 3]]))
    assert not same_regions(np.array([[1, 1]]), np.array([[5, 3]]))
    assert not same_regions(np.array([[1, 2]]), np.array([[5, 5]]))


def test_cc3d_rows():
    eq = np.testing.assert_array_equal
    eq(cclabel.label(IMG, background=0), cc3d.connected_components(IMG, connectivity=8))
    eq(cclabel.label(IMG, background=0, connectivity=4), cc3d.connected_components(IMG, connectivity=4))
    got, n = cclabel.label(IMG, background=0, return_N=True)
    want, want_n = cc3d.connected_components(IMG, connectivity=8, return_N=True)
    eq(got, want)
    assert n == want_n
    eq(cclabel.label(IMG, background=0, out_dtype=np.uint16), cc3d.connected_components(IMG, out_dtype=np.uint16,
                                                                                      connectivity=8))
    eq(cclabel.label(MASK), cc3d.connected_components(MASK.view(np.uint8), connectivity=8))
    labels = cclabel.label(IMG, background=0)
    eq(cclabel.remove_small(labels, 5) > 0, cc3d.dust(labels, 5, connectivity=8, precomputed_ccl=True) > 0)
    eq(cclabel.keep_largest(labels, 3) > 0, cc3d.largest_k(labels, 3, connectivity=8, precomputed_ccl=True) > 0)
    s, t = cc3d.statistics(labels), cclabel.regions(labels, IMG)
    eq(t["area"], s["voxel_counts"])
    np.testing.assert_allclose(t["centroid_y"], s["centroids"][:, 0])
    np.testing.assert_allclose(t["centroid_x"], s["centroids"][:, 1])


def test_scikit_image_rows():
    eq = np.testing.assert_array_equal
    eq(cclabel.label(IMG, background=0), measure.label(IMG))
    eq(cclabel.label(IMG, background=0, connectivity=1), measure.label(IMG, connectivity=1))
    eq(cclabel.label(IMG), measure.label(IMG, background=-1))
    got, n = cclabel.label(IMG, background=0, return_num=True)
    want, want_n = measure.label(IMG, return_num=True)
    eq(got, want)
    assert n == want_n
    t = cclabel.regions(got, IMG)
    for p in measure.regionprops(want, IMG):
        lab = p.label
        assert p.bbox == (t["top"][lab], t["left"][lab], t["top"][lab] + t["height"][lab],
                          t["left"][lab] + t["width"][lab])
        assert p.area == t["area"][lab]
        assert p.centroid == pytest.approx((t["centroid_y"][lab], t["centroid_x"][lab]))


def test_opencv_rows():
    eq = np.testing.assert_array_equal
    m8 = MASK.astype(np.uint8)
    n, lab = cv2.connectedComponentsWithAlgorithm(m8, 8, cv2.CV_32S, cv2.CCL_SAUF)
    got, big_n = cclabel.label(MASK, return_num=True)
    eq(got, lab)
    assert n == big_n + 1
    eq(cclabel.label(MASK, connectivity=4), cv2.connectedComponents(m8, connectivity=4)[1])
    assert same_regions(cclabel.label(MASK), cv2.connectedComponents(m8)[1])
    n, lab, st, cen = cv2.connectedComponentsWithStatsWithAlgorithm(m8, 8, cv2.CV_32S, cv2.CCL_SAUF)
    got, t = cclabel.label(MASK, stats=True)
    for col, stat in (("left", cv2.CC_STAT_LEFT), ("top", cv2.CC_STAT_TOP), ("width", cv2.CC_STAT_WIDTH),
                      ("height", cv2.CC_STAT_HEIGHT), ("area", cv2.CC_STAT_AREA)):
        eq(t[col], st[:, stat], err_msg=col)
    np.testing.assert_allclose(t["centroid_x"], cen[:, 0])
    np.testing.assert_allclose(t["centroid_y"], cen[:, 1])


def test_scipy_rows():
    eq = np.testing.assert_array_equal
    lab, n = ndimage.label(MASK)
    got, big_n = cclabel.label(MASK, connectivity=4, return_num=True)
    eq(got, lab)
    assert n == big_n
    eq(cclabel.label(MASK), ndimage.label(MASK, structure=np.ones((3, 3)))[0])
    eq(cclabel.label(IMG != 0, connectivity=4), ndimage.label(IMG)[0])  # SciPy joins every nonzero value
