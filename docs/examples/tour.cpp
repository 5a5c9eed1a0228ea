// The C++ examples of the documentation (docs/getting-started/cpp.md shows the parts between the
// [name] markers). tests/python/test_docs_examples.py compiles this file against the installed
// package (pkg-config) and runs it: it exits 1, naming the step, if any result disagrees.
#include <cclabel/cclabel.hpp>

#include <cstdint>
#include <cstdio>
#include <vector>

namespace {

int failures = 0;

void expect(bool ok, const char* what) {
    if (!ok) {
        std::fprintf(stderr, "tour: %s\n", what);
        ++failures;
    }
}

}  // namespace

int main() {
    // A 64 x 48 RGB picture: white paper, a black frame, a red square and a blue square touching it
    // at a corner.
    const std::int64_t width = 64, height = 48, stride_bytes = width * 3;
    std::vector<std::uint8_t> rgb(std::size_t(stride_bytes * height), 255);
    auto paint = [&](std::int64_t x0, std::int64_t y0, std::int64_t x1, std::int64_t y1, std::uint8_t r,
                     std::uint8_t g, std::uint8_t b) {
        for (std::int64_t y = y0; y < y1; ++y)
            for (std::int64_t x = x0; x < x1; ++x) {
                std::uint8_t* p = &rgb[std::size_t(y * stride_bytes + x * 3)];
                p[0] = r, p[1] = g, p[2] = b;
            }
    };
    paint(0, 0, width, 2, 0, 0, 0);
    paint(0, height - 2, width, height, 0, 0, 0);
    paint(0, 0, 2, height, 0, 0, 0);
    paint(width - 2, 0, width, height, 0, 0, 0);
    paint(10, 10, 20, 20, 255, 0, 0);
    paint(20, 20, 30, 30, 0, 0, 255);

    // [label]
    cclabel::Options opt;
    opt.connectivity = 8;                                          // or 4
    opt.background = std::vector<std::uint64_t>{255, 255, 255};   // optional: white paper gets 0
    auto view = cclabel::make_view(rgb.data(), width, height, cclabel::PixelFormat::RGB8, stride_bytes);
    std::vector<std::uint32_t> labels(std::size_t(width * height));
    cclabel::LabelResult r = cclabel::label(view, labels.data(), opt);    // r.count = N, background excluded
    cclabel::VerifyReport ok = cclabel::verify(view, labels.data(), opt); // ok.ok, or ok.message and (x, y)
    // [label]
    expect(r.count == 3, "label: expected 3 regions (frame, red, blue)");
    expect(ok.ok, "verify: the certificate refused the labels");
    expect(labels[0] == 1 && labels[std::size_t(10 * width + 10)] == 2 && labels[std::size_t(20 * width + 20)] == 3,
           "label: regions are not numbered in raster order of their first pixel");

    // [errors]
    try {
        cclabel::label(cclabel::make_view(rgb.data(), -1, height, cclabel::PixelFormat::RGB8), labels.data());
    } catch (const cclabel::Error& e) {
        std::printf("refused: %s\n", e.what());                    // one line naming the problem
    }
    // [errors]

    // [stats]
    auto st = cclabel::regions(view, labels.data(), opt);  // rows 0..N: area, x/y/width/height, cx/cy, perimeter, value
    std::uint32_t m = cclabel::remove_small(labels.data(), width, height, 50);  // drop regions < 50 px, renumber 1..M
    // [stats]
    expect(st.size() == 4 && st[2].area == 100 && st[2].x == 10 && st[2].width == 10, "regions: red square's row");
    expect(m == 3, "remove_small: no region is under 50 pixels");

    // [tiles]
    std::vector<std::uint32_t> tiled(labels.size());
    cclabel::TiledResult t = cclabel::label_tiled(view, tiled.data(), opt, 16, 16);   // t.count = N
    // [tiles]
    expect(t.count == r.count && tiled == labels, "label_tiled: differs from label()");

    // [tile-steps]
    // The same steps driven by hand (any order, any machine): per tile, then per seam, then once.
    // Here two tiles, the left and right halves of the picture.
    const std::int64_t half = width / 2;
    std::vector<std::uint32_t> local_a(std::size_t(half * height)), local_b(std::size_t((width - half) * height));
    cclabel::TileInfo a = cclabel::label_tile(cclabel::tile_view(view, {0, 0, half, height}), 0, 0, width,
                                              local_a.data(), opt);
    cclabel::TileInfo b = cclabel::label_tile(cclabel::tile_view(view, {half, 0, width - half, height}), half, 0,
                                              width, local_b.data(), opt);
    std::vector<std::uint32_t> pairs = cclabel::seam_equivalences(a, b, opt.connectivity);
    cclabel::Resolution res = cclabel::resolve_tiles({a.first_index, b.first_index}, {{0, 1, pairs}});
    std::vector<std::uint32_t> whole(labels.size());
    cclabel::relabel_tile(local_a.data(), half, height, res.maps[0], whole.data(), width);
    cclabel::relabel_tile(local_b.data(), width - half, height, res.maps[1], whole.data() + half, width);
    // [tile-steps]
    expect(res.count == r.count && whole == tiled, "tile steps: differ from label()");

    // [batch]
    // 4 masks of 32 x 32 in one (B, H, W) buffer; image b is numbered 1..N_b on its own.
    std::vector<std::uint8_t> masks(4 * 32 * 32, 0);
    for (std::size_t i = 0; i < masks.size(); i += 7) masks[i] = 1;
    cclabel::BatchView batch{masks.data(), 4, 32, 32, 0, 0, cclabel::PixelFormat::Binary8};
    std::vector<std::uint32_t> batch_labels(masks.size());
    cclabel::BatchResult br = cclabel::label_batch(batch, batch_labels.data());   // br.counts[b] = N_b
    // [batch]
    for (std::int64_t b = 0; b < 4; ++b) {
        std::vector<std::uint32_t> one(32 * 32);
        const auto n = cclabel::label(batch.image(b), one.data()).count;
        expect(br.counts[std::size_t(b)] == n, "label_batch: a count differs from label() of that image");
    }

    // [segment]
    std::vector<std::uint8_t> mask(labels.size());
    std::uint32_t level = cclabel::otsu_threshold(view);    // OpenCV's integer luminance of RGB
    cclabel::threshold(view, level, mask.data());           // Binary8 mask: 1 where value > level
    std::vector<std::uint32_t> mask_labels(labels.size());
    auto n_mask = cclabel::label(cclabel::make_view(mask.data(), width, height, cclabel::PixelFormat::Binary8),
                                 mask_labels.data()).count;
    // [segment]
    expect(n_mask == 1, "threshold: the paper should be the only bright region");

    if (failures == 0) std::printf("tour: every example agrees\n");
    return failures == 0 ? 0 : 1;
}
