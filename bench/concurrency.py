#!/usr/bin/env python3
"""Many callers at once against the same calls one after another (issue 24).

    PYTHONPATH=build/<you>-site python3 bench/concurrency.py [--pictures 64] [--size 2048] [--rounds 3]
        [--threads N] [--no-machine-budget]

The same pictures (half binary noise, half RGB noise from eight colours, seeded) are labelled by
cclabel.label with the default options (every usable core a call):

- serial: one thread, one call after another;
- 4 threads, 8 threads: Python threads of this process, each labelling its share of the pictures
  (picture i goes to caller i mod k), all released at once by a barrier;
- 4 processes: long-lived worker processes (fork, started once, as Dask's workers are) that each
  build their share of the pictures and label it once to warm up; every round they meet at a
  barrier and label it; the time is from the first start to the last end (CLOCK_MONOTONIC, shared
  by the processes). (Until 2026-12-06 the workers were started afresh each round, and their first
  timed round paid 0.3-0.8 s of system time for memory the serial case's process already had.)

Processes share the machine's cores through cclabel's machine-wide budget (docs/concurrency.md);
--no-machine-budget turns it off (CCLABEL_MACHINE_BUDGET=0) to measure without it.

Every case's labels are checked equal to the serial ones (BLAKE2 digest of each label image,
computed outside the timed part). Cases run in turn, round after round, so that load from other
programs spreads over all of them; each case's time is the median over the rounds and its ratio
is that median over the serial median. The goal is a ratio of at most 1.25 for every case.
The CPU time (user + system, every thread of every process taking part) shows work lost to
spinning and waiting even on a machine that other programs keep busy, where wall times mean
little: there the callers' share of the cores, not their own cost, decides them.
Prints a markdown table.
"""
from __future__ import annotations

import argparse
import hashlib
import multiprocessing as mp
import os
import resource
import statistics
import sys
import threading
import time

import numpy as np

import cclabel


def picture(i: int, size: int) -> np.ndarray:
    rng = np.random.default_rng(i)
    if i % 2 == 0:
        return rng.random((size, size)) < 0.5  # binary noise (bool)
    return (rng.integers(0, 2, (size, size, 3), dtype=np.uint8) * 255)  # RGB noise, 8 colours


def digest(labels: np.ndarray, n: int) -> str:
    return f"{n}:" + hashlib.blake2b(np.ascontiguousarray(labels).tobytes(), digest_size=16).hexdigest()


def label_all(pics, kw):
    """Labels every picture in turn; returns the (labels, n) pairs."""
    return [cclabel.label(p, return_num=True, **kw) for p in pics]


def cpu_seconds() -> float:
    """User and system CPU time of this process so far, every thread included."""
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def run_serial(pics, kw):
    c0, t0 = cpu_seconds(), time.monotonic()
    res = label_all(pics, kw)
    t, c = time.monotonic() - t0, cpu_seconds() - c0
    return t, c, [digest(l, n) for l, n in res]


def run_threads(pics, k, kw):
    shares = [list(range(c, len(pics), k)) for c in range(k)]
    results = [None] * k
    start = threading.Barrier(k + 1)

    def caller(c):
        start.wait()
        results[c] = label_all([pics[i] for i in shares[c]], kw)

    threads = [threading.Thread(target=caller, args=(c,)) for c in range(k)]
    for t in threads:
        t.start()
    c0 = cpu_seconds()
    start.wait()
    t0 = time.monotonic()
    for t in threads:
        t.join()
    t, cpu = time.monotonic() - t0, cpu_seconds() - c0
    out = [None] * len(pics)
    for c in range(k):
        for i, (l, n) in zip(shares[c], results[c]):
            out[i] = digest(l, n)
    return t, cpu, out


def _process_caller(c, k, count, size, kw, rounds, start, queue):
    idx = list(range(c, count, k))
    pics = [picture(i, size) for i in idx]
    # Warm, as the serial case's process is after its first round: the pool's workers started and
    # the heap grown to hold the labels (a fresh process faults in every page of its first labels).
    label_all(pics, kw)
    start.wait()  # warm: the other cases may start
    for _ in range(rounds):
        start.wait()
        c0, t0 = cpu_seconds(), time.monotonic()
        res = label_all(pics, kw)
        t1, cpu = time.monotonic(), cpu_seconds() - c0
        queue.put((c, t0, t1, cpu, [(i, digest(l, n)) for i, (l, n) in zip(idx, res)]))
        del res


