"""What an `auto` call costs around a small picture (issue 21's sub-millisecond rows): the same
NumPy call with backend "auto", "cpu", "cuda" and with auto forced to the CPU through CCLABEL_RATES
(the decision skipped), in turns, median of --calls each after a warm-up, in microseconds. The
gap between "auto" and "auto forced cpu" is the decision's own cost (the cost model, the picture's
row sample); the gap between "auto forced cpu" and "cpu" is the wrapper's.
    python3 bench/auto_small.py [--sides 128,512,1024] [--calls 400]
"""
import argparse
import os
import statistics
import time

import numpy as np

import cclabel
from cclabel import _cclabel


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sides", default="128,512,1024")
    ap.add_argument("--calls", type=int, default=400)
    args = ap.parse_args()
    rng = np.random.default_rng(7)
    ways = [("auto", "auto", None), ("auto forced cpu", "auto", "cpu"), ("cpu", "cpu", None)]
    if cclabel.cuda_available():
        ways.append(("cuda", "cuda", None))
    print(f"{'picture':24s} " + " ".join(f"{w[0]:>16s}" for w in ways) + "  auto took")
    for side in [int(s) for s in args.sides.split(",")]:
        for name, img in (("binary noise", rng.random((side, side)) < 0.5),
                          ("RGB noise", rng.integers(0, 4, (side, side, 3), dtype=np.uint8) * 60)):
            times = {w[0]: [] for w in ways}
            for _, backend, force in ways:  # warm-up: auto's first call measures the machine
                cclabel.label(img, backend=backend)
            took = _cclabel._last_backend()
            cclabel.label(img, backend="auto")
            took = _cclabel._last_backend() or took
            for _ in range(args.calls):
                for label, backend, force in ways:
                    if force:
                        os.environ["CCLABEL_RATES"] = force
                    t0 = time.perf_counter()
                    cclabel.label(img, backend=backend)
                    times[label].append(time.perf_counter() - t0)
                    if force:
                        del os.environ["CCLABEL_RATES"]
            row = " ".join(f"{statistics.median(times[w[0]]) * 1e6:13.1f} us" for w in ways)
            print(f"{name + ' ' + str(side) + '^2':24s} {row}  {took}", flush=True)


if __name__ == "__main__":
    main()
