"""cclabel.regions and label(..., stats=True) of RGB and RGBA volumes (Z, Y, X, 3|4) uint8, against a
reference written here: a breadth-first flood fill over the colours (each colour a value), then each
region's voxels, box, centroid, surface (6 face neighbours, the border outside) and colour at its
first voxel computed with NumPy from that fill. Background off, as a tuple and as '#rrggbb(aa)';
connectivity 6/18/26; odd shapes and single slices; the 2-D path's value column; the errors."""
from __future__ import annotations

from collections import deque

import numpy as np
import pytest

cclabel = pytest.importorskip("cclabel")

CONNECTIVITIES = [6, 18, 26]
SHAPES = [(1, 1, 1), (1, 5, 7), (1, 1, 9), (4, 1, 9), (3, 8, 1), (5, 7, 9), (7, 6, 11)]


def offsets(connectivity: int):
    most = {6: 1, 18: 2, 26: 3}[connectivity]
    return [(dz, dy, dx) for dz in (-1, 0, 1) for dy in (-1, 0, 1) for dx in (-1, 0, 1)
            if 0 < abs(dz) + abs(dy) + abs(dx) <= most]


def flood_fill(v: np.ndarray, connectivity: int, background=None) -> np.ndarray:
    """Labels of v (Z, Y, X, C): neighbours of one colour join, regions 1..N in raster order of
    their first voxel, voxels of colour @p background 0."""
    z, y, x, _ = v.shape
    colours = [[[tuple(int(c) for c in v[k, j, i]) for i in range(x)] for j in range(y)] for k in range(z)]
    labels = np.zeros((z, y, x), np.uint32)
    bg = None if background is None else tuple(background)
    n = 0
    steps = offsets(connectivity)
    for k in range(z):
        for j in range(y):
            for i in range(x):
                if labels[k, j, i] or colours[k][j][i] == bg:
                    continue
                n += 1
                labels[k, j, i] = n
                colour = colours[k][j][i]
                queue = deque([(k, j, i)])
                while queue:
                    a, b, c = queue.popleft()
                    for dz, dy, dx in steps:
                        p, q, r = a + dz, b + dy, c + dx
                        if (0 <= p < z and 0 <= q < y and 0 <= r < x and not labels[p, q, r]
                                and colours[p][q][r] == colour):
                            labels[p, q, r] = n
                            queue.append((p, q, r))
    return labels


def reference_rows(labels: np.ndarray, v: np.ndarray) -> dict:
    """The columns regions() must give for @p labels of @p v, one region at a time."""
    n = int(labels.max()) if labels.size else 0
    c = v.shape[3]
    want = {"voxels": np.zeros(n + 1, np.uint64), "value": np.zeros((n + 1, c), np.uint8),
            "surface": np.zeros(n + 1, np.uint64)}
    for col in ("left", "top", "front", "width", "height", "depth"):
        want[col] = np.zeros(n + 1, np.int64)
    for col in ("centroid_x", "centroid_y", "centroid_z"):
        want[col] = np.full(n + 1, np.nan)
    padded = np.pad(labels.astype(np.int64), 1, constant_values=-1)
    for l in range(n + 1):
        inside = labels == l
        zs, ys, xs = np.nonzero(inside)
        if zs.size == 0:
            continue
        want["voxels"][l] = zs.size
        want["front"][l], want["top"][l], want["left"][l] = zs.min(), ys.min(), xs.min()
        want["depth"][l] = zs.max() - zs.min() + 1
        want["height"][l] = ys.max() - ys.min() + 1
        want["width"][l] = xs.max() - xs.min() + 1
        want["centroid_z"][l], want["centroid_y"][l], want["centroid_x"][l] = zs.mean(), ys.mean(), xs.mean()
        # np.nonzero walks in raster order: its first hit is the region's first voxel
        want["value"][l] = v[zs[0], ys[0], xs[0]]
        on = 0
        for a, b, d in zip(zs + 1, ys + 1, xs + 1):
            on += any(padded[a + dz, b + dy, d + dx] != l
                      for dz, dy, dx in ((-1, 0, 0), (1, 0, 0), (0, -1, 0), (0, 1, 0), (0, 0, -1), (0, 0, 1)))
        want["surface"][l] = on
    return want


