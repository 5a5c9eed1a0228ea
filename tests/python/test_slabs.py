"""cclabel.label_slabs: a volume as a stack of z-slabs, against cclabel.label of the whole and a
3-D flood fill (min-propagation over the 6/18/26 offsets) of small volumes: binary noise at several
densities, a few values, helices crossing many slabs, regions that join only in a later slab; slabs
of 1, 2, 3 slices and an uneven last one; every connectivity, background or none, several dtypes;
np.memmap input and output; uint64 labels; every bad input."""
from __future__ import annotations

import numpy as np
import pytest

cclabel = pytest.importorskip("cclabel")
from cclabel import _slabs  # noqa: E402

CONNECTIVITIES = [6, 18, 26]
DTYPES = ["bool", "uint8", "uint16", "int32", "float32", "int64", "float64"]


def offsets(connectivity):
    most = {6: 1, 18: 2, 26: 3}[connectivity]
    return [(dz, dy, dx) for dz in (-1, 0, 1) for dy in (-1, 0, 1) for dx in (-1, 0, 1)
            if 0 < (dz != 0) + (dy != 0) + (dx != 0) <= most]


def flood_fill(a, connectivity, background=None):
    """Each voxel takes the smallest raster index of its region (min-propagation between equal
    neighbours until nothing changes), the regions then numbered by that index."""
    ids = np.unique(a.reshape(-1), return_inverse=True)[1].reshape(a.shape)  # NaNs one value, -0.0 == 0.0
    fg = a.astype(bool) if a.dtype == bool else np.ones(a.shape, bool)
    if background is not None and a.dtype != bool:
        fg &= ~(np.isnan(a) if isinstance(background, float) and np.isnan(background) else a == background)
    big = np.int64(a.size)
    lab = np.where(fg, np.arange(a.size, dtype=np.int64).reshape(a.shape), big)
    pad = tuple((1, 1) for _ in range(3))
    while True:
        lp, ip = np.pad(lab, pad, constant_values=big), np.pad(ids, pad, constant_values=-1)
        new = lab.copy()
        for dz, dy, dx in offsets(connectivity):
            sl = tuple(slice(1 + d, 1 + d + n) for d, n in zip((dz, dy, dx), a.shape))
            same = fg & (ip[sl] == ids)
            new = np.where(same, np.minimum(new, lp[sl]), new)
        if np.array_equal(new, lab):
            break
        lab = new
    roots = np.unique(lab[fg])
    out = np.zeros(a.shape, np.uint32)
    out[fg] = np.searchsorted(roots, lab[fg]) + 1
    return out


def slabs_of(v, sizes):
    """v cut into slabs of these depths in turn (the last repeated), the last slab uneven."""
    z, k = 0, 0
    while z < v.shape[0]:
        d = sizes[min(k, len(sizes) - 1)]
        yield v[z:z + d]
        z, k = z + d, k + 1


def helix(shape, turns, seed):
    """Helical strands that wind through every slice (joined only through many slabs)."""
    v = np.zeros(shape, np.uint8)
    Z, Y, X = shape
    rng = np.random.default_rng(seed)
    for s in range(3):
        phase = rng.uniform(0, 2 * np.pi)
        for z in range(Z):
            t = phase + 2 * np.pi * turns * z / Z
            y = int(round((Y - 1) / 2 * (1 + 0.8 * np.cos(t))))
            x = int(round((X - 1) / 2 * (1 + 0.8 * np.sin(t))))
            v[z, y, x] = s + 1
    return v


