// The consumer's check: label a small seeded gray picture through the installed cclabel and compare
// every label with this file's own flood fill, which numbers regions 1..N in raster order of their
// first pixel (the library's documented numbering), for 4- and 8-connectivity, with and without a
// background value. Exit code 0 when all agree, 1 with a message otherwise.
#include <cclabel/cclabel.hpp>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <optional>
#include <vector>

#ifdef CONSUMER_CUDA
bool device_api_linked();
#endif

namespace {

// The reference: breadth-first flood fill over equal values, regions numbered in raster order.
std::vector<std::uint32_t> flood_fill(const std::vector<std::uint8_t>& px, int w, int h, int connectivity,
                                      std::optional<std::uint8_t> background, std::uint32_t& n) {
    std::vector<std::uint32_t> out(px.size(), 0);
    std::vector<int> queue;
    n = 0;
    for (int start = 0; start < w * h; ++start) {
        if (out[start] != 0 || (background && px[start] == *background)) continue;
        out[start] = ++n;
        queue.assign(1, start);
        for (std::size_t q = 0; q < queue.size(); ++q) {
            const int x = queue[q] % w, y = queue[q] / w;
            for (int dy = -1; dy <= 1; ++dy)
                for (int dx = -1; dx <= 1; ++dx) {
                    if ((dx == 0 && dy == 0) || (connectivity == 4 && dx != 0 && dy != 0)) continue;
                    const int nx = x + dx, ny = y + dy;
                    if (nx < 0 || ny < 0 || nx >= w || ny >= h) continue;
                    const int i = ny * w + nx;
                    if (out[i] == 0 && px[i] == px[queue[q]]) {
                        out[i] = n;
                        queue.push_back(i);
                    }
                }
        }
    }
    return out;
}

}  // namespace

int main() {
    if (std::strcmp(CCLABEL_VERSION_STRING, CONSUMER_PACKAGE_VERSION) != 0) {
        std::fprintf(stderr, "consumer: header version %s differs from the CMake package's %s\n",
                     CCLABEL_VERSION_STRING, CONSUMER_PACKAGE_VERSION);
        return 1;
    }
#ifdef CONSUMER_CUDA
    if (!device_api_linked()) return 1;
#endif
    // A 61 x 37 picture of three gray values from a fixed LCG, in 3-pixel blocks so that regions
    // are larger than one pixel and touch diagonally.
    const int w = 61, h = 37;
    std::vector<std::uint8_t> px(static_cast<std::size_t>(w) * h);
    std::uint32_t state = 12345;
    std::vector<std::uint8_t> blocks((w / 3 + 1) * (h / 3 + 1));
    for (auto& b : blocks) {
        state = state * 1664525u + 1013904223u;
        b = static_cast<std::uint8_t>((state >> 24) % 3 * 100);
    }
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) px[y * w + x] = blocks[(y / 3) * (w / 3 + 1) + x / 3];

    int failures = 0;
    for (int connectivity : {4, 8})
        for (std::optional<std::uint8_t> background : {std::optional<std::uint8_t>{}, std::optional<std::uint8_t>{0}}) {
            cclabel::Options opt;
            opt.connectivity = connectivity;
            if (background) opt.background = std::vector<std::uint64_t>{*background};
            std::vector<std::uint32_t> labels(px.size());
            const auto view = cclabel::make_view(px.data(), w, h, cclabel::PixelFormat::Gray8);
            const cclabel::LabelResult r = cclabel::label(view, labels.data(), opt);
            std::uint32_t n = 0;
            const auto expected = flood_fill(px, w, h, connectivity, background, n);
            const bool same = r.count == n && labels == expected;
            std::printf("consumer: cclabel %s, %d-connected%s: N = %u (flood fill %u)%s\n", CCLABEL_VERSION_STRING,
                        connectivity, background ? ", background 0" : "", static_cast<unsigned>(r.count),
                        static_cast<unsigned>(n), same ? "" : ", LABELS DIFFER");
            failures += same ? 0 : 1;
        }
    return failures == 0 ? 0 : 1;
}
