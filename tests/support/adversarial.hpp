#pragma once
// Generators for the adversarial pictures of shared/design/TESTING.md section 3 (A03–A34), as colour
// indices (0 is the value tests treat as background when they ask for one). Sizes scale with
// `scale` so that the CPU tests, the kernel emulator and the GPU tests can share them; tile-shaped
// cases take the tile size of the code under test.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace cclabel::test {

struct Case {
    std::string name;
    std::int64_t width = 0, height = 0;
    std::vector<std::uint64_t> v;
    bool binary = false;  ///< only 0/1 values: meaningful as Binary8 too
    std::optional<std::uint32_t> expect4, expect8;  ///< analytic N (exact colour, no background) where known
};

inline Case blank(std::string name, std::int64_t w, std::int64_t h, std::uint64_t fill = 0) {
    Case c;
    c.name = std::move(name);
    c.width = w;
    c.height = h;
    c.v.assign(std::size_t(w * h), fill);
    return c;
}

inline std::uint64_t& px(Case& c, std::int64_t x, std::int64_t y) { return c.v[std::size_t(y * c.width + x)]; }

// A03/A04: runs whose lengths grow (changes at k(k+1)/2), alternating two colours.
inline Case growing_runs(std::int64_t n, bool vertical) {
    Case c = blank(vertical ? "A04 one column" : "A03 one row", vertical ? 1 : n, vertical ? n : 1);
    std::uint64_t colour = 1;
    std::int64_t next = 1, k = 1;
    std::uint32_t runs = 1;
    for (std::int64_t i = 0; i < n; ++i) {
        if (i == next) {
            colour = 3 - colour;
            ++k;
            next += k;
            ++runs;
        }
        c.v[std::size_t(i)] = colour;
    }
    c.binary = false;
    c.expect4 = c.expect8 = runs;
    return c;
}

// A06/A07: one full line of colour A between random binary lines.
inline Case wide_or_tall(std::int64_t len, bool tall, std::uint32_t seed) {
    std::mt19937 rng(seed);
    Case c = blank(std::string(tall ? "A07 tall " : "A06 wide ") + std::to_string(len), tall ? 2 : len, tall ? len : 3);
    for (std::int64_t y = 0; y < c.height; ++y)
        for (std::int64_t x = 0; x < c.width; ++x) {
            const bool line = tall ? x == 0 : y == 1;
            px(c, x, y) = line ? 5 : rng() % 2;
        }
    return c;
}

// A08: 3×3 all distinct except the centre and neighbour (dx, dy).
inline Case neighbour_probe(int dx, int dy) {
    Case c = blank("A08 probe " + std::to_string(dx) + "," + std::to_string(dy), 3, 3);
    for (std::int64_t i = 0; i < 9; ++i) c.v[std::size_t(i)] = std::uint64_t(i + 1);
    px(c, 1 + dx, 1 + dy) = px(c, 1, 1);
    const bool diagonal = dx != 0 && dy != 0;
    c.expect8 = 8;
    c.expect4 = diagonal ? 9 : 8;
    return c;
}

// A09: all pixels distinct except pairs whose linear indices are adjacent across a row end.
inline Case wrap_probe(std::int64_t w, int variant) {
    Case c = blank("A09 wrap W=" + std::to_string(w) + " v" + std::to_string(variant), w, 4);
    for (std::size_t i = 0; i < c.v.size(); ++i) c.v[i] = i + 1;
    for (std::int64_t y = 0; y + 2 < 4; ++y) {
        if (variant == 0) px(c, 0, y + 1) = px(c, w - 1, y);         // index differs by 1
        if (variant == 1 && w > 1) px(c, 0, y) = px(c, w - 1, y);    // index differs by W-1
        if (variant == 2) px(c, 0, y + 2) = px(c, w - 1, y);         // index differs by 2W+1
    }
    c.expect4 = c.expect8 = std::uint32_t(w * 4);
    return c;
}

// A10: a run at the end of row y and the start of row y+1 share a fresh colour.
inline Case runs_across_rows(std::int64_t w) {
    Case c = blank("A10 runs across rows W=" + std::to_string(w), w, 64);
    for (std::int64_t y = 0; y + 1 < 64; ++y)
        for (std::int64_t d = 0; d < 3; ++d) {
            px(c, w - 1 - d, y) = std::uint64_t(10 + y);
            px(c, d, y + 1) = std::uint64_t(10 + y);
        }
    return c;
}

