"""`cclabel label --volume` with the options that used to be pictures' only: --adjacency (against
a brute-force count and cc3d's contacts), --preview (the slices side by side, one colour a label),
--threshold and --kmeans (the slices stacked as one tall picture give the volume's segmentation:
NumPy masks and cc3d labels, the pictures' K-means of the same voxels), --stream (slabs, the labels
of the whole), and the refusals (--tile, options that need the whole volume in slabs)."""
from __future__ import annotations

import csv
import itertools
import re
import subprocess

import numpy as np
import pytest

cc3d = pytest.importorskip("cc3d", reason="pip install connected-components-3d")
cv2 = pytest.importorskip("cv2", reason="pip install opencv-python-headless")
tifffile = pytest.importorskip("tifffile", reason="pip install tifffile")

_KINDS = {6: 1, 18: 2, 26: 3}


def run(cli, *args, command="label", ok=True):
    proc = subprocess.run([cli, command, *map(str, args)], capture_output=True, text=True, timeout=300)
    if ok and proc.returncode != 0:
        pytest.fail(f"cclabel {command} {' '.join(map(str, args))} exited {proc.returncode}\n{proc.stdout}{proc.stderr}")
    return proc


def one_line_error(proc, code, pattern):
    assert proc.returncode == code, proc.stdout + proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("cclabel: error:"), proc.stderr
    assert re.search(pattern, lines[0]), lines[0]


def write_stack(path, v):
    with tifffile.TiffWriter(path) as t:
        for s in v:
            t.write(s, photometric="rgb" if s.ndim == 3 else "minisblack")


def cc3d_labels(ids, connectivity):
    """cc3d's labels of a volume of value ids (0 the background)."""
    return cc3d.connected_components(np.ascontiguousarray(ids, dtype=np.uint32), connectivity=connectivity)


