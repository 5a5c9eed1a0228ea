"""Multi-page input: every page of a PDF (rendered by the CLI through Poppler) and of a multi-page
TIFF is labelled, with outputs named -p001, -p002, ...; each page's labels equal cc3d's labels of
the same page rasterised independently (pdftoppm for PDF, the array itself for TIFF). The PDFs are
written by the test: a few filled rectangles and an anti-aliased circle per page."""
from __future__ import annotations

import math
import shutil
import subprocess

import numpy as np
import pytest

from conftest import assert_same, cc3d_labels, cv2, load_labels, pack, regions_reported, run_cli

tifffile = pytest.importorskip("tifffile", reason="pip install tifffile")


def make_pdf(pages):
    """A PDF of (width_pt, height_pt, content stream) pages, with a correct cross-reference table."""
    objs = [b"<< /Type /Catalog /Pages 2 0 R >>",
            ("<< /Type /Pages /Kids [%s] /Count %d >>" % (" ".join(f"{3 + 2 * i} 0 R" for i in range(len(pages))),
                                                          len(pages))).encode()]
    for i, (w, h, content) in enumerate(pages):
        objs.append(f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {w} {h}] /Contents {4 + 2 * i} 0 R >>".encode())
        data = content.encode()
        objs.append(b"<< /Length %d >>\nstream\n" % len(data) + data + b"\nendstream")
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for i, o in enumerate(objs):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % (i + 1) + o + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objs) + 1)
    out += b"".join(b"%010d 00000 n \n" % off for off in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objs) + 1, xref)
    return bytes(out)


def circle(cx, cy, r):
    k = 0.5523 * r  # four Bezier quarter arcs
    return (f"{cx + r} {cy} m {cx + r} {cy + k} {cx + k} {cy + r} {cx} {cy + r} c "
            f"{cx - k} {cy + r} {cx - r} {cy + k} {cx - r} {cy} c {cx - r} {cy - k} {cx - k} {cy - r} {cx} {cy - r} c "
            f"{cx + k} {cy - r} {cx + r} {cy - k} {cx + r} {cy} c f")


def drawing_pages(rng, n):
    pages = []
    for _ in range(n):
        w, h = int(rng.integers(60, 140)), int(rng.integers(40, 100))
        parts = []
        for _ in range(int(rng.integers(2, 6))):
            r, g, b = rng.integers(0, 2, size=3)
            x, y = rng.uniform(0, w - 10), rng.uniform(0, h - 10)
            parts.append(f"{r} {g} {b} rg {x:.2f} {y:.2f} {rng.uniform(3, 30):.2f} {rng.uniform(3, 30):.2f} re f")
        parts.append("0.2 0.4 0.6 rg " + circle(w / 2, h / 2, min(w, h) / 5))
        pages.append((w, h, " ".join(parts)))
    return pages


pdftoppm = shutil.which("pdftoppm")


@pytest.mark.skipif(pdftoppm is None, reason="pdftoppm (poppler-utils) is not installed")
@pytest.mark.parametrize("dpi", [72, 150, 301])
@pytest.mark.parametrize("conn", [4, 8])
def test_pdf_pages_equal_cc3d_of_pdftoppm(cli, tmp_path, dpi, conn):
    rng = np.random.default_rng(dpi + conn)
    pages = drawing_pages(rng, 3)
    pdf = tmp_path / "drawings.pdf"
    pdf.write_bytes(make_pdf(pages))
    proc = run_cli(cli, pdf, "--dpi", dpi, "-c", conn, "-o", tmp_path / "drawings.npy", "--background", "#ffffff")
    if "without libpoppler-cpp" in proc.stderr:
        pytest.skip("cclabel was built without Poppler")
    counts = regions_reported(proc.stdout)
    assert len(counts) == 3
    subprocess.run([pdftoppm, "-r", str(dpi), str(pdf), str(tmp_path / "ref")], check=True)
    for i, (w_pt, h_pt, _) in enumerate(pages):
        ref = cv2.cvtColor(cv2.imread(str(tmp_path / f"ref-{i + 1}.ppm")), cv2.COLOR_BGR2RGB)
        # The page size at the resolution (points are 1/72 inch), as pdftoppm renders it.
        assert abs(ref.shape[1] - w_pt * dpi / 72) < 1 and abs(ref.shape[0] - h_pt * dpi / 72) < 1
        labels = load_labels(tmp_path / f"drawings-p{i + 1:03d}.npy", ref.shape[:2])
        want = cc3d_labels(pack(ref), conn, background=0xFFFFFF)
        assert_same(labels, want, f"page {i + 1} at {dpi} dpi")
        assert counts[i] == want.max()


