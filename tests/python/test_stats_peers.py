"""Region statistics from the CLI (`--stats`) against OpenCV's connectedComponentsWithStats (binary
images) and scikit-image's regionprops (colour images): area, bounding box and centroid, exactly
(centroids to floating-point rounding); and the filters (`--min-size`, `--largest`) against a
direct computation on cc3d's labels."""
from __future__ import annotations

import csv

import numpy as np
import pytest

from conftest import cc3d, cv2, load_labels, measure, pack, run_cli


def read_stats(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    return rows


def labelled(cli, tmp_path, image, *args):
    src = tmp_path / "in.npy"
    np.save(src, image)
    out, st = tmp_path / "out.npy", tmp_path / "stats.csv"
    run_cli(cli, src, "-o", out, "--stats", st, *args)
    return load_labels(out, image.shape[:2]), read_stats(st)


@pytest.mark.parametrize("conn", [4, 8])
@pytest.mark.parametrize("density", [0.2, 0.5, 0.8])
def test_binary_stats_equal_opencv(cli, tmp_path, conn, density):
    rng = np.random.default_rng(int(density * 10) + conn)
    mask = (rng.random((97, 131)) < density).astype(np.uint8)
    labels, stats = labelled(cli, tmp_path, mask.astype(bool), "--connectivity", str(conn))
    n, cv_labels, cv_stats, cv_centroids = cv2.connectedComponentsWithStatsWithAlgorithm(
        mask, conn, cv2.CV_32S, cv2.CCL_SAUF)
    assert np.array_equal(labels, cv_labels.astype(np.uint32))
    assert len(stats) == n  # row 0 is the background in both
    for lab, row in enumerate(stats):
        x, y, w, h, area = cv_stats[lab]
        assert (int(row["left"]), int(row["top"]), int(row["width"]), int(row["height"])) == (x, y, w, h), lab
        assert int(row["area"]) == area, lab
        assert float(row["centroid_x"]) == pytest.approx(cv_centroids[lab][0], rel=1e-12, abs=1e-9)
        assert float(row["centroid_y"]) == pytest.approx(cv_centroids[lab][1], rel=1e-12, abs=1e-9)


@pytest.mark.parametrize("conn", [4, 8])
def test_colour_stats_equal_skimage(cli, tmp_path, conn):
    rng = np.random.default_rng(conn)
    rgb = (rng.integers(0, 3, size=(83, 71, 3)) * 60).astype(np.uint8)
    rgb[::7] = 255  # some larger regions
    labels, stats = labelled(cli, tmp_path, rgb, "--connectivity", str(conn), "--background", "255,255,255")
    props = measure.regionprops(labels.astype(np.int64))
    assert len(stats) == len(props) + 1
    for p in props:
        row = stats[p.label]
        r0, c0, r1, c1 = p.bbox
        assert int(row["area"]) == p.area
        assert (int(row["left"]), int(row["top"]), int(row["width"]), int(row["height"])) == (c0, r0, c1 - c0, r1 - r0)
        assert float(row["centroid_y"]) == pytest.approx(p.centroid[0], rel=1e-12, abs=1e-9)
        assert float(row["centroid_x"]) == pytest.approx(p.centroid[1], rel=1e-12, abs=1e-9)
        y, x = p.coords[0]  # the region's colour
        assert row["value"] == "#%02x%02x%02x" % tuple(int(v) for v in rgb[y, x])


@pytest.mark.parametrize("conn", [4, 8])
def test_filters_equal_direct_computation(cli, tmp_path, conn):
    rng = np.random.default_rng(7 + conn)
    img = rng.integers(0, 4, size=(64, 90)).astype(np.uint8)
    ref = cc3d.connected_components(img.astype(np.uint32) + 1, connectivity=conn).astype(np.int64)
    areas = np.bincount(ref.ravel())
    areas[0] = 0

    def renumber(keep):
        out = np.where(keep[ref], ref, 0)
        uniq, first = np.unique(out.ravel(), return_index=True)
        order = uniq[np.argsort(first)]
        order = order[order != 0]
        lut = np.zeros(ref.max() + 1, np.int64)
        lut[order] = np.arange(1, len(order) + 1)
        return lut[out]

    labels, _ = labelled(cli, tmp_path, img, "--connectivity", str(conn), "--min-size", "3")
    assert np.array_equal(labels, renumber(areas >= 3))

    k = 5
    rank = sorted(range(1, len(areas)), key=lambda l: (-areas[l], l))[:k]
    keep = np.zeros(len(areas), bool)
    keep[rank] = True
    labels, _ = labelled(cli, tmp_path, img, "--connectivity", str(conn), "--largest", str(k))
    assert np.array_equal(labels, renumber(keep))
