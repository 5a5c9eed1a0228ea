"""cclabel.adjacency of (Z, Y, X) label volumes (connectivity 6, 18, 26) against a brute-force count
written here and cc3d's region_graph and contacts, and the bad input around it.

cc3d 4.1.1's `contacts(..., connectivity=26, surface_area=False)` miscounts some 26-connected
volumes (a single pair of voxels touching along one edge within a (y, x) plane is counted twice);
its 6 and 18 counts and its region_graph at every connectivity agree with the brute force, which
decides (test_cc3d_26_contacts_miscount_an_edge keeps the smallest case)."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

cclabel = pytest.importorskip("cclabel")
cc3d = pytest.importorskip("cc3d", reason="pip install connected-components-3d")

_KINDS = {6: 1, 18: 2, 26: 3}


def brute(labels: np.ndarray, connectivity: int, background: bool = False) -> dict:
    """Every voxel against each of its neighbours (every pair seen from both sides), halved."""
    pairs: dict = {}
    z, y, x = labels.shape
    for dz, dy, dx in itertools.product((-1, 0, 1), repeat=3):
        if not 0 < abs(dz) + abs(dy) + abs(dx) <= _KINDS[connectivity]:
            continue
        a = labels[max(0, -dz):z - max(0, dz), max(0, -dy):y - max(0, dy), max(0, -dx):x - max(0, dx)]
        b = labels[max(0, dz):z - max(0, -dz), max(0, dy):y - max(0, -dy), max(0, dx):x - max(0, -dx)]
        keep = a != b
        if not background:
            keep &= (a != 0) & (b != 0)
        lo, hi = np.minimum(a, b)[keep], np.maximum(a, b)[keep]
        for p, q in zip(lo.tolist(), hi.tolist()):
            pairs[(p, q)] = pairs.get((p, q), 0) + 1
    assert all(n % 2 == 0 for n in pairs.values())
    return {k: n // 2 for k, n in pairs.items()}


def as_dict(edges: np.ndarray) -> dict:
    assert edges.dtype == np.uint64 and edges.ndim == 2 and edges.shape[1] == 3
    keys = [(int(a), int(b)) for a, b, _ in edges]
    assert keys == sorted(set(keys)) and all(a < b for a, b in keys)
    return {(int(a), int(b)): int(n) for a, b, n in edges}


def random_labels(shape, k, seed, noise=0.3):
    """Blocks of labels (long runs, boundaries in every direction) with noise."""
    rng = np.random.default_rng(seed)
    z, y, x = np.indices(shape)
    v = ((x // 3) * 7 + (y // 2) * 13 + z * 29) % k
    flip = rng.random(shape) < noise
    v[flip] = rng.integers(0, k, size=int(flip.sum()))
    return v.astype(np.uint32)


SHAPES = [(1, 1, 1), (1, 1, 9), (1, 7, 1), (8, 1, 1), (1, 6, 23), (5, 1, 20), (4, 6, 1), (3, 5, 40), (7, 9, 17),
          (2, 2, 2)]


@pytest.mark.parametrize("connectivity", [6, 18, 26])
@pytest.mark.parametrize("shape", SHAPES)
def test_volume_graph_equals_brute_force(connectivity, shape):
    for seed, k in ((0, 3), (1, 40)):
        labels = random_labels(shape, k, seed)
        for background in (False, True):
            got = as_dict(cclabel.adjacency(labels, connectivity=connectivity, background=background))
            assert got == brute(labels, connectivity, background), (shape, k, background)


@pytest.mark.parametrize("connectivity", [6, 18, 26])
def test_volume_graph_equals_cc3d(connectivity):
    for seed in range(6):
        labels = random_labels((6, 11, 19), 25, seed)
        got = as_dict(cclabel.adjacency(labels, connectivity=connectivity))
        assert set(got) == {(int(a), int(b)) for a, b in cc3d.region_graph(labels, connectivity=connectivity)}
        if connectivity != 26:  # cc3d's 26-connected contacts miscount (module docstring)
            want = cc3d.contacts(labels, connectivity=connectivity, surface_area=False)
            assert got == {(int(a), int(b)): int(n) for (a, b), n in want.items()}


def test_cc3d_26_contacts_miscount_an_edge():
    v = np.zeros((2, 2, 2), np.uint32)
    v[0, 0, 0], v[0, 1, 1] = 1, 2  # one pair of voxels, touching along an edge
    assert cc3d.contacts(v, connectivity=26, surface_area=False) == {(1, 2): 2.0}  # cc3d 4.1.1
    assert as_dict(cclabel.adjacency(v, connectivity=26)) == {(1, 2): 1} == brute(v, 26)


def test_skimage_3_is_26_and_dtypes_and_layouts():
    labels = random_labels((5, 8, 13), 9, 4)
    want = as_dict(cclabel.adjacency(labels, connectivity=26, background=True))
    assert want == brute(labels, 26, True)
    assert as_dict(cclabel.adjacency(labels, connectivity=3, background=True)) == want
    for dtype in (np.uint8, np.int16, np.int64, np.uint64):
        assert as_dict(cclabel.adjacency(labels.astype(dtype), 26, True)) == want
    fortran = np.asfortranarray(labels)
    assert as_dict(cclabel.adjacency(fortran, 26, True)) == want
    flipped = labels[::-1, :, ::-1]
    assert as_dict(cclabel.adjacency(flipped, 26, True)) == brute(np.ascontiguousarray(flipped), 26, True) == want
    assert as_dict(cclabel.adjacency(labels.astype(bool), 6, True)) == brute(labels.astype(bool).astype(np.uint32), 6, True)


def test_volume_graph_does_not_depend_on_threads_or_backend_auto():
    labels = random_labels((9, 31, 33), 200, 5, noise=0.05)
    for c in (6, 18, 26):
        one = cclabel.adjacency(labels, c, True, backend="cpu", threads=1)
        assert len(one) > 0
        for threads in (2, 3, 8):
            assert np.array_equal(cclabel.adjacency(labels, c, True, backend="cpu", threads=threads), one)
        assert np.array_equal(cclabel.adjacency(labels, c, True), one)  # auto: the CPU for volumes


def test_one_slice_is_the_picture_graph():
    labels = random_labels((1, 17, 29), 12, 6)
    for c, plane in ((6, 4), (18, 8), (26, 8)):
        assert np.array_equal(cclabel.adjacency(labels, c), cclabel.adjacency(labels[0], plane))


def test_graph_of_labelled_volume_equals_cc3d():
    rng = np.random.default_rng(8)
    v = rng.integers(0, 4, size=(7, 12, 15)).astype(np.uint8)
    for c in (6, 18):
        labels = cclabel.label(v, connectivity=c, background=0)
        want = cc3d.contacts(cc3d.connected_components(v, connectivity=c), connectivity=c, surface_area=False)
        assert as_dict(cclabel.adjacency(labels, c)) == {(int(a), int(b)): int(n) for (a, b), n in want.items()}


@pytest.mark.parametrize("labels, kwargs, error, message", [
    (np.zeros((2, 3, 4), np.uint32), {"connectivity": 4}, ValueError, "4 is for"),
    (np.zeros((2, 3, 4), np.uint32), {"connectivity": 8}, ValueError, "8 is for"),
    (np.zeros((2, 3, 4), np.uint32), {}, ValueError, "8 is for"),  # the default is a picture's
    (np.zeros((2, 3, 4), np.uint32), {"connectivity": 1}, ValueError, "1 is for"),
    (np.zeros((2, 3, 4), np.uint32), {"connectivity": 10}, ValueError, "6, 18 or 26"),
    (np.zeros((3, 4), np.uint32), {"connectivity": 6}, ValueError, "6 is for"),
    (np.zeros((3, 4), np.uint32), {"connectivity": 26}, ValueError, "26 is for"),
    (np.zeros((3, 4), np.uint32), {"connectivity": 3}, ValueError, "3 is for"),
    (np.zeros((2, 2, 3, 4), np.uint32), {"connectivity": 26}, ValueError, "expected an"),
    (np.zeros(4, np.uint32), {"connectivity": 4}, ValueError, "expected an"),
    (np.zeros((2, 3, 4), np.float32), {"connectivity": 26}, TypeError, "integer"),
    (-np.ones((2, 3, 4), np.int32), {"connectivity": 26}, ValueError, "negative"),
    (np.zeros((2, 3, 4), np.uint32), {"connectivity": 26, "threads": -2}, ValueError, "threads"),
    (np.zeros((2, 3, 4), np.uint32), {"connectivity": 26.0}, TypeError, "connectivity"),
])
def test_bad_input(labels, kwargs, error, message):
    with pytest.raises(error, match=message) as e:
        cclabel.adjacency(labels, **kwargs)
    assert "\n" not in str(e.value)


def test_backend_cuda_is_the_gpus_pass_or_says_why():
    """backend="cuda" reads the volume on the GPU (tests/python/test_volume_adjacency_gpu.py compares
    it with the CPU); where there is no GPU it is a ValueError that says so."""
    labels = np.zeros((2, 3, 4), np.uint32)
    labels[1] = 7
    if cclabel.cuda_available():
        np.testing.assert_array_equal(cclabel.adjacency(labels, 26, backend="cuda"),
                                      cclabel.adjacency(labels, 26, backend="cpu"))
    else:
        with pytest.raises(ValueError, match="backend cuda") as e:
            cclabel.adjacency(labels, 26, backend="cuda")
        assert "\n" not in str(e.value)


def test_empty_volumes():
    for shape in ((0, 3, 4), (2, 0, 4), (2, 3, 0)):
        edges = cclabel.adjacency(np.zeros(shape, np.uint32), connectivity=26, background=True)
        assert edges.shape == (0, 3) and edges.dtype == np.uint64