def test_pdf_stats_one_file_per_page(cli, tmp_path):
    pdf = tmp_path / "sheet.pdf"
    pdf.write_bytes(make_pdf([(72, 72, "1 0 0 rg 9 9 18 18 re f"), (36, 72, "0 0 1 rg 0 0 18 36 re f")]))
    proc = subprocess.run([cli, "stats", str(pdf), "--dpi", "144", "--csv", str(tmp_path / "s.csv"), "-b", "#ffffff"],
                          capture_output=True, text=True)
    if "without libpoppler-cpp" in proc.stderr:
        pytest.skip("cclabel was built without Poppler")
    assert proc.returncode == 0, proc.stderr
    # A rectangle on pixel boundaries: exact area, box and colour at 144 dpi (2 pixels a point).
    p1 = (tmp_path / "s-p001.csv").read_text().splitlines()
    assert p1[2] == "1,1296,18,90,36,36,35.5,107.5,140,#ff0000"
    p2 = (tmp_path / "s-p002.csv").read_text().splitlines()
    assert p2[2].startswith("1,2592,0,72,36,72,") and p2[2].endswith(",#0000ff")
    # Without --csv there is nowhere to put two tables.
    bad = subprocess.run([cli, "stats", str(pdf)], capture_output=True, text=True)
    assert bad.returncode != 0 and "--csv" in bad.stderr


def test_broken_pdf_is_one_line_error(cli, tmp_path):
    bad = tmp_path / "broken.pdf"
    bad.write_bytes(b"%PDF-1.4\nthis is not a PDF body\n")
    good = tmp_path / "good.npy"
    np.save(good, np.zeros((3, 3), np.uint8))
    proc = run_cli(cli, bad, good, "-o", tmp_path / "out", expect_ok=False)
    assert proc.returncode == 1
    errors = [l for l in proc.stderr.splitlines() if "error" in l]
    assert len(errors) == 1 and "broken.pdf" in errors[0]
    assert (tmp_path / "out" / "good.npy").exists()  # the other file was still labelled


@pytest.mark.parametrize("conn", [4, 8])
def test_multipage_tiff_every_page(cli, tmp_path, conn):
    rng = np.random.default_rng(conn)
    pages = [rng.integers(0, 3, size=(23, 41)).astype(np.uint8) * 80 for _ in range(4)]
    tif = tmp_path / "stack.tif"
    tifffile.imwrite(tif, np.stack(pages), photometric="minisblack")
    proc = run_cli(cli, tif, "-c", conn, "-o", tmp_path / "stack.tif.npy")
    assert len(regions_reported(proc.stdout)) == 4
    for i, page in enumerate(pages):
        got = load_labels(tmp_path / f"stack.tif-p{i + 1:03d}.npy", page.shape)
        assert_same(got, cc3d_labels(page.astype(np.int64), conn), f"page {i + 1}")


def test_multipage_tiff_of_rgb_pages_in_a_folder(cli, tmp_path):
    rng = np.random.default_rng(9)
    tif = tmp_path / "rgb.tif"
    pages = [(rng.integers(0, 2, size=(17, 19, 3)) * 255).astype(np.uint8) for _ in range(2)]
    with tifffile.TiffWriter(tif) as t:
        for p in pages:
            t.write(p, photometric="rgb")
    single = tmp_path / "single.tif"
    tifffile.imwrite(single, pages[0], photometric="rgb")
    run_cli(cli, tif, single, "-o", tmp_path / "out")
    for i, page in enumerate(pages):
        got = load_labels(tmp_path / "out" / f"rgb-p{i + 1:03d}.npy", page.shape[:2])
        assert_same(got, cc3d_labels(pack(page), 8), f"page {i + 1}")
    # A one-page TIFF keeps its plain name.
    assert_same(load_labels(tmp_path / "out" / "single.npy", pages[0].shape[:2]), cc3d_labels(pack(pages[0]), 8),
                "single")