inline Case checkerboard(std::int64_t w, std::int64_t h) {
    Case c = blank("A11 checkerboard " + std::to_string(w) + "x" + std::to_string(h), w, h);
    for (std::int64_t y = 0; y < h; ++y)
        for (std::int64_t x = 0; x < w; ++x) px(c, x, y) = std::uint64_t((x + y) & 1);
    c.binary = true;
    c.expect8 = w * h > 1 ? 2 : 1;
    c.expect4 = std::uint32_t(w * h);
    return c;
}

inline Case max_labels(std::int64_t w, std::int64_t h) {
    Case c = blank("A12 max labels " + std::to_string(w) + "x" + std::to_string(h), w, h);
    for (std::int64_t y = 0; y < h; y += 2)
        for (std::int64_t x = 0; x < w; x += 2) px(c, x, y) = 1;
    c.binary = true;
    return c;
}

// A13: 2×2 blocks [[a,b],[b,a]] with fresh colours per block; variant 4 colours per block.
inline Case x_crossings(std::int64_t blocks, bool four) {
    Case c = blank(std::string("A13 x-crossings") + (four ? " 4-colour" : ""), 2 * blocks, 2 * blocks);
    std::uint64_t next = 1;
    for (std::int64_t by = 0; by < blocks; ++by)
        for (std::int64_t bx = 0; bx < blocks; ++bx) {
            const std::uint64_t a = next++, b = next++;
            const std::uint64_t cc = four ? next++ : a, d = four ? next++ : b;
            px(c, 2 * bx, 2 * by) = a;
            px(c, 2 * bx + 1, 2 * by) = b;
            px(c, 2 * bx, 2 * by + 1) = d;
            px(c, 2 * bx + 1, 2 * by + 1) = cc;
        }
    const auto n = std::uint32_t(blocks * blocks);
    c.expect4 = 4 * n;
    c.expect8 = four ? 4 * n : 2 * n;
    return c;
}

inline Case staircase(std::int64_t w, std::int64_t h, bool up_right) {
    Case c = blank(std::string("A14 staircase ") + (up_right ? "up-right" : "down-right"), w, h);
    for (std::int64_t y = 0; y < h; ++y)
        for (std::int64_t x = 0; x < w; ++x) px(c, x, y) = ((up_right ? x + y : x - y + 3 * h) % 3) == 0;
    c.binary = true;
    return c;
}

// A15: diagonal pairs across every tile corner.
inline Case tile_corners(std::int64_t tw, std::int64_t th, std::int64_t k) {
    Case c = blank("A15 tile corners " + std::to_string(tw) + "x" + std::to_string(th), k * tw + 1, k * th + 1);
    std::uint64_t next = 1;
    for (std::int64_t j = 1; j <= k; ++j)
        for (std::int64_t i = 1; i <= k; ++i) {
            const std::int64_t x = i * tw, y = j * th;
            if (x >= c.width || y >= c.height) continue;
            const std::uint64_t a = next++, b = next++;
            px(c, x - 1, y - 1) = a;
            px(c, x, y) = a;
            px(c, x, y - 1) = b;
            px(c, x - 1, y) = b;
        }
    return c;
}

// A16: the skip-join traps [[B,B,A],[A,A,B]] and [[B,A],[A,A]], tiled with separators at an offset
// so that the trap pixel lands on every lane position.
inline Case skip_join_traps(std::int64_t w, std::int64_t h, int which) {
    Case c = blank("A16 skip-join trap " + std::to_string(which), w, h);
    std::uint64_t next = 10;
    const std::int64_t tw = which == 0 ? 4 : 3;  // trap width plus one separator column
    for (std::int64_t y = 0; y + 2 < h; y += 3)
        for (std::int64_t x = (y / 3) % 32; x + tw <= w; x += tw) {
            const std::uint64_t a = next++, b = next++;
            if (which == 0) {
                px(c, x, y) = b; px(c, x + 1, y) = b; px(c, x + 2, y) = a;
                px(c, x, y + 1) = a; px(c, x + 1, y + 1) = a; px(c, x + 2, y + 1) = b;
            } else {
                px(c, x, y) = b; px(c, x + 1, y) = a;
                px(c, x, y + 1) = a; px(c, x + 1, y + 1) = a;
            }
        }
    return c;
}

