"""The run: every method on every workload, each answer checked against cclabel's CPU labels.

One row per (workload, method): the time, the check's verdict, and for the first wrong answer of a
method the smallest failing crop. A peer that fails is a finding, not the end of the run. The report
is rewritten after every workload, so that a run cut short (a device's time limit) still leaves its
figures; --deadline-s stops starting new workloads and says which were left out.
"""
from __future__ import annotations

import json
import os
import platform
import re
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from . import log
from .check import shrink, verdict
from .config import REPO, Config, detect_gpu, release_gpu_memory
from .methods import all_methods
from .optional import version_of
from .plot import plot
from .report import fmt_ms, mark, report, update_results
from .workloads import FULL_DPI, Generator, Workload, schedule


def run(args) -> int:
    """Runs what bench/peers.py's arguments ask for; writes --out, --results and the section on stdout."""
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

        every = all_methods(cfg)
        wanted = {m.strip() for m in args.methods.split(",") if m.strip()}
        unknown = wanted - {m.name for m in every}
        if unknown:
            sys.exit("unknown method(s): " + ", ".join(sorted(unknown)) + "; known: " + ", ".join(m.name for m in every))
        methods = [m for m in every if not wanted or m.name in wanted]
        missing = {m.name: (m.why_missing or "not available") for m in methods if not m.available()}
        for k, v in missing.items():
            log(f"{k}: {v}")

        ref_method = next((m for m in every if m.name == "cclabel-cpu" and m.available()), None)
        if ref_method is None:
            ref_method = next((m for m in every if m.name == "cclabel-cpu-1t" and m.available()), None)
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
                    kept = t.extra.get("kept_runs") if m.name == "npp" else None
                    c, bad, kept_checks = verdict(refs, t.labels, peer_bg, xp, kept or ())
                    if m is ref_method:
                        c = {"identical": True, "same": True, "reference": True}
                    if kept_checks:
                        row["extra"]["kept_checks"] = [{k: v for k, v in x.items() if k != "bad_pixel"} for x in kept_checks]
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

        def past_deadline() -> bool:
            return bool(args.deadline_s) and time.perf_counter() - t_start > args.deadline_s

        for wl in schedule(cfg.gen, dpis, args.quick, past_deadline, late):
            run_all(wl)
            del wl  # before the next picture is made: a large sheet is not kept while the next one is drawn

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