def check(t: dict, labels: np.ndarray, v: np.ndarray) -> None:
    want = reference_rows(labels, v)
    n = len(want["voxels"]) - 1
    assert list(t) == ["label", "voxels", "left", "top", "front", "width", "height", "depth", "centroid_x",
                       "centroid_y", "centroid_z", "surface", "value"]
    np.testing.assert_array_equal(t["label"], np.arange(n + 1, dtype=np.uint32))
    assert t["label"].dtype == np.uint32
    for col, got in t.items():
        if col == "label":
            continue
        assert got.dtype == want[col].dtype, col
        assert got.shape == want[col].shape, col
        if col.startswith("centroid"):
            np.testing.assert_allclose(got, want[col], rtol=1e-12, atol=1e-12, err_msg=col)  # NaN equals NaN
        else:
            np.testing.assert_array_equal(got, want[col], err_msg=col)


def colour_volume(shape, channels: int, seed: int) -> np.ndarray:
    """A (Z, Y, X, channels) volume: random voxels of 4 colours that differ from each other in one
    channel only (alpha only for RGBA: a labeller or a value that drops a channel merges them),
    white among them."""
    rng = np.random.default_rng(seed)
    base = np.full(channels, 255, np.uint8)
    palette = np.stack([base] * 4)
    palette[1, 0] = 254                 # red off by one
    palette[2, 1] = 0                   # green
    palette[3, channels - 1] = 17       # blue, or alpha for RGBA
    return palette[rng.integers(0, 4, size=shape)]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("connectivity", CONNECTIVITIES)
@pytest.mark.parametrize("channels", [3, 4])
def test_regions_of_rgb_volumes_match_the_reference(shape, connectivity, channels):
    v = colour_volume(shape, channels, seed=sum(shape) * connectivity + channels)
    white = (255,) * channels
    for background in (None, white, "#" + "ff" * channels):
        want_labels = flood_fill(v, connectivity, None if background is None else white)
        labels, n, table = cclabel.label(v, connectivity=connectivity, background=background, return_num=True,
                                         stats=True)
        np.testing.assert_array_equal(labels, want_labels)
        assert n == int(want_labels.max())
        check(table, want_labels, v)
        check(cclabel.regions(want_labels, v, connectivity=connectivity), want_labels, v)


def test_regions_of_rgb_volumes_any_labelling_and_empty_labels():
    v = colour_volume((3, 4, 5), 3, seed=1)
    labels = np.zeros((3, 4, 5), np.uint32)
    labels[1, 2, 3] = 7                     # labels 1..6 have no voxel: value 0, NaN centroid
    labels[2, :, 4] = 3
    t = cclabel.regions(labels, v, connectivity=26)
    check(t, labels, v)
    assert t["value"][1].tolist() == [0, 0, 0] and np.isnan(t["centroid_x"][1])
    assert t["value"][7].tolist() == v[1, 2, 3].tolist()
    # an empty volume: the background row only
    t = cclabel.regions(np.zeros((0, 4, 5), np.uint32), np.zeros((0, 4, 5, 4), np.uint8), connectivity=6)
    assert t["voxels"].tolist() == [0] and t["value"].shape == (1, 4) and t["value"].dtype == np.uint8


def test_regions_of_rgb_volumes_never_depend_on_threads_or_layout():
    v = colour_volume((9, 14, 13), 4, seed=3)
    labels = cclabel.label(v, connectivity=18)
    want = cclabel.regions(labels, v, connectivity=18)
    check(want, labels, v)
    for threads in (1, 2, 3):
        got = cclabel.regions(labels, v, connectivity=18, threads=threads)
        for col in want:
            np.testing.assert_array_equal(got[col], want[col], err_msg=f"{col} threads {threads}")
    # reversed channels, a reversed axis, Fortran order and a sliced view: copied to C order first
    for view in (v[..., ::-1], v[:, ::-1], np.asfortranarray(v), v[1:8, ::2, 3:]):
        lab = cclabel.label(view, connectivity=26)
        np.testing.assert_array_equal(lab, flood_fill(np.ascontiguousarray(view), 26))
        check(cclabel.regions(lab, view, connectivity=26), lab, np.ascontiguousarray(view))


