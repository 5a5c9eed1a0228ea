"""peers.png: time against megapixels for every method on the sheets, one panel per background mode.

Estimated times (OpenCV per colour above --opencv-colour-max-dpi) are hollow markers, so that the
eye does not read them as measured. Without matplotlib the run goes on with no plot.
"""
from __future__ import annotations

from pathlib import Path


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