class ProcessCallers:
    """k long-lived worker processes (fork), each labelling its share once a round."""

    def __init__(self, count, size, k, kw, rounds):
        ctx = mp.get_context("fork")
        self.count, self.k = count, k
        self.start = ctx.Barrier(k + 1)
        self.queue = ctx.Queue()
        self.procs = [ctx.Process(target=_process_caller, args=(c, k, count, size, kw, rounds, self.start, self.queue))
                      for c in range(k)]
        for p in self.procs:
            p.start()
        self.start.wait()  # every worker warm, so that warming up disturbs no case

    def run(self):
        self.start.wait()
        got = [self.queue.get() for _ in range(self.k)]
        out = [None] * self.count
        for _, _, _, _, pairs in got:
            for i, d in pairs:
                out[i] = d
        return max(g[2] for g in got) - min(g[1] for g in got), sum(g[3] for g in got), out

    def join(self):
        for p in self.procs:
            p.join()
            if p.exitcode != 0:
                raise RuntimeError(f"a worker process exited with {p.exitcode}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pictures", type=int, default=64)
    ap.add_argument("--size", type=int, default=2048)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--threads", type=int, default=None,
                    help="threads= for every call (default: the library's default, every usable core)")
    ap.add_argument("--no-machine-budget", action="store_true",
                    help="each process takes the cores as if alone on the machine (CCLABEL_MACHINE_BUDGET=0)")
    args = ap.parse_args(argv)
    if args.no_machine_budget:
        os.environ["CCLABEL_MACHINE_BUDGET"] = "0"  # read at the first call; forked workers inherit it
    load_before = os.getloadavg()
    kw = {} if args.threads is None else {"threads": args.threads}

    pics = [picture(i, args.size) for i in range(args.pictures)]
    label_all(pics[:2], kw)  # starts the pool's workers, pages the code in
    workers = ProcessCallers(args.pictures, args.size, 4, kw, args.rounds)
    cases = {
        "serial": lambda: run_serial(pics, kw),
        "4 threads": lambda: run_threads(pics, 4, kw),
        "8 threads": lambda: run_threads(pics, 8, kw),
        "4 processes": lambda: workers.run(),
    }
    times = {name: [] for name in cases}
    cpus = {name: [] for name in cases}
    reference = None
    mismatches = {name: 0 for name in cases}
    for _ in range(args.rounds):
        for name, fn in cases.items():
            t, cpu, digests = fn()
            times[name].append(t)
            cpus[name].append(cpu)
            if reference is None:
                reference = digests
            mismatches[name] += sum(a != b for a, b in zip(digests, reference))
    workers.join()

    serial = statistics.median(times["serial"])
    print(f"{args.pictures} pictures of {args.size}x{args.size} (binary noise, RGB noise), "
          f"threads={'default' if args.threads is None else args.threads}, {os.cpu_count()} CPUs, "
          f"median of {args.rounds} rounds, machine budget {'off' if args.no_machine_budget else 'on'}, "
          f"load average {load_before[0]:.2f} before, {os.getloadavg()[0]:.2f} after; "
          f"cclabel from {os.path.dirname(cclabel.__file__)}\n")
    serial_cpu = statistics.median(cpus["serial"])
    print("| case | wall s (median) | all rounds s | ratio to serial | CPU s (median) | CPU ratio | labels equal to serial |")
    print("|---|---|---|---|---|---|---|")
    ok = True
    for name in cases:
        med = statistics.median(times[name])
        ratio = med / serial
        equal = mismatches[name] == 0
        ok &= equal
        cpu = statistics.median(cpus[name])
        print(f"| {name} | {med:.3f} | {' '.join(f'{t:.3f}' for t in times[name])} | {ratio:.2f}x | {cpu:.2f} | "
              f"{cpu / serial_cpu:.2f}x | {'yes' if equal else f'NO ({mismatches[name]} differ)'} |")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
