"""`cclabel label --volume` reading a TIFF stack a slab of pages at a time (--slab N, or past
--memory-budget): the labels equal the in-memory path's value for value (binary noise, a few values,
helices through every slab, regions that join only in a later slab; slabs of 1, 2, 3 pages and an
uneven last one; 6/18/26; background or none; gray8, gray16, rgb8; --tolerance), written as .npy or
TIFF, uint64 past the (lowered) uint32 limit, the temporary file removed, and the refusals."""
from __future__ import annotations

import os
import subprocess

import numpy as np
import pytest

from conftest import run_cli

tifffile = pytest.importorskip("tifffile", reason="pip install tifffile")


def write_stack(path, v):
    with tifffile.TiffWriter(path) as t:
        for s in v:
            t.write(s, photometric="rgb" if s.ndim == 3 else "minisblack")


def helix(shape, turns):
    v = np.zeros(shape, np.uint8)
    Z, Y, X = shape
    for s in range(3):
        for z in range(Z):
            t = 2.1 * s + 2 * np.pi * turns * z / Z
            v[z, int(round((Y - 1) / 2 * (1 + 0.8 * np.cos(t)))), int(round((X - 1) / 2 * (1 + 0.8 * np.sin(t))))] = s + 1
    return v


def late_join(shape):
    """Columns apart until the last slice joins them, a separate voxel between them in slice 0."""
    Z, Y, X = shape
    v = np.zeros(shape, np.uint8)
    v[:, 0, 0] = v[:, Y - 1, X - 1] = v[:, 0, X - 1] = 3
    v[Z - 1, 0, :] = v[Z - 1, :, X - 1] = 3
    v[0, Y // 2, 1] = 3
    return v


def volumes():
    rng = np.random.default_rng(1)
    yield "binary", (rng.random((7, 9, 10)) < 0.4).astype(np.uint8)
    yield "values", rng.integers(0, 3, (6, 8, 9)).astype(np.uint16) * 1000
    yield "helix", helix((16, 8, 8), 3)
    yield "late", late_join((5, 6, 7))
    yield "rgb", np.array([[0, 0, 0], [255, 0, 0], [255, 0, 1]], np.uint8)[rng.integers(0, 3, (5, 6, 7))]


def label_files(cli, stack, out, *args, env=None):
    proc = subprocess.run([cli, "label", str(stack), "--volume", "-o", str(out), *map(str, args)], capture_output=True,
                          text=True, timeout=300, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc


@pytest.mark.parametrize("connectivity", [6, 18, 26])
def test_slabs_equal_the_whole(cli, tmp_path, connectivity):
    for name, v in volumes():
        stack = tmp_path / f"{name}.tif"
        write_stack(stack, v)
        for background in ([], ["-b", "#000000" if v.ndim == 4 else "0"]):
            whole = tmp_path / "whole.npy"
            label_files(cli, stack, whole, "-c", connectivity, *background)
            want = np.load(whole)
            for slab in (1, 2, 3, 4):
                out = tmp_path / f"slab{slab}.npy"
                proc = label_files(cli, stack, out, "-c", connectivity, "--slab", slab, *background)
                got = np.load(out)
                assert got.dtype == np.uint32 and got.shape == want.shape
                np.testing.assert_array_equal(got, want, err_msg=f"{name} --slab {slab} {background}")
                assert f"in slabs of {slab} page" in proc.stdout and f"--slab {slab}" in proc.stdout
                assert f"{int(want.max()):,} regions" in proc.stdout
                assert not os.path.exists(str(out) + ".slabs.tmp")


def test_late_join_numbers_as_the_whole(cli, tmp_path):
    v = late_join((5, 6, 7))
    write_stack(tmp_path / "late.tif", v)
    label_files(cli, tmp_path / "late.tif", tmp_path / "late.npy", "-c", 6, "-b", 0, "--slab", 1)
    got = np.load(tmp_path / "late.npy")
    assert got[0, 0, 0] == got[0, 0, 6] == got[0, 5, 6] == 1 and got[0, 3, 1] == 2 and got.max() == 2


def test_past_the_memory_budget_and_tiff_output(cli, tmp_path):
    v = helix((24, 16, 16), 4)
    write_stack(tmp_path / "h.tif", v)
    label_files(cli, tmp_path / "h.tif", tmp_path / "whole.npy", "-b", 0)
    want = np.load(tmp_path / "whole.npy")
    # 24 pages of 256 voxels, 5 bytes a voxel with its label: 30 KiB; half of 8 KiB holds 3 pages
    proc = label_files(cli, tmp_path / "h.tif", tmp_path / "h-labels.tif", "-b", 0, "--memory-budget", "8K")
    assert "in slabs of 3 pages (it needs about" in proc.stdout and "over --memory-budget 8.0 KiB" in proc.stdout
    got = tifffile.imread(tmp_path / "h-labels.tif")
    assert got.shape == want.shape and got.dtype == np.uint32
    np.testing.assert_array_equal(got, want)
    proc = label_files(cli, tmp_path / "h.tif", tmp_path / "fits.npy", "-b", 0, "--memory-budget", "1M")
    assert "slabs" not in proc.stdout


def test_tolerance_in_slabs(cli, tmp_path):
    v = np.random.default_rng(4).integers(0, 40, (6, 7, 8)).astype(np.uint8)
    write_stack(tmp_path / "t.tif", v)
    label_files(cli, tmp_path / "t.tif", tmp_path / "whole.npy", "--tolerance", 5, "-c", 18)
    label_files(cli, tmp_path / "t.tif", tmp_path / "slabs.npy", "--tolerance", 5, "-c", 18, "--slab", 2)
    np.testing.assert_array_equal(np.load(tmp_path / "slabs.npy"), np.load(tmp_path / "whole.npy"))


def test_uint64_labels_past_the_limit(cli, tmp_path):
    v = helix((9, 6, 6), 2)
    write_stack(tmp_path / "h.tif", v)
    label_files(cli, tmp_path / "h.tif", tmp_path / "whole.npy", "-b", 0)
    env = dict(os.environ, CCLABEL_TEST_UNTILED_LIMIT="100")  # 324 voxels: past it
    proc = label_files(cli, tmp_path / "h.tif", tmp_path / "wide.npy", "-b", 0, "--slab", 2, env=env)
    got = np.load(tmp_path / "wide.npy")
    assert got.dtype == np.uint64 and "uint64 labels" in proc.stdout
    np.testing.assert_array_equal(got, np.load(tmp_path / "whole.npy"))
    # past the limit without --slab: slabs by themselves, each within the limit (2 pages of 36)
    proc = label_files(cli, tmp_path / "h.tif", tmp_path / "auto.npy", "-b", 0, env=env)
    assert "in slabs of 2 pages (more than 100 voxels, past what one labelling numbers)" in proc.stdout
    np.testing.assert_array_equal(np.load(tmp_path / "auto.npy"), got)


def test_without_output_reports_the_count(cli, tmp_path):
    v = late_join((5, 6, 7))
    write_stack(tmp_path / "late.tif", v)
    proc = run_cli(cli, tmp_path / "late.tif", "--volume", "-b", 0, "--slab", 2)
    assert " 2 regions" in proc.stdout and "in slabs of 2 pages" in proc.stdout
    assert sorted(os.listdir(tmp_path)) == ["late.tif"]


def refused(cli, code, words, *args):
    proc = run_cli(cli, *args, expect_ok=False)
    assert proc.returncode == code if code else proc.returncode != 0, proc.stdout + proc.stderr
    assert words in proc.stderr and proc.stderr.count("\n") <= 2, proc.stderr
    return proc


def test_refusals(cli, tmp_path):
    v = late_join((4, 5, 6))
    write_stack(tmp_path / "s.tif", v)
    np.save(tmp_path / "v.npy", v)
    refused(cli, 2, "--slab reads a volume's pages in slabs: it needs --volume", tmp_path / "s.tif", "--slab", 2)
    refused(cli, None, "--slab: Value 0 not in range", tmp_path / "s.tif", "--volume", "--slab", 0)  # CLI11's own
    refused(cli, 2, "is a .npy volume, read whole", tmp_path / "v.npy", "--volume", "--slab", 2)
    for option, words in ((["--stats", tmp_path / "st.csv"], "--stats needs the whole volume"),
                          (["--min-size", 3], "--min-size needs the whole volume"),
                          (["--largest", 1], "--largest needs the whole volume"),
                          (["--verify"], "--verify needs the whole volume"),
                          (["-b", "auto"], "--background auto needs the whole volume")):
        proc = refused(cli, 1, words, tmp_path / "s.tif", "--volume", "--slab", 2, *option)
        assert "read in slabs (--slab 2)" in proc.stderr
    refused(cli, 1, "value 300 is out of range for gray8", tmp_path / "s.tif", "--volume", "--slab", 2, "-b", 300)
    with tifffile.TiffWriter(tmp_path / "mixed.tif") as t:
        t.write(np.zeros((5, 6), np.uint8))
        t.write(np.zeros((5, 7), np.uint8))
    refused(cli, 1, "page 2 is 7x5 gray8, page 1 6x5 gray8", tmp_path / "mixed.tif", "--volume", "--slab", 1,
            "-o", tmp_path / "mixed.npy")
    assert not (tmp_path / "mixed.npy.slabs.tmp").exists()
