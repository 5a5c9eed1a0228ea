#!/usr/bin/env python3
"""cclabel side by side with every peer, in one run on one machine, with every answer checked.

Workloads (generated here, the same bytes for every method):
  * the construction sheet of bench/drawing.hpp (bench/cclabel_gen) at 50..800 dpi, with the paper
    labelled and with the paper (white) as background;
  * binary images like YACCLAB's: random noise at densities 0.1..0.9 (2048², and 8192²), noise in
    4×4 blocks, text-like (random words drawn with OpenCV), natural-like masks (smooth noise,
    thresholded; 4096², 8192²) and the sheet's ink mask;
  * a batch of 64 natural-like masks of 512×512, each method called once per image in a loop.

Methods (each called as its documentation calls it; a missing one is reported "not installed"):
  cclabel-cpu-1t   bench/cclabel_time --threads 1 (the Python package has no thread count)
  cclabel-cpu      cclabel.label(numpy image, backend="cpu"): all cores
  cclabel-cuda     cclabel.label(cupy image): picture and labels on the GPU
  cclabel-cuda-copies  cclabel.label(numpy image, backend="cuda"): copies in and out included
  cclabel-cuda-batch   batch workload only: one call on the (64, 512, 512) CuPy array
  cc3d             cc3d.connected_components(packed, connectivity=8); binary: the mask
  opencv-1t, opencv  cv2.connectedComponentsWithAlgorithm(mask, 8, CV_32S, CCL_SPAGHETTI), binary
                   only, on 1 thread and on all (cv2.setNumThreads)
  opencv-colour    colour: one binary call per distinct colour (packed == c, then the call), the
                   labels combined into one image; measured up to --opencv-colour-max-dpi, above
                   that estimated from the measured cost per colour per pixel (hollow markers)
  skimage          skimage.measure.label(packed or mask, connectivity=2)
  cupy             cupyx.scipy.ndimage.label(mask, structure=3×3 ones), binary only
  cucim            cucim.skimage.measure.label(packed or mask, connectivity=2)
  npp              nppiLabelMarkersUF_32u_C1R_Ctx via bench/cuda/npp_label (packed image or mask)
  colorcc          colorcc.label(torch uint8 [H, W, 3] on the GPU, conn=8, ignore=paper)

The colour image is packed as (r | g << 8 | b << 16) + 1, so that no colour is 0; with the paper as
background the paper's pixels are set to 0, every peer's background. Times: median of --reps calls
after one untimed call; GPU times are wall time between two device synchronisations with the
picture already on the GPU; a CPU call slower than --slow-s is timed once, without warm-up; calls
are repeated for at most --budget-s per measurement. Every answer is compared with cclabel's CPU
labels: same partition of the pixels (regions), identical numbers, and where wrong the number of
regions split and joined; the smallest failing input found by cropping is saved in --out.

Writes --out/peers.json, --out/peers.md, --out/peers.png (if matplotlib is there) and replaces the
section "## Peers side by side" of --results (default bench/RESULTS.md; --quick: only --out).

  python3 bench/peers.py [--quick] [--max-dpi 800] [--reps 5] [--out bench/out] [--methods a,b]
                         [--build build/peers] [--results bench/RESULTS.md]
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
SECTION = "## Peers side by side (bench/peers.py)"
WHITE = (255, 255, 255)
PAPER_PACKED = 0xFFFFFF + 1
FULL_DPI = (50, 100, 200, 400, 600, 800)
PROBE_COLOURS = 32
EIGHT = np.ones((3, 3), bool)  # SciPy's structuring element for 8-connectivity

# Goals of issue 4, checked in the same run.
GOAL_GPU_VS_EXACT = 3.0
GOAL_GPU_VS_CC3D_1CORE = 300.0
GOAL_CPU_1T_VS_CC3D = 1.5
GOAL_BINARY_VS_OPENCV = 1.2


def log(*a) -> None:
    print(*a, file=sys.stderr, flush=True)


def optional(module: str):
    """The module, or None with the reason kept in OPTIONAL_WHY."""
    try:
        return __import__(module, fromlist=["_"])
    except Exception as e:  # noqa: BLE001 - any import failure means "not installed" here
        OPTIONAL_WHY[module] = f"{type(e).__name__}: {e}".splitlines()[0][:160]
        return None


OPTIONAL_WHY: dict[str, str] = {}


def version_of(dist: str) -> str:
    try:
        from importlib.metadata import version
        return version(dist)
    except Exception:  # noqa: BLE001
        return "?"


# ------------------------------------------------------------------------------------------------
# Workloads


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


# ------------------------------------------------------------------------------------------------
# Timing


@dataclass
class Timed:
    ms: float
    samples: list
    labels: list               # host label images, one per image of the workload
    note: str = ""
    estimate: bool = False
    extra: dict = field(default_factory=dict)


def measure(fn, sync, reps: int, slow_s: float, budget_s: float, warm: bool):
    """Median ms of fn() between sync() calls; the last result. warm: always warm up first (GPU)."""
    sync()
    t0 = time.perf_counter()
    out = fn()
    sync()
    first = time.perf_counter() - t0
    if not warm and first > slow_s:
        return [first * 1e3], out, "1 call, no warm-up"
    samples = []
    spent = 0.0
    while len(samples) < reps and (not samples or spent < budget_s):
        sync()
        t0 = time.perf_counter()
        out = fn()
        sync()
        dt = time.perf_counter() - t0
        spent += dt
        samples.append(dt * 1e3)
    return samples, out, ("" if len(samples) == reps else f"{len(samples)} calls")


def nosync() -> None:
    pass


# ------------------------------------------------------------------------------------------------
# Methods


class Method:
    name = ""
    device = "cpu"
    kinds = ("colour", "binary", "batch")
    why_missing = ""

    def available(self) -> bool:
        return True

    # In-process methods: prepare (untimed) -> call (timed) -> host labels (untimed).
    def prepare(self, img, wl: Workload):
        raise NotImplementedError

    def call(self, state):
        raise NotImplementedError

    def host(self, out) -> np.ndarray:
        return np.asarray(out)

    def sync(self) -> None:
        pass

    def run(self, wl: Workload, cfg) -> Timed:
        states = [self.prepare(img, wl) for img in wl.images()]
        if len(states) == 1:
            fn = lambda: [self.call(states[0])]  # noqa: E731
        else:
            fn = lambda: [self.call(s) for s in states]  # noqa: E731
        samples, outs, note = measure(fn, self.sync, cfg.reps, cfg.slow_s, cfg.budget_s, warm=self.device == "gpu")
        labels = [self.host(o) for o in outs]
        return Timed(statistics.median(samples), samples, labels, note)

    # Used when shrinking a failing input: the labels of one image, once.
    def labels_of(self, img, wl: Workload) -> np.ndarray:
        out = self.call(self.prepare(img, wl))
        self.sync()
        return self.host(out)


def mask_u8(img: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(img).view(np.uint8)


class CclabelCpu(Method):
    name = "cclabel-cpu"

    def __init__(self, cfg):
        self.mod = optional("cclabel")
        self.why_missing = "" if self.mod else "not installed (" + OPTIONAL_WHY.get("cclabel", "") + ")"

    def available(self):
        return self.mod is not None

    def prepare(self, img, wl):
        return img, wl.background

    def call(self, state):
        img, bg = state
        return self.mod.label(img, connectivity=8, background=bg, backend="cpu")


class CclabelTime(Method):
    """cclabel's CPU backend on one thread, timed by the C++ tool: the Python package has no thread count."""
    name = "cclabel-cpu-1t"

    def __init__(self, cfg):
        self.tool = cfg.build / "bench" / "cclabel_time"
        self.tmp = cfg.tmp
        self.why_missing = "" if self.tool.exists() else f"not built ({self.tool})"

    def available(self):
        return self.tool.exists()

    def _one(self, path: Path, bg, repeat: int) -> tuple[dict, np.ndarray]:
        lab = self.tmp / "cclabel_time_labels.npy"
        cmd = [str(self.tool), str(path), "--threads", "1", "--repeat", str(repeat), "--connectivity", "8",
               "--labels", str(lab)]
        if bg is not None:
            cmd += ["--background", ",".join(map(str, bg))]
        out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
        res = json.loads(out.strip().splitlines()[-1])
        labels = np.load(lab)
        lab.unlink()
        return res, labels

    def run(self, wl, cfg):
        paths = [wl.path] if wl.kind != "batch" else [cfg.gen.save(m, f"batch{i}") for i, m in enumerate(wl.image)]
        repeat = 1 if wl.mpx > 100 else cfg.reps
        total, total_alloc, labels = 0.0, 0.0, []
        for p in paths:
            res, lab = self._one(p, wl.background, repeat)
            # median_ms: label(view, out, options) into a reused buffer, the labelling alone (the
            # Python package, like cc3d, writes into a new np.empty-like array: no zero-filling).
            # median_alloc_ms: label(view, options), which also allocates and zero-fills a label
            # image (std::vector), an extra pass that no Python peer makes; kept in the JSON.
            total += res["median_ms"]
            total_alloc += res["median_alloc_ms"]
            labels.append(lab)
        note = "C++ cclabel_time" + (", 1 warm-up + 1 call" if repeat == 1 else "")
        return Timed(total, [total], labels, note, extra={"with_zeroed_alloc_ms": total_alloc})

    def labels_of(self, img, wl):
        path = cfg_tmp_save(self.tmp, img)
        return self._one(path, wl.background, 1)[1]


