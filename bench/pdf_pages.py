"""The PDF renderer's time on legitimate PDFs of about 1 MiB, against its budget.

Writes one-page PDFs as real generators make them (reportlab, matplotlib: a floor plan on A4 and
A1, a scatter of 36,000 coloured markers, a long line plot, filled contours, a pcolormesh, a JPEG
photograph, a lossless scan, a 400-page text report) and a synthetic worst case (35,000 random
polygons overlapping 140 deep), then times page 1 of each with bench's cclabel_pdf_time (the forked
loader and renderer included, CCLABEL_PDF_RENDER_SECONDS=0 so nothing is cut short) and prints a
markdown table: the children's processor seconds (min-max of --reps) per resolution, and the budget
that src/io/pdf_reader.cpp gives the page. docs/decode_limits.md has the figures of a run.

    pip install reportlab matplotlib pillow numpy
    python bench/pdf_pages.py --tool build/release/bench/cclabel_pdf_time --out /tmp/pdf_pages
"""
import argparse
import os
import random
import subprocess
import sys

import numpy as np

TARGET = 1 << 20  # bytes a file aims at


def budget(file_bytes, pixels, dpi):
    """The render budget of src/io/pdf_reader.cpp (render_seconds), in seconds of processor time,
    before what the loader used (milliseconds for these files)."""
    mib = file_bytes / (1 << 20)
    s = 0.25 + mib * (0.6 + 5.0 * (pixels / (1241 * 1754)) ** 0.75) + pixels / 20e6
    if file_bytes <= 1 << 20:  # issue 24's second for a small file, loader and page together
        s = min(s, 0.85 * max(1.0, (dpi / 150.0) ** 2) + pixels / 20e6)
    return s


def sized(path, make, n):
    """Calls make(n) with n scaled until the file at path is within 7% of TARGET."""
    for _ in range(6):
        make(n)
        s = os.path.getsize(path)
        if abs(s - TARGET) < TARGET * 0.07:
            break
        n = max(1, int(n * TARGET / s))