// A17: a one-pixel spiral (see TESTING.md for the walking rule).
inline Case spiral(std::int64_t w, std::int64_t h) {
    Case c = blank("A17 spiral " + std::to_string(w) + "x" + std::to_string(h), w, h);
    auto painted = [&](std::int64_t x, std::int64_t y) { return x >= 0 && y >= 0 && x < w && y < h && px(c, x, y); };
    auto inside = [&](std::int64_t x, std::int64_t y) { return x >= 0 && y >= 0 && x < w && y < h; };
    const int dx[4] = {1, 0, -1, 0}, dy[4] = {0, 1, 0, -1};
    std::int64_t x = 0, y = 0;
    int d = 0;
    px(c, 0, 0) = 1;
    auto can = [&](int dir) {
        const std::int64_t nx = x + dx[dir], ny = y + dy[dir];
        const std::int64_t ax = nx + dx[dir], ay = ny + dy[dir];
        return inside(nx, ny) && !painted(nx, ny) && (!inside(ax, ay) || !painted(ax, ay));
    };
    while (true) {
        if (!can(d)) {
            d = (d + 1) % 4;
            if (!can(d)) break;
        }
        x += dx[d];
        y += dy[d];
        px(c, x, y) = 1;
    }
    c.binary = true;
    return c;
}

// A18: a Hilbert curve on a 2^k grid, cells at even pixels, steps painting the midpoint.
inline Case hilbert(int k) {
    const std::int64_t n = std::int64_t(1) << k;
    Case c = blank("A18 hilbert k=" + std::to_string(k), 2 * n - 1, 2 * n - 1);
    auto d2xy = [n](std::int64_t d, std::int64_t& x, std::int64_t& y) {
        x = y = 0;
        for (std::int64_t s = 1, t = d; s < n; s *= 2, t /= 4) {
            const std::int64_t rx = 1 & (t / 2), ry = 1 & (t ^ rx);
            if (ry == 0) {
                if (rx == 1) x = s - 1 - x, y = s - 1 - y;
                std::swap(x, y);
            }
            x += s * rx;
            y += s * ry;
        }
    };
    std::int64_t px0 = 0, py0 = 0;
    d2xy(0, px0, py0);
    px(c, 2 * px0, 2 * py0) = 1;
    for (std::int64_t d = 1; d < n * n; ++d) {
        std::int64_t x, y;
        d2xy(d, x, y);
        px(c, 2 * x, 2 * y) = 1;
        px(c, x + px0, y + py0) = 1;
        px0 = x;
        py0 = y;
    }
    c.binary = true;
    c.expect4 = c.expect8 = std::nullopt;
    return c;
}

// A19: a perfect maze by randomised depth-first search, 1-pixel corridors and walls.
inline Case maze(std::int64_t cells, std::uint32_t seed) {
    const std::int64_t s = 2 * cells + 1;
    Case c = blank("A19 maze " + std::to_string(s), s, s);
    std::mt19937 rng(seed);
    std::vector<std::pair<std::int64_t, std::int64_t>> stack{{0, 0}};
    px(c, 1, 1) = 1;
    while (!stack.empty()) {
        auto [cx, cy] = stack.back();
        std::pair<std::int64_t, std::int64_t> opts[4];
        int n = 0;
        const int ddx[4] = {1, -1, 0, 0}, ddy[4] = {0, 0, 1, -1};
        for (int d = 0; d < 4; ++d) {
            const std::int64_t nx = cx + ddx[d], ny = cy + ddy[d];
            if (nx >= 0 && ny >= 0 && nx < cells && ny < cells && !px(c, 2 * nx + 1, 2 * ny + 1)) opts[n++] = {nx, ny};
        }
        if (n == 0) {
            stack.pop_back();
            continue;
        }
        auto [nx, ny] = opts[rng() % std::uint32_t(n)];
        px(c, cx + nx + 1, cy + ny + 1) = 1;
        px(c, 2 * nx + 1, 2 * ny + 1) = 1;
        stack.push_back({nx, ny});
    }
    c.binary = true;
    c.expect4 = c.expect8 = 2;
    return c;
}

// A20: a comb, teeth at even x, spine on the bottom row (or the top, or the middle).
inline Case comb(std::int64_t w, std::int64_t h, int spine) {
    Case c = blank("A20 comb " + std::to_string(w) + "x" + std::to_string(h) + " spine " + std::to_string(spine), w, h);
    const std::int64_t sy = spine == 0 ? h - 1 : spine == 1 ? 0 : h / 2;
    for (std::int64_t y = 0; y < h; ++y)
        for (std::int64_t x = 0; x < w; ++x) px(c, x, y) = (y == sy || x % 2 == 0) ? 1 : 0;
    c.binary = true;
    return c;
}