def cfg_tmp_save(tmp: Path, img: np.ndarray) -> Path:
    path = tmp / "crop.npy"
    np.save(path, np.ascontiguousarray(img))
    return path


class Cc3d(Method):
    name = "cc3d"

    def __init__(self, cfg):
        self.mod = optional("cc3d")
        self.why_missing = "" if self.mod else "not installed"

    def available(self):
        return self.mod is not None

    def prepare(self, img, wl):
        # Masks as uint8: cc3d 4.1.1 labels some bool masks wrongly (see bool_finding).
        return pack(img, wl.background is not None) if wl.kind == "colour" else mask_u8(img)

    def call(self, state):
        return self.mod.connected_components(state, connectivity=8)

    def bool_finding(self, reference) -> str:
        """cc3d on small random bool masks and on the same masks as uint8, against the reference."""
        rng = np.random.default_rng(5)
        wrong_bool = wrong_u8 = 0
        trials = 300
        for _ in range(trials):
            m = rng.random((int(rng.integers(1, 60)), int(rng.integers(1, 60)))) < rng.random()
            ref = reference(m)
            wrong_bool += not compare(ref, self.mod.connected_components(m, connectivity=8))["same"]
            wrong_u8 += not compare(ref, self.mod.connected_components(mask_u8(m), connectivity=8))["same"]
        return (f"cc3d given bool masks: different regions on {wrong_bool} of {trials} random masks up to 59×59 "
                f"(given the same masks as uint8: {wrong_u8}); the binary rows above pass uint8.")


class OpenCvBinary(Method):
    kinds = ("binary", "batch")

    def __init__(self, cfg, threads: int):
        self.cv2 = optional("cv2")
        self.threads = threads
        self.name = "opencv-1t" if threads == 1 else "opencv"
        self.why_missing = "" if self.cv2 else "not installed"

    def available(self):
        return self.cv2 is not None

    def run(self, wl, cfg):
        before = self.cv2.getNumThreads()
        self.cv2.setNumThreads(self.threads)
        try:
            return super().run(wl, cfg)
        finally:
            self.cv2.setNumThreads(before)

    def prepare(self, img, wl):
        return mask_u8(img)

    def call(self, state):
        cv2 = self.cv2
        return cv2.connectedComponentsWithAlgorithm(state, 8, cv2.CV_32S, cv2.CCL_SPAGHETTI)[1]


class OpenCvPerColour(Method):
    """The way users label colour images with OpenCV today: one binary labelling per colour."""
    name = "opencv-colour"
    kinds = ("colour",)

    def __init__(self, cfg):
        self.cv2 = optional("cv2")
        self.why_missing = "" if self.cv2 else "not installed"
        self.cost = None   # measured ms per colour per megapixel, from the largest measured sheet
        self.cost_mpx = 0.0

    def available(self):
        return self.cv2 is not None

    def prepare(self, img, wl):
        return pack(img, wl.background is not None)

    def call(self, packed):
        return self._loop(packed, np.unique(packed))  # finding the colours is part of the job

    def _loop(self, packed, colours):
        cv2 = self.cv2
        out = np.zeros(packed.shape, np.int32)
        offset = 0
        for c in colours:
            if c == 0:  # the paper, as background
                continue
            mask = (packed == c).view(np.uint8)
            n, lab = cv2.connectedComponentsWithAlgorithm(mask, 8, cv2.CV_32S, cv2.CCL_SPAGHETTI)
            cv2.add(lab, int(offset), dst=out, mask=mask)  # this colour's pixels only, numbered on
            offset += n - 1
        return out

    def _estimate(self, colours: int, mpx: float, how: str) -> Timed:
        ms = self.cost * max(colours, 1) * mpx
        return Timed(ms, [], [], f"estimate ({how}): {self.cost * 1e3:.2f} µs per colour per Mpx × {colours} colours "
                     f"× {mpx:.1f} Mpx", estimate=True)

    def run(self, wl, cfg):
        colours = wl.colours - (1 if wl.background is not None else 0)
        if wl.dpi > cfg.opencv_colour_max_dpi:
            return self._estimate(colours, wl.mpx, f"from the {self.cost_mpx:.1f} Mpx sheet") if self.cost else None
        # A probe on the first colours gives the cost per colour (every colour costs whole-picture
        # passes); the full call runs only where it is predicted to fit --opencv-colour-max-s.
        packed = self.prepare(wl.image, wl)
        t0 = time.perf_counter()
        found = np.unique(packed)
        unique_ms = (time.perf_counter() - t0) * 1e3
        probe = found[found != 0][:PROBE_COLOURS]
        t0 = time.perf_counter()
        self._loop(packed, probe)
        per_colour = (time.perf_counter() - t0) * 1e3 / max(1, probe.size)
        if wl.mpx >= self.cost_mpx:
            self.cost, self.cost_mpx = per_colour / wl.mpx, wl.mpx
        if unique_ms + per_colour * colours > cfg.opencv_colour_max_s * 1e3:
            return self._estimate(colours, wl.mpx, f"{probe.size} of {colours} colours timed")
        t = super().run(wl, cfg)
        if wl.mpx >= self.cost_mpx:
            self.cost = t.ms / (max(colours, 1) * wl.mpx)
        t.note = (t.note + "; " if t.note else "") + f"{colours} colours"
        return t


