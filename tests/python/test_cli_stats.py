"""`cclabel stats` (and `label --stats`, which writes the same table): every column against OpenCV's
connectedComponentsWithStats on binary images, the value column against the image itself, and the
perimeter against a direct count of the pixels with a neighbour outside their region."""
from __future__ import annotations

import csv
import io
import subprocess

import numpy as np
import pytest

from conftest import cc3d, cv2, pack

HEADER = ["label", "area", "left", "top", "width", "height", "centroid_x", "centroid_y", "perimeter", "value"]


def cclabel(cli, *args, ok=True):
    proc = subprocess.run([cli, *map(str, args)], capture_output=True, text=True, timeout=300)
    if ok and proc.returncode != 0:
        pytest.fail(f"cclabel {' '.join(map(str, args))} exited {proc.returncode}: {proc.stderr}")
    return proc


def table(text):
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[0] == HEADER
    return [dict(zip(HEADER, r)) for r in rows[1:]]


def perimeter_counts(labels, conn):
    """Per label, the pixels with a neighbour (conn) outside the image or carrying another label."""
    h, w = labels.shape
    padded = np.full((h + 2, w + 2), -1, np.int64)
    padded[1:-1, 1:-1] = labels
    offsets = [(0, 1), (0, -1), (1, 0), (-1, 0)]
    if conn == 8:
        offsets += [(1, 1), (1, -1), (-1, 1), (-1, -1)]
    edge = np.zeros((h, w), bool)
    for dy, dx in offsets:
        edge |= padded[1 + dy:h + 1 + dy, 1 + dx:w + 1 + dx] != labels
    return np.bincount(labels[edge].ravel(), minlength=labels.max() + 1)


def first_pixels(labels):
    """Per label, the (row, col) of its first pixel in raster order."""
    flat = labels.ravel()
    uniq, first = np.unique(flat, return_index=True)
    return {int(u): divmod(int(f), labels.shape[1]) for u, f in zip(uniq, first)}


@pytest.mark.parametrize("conn", [4, 8])
@pytest.mark.parametrize("density,shape", [(0.3, (61, 97)), (0.6, (1, 50)), (0.5, (33, 1)), (0.75, (128, 65))])
def test_binary_stats_equal_opencv(cli, tmp_path, conn, density, shape):
    rng = np.random.default_rng(int(density * 100) + conn + shape[0])
    mask = rng.random(shape) < density
    src = tmp_path / "mask.npy"
    np.save(src, mask)
    rows = table(cclabel(cli, "stats", src, "-c", conn).stdout)
    n, cv_labels, cv_stats, cv_centroids = cv2.connectedComponentsWithStatsWithAlgorithm(
        mask.astype(np.uint8), conn, cv2.CV_32S, cv2.CCL_SAUF)
    assert len(rows) == n
    perim = perimeter_counts(cv_labels.astype(np.int64), conn)
    firsts = first_pixels(cv_labels)
    for lab, row in enumerate(rows):
        x, y, w, h, area = cv_stats[lab]
        assert int(row["label"]) == lab
        assert (int(row["left"]), int(row["top"]), int(row["width"]), int(row["height"])) == (x, y, w, h), lab
        assert int(row["area"]) == area, lab
        assert float(row["centroid_x"]) == pytest.approx(cv_centroids[lab][0], rel=1e-12, abs=1e-9)
        assert float(row["centroid_y"]) == pytest.approx(cv_centroids[lab][1], rel=1e-12, abs=1e-9)
        assert int(row["perimeter"]) == perim[lab], lab
        if area:
            assert row["value"] == str(int(mask[firsts[lab]])), lab


@pytest.mark.parametrize("channels", [3, 4])
def test_colour_value_column_and_label_stats_agree(cli, tmp_path, channels):
    rng = np.random.default_rng(channels)
    img = (rng.integers(0, 3, size=(45, 38, channels)) * 120).astype(np.uint8)
    img[::5] = 255
    src = tmp_path / "img.npy"
    np.save(src, img)
    out, csv_path = tmp_path / "labels.npy", tmp_path / "label-stats.csv"
    cclabel(cli, "label", src, "-o", out, "--stats", csv_path, "-b", "255,255,255" + (",255" if channels == 4 else ""))
    labels = np.load(out)
    via_label = csv_path.read_text()
    stats_file = tmp_path / "stats.csv"
    cclabel(cli, "stats", src, "--csv", stats_file, "-b", "#ffffff" + ("ff" if channels == 4 else ""))
    assert stats_file.read_text() == via_label  # one table, two commands
    rows = table(via_label)
    # Independent: cc3d's labels of the same picture, the background (white) excluded.
    packed = pack(img)
    offset = packed.astype(np.uint64) + 1
    offset[(img == 255).all(axis=-1)] = 0
    ref = cc3d.connected_components(offset, connectivity=8).astype(np.uint32)
    assert np.array_equal(labels, ref)
    areas = np.bincount(ref.ravel())
    assert len(rows) == len(areas)
    for lab, (r, c) in first_pixels(ref).items():
        row = rows[lab]
        assert int(row["area"]) == areas[lab]
        want = "#" + "".join(f"{v:02x}" for v in img[r, c])
        assert row["value"] == want, lab


def test_gray16_value_is_an_integer(cli, tmp_path):
    rng = np.random.default_rng(5)
    img = rng.choice(np.array([0, 300, 65535], np.uint16), size=(20, 30))
    src = tmp_path / "g16.npy"
    np.save(src, img)
    rows = table(cclabel(cli, "stats", src, "-c", 4).stdout)
    ref = cc3d.connected_components(img.astype(np.uint32) + 1, connectivity=4)
    assert len(rows) == ref.max() + 1
    for lab, (r, c) in first_pixels(ref).items():
        if lab:
            assert rows[lab]["value"] == str(int(img[r, c]))


def test_stats_bad_input_is_one_line(cli, tmp_path):
    bad = tmp_path / "bad.npy"
    bad.write_bytes(b"not an image")
    for args in (["stats", bad], ["stats", tmp_path / "missing.png"], ["stats", bad, "--threshold", "x"]):
        proc = cclabel(cli, *args, ok=False)
        assert proc.returncode != 0
        assert proc.stdout == ""
        assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
        assert proc.stderr.startswith("cclabel: error:") or "error" in proc.stderr.lower()
