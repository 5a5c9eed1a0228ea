"""label() with a tolerance on host arrays with out=, out_dtype= and stats=, and batches labelled
image by image (cclabel/_tolerance_calls.py): every image against the flood fill of the tests,
the statistics against regions() of the same labels, and the arguments' errors."""
from __future__ import annotations

import numpy as np
import pytest

from test_graph import flood_fill  # noqa: E402  (the tests' tolerance flood fill)

cclabel = pytest.importorskip("cclabel", reason="the Python package is not installed (pip install .)")


def ramps(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    steps = rng.integers(-3, 4, size=shape).cumsum(axis=-1)
    return (steps - steps.min()).astype(dtype)


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.int16, np.int64, np.float32])
@pytest.mark.parametrize("connectivity", [4, 8])
def test_a_host_batch_is_each_image_as_alone(dtype, connectivity):
    batch = ramps((4, 13, 17), dtype, 5)
    tolerance = 2.5 if np.dtype(dtype).kind == "f" else 2
    labels, counts = cclabel.label(batch, tolerance=tolerance, connectivity=connectivity, return_num=True)
    assert labels.shape == batch.shape and labels.dtype == np.uint32
    assert counts.dtype == np.uint32 and counts.shape == (4,)
    for b in range(4):
        want = flood_fill(batch[b], tolerance, connectivity)
        np.testing.assert_array_equal(labels[b], want, err_msg=f"image {b}")
        assert counts[b] == want.max()
    _, as_list = cclabel.label(batch, tolerance=tolerance, connectivity=connectivity, return_num=True,
                               num_as_int=True)
    assert as_list == [int(c) for c in counts]


def test_an_rgb_batch_with_a_background():
    rng = np.random.default_rng(3)
    batch = rng.integers(0, 4, size=(3, 9, 11, 3)).astype(np.uint8) * 3
    batch[:, :, 5] = 0
    got = cclabel.label(batch, tolerance=3, background=(0, 0, 0))
    for b in range(3):
        np.testing.assert_array_equal(got[b], flood_fill(batch[b], 3, 8, background=(0, 0, 0)))


@pytest.mark.parametrize("target", [np.uint16, np.uint32, np.uint64])
def test_out_and_out_dtype(target):
    img = ramps((21, 25), np.uint8, 9)
    want = flood_fill(img, 1, 8)
    out = np.full(img.shape, 7, dtype=target)
    got, n = cclabel.label(img, tolerance=1, out=out, return_num=True)
    assert got is out and n == want.max()
    np.testing.assert_array_equal(out, want)
    fresh = cclabel.label(img, tolerance=1, out_dtype=target)
    assert fresh.dtype == target
    np.testing.assert_array_equal(fresh, want)
    batch = np.stack([img, img[::-1]])
    outb = np.zeros(batch.shape, dtype=target)
    got = cclabel.label(batch, tolerance=1, out=outb)
    assert got is outb
    np.testing.assert_array_equal(outb[1], flood_fill(img[::-1], 1, 8))


def test_stats_are_regions_of_the_tolerance_labels():
    img = ramps((15, 19), np.uint16, 2)
    labels, n, table = cclabel.label(img, tolerance=2, stats=True, return_num=True)
    np.testing.assert_array_equal(labels, flood_fill(img, 2, 8))
    ref = cclabel.regions(labels, img)
    assert set(table) == set(ref)
    for k in ref:
        np.testing.assert_array_equal(table[k], ref[k], err_msg=k)
    assert int(table["area"][1:].sum()) == img.size
    batch = np.stack([img, img[::-1, ::-1]])
    labels, tables = cclabel.label(batch, tolerance=2, stats=True)
    assert len(tables) == 2
    for b in range(2):
        np.testing.assert_array_equal(tables[b]["area"], cclabel.regions(labels[b], batch[b])["area"])


def test_bad_out_is_named():
    img = ramps((6, 7), np.uint8, 1)
    with pytest.raises(TypeError, match="out: dtype must be uint32"):
        cclabel.label(img, tolerance=1, out=np.empty(img.shape, np.int32))
    with pytest.raises(ValueError, match="out: shape"):
        cclabel.label(img, tolerance=1, out=np.empty((7, 6), np.uint32))
    with pytest.raises(ValueError, match="out: shape"):
        cclabel.label(np.stack([img, img]), tolerance=1, out=np.empty((2, 7, 6), np.uint32))
    ro = np.empty(img.shape, np.uint32)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        cclabel.label(img, tolerance=1, out=ro)
    with pytest.raises(ValueError, match="uint16"):
        cclabel.label(np.arange(70000, dtype=np.uint32).reshape(280, 250) * 10, tolerance=1, out_dtype=np.uint16)