class Skimage(Method):
    name = "skimage"

    def __init__(self, cfg):
        self.mod = optional("skimage.measure")
        self.why_missing = "" if self.mod else "not installed"

    def available(self):
        return self.mod is not None

    def prepare(self, img, wl):
        return pack(img, wl.background is not None) if wl.kind == "colour" else np.ascontiguousarray(img)

    def call(self, state):
        return self.mod.label(state, connectivity=2, background=0)


class GpuMethod(Method):
    device = "gpu"

    def __init__(self, cfg):
        self.cp = cfg.cupy
        self.why_missing = cfg.gpu_why

    def available(self):
        return self.cp is not None

    def sync(self):
        self.cp.cuda.Device().synchronize()

    def host(self, out):
        return self.cp.asnumpy(out)


class CclabelCuda(GpuMethod):
    name = "cclabel-cuda"

    def __init__(self, cfg):
        super().__init__(cfg)
        self.mod = optional("cclabel")
        if self.mod is None:
            self.why_missing = "not installed"
        elif self.cp is not None and not self.mod.built_with_cuda:
            self.why_missing = "cclabel built without CUDA"

    def available(self):
        return self.cp is not None and self.mod is not None and bool(self.mod.built_with_cuda)

    def prepare(self, img, wl):
        return self.cp.asarray(img), wl.background

    def call(self, state):
        img, bg = state
        return self.mod.label(img, connectivity=8, background=bg)


class CclabelCudaBatch(CclabelCuda):
    name = "cclabel-cuda-batch"
    kinds = ("batch",)

    def run(self, wl, cfg):
        state = self.prepare(wl.image, wl)
        samples, out, note = measure(lambda: self.call(state), self.sync, cfg.reps, cfg.slow_s, cfg.budget_s, True)
        return Timed(statistics.median(samples), samples, list(self.host(out)), "one call on (B, H, W)")


class CclabelCudaCopies(CclabelCuda):
    name = "cclabel-cuda-copies"
    kinds = ("colour", "binary")

    def prepare(self, img, wl):
        return np.ascontiguousarray(img), wl.background

    def call(self, state):
        img, bg = state
        return self.mod.label(img, connectivity=8, background=bg, backend="cuda")

    def host(self, out):
        return out


class CupyBinary(GpuMethod):
    name = "cupy"
    kinds = ("binary", "batch")

    def __init__(self, cfg):
        super().__init__(cfg)
        self.nd = optional("cupyx.scipy.ndimage") if self.cp is not None else None

    def available(self):
        return self.nd is not None

    def prepare(self, img, wl):
        return self.cp.asarray(img)

    def call(self, state):
        return self.nd.label(state, structure=EIGHT)[0]


class Cucim(GpuMethod):
    name = "cucim"

    def __init__(self, cfg):
        super().__init__(cfg)
        self.mod = optional("cucim.skimage.measure") if self.cp is not None else None
        if self.cp is not None and self.mod is None:
            self.why_missing = "not installed (" + OPTIONAL_WHY.get("cucim.skimage.measure", "") + ")"

    def available(self):
        return self.mod is not None

    def prepare(self, img, wl):
        host = pack(img, wl.background is not None) if wl.kind == "colour" else np.ascontiguousarray(img)
        return self.cp.asarray(host)

    def call(self, state):
        return self.mod.label(state, connectivity=2, background=0)


class Colorcc(GpuMethod):
    name = "colorcc"

    def __init__(self, cfg):
        super().__init__(cfg)
        self.torch = cfg.torch
        self.mod = optional("colorcc") if self.torch is not None else None
        if self.cp is not None and self.torch is None:
            self.why_missing = "PyTorch with CUDA not available"
        elif self.cp is not None and self.mod is None:
            self.why_missing = "not installed (" + OPTIONAL_WHY.get("colorcc", "") + ")"

    def available(self):
        return self.mod is not None and self.cp is not None

    def sync(self):
        self.torch.cuda.synchronize()

    def prepare(self, img, wl):
        if wl.kind == "colour":
            rgb, ignore = img, wl.background
        else:  # a mask as black/white RGB, black ignored: the user's way to label a mask with colorcc
            rgb, ignore = np.repeat(mask_u8(img)[..., None] * np.uint8(255), 3, axis=2), (0, 0, 0)
        return self.torch.from_numpy(np.ascontiguousarray(rgb)).to("cuda"), ignore

    def call(self, state):
        img, ignore = state
        return self.mod.label(img, conn=8, ignore=ignore)[0]

    def host(self, out):
        return out.cpu().numpy()


class Npp(Method):
    """NPP's union-find labeller through bench/cuda/npp_label (a C++ harness; NPP has no Python API)."""
    name = "npp"
    device = "gpu"

    def __init__(self, cfg):
        self.tool = cfg.npp
        self.tmp = cfg.tmp
        if cfg.cupy is None:
            self.why_missing = cfg.gpu_why
        elif not self.tool.exists():
            self.why_missing = f"not built ({self.tool}; needs CUDA::nppif)"

    def available(self):
        return not self.why_missing

    def _input(self, img, wl, index: int = 0) -> Path:
        data = pack(img, wl.background is not None) if wl.kind == "colour" else mask_u8(img)
        path = self.tmp / f"npp_in{index}.npy"
        np.save(path, np.ascontiguousarray(data))
        return path

    def _call(self, paths: list, runs: int, keep: int) -> tuple[list, list]:
        """One JSON result per picture (or one with "error"), and the kept runs' labels per picture."""
        prefix = self.tmp / "npp_labels"
        out = subprocess.run([str(self.tool), *map(str, paths), "--runs", str(runs), "--warmup", "1", "--connectivity",
                              "8", "--labels", str(prefix), "--keep", str(keep)], capture_output=True, text=True)
        results = [json.loads(line) for line in out.stdout.strip().splitlines() if line.startswith("{")]
        if out.returncode != 0 and not any("error" in r for r in results):
            results.append({"error": (out.stderr.strip() or f"exit status {out.returncode}").splitlines()[-1][:200]})
        kept = []
        for i in range(len(paths)):
            runs_i = []
            for r in range(keep):
                p = Path(f"{prefix}.{i}.{r}.npy")
                if p.exists():
                    runs_i.append(np.load(p))
                    p.unlink()
            kept.append(runs_i)
        return results, kept

    def run(self, wl, cfg):
        runs = max(3, cfg.reps)
        single = wl.kind != "batch"
        keep = (runs if wl.mpx <= 60 else 1) if single else 1
        paths = [self._input(img, wl, i) for i, img in enumerate(wl.images())]
        results, kept = self._call(paths, runs, keep)
        for p in paths:
            p.unlink()
        err = next((r["error"] for r in results if "error" in r), None)
        if err is not None or len(results) != len(paths):
            err = err or f"{len(results)} results for {len(paths)} pictures"
            return Timed(float("nan"), [], [], "error: " + err, extra={"error": err})
        total = sum(r["median_ms"] for r in results)
        differ = [max(r["pixels_differing_from_run0"]) for r in results]
        extra = {"runs": runs, "max_pixels_differing_between_runs": max(differ),
                 "images_with_run_to_run_differences": sum(d > 0 for d in differ),
                 "pixels_differing_from_run0_first_image": results[0]["pixels_differing_from_run0"],
                 "buffer_bytes": results[0]["buffer_bytes"], "kept_runs": kept[0][1:] if single else []}
        return Timed(total, [total], [k[0] for k in kept], "C++ npp_label, CUDA events", extra=extra)

    def labels_of(self, img, wl):
        results, kept = self._call([self._input(img, wl)], 3, 3)
        if not results or "error" in results[0]:
            raise RuntimeError(results[0]["error"] if results else "no result")
        return kept[0]  # several runs: the crop fails if any of them does


