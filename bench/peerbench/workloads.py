"""The workloads: every picture of the run, generated here so that every method gets the same bytes.

  * the construction sheet of bench/drawing.hpp (bench/cclabel_gen) at 50..800 dpi, with the paper
    labelled and with the paper (white) as background, and the sheet's ink mask;
  * binary images like YACCLAB's: random noise, noise in 4×4 blocks, text-like and natural-like masks;
  * a batch of natural-like masks, each method called once per image in a loop.

The colour image is packed as (r | g << 8 | b << 16) + 1 for the peers that take one integer per
pixel, so that no colour is 0; with the paper as background its pixels are 0, every peer's background.
"""
from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .optional import optional

WHITE = (255, 255, 255)
PAPER_PACKED = 0xFFFFFF + 1
FULL_DPI = (50, 100, 200, 400, 600, 800)


@dataclass
class Workload:
    name: str
    kind: str                  # "colour", "binary" or "batch"
    group: str                 # "sheet", "sheet-bg", "noise", "text", "natural", "ink", "batch"
    image: object              # colour: uint8 (H, W, 3); binary: bool (H, W); batch: bool (B, H, W)
    path: Path | None = None   # the same picture as .npy, for the C++ tools (single images)
    background: tuple | None = None  # colour: WHITE when the paper is background
    dpi: int = 0
    colours: int = 0

    @property
    def pixels(self) -> int:
        shape = self.image.shape
        return int(np.prod(shape[:3] if self.kind == "batch" else shape[:2]))

    @property
    def mpx(self) -> float:
        return self.pixels / 1e6

    def images(self) -> list:
        return list(self.image) if self.kind == "batch" else [self.image]


_PACKED: dict = {}


def pack(rgb: np.ndarray, paper_background: bool) -> np.ndarray:
    """(H, W, 3) uint8 -> C-contiguous uint32 (r | g << 8 | b << 16) + 1; the paper 0 if background.

    The last result is kept: every packed-colour peer of a workload gets the same array (none of
    them writes to its input)."""
    key = (id(rgb), rgb.shape, paper_background)
    if key not in _PACKED:
        _PACKED.clear()
        _PACKED[key] = _pack(rgb, paper_background)
    return _PACKED[key]


def _pack(rgb: np.ndarray, paper_background: bool) -> np.ndarray:
    h, w = rgb.shape[:2]
    wide = np.zeros((h, w, 4), np.uint8)
    wide[..., :3] = rgb
    packed = wide.view("<u4").reshape(h, w).astype(np.uint32, copy=False)
    del wide
    packed += 1
    if paper_background:
        packed[packed == PAPER_PACKED] = 0
    return packed


def forget_packed() -> None:
    """Drops the kept packed array: a sheet's packing is not needed once its workloads have run."""
    _PACKED.clear()