// A21: region R's first pixel is its right arm's top; region S starts between R's two arms.
inline Case late_merge() {
    Case c = blank("A21 late merge", 64, 64, 0);
    for (std::int64_t y = 0; y < 64; ++y) px(c, 63, y) = 1;          // right arm from (63, 0)
    for (std::int64_t y = 5; y < 64; ++y) px(c, 0, y) = 1;           // left arm from (0, 5)
    for (std::int64_t x = 0; x < 64; ++x) px(c, x, 63) = 1;          // joined on the last row
    for (std::int64_t y = 2; y < 10; ++y) px(c, 30, y) = 2;          // S: first pixel (30, 2)
    return c;  // R must be label 1 (first pixel (63, 0)) although its left arm starts later than S

}

// A22: [[0,0,1],[1,0,0]] tiled with background gaps.
inline Case block_order_trap(std::int64_t reps) {
    Case c = blank("A22 block-order trap", 4 * reps, 3);
    for (std::int64_t r = 0; r < reps; ++r) {
        px(c, 4 * r + 2, 0) = 1;
        px(c, 4 * r, 1) = 1;
    }
    c.binary = true;
    return c;
}

inline Case all_distinct(std::int64_t w, std::int64_t h) {
    Case c = blank("A23 all distinct " + std::to_string(w) + "x" + std::to_string(h), w, h);
    for (std::size_t i = 0; i < c.v.size(); ++i) c.v[i] = i + 1;
    c.expect4 = c.expect8 = std::uint32_t(w * h);
    return c;
}

inline Case uniform(std::int64_t w, std::int64_t h, std::uint64_t value) {
    Case c = blank("A24 uniform " + std::to_string(value), w, h, value);
    c.binary = value <= 1;
    c.expect4 = c.expect8 = 1;
    return c;
}

inline Case uniform_plus_one(std::int64_t w, std::int64_t h, std::int64_t at) {
    Case c = blank("A25 uniform+1 at " + std::to_string(at), w, h, 1);
    c.v[std::size_t(at)] = 2;
    return c;
}

inline Case salt(std::int64_t w, std::int64_t h, std::uint32_t seed) {
    Case c = blank("A26 salt", w, h, 0);
    std::mt19937 rng(seed);
    std::uint64_t next = 1;
    for (std::int64_t y = 0; y < h; y += 2)
        for (std::int64_t x = 0; x < w; x += 2)
            if (rng() % 5 < 2) px(c, x, y) = ++next;
    return c;
}

inline Case percolation(std::int64_t w, std::int64_t h, double p, std::uint32_t seed) {
    Case c = blank("A27 percolation p=" + std::to_string(p), w, h);
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(0, 1);
    for (auto& v : c.v) v = u(rng) < p;
    c.binary = true;
    return c;
}

// A28: g×g blocks of random colours from a palette.
inline Case granular(std::int64_t w, std::int64_t h, std::int64_t g, std::uint64_t palette, std::uint32_t seed) {
    Case c = blank("A28 granularity " + std::to_string(g) + " palette " + std::to_string(palette), w, h);
    std::mt19937 rng(seed);
    const std::int64_t bw = (w + g - 1) / g, bh = (h + g - 1) / g;
    std::vector<std::uint64_t> blocks(std::size_t(bw * bh));
    for (auto& b : blocks) b = rng() % palette;
    for (std::int64_t y = 0; y < h; ++y)
        for (std::int64_t x = 0; x < w; ++x) px(c, x, y) = blocks[std::size_t((y / g) * bw + x / g)];
    return c;
}

// A30: horizontal pairs whose value is the pair's own linear index.
inline Case values_like_labels(std::int64_t w, std::int64_t h) {
    Case c = blank("A30 values like labels", w, h);
    for (std::int64_t y = 0; y < h; ++y)
        for (std::int64_t x = 0; x < w; ++x) px(c, x, y) = std::uint64_t(y * w + (x & ~std::int64_t(1)));
    c.expect4 = std::uint32_t(w * h / 2);
    return c;
}