def test_rgb_volume_value_column_as_for_rgb_pictures():
    """The value column of an RGB volume of one slice equals regions() of the same 2-D picture."""
    rng = np.random.default_rng(5)
    for channels in (3, 4):
        picture = rng.integers(0, 2, (6, 8, channels)).astype(np.uint8) * 200
        lab2 = cclabel.label(picture, connectivity=4)
        t2 = cclabel.regions(lab2, picture, connectivity=4)
        t3 = cclabel.regions(lab2[None], picture[None], connectivity=6)
        np.testing.assert_array_equal(t3["value"], t2["value"])
        assert t3["value"].dtype == t2["value"].dtype == np.uint8
        np.testing.assert_array_equal(t3["voxels"], t2["area"])


def test_filters_on_labels_of_rgb_volumes():
    v = colour_volume((6, 7, 8), 3, seed=9)
    labels, table = cclabel.label(v, connectivity=6, background=(255, 255, 255), stats=True)
    kept, m = cclabel.remove_small(labels, 3, return_num=True)
    assert m == int((table["voxels"][1:] >= 3).sum())
    t = cclabel.regions(kept, v, connectivity=6)
    check(t, kept, v)
    big = table["voxels"][1:] >= 3
    np.testing.assert_array_equal(t["value"][1:], table["value"][1:][big])  # same colours, renumbered
    top, m = cclabel.keep_largest(labels, 2, return_num=True)
    assert m == min(2, int(labels.max()))
    check(cclabel.regions(top, v, connectivity=6), top, v)


def test_regions_rgb_volume_errors():
    v = colour_volume((3, 4, 5), 3, seed=2)
    lab = cclabel.label(v, connectivity=6)
    with pytest.raises(TypeError, match="must be uint8, got uint16"):
        cclabel.regions(lab, v.astype(np.uint16), connectivity=6)
    with pytest.raises(TypeError, match="must be uint8, got float32"):
        cclabel.label(v.astype(np.float32), connectivity=6, stats=True)
    with pytest.raises(ValueError, match=r"does not match the labels' \(3, 4, 5\)"):
        cclabel.regions(lab, np.zeros((3, 4, 6, 3), np.uint8), connectivity=6)
    with pytest.raises(ValueError, match=r"\(Z, Y, X, 3\|4\) RGB or RGBA volume, got shape \(3, 4, 5, 2\)"):
        cclabel.regions(lab, np.zeros((3, 4, 5, 2), np.uint8), connectivity=6)
    with pytest.raises(ValueError, match="connectivity=6, 18 or 26"):
        cclabel.regions(lab, v, connectivity=8)
    with pytest.raises(ValueError, match="on the CPU"):
        cclabel.regions(lab, v, connectivity=6, backend="cuda")
    with pytest.raises(ValueError, match="backend"):
        cclabel.regions(lab, v, connectivity=6, backend="gpu")
    with pytest.raises(TypeError, match="backend"):
        cclabel.regions(lab, v, connectivity=6, backend=1)
    with pytest.raises(ValueError, match="threads"):
        cclabel.regions(lab, v, connectivity=6, threads=-1)
    big = lab.copy()
    big[0, 0, 0] = 61
    with pytest.raises(ValueError, match="exceeds the number of voxels"):
        cclabel.regions(big, v, connectivity=26)
    with pytest.raises(ValueError, match="tuple of 3 channels"):
        cclabel.label(v, connectivity=6, background="#ffffffff", stats=True)
    with pytest.raises(ValueError, match="tuple of 4 channels"):
        cclabel.label(np.zeros((2, 2, 2, 4), np.uint8), connectivity=6, background=(0, 0, 0), stats=True)