def brute(labels, connectivity, background=False):
    """Every voxel against each neighbour, each pair seen from both sides, halved."""
    pairs = {}
    z, y, x = labels.shape
    for dz, dy, dx in itertools.product((-1, 0, 1), repeat=3):
        if not 0 < abs(dz) + abs(dy) + abs(dx) <= _KINDS[connectivity]:
            continue
        a = labels[max(0, -dz):z - max(0, dz), max(0, -dy):y - max(0, dy), max(0, -dx):x - max(0, dx)]
        b = labels[max(0, dz):z - max(0, -dz), max(0, dy):y - max(0, -dy), max(0, dx):x - max(0, -dx)]
        keep = (a != b) if background else (a != b) & (a != 0) & (b != 0)
        for p, q in zip(np.minimum(a, b)[keep].tolist(), np.maximum(a, b)[keep].tolist()):
            pairs[(p, q)] = pairs.get((p, q), 0) + 1
    return {k: n // 2 for k, n in pairs.items()}


def read_edges(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    assert rows[0] == ["a", "b", "contacts"]
    edges = [tuple(int(c) for c in r) for r in rows[1:]]
    assert [e[:2] for e in edges] == sorted({e[:2] for e in edges})
    return {(a, b): n for a, b, n in edges}


@pytest.mark.parametrize("connectivity", [6, 18, 26])
def test_adjacency_of_a_volume(cli, tmp_path, connectivity):
    v = np.random.default_rng(connectivity).integers(0, 4, size=(6, 9, 13)).astype(np.uint8)
    write_stack(tmp_path / "v.tif", v)
    run(cli, tmp_path / "v.tif", "--volume", "-c", connectivity, "-b", 0, "-o", tmp_path / "l.npy",
        "--adjacency", tmp_path / "e.csv")
    labels = np.load(tmp_path / "l.npy")
    np.testing.assert_array_equal(labels, cc3d_labels(v, connectivity))
    edges = read_edges(tmp_path / "e.csv")
    assert edges and edges == brute(labels, connectivity)
    if connectivity != 26:  # cc3d 4.1.1's 26-connected contacts miscount (test_adjacency_volume.py)
        want = cc3d.contacts(labels, connectivity=connectivity, surface_area=False)
        assert edges == {(int(a), int(b)): int(n) for (a, b), n in want.items()}
    run(cli, tmp_path / "v.tif", "--volume", "-c", connectivity, "-b", 0, "--adjacency", tmp_path / "eb.csv",
        "--adjacency-background", "--min-size", 3, "-o", tmp_path / "f.npy")
    filtered = np.load(tmp_path / "f.npy")
    assert read_edges(tmp_path / "eb.csv") == brute(filtered, connectivity, background=True)  # after filtering


def test_preview_is_the_slices_side_by_side(cli, tmp_path):
    v = np.random.default_rng(2).integers(0, 3, size=(7, 5, 6)).astype(np.uint8)
    np.save(tmp_path / "v.npy", v)
    run(cli, tmp_path / "v.npy", "--volume", "-c", 26, "-b", 0, "-o", tmp_path / "l.npy", "--preview", tmp_path / "p.png")
    labels = np.load(tmp_path / "l.npy")
    png = cv2.imread(str(tmp_path / "p.png"), cv2.IMREAD_UNCHANGED)
    # 7 slices: 3 columns (ceil(sqrt(7))), 3 rows, one pixel between slices
    assert png.shape == (3 * 5 + 2, 3 * 6 + 2, 3)
    sheet = np.zeros(png.shape[:2], np.int64)  # 0 also where no slice is
    for z in range(7):
        r, c = divmod(z, 3)
        sheet[r * 6:r * 6 + 5, c * 7:c * 7 + 6] = labels[z]
    colours = png.reshape(-1, 3).astype(np.int64) @ np.array([1, 256, 65536])
    flat = sheet.reshape(-1)
    assert np.all((colours == 0) == (flat == 0))  # black: the background, the gaps and nothing else
    pairs = set(zip(flat.tolist(), colours.tolist()))
    assert len({l for l, _ in pairs}) == len(pairs) == len({c for _, c in pairs})  # one colour a label, and back


def test_preview_of_one_slice_is_the_pictures(cli, tmp_path):
    img = np.random.default_rng(3).integers(0, 4, size=(9, 12)).astype(np.uint8)
    np.save(tmp_path / "img.npy", img)
    run(cli, tmp_path / "img.npy", "-c", 4, "-b", 0, "--preview", tmp_path / "pic.png")
    run(cli, tmp_path / "img.npy", "--volume", "-c", 6, "-b", 0, "--preview", tmp_path / "vol.png")
    assert np.array_equal(cv2.imread(str(tmp_path / "pic.png")), cv2.imread(str(tmp_path / "vol.png")))


def luminance(rgb):
    r, g, b = (rgb[..., i].astype(np.int64) for i in range(3))
    return (4899 * r + 9617 * g + 1868 * b + 8192) >> 14


@pytest.mark.parametrize("connectivity", [6, 18, 26])
def test_threshold_of_a_volume(cli, tmp_path, connectivity):
    rng = np.random.default_rng(10 + connectivity)
    v = rng.integers(0, 256, size=(5, 8, 11)).astype(np.uint8)
    write_stack(tmp_path / "v.tif", v)
    proc = run(cli, tmp_path / "v.tif", "--volume", "-c", connectivity, "--threshold", 140, "-o", tmp_path / "l.npy")
    np.testing.assert_array_equal(np.load(tmp_path / "l.npy"), cc3d_labels(v > 140, connectivity))
    assert "threshold 140, " in proc.stdout
    # Otsu: one histogram of every voxel, as the tall picture of the slices one under another has
    tall = v.reshape(-1, v.shape[2])
    np.save(tmp_path / "tall.npy", tall)
    t_pic = int(re.search(r"otsu threshold (\d+)", run(cli, tmp_path / "tall.npy", "--threshold", "otsu").stdout)[1])
    proc = run(cli, tmp_path / "v.tif", "--volume", "-c", connectivity, "--threshold", "otsu", "-o", tmp_path / "o.npy",
               "--stats", tmp_path / "s.csv")
    t_vol = int(re.search(r"otsu threshold (\d+)", proc.stdout)[1])
    assert t_vol == t_pic and 0 < t_vol < 255
    labels = np.load(tmp_path / "o.npy")
    np.testing.assert_array_equal(labels, cc3d_labels(v > t_vol, connectivity))
    with open(tmp_path / "s.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert [r["value"] for r in rows[1:]] == ["1"] * int(labels.max())  # the mask's value, as for pictures


def test_threshold_of_an_rgb_stack_is_on_luminance(cli, tmp_path):
    v = np.random.default_rng(4).integers(0, 256, size=(4, 6, 7, 3)).astype(np.uint8)
    write_stack(tmp_path / "rgb.tif", v)
    run(cli, tmp_path / "rgb.tif", "--volume", "-c", 18, "--threshold", 120, "-o", tmp_path / "l.npy")
    np.testing.assert_array_equal(np.load(tmp_path / "l.npy"), cc3d_labels(luminance(v) > 120, 18))


@pytest.mark.parametrize("connectivity", [6, 26])
def test_kmeans_of_a_volume_is_the_tall_pictures_clusters(cli, tmp_path, connectivity):
    rng = np.random.default_rng(5)
    v = rng.integers(0, 256, size=(4, 7, 9, 3)).astype(np.uint8)
    write_stack(tmp_path / "rgb.tif", v)
    # The tall picture's clusters, read back from its labels and their statistics' value column
    np.save(tmp_path / "tall.npy", v.reshape(-1, v.shape[2], 3))
    run(cli, tmp_path / "tall.npy", "--kmeans", 3, "--seed", 7, "-c", 4, "-o", tmp_path / "t.npy",
        "--stats", tmp_path / "t.csv")
    with open(tmp_path / "t.csv", newline="") as f:
        value = np.array([int(r["value"]) for r in csv.DictReader(f)])
    clusters = value[np.load(tmp_path / "t.npy")].reshape(v.shape[:3])
    assert set(np.unique(clusters).tolist()) == {0, 1, 2}
    proc = run(cli, tmp_path / "rgb.tif", "--volume", "-c", connectivity, "--kmeans", 3, "--seed", 7,
               "-o", tmp_path / "l.npy", "--stats", tmp_path / "s.csv")
    assert "k-means 3 clusters" in proc.stdout
    labels = np.load(tmp_path / "l.npy")
    np.testing.assert_array_equal(labels, cc3d_labels(clusters + 1, connectivity))
    with open(tmp_path / "s.csv", newline="") as f:
        rows = list(csv.DictReader(f))[1:]
    for r in rows:  # each region's value is its cluster
        assert int(r["value"]) == int(clusters[labels == int(r["label"])][0])
    # -b names a cluster index, as for pictures
    run(cli, tmp_path / "rgb.tif", "--volume", "-c", connectivity, "--kmeans", 3, "--seed", 7, "-b", 0,
        "-o", tmp_path / "b.npy")
    np.testing.assert_array_equal(np.load(tmp_path / "b.npy"), cc3d_labels(np.where(clusters == 0, 0, clusters + 1),
                                                                            connectivity))


def test_stream_reads_the_stack_in_slabs(cli, tmp_path):
    v = np.random.default_rng(6).integers(0, 3, size=(9, 10, 12)).astype(np.uint8)
    write_stack(tmp_path / "v.tif", v)
    # 600 bytes a page (120 voxels, 1 byte each and 4 of labels): 1300 bytes are too few for the 9
    # pages, and their half holds one page a slab
    proc = run(cli, tmp_path / "v.tif", "--volume", "-c", 18, "-b", 0, "--stream", "--memory-budget", "1300",
               "-o", tmp_path / "l.npy")
    assert re.search(r"in slabs of 1 page \(it needs about", proc.stdout), proc.stdout
    np.testing.assert_array_equal(np.load(tmp_path / "l.npy"), cc3d_labels(v, 18))
    proc = run(cli, tmp_path / "v.tif", "--volume", "-c", 6, "-b", 0, "--stream", "-o", tmp_path / "s.npy")
    assert "in slabs of 9 pages (--stream)" in proc.stdout, proc.stdout
    np.testing.assert_array_equal(np.load(tmp_path / "s.npy"), cc3d_labels(v, 6))


def test_refusals(cli, tmp_path):
    v = np.random.default_rng(7).integers(0, 3, size=(4, 5, 6)).astype(np.uint8)
    write_stack(tmp_path / "v.tif", v)
    np.save(tmp_path / "v.npy", v)
    np.save(tmp_path / "f.npy", v.astype(np.float32))
    one_line_error(run(cli, tmp_path / "v.tif", "--volume", "--tile", "4x4", ok=False), 2, r"--tile is for pictures")
    one_line_error(run(cli, tmp_path / "v.npy", "--volume", "--stream", ok=False), 2, r"--stream reads the pages of a TIFF")
    for option in (["--preview", tmp_path / "p.png"], ["--adjacency", tmp_path / "e.csv"],
                   ["--threshold", "otsu"], ["--kmeans", 2]):
        one_line_error(run(cli, tmp_path / "v.tif", "--volume", "--slab", 2, *option, ok=False), 1,
                       rf"{option[0]} needs the whole volume in memory, but this volume is read in slabs \(--slab 2\)")
    for option in (["--threshold", "1"], ["--kmeans", 2]):
        one_line_error(run(cli, tmp_path / "f.npy", "--volume", *option, ok=False), 1,
                       rf"{option[0]} does not take a float32 volume")
    one_line_error(run(cli, tmp_path / "v.npy", "--volume", "--threshold", 1, "--tolerance", 2, ok=False), 2,
                   r"--tolerance does not apply with --threshold")


def test_stats_command_with_threshold(cli, tmp_path):
    v = np.random.default_rng(8).integers(0, 256, size=(3, 6, 7)).astype(np.uint8)
    np.save(tmp_path / "v.npy", v)
    proc = run(cli, tmp_path / "v.npy", "--volume", "-c", 6, "--threshold", 100, command="stats")
    rows = list(csv.DictReader(proc.stdout.splitlines()))
    want = cc3d_labels(v > 100, 6)
    assert len(rows) == int(want.max()) + 1
    assert [int(r["voxels"]) for r in rows] == np.bincount(want.ravel()).tolist()
