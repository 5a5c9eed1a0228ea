"""`cclabel check LABELS IMAGE`: exit codes and counts on label images damaged on purpose (cc3d's
labels of seeded pictures with regions split, joined, dropped or renumbered by the test), written
as .npy of several dtypes, 16-bit PNG and 32-bit TIFF."""
from __future__ import annotations

import re
import subprocess

import numpy as np
import pytest

from conftest import cc3d, cv2

tifffile = pytest.importorskip("tifffile", reason="pip install tifffile")


def check(cli, labels, image, *args):
    return subprocess.run([cli, "check", str(labels), str(image), *map(str, args)], capture_output=True, text=True,
                          timeout=300)


def count(text, what):
    m = re.search(r"([\d,]+) " + what, text)
    return int(m.group(1).replace(",", "")) if m else 0


@pytest.fixture
def picture(tmp_path):
    """A gray picture whose value 0 is the background, and its true 8-connected labels (cc3d)."""
    rng = np.random.default_rng(11)
    img = np.repeat(np.repeat(rng.integers(0, 4, size=(20, 25)), 3, axis=0), 3, axis=1).astype(np.uint8)
    path = tmp_path / "img.npy"
    np.save(path, img)
    truth = cc3d.connected_components(img.astype(np.uint32), connectivity=8).astype(np.int64)
    return path, truth


@pytest.mark.parametrize("dtype", [np.uint32, np.int32, np.uint16, np.int64, np.uint64])
def test_identical_exits_0(cli, tmp_path, picture, dtype):
    img, truth = picture
    path = tmp_path / "given.npy"
    np.save(path, truth.astype(dtype))
    proc = check(cli, path, img, "-b", 0)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "identical" in proc.stdout
    assert count(proc.stdout, "true regions") == truth.max()


def test_png16_and_tiff32_labels(cli, tmp_path, picture):
    img, truth = picture
    png, tif = tmp_path / "given.png", tmp_path / "given.tif"
    cv2.imwrite(str(png), truth.astype(np.uint16))
    tifffile.imwrite(tif, truth.astype(np.uint32))
    for path in (png, tif):
        proc = check(cli, path, img, "-b", 0)
        assert proc.returncode == 0, proc.stdout + proc.stderr


def test_permuted_exits_1_and_counts_moved_regions(cli, tmp_path, picture):
    img, truth = picture
    rng = np.random.default_rng(3)
    n = int(truth.max())
    perm = np.arange(n + 1)
    perm[1:] = rng.permutation(np.arange(1, n + 1))
    moved = int((perm[1:] != np.arange(1, n + 1)).sum())
    path = tmp_path / "given.npy"
    np.save(path, perm[truth].astype(np.int64))
    proc = check(cli, path, img, "-b", 0)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert f"numbered differently: {moved:,} regions" in proc.stdout


@pytest.mark.parametrize("splits,joins", [(1, 0), (0, 1), (3, 2)])
def test_split_and_joined_exit_2_with_counts(cli, tmp_path, picture, splits, joins):
    img, truth = picture
    rng = np.random.default_rng(splits * 10 + joins)
    areas = np.bincount(truth.ravel())
    big = [l for l in rng.permutation(np.arange(1, len(areas))) if areas[l] >= 2]
    given = truth.copy()
    fresh = int(truth.max()) + 1
    for l in big[:splits]:  # the region's last pixel gets a label of its own
        ys, xs = np.nonzero(truth == l)
        given[ys[-1], xs[-1]] = fresh
        fresh += 1
    rest = big[splits:]
    for i in range(joins):  # two regions under one label
        a, b = rest[2 * i], rest[2 * i + 1]
        given[truth == b] = a
    damaged = list(big[:splits]) + [l for i in range(joins) for l in rest[2 * i:2 * i + 2]]
    first = min(np.flatnonzero(truth.ravel() == l)[0] for l in damaged)
    path = tmp_path / "given.npy"
    np.save(path, given.astype(np.uint32))
    proc = check(cli, path, img, "-b", 0)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert count(proc.stdout, "split") == splits
    assert count(proc.stdout, "joined") == joins
    assert count(proc.stdout, "pixels differ") == int((given != truth).sum())
    y, x = divmod(int(first), truth.shape[1])
    assert f"(x={x}, y={y})" in proc.stdout


def test_background_mixed_into_a_label_is_joined(cli, tmp_path, picture):
    img, truth = picture
    given = truth.copy()
    ys, xs = np.nonzero(truth == 0)
    given[ys[0], xs[0]] = 1
    path = tmp_path / "given.npy"
    np.save(path, given.astype(np.uint32))
    proc = check(cli, path, img, "-b", 0)
    assert proc.returncode == 2
    assert count(proc.stdout, "joined") == 1 and count(proc.stdout, "split") == 0


def test_4_versus_8_connectivity_is_a_split(cli, tmp_path):
    # A diagonal line is one region under 8-connectivity and one region per pixel under 4.
    img = np.eye(6, dtype=np.uint8)
    path, labels = tmp_path / "img.npy", tmp_path / "given.npy"
    np.save(path, img)
    np.save(labels, cc3d.connected_components(img, connectivity=4).astype(np.uint32))
    proc = check(cli, labels, path, "-b", 0, "-c", 8)
    assert proc.returncode == 2 and count(proc.stdout, "split") == 1
    assert check(cli, labels, path, "-b", 0, "-c", 4).returncode == 0


@pytest.mark.parametrize("case", ["size", "negative", "rgb", "missing"])
def test_bad_input_exits_3_with_one_line(cli, tmp_path, picture, case):
    img, truth = picture
    path = tmp_path / "given.npy"
    if case == "size":
        np.save(path, truth[:-1].astype(np.uint32))
    elif case == "negative":
        bad = truth.astype(np.int64)
        bad[0, 0] = -5
        np.save(path, bad)
    elif case == "rgb":
        np.save(path, np.zeros(truth.shape + (3,), np.uint8))
    proc = check(cli, path if case != "missing" else tmp_path / "none.npy", img)
    assert proc.returncode == 3
    assert len(proc.stderr.strip().splitlines()) == 1 and "error" in proc.stderr