def write_pdfs(out):
    from reportlab.lib.pagesizes import A1, A4
    from reportlab.lib.utils import ImageReader
    from reportlab.pdfgen import canvas
    from PIL import Image, ImageDraw
    import matplotlib

    matplotlib.use("pdf")
    import matplotlib.pyplot as plt

    def floor_plan(name, size):
        path = os.path.join(out, name)

        def make(cells):
            r = random.Random(7)
            c = canvas.Canvas(path, pagesize=size, pageCompression=1)
            W, H = size
            nx = max(1, int((cells * W / H) ** 0.5))
            ny = max(1, cells // nx)
            cw, ch = (W - 40) / nx, (H - 40) / ny
            for i in range(nx):
                for j in range(ny):
                    x, y = 20 + i * cw, 20 + j * ch
                    c.setFillColorRGB(*[0.85 + 0.15 * r.random() for _ in range(3)])
                    c.setStrokeColorRGB(0, 0, 0)
                    c.setLineWidth(r.choice([0.7, 1.4]))
                    c.rect(x, y, cw, ch, stroke=1, fill=1)
                    c.setLineWidth(0.25)
                    if r.random() < 0.3:  # hatching
                        for k in range(1, 8):
                            c.line(x + k * cw / 8, y, x, y + k * ch / 8)
                    c.arc(x + cw * 0.2, y - cw * 0.15, x + cw * 0.5, y + cw * 0.15, 0, 90)  # door
                    for _ in range(3):  # furniture
                        fx, fy = x + r.random() * cw * 0.7, y + r.random() * ch * 0.7
                        c.rect(fx, fy, cw * 0.2, ch * 0.15, stroke=1, fill=0)
                        c.circle(fx + cw * 0.1, fy + ch * 0.3, min(cw, ch) * 0.05, stroke=1, fill=0)
                    c.setFillColorRGB(0, 0, 0)
                    c.setFont("Helvetica", max(2, min(cw, ch) / 8))
                    c.drawString(x + 2, y + ch / 2, "R%d.%d %.1f m2" % (i, j, cw * ch / 800))
            c.showPage()
            c.save()

        sized(path, make, 2000)
        return path

    def overlap(name, size):
        path = os.path.join(out, name)

        def make(ops):
            r = random.Random(1)
            c = canvas.Canvas(path, pagesize=size, pageCompression=1)
            W, H = size
            for _ in range(ops):
                x, y = r.uniform(0, W - 120), r.uniform(0, H - 120)
                w, h = r.uniform(20, 120), r.uniform(20, 120)
                kind = r.random()
                c.setLineWidth(r.choice([0.25, 0.5, 1, 2]))
                if kind < 0.3:
                    c.setFillColorRGB(r.random(), r.random(), r.random())
                    p = c.beginPath()
                    p.moveTo(x, y)
                    for _ in range(r.randint(3, 8)):
                        p.lineTo(x + r.uniform(0, w), y + r.uniform(0, h))
                    p.close()
                    c.drawPath(p, stroke=1, fill=1)
                elif kind < 0.55:
                    p = c.beginPath()
                    p.moveTo(x, y)
                    for _ in range(r.randint(2, 12)):
                        x, y = min(W, max(0, x + r.uniform(-60, 60))), min(H, max(0, y + r.uniform(-60, 60)))
                        p.lineTo(x, y)
                    c.drawPath(p, stroke=1, fill=0)
                elif kind < 0.7:
                    c.arc(x, y, x + w, y + w, r.choice([0, 90, 180, 270]), 90)
                elif kind < 0.85:
                    for k in range(r.randint(5, 20)):
                        c.line(x + k * 3, y, x + k * 3 + h / 3, y + h)
                else:
                    c.setFont("Helvetica", r.choice([4, 5, 6, 8]))
                    c.drawString(x, y, "%.2f m" % r.uniform(0.5, 30))
            c.showPage()
            c.save()

        sized(path, make, 30000)
        return path

    def figure(name, draw, n, scale):
        path = os.path.join(out, name)

        def make(k):
            fig, ax = plt.subplots(figsize=(8.27, 11.69))
            draw(ax, k, np.random.default_rng(4))
            fig.savefig(path)
            plt.close(fig)

        for _ in range(6):
            make(n)
            s = os.path.getsize(path)
            if abs(s - TARGET) < TARGET * 0.07:
                break
            n = max(2, int(n * (TARGET / s) ** scale))
        return path

    def contours(ax, n, r):
        x = np.linspace(0, 20, n)
        X, Y = np.meshgrid(x, x)
        Z = np.sin(X) * np.cos(Y * 1.3) + 0.3 * r.random((n, n))
        ax.contourf(X, Y, Z, levels=40)
        ax.contour(X, Y, Z, levels=40, linewidths=0.3, colors="k")

    def lines(ax, n, r):
        for _ in range(20):
            ax.plot(np.cumsum(r.normal(size=max(2, n // 20))), lw=0.5)

    def image_page(name, image):
        path = os.path.join(out, name)
        c = canvas.Canvas(path, pagesize=A4, pageCompression=1)
        c.drawImage(image, 0, 0, A4[0], A4[1])
        c.showPage()
        c.save()
        return path

    def photo():
        r = np.random.default_rng(3)
        yy, xx = np.mgrid[0:3508, 0:2480]
        base = (np.sin(xx / 37.0) + np.cos(yy / 23.0)) * 60 + 128
        img = np.stack([base, base * 0.8, base * 0.6], -1) + r.normal(0, 25, (3508, 2480, 3))
        jpg = os.path.join(out, "photo.jpg")
        Image.fromarray(np.clip(img, 0, 255).astype(np.uint8)).save(jpg, quality=25)
        return jpg

    def scan(n=3500):
        im = Image.new("RGB", (2480, 3508), "white")
        d = ImageDraw.Draw(im)
        r = random.Random(5)
        for _ in range(n):
            x, y = r.randrange(2480), r.randrange(3508)
            col = tuple(r.randrange(256) for _ in range(3))
            if r.random() < 0.5:
                d.line((x, y, x + r.randrange(-300, 300), y + r.randrange(-300, 300)), fill=col, width=r.randrange(1, 6))
            else:
                d.rectangle((x, y, x + r.randrange(5, 200), y + r.randrange(5, 200)), outline=col, fill=col if r.random() < 0.3 else None)
        return ImageReader(im)

    def report():
        path = os.path.join(out, "text_report.pdf")
        r = random.Random(2)
        words = ["label", "region", "pixel", "colour", "drawing", "sheet", "plan", "wall", "door", "scale"]
        c = canvas.Canvas(path, pagesize=A4, pageCompression=1)
        for _ in range(400):
            y = A4[1] - 20
            c.setFont(r.choice(["Helvetica", "Times-Roman", "Courier"]), 9)
            while y > 20:
                c.drawString(20, y, " ".join(r.choice(words) for _ in range(18)))
                y -= 10.8
            c.showPage()
        c.save()
        return path

    return [
        ("floor plan, A4", floor_plan("floorplan_a4.pdf", A4)),
        ("floor plan, A1", floor_plan("floorplan_a1.pdf", A1)),
        ("matplotlib scatter", figure("mpl_scatter.pdf", lambda ax, n, r: ax.scatter(r.random(n), r.random(n), s=4, c=r.random(n)), 36000, 1)),
        ("matplotlib line plot", figure("mpl_lines.pdf", lines, 200000, 1)),
        ("matplotlib contourf", figure("mpl_contourf.pdf", contours, 100, 0.5)),
        ("matplotlib pcolormesh", figure("mpl_pcolormesh.pdf", lambda ax, n, r: ax.pcolormesh(r.random((n, n))), 190, 0.5)),
        ("JPEG photograph", image_page("photo_jpeg_a4.pdf", photo())),
        ("lossless scan", image_page("scan_flate_a4.pdf", scan())),
        ("400-page text report", report()),
        ("synthetic overlap, A4", overlap("synthetic_overlap_a4.pdf", A4)),
        ("synthetic overlap, A1", overlap("synthetic_overlap_a1.pdf", A1)),
    ]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tool", required=True, help="bench's cclabel_pdf_time")
    ap.add_argument("--out", required=True, help="folder for the PDFs")
    ap.add_argument("--dpi", type=float, nargs="+", default=[8, 150, 300])
    ap.add_argument("--reps", type=int, default=3)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    pdfs = write_pdfs(a.out)
    env = dict(os.environ, CCLABEL_PDF_RENDER_SECONDS="0")
    rows = {}
    for dpi in a.dpi:
        got = subprocess.run([a.tool, str(a.reps), str(dpi)] + [p for _, p in pdfs], env=env, check=True,
                             capture_output=True, text=True).stdout.splitlines()
        for (label, path), line in zip(pdfs, got):
            f = line.split("\t")
            size, w, h, cpu0, cpu1, err = int(f[1]), int(f[3]), int(f[4]), float(f[8]), float(f[9]), f[10]
            cell = "%.2f–%.2f s (budget %.2f)" % (cpu0, cpu1, budget(size, w * h, dpi)) if not err else err
            rows.setdefault((label, size), []).append(cell)
    print("| PDF (bytes) | " + " | ".join("%g dpi" % d for d in a.dpi) + " |")
    print("|---|" + "---:|" * len(a.dpi))
    for (label, size), cells in rows.items():
        print("| %s (%d) | %s |" % (label, size, " | ".join(cells)))


if __name__ == "__main__":
    sys.exit(main())
