"""The parts of bench/peers.py (cclabel side by side with every peer), one idea a file:

  workloads.py  the pictures, generated once and given to every method as the same bytes
  methods.py    how each labeller is called (cclabel, cc3d, OpenCV, scikit-image, CuPy, cuCIM, colorcc, NPP)
  timing.py     how one call is timed (medians between synchronisations)
  check.py      whether a peer's labels are cclabel's, and the smallest crop where they are not
  run.py        the run: every method on every workload, in the order a deadline cuts least
  report.py     the Markdown section, the goals of issue 4 and the update of bench/RESULTS.md
  plot.py       peers.png
  optional.py   peers that may be missing, and why
  config.py     the run's settings and the GPU it found

bench/peers.py holds the command line; these modules are not meant to be run on their own.
"""
import sys


def log(*a) -> None:
    """Progress goes to stderr: stdout carries only the final section, which scripts capture."""
    print(*a, file=sys.stderr, flush=True)