// A31: rows of colour-A runs of many lengths and offsets, one B pixel between them.
inline Case run_boundaries(std::int64_t tw) {
    const std::int64_t w = 8 * tw + 5;
    const std::int64_t lens[] = {1, 31, 32, 33, 63, 64, 65, tw - 1, tw, tw + 1, w};
    const std::int64_t offs[] = {0, 1, 31, 32, tw - 1};
    Case c = blank("A31 run boundaries tw=" + std::to_string(tw), w, std::int64_t(std::size(lens) * std::size(offs)) * 2);
    std::int64_t y = 0;
    for (std::int64_t len : lens)
        for (std::int64_t off : offs) {
            std::int64_t x = 0;
            for (; x < off && x < w; ++x) px(c, x, y) = 2;
            while (x < w) {
                for (std::int64_t i = 0; i < len && x < w; ++i, ++x) px(c, x, y) = 1;
                if (x < w) px(c, x++, y) = 2;
            }
            for (std::int64_t xx = 0; xx < w; ++xx) px(c, xx, y + 1) = px(c, (xx + w - 1) % w, y);  // shifted by 1
            y += 2;
        }
    return c;
}

// A32: one-pixel lines on both sides of every tile seam, each its own colour.
inline Case seam_lines(std::int64_t tw, std::int64_t th) {
    Case c = blank("A32 seam lines", 10 * tw + 3, 10 * th + 3);
    std::uint64_t next = 1;
    for (std::int64_t i = 1; i <= 10; ++i) {
        for (std::int64_t x : {i * tw - 1, i * tw}) {
            ++next;
            for (std::int64_t y = 0; y < c.height; ++y) px(c, x, y) = next;
        }
    }
    for (std::int64_t j = 1; j <= 10; ++j)
        for (std::int64_t y : {j * th - 1, j * th}) {
            ++next;
            for (std::int64_t x = 0; x < c.width; ++x) px(c, x, y) = next;
        }
    return c;
}

inline Case rings(std::int64_t s) {
    Case c = blank("A33 rings " + std::to_string(s), s, s);
    const double cx = double(s) / 2, cy = double(s) / 2;
    for (std::int64_t y = 0; y < s; ++y)
        for (std::int64_t x = 0; x < s; ++x) {
            const auto r = std::int64_t(std::hypot(double(x) - cx, double(y) - cy));
            px(c, x, y) = r % 2 == 0 ? 1 + (r / 2) % 2 : 0;
        }
    return c;
}

inline Case background_lattice(std::int64_t s, std::uint32_t seed) {
    Case c = blank("A34 background lattice", s, s);
    std::mt19937 rng(seed);
    for (std::int64_t y = 0; y < s; ++y)
        for (std::int64_t x = 0; x < s; ++x) px(c, x, y) = (x % 3 == 0 || y % 3 == 0) ? 0 : 1 + rng() % 7;
    return c;
}

// Stripes of height h/k: band seams of a k-thread labeller fall exactly on region boundaries.
inline Case stripes_on_seams(std::int64_t w, std::int64_t h, int k) {
    Case c = blank("stripes on band seams k=" + std::to_string(k), w, h);
    for (std::int64_t y = 0; y < h; ++y) {
        const std::int64_t band = y * k / h;  // the CPU's band of row y with k threads
        for (std::int64_t x = 0; x < w; ++x) px(c, x, y) = std::uint64_t(band % 2 ? 1 : 2 + (x % 5 == 0));
    }
    return c;
}

/// A case by name, generated on demand (so that listing the cases costs nothing).
struct CaseMaker {
    std::string name;
    std::function<Case()> make;
};