def late_join(shape):
    """Columns that start apart in slice 0 and meet only in the last slice: the local order of
    early slabs is not the global one, and regions of an early slab merge through a later one."""
    Z, Y, X = shape
    v = np.zeros(shape, np.uint8)
    v[:, 0, 0] = v[:, Y - 1, X - 1] = v[:, 0, X - 1] = 3
    v[Z - 1, 0, :] = 3
    v[Z - 1, :, X - 1] = 3
    v[0, Y // 2, 1] = 3  # a region of its own between them in slice 0
    return v


def volumes():
    rng = np.random.default_rng(7)
    for density in (0.1, 0.3, 0.5, 0.9):
        yield f"binary{density}", (rng.random((9, 6, 7)) < density).astype(np.uint8)
    yield "values3", rng.integers(0, 3, (8, 5, 9)).astype(np.uint8)
    yield "helix", helix((24, 7, 7), 3, 1)
    yield "late", late_join((7, 5, 6))


@pytest.mark.parametrize("connectivity", CONNECTIVITIES)
@pytest.mark.parametrize("sizes", [(1,), (2,), (3,), (4, 1, 2)])
def test_matches_label_of_the_whole_and_flood_fill(connectivity, sizes):
    for name, v in volumes():
        for background in (None, 0):
            want, n = cclabel.label(v, connectivity=connectivity, background=background, return_num=True)
            got, m = cclabel.label_slabs(slabs_of(v, sizes), connectivity=connectivity, background=background,
                                         return_num=True)
            assert got.dtype == np.uint32 and m == n, (name, background)
            np.testing.assert_array_equal(got, want, err_msg=f"{name} background={background}")
            if v.size <= 400:
                np.testing.assert_array_equal(got, flood_fill(v, connectivity, background))


def test_late_join_numbers_as_the_whole():
    v = late_join((7, 5, 6))
    got = cclabel.label_slabs(slabs_of(v, (1,)), connectivity=6, background=0)
    np.testing.assert_array_equal(got, flood_fill(v, 6, 0))
    assert got[0, 0, 0] == 1 and got[0, 0, 5] == 1 and got[0, 2, 1] == 2  # joined through the last slice


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("connectivity", CONNECTIVITIES)
def test_dtypes(dtype, connectivity):
    rng = np.random.default_rng(3)
    if dtype == "bool":
        v = rng.random((7, 6, 5)) < 0.5
    elif dtype.startswith("float"):
        v = np.array([0.0, -0.0, np.nan, 1.5], dtype)[rng.integers(0, 4, (7, 6, 5))]
    else:
        info = np.iinfo(dtype)
        v = np.array([0, info.max, info.min, 1], dtype)[rng.integers(0, 4, (7, 6, 5))]
    for background in ((None,) if dtype == "bool" else (None, 0)):
        want = cclabel.label(v, connectivity=connectivity, background=background)
        got = cclabel.label_slabs(slabs_of(v, (2,)), connectivity=connectivity, background=background)
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(got, flood_fill(v, connectivity, background))
    if dtype.startswith("float"):  # NaN as background, and 0.0 / -0.0 one value across a seam
        got = cclabel.label_slabs(slabs_of(v, (1,)), connectivity=connectivity, background=np.nan)
        np.testing.assert_array_equal(got, cclabel.label(v, connectivity=connectivity, background=np.nan))


def test_64_bit_values_equal_in_their_low_bits_do_not_join():
    v = np.zeros((2, 1, 1), np.uint64)
    v[0], v[1] = 5, 5 + 2**32
    assert cclabel.label_slabs(iter([v[:1], v[1:]]), connectivity=6, return_num=True)[1] == 2


def test_memmap_in_and_out(tmp_path):
    rng = np.random.default_rng(11)
    v = (rng.random((21, 8, 9)) < 0.4).astype(np.uint16) * rng.integers(1, 3, (21, 8, 9)).astype(np.uint16)
    src = np.lib.format.open_memmap(tmp_path / "v.npy", mode="w+", dtype=np.uint16, shape=v.shape)
    src[...] = v
    src.flush()
    mm = np.load(tmp_path / "v.npy", mmap_mode="r")
    for dtype in (np.uint32, np.uint64):
        out = np.lib.format.open_memmap(tmp_path / f"labels{np.dtype(dtype).itemsize}.npy", mode="w+", dtype=dtype,
                                        shape=v.shape)
        res, n = cclabel.label_slabs((mm[z:z + 4] for z in range(0, mm.shape[0], 4)), background=0, out=out,
                                     return_num=True)
        assert res is out
        out.flush()
        want, m = cclabel.label(v, connectivity=26, background=0, return_num=True)
        assert n == m
        np.testing.assert_array_equal(np.load(tmp_path / f"labels{np.dtype(dtype).itemsize}.npy"), want)


def test_tiff_pages(tmp_path):
    tifffile = pytest.importorskip("tifffile")
    v = helix((10, 9, 8), 2, 6).astype(np.uint16) * 300
    with tifffile.TiffWriter(tmp_path / "stack.tif") as t:
        for s in v:
            t.write(s)
    with tifffile.TiffFile(tmp_path / "stack.tif") as t:  # a page at a time, as (1, Y, X) slabs
        got, n = cclabel.label_slabs((p.asarray()[None] for p in t.pages), background=0, return_num=True)
    want, m = cclabel.label(v, connectivity=26, background=0, return_num=True)
    assert n == m
    np.testing.assert_array_equal(got, want)


def test_out_of_another_layout():
    v = late_join((6, 5, 4))
    out = np.zeros((4, 5, 6), np.uint64).transpose(2, 1, 0)  # (6, 5, 4), not C order
    cclabel.label_slabs(slabs_of(v, (2,)), connectivity=18, background=0, out=out)
    np.testing.assert_array_equal(out, cclabel.label(v, connectivity=18, background=0))


def test_uint64_labels():
    v = helix((12, 5, 5), 2, 4)
    want = cclabel.label(v, connectivity=26, background=0)
    got = cclabel.label_slabs(slabs_of(v, (3,)), background=0, dtype=np.uint64)
    assert got.dtype == np.uint64
    np.testing.assert_array_equal(got, want)


def test_more_voxels_than_uint32_gives_uint64(monkeypatch):
    monkeypatch.setattr(_slabs, "_U32_MAX", 100)  # as if 2**32 - 1 were 100
    v = np.random.default_rng(2).integers(0, 2, (6, 5, 5)).astype(np.uint8)  # 150 voxels
    got, n = cclabel.label_slabs(slabs_of(v, (2,)), connectivity=6, return_num=True)
    assert got.dtype == np.uint64 and n > 0
    np.testing.assert_array_equal(got, cclabel.label(v, connectivity=6))
    small = cclabel.label_slabs(slabs_of(v[:4], (2,)), connectivity=6)  # 100 voxels: uint32
    assert small.dtype == np.uint32


def test_labels_beyond_uint32_are_refused(monkeypatch):
    v = np.zeros((4, 1, 3), np.uint8)
    v[:, 0, 1] = 1  # 9 regions at 6-connectivity: 0 _ 0 columns beside a 1 column
    v[1::2, 0, 0] = 2
    n = cclabel.label(v, connectivity=6, return_num=True)[1]
    monkeypatch.setattr(_slabs, "_U32_MAX", n - 1)
    with pytest.raises(ValueError, match="uint32"):
        cclabel.label_slabs(slabs_of(v, (1,)), connectivity=6, out=np.zeros(v.shape, np.uint32))
    with pytest.raises(ValueError, match="uint32"):
        cclabel.label_slabs(slabs_of(v, (1,)), connectivity=6, dtype=np.uint32)
    got = cclabel.label_slabs(slabs_of(v, (1,)), connectivity=6, out=np.zeros(v.shape, np.uint64))
    np.testing.assert_array_equal(got, cclabel.label(v, connectivity=6))


def test_lists_empty_slabs_threads_and_scikit_image_3():
    v = np.random.default_rng(5).integers(0, 2, (5, 4, 3)).astype(np.uint8)
    parts = [v[:0], v[:2], v[2:2], v[2:]]
    want = cclabel.label(v, connectivity=26)
    np.testing.assert_array_equal(cclabel.label_slabs(parts, connectivity=3, threads=1), want)
    np.testing.assert_array_equal(cclabel.label_slabs([v], threads=2), want)
    assert cclabel.label_slabs([v[:0]]).shape == (0, 4, 3)
    assert cclabel.label_slabs([np.zeros((2, 0, 3), np.uint8)] * 2).shape == (4, 0, 3)
    np.testing.assert_array_equal(cclabel.label_slabs([v[:1].tolist(), v[1:].astype(np.int64)]), want)  # lists: arrays


def test_errors():
    v = np.zeros((4, 3, 3), np.uint8)
    with pytest.raises(ValueError, match="connectivity.*4 and 8"):
        cclabel.label_slabs([v], connectivity=8)
    with pytest.raises(ValueError, match="connectivity"):
        cclabel.label_slabs([v], connectivity=4)
    with pytest.raises(ValueError, match="connectivity"):
        cclabel.label_slabs([v], connectivity=True)
    with pytest.raises(ValueError, match="empty"):
        cclabel.label_slabs([])
    with pytest.raises(ValueError, match="empty"):
        cclabel.label_slabs(iter(()))
    with pytest.raises(TypeError, match="one array"):
        cclabel.label_slabs(v)
    with pytest.raises(TypeError, match="iterable"):
        cclabel.label_slabs(5)
    with pytest.raises(TypeError, match="slab 1 is uint16, slab 0 was uint8"):
        cclabel.label_slabs([v, v.astype(np.uint16)])
    with pytest.raises(ValueError, match="slab 1 has slices of 3 x 4"):
        cclabel.label_slabs([v, np.zeros((1, 3, 4), np.uint8)])
    with pytest.raises(ValueError, match=r"slab 0 has shape \(3, 3\).*slice\[None\]"):
        cclabel.label_slabs([v[0]])
    with pytest.raises(ValueError, match="slab 0 has shape"):
        cclabel.label_slabs([v[None]])
    with pytest.raises(TypeError, match="complex"):
        cclabel.label_slabs([v.astype(np.complex64)])
    with pytest.raises(ValueError, match="out: shape .* expected"):
        cclabel.label_slabs([v], out=np.zeros((4, 3, 4), np.uint32))
    with pytest.raises(ValueError, match="at least 4 slices"):
        cclabel.label_slabs([v], out=np.zeros((3, 3, 3), np.uint32))
    with pytest.raises(ValueError, match="the slabs have 4 slices"):
        cclabel.label_slabs([v], out=np.zeros((5, 3, 3), np.uint32))
    with pytest.raises(ValueError, match="out: expected shape"):
        cclabel.label_slabs([v], out=np.zeros((36,), np.uint32))
    with pytest.raises(TypeError, match="out: labels are uint32 or uint64"):
        cclabel.label_slabs([v], out=np.zeros(v.shape, np.int32))
    with pytest.raises(TypeError, match="out: expected a NumPy array"):
        cclabel.label_slabs([v], out=[[[0]]])
    ro = np.zeros(v.shape, np.uint32)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        cclabel.label_slabs([v], out=ro)
    with pytest.raises(TypeError, match="dtype: labels are uint32 or uint64"):
        cclabel.label_slabs([v], dtype=np.uint16)
    with pytest.raises(ValueError, match="dtype: uint64 asked, but out is uint32"):
        cclabel.label_slabs([v], dtype=np.uint64, out=np.zeros(v.shape, np.uint32))
    with pytest.raises(ValueError, match="background"):
        cclabel.label_slabs([v], background=300)
    with pytest.raises(ValueError, match="threads"):
        cclabel.label_slabs([v], threads=-1)
