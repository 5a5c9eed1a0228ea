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
# The parts are in bench/peerbench/ (workloads, methods, check, report, plot, run), one idea a file;
# this file keeps the command line that bench/gpu_peers.sh, bench/RESULTS.md and the docs quote.
from __future__ import annotations

import argparse
import sys
from pathlib import Path

# python3 bench/peers.py puts bench/ on the path; an import of this file from elsewhere does not.
HERE = str(Path(__file__).resolve().parent)
if HERE not in sys.path:
    sys.path.insert(0, HERE)

from peerbench.check import self_test  # noqa: E402 - needs the path above
from peerbench.run import run  # noqa: E402


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
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