/// The set of cases at a size the tests can afford. @p big scales up the costly ones (GPU tests).
/// @p tw / @p th: the tile of the code under test (A15, A31, A32).
inline std::vector<CaseMaker> adversarial_makers(bool big = false, std::int64_t tw = 32, std::int64_t th = 8) {
    std::vector<CaseMaker> ms;
    auto add = [&](std::string name, std::function<Case()> f) { ms.push_back({std::move(name), std::move(f)}); };
    const std::int64_t m = big ? 4 : 1;
    const std::int64_t runs = big ? 1000003 : 100003;
    add("A03 one row", [=] { return growing_runs(runs, false); });
    add("A04 one column", [=] { return growing_runs(runs, true); });
    for (std::int64_t len : {65535, 65536, 65537}) {
        add("A06 wide " + std::to_string(len), [=] { return wide_or_tall(len, false, std::uint32_t(len)); });
        add("A07 tall " + std::to_string(len), [=] { return wide_or_tall(len, true, std::uint32_t(len + 1)); });
    }
    for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx)
            if (dx || dy)
                add("A08 probe " + std::to_string(dx) + " " + std::to_string(dy), [=] { return neighbour_probe(dx, dy); });
    for (std::int64_t w : {3, 31, 32, 33, 64, 65, 257})
        for (int v = 0; v < 3; ++v)
            add("A09 wrap W" + std::to_string(w) + " v" + std::to_string(v), [=] { return wrap_probe(w, v); });
    for (std::int64_t w : {33, 65, 97}) add("A10 runs across rows W" + std::to_string(w), [=] { return runs_across_rows(w); });
    for (auto [w, h] : {std::pair<std::int64_t, std::int64_t>{16, 16}, {15, 15}, {1023, 1025}})
        add("A11 checkerboard " + std::to_string(w) + "x" + std::to_string(h), [=] { return checkerboard(w, h); });
    for (std::int64_t s : {15, 16, 1000})
        add("A12 max labels " + std::to_string(s), [=] { return max_labels(s, s); });
    add("A13 x-crossings", [] { return x_crossings(40, false); });
    add("A13 x-crossings 4-colour", [] { return x_crossings(40, true); });
    add("A14 staircase down-right", [] { return staircase(257, 255, false); });
    add("A14 staircase up-right", [] { return staircase(257, 255, true); });
    add("A15 tile corners", [=] { return tile_corners(tw, th, 6); });
    add("A16 skip-join trap 0", [] { return skip_join_traps(200, 99, 0); });
    add("A16 skip-join trap 1", [] { return skip_join_traps(200, 99, 1); });
    add("A17 spiral", [=] { return spiral(255 * m + 3, 255 * m); });
    add("A18 hilbert", [=] { return hilbert(big ? 9 : 7); });
    add("A19 maze", [=] { return maze(big ? 512 : 100, 7); });
    add("A20 comb spine bottom", [=] { return comb(1025 * m, 33, 0); });
    add("A20 comb spine top", [=] { return comb(513, 257 * m, 1); });
    add("A20 comb spine middle", [] { return comb(513, 257, 2); });
    add("A21 late merge", [] { return late_merge(); });
    add("A22 block-order trap", [] { return block_order_trap(1000); });
    add("A23 all distinct 1025x3", [] { return all_distinct(1025, 3); });
    add("A23 all distinct square", [=] { return all_distinct(512 * m, 512 * m); });
    add("A24 uniform", [=] { return uniform(333 * m, 257, 1); });
    add("A24 uniform zero", [] { return uniform(333, 257, 0); });
    for (std::int64_t at : {std::int64_t(0), std::int64_t(333 * 257 - 1), std::int64_t(1024), std::int64_t(1023)})
        add("A25 uniform+1 at " + std::to_string(at), [=] { return uniform_plus_one(333, 257, at); });
    add("A26 salt", [=] { return salt(1001 * m, 999, 3); });
    add("A27 percolation 4-conn threshold", [=] { return percolation(1001 * m, 999, 0.5927, 11); });
    add("A27 percolation 8-conn threshold", [=] { return percolation(1001 * m, 999, 0.4073, 12); });
    for (std::int64_t g : {1, 3, 7, 16})
        add("A28 granularity " + std::to_string(g), [=] { return granular(509, 263, g, 3, std::uint32_t(g)); });
    add("A30 values like labels", [] { return values_like_labels(256, 255); });
    add("A31 run boundaries", [=] { return run_boundaries(tw); });
    add("A32 seam lines", [=] { return seam_lines(tw, th); });
    add("A33 rings", [=] { return rings(257 * m); });
    add("A34 background lattice", [=] { return background_lattice(301 * m, 5); });
    for (int k : {2, 3, 7})
        add("stripes on band seams k" + std::to_string(k), [=] { return stripes_on_seams(97, 211, k); });
    return ms;
}

/// Every case of adversarial_makers(), generated.
inline std::vector<Case> adversarial_cases(bool big = false, std::int64_t tw = 32, std::int64_t th = 8) {
    std::vector<Case> cs;
    for (const CaseMaker& m : adversarial_makers(big, tw, th)) cs.push_back(m.make());
    return cs;
}

}  // namespace cclabel::test
