"""cclabel.regions, remove_small and keep_largest on (Z, Y, X) label volumes: counts, boxes and
centroids against cc3d.statistics and scikit-image's regionprops, the surface and the values against
brute force written here (every voxel's 6 face neighbours looked at), the filters against a
renumbering written here and cc3d.dust; thread counts, odd layouts and the errors."""
from __future__ import annotations

import numpy as np
import pytest

cclabel = pytest.importorskip("cclabel")
cc3d = pytest.importorskip("cc3d", reason="pip install connected-components-3d")
measure = pytest.importorskip("skimage.measure", reason="pip install scikit-image")

CONNECTIVITIES = [6, 18, 26]
SHAPES = [(1, 1, 1), (1, 1, 9), (7, 1, 1), (3, 8, 5), (12, 9, 14), (20, 17, 23)]


def random_volume(dtype: str, shape, k: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if dtype == "bool":
        return rng.random(shape) < 0.55
    if dtype.startswith("float"):
        pal = np.array([0.0, -0.0, np.nan, 1.5, -2.25, 7.0][:k], dtype=dtype)
    else:
        info = np.iinfo(dtype)
        pal = np.array([0, info.max, info.min, 1, 5][:k], dtype=dtype)
    return pal[rng.integers(0, len(pal), size=shape)]


def surface_brute(labels: np.ndarray) -> np.ndarray:
    """Voxels per label with a 6-neighbour of another label or outside the volume."""
    z, y, x = labels.shape
    padded = np.full((z + 2, y + 2, x + 2), -1, np.int64)
    padded[1:-1, 1:-1, 1:-1] = labels
    core = padded[1:-1, 1:-1, 1:-1]
    on = np.zeros(labels.shape, bool)
    for axis in range(3):
        for step in (-1, 1):
            on |= np.roll(padded, step, axis=axis)[1:-1, 1:-1, 1:-1] != core
    n = int(labels.max()) if labels.size else 0
    return np.bincount(labels[on].ravel(), minlength=n + 1).astype(np.uint64)


def first_values(labels: np.ndarray, image: np.ndarray, rows: int) -> tuple[np.ndarray, np.ndarray]:
    """Each label's value at its first voxel in raster order, and which labels have voxels."""
    present, first = np.unique(labels.ravel(), return_index=True)
    values = np.zeros(rows, image.dtype)
    values[present] = image.ravel()[first]
    has = np.zeros(rows, bool)
    has[present] = True
    return values, has


def check_table(t: dict, labels: np.ndarray, image: np.ndarray) -> None:
    n = int(labels.max()) if labels.size else 0
    assert set(t) == {"label", "voxels", "left", "top", "front", "width", "height", "depth", "centroid_x",
                      "centroid_y", "centroid_z", "surface", "value"}
    assert len(t["voxels"]) == n + 1 and t["voxels"].dtype == np.uint64
    assert t["value"].shape == (n + 1, 1) and t["value"].dtype == image.dtype
    np.testing.assert_array_equal(t["label"], np.arange(n + 1))

    st = cc3d.statistics(np.ascontiguousarray(labels, dtype=np.uint32))
    counts = np.zeros(n + 1, np.uint64)
    counts[: len(st["voxel_counts"])] = st["voxel_counts"]
    np.testing.assert_array_equal(t["voxels"], counts)
    has = t["voxels"] > 0
    for l in np.flatnonzero(has):
        zs, ys, xs = st["bounding_boxes"][l]
        assert (t["front"][l], t["top"][l], t["left"][l]) == (zs.start, ys.start, xs.start), l
        assert (t["depth"][l], t["height"][l], t["width"][l]) == (zs.stop - zs.start, ys.stop - ys.start,
                                                                  xs.stop - xs.start), l
    cen = np.stack([t["centroid_z"], t["centroid_y"], t["centroid_x"]], axis=1)
    np.testing.assert_allclose(cen[has], np.asarray(st["centroids"])[: n + 1][has], rtol=1e-12, atol=1e-12)
    assert np.isnan(cen[~has]).all()
    for col in ("left", "top", "front", "width", "height", "depth"):
        assert (t[col][~has] == 0).all()

    np.testing.assert_array_equal(t["surface"], surface_brute(labels.astype(np.int64)))
    values, _ = first_values(labels, image, n + 1)
    got = t["value"][:, 0]
    if image.dtype.kind == "f":
        np.testing.assert_array_equal(np.isnan(got), np.isnan(values))
        ok = ~np.isnan(values)
        np.testing.assert_array_equal(got[ok], values[ok])
        assert not np.signbit(got[ok & (got == 0)]).any(), "-0.0 regions read +0.0"
    else:
        np.testing.assert_array_equal(got, values)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("connectivity", CONNECTIVITIES)
@pytest.mark.parametrize("dtype", ["bool", "uint8", "int16", "uint32", "int64", "uint64", "float32", "float64"])
def test_regions_match_cc3d_and_brute_force(shape, connectivity, dtype):
    image = random_volume(dtype, shape, 4, seed=sum(shape) * connectivity)
    labels = cclabel.label(image, connectivity=connectivity)
    check_table(cclabel.regions(labels, image, connectivity=connectivity), labels, image)


@pytest.mark.parametrize("connectivity", CONNECTIVITIES)
def test_regions_with_background_match_skimage_regionprops(connectivity):
    image = random_volume("uint8", (15, 18, 21), 3, seed=connectivity)
    labels = cclabel.label(image, connectivity=connectivity, background=0)
    t = cclabel.regions(labels, image, connectivity=connectivity)
    check_table(t, labels, image)
    props = measure.regionprops(labels.astype(np.int64))
    assert len(props) == len(t["voxels"]) - 1
    for p in props:
        l = p.label
        assert t["voxels"][l] == p.area
        z0, y0, x0, z1, y1, x1 = p.bbox
        assert (t["front"][l], t["top"][l], t["left"][l], t["depth"][l], t["height"][l], t["width"][l]) == (
            z0, y0, x0, z1 - z0, y1 - y0, x1 - x0)
        np.testing.assert_allclose((t["centroid_z"][l], t["centroid_y"][l], t["centroid_x"][l]), p.centroid,
                                   rtol=1e-12)


def test_regions_of_any_labelling_gaps_and_empty_volumes():
    labels = np.zeros((4, 5, 6), np.int32)
    labels[1, 2, 3] = 9  # 1..8 have no voxel
    labels[3, 4, 5] = 2
    image = np.arange(labels.size, dtype=np.uint16).reshape(labels.shape)
    t = cclabel.regions(labels, image, connectivity=26)
    check_table(t, labels, image)
    assert t["voxels"][9] == 1 and t["surface"][9] == 1 and t["value"][9, 0] == image[1, 2, 3]
    for shape in [(0, 3, 3), (3, 0, 3), (3, 3, 0)]:
        t = cclabel.regions(np.zeros(shape, np.uint32), np.zeros(shape, np.uint8), connectivity=6)
        assert len(t["voxels"]) == 1 and t["voxels"][0] == 0 and np.isnan(t["centroid_z"][0])


def test_regions_surface_of_a_box_a_shell_and_the_border():
    v = np.zeros((9, 10, 11), np.uint8)
    v[3:6, 2:6, 4:9] = 1  # 3 x 4 x 5: every voxel but the 1 x 2 x 3 core
    labels = cclabel.label(v, connectivity=6)
    t = cclabel.regions(labels, v, connectivity=6)
    assert t["voxels"][2] == 60 and t["surface"][2] == 54
    # the zeros: the volume's border and the voxels facing the box
    assert t["surface"][1] == (9 * 10 * 11 - 7 * 8 * 9) + 2 * (4 * 5 + 3 * 5 + 3 * 4)
    shell = np.zeros((5, 5, 5), np.uint8)
    shell[1:4, 1:4, 1:4] = 1
    shell[2, 2, 2] = 0  # a cavity: its own region (6-connected it does not reach the outside)
    labels = cclabel.label(shell, connectivity=6)
    t = cclabel.regions(labels, shell, connectivity=6)
    assert list(t["voxels"]) == [0, 98, 26, 1]
    assert list(t["surface"]) == [0, 98, 26, 1]


def test_regions_never_depend_on_threads_or_layout():
    image = random_volume("uint16", (30, 40, 50), 3, seed=4)
    labels = cclabel.label(image, connectivity=18)
    one = cclabel.regions(labels, image, connectivity=18, threads=1)
    for threads in (2, 3, None):
        many = cclabel.regions(labels, image, connectivity=18, threads=threads)
        for k in one:
            np.testing.assert_array_equal(many[k], one[k])
    # Fortran order, a transposed view and int64 labels: the same rows (of the same arrays)
    f_img, f_lab = np.asfortranarray(image), np.asfortranarray(labels.astype(np.int64))
    again = cclabel.regions(f_lab, f_img, connectivity=18)
    for k in one:
        np.testing.assert_array_equal(again[k], one[k])
    sliced = image[:, ::2, 5:45]
    lab = cclabel.label(sliced, connectivity=26)
    check_table(cclabel.regions(lab, sliced, connectivity=26), lab, np.ascontiguousarray(sliced))
    # scikit-image's 3 is 26
    np.testing.assert_array_equal(cclabel.regions(lab, sliced, connectivity=3)["surface"],
                                  cclabel.regions(lab, sliced, connectivity=26)["surface"])


def test_regions_volume_errors():
    v = np.zeros((3, 4, 5), np.uint8)
    lab = np.ones((3, 4, 5), np.uint32)
    with pytest.raises(ValueError, match="connectivity=6, 18 or 26"):
        cclabel.regions(lab, v)  # the default 8 with 3-D labels
    with pytest.raises(ValueError, match="connectivity=6, 18 or 26"):
        cclabel.regions(lab, v, connectivity=4)
    with pytest.raises(ValueError, match="does not match"):
        cclabel.regions(lab, np.zeros((3, 4, 6), np.uint8), connectivity=6)
    with pytest.raises(ValueError, match="Z, Y, X"):
        cclabel.regions(lab, np.zeros((4, 5), np.uint8), connectivity=6)
    with pytest.raises(ValueError, match="negative"):
        cclabel.regions(-lab.astype(np.int32), v, connectivity=6)
    with pytest.raises(TypeError, match="integer"):
        cclabel.regions(lab.astype(np.float32), v, connectivity=6)
    with pytest.raises(TypeError, match="complex64"):
        cclabel.regions(lab, v.astype(np.complex64), connectivity=6)
    with pytest.raises(ValueError, match="on the CPU"):
        cclabel.regions(lab, v, connectivity=6, backend="cuda")
    with pytest.raises(ValueError, match="backend"):
        cclabel.regions(lab, v, connectivity=6, backend="gpu")
    big = lab.copy()
    big[0, 0, 0] = 61
    with pytest.raises(ValueError, match="exceeds the number of voxels"):
        cclabel.regions(big, v, connectivity=26)
    with pytest.raises(ValueError):
        cclabel.regions(lab, v, connectivity=6, threads=-1)


def renumbered(labels: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """Labels with keep[l] False zeroed, the rest 1..M by first voxel in raster order."""
    flat = labels.ravel()
    present, first = np.unique(flat, return_index=True)
    kept = [l for l in present[np.argsort(first)] if l != 0 and keep[l]]
    to = np.zeros(int(labels.max()) + 1 if labels.size else 1, np.int64)
    to[kept] = np.arange(1, len(kept) + 1)
    return to[labels]


@pytest.mark.parametrize("connectivity", CONNECTIVITIES)
def test_filters_on_volumes(connectivity):
    image = random_volume("uint8", (16, 19, 22), 3, seed=connectivity + 1)
    labels = cclabel.label(image, connectivity=connectivity, background=0)
    counts = np.bincount(labels.ravel())
    for min_size in (0, 1, 2, 4, 30, 10**6):
        keep = counts >= min_size
        want = renumbered(labels, keep)
        got, m = cclabel.remove_small(labels, min_size, return_num=True)
        np.testing.assert_array_equal(got, want)
        assert got.shape == labels.shape and got.dtype == np.uint32 and m == want.max(initial=0)
        dusted = cc3d.dust(labels, threshold=min_size, connectivity=connectivity)
        np.testing.assert_array_equal(got != 0, dusted != 0)
    order = sorted(range(1, len(counts)), key=lambda l: (-counts[l], l))
    for k in (0, 1, 3, 10**6):
        keep = np.zeros(len(counts), bool)
        keep[order[:k]] = True
        got, m = cclabel.keep_largest(labels, k, return_num=True)
        np.testing.assert_array_equal(got, renumbered(labels, keep))
        assert m == min(k, len(order))


def test_filters_on_volumes_in_place_dtypes_and_layouts():
    image = random_volume("uint8", (6, 7, 8), 3, seed=9)
    labels = cclabel.label(image, connectivity=26, background=0)
    want = cclabel.remove_small(labels, 3)
    work = labels.copy()
    assert cclabel.remove_small(work, 3, in_place=True) is work
    np.testing.assert_array_equal(work, want)
    as64 = labels.astype(np.int64)
    got = cclabel.remove_small(as64, 3)
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(as64, labels)  # not in place: untouched
    # a transposed view is filtered as the array it indexes, in place through one copy
    t = np.ascontiguousarray(labels.transpose(2, 1, 0)).transpose(2, 1, 0)
    assert not t.flags.c_contiguous
    assert cclabel.keep_largest(t, 2, in_place=True) is t
    np.testing.assert_array_equal(t, cclabel.keep_largest(labels, 2))
    ro = labels.copy()
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        cclabel.remove_small(ro, 2, in_place=True)
    with pytest.raises(ValueError, match="negative"):
        cclabel.remove_small(-labels.astype(np.int16), 2)
    assert cclabel.remove_small(np.zeros((0, 3, 4), np.uint32), 2).shape == (0, 3, 4)


def test_label_with_stats_on_a_volume():
    image = random_volume("int16", (9, 10, 11), 3, seed=12)
    labels, n, table = cclabel.label(image, connectivity=18, background=0, return_num=True, stats=True)
    assert n == labels.max()
    check_table(table, labels, image)
    small, table16 = cclabel.label(image, connectivity=18, stats=True, out_dtype=np.uint16)
    assert small.dtype == np.uint16
    np.testing.assert_array_equal(table16["voxels"], cclabel.regions(small, image, connectivity=18)["voxels"])
