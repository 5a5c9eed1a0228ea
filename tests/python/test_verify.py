"""cclabel.verify, the certificate of a labelling, from Python: labels from cclabel.label, cc3d and
scikit-image pass where they equal the flood fill; each kind of wrong labelling (merged, split,
swapped numbers, background labelled, a label on two values) is found and placed; pictures (gray,
RGB) and volumes; bad arguments are TypeError or ValueError."""
from __future__ import annotations

import numpy as np
import pytest

cclabel = pytest.importorskip("cclabel", reason="the Python package is not installed (pip install .)")
from conftest import bfs_labels  # noqa: E402


def picture_flood_fill(img, connectivity, background=None):
    a = img if img.ndim == 3 else img[:, :, None]
    bg = np.zeros(a.shape[:2], bool) if background is None else np.all(a == np.atleast_1d(background), axis=2)
    return bfs_labels(a.shape[0], a.shape[1], lambda y, x, y2, x2: bool(np.all(a[y2, x2] == a[y, x])),
                      connectivity, lambda y, x: bg[y, x])


@pytest.mark.parametrize("connectivity", [4, 8])
@pytest.mark.parametrize("kind", ["bool", "uint8", "uint16", "uint32", "rgb", "rgba"])
def test_right_labels_pass(kind, connectivity):
    rng = np.random.default_rng(connectivity)
    shape = (23, 31, 3) if kind == "rgb" else (23, 31, 4) if kind == "rgba" else (23, 31)
    dtype = {"bool": bool, "rgb": np.uint8, "rgba": np.uint8}.get(kind, kind)
    img = (rng.random(shape) < 0.5) if kind == "bool" else rng.integers(0, 3, shape).astype(dtype)
    background = None if kind == "bool" else (0, 0, 0) if kind == "rgb" else (0, 0, 0, 0) if kind == "rgba" else 0
    labels = cclabel.label(img, connectivity=connectivity, background=background)
    np.testing.assert_array_equal(labels, picture_flood_fill(img, connectivity, False if kind == "bool" else background))
    v = cclabel.verify(img, labels, connectivity=connectivity, background=background)
    assert v and v.ok and v.message == "" and v.where is None and v.count == labels.max()
    # int64 labels (scikit-image's) are read as uint32
    assert cclabel.verify(img, labels.astype(np.int64), connectivity=connectivity, background=background)


def test_wrong_labellings_are_found_and_placed():
    rng = np.random.default_rng(5)
    img = rng.integers(0, 3, (20, 24)).astype(np.uint8)
    right = cclabel.label(img, connectivity=4, background=0)
    assert right.max() >= 3
    merged = right.copy()
    merged[merged == 2] = 1  # two regions under one label
    swapped = right.copy()
    swapped[right == 1], swapped[right == 2] = 2, 1  # numbers not in raster order
    split = right.copy()
    big = np.bincount(right.ravel())[1:].argmax() + 1
    ys, xs = np.nonzero(right == big)
    split[ys[-1], xs[-1]] = right.max() + 1  # a region's last pixel under a new label
    background = right.copy()
    y0, x0 = np.argwhere(img == 0)[0]
    background[y0, x0] = 1  # a background pixel labelled
    for wrong, what in ((merged, "merged"), (swapped, "swapped"), (split, "split"), (background, "background")):
        v = cclabel.verify(img, wrong, connectivity=4, background=0)
        assert not v and v.message and v.count == 0, what
        assert v.where is not None and 0 <= v.where[0] < 20 and 0 <= v.where[1] < 24, what
    # the right labels under another connectivity or background are wrong too
    assert not cclabel.verify(img, right, connectivity=8, background=0) or np.array_equal(
        right, cclabel.label(img, connectivity=8, background=0))
    assert not cclabel.verify(img, right, connectivity=4)


@pytest.mark.parametrize("connectivity", [6, 18, 26])
def test_volumes(connectivity):
    rng = np.random.default_rng(connectivity)
    v = rng.integers(0, 3, (7, 9, 11)).astype(np.uint16)
    labels = cclabel.label(v, connectivity=connectivity, background=0)
    verdict = cclabel.verify(v, labels, connectivity=connectivity, background=0)
    assert verdict and verdict.count == labels.max()
    cc3d = pytest.importorskip("cc3d", reason="pip install connected-components-3d")
    assert cclabel.verify(v, cc3d.connected_components(v, connectivity=connectivity), connectivity=connectivity,
                          background=0)
    wrong = labels.copy()
    wrong[labels == 1] = labels.max()  # the first region renumbered last
    bad = cclabel.verify(v, wrong, connectivity=connectivity, background=0)
    assert not bad and len(bad.where) == 3


def test_bad_arguments():
    img = np.zeros((4, 5), np.uint8)
    labels = np.zeros((4, 5), np.uint32)
    with pytest.raises(ValueError, match="shape"):
        cclabel.verify(img, np.zeros((5, 4), np.uint32))
    with pytest.raises(TypeError, match="float32"):
        cclabel.verify(img.astype(np.float32), labels)
    with pytest.raises(TypeError, match="integer"):
        cclabel.verify(img, labels.astype(np.float64))
    with pytest.raises(ValueError, match="0..4294967295"):
        cclabel.verify(img, labels.astype(np.int64) - 1)
    with pytest.raises(ValueError, match="connectivity 6"):
        cclabel.verify(img, labels, connectivity=6)
    with pytest.raises(ValueError, match="does not fit"):
        cclabel.verify(np.zeros((3, 4, 5), np.uint8), np.zeros((3, 4, 5), np.uint32), connectivity=4)
    with pytest.raises(TypeError, match="connectivity"):
        cclabel.verify(img, labels, connectivity=8.0)
    with pytest.raises(TypeError, match="background"):
        cclabel.verify(img, labels, background=1.5)
    with pytest.raises(ValueError, match="out of range|background"):
        cclabel.verify(img, labels, background=300)
    with pytest.raises(ValueError, match="#rrggbb"):
        cclabel.verify(np.zeros((4, 5, 3), np.uint8), labels, background="#fff")


def test_hex_background_as_label_takes_it():
    rng = np.random.default_rng(2)
    img = rng.integers(0, 2, (9, 10, 3)).astype(np.uint8) * 255
    labels = cclabel.label(img, background="#ffffff")
    assert cclabel.verify(img, labels, background="#ffffff")
    assert not cclabel.verify(img, labels, background="#000000")
