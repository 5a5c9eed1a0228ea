"""The methods: the one place that knows how to call each labeller, as its documentation calls it.

Each method takes a workload's picture in the form its library expects (prepared untimed), is
timed on the call alone and hands back host label images for the check. A method whose library or
tool is missing says why (why_missing) and is reported "not run" instead of failing the run. The
list of methods, with the flags that select them, is in bench/peers.py's help; all_methods builds it.
"""
from __future__ import annotations

import json
import os
import statistics
import subprocess
import time
from pathlib import Path

import numpy as np

from .check import compare
from .optional import OPTIONAL_WHY, optional
from .timing import Timed, measure
from .workloads import Workload, pack

PROBE_COLOURS = 32
EIGHT = np.ones((3, 3), bool)  # SciPy's structuring element for 8-connectivity


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


def all_methods(cfg) -> list[Method]:
    """Every method, in the order of the table's columns."""
    return [CclabelTime(cfg), CclabelCpu(cfg), CclabelCuda(cfg), CclabelCudaCopies(cfg),
            CclabelCudaBatch(cfg), Cc3d(cfg), OpenCvBinary(cfg, 1), OpenCvBinary(cfg, os.cpu_count() or 1),
            OpenCvPerColour(cfg), Skimage(cfg), CupyBinary(cfg), Cucim(cfg), Npp(cfg), Colorcc(cfg)]
