"""`label --threshold T|otsu` and `label --kmeans K`: the thresholded labels equal OpenCV's SAUF labels
of cv2.threshold's mask (THRESH_BINARY with the same T, THRESH_OTSU; RGB through cv2.cvtColor's
RGB2GRAY), and K-means labels equal cc3d's labels of the colours when every colour is its own
cluster, are the same for the same seed, and never split a region of one colour."""
from __future__ import annotations

import subprocess

import numpy as np
import pytest

from conftest import assert_same, cc3d, cc3d_labels, cv2, load_labels, opencv_labels, pack, run_cli


def blobs(rng, h, w, levels, cell=4):
    """Smooth-ish gray picture: cells of random levels plus a little noise."""
    img = np.repeat(np.repeat(rng.choice(levels, size=(-(-h // cell), -(-w // cell))), cell, 0), cell, 1)[:h, :w]
    return np.clip(img + rng.integers(-6, 7, size=img.shape), 0, None)


@pytest.mark.parametrize("conn", [4, 8])
@pytest.mark.parametrize("t", [0, 90, 200, 254])
def test_fixed_threshold_gray8_equals_opencv(cli, tmp_path, conn, t):
    rng = np.random.default_rng(t + conn)
    img = np.clip(blobs(rng, 67, 93, [20, 100, 180, 250]), 0, 255).astype(np.uint8)
    src, out = tmp_path / "g.npy", tmp_path / "l.npy"
    np.save(src, img)
    run_cli(cli, src, "--threshold", t, "-c", conn, "-o", out)
    _, mask = cv2.threshold(img, t, 255, cv2.THRESH_BINARY)
    assert_same(load_labels(out, img.shape), opencv_labels(mask, conn), f"threshold {t}")


def test_fixed_threshold_gray16_equals_direct_mask(cli, tmp_path):
    rng = np.random.default_rng(16)
    img = blobs(rng, 50, 61, [100, 3000, 40000, 65000]).astype(np.uint16)
    src, out = tmp_path / "g16.npy", tmp_path / "l.npy"
    np.save(src, img)
    run_cli(cli, src, "--threshold", 20000, "-o", out)
    assert_same(load_labels(out, img.shape), opencv_labels((img > 20000).astype(np.uint8), 8), "gray16")


@pytest.mark.parametrize("conn", [4, 8])
def test_otsu_gray8_equals_opencv(cli, tmp_path, conn):
    rng = np.random.default_rng(conn)
    img = np.clip(blobs(rng, 120, 101, [40, 70, 160, 210]), 0, 255).astype(np.uint8)
    src, out = tmp_path / "g.npy", tmp_path / "l.npy"
    np.save(src, img)
    proc = run_cli(cli, src, "--threshold", "otsu", "-c", conn, "-o", out)
    t, mask = cv2.threshold(img, 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)
    assert f"otsu threshold {int(t)}," in proc.stdout
    assert_same(load_labels(out, img.shape), opencv_labels(mask, conn), "otsu")


def test_otsu_rgb_through_luminance_equals_opencv(cli, tmp_path):
    rng = np.random.default_rng(3)
    palette = np.array([[250, 240, 230], [30, 60, 200], [200, 40, 40], [20, 150, 60]], np.uint8)
    idx = np.repeat(np.repeat(rng.integers(0, 4, size=(30, 40)), 3, 0), 3, 1)
    img = np.clip(palette[idx].astype(np.int64) + rng.integers(-5, 6, size=idx.shape + (3,)), 0, 255).astype(np.uint8)
    src, out = tmp_path / "rgb.npy", tmp_path / "l.npy"
    np.save(src, img)
    run_cli(cli, src, "--threshold", "otsu", "-o", out)
    gray = cv2.cvtColor(img, cv2.COLOR_RGB2GRAY)
    _, mask = cv2.threshold(gray, 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)
    assert_same(load_labels(out, img.shape[:2]), opencv_labels(mask, 8), "otsu rgb")


@pytest.mark.parametrize("k", [2, 3, 5])
def test_kmeans_with_k_colours_labels_the_colours(cli, tmp_path, k):
    # At most 2048 pixels are all sampled, so k-means++ picks every one of k distinct colours as a
    # centre: each cluster is one colour and the labels are the colour regions (cc3d).
    rng = np.random.default_rng(k)
    palette = rng.choice(256, size=(k, 3)).astype(np.uint8)
    palette[:, 0] = np.arange(k) * 50  # distinct
    img = palette[rng.integers(0, k, size=(40, 50))]
    src, out = tmp_path / "rgb.npy", tmp_path / "l.npy"
    np.save(src, img)
    run_cli(cli, src, "--kmeans", k, "--seed", 7, "-o", out)
    assert_same(load_labels(out, img.shape[:2]), cc3d_labels(pack(img), 8), f"k={k}")


def test_kmeans_fewer_clusters_than_colours(cli, tmp_path):
    rng = np.random.default_rng(1)
    img = np.clip(blobs(rng, 90, 80, [10, 60, 120, 200, 240], cell=6), 0, 255).astype(np.uint8)
    rgb = np.stack([img, 255 - img, img // 2], axis=-1)
    src = tmp_path / "rgb.npy"
    np.save(src, rgb)
    outs = []
    for name, seed in (("a", 5), ("b", 5), ("c", 6)):
        out = tmp_path / f"{name}.npy"
        run_cli(cli, src, "--kmeans", 3, "--seed", seed, "--iterations", 20, "-o", out)
        outs.append(load_labels(out, img.shape))
    assert np.array_equal(outs[0], outs[1])  # the same seed, the same labels
    colours = cc3d_labels(pack(rgb), 8).astype(np.int64)
    for labels in outs:
        # Clustering merges colours, never splits one colour region: one label per colour region.
        pairs = np.unique(np.stack([colours.ravel(), labels.ravel()]), axis=1)
        assert pairs.shape[1] == colours.max()
        assert 0 < labels.max() < colours.max()


@pytest.mark.parametrize("args", [["--threshold", "abc"], ["--threshold", "-3"], ["--kmeans", "0"],
                                  ["--kmeans", "3", "--threshold", "otsu"], ["--threshold", "5", "-b", "0"]])
def test_bad_segmentation_options(cli, tmp_path, args):
    src = tmp_path / "g.npy"
    np.save(src, np.zeros((4, 4), np.uint8))
    proc = subprocess.run([cli, "label", str(src), *args], capture_output=True, text=True)
    assert proc.returncode != 0
    assert proc.stdout == ""
    assert len([l for l in proc.stderr.splitlines() if l.strip()]) <= 2, proc.stderr  # CLI11 adds a --help hint


def test_otsu_of_a_u32_image_is_an_error_naming_the_file(cli, tmp_path):
    src = tmp_path / "u32.npy"
    np.save(src, np.arange(12, dtype=np.uint32).reshape(3, 4))
    proc = run_cli(cli, src, "--threshold", "otsu", expect_ok=False)
    assert proc.returncode == 1
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "u32.npy" in lines[0]