def natural_mask(h: int, w: int, seed: int, scale: int = 16, level: float = 0.0) -> np.ndarray:
    """Smooth random blobs (noise at 1/scale, upsampled, thresholded): segmentation-like masks."""
    rng = np.random.default_rng(seed)
    small = rng.standard_normal((max(2, h // scale + 2), max(2, w // scale + 2))).astype(np.float32)
    cv2 = optional("cv2")
    if cv2 is not None:
        big = cv2.resize(small, (w + 2 * scale, h + 2 * scale), interpolation=cv2.INTER_CUBIC)[scale:scale + h, scale:scale + w]
    else:  # blocky without OpenCV, still regions of many sizes
        big = np.kron(small, np.ones((scale, scale), np.float32))[:h, :w]
    return np.ascontiguousarray(big > level)


def text_mask(h: int, w: int, seed: int) -> np.ndarray | None:
    """Random words in OpenCV's Hershey fonts at several sizes: a text-like page."""
    cv2 = optional("cv2")
    if cv2 is None:
        return None
    rng = np.random.default_rng(seed)
    img = np.zeros((h, w), np.uint8)
    letters = np.array(list("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"))
    y = 20
    while y < h - 5:
        scale = float(rng.choice([0.4, 0.6, 0.9, 1.3]))
        thick = int(rng.choice([1, 1, 2]))
        x = int(rng.integers(0, 20))
        while x < w - 20:
            word = "".join(rng.choice(letters, int(rng.integers(2, 10))))
            font = int(rng.choice([cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_COMPLEX]))
            cv2.putText(img, word, (x, y), font, scale, 1, thick, cv2.LINE_8)
            x += int(cv2.getTextSize(word, font, scale, thick)[0][0]) + int(rng.integers(6, 20))
        y += int(30 * scale) + int(rng.integers(4, 14))
    return img.astype(bool)


class Generator:
    """Writes workloads with bench/cclabel_gen (C++, the picture the other benchmarks use)."""

    def __init__(self, gen: Path, tmp: Path):
        self.gen, self.tmp = gen, tmp

    def run(self, args: list[str], name: str) -> tuple[Path, dict]:
        path = self.tmp / f"{name}.npy"
        out = subprocess.run([str(self.gen), *args, "-o", str(path)], check=True, capture_output=True, text=True).stdout
        return path, json.loads(out.strip().splitlines()[-1])

    def sheet(self, dpi: int) -> tuple[np.ndarray, Path, int]:
        path, info = self.run(["drawing", "--dpi", str(dpi), "--stats"], f"sheet{dpi}")
        return np.load(path), path, int(info.get("colours", 0))

    def noise(self, w: int, h: int, density: float, granularity: int, seed: int) -> tuple[np.ndarray, Path]:
        path, _ = self.run(["binary", "--width", str(w), "--height", str(h), "--density", str(density),
                            "--granularity", str(granularity), "--seed", str(seed)], f"noise{w}x{h}d{density}g{granularity}")
        return np.load(path), path

    def save(self, img: np.ndarray, name: str) -> Path:
        path = self.tmp / f"{name}.npy"
        np.save(path, img)
        return path


def schedule(gen: Generator, dpis: list[int], quick: bool, past_deadline, late: list[str]):
    """Every workload of the run, in the order they run.

    50 and 100 dpi first (OpenCV's per-colour cost comes from them), then the largest sheet (the
    GPU goals), the binary images and the batch, and the sheets in between last: a --deadline-s cuts
    the least important. Each picture is made only when its turn comes, and only while
    past_deadline() is false where making it is costly; what that skips is named in late. The
    caller drops each workload before asking for the next, so that two large sheets never share
    the memory."""
    yield from _sheets(gen, dpis[:2] + dpis[2:][-1:], dpis[-1], past_deadline, late)
    yield from _binaries(gen, quick, past_deadline, late)
    yield from _sheets(gen, sorted(dpis[2:-1], reverse=True), dpis[-1], past_deadline, late)


def _sheets(gen: Generator, some: list[int], largest: int, past_deadline, late: list[str]):
    """The sheets in both modes, then the ink mask (for the CuPy goal) at 100 dpi and the largest."""
    for dpi in some:
        if past_deadline():
            late.append(f"sheets at {dpi} dpi")
            continue
        rgb, path, colours = gen.sheet(dpi)
        for mode, bg, group in (("paper labelled", None, "sheet"), ("paper background", WHITE, "sheet-bg")):
            yield Workload(f"sheet {dpi} dpi, {mode}", "colour", group, rgb, path, bg, dpi, colours)
        if dpi in (100, largest):
            ink = np.ascontiguousarray((rgb != 255).any(axis=2))
            del rgb
            yield Workload(f"sheet ink mask {dpi} dpi", "binary", "ink", ink, gen.save(ink, f"ink{dpi}"))
            del ink
        else:
            del rgb
        path.unlink()
        forget_packed()


def _binaries(gen: Generator, quick: bool, past_deadline, late: list[str]):
    """YACCLAB-like binary images, then the batch."""
    side = 512 if quick else 2048
    for d in (0.1, 0.3, 0.5, 0.7, 0.9) if not quick else (0.1, 0.5, 0.9):
        img, path = gen.noise(side, side, d, 1, 1)
        yield Workload(f"noise {side}² density {d}", "binary", "noise", img, path)
    if not quick:
        img, path = gen.noise(4096, 4096, 0.5, 4, 2)
        yield Workload("noise 4096² density 0.5, 4×4 blocks", "binary", "noise", img, path)
        img, path = gen.noise(8192, 8192, 0.5, 1, 3)
        yield Workload("noise 8192² density 0.5", "binary", "noise", img, path)
    for n in ([512] if quick else [4096]):
        txt = text_mask(n, n, 7)
        if txt is not None:
            yield Workload(f"text {n}²", "binary", "text", txt, gen.save(txt, f"text{n}"))
    for n in ([512] if quick else [4096, 8192]):
        if past_deadline():
            late.append(f"natural {n}²")
            continue
        nat = natural_mask(n, n, 11, scale=16 if n <= 4096 else 32)
        yield Workload(f"natural {n}²", "binary", "natural", nat, gen.save(nat, f"natural{n}"))
        del nat
    count, bside = (8, 128) if quick else (64, 512)
    batch = np.stack([natural_mask(bside, bside, 100 + i, scale=8 + (i % 4) * 4, level=(i % 5 - 2) * 0.25)
                      for i in range(count)])
    yield Workload(f"batch {count} × {bside}²", "batch", "batch", batch)
