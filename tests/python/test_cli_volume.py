"""`cclabel label --volume`, `stats --volume` and `check --volume`: multi-page TIFF stacks (written
with tifffile) and 3-D .npy arrays, labels against cc3d (on dense value ids + 1, 0 only for the
background), the statistics CSV against cc3d.statistics and a brute-force surface, the filters,
the certificate, the labels written as .npy and as multi-page TIFF, and bad input (one-line errors,
non-zero exit codes)."""
from __future__ import annotations

import csv
import io
import re
import subprocess

import numpy as np
import pytest

cc3d = pytest.importorskip("cc3d", reason="pip install connected-components-3d")
tifffile = pytest.importorskip("tifffile", reason="pip install tifffile")


def run(cli, command, *args, ok=True):
    proc = subprocess.run([cli, command, *map(str, args)], capture_output=True, text=True, timeout=300)
    if ok and proc.returncode != 0:
        pytest.fail(f"cclabel {command} {' '.join(map(str, args))} exited {proc.returncode}\n"
                    f"{proc.stdout}{proc.stderr}")
    return proc


def truth(v: np.ndarray, connectivity: int, background=None) -> np.ndarray:
    """cc3d's labels of v's values (NaNs one value, -0.0 equal to 0.0), background 0."""
    if v.ndim == 4:  # RGB: one id a colour
        ids = np.unique(v.reshape(-1, v.shape[-1]), axis=0, return_inverse=True)[1].reshape(v.shape[:3]) + 1
    else:
        ids = np.unique(v, return_inverse=True)[1].reshape(v.shape) + 1
    if background is not None:
        ids[np.all(v == background, axis=-1) if v.ndim == 4 else v == background] = 0
    return cc3d.connected_components(np.ascontiguousarray(ids, dtype=np.uint32), connectivity=connectivity)


