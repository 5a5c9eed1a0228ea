"""How one measurement is timed: the median of repeated calls between two synchronisations.

A CPU call slower than --slow-s is timed once, without warm-up (a second call would only cost
time); GPU calls are always warmed up first (the first call pays for module loading and pools).
Repeats stop at --reps calls or after --budget-s, whichever comes first.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field


@dataclass
class Timed:
    """One method on one workload: what the report shows (ms, note) and what the check compares (labels)."""
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