# ------------------------------------------------------------------------------------------------
# Checking


def compare(ref: np.ndarray, got: np.ndarray, peer_labels_background: bool = True, xp=None) -> dict:
    """Same partition of the pixels as ref (cclabel's labels, 0 = background)? Identical numbers?

    Where not: ref regions split (spread over several peer labels), peer labels joining several ref
    regions, pixels whose background/foreground status differs, and one wrong pixel (y, x).
    NPP labels every value (no background): there only ref's foreground pixels are compared.
    xp: numpy, or cupy to count the differences of a large picture on the GPU."""
    got = np.asarray(got)
    if got.shape != ref.shape:
        return {"identical": False, "same": False, "why": f"shape {got.shape} vs {ref.shape}"}
    if np.array_equal(ref, got):
        return {"identical": True, "same": True}
    xp = xp or np
    try:
        return _differences(xp.asarray(ref), xp.asarray(got), peer_labels_background, xp)
    finally:
        if xp is not np:
            xp.get_default_memory_pool().free_all_blocks()


def _differences(ref, got, peer_labels_background: bool, xp) -> dict:
    fg = ref != 0
    bad_pixel = None
    bg_diff = 0
    if peer_labels_background:
        diff = (got != 0) != fg
        bg_diff = int(xp.count_nonzero(diff))
        if bg_diff:
            bad_pixel = np.unravel_index(int(xp.argmax(diff)), ref.shape)
        del diff
    # Same partition: the map ref label -> peer label is a function, and so is its inverse. Each map
    # is built by scattering (any one pixel's value wins), then every pixel is checked against it.
    a = ref[fg].astype(xp.int64)
    b = got[fg].astype(xp.int64)
    if b.size and int(b.min()) < 0:
        b -= b.min()
    split = joined = 0
    if a.size:
        f = xp.zeros(int(a.max()) + 1, xp.int64)
        f[a] = b
        bad_a = f[a] != b
        del f
        split = int(xp.unique(a[bad_a]).size)
        bmax = int(b.max())
        if bmax < 8 * b.size + 1024:
            g = xp.zeros(bmax + 1, xp.int64)
            g[b] = a
            bad_b = g[b] != a
        else:  # sparse labels: compress them first
            _, inv = xp.unique(b, return_inverse=True)
            g = xp.zeros(int(inv.max()) + 1, xp.int64)
            g[inv] = a
            bad_b = g[inv] != a
        del g
        joined = int(xp.unique(b[bad_b]).size)
        wrong = bad_a | bad_b
        if bad_pixel is None and bool(wrong.any()):
            bad_pixel = np.unravel_index(int(xp.flatnonzero(fg)[int(xp.argmax(wrong))]), ref.shape)
    same = split == 0 and joined == 0 and bg_diff == 0
    res = {"identical": False, "same": same, "split": split, "joined": joined, "background_pixels_differ": bg_diff}
    if bad_pixel is not None:
        res["bad_pixel"] = [int(v) for v in bad_pixel]
    return res


