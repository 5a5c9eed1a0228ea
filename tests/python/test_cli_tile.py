"""`label --tile WxH`: labelling tile by tile (cclabel::label_tiled) gives exactly the untiled labels and
cc3d's multilabel labels (raster order), for tiles of one row, one column, larger than the image and
with ragged last rows/columns, on random multi-colour and adversarial pictures (checkerboards, spirals,
combs and diagonals whose regions cross every seam); --tile with the other options; the wide path
(uint64 labels, '<u8' .npy) that the CLI takes by itself for pictures of more than 2^32 - 1 pixels,
run here on small pictures by lowering that limit through CCLABEL_TEST_UNTILED_LIMIT; bad --tile values.

A picture of more than 2^32 - 1 pixels is not labelled here: it needs tens of GiB, more than CI has."""
from __future__ import annotations

import os
import subprocess

import numpy as np
import pytest

from conftest import assert_same, cc3d_labels, load_labels, pack, run_cli

tifffile = pytest.importorskip("tifffile", reason="pip install tifffile")

H, W = 37, 53  # neither divides by the tile sizes below: ragged last tiles everywhere


def random_colours(rng, h=H, w=W, colours=3, cell=1):
    """Few colours in cells of `cell` pixels: many regions, many of them crossing seams."""
    small = rng.integers(0, colours, size=(-(-h // cell), -(-w // cell)))
    return np.repeat(np.repeat(small, cell, 0), cell, 1)[:h, :w].astype(np.uint8)


def spiral(h=H, w=W):
    """Rings 2 px apart, each cut below its top-left corner and linked there to the next ring inside: one
    winding 1-px path (and one winding gap) that crosses every seam many times."""
    img = np.zeros((h, w), np.uint8)
    k = 0
    while 2 * k <= min(h, w) - 1 - 2 * k:
        t, l, b, r = 2 * k, 2 * k, h - 1 - 2 * k, w - 1 - 2 * k
        img[t, l:r + 1] = img[b, l:r + 1] = 1
        img[t:b + 1, l] = img[t:b + 1, r] = 1
        if t + 2 <= b - 2 and l + 2 <= r - 2:  # a ring inside: cut this one, link it in
            img[t + 1, l] = 0
            img[t + 2, l + 1] = 1
        k += 1
    return img


def pictures():
    rng = np.random.default_rng(7)
    yy, xx = np.mgrid[:H, :W]
    rgb = np.array([[255, 255, 255], [200, 30, 30], [30, 30, 200], [200, 30, 31]], np.uint8)
    return {
        "3 colours": random_colours(rng),
        "2 colours 3px cells": random_colours(rng, colours=2, cell=3),
        "rgb 4 colours": rgb[random_colours(rng, colours=4)],
        "gray16 noise": rng.integers(0, 3, size=(H, W)).astype(np.uint16) * 1000,
        "checkerboard": ((yy + xx) % 2).astype(np.uint8),
        "diagonals": ((xx - yy) % 3 == 0).astype(np.uint8),  # 8-joined only through corners
        "vertical comb": ((xx % 2 == 0) | (yy == H - 1)).astype(np.uint8),
        "horizontal comb": ((yy % 2 == 0) | (xx == 0)).astype(np.uint8),
        "spiral": spiral(),
        "one value": np.full((H, W), 9, np.uint8),
    }


TILES = ["1x1", "1x37", "53x1", "1x5", "4x1", "2x3", "3x2", "7x5", "16x16", "52x36", "53x37", "54x38",
         "1000x3", "3x1000", "100000x100000"]


def label(cli, tmp_path, image, *args, env=None):
    src, out = tmp_path / "in.npy", tmp_path / "out.npy"
    np.save(src, image)
    if out.exists():
        out.unlink()
    proc = subprocess.run([cli, "label", str(src), "-o", str(out), *map(str, args)], capture_output=True,
                          text=True, timeout=300, env=env)
    if proc.returncode != 0:
        pytest.fail(f"cclabel label {' '.join(map(str, args))} exited {proc.returncode}: {proc.stderr}")
    return np.load(out), proc.stdout


@pytest.mark.parametrize("conn", [4, 8])
@pytest.mark.parametrize("name", list(pictures()))
def test_every_tile_shape_equals_untiled_and_cc3d(cli, tmp_path, name, conn):
    image = pictures()[name]
    want = cc3d_labels(pack(image), conn)
    untiled, _ = label(cli, tmp_path, image, "-c", conn)
    assert untiled.dtype == np.uint32
    assert_same(untiled, want, f"{name} untiled")
    for tile in TILES:
        got, stdout = label(cli, tmp_path, image, "-c", conn, "--tile", tile)
        assert got.dtype == np.uint32, tile
        assert_same(got, want, f"{name}, --tile {tile}")
        assert f"tiles {tile})" in stdout, stdout


@pytest.mark.parametrize("conn", [4, 8])
def test_background_and_seeded_sizes(cli, tmp_path, conn):
    rng = np.random.default_rng(11 + conn)
    for _ in range(6):
        h, w = (int(v) for v in rng.integers(1, 70, size=2))
        image = random_colours(rng, h, w, colours=int(rng.integers(2, 5)), cell=int(rng.integers(1, 4)))
        want = cc3d_labels(pack(image), conn, background=0)
        tw, th = (int(v) for v in rng.integers(1, 25, size=2))
        got, _ = label(cli, tmp_path, image, "-c", conn, "-b", 0, "--tile", f"{tw}x{th}")
        assert_same(got, want, f"{h}x{w}, --tile {tw}x{th}, background 0")


def test_tile_with_threads_backend_and_filters_equals_untiled(cli, tmp_path):
    image = random_colours(np.random.default_rng(5), 90, 70, colours=3, cell=2)
    for args in (["-j", 1], ["-j", 3], ["--backend", "cpu"], ["--min-size", 5], ["--largest", 7],
                 ["--threshold", 1], ["--threshold", "otsu"], ["--kmeans", 2, "--seed", 3], ["-b", "auto"]):
        want, plain = label(cli, tmp_path, image, *args)
        got, tiled = label(cli, tmp_path, image, *args, "--tile", "9x4")
        assert_same(got, want, f"--tile 9x4 {args}")
        assert plain.split(" regions")[0] == tiled.split(" regions")[0], (plain, tiled)


def test_backend_auto_and_cuda_as_untiled(cli, tmp_path):
    """Tiles go through label_tile's Options: --backend cuda works tiled exactly when it works untiled."""
    image = random_colours(np.random.default_rng(6), 40, 30)
    src = tmp_path / "in.npy"
    np.save(src, image)
    for backend in ("auto", "cuda"):
        plain = run_cli(cli, src, "--backend", backend, "-o", tmp_path / "a.npy", expect_ok=False)
        tiled = run_cli(cli, src, "--backend", backend, "--tile", "8x8", "-o", tmp_path / "b.npy", expect_ok=False)
        assert plain.returncode == tiled.returncode, (plain.stderr, tiled.stderr)
        if plain.returncode == 0:
            assert_same(np.load(tmp_path / "b.npy"), np.load(tmp_path / "a.npy"), f"--backend {backend}")
            assert plain.stdout.split("ms (")[1].split(")")[0] in tiled.stdout  # same backend named
        else:
            assert tiled.stderr.count("\n") == 1 and "cclabel: error:" in tiled.stderr, tiled.stderr


def test_stats_preview_verify_with_tile(cli, tmp_path):
    image = random_colours(np.random.default_rng(8), 50, 45, colours=3, cell=2)
    src = tmp_path / "in.npy"
    np.save(src, image)
    run_cli(cli, src, "--stats", tmp_path / "a.csv", "--preview", tmp_path / "a.png")
    proc = run_cli(cli, src, "--tile", "6x11", "--verify", "--stats", tmp_path / "b.csv", "--preview", tmp_path / "b.png")
    assert "verified" in proc.stdout
    assert (tmp_path / "a.csv").read_text() == (tmp_path / "b.csv").read_text()
    assert (tmp_path / "a.png").read_bytes() == (tmp_path / "b.png").read_bytes()


def test_empty_image_with_tile(cli, tmp_path):
    for shape in [(0, 5), (5, 0)]:
        got, stdout = label(cli, tmp_path, np.zeros(shape, np.uint8), "--tile", "3x3")
        assert got.shape == shape and got.dtype == np.uint32
        assert " 0 regions" in stdout


# --- The wide path: more pixels than uint32 labels can number (lowered to test it on small pictures).

def wide_env(limit):
    return {**os.environ, "CCLABEL_TEST_UNTILED_LIMIT": str(limit)}


@pytest.mark.parametrize("conn", [4, 8])
@pytest.mark.parametrize("tile", [None, "1x37", "53x1", "7x5", "100x100"])
def test_wide_image_gets_uint64_labels(cli, tmp_path, conn, tile):
    image = random_colours(np.random.default_rng(conn), colours=3)
    want = cc3d_labels(pack(image), conn)
    got, stdout = label(cli, tmp_path, image, "-c", conn, *(["--tile", tile] if tile else []), env=wide_env(H * W - 1))
    assert got.dtype == np.dtype("<u8"), got.dtype
    assert_same(got, want.astype(np.uint64), f"wide, --tile {tile}")
    assert f"tiles {tile or '16384x16384'}, uint64 labels)" in stdout, stdout
    # At the limit itself the picture is not wide: uint32, untiled unless asked.
    got, stdout = label(cli, tmp_path, image, "-c", conn, *(["--tile", tile] if tile else []), env=wide_env(H * W))
    assert got.dtype == np.uint32 and "uint64 labels" not in stdout
    assert ("tiles" in stdout) == (tile is not None), stdout
    assert_same(got, want, f"at the limit, --tile {tile}")


def test_wide_image_as_64_bit_tiff(cli, tmp_path):
    image = random_colours(np.random.default_rng(2), colours=2)
    src, out = tmp_path / "in.npy", tmp_path / "out.tif"
    np.save(src, image)
    proc = subprocess.run([cli, "label", str(src), "-o", str(out), "--tile", "10x10"], capture_output=True, text=True,
                          env=wide_env(100))
    assert proc.returncode == 0, proc.stderr
    got = tifffile.imread(out)
    assert got.dtype == np.uint64
    assert_same(got, cc3d_labels(pack(image), 8).astype(np.uint64), "64-bit TIFF")


@pytest.mark.parametrize("args", [["--stats", "s.csv"], ["--preview", "p.png"], ["--min-size", 3], ["--largest", 2],
                                  ["--verify"], ["--threshold", 1], ["--kmeans", 2]])
def test_wide_image_refuses_uint32_only_options(cli, tmp_path, args):
    image = random_colours(np.random.default_rng(3))
    src, out = tmp_path / "in.npy", tmp_path / "out.npy"
    np.save(src, image)
    args = [str(tmp_path / a) if str(a).endswith((".csv", ".png")) else str(a) for a in args]
    proc = subprocess.run([cli, "label", str(src), "-o", str(out), *args], capture_output=True, text=True,
                          env=wide_env(1000))
    assert proc.returncode == 1
    assert proc.stderr.count("\n") == 1, proc.stderr
    assert f"{args[0]} needs an image of at most 1,000 pixels (this one has 1,961" in proc.stderr, proc.stderr
    assert not out.exists()


def test_stats_command_refuses_wide_image(cli, tmp_path):
    src = tmp_path / "in.npy"
    np.save(src, random_colours(np.random.default_rng(4)))
    proc = subprocess.run([cli, "stats", str(src)], capture_output=True, text=True, env=wide_env(1000))
    assert proc.returncode == 1 and proc.stdout == ""
    assert "statistics needs an image of at most 1,000 pixels" in proc.stderr and proc.stderr.count("\n") == 1


# --- Bad values.

@pytest.mark.parametrize("value, reason", [
    ("0x5", "the width must be at least 1"),
    ("5x0", "the height must be at least 1"),
    ("abc", "expected WxH"),
    ("10", "expected WxH"),
    ("-3x4", "the width '-3' is not a positive integer"),
    ("4x4x4", "the height '4x4' is not a positive integer"),
    ("x4", "the width is missing"),
    ("3000000000x1", "the width 3000000000 is more than 2147483647"),
])
def test_bad_tile_is_a_one_line_error(cli, tmp_path, value, reason):
    src = tmp_path / "in.npy"
    np.save(src, np.zeros((4, 4), np.uint8))
    proc = subprocess.run([cli, "label", str(src), f"--tile={value}", "-o", str(tmp_path / "o.npy")],
                          capture_output=True, text=True)
    assert proc.returncode != 0
    assert proc.stderr.startswith(f"cclabel: error: bad --tile '{value}': {reason}"), proc.stderr
    assert proc.stderr.count("\n") == 1, proc.stderr
    assert not (tmp_path / "o.npy").exists()


@pytest.mark.parametrize("shape, error", [
    ((65536, 65537), "truncated .npy file"),  # past 2^32 - 1 pixels: read (and tiled), were the data there
    ((1 << 21, 1 << 20), "pixels is more than cclabel reads (at most 1099511627776 pixels)"),
])
def test_reader_takes_pictures_over_uint32_limit(cli, tmp_path, shape, error):
    """The readers' limit is 2^40 pixels, not 2^32 - 1: a header alone shows which check refuses it."""
    src = tmp_path / "big.npy"
    with open(src, "wb") as f:
        np.lib.format.write_array_header_1_0(f, {"descr": "|u1", "fortran_order": False, "shape": shape})
        f.write(b"\0" * 64)
    proc = run_cli(cli, src, "-o", tmp_path / "o.npy", expect_ok=False)
    assert proc.returncode == 1 and error in proc.stderr and proc.stderr.count("\n") == 1, proc.stderr
