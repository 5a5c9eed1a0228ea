"""The report: the Markdown section with the table of times and check marks, the goals of issue 4
with this run's figures, the peers' wrong answers, and its place in bench/RESULTS.md.
"""
from __future__ import annotations

import datetime
import os
import platform
import re
import shlex
import subprocess
import sys
from pathlib import Path

from .config import REPO

SECTION = "## Peers side by side (bench/peers.py)"

# Goals of issue 4, checked in the same run.
GOAL_GPU_VS_EXACT = 3.0
GOAL_GPU_VS_CC3D_1CORE = 300.0
GOAL_CPU_1T_VS_CC3D = 1.5
GOAL_BINARY_VS_OPENCV = 1.2


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