def shrink(method: Method, reference, img: np.ndarray, wl: Workload, yx, peer_bg: bool, out_dir: Path,
           tag: str) -> dict | None:
    """Crops around a wrong pixel, smaller and smaller, while the method still fails; saves the smallest."""
    best = None
    y, x = yx
    size = min(8192, 1 << int(np.ceil(np.log2(max(img.shape[0], img.shape[1])))))
    tries = 0
    while size > 4 and tries < 14:
        size //= 2
        tries += 1
        y0, x0 = max(0, min(y - size // 2, img.shape[0] - size)), max(0, min(x - size // 2, img.shape[1] - size))
        crop = np.ascontiguousarray(img[y0:y0 + size, x0:x0 + size])
        try:
            got = method.labels_of(crop, wl)
        except Exception as e:  # noqa: BLE001 - a crop the peer cannot take ends the search
            log(f"    shrink {tag}: {size}: {e}")
            break
        ref = reference(crop, wl)
        results = [compare(ref, g, peer_bg) for g in (got if isinstance(got, list) else [got])]
        failing = [r for r in results if not r["same"]]
        if not failing:
            if size <= 64:
                break
            continue  # this window missed the fault; a smaller one around the same pixel may still hold it
        r = failing[0]
        best = {"shape": list(crop.shape), "origin": [int(y0), int(x0)], "split": r.get("split", 0),
                "joined": r.get("joined", 0), "failing_runs": f"{len(failing)} of {len(results)}"}
        np.save(out_dir / f"smallest_{tag}.npy", crop)
        best["file"] = f"smallest_{tag}.npy"
        if "bad_pixel" in r:
            y, x = y0 + r["bad_pixel"][0], x0 + r["bad_pixel"][1]
    return best


def self_test() -> None:
    """compare() against cases worked out by hand (run by --self-test; no peer needed)."""
    ref = np.array([[1, 1, 0, 2],
                    [0, 1, 0, 2],
                    [3, 0, 4, 4]], np.uint32)
    assert compare(ref, ref.copy()) == {"identical": True, "same": True}
    renumbered = np.array([[2, 2, 0, 1], [0, 2, 0, 1], [9, 0, 5, 5]], np.int32)
    r = compare(ref, renumbered)
    assert (r["identical"], r["same"], r["split"], r["joined"], r["background_pixels_differ"]) == (False, True, 0, 0, 0), r
    split = np.array([[1, 7, 0, 2], [0, 7, 0, 2], [3, 0, 4, 4]])     # region 1 in two pieces
    r = compare(ref, split)
    assert (r["same"], r["split"], r["joined"], r["bad_pixel"]) == (False, 1, 0, [0, 0]), r
    joined = np.array([[1, 1, 0, 2], [0, 1, 0, 2], [2, 0, 4, 4]])    # regions 2 and 3 as one
    r = compare(ref, joined)
    assert (r["same"], r["split"], r["joined"]) == (False, 0, 1), r
    both = np.array([[5, 6, 0, 5], [0, 6, 0, 5], [3, 0, 4, 4]])      # 1 split, and 5 joins 1 and 2
    r = compare(ref, both)
    assert (r["same"], r["split"], r["joined"]) == (False, 1, 1), r
    bg = ref.copy()
    bg[0, 2] = 8                                                     # a background pixel labelled
    r = compare(ref, bg)
    assert (r["same"], r["background_pixels_differ"], r["bad_pixel"]) == (False, 1, [0, 2]), r
    no_bg = np.where(ref == 0, 11, ref + 100)                        # NPP-like: background labelled too
    assert compare(ref, no_bg, peer_labels_background=False)["same"]
    assert not compare(ref, no_bg)["same"]
    sparse = np.where(ref == 0, 0, ref.astype(np.int64) * 10**9)     # labels far apart: the compressing path
    assert compare(ref, sparse)["same"]
    assert not compare(ref, np.where(ref == 4, 10**9, sparse))["same"]
    assert not compare(ref, ref[:2])["same"]
    rgb = np.zeros((2, 2, 3), np.uint8)
    rgb[0, 0] = (255, 255, 255)
    rgb[1, 1] = (1, 2, 3)
    assert pack(rgb, False).tolist() == [[0xFFFFFF + 1, 1], [1, 0x030201 + 1]]
    assert pack(rgb, True).tolist() == [[0, 1], [1, 0x030201 + 1]]
    print("self-test passed")


# ------------------------------------------------------------------------------------------------
# Report


def fmt_ms(ms: float) -> str:
    if ms != ms:  # nan
        return "–"
    return f"{ms:.0f}" if ms >= 100 else f"{ms:.1f}" if ms >= 10 else f"{ms:.2f}" if ms >= 1 else f"{ms:.3f}"


def mark(row: dict) -> str:
    c = row.get("check")
    if row.get("estimate"):
        return "est."
    if c is None:
        return ""
    if c.get("reference"):
        return "ref"
    return "=" if c["identical"] else "≈" if c["same"] else "✗"


def machine() -> str:
    model = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{model or platform.processor()}, {os.cpu_count()} logical CPUs, Linux {platform.release()}"


def git_head() -> str:
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, check=True, capture_output=True,
                              text=True).stdout.strip()
        dirty = subprocess.run(["git", "diff", "--quiet", "HEAD"], cwd=REPO).returncode != 0
        return head + ("+dirty" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def goals(rows: list[dict], max_dpi: int) -> list[str]:
    """The goals of issue 4 as sentences with the figures of this run."""
    by = {(r["workload"], r["method"]): r for r in rows if r.get("ms") == r.get("ms") and not r.get("estimate")}
    out = []

    def t(wl, m):
        r = by.get((wl, m))
        return r["ms"] if r else None

    for mode in ("paper labelled", "paper background"):
        wl = f"sheet {max_dpi} dpi, {mode}"
        mine = t(wl, "cclabel-cuda")
        if mine is None:
            out.append(f"- {wl}: cclabel-cuda not measured; GPU goals not checked.")
            continue
        exact = {m: t(wl, m) for m in ("colorcc", "cucim", "npp") if t(wl, m) is not None}
        if exact:
            best = min(exact, key=exact.get)
            ratio = exact[best] / mine
            ok = "met" if ratio >= GOAL_GPU_VS_EXACT else "**missed**"
            out.append(f"- {wl}, GPU: cclabel {fmt_ms(mine)} ms vs fastest exact-colour peer {best} "
                       f"{fmt_ms(exact[best])} ms = {ratio:.2f}× (goal ≥ {GOAL_GPU_VS_EXACT:g}×: {ok}).")
        else:
            out.append(f"- {wl}, GPU: no exact-colour peer measured (colorcc, cucim, npp).")
        cc = t(wl, "cc3d")
        if cc is not None:
            ratio = cc / mine
            ok = "met" if ratio >= GOAL_GPU_VS_CC3D_1CORE else "**missed**"
            out.append(f"- {wl}: cclabel GPU vs cc3d on one core: {fmt_ms(cc)} / {fmt_ms(mine)} ms = {ratio:.0f}× "
                       f"(goal ≥ {GOAL_GPU_VS_CC3D_1CORE:g}×: {ok}).")
    ink = f"sheet ink mask {max_dpi} dpi"
    cp, mine_ink = t(ink, "cupy"), t(ink, "cclabel-cuda")
    mine_sheet = t(f"sheet {max_dpi} dpi, paper background", "cclabel-cuda")
    if cp is not None and mine_sheet is not None:
        ok = "met" if mine_sheet < cp else "**missed**"
        extra = f"; cclabel on the mask itself {fmt_ms(mine_ink)} ms" if mine_ink is not None else ""
        out.append(f"- CuPy's binary labeller on the {max_dpi} dpi ink mask {fmt_ms(cp)} ms vs cclabel on the colour "
                   f"sheet (paper background) {fmt_ms(mine_sheet)} ms = {cp / mine_sheet:.2f}× (goal: faster: {ok}){extra}.")
    else:
        out.append("- CuPy on the ink mask vs cclabel on the sheet: not measured.")

    cc3d_rows = [r for r in rows if r["method"] == "cc3d" and r.get("check")]
    differ = [r["workload"] for r in cc3d_rows if not r["check"].get("identical")]
    if cc3d_rows:
        out.append(f"- cclabel's labels equal cc3d's on {len(cc3d_rows) - len(differ)} of {len(cc3d_rows)} workloads"
                   + (": **not** on " + ", ".join(differ) + " (see the table: ≈ means the same regions, numbered "
                      "differently)" if differ else " (goal: all: met)") + ".")

    ratios = []
    for r in rows:
        if r["method"] == "cc3d" and r["kind"] == "colour" and not r.get("estimate"):
            one = t(r["workload"], "cclabel-cpu-1t")
            if one:
                ratios.append((r["ms"] / one, r["workload"]))
    if ratios:
        missed = [f"{w} ({x:.2f}×)" for x, w in ratios if x < GOAL_CPU_1T_VS_CC3D]
        out.append(f"- CPU, 1 thread vs cc3d (colour): {min(ratios)[0]:.2f}× to {max(ratios)[0]:.2f}× (goal ≥ "
                   f"{GOAL_CPU_1T_VS_CC3D:g}×: " + ("met on every sheet" if not missed else "**missed** on " + ", ".join(missed)) + ").")
    for mine_m, cv_m, label in (("cclabel-cpu-1t", "opencv-1t", "1 thread"), ("cclabel-cpu", "opencv", "all cores")):
        rs = []
        for r in rows:
            if r["method"] == cv_m and r["kind"] in ("binary", "batch"):
                m = t(r["workload"], mine_m)
                if m:
                    rs.append((m / r["ms"], r["workload"]))
        if rs:
            missed = [f"{w} ({x:.2f}×)" for x, w in rs if x > GOAL_BINARY_VS_OPENCV]
            out.append(f"- Binary, {label}: cclabel time / OpenCV Spaghetti time {min(rs)[0]:.2f} to {max(rs)[0]:.2f} "
                       f"(goal ≤ {GOAL_BINARY_VS_OPENCV:g}: " + ("met everywhere" if not missed else "**missed** on " + ", ".join(missed)) + ").")
    return out


def report(rows, methods, missing, cfg, args, env, seconds, findings=()) -> str:
    names = [m.name for m in methods if m.available()]
    rank = {"sheet": 0, "sheet-bg": 0, "ink": 1, "noise": 2, "text": 3, "natural": 4, "batch": 5}
    first = {}
    for r in rows:
        first.setdefault(r["workload"], (rank.get(r["group"], 9), r["mpx"], r["group"]))
    workloads = sorted(first, key=lambda w: first[w])
    info = {w: next(r for r in rows if r["workload"] == w) for w in workloads}
    lines = [SECTION, ""]
    lines.append(f"- Date: {datetime.date.today().isoformat()}; source: `{git_head()}`; run took {seconds:.0f} s")
    lines.append(f"- Machine: {machine()}; load average {env['load'][0]:.2f} at the start, {os.getloadavg()[0]:.2f} at the "
                 f"end (other jobs on the machine disturb the CPU figures); GPU: {env['gpu']}")
    lines.append("- Versions: " + ", ".join(f"{k} {v}" for k, v in env["versions"].items()))
    lines.append(f"- Command: `python3 bench/peers.py {shlex.join(sys.argv[1:])}`")
    lines.append(f"- Times: median of up to {cfg.reps} calls after one untimed call (GPU: always warmed up; a CPU call "
                 f"over {cfg.slow_s:g} s is timed once; repeats capped at {cfg.budget_s:g} s per measurement). GPU: "
                 "wall time between device synchronisations, picture already on the GPU (cclabel-cuda-copies: "
                 "NumPy in, NumPy out). Batch rows: the total of one call per image in a loop (cclabel-cuda-batch: "
                 "one call on the whole batch). cclabel-cpu-1t: C++ `cclabel_time --threads 1`, the label call into a "
                 "reused buffer (the Python package has no thread count; its figure with a freshly allocated and "
                 "zero-filled label image is `with_zeroed_alloc_ms` in peers.json); the others in-process from Python.")
    lines.append("- Checks against cclabel's CPU labels: `=` identical numbers, `≈` same regions numbered "
                 "differently, `✗` different regions (details below), `est.` estimated, not run, `ref` the reference.")
    if missing:
        lines.append("- Not run: " + "; ".join(f"{k}: {v}" for k, v in missing.items()))
    lines += ["", "| workload | Mpx | " + " | ".join(names) + " |", "|---|---:|" + "---:|" * len(names)]
    by = {(r["workload"], r["method"]): r for r in rows}
    for w in workloads:
        cells = []
        for n in names:
            r = by.get((w, n))
            if r is None:
                cells.append("")
            elif r.get("skipped"):
                cells.append("skipped")
            elif r.get("error"):
                cells.append("error")
            else:
                m = mark(r)
                cells.append(f"{fmt_ms(r['ms'])}{' ' + m if m else ''}")
        lines.append(f"| {w} | {info[w]['mpx']:.1f} | " + " | ".join(cells) + " |")
    lines += ["", "Times in ms.", "", "### Goals (issue 4), this run", ""]
    lines += goals(rows, cfg.max_dpi_run)
    lines += ["", "### Where a peer's answer differs", ""]
    wrong = [r for r in rows if r.get("check") and not r["check"].get("same")]
    renumbered = sorted({r["method"] for r in rows if r.get("check") and r["check"].get("same")
                         and not r["check"].get("identical") and not r["check"].get("reference")})
    if renumbered:
        lines.append("- Same regions, other numbers: " + ", ".join(renumbered) + ".")
    if not wrong:
        lines.append("- Every checked answer has the same regions as cclabel's.")
    lines += [f"- {f}" for f in findings]
    for r in wrong:
        c = r["check"]
        s = (f"- {r['method']} on {r['workload']}: {c.get('split', 0)} regions split, {c.get('joined', 0)} labels "
             f"joining regions, {c.get('background_pixels_differ', 0)} pixels background/foreground differ")
        if c.get("why"):
            s += f" ({c['why']})"
        if c.get("failing_runs"):
            s += f"; wrong in {c['failing_runs']} runs"
        if r.get("smallest"):
            sm = r["smallest"]
            s += (f"; smallest failing crop found: {sm['shape'][0]}×{sm['shape'][1]} at {sm['origin']} "
                  f"(`{sm['file']}` in the output folder, failing in {sm['failing_runs']} runs)")
        lines.append(s + ".")
    skipped = sorted({f"{r['method']} ({r['skipped']})" for r in rows if r.get("skipped")})
    if skipped:
        lines.append("- Skipped to keep the run short: " + ", ".join(skipped) + ".")
    errs = [r for r in rows if r.get("error")]
    for r in errs:
        lines.append(f"- {r['method']} on {r['workload']}: {r['error']}.")
    # An NPP call that failed (e.g. its buffer size overflowing int at 806 Mpx) has no run-to-run record.
    npp_rows = [r for r in rows if r["method"] == "npp" and r.get("extra") and "runs" in r["extra"]]
    if npp_rows:
        lines += ["", "### NPP from run to run", ""]
        for r in npp_rows:
            e = r["extra"]
            runs_note = ", ".join(
                f"run {i + 1}: {'same regions' if c['same'] else 'regions differ'}" for i, c in enumerate(e.get("kept_checks", [])))
            lines.append(f"- {r['workload']}: {e['runs']} runs; pixels whose label differs from run 0's: "
                         f"{e.get('pixels_differing_from_run0_first_image')}"
                         + (f" ({e['images_with_run_to_run_differences']} images of the batch vary)" if r['kind'] == 'batch' else "")
                         + (f"; {runs_note}" if runs_note else "") + ".")
    lines.append("")
    return "\n".join(lines)


def update_results(path: Path, section: str) -> None:
    """Replaces this script's section (up to the next '## ' heading) or appends it; a hand-written
    '### Analysis' subsection at its end is kept."""
    text = path.read_text() if path.exists() else "# Benchmark results\n"
    pattern = re.compile(r"^" + re.escape(SECTION) + r"\n.*?(?=^## |\Z)", re.S | re.M)
    m = pattern.search(text)
    if m:
        old = m.group(0)
        keep = old[old.index("### Analysis"):].rstrip("\n") + "\n" if "### Analysis" in old else ""
        new = section.rstrip("\n") + ("\n\n" + keep if keep else "")
        text = text[:m.start()] + new.rstrip("\n") + "\n\n" + text[m.end():].lstrip("\n")
    else:
        text = text.rstrip("\n") + "\n\n" + section
    path.write_text(text.rstrip("\n") + "\n")


def plot(rows, path: Path) -> str:
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except Exception as e:  # noqa: BLE001
        return f"no plot: matplotlib not available ({type(e).__name__})"
    from matplotlib.ticker import ScalarFormatter
    fig, axes = plt.subplots(1, 2, figsize=(13, 5.5), sharey=True)
    palette = {m: f"C{i % 10}" for i, m in enumerate(dict.fromkeys(r["method"] for r in rows))}
    for ax, group, title in ((axes[0], "sheet", "sheet, paper labelled"), (axes[1], "sheet-bg", "sheet, paper as background")):
        methods = list(dict.fromkeys(r["method"] for r in rows if r["group"] == group))
        for m in methods:
            pts = sorted((r["mpx"], r["ms"], r.get("estimate", False)) for r in rows
                         if r["group"] == group and r["method"] == m and r["ms"] == r["ms"])
            if not pts:
                continue
            colour = palette[m]
            ax.plot([p[0] for p in pts], [p[1] for p in pts], "-", color=colour, label=m, lw=1.2)
            for x, y, est in pts:
                ax.plot([x], [y], "o", color=colour, mfc="none" if est else colour, ms=6)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.xaxis.set_major_formatter(ScalarFormatter())
        ax.set_xlabel("megapixels")
        ax.set_title(title)
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel("ms (median); hollow: estimated")
    axes[1].legend(fontsize=8, loc="upper left")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return f"plot: {path}"


# ------------------------------------------------------------------------------------------------
# Main


@dataclass
class Config:
    reps: int
    slow_s: float
    budget_s: float
    build: Path
    tmp: Path
    opencv_colour_max_dpi: int
    opencv_colour_max_s: float
    max_dpi_run: int
    npp: Path = Path("npp_label")
    gen: Generator | None = None
    cupy: object = None
    torch: object = None
    gpu_why: str = "no CUDA GPU"


def release_gpu_memory(cfg: Config) -> None:
    """Hands the pools' cached blocks back, so one method's leftovers do not crowd the next."""
    if cfg.cupy is not None:
        cfg.cupy.get_default_memory_pool().free_all_blocks()
    if cfg.torch is not None:
        cfg.torch.cuda.empty_cache()


def detect_gpu(cfg: Config) -> str:
    cp = optional("cupy")
    if cp is None:
        cfg.gpu_why = "no GPU: CuPy not installed"
        return "none"
    try:
        n = cp.cuda.runtime.getDeviceCount()
    except Exception as e:  # noqa: BLE001
        n, why = 0, str(e).splitlines()[0][:100]
    else:
        why = "no CUDA device"
    if n == 0:
        cfg.gpu_why = f"no GPU ({why})"
        return "none"
    cfg.cupy = cp
    torch = optional("torch")
    if torch is not None and torch.cuda.is_available():
        cfg.torch = torch
    props = cp.cuda.runtime.getDeviceProperties(0)
    name = props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"])
    return f"{name}, {props['totalGlobalMem'] / 2**30:.0f} GiB, CUDA runtime {cp.cuda.runtime.runtimeGetVersion()}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="small sizes only (a smoke run); writes only --out")
    ap.add_argument("--max-dpi", type=int, default=800, help="largest sheet (dpi of 50, 100, 200, 400, 600, 800)")
    ap.add_argument("--reps", type=int, default=0, help="timed calls per measurement (default 5, --quick 3)")
    ap.add_argument("--out", default="bench/out", help="folder for peers.json/.md/.png and failing inputs")
    ap.add_argument("--methods", default="", help="comma-separated method names to run (default: all)")
    ap.add_argument("--build", default="", help="CMake build folder with bench/cclabel_gen (default: build/peers, "
                    "then build-bench)")
    ap.add_argument("--npp", default="", help="the NPP harness (default: BUILD/bench/cuda/npp_label)")
    ap.add_argument("--results", default="", help="RESULTS.md to update (default bench/RESULTS.md; none with --quick)")
    ap.add_argument("--opencv-colour-max-dpi", type=int, default=100, help="measure OpenCV per colour up to this dpi")
    ap.add_argument("--opencv-colour-max-s", type=float, default=25.0,
                    help="estimate OpenCV per colour instead where one call is predicted to take longer")
    ap.add_argument("--deadline-s", type=float, default=0.0,
                    help="skip the workloads still to come after this many seconds (0: none); the report is still written")
    ap.add_argument("--slow-s", type=float, default=3.0, help="a CPU call slower than this is timed once")
    ap.add_argument("--budget-s", type=float, default=6.0, help="time cap for the repeats of one measurement")
    ap.add_argument("--skimage-max-mpx", type=float, default=250.0, help="skip scikit-image above this size")
    ap.add_argument("--self-test", action="store_true", help="check the answer checker on hand-made cases and exit")
    args = ap.parse_args()
    if args.self_test:
        self_test()
        return 0

    out_dir = Path(args.out).resolve()
    out_dir.mkdir(parents=True, exist_ok=True)
    candidates = [Path(args.build)] if args.build else [REPO / "build" / "peers", REPO / "build-bench"]
    build = next((b.resolve() for b in candidates if (b / "bench" / "cclabel_gen").exists()), None)
    if build is None:
        sys.exit("bench/cclabel_gen not found in " + ", ".join(map(str, candidates)) +
                 ": cmake -S . -B build/peers -DCMAKE_BUILD_TYPE=Release && cmake --build build/peers --target cclabel_gen cclabel_time")

    reps = args.reps or (3 if args.quick else 5)
    dpis = [15] if args.quick else [d for d in FULL_DPI if d <= args.max_dpi]
    if not dpis:
        sys.exit("--max-dpi below 50: no sheet to run")
    t_start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="cclabel_peers_") as tmpname:
        tmp = Path(tmpname)
        cfg = Config(reps, args.slow_s, args.budget_s, build, tmp, args.opencv_colour_max_dpi,
                     args.opencv_colour_max_s, dpis[-1])
        cfg.gen = Generator(build / "bench" / "cclabel_gen", tmp)
        cfg.npp = Path(args.npp).resolve() if args.npp else build / "bench" / "cuda" / "npp_label"
        gpu = detect_gpu(cfg)
        log(f"build: {build}; GPU: {gpu if gpu != 'none' else cfg.gpu_why}")

        all_methods = [CclabelTime(cfg), CclabelCpu(cfg), CclabelCuda(cfg), CclabelCudaCopies(cfg),
                       CclabelCudaBatch(cfg), Cc3d(cfg), OpenCvBinary(cfg, 1), OpenCvBinary(cfg, os.cpu_count() or 1),
                       OpenCvPerColour(cfg), Skimage(cfg), CupyBinary(cfg), Cucim(cfg), Npp(cfg), Colorcc(cfg)]
        wanted = {m.strip() for m in args.methods.split(",") if m.strip()}
        unknown = wanted - {m.name for m in all_methods}
        if unknown:
            sys.exit("unknown method(s): " + ", ".join(sorted(unknown)) + "; known: " + ", ".join(m.name for m in all_methods))
        methods = [m for m in all_methods if not wanted or m.name in wanted]
        missing = {m.name: (m.why_missing or "not available") for m in methods if not m.available()}
        for k, v in missing.items():
            log(f"{k}: {v}")

        ref_method = next((m for m in all_methods if m.name == "cclabel-cpu" and m.available()), None)
        if ref_method is None:
            ref_method = next((m for m in all_methods if m.name == "cclabel-cpu-1t" and m.available()), None)
        if ref_method is None:
            sys.exit("no reference: neither the cclabel Python package nor bench/cclabel_time is available")
        reference = ref_method.labels_of

        env = {"load": os.getloadavg(), "gpu": gpu if gpu != "none" else cfg.gpu_why, "versions": {"Python": platform.python_version(),
                                                                          "numpy": np.__version__}}
        for dist, mod in (("cclabel", "cclabel"), ("connected-components-3d", "cc3d"), ("opencv", "cv2"),
                          ("scikit-image", "skimage"), ("cupy", "cupy"), ("cucim", "cucim"), ("torch", "torch"),
                          ("colorcc", "colorcc")):
            if mod in sys.modules:
                v = getattr(sys.modules[mod], "__version__", None) or version_of(dist)
                env["versions"][dist] = str(v)

        rows: list[dict] = []
        findings: list[str] = []

        def save(section: str) -> None:
            (out_dir / "peers.md").write_text(section)
            (out_dir / "peers.json").write_text(json.dumps({"env": env, "missing": missing, "findings": findings,
                                                            "rows": rows}, indent=1, default=str))
        cc3d_method = next((m for m in methods if m.name == "cc3d" and m.available()), None)
        if cc3d_method is not None:
            plain = Workload("check", "binary", "check", np.zeros((1, 1), bool))
            findings.append(cc3d_method.bool_finding(lambda m: reference(m, plain)))
            log(findings[-1])

        late: list[str] = []
        shrunk: set[str] = set()

        def run_all(wl: Workload) -> None:
            if args.deadline_s and time.perf_counter() - t_start > args.deadline_s:
                late.append(wl.name)
                log(f"{wl.name}: skipped, past --deadline-s {args.deadline_s:g}")
                return
            log(f"{wl.name} ({wl.mpx:.1f} Mpx)")
            refs = [reference(img, wl) for img in wl.images()]
            for m in methods:
                if not m.available() or wl.kind not in m.kinds:
                    continue
                row = {"workload": wl.name, "group": wl.group, "kind": wl.kind, "mpx": wl.mpx, "method": m.name}
                if m.name == "skimage" and wl.mpx > args.skimage_max_mpx:
                    rows.append(dict(row, ms=float("nan"), skipped=f"above --skimage-max-mpx {args.skimage_max_mpx:g}"))
                    continue
                try:
                    t = m.run(wl, cfg)
                except Exception as e:  # noqa: BLE001 - one peer's failure is a finding, not the end of the run
                    row.update(ms=float("nan"), error=f"{type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}")
                    rows.append(row)
                    log(f"  {m.name}: {row['error']}")
                    continue
                if t is None:
                    continue
                row.update(ms=t.ms, samples=t.samples, note=t.note, estimate=t.estimate)
                if t.extra:
                    row["extra"] = {k: v for k, v in t.extra.items() if k != "kept_runs"}
                    if t.extra.get("error"):
                        row["error"] = t.extra["error"]
                if t.labels:
                    peer_bg = m.name != "npp"
                    xp = cfg.cupy if cfg.cupy is not None and wl.pixels > 20_000_000 and wl.kind != "batch" else None
                    checks = [compare(r, g, peer_bg, xp) for r, g in zip(refs, t.labels)]
                    bad = next((i for i, c in enumerate(checks) if not c["same"]), None)
                    c = checks[bad] if bad is not None else checks[0]
                    if len(checks) > 1:  # batch: one verdict over all images
                        c = dict(c, identical=all(x["identical"] for x in checks), same=all(x["same"] for x in checks),
                                 split=sum(x.get("split", 0) for x in checks), joined=sum(x.get("joined", 0) for x in checks),
                                 background_pixels_differ=sum(x.get("background_pixels_differ", 0) for x in checks))
                    if m is ref_method:
                        c = {"identical": True, "same": True, "reference": True}
                    if m.name == "npp" and t.extra.get("kept_runs"):
                        # The later runs count too: the row is wrong if any run was.
                        kc = [compare(refs[0], k, False, xp) for k in t.extra["kept_runs"]]
                        row["extra"]["kept_checks"] = [{k: v for k, v in x.items() if k != "bad_pixel"} for x in kc]
                        worse = next((x for x in kc if not x["same"]), None)
                        if c["same"] and worse is not None:
                            c, bad = worse, 0
                        failing = sum(not x["same"] for x in [checks[0], *kc])
                        c = dict(c, failing_runs=f"{failing} of {len(kc) + 1}")
                    row["check"] = c
                    if bad is not None and m.name not in shrunk:  # one search per method keeps the run short
                        shrunk.add(m.name)
                        img = wl.images()[bad]
                        yx = c.get("bad_pixel") or [img.shape[0] // 2, img.shape[1] // 2]
                        tag = re.sub(r"[^a-z0-9]+", "_", f"{m.name}_{wl.name}".lower()).strip("_")
                        try:
                            row["smallest"] = shrink(m, reference, img, wl, yx, peer_bg, out_dir, tag)
                        except Exception as e:  # noqa: BLE001
                            log(f"  shrink {tag}: {e}")
                rows.append(row)
                log(f"  {m.name:20s} {fmt_ms(t.ms):>9s} ms {mark(row):4s} {t.note}")
                del t
                release_gpu_memory(cfg)
            del refs
            # Written after every workload, so that a run cut short still leaves its figures.
            save(report(rows, methods, missing, cfg, args, env, time.perf_counter() - t_start, findings))

        # The sheets: both modes, then the ink mask (for the CuPy goal) at 100 dpi and the largest.
        def past_deadline() -> bool:
            return bool(args.deadline_s) and time.perf_counter() - t_start > args.deadline_s

        def sheets(some: list[int]) -> None:
            for dpi in some:
                if past_deadline():
                    late.append(f"sheets at {dpi} dpi")
                    continue
                rgb, path, colours = cfg.gen.sheet(dpi)
                for mode, bg, group in (("paper labelled", None, "sheet"), ("paper background", WHITE, "sheet-bg")):
                    run_all(Workload(f"sheet {dpi} dpi, {mode}", "colour", group, rgb, path, bg, dpi, colours))
                if dpi in (100, dpis[-1]):
                    ink = np.ascontiguousarray((rgb != 255).any(axis=2))
                    del rgb
                    run_all(Workload(f"sheet ink mask {dpi} dpi", "binary", "ink", ink, cfg.gen.save(ink, f"ink{dpi}")))
                    del ink
                else:
                    del rgb
                path.unlink()
                _PACKED.clear()

        def binaries() -> None:
            """YACCLAB-like binary images, then the batch."""
            side = 512 if args.quick else 2048
            for d in (0.1, 0.3, 0.5, 0.7, 0.9) if not args.quick else (0.1, 0.5, 0.9):
                img, path = cfg.gen.noise(side, side, d, 1, 1)
                run_all(Workload(f"noise {side}² density {d}", "binary", "noise", img, path))
            if not args.quick:
                img, path = cfg.gen.noise(4096, 4096, 0.5, 4, 2)
                run_all(Workload("noise 4096² density 0.5, 4×4 blocks", "binary", "noise", img, path))
                img, path = cfg.gen.noise(8192, 8192, 0.5, 1, 3)
                run_all(Workload("noise 8192² density 0.5", "binary", "noise", img, path))
            for n in ([512] if args.quick else [4096]):
                txt = text_mask(n, n, 7)
                if txt is not None:
                    run_all(Workload(f"text {n}²", "binary", "text", txt, cfg.gen.save(txt, f"text{n}")))
            for n in ([512] if args.quick else [4096, 8192]):
                if past_deadline():
                    late.append(f"natural {n}²")
                    continue
                nat = natural_mask(n, n, 11, scale=16 if n <= 4096 else 32)
                run_all(Workload(f"natural {n}²", "binary", "natural", nat, cfg.gen.save(nat, f"natural{n}")))
                del nat
            count, bside = (8, 128) if args.quick else (64, 512)
            batch = np.stack([natural_mask(bside, bside, 100 + i, scale=8 + (i % 4) * 4, level=(i % 5 - 2) * 0.25)
                              for i in range(count)])
            run_all(Workload(f"batch {count} × {bside}²", "batch", "batch", batch))

        # 50 and 100 dpi first (OpenCV's per-colour cost comes from them), then the largest sheet (the
        # GPU goals), the binary images and the batch, and the sheets in between last: a
        # --deadline-s cuts the least important.
        sheets(dpis[:2] + dpis[2:][-1:])
        binaries()
        sheets(sorted(dpis[2:-1], reverse=True))

    seconds = time.perf_counter() - t_start
    if late:
        missing["time limit"] = f"past --deadline-s {args.deadline_s:g}, not run: " + ", ".join(late)
    section = report(rows, methods, missing, cfg, args, env, seconds, findings)
    save(section)
    log(plot(rows, out_dir / "peers.png"))
    results = args.results or ("" if args.quick else str(REPO / "bench" / "RESULTS.md"))
    if results:
        update_results(Path(results), section)
        log(f"section written to {results}")
    print(section)
    return 0


if __name__ == "__main__":
    sys.exit(main())