def volume(dtype, shape=(6, 9, 11), k=3, seed=0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if dtype == "bool":
        return rng.random(shape) < 0.4
    pal = {"float32": np.array([0.0, -0.0, 2.5, np.nan], np.float32)}.get(dtype)
    if pal is None:
        pal = np.array([0, 7, 200, 3][:k], dtype=dtype)
    return pal[rng.integers(0, len(pal), size=shape)]


def write_stack(path, v: np.ndarray) -> None:
    with tifffile.TiffWriter(path) as t:
        for s in v:
            t.write(s, photometric="rgb" if s.ndim == 3 else "minisblack")


@pytest.mark.parametrize("connectivity", [6, 18, 26])
@pytest.mark.parametrize("dtype", ["uint8", "uint16"])
def test_tiff_stack_matches_cc3d(cli, tmp_path, connectivity, dtype):
    v = volume(dtype, seed=connectivity)
    write_stack(tmp_path / "stack.tif", v)
    proc = run(cli, "label", tmp_path / "stack.tif", "--volume", "-c", connectivity, "-b", 0, "-o",
               tmp_path / "labels.npy", "--verify")
    want = truth(v, connectivity, 0)
    labels = np.load(tmp_path / "labels.npy")
    assert labels.dtype == np.uint32 and labels.shape == v.shape
    np.testing.assert_array_equal(labels, want)
    assert f"11x9x6 {'gray8' if dtype == 'uint8' else 'gray16'} volume" in proc.stdout
    assert f"{int(want.max()):,} regions" in proc.stdout and "6 pages" in proc.stdout
    assert proc.stdout.rstrip().endswith("verified") and proc.stderr == ""


def test_rgb_stack_and_default_connectivity_26(cli, tmp_path):
    v = volume("uint8", shape=(4, 7, 8, 3), seed=5)
    write_stack(tmp_path / "rgb.tif", v)
    proc = run(cli, "label", tmp_path / "rgb.tif", "--volume", "-o", tmp_path / "rgb.tif.npy")
    assert "26-connected" in proc.stdout and "rgb8 volume" in proc.stdout
    np.testing.assert_array_equal(np.load(tmp_path / "rgb.tif.npy"), truth(v, 26))


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int16", "float32", "int64"])
@pytest.mark.parametrize("order", ["C", "F"])
def test_npy_volume_to_npy_and_multi_page_tiff(cli, tmp_path, dtype, order):
    v = volume(dtype, seed=3)
    np.save(tmp_path / "v.npy", np.asarray(v, order=order))
    bg = [] if dtype == "bool" else ["-b", 0]
    run(cli, "label", tmp_path / "v.npy", "--volume", "-c", 18, *bg, "-o", tmp_path / "out.npy")
    run(cli, "label", tmp_path / "v.npy", "--volume", "-c", 18, *bg, "-o", tmp_path / "out.tif")
    want = truth(v.astype(np.uint8) if dtype == "bool" else v, 18, 0)
    np.testing.assert_array_equal(np.load(tmp_path / "out.npy"), want)
    with tifffile.TiffFile(tmp_path / "out.tif") as t:
        assert len(t.pages) == v.shape[0]
        pages = np.stack([p.asarray() for p in t.pages])
    assert pages.dtype == np.uint32
    np.testing.assert_array_equal(pages, want)


def test_several_inputs_into_a_folder(cli, tmp_path):
    a, b = volume("uint8", seed=1), volume("uint8", shape=(3, 4, 5), seed=2)
    np.save(tmp_path / "a.npy", a)
    write_stack(tmp_path / "b.tif", b)
    run(cli, "label", tmp_path / "a.npy", tmp_path / "b.tif", "--volume", "-c", 6, "-o", tmp_path / "out",
        "--format", "tiff", "--stats", tmp_path / "csv")
    assert tifffile.imread(tmp_path / "out" / "a.tif").shape == a.shape
    np.testing.assert_array_equal(tifffile.imread(tmp_path / "out" / "b.tif"), truth(b, 6))
    assert (tmp_path / "csv" / "a.csv").exists() and (tmp_path / "csv" / "b.csv").exists()


def read_csv(text: str) -> dict[str, np.ndarray]:
    rows = list(csv.DictReader(io.StringIO(text)))
    return {k: np.array([r[k] for r in rows]) for k in rows[0]}


def surface(labels: np.ndarray) -> np.ndarray:
    padded = np.pad(labels.astype(np.int64), 1, constant_values=-1)
    core = padded[1:-1, 1:-1, 1:-1]
    on = np.zeros(labels.shape, bool)
    for axis in range(3):
        for step in (-1, 1):
            on |= np.roll(padded, step, axis=axis)[1:-1, 1:-1, 1:-1] != core
    return np.bincount(labels[on], minlength=int(labels.max()) + 1)


def check_stats_csv(t: dict, labels: np.ndarray) -> np.ndarray:
    """The CSV's columns but the value against cc3d.statistics and a brute-force surface of
    @p labels; returns each label's first voxel (raster index; -1 for a label with no voxel)."""
    st = cc3d.statistics(labels)
    n = int(labels.max())
    assert len(t["label"]) == n + 1
    np.testing.assert_array_equal(t["voxels"].astype(np.int64), st["voxel_counts"])
    for l in range(n + 1):
        if st["voxel_counts"][l] == 0:
            continue
        zs, ys, xs = st["bounding_boxes"][l]
        assert [int(t[c][l]) for c in ("front", "top", "left", "depth", "height", "width")] == [
            zs.start, ys.start, xs.start, zs.stop - zs.start, ys.stop - ys.start, xs.stop - xs.start]
    cen = np.stack([t["centroid_z"], t["centroid_y"], t["centroid_x"]], axis=1).astype(float)
    np.testing.assert_allclose(cen, st["centroids"], rtol=1e-12)
    np.testing.assert_array_equal(t["surface"].astype(np.int64), surface(labels))
    present, first = np.unique(labels.ravel(), return_index=True)
    at = np.full(n + 1, -1)
    at[present] = first
    return at


@pytest.mark.parametrize("connectivity", [6, 26])
def test_stats_volume_csv(cli, tmp_path, connectivity):
    v = volume("uint8", shape=(7, 8, 10), seed=connectivity)
    np.save(tmp_path / "v.npy", v)
    proc = run(cli, "stats", tmp_path / "v.npy", "--volume", "-c", connectivity, "-b", 0)
    assert proc.stdout.splitlines()[0] == ("label,voxels,left,top,front,width,height,depth,centroid_x,centroid_y,"
                                           "centroid_z,surface,value")
    t = read_csv(proc.stdout)
    labels = truth(v, connectivity, 0)
    first = check_stats_csv(t, labels)
    np.testing.assert_array_equal(t["value"].astype(np.int64), v.ravel()[first])
    # --csv, and `label --stats` writes the same table
    run(cli, "stats", tmp_path / "v.npy", "--volume", "-c", connectivity, "-b", 0, "--csv", tmp_path / "s.csv")
    run(cli, "label", tmp_path / "v.npy", "--volume", "-c", connectivity, "-b", 0, "--stats", tmp_path / "l.csv")
    assert (tmp_path / "s.csv").read_text() == proc.stdout == (tmp_path / "l.csv").read_text()


@pytest.mark.parametrize("channels", [3, 4])
@pytest.mark.parametrize("connectivity", [6, 18, 26])
def test_stats_volume_of_rgb_stacks(cli, tmp_path, channels, connectivity):
    """`stats --volume` of an RGB or RGBA TIFF stack: the 3-D columns of the colour labels (cc3d on
    colour ids), the value as #rrggbb(aa) at each region's first voxel; the background as
    #rrggbb(aa) or r,g,b(,a)."""
    rng = np.random.default_rng(channels * 10 + connectivity)
    palette = np.full((4, channels), 255, np.uint8)
    palette[1, 0], palette[2, 1], palette[3, channels - 1] = 254, 0, 17  # one channel off (alpha for RGBA)
    v = palette[rng.integers(0, 4, size=(5, 6, 7))]
    write_stack(tmp_path / "rgb.tif", v)
    white = (255,) * channels
    for bg in (None, "#" + "ff" * channels, ",".join(["255"] * channels)):
        background = [] if bg is None else ["-b", bg]
        proc = run(cli, "stats", tmp_path / "rgb.tif", "--volume", "-c", connectivity, *background)
        labels = truth(v, connectivity, None if bg is None else white)
        t = read_csv(proc.stdout)
        first = check_stats_csv(t, labels)
        colours = np.where(first[:, None] >= 0, v.reshape(-1, channels)[first], 0)  # 0 for no voxel
        assert list(t["value"]) == ["#" + "".join(f"{c:02x}" for c in colour) for colour in colours]
        assert (bg is None) == (t["voxels"][0] == "0")


@pytest.mark.parametrize("connectivity", [6, 26])
def test_tolerance_on_volumes(cli, tmp_path, connectivity):
    """--tolerance with --volume: 6-connected labels equal cc3d's delta (which agrees with a flood
    fill there); 26-connected ones join at least as much, and --stats reads the labels made."""
    rng = np.random.default_rng(connectivity)
    v = (np.cumsum(rng.integers(-2, 3, size=(5, 8, 9)), axis=2) % 30 + 1).astype(np.uint8)
    v[rng.random(v.shape) < 0.2] = 0
    np.save(tmp_path / "v.npy", v)
    proc = run(cli, "label", tmp_path / "v.npy", "--volume", "-c", connectivity, "-b", 0, "--tolerance", 2,
               "-o", tmp_path / "l.npy", "--stats", tmp_path / "s.csv")
    assert "tolerance 2" in proc.stdout
    got = np.load(tmp_path / "l.npy")
    exact = truth(v, connectivity, 0)
    assert 0 < got.max() <= exact.max()
    if connectivity == 6:
        np.testing.assert_array_equal(got, cc3d.connected_components(v, connectivity=6, delta=2))
    assert len(read_csv((tmp_path / "s.csv").read_text())["label"]) == got.max() + 1


def test_filters_on_volumes(cli, tmp_path):
    v = volume("uint8", shape=(8, 9, 10), seed=11)
    np.save(tmp_path / "v.npy", v)
    labels = truth(v, 6, 0)
    run(cli, "label", tmp_path / "v.npy", "--volume", "-c", 6, "-b", 0, "--min-size", 4, "-o", tmp_path / "m.npy")
    got = np.load(tmp_path / "m.npy")
    np.testing.assert_array_equal(got != 0, cc3d.dust(labels, threshold=4, connectivity=6) != 0)
    first = np.unique(got.ravel(), return_index=True)[1]
    assert list(np.unique(got.ravel())) == list(range(int(got.max()) + 1))
    assert list(got.ravel()[np.sort(first)]) == list(range(int(got.max()) + 1))  # raster order
    run(cli, "label", tmp_path / "v.npy", "--volume", "-c", 6, "-b", 0, "--largest", 1, "-o", tmp_path / "k.npy")
    counts = np.bincount(labels.ravel())
    counts[0] = 0
    np.testing.assert_array_equal(np.load(tmp_path / "k.npy"), (labels == int(np.argmax(counts))).astype(np.uint32))


def test_check_volume(cli, tmp_path):
    v = volume("uint8", shape=(5, 6, 7), seed=4)
    write_stack(tmp_path / "v.tif", v)
    labels = truth(v, 26, 0)
    np.save(tmp_path / "right.npy", labels)
    assert run(cli, "check", tmp_path / "right.npy", tmp_path / "v.tif", "--volume", "-b", 0).returncode == 0
    write_stack(tmp_path / "right.tif", labels)
    assert run(cli, "check", tmp_path / "right.tif", tmp_path / "v.tif", "--volume", "-b", 0).returncode == 0
    n = int(labels.max())
    perm = np.concatenate([[0], np.arange(n, 0, -1)])
    np.save(tmp_path / "renumbered.npy", perm[labels].astype(np.int64))
    assert run(cli, "check", tmp_path / "renumbered.npy", tmp_path / "v.tif", "--volume", "-b", 0,
               ok=False).returncode == (0 if n == 1 else 1)
    big = int(np.argmax(np.bincount(labels.ravel())[1:])) + 1  # a region of several voxels
    split = labels.copy()
    z, y, x = np.argwhere(labels == big)[-1]
    split[z, y, x] = n + 1
    np.save(tmp_path / "split.npy", split)
    proc = run(cli, "check", tmp_path / "split.npy", tmp_path / "v.tif", "--volume", "-b", 0, ok=False)
    assert proc.returncode == 2 and "1 split" in proc.stdout
    z0, y0, x0 = np.argwhere(labels == big)[0]
    assert f"(x={x0}, y={y0}, z={z0})" in proc.stdout
    # 6-connected labels checked at 26: regions split
    np.save(tmp_path / "six.npy", truth(v, 6, 0))
    proc = run(cli, "check", tmp_path / "six.npy", tmp_path / "v.tif", "--volume", "-b", 0, ok=False)
    assert proc.returncode == (0 if np.array_equal(truth(v, 6, 0), labels) else 2)
    proc = run(cli, "check", tmp_path / "right.npy", tmp_path / "v.npy", "--volume", ok=False)
    assert proc.returncode == 3 and proc.stderr.count("\n") == 1
    np.save(tmp_path / "small.npy", labels[:-1])
    proc = run(cli, "check", tmp_path / "small.npy", tmp_path / "v.tif", "--volume", ok=False)
    assert proc.returncode == 3 and "7x6x4 labels for a 7x6x5 volume" in proc.stderr


def test_a_2d_npy_or_one_page_is_one_slice(cli, tmp_path):
    v = volume("uint8", shape=(1, 9, 11), seed=8)
    np.save(tmp_path / "flat.npy", v[0])
    run(cli, "label", tmp_path / "flat.npy", "--volume", "-c", 6, "-o", tmp_path / "out.npy")
    np.testing.assert_array_equal(np.load(tmp_path / "out.npy"), truth(v, 6))
    tifffile.imwrite(tmp_path / "one.tif", v[0])
    proc = run(cli, "label", tmp_path / "one.tif", "--volume", "-o", tmp_path / "one.npy")
    assert "11x9x1" in proc.stdout and np.load(tmp_path / "one.npy").shape == (1, 9, 11)


def one_line_error(proc, code, words):
    assert proc.returncode == code, proc.stdout + proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("cclabel: error:"), proc.stderr
    assert re.search(words, lines[0]), lines[0]


def test_bad_volumes_and_options(cli, tmp_path):
    with tifffile.TiffWriter(tmp_path / "sizes.tif") as t:
        t.write(np.zeros((6, 7), np.uint8))
        t.write(np.zeros((6, 8), np.uint8))
    one_line_error(run(cli, "label", tmp_path / "sizes.tif", "--volume", ok=False), 1,
                   r"page 2 is 8x6 gray8, page 1 7x6 gray8: the pages of a volume must share size and format")
    with tifffile.TiffWriter(tmp_path / "formats.tif") as t:
        t.write(np.zeros((6, 7), np.uint8))
        t.write(np.zeros((6, 7), np.uint16))
    one_line_error(run(cli, "stats", tmp_path / "formats.tif", "--volume", ok=False), 1, r"must share size and format")
    np.save(tmp_path / "v.npy", volume("uint8"))
    one_line_error(run(cli, "label", tmp_path / "v.npy", "--volume", "-c", 8, ok=False), 2, r"-c 8 is for pictures")
    one_line_error(run(cli, "label", tmp_path / "v.npy", "-c", 26, ok=False), 2, r"-c 26 is for volumes: add --volume")
    one_line_error(run(cli, "stats", tmp_path / "v.npy", "-c", 6, ok=False), 2, r"add --volume")
    one_line_error(run(cli, "label", tmp_path / "v.npy", "--volume", "--tile", "8x8", ok=False), 2,
                   r"--tile is for pictures: a volume is labelled in z-slabs instead \(--slab")
    one_line_error(run(cli, "label", tmp_path / "v.npy", "--volume", "--stream", ok=False), 2,
                   r"--stream reads the pages of a TIFF a slab at a time; .*v\.npy is read whole")
    np.save(tmp_path / "four.npy", np.zeros((2, 3, 4, 5), np.uint8))
    one_line_error(run(cli, "label", tmp_path / "four.npy", "--volume", ok=False), 1, r"4 dimensions")
    # as for pictures: a value out of the format's range fails the file (exit 1)
    one_line_error(run(cli, "label", tmp_path / "v.npy", "--volume", "-b", 300, ok=False), 1, r"out of range")
    one_line_error(run(cli, "label", tmp_path / "v.npy", "--volume", "-o", tmp_path / "v.png", ok=False), 2,
                   r"\.npy, \.tif or \.tiff")
    np.save(tmp_path / "f.npy", volume("float32"))
    one_line_error(run(cli, "label", tmp_path / "f.npy", "--volume", "--verify", ok=False), 1,
                   r"--verify does not take")


def test_background_auto_is_the_volumes_most_frequent_value(cli, tmp_path):
    v = volume("uint16", shape=(5, 8, 9), seed=21)
    v[:3] = 7  # 7 fills most of the volume
    np.save(tmp_path / "v.npy", v)
    run(cli, "label", tmp_path / "v.npy", "--volume", "-c", 18, "-b", "auto", "-o", tmp_path / "l.npy")
    np.testing.assert_array_equal(np.load(tmp_path / "l.npy"), truth(v, 18, 7))
