"""The cclabel CLI against real peers, value for value: cc3d's multilabel labeller, OpenCV's SAUF
(binary images) and scikit-image's measure.label, on seeded numpy images written as .npy and PNG.

Each test writes a batch of images, runs the CLI once over the batch (an -o folder receives
<stem>.npy for each input) and compares every label image with the peers, so one CLI start covers
many sizes. Sizes include 1x1, 1xN, Nx1 and widths around 32 and 64. The metamorphic properties
live in the C++ tests (tests/cpp/test_metamorphic.cpp) and are not repeated here.
"""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from conftest import (assert_same, cc3d_labels, cv2, load_labels, opencv_labels, pack, regions_reported, run_cli,
                      skimage_labels)

# (height, width)
SIZES = [(1, 1), (1, 70), (70, 1), (17, 31), (9, 32), (40, 33), (5, 63), (64, 64), (33, 65), (129, 127), (2, 2)]


# --- generators (all seeded) ----------------------------------------------------------------------

def unpack_rgb(values: np.ndarray) -> np.ndarray:
    v = values.astype(np.uint32)
    return np.stack([(v & 0xFF), (v >> 8) & 0xFF, (v >> 16) & 0xFF], axis=-1).astype(np.uint8)


def palette_image(rng: np.random.Generator, h: int, w: int, k: int, blob: int = 1,
                  include: int | None = None) -> np.ndarray:
    """RGB8 over k distinct colours; blob > 1 paints blob x blob cells so regions span several pixels."""
    colours = rng.choice(1 << 24, size=k, replace=False)
    if include is not None and include not in colours:
        colours[0] = include
    ch, cw = -(-h // blob), -(-w // blob)
    idx = rng.integers(0, k, size=(ch, cw))
    # Jitter the cell grid by one pixel so cell edges are not aligned with every row/column pair.
    idx = np.repeat(np.repeat(idx, blob, axis=0), blob, axis=1)
    oy, ox = (int(rng.integers(0, blob)), int(rng.integers(0, blob))) if blob > 1 else (0, 0)
    idx = np.pad(idx, ((0, oy), (0, ox)), mode="edge")[oy:oy + h, ox:ox + w]
    return unpack_rgb(colours[idx])


def distinct_image(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """Every pixel its own colour."""
    return unpack_rgb(rng.choice(1 << 24, size=h * w, replace=False).reshape(h, w))


def near_colour_image(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """Colours that differ by 1 in one channel (or only in the high byte): a lossy compare joins them."""
    colours = np.array([0x646464, 0x646465, 0x646564, 0x656464, 0x000000, 0x010000, 0x000001, 0xFFFFFF, 0xFEFFFF])
    return unpack_rgb(colours[rng.integers(0, colours.size, size=(h, w))])


def drawing_like(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """White paper with anti-aliased lines and rings: coverage-based greys and a few tinted strokes."""
    img = np.full((h, w, 3), 255, dtype=np.int32)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float64) + 0.5
    inks = [(0, 0, 0)] * 5 + [(214, 32, 38), (28, 72, 196)]
    n = max(2, (h * w) // 400)
    for i in range(n):
        ink = np.array(inks[int(rng.integers(0, len(inks)))], dtype=np.int32)
        hw = rng.uniform(0.2, 2.0)
        if i % 4 == 3:
            cx, cy, r = rng.uniform(0, w), rng.uniform(0, h), rng.uniform(2, max(3, min(h, w) / 3))
            d = np.abs(np.hypot(xx - cx, yy - cy) - r)
        else:
            x0, y0, x1, y1 = rng.uniform(0, w), rng.uniform(0, h), rng.uniform(0, w), rng.uniform(0, h)
            if i % 3 == 0:  # axis-aligned, like most lines of a drawing
                y1 = y0
            dx, dy = x1 - x0, y1 - y0
            t = np.clip(((xx - x0) * dx + (yy - y0) * dy) / max(dx * dx + dy * dy, 1e-9), 0, 1)
            d = np.hypot(x0 + t * dx - xx, y0 + t * dy - yy)
        a = np.rint(np.clip(hw + 0.5 - d, 0, 1) * 255).astype(np.int32)[..., None]
        img = (img * (255 - a) + ink * a + 127) // 255
    return img.astype(np.uint8)


def binary_mask(rng: np.random.Generator, h: int, w: int, density: float) -> np.ndarray:
    return rng.random((h, w)) < density


# --- running the CLI over a batch ------------------------------------------------------------------

def label_batch(cli: str, tmp: Path, images: dict[str, np.ndarray], *options: str) -> dict[str, np.ndarray]:
    """Writes each image as <name>.npy, labels them all in one CLI run, returns the labels by name."""
    src, out = tmp / "in", tmp / "out"
    src.mkdir(exist_ok=True)
    out.mkdir(exist_ok=True)
    paths = []
    for name, img in images.items():
        p = src / f"{name}.npy"
        np.save(p, img)
        paths.append(p)
    # With one input -o names the label file itself; with several, the folder.
    target = out / f"{next(iter(images))}.npy" if len(images) == 1 else out
    proc = run_cli(cli, *paths, "-o", target, *options)
    got = {name: load_labels(out / f"{name}.npy", img.shape[:2]) for name, img in images.items()}
    counts = regions_reported(proc.stdout)
    assert len(counts) == len(images), f"expected one line per input, got:\n{proc.stdout}"
    # One line per file, each naming its file: check every reported count against its labels.
    for line in proc.stdout.splitlines():
        for name in images:
            if Path(line.split(":")[0]).name == f"{name}.npy":
                assert regions_reported(line) == [int(got[name].max())], f"{name}: {line}"
    return got


def compare_colour(got: dict[str, np.ndarray], images: dict[str, np.ndarray], connectivity: int,
                   background: int | None = None) -> None:
    for name, img in images.items():
        packed = pack(img)
        assert_same(got[name], cc3d_labels(packed, connectivity, background), f"{name} conn={connectivity} vs cc3d")
        assert_same(got[name], skimage_labels(packed, connectivity, background), f"{name} conn={connectivity} vs skimage")


# --- colour images -----------------------------------------------------------------------------------

@pytest.mark.parametrize("connectivity", [4, 8])
@pytest.mark.parametrize("kind", ["2", "3", "16", "256", "distinct", "near", "blobs3", "blobs16"])
def test_rgb_npy_matches_cc3d_and_skimage(cli, tmp_path, kind, connectivity):
    rng = np.random.default_rng([ord(c) for c in kind])
    images = {}
    for h, w in SIZES:
        if kind == "distinct":
            img = distinct_image(rng, h, w)
        elif kind == "near":
            img = near_colour_image(rng, h, w)
        elif kind.startswith("blobs"):
            img = palette_image(rng, h, w, int(kind[5:]), blob=3)
        else:
            img = palette_image(rng, h, w, int(kind))
        images[f"{kind}_{h}x{w}"] = img
    got = label_batch(cli, tmp_path, images, "--connectivity", str(connectivity))
    compare_colour(got, images, connectivity)


@pytest.mark.parametrize("connectivity", [4, 8])
def test_rgba_npy_alpha_takes_part(cli, tmp_path, connectivity):
    rng = np.random.default_rng(4)
    images = {}
    for h, w in SIZES:
        rgb = near_colour_image(rng, h, w)
        alpha = np.array([0, 255, 254, 128], dtype=np.uint8)[rng.integers(0, 4, size=(h, w))]
        images[f"rgba_{h}x{w}"] = np.dstack([rgb, alpha])
    got = label_batch(cli, tmp_path, images, "--connectivity", str(connectivity))
    compare_colour(got, images, connectivity)


@pytest.mark.parametrize("connectivity", [4, 8])
def test_drawing_like_images(cli, tmp_path, connectivity):
    rng = np.random.default_rng(2026)
    images = {f"sheet_{h}x{w}": drawing_like(rng, h, w) for h, w in [(31, 33), (64, 65), (97, 120), (150, 63)]}
    assert all(np.unique(pack(img)).size > 20 for img in images.values()), "anti-aliasing should give many greys"
    got = label_batch(cli, tmp_path, images, "--connectivity", str(connectivity))
    compare_colour(got, images, connectivity)


@pytest.mark.parametrize("connectivity", [4, 8])
@pytest.mark.parametrize("spelling", ["#ffffff", "255,255,255"])
def test_background_colour(cli, tmp_path, connectivity, spelling):
    rng = np.random.default_rng(9)
    white = 0xFFFFFF
    images = {f"sheet_{h}x{w}": drawing_like(rng, h, w) for h, w in [(31, 33), (97, 120)]}
    images.update({f"pal_{h}x{w}": palette_image(rng, h, w, 3, blob=2, include=white) for h, w in SIZES})
    got = label_batch(cli, tmp_path, images, "--connectivity", str(connectivity), "--background", spelling)
    compare_colour(got, images, connectivity, background=white)
    # The background colour is labelled 0 and only it.
    for name, img in images.items():
        assert np.array_equal(got[name] == 0, pack(img) == white), name


def test_background_colour_not_in_image(cli, tmp_path):
    rng = np.random.default_rng(10)
    images = {"pal": palette_image(rng, 40, 33, 16)}
    colours = set(np.unique(pack(images["pal"])).tolist())
    absent = next(c for c in range(1 << 24) if c not in colours)
    bg = f"#{absent & 0xFF:02x}{(absent >> 8) & 0xFF:02x}{(absent >> 16) & 0xFF:02x}"
    got = label_batch(cli, tmp_path, images, "--background", bg)
    compare_colour(got, images, 8, background=absent)


# --- one-channel images --------------------------------------------------------------------------------

@pytest.mark.parametrize("connectivity", [4, 8])
@pytest.mark.parametrize("dtype,k", [("uint8", 2), ("uint8", 256), ("uint16", 16), ("uint16", 3000),
                                     ("uint32", 16), ("int32", 16)])
def test_gray_npy(cli, tmp_path, dtype, k, connectivity):
    rng = np.random.default_rng(k + len(dtype))
    info = np.iinfo(dtype)
    images = {}
    for h, w in SIZES:
        span = int(info.max) - int(info.min) + 1
        if span <= 1 << 16:
            values = rng.choice(span, size=k, replace=False).astype(np.int64) + int(info.min)
        else:
            values = np.unique(rng.integers(int(info.min), int(info.max), size=2 * k, endpoint=True))[:k]
        if dtype in ("uint16", "uint32"):
            values[0] = info.max  # the high byte alone distinguishes some values
        blob = 1 + (h * w) % 3
        img = values[rng.integers(0, k, size=(-(-h // blob), -(-w // blob)))]
        img = np.repeat(np.repeat(img, blob, 0), blob, 1)[:h, :w]
        images[f"{dtype}_{h}x{w}"] = np.ascontiguousarray(img.astype(dtype))
    got = label_batch(cli, tmp_path, images, "--connectivity", str(connectivity))
    for name, img in images.items():
        # int32 is read as its 32-bit pattern (U32): equal patterns are equal values either way.
        packed = img.view(np.uint32).astype(np.int64) if dtype == "int32" else img.astype(np.int64)
        assert_same(got[name], cc3d_labels(packed, connectivity), f"{name} conn={connectivity} vs cc3d")
        assert_same(got[name], skimage_labels(packed, connectivity), f"{name} conn={connectivity} vs skimage")


@pytest.mark.parametrize("connectivity", [4, 8])
def test_gray_background_integer(cli, tmp_path, connectivity):
    rng = np.random.default_rng(12)
    images = {f"g_{h}x{w}": rng.integers(5, 9, size=(h, w)).astype(np.uint8) for h, w in SIZES}
    got = label_batch(cli, tmp_path, images, "--connectivity", str(connectivity), "--background", "7")
    for name, img in images.items():
        packed = img.astype(np.int64)
        assert_same(got[name], cc3d_labels(packed, connectivity, 7), f"{name} vs cc3d")
        assert_same(got[name], skimage_labels(packed, connectivity, 7), f"{name} vs skimage")


# --- binary masks ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("connectivity", [4, 8])
@pytest.mark.parametrize("density", [0.1, 0.3, 0.5, 0.6, 0.7, 0.9])
def test_binary_masks_match_opencv_sauf(cli, tmp_path, density, connectivity):
    rng = np.random.default_rng(int(density * 100))
    images = {f"mask_{h}x{w}": binary_mask(rng, h, w, density) for h, w in SIZES + [(200, 257)]}
    got = label_batch(cli, tmp_path, images, "--connectivity", str(connectivity))
    for name, mask in images.items():
        assert_same(got[name], opencv_labels(mask, connectivity), f"{name} conn={connectivity} vs OpenCV SAUF")
        packed = mask.astype(np.int64)
        assert_same(got[name], cc3d_labels(packed, connectivity, background=0), f"{name} vs cc3d")
        assert_same(got[name], skimage_labels(packed, connectivity, background=0), f"{name} vs skimage")


# --- PNG inputs --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("connectivity", [4, 8])
def test_png_inputs(cli, tmp_path, connectivity):
    rng = np.random.default_rng(77)
    cases = {
        "gray8": palette_image(rng, 45, 65, 16, blob=2)[..., 0],
        "gray16": (rng.integers(0, 4, size=(33, 64)) * 0x0101 + 0xFE00).astype(np.uint16),
        "rgb": drawing_like(rng, 63, 97),
        "rgba": np.dstack([near_colour_image(rng, 31, 33),
                           np.array([255, 0, 128], np.uint8)[rng.integers(0, 3, size=(31, 33))]]),
        "mask": (binary_mask(rng, 64, 65, 0.55) * 255).astype(np.uint8),
    }
    for name, img in cases.items():
        path = tmp_path / f"{name}.png"
        # cv2 writes BGR(A): reorder so that the file holds the image's own channel order.
        to_write = img[..., [2, 1, 0]] if img.ndim == 3 and img.shape[2] == 3 else \
            img[..., [2, 1, 0, 3]] if img.ndim == 3 else img
        assert cv2.imwrite(str(path), np.ascontiguousarray(to_write))
        back = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
        assert np.array_equal(back, to_write), f"{name}: PNG round trip through OpenCV changed the pixels"
        out = tmp_path / f"{name}_labels.npy"
        run_cli(cli, path, "-o", out, "--connectivity", str(connectivity))
        got = load_labels(out, img.shape[:2])
        packed = pack(img)
        assert_same(got, cc3d_labels(packed, connectivity), f"{name}.png conn={connectivity} vs cc3d")
        assert_same(got, skimage_labels(packed, connectivity), f"{name}.png conn={connectivity} vs skimage")
        if name == "mask":
            # A gray PNG is Gray8 (0 is a colour), so compare with SAUF through the background option.
            out_bg = tmp_path / "mask_bg.npy"
            run_cli(cli, path, "-o", out_bg, "--connectivity", str(connectivity), "--background", "0")
            assert_same(load_labels(out_bg, img.shape), opencv_labels(img, connectivity), "mask.png vs OpenCV SAUF")


# --- outputs, threads, defaults ----------------------------------------------------------------------

def test_single_input_npy_and_tiff_outputs(cli, tmp_path):
    tifffile = pytest.importorskip("tifffile")
    rng = np.random.default_rng(5)
    img = palette_image(rng, 129, 127, 4, blob=2)
    np.save(tmp_path / "x.npy", img)
    run_cli(cli, tmp_path / "x.npy", "-o", tmp_path / "x_labels.npy")
    run_cli(cli, tmp_path / "x.npy", "-o", tmp_path / "x_labels.tif")
    want = cc3d_labels(pack(img), 8)
    assert_same(load_labels(tmp_path / "x_labels.npy", img.shape[:2]), want, "npy output vs cc3d")
    tif = tifffile.imread(tmp_path / "x_labels.tif")
    assert tif.dtype == np.uint32 and tif.shape == img.shape[:2], (tif.dtype, tif.shape)
    assert_same(tif, want, "tiff output vs cc3d")


def test_default_connectivity_is_8(cli, tmp_path):
    rng = np.random.default_rng(6)
    img = palette_image(rng, 40, 33, 2)
    np.save(tmp_path / "x.npy", img)
    run_cli(cli, tmp_path / "x.npy", "-o", tmp_path / "l.npy")
    assert_same(load_labels(tmp_path / "l.npy", img.shape[:2]), cc3d_labels(pack(img), 8), "default connectivity")


@pytest.mark.parametrize("threads", [1, 2, 3, 7])
def test_thread_counts_give_the_same_labels(cli, tmp_path, threads):
    rng = np.random.default_rng(8)
    images = {"blobs": palette_image(rng, 301, 257, 3, blob=2), "sheet": drawing_like(rng, 97, 131),
              "thin": palette_image(rng, 7, 300, 2)}
    got = label_batch(cli, tmp_path, images, "--threads", str(threads))
    compare_colour(got, images, 8)


# --- errors ------------------------------------------------------------------------------------------------

def test_corrupt_files_among_good_ones(cli, tmp_path):
    rng = np.random.default_rng(3)
    good = {"good_a": palette_image(rng, 33, 65, 16), "good_b": drawing_like(rng, 40, 31)}
    np.save(tmp_path / "good_a.npy", good["good_a"])
    assert cv2.imwrite(str(tmp_path / "good_b.png"), good["good_b"][..., ::-1].copy())
    (tmp_path / "garbage.png").write_bytes(b"this is not a picture\n" * 10)
    np.save(tmp_path / "whole.npy", good["good_a"])
    whole = (tmp_path / "whole.npy").read_bytes()
    (tmp_path / "truncated.npy").write_bytes(whole[: len(whole) // 2])
    png = (tmp_path / "good_b.png").read_bytes()
    (tmp_path / "cut.png").write_bytes(png[: len(png) * 2 // 3])
    (tmp_path / "whole.npy").unlink()

    out = tmp_path / "out"
    out.mkdir()
    inputs = ["good_a.npy", "garbage.png", "truncated.npy", "good_b.png", "cut.png"]
    proc = run_cli(cli, *[tmp_path / n for n in inputs], "-o", out, expect_ok=False)
    assert proc.returncode != 0, f"corrupt inputs must give a non-zero exit\n{proc.stdout}\n{proc.stderr}"

    text = proc.stdout + proc.stderr
    for bad in ("garbage.png", "truncated.npy", "cut.png"):
        lines = [l for l in text.splitlines() if bad in l]
        assert len(lines) == 1, f"expected one error line naming {bad}, got {lines}\n{text}"
        assert re.search(r"error|fail|corrupt|truncat|invalid|unrecogni", lines[0], re.I), lines[0]
        assert not (out / (Path(bad).stem + ".npy")).exists(), f"no labels may be written for {bad}"
    assert_same(load_labels(out / "good_a.npy", (33, 65)), cc3d_labels(pack(good["good_a"]), 8), "good_a.npy")
    assert_same(load_labels(out / "good_b.npy", (40, 31)), cc3d_labels(pack(good["good_b"]), 8), "good_b.png")


def test_missing_file_and_bad_options(cli, tmp_path):
    img = np.zeros((4, 5, 3), np.uint8)
    np.save(tmp_path / "x.npy", img)
    proc = run_cli(cli, tmp_path / "nope.npy", "-o", tmp_path / "l.npy", expect_ok=False)
    assert proc.returncode != 0 and "nope.npy" in proc.stdout + proc.stderr
    for bad in (["--connectivity", "6"], ["--background", "256,0,0"], ["--background", "#ff"],
                ["--background", "1,2"], ["--threads", "0"]):
        proc = run_cli(cli, tmp_path / "x.npy", "-o", tmp_path / "l.npy", *bad, expect_ok=False)
        assert proc.returncode != 0, f"{bad} should be rejected\n{proc.stdout}{proc.stderr}"
        assert (proc.stdout + proc.stderr).strip(), f"{bad}: rejected without a message"
