#pragma once
// Synthetic benchmark inputs, header-only and dependency-free (plain C++20, std::thread; also
// compiled by nvcc as host code for bench/cuda/, hence no <execution> and no <bit>-only tricks).
//
//   make_drawing(dpi)         a 42 x 30 inch structural framing plan: grid lines with bubbles,
//                             beams, joists, columns, hatched walls, dimension strings, notes in a
//                             stroke "font", a title block, red revision clouds, blue markups and a
//                             yellow highlighter. Anti-aliased with coverage-based alpha, so every
//                             edge yields many distinct greys (and mixed tints where colours cross).
//                             About 95% of the sheet stays white paper, like a real plot.
//   random_palette_image      RGB8 noise over K distinct colours.
//   random_binary             YACCLAB-style random masks at a density, optionally in g x g blocks.
//   all_distinct_image        RGB8 where every pixel has its own colour (worst case: no merges).
//
// The drawing is laid out in inches from a fixed seed and only then scaled by dpi, so every dpi
// shows the same sheet. Rasterisation is scanline-based: primitives are binned by 16-row blocks,
// threads take blocks from an atomic counter, and for each row a primitive visits only the x-span
// its shape can cover. Primitives are composited in a fixed order and each pixel is written by one
// thread, so the output is bit-identical for any thread count.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <numbers>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace cclabel::bench {

/// An RGB8 picture, tightly packed (width * 3 bytes per row).
struct Drawing {
    std::int64_t width = 0;
    std::int64_t height = 0;
    std::vector<std::uint8_t> rgb;
};

namespace detail_drawing {

/// splitmix64: tiny, seedable and identical on every platform (std:: distributions are not).
struct Rng {
    std::uint64_t s;
    explicit Rng(std::uint64_t seed) : s(seed) {}
    std::uint64_t next() {
        std::uint64_t z = (s += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    /// Uniform in [0, 1).
    double uniform() { return double(next() >> 11) * (1.0 / 9007199254740992.0); }
    double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
    /// Uniform in [0, n).
    std::uint32_t below(std::uint32_t n) { return std::uint32_t((next() >> 32) * n >> 32); }
};

inline std::uint64_t mix(std::uint64_t a, std::uint64_t b) {
    Rng r(a * 0xD6E8FEB86659FD93ull ^ b);
    return r.next();
}

inline unsigned resolve_threads(unsigned threads) {
    if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
    return threads;
}

/// Runs fn(begin, end) over [0, n) in chunks taken from a shared counter by @p threads threads.
template <class Fn>
void parallel_chunks(std::int64_t n, std::int64_t chunk, unsigned threads, Fn&& fn) {
    std::atomic<std::int64_t> next{0};
    auto worker = [&] {
        for (;;) {
            const std::int64_t b = next.fetch_add(chunk);
            if (b >= n) return;
            fn(b, std::min(n, b + chunk));
        }
    };
    const std::int64_t useful = (n + chunk - 1) / chunk;
    threads = unsigned(std::max<std::int64_t>(1, std::min<std::int64_t>(threads, useful)));
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < threads; ++t) pool.emplace_back(worker);
    worker();
    for (auto& t : pool) t.join();
}

struct Ink {
    std::uint8_t r, g, b;
};
inline constexpr Ink kBlack{0, 0, 0};
inline constexpr Ink kRed{214, 32, 38};
inline constexpr Ink kBlue{28, 72, 196};
inline constexpr Ink kYellow{255, 236, 64};
inline constexpr Ink kGrey{96, 96, 96};

/// One drawing primitive in pixel coordinates (pixel (x, y) covers [x, x+1) x [y, y+1)).
struct Prim {
    enum Kind : std::uint8_t { Segment, Arc, Box } kind;
    double x0, y0, x1, y1;  ///< Segment: end points. Arc: centre in (x0, y0). Box: corners.
    double hw;              ///< half the stroke width (Segment, Arc)
    double radius;          ///< Arc
    double a0, a1;          ///< Arc: angles in radians, a0 < a1; a full ring has a1 - a0 >= 2 pi
    Ink ink;
    double opacity;
    std::int64_t ymin, ymax;  ///< rows the primitive may touch, inclusive
};

inline void blend(std::uint8_t* p, Ink ink, double alpha) {
    const int a = int(alpha * 255.0 + 0.5);
    if (a <= 0) return;
    const int na = 255 - a;
    p[0] = std::uint8_t((p[0] * na + ink.r * a + 127) / 255);
    p[1] = std::uint8_t((p[1] * na + ink.g * a + 127) / 255);
    p[2] = std::uint8_t((p[2] * na + ink.b * a + 127) / 255);
}

/// Coverage of a round-capped stroke: a one-pixel linear ramp centred on the stroke's edge.
/// Integrating it across the stroke gives the stroke's width, so thin lines fade instead of vanishing.
inline double stroke_coverage(double d, double hw) { return std::clamp(hw + 0.5 - d, 0.0, 1.0); }

inline double segment_distance(const Prim& s, double px, double py) {
    const double dx = s.x1 - s.x0, dy = s.y1 - s.y0;
    const double len2 = dx * dx + dy * dy;
    double t = len2 > 0 ? ((px - s.x0) * dx + (py - s.y0) * dy) / len2 : 0.0;
    t = std::clamp(t, 0.0, 1.0);
    const double ex = s.x0 + t * dx - px, ey = s.y0 + t * dy - py;
    return std::sqrt(ex * ex + ey * ey);
}

inline double arc_distance(const Prim& a, double px, double py) {
    const double dx = px - a.x0, dy = py - a.y0;
    const double r = std::sqrt(dx * dx + dy * dy);
    if (a.a1 - a.a0 >= 2 * std::numbers::pi) return std::abs(r - a.radius);
    double th = std::atan2(dy, dx);
    while (th < a.a0) th += 2 * std::numbers::pi;
    if (th <= a.a1) return std::abs(r - a.radius);
    const double e0x = a.x0 + a.radius * std::cos(a.a0) - px, e0y = a.y0 + a.radius * std::sin(a.a0) - py;
    const double e1x = a.x0 + a.radius * std::cos(a.a1) - px, e1y = a.y0 + a.radius * std::sin(a.a1) - py;
    return std::sqrt(std::min(e0x * e0x + e0y * e0y, e1x * e1x + e1y * e1y));
}

inline double overlap(double lo, double hi, double a, double b) {
    return std::max(0.0, std::min(hi, b) - std::max(lo, a));
}

/// Shades the pixels of row y in [xa, xb] (inclusive, already clipped) with primitive p.
inline void shade_span(const Prim& p, std::uint8_t* row, std::int64_t y, std::int64_t xa, std::int64_t xb) {
    const double py = double(y) + 0.5;
    for (std::int64_t x = xa; x <= xb; ++x) {
        const double px = double(x) + 0.5;
        double cov;
        if (p.kind == Prim::Segment)
            cov = stroke_coverage(segment_distance(p, px, py), p.hw);
        else if (p.kind == Prim::Arc)
            cov = stroke_coverage(arc_distance(p, px, py), p.hw);
        else
            cov = overlap(double(x), double(x) + 1, p.x0, p.x1) * overlap(double(y), double(y) + 1, p.y0, p.y1);
        if (cov > 0) blend(row + x * 3, p.ink, cov * p.opacity);
    }
}

/// Rasterises primitive p on row y: finds the x-span the shape can reach and shades it.
inline void raster_row(const Prim& p, std::uint8_t* row, std::int64_t y, std::int64_t width) {
    const double yc = double(y) + 0.5;
    auto clip_shade = [&](double lo, double hi) {
        // Pixels whose centre x + 0.5 lies in [lo, hi].
        const std::int64_t xa = std::max<std::int64_t>(0, std::int64_t(std::ceil(lo - 0.5)));
        const std::int64_t xb = std::min<std::int64_t>(width - 1, std::int64_t(std::floor(hi - 0.5)));
        if (xa <= xb) shade_span(p, row, y, xa, xb);
    };
    if (p.kind == Prim::Segment) {
        const double r = p.hw + 1.0;
        double ta = 0.0, tb = 1.0;
        const double dy = p.y1 - p.y0;
        if (dy != 0) {
            ta = (yc - r - p.y0) / dy;
            tb = (yc + r - p.y0) / dy;
            if (ta > tb) std::swap(ta, tb);
            ta = std::max(ta, 0.0);
            tb = std::min(tb, 1.0);
            if (ta > tb) return;
        } else if (std::abs(p.y0 - yc) > r) {
            return;
        }
        const double xa = p.x0 + ta * (p.x1 - p.x0), xb = p.x0 + tb * (p.x1 - p.x0);
        clip_shade(std::min(xa, xb) - r, std::max(xa, xb) + r);
    } else if (p.kind == Prim::Arc) {
        const double ro = p.radius + p.hw + 1.0, ri = p.radius - p.hw - 1.0;
        const double dy = yc - p.y0;
        if (std::abs(dy) > ro) return;
        const double wo = std::sqrt(ro * ro - dy * dy);
        if (ri > 0 && std::abs(dy) < ri) {
            // Skip the hole of the ring: two spans, one on each side.
            const double wi = std::sqrt(ri * ri - dy * dy);
            clip_shade(p.x0 - wo, p.x0 - wi);
            clip_shade(p.x0 + wi, p.x0 + wo);
        } else {
            clip_shade(p.x0 - wo, p.x0 + wo);
        }
    } else {
        clip_shade(p.x0 - 0.5, p.x1 + 0.5);
    }
}

/// Builds the sheet in inches; every coordinate is multiplied by dpi as it is stored.
class Sheet {
public:
    explicit Sheet(double dpi) : s_(dpi) {}
    std::vector<Prim> prims;

    void line(double x0, double y0, double x1, double y1, double width_in, Ink ink = kBlack, double opacity = 1.0) {
        Prim p{};
        p.kind = Prim::Segment;
        p.x0 = x0 * s_, p.y0 = y0 * s_, p.x1 = x1 * s_, p.y1 = y1 * s_;
        p.hw = 0.5 * width_in * s_;
        p.ink = ink, p.opacity = opacity;
        const double r = p.hw + 1.0;
        p.ymin = std::int64_t(std::floor(std::min(p.y0, p.y1) - r));
        p.ymax = std::int64_t(std::ceil(std::max(p.y0, p.y1) + r));
        prims.push_back(p);
    }
    void arc(double cx, double cy, double radius, double a0, double a1, double width_in, Ink ink = kBlack,
             double opacity = 1.0) {
        Prim p{};
        p.kind = Prim::Arc;
        p.x0 = cx * s_, p.y0 = cy * s_;
        p.radius = radius * s_;
        p.a0 = a0, p.a1 = a1;
        p.hw = 0.5 * width_in * s_;
        p.ink = ink, p.opacity = opacity;
        const double r = p.radius + p.hw + 1.0;
        p.ymin = std::int64_t(std::floor(p.y0 - r));
        p.ymax = std::int64_t(std::ceil(p.y0 + r));
        prims.push_back(p);
    }
    void circle(double cx, double cy, double radius, double width_in, Ink ink = kBlack) {
        arc(cx, cy, radius, 0.0, 2 * std::numbers::pi + 0.001, width_in, ink);
    }
    void box(double x0, double y0, double x1, double y1, Ink ink = kBlack, double opacity = 1.0) {
        Prim p{};
        p.kind = Prim::Box;
        p.x0 = std::min(x0, x1) * s_, p.y0 = std::min(y0, y1) * s_;
        p.x1 = std::max(x0, x1) * s_, p.y1 = std::max(y0, y1) * s_;
        p.ink = ink, p.opacity = opacity;
        p.ymin = std::int64_t(std::floor(p.y0)) - 1;
        p.ymax = std::int64_t(std::ceil(p.y1)) + 1;
        prims.push_back(p);
    }
    void rect(double x0, double y0, double x1, double y1, double width_in, Ink ink = kBlack) {
        line(x0, y0, x1, y0, width_in, ink);
        line(x1, y0, x1, y1, width_in, ink);
        line(x1, y1, x0, y1, width_in, ink);
        line(x0, y1, x0, y0, width_in, ink);
    }
    /// A dash-dot centre line, the way grid lines are drawn.
    void dash_dot(double x0, double y0, double x1, double y1, double width_in, Ink ink = kBlack) {
        const double len = std::hypot(x1 - x0, y1 - y0);
        const double ux = (x1 - x0) / len, uy = (y1 - y0) / len;
        const double dash = 0.5, gap = 0.08, dot = 0.04;
        for (double t = 0; t < len;) {
            const double e = std::min(len, t + dash);
            line(x0 + ux * t, y0 + uy * t, x0 + ux * e, y0 + uy * e, width_in, ink);
            t = e + gap;
            if (t >= len) break;
            const double d = std::min(len, t + dot);
            line(x0 + ux * t, y0 + uy * t, x0 + ux * d, y0 + uy * d, width_in, ink);
            t = d + gap;
        }
    }

    /// Stroke text on a 14-segment-display skeleton; glyph cell h tall, 0.6 h wide, left-aligned at
    /// (x, y) = top-left. Returns the x after the text.
    double text(double x, double y, std::string_view str, double h, Ink ink = kBlack, double slant = 0.0) {
        const double w = 0.6 * h, adv = 0.85 * h, pen = std::max(0.004, 0.09 * h);
        for (char c : str) {
            const std::uint16_t m = glyph(c);
            // Node grid: columns 0, w/2, w; rows 0, h/2, h. Slant shears x by the height above the baseline.
            auto P = [&](double gx, double gy, double& ox, double& oy) {
                ox = x + gx * w + slant * (1.0 - gy) * h;
                oy = y + gy * h;
            };
            static constexpr double seg[14][4] = {
                {0, 0, 1, 0},         {1, 0, 1, 0.5},  {1, 0.5, 1, 1},   {0, 1, 1, 1},    {0, 0.5, 0, 1},
                {0, 0, 0, 0.5},       {0, 0.5, 0.5, 0.5}, {0.5, 0.5, 1, 0.5}, {0, 0, 0.5, 0.5}, {0.5, 0, 0.5, 0.5},
                {1, 0, 0.5, 0.5},     {0, 1, 0.5, 0.5},   {0.5, 1, 0.5, 0.5}, {1, 1, 0.5, 0.5}};
            for (int k = 0; k < 14; ++k) {
                if (!(m >> k & 1)) continue;
                double ax, ay, bx, by;
                P(seg[k][0], seg[k][1], ax, ay);
                P(seg[k][2], seg[k][3], bx, by);
                line(ax, ay, bx, by, pen, ink);
            }
            x += adv;
        }
        return x;
    }

private:
    double s_;

    // Bits: 0 top, 1 upper right, 2 lower right, 3 bottom, 4 lower left, 5 upper left, 6 middle left,
    // 7 middle right, 8 diagonal top-left, 9 upper centre, 10 diagonal top-right, 11 diagonal
    // bottom-left, 12 lower centre, 13 diagonal bottom-right.
    static std::uint16_t glyph(char c) {
        switch (c) {
            case '0': return 0x003F | 1 << 10 | 1 << 11;
            case '1': return 0x0006;
            case '2': return 0x00DB;
            case '3': return 0x008F;
            case '4': return 0x00E6;
            case '5': return 0x00ED;
            case '6': return 0x00FD;
            case '7': return 0x0007;
            case '8': return 0x00FF;
            case '9': return 0x00EF;
            case 'A': return 0x00F7;
            case 'B': return 0x028F | 1 << 12 | 1 << 7;
            case 'C': return 0x0039;
            case 'D': return 0x020F | 1 << 12;
            case 'E': return 0x0079;
            case 'F': return 0x0071;
            case 'G': return 0x00BD;
            case 'H': return 0x00F6;
            case 'I': return 0x0209 | 1 << 12;
            case 'J': return 0x001E;
            case 'K': return 0x0070 | 1 << 10 | 1 << 13;
            case 'L': return 0x0038;
            case 'M': return 0x0036 | 1 << 8 | 1 << 10;
            case 'N': return 0x0036 | 1 << 8 | 1 << 13;
            case 'O': return 0x003F;
            case 'P': return 0x00F3;
            case 'Q': return 0x003F | 1 << 13;
            case 'R': return 0x00F3 | 1 << 13;
            case 'S': return 0x00ED;
            case 'T': return 0x0001 | 1 << 9 | 1 << 12;
            case 'U': return 0x003E;
            case 'V': return 0x0030 | 1 << 11 | 1 << 10;
            case 'W': return 0x0036 | 1 << 11 | 1 << 13;
            case 'X': return 1 << 8 | 1 << 10 | 1 << 11 | 1 << 13;
            case 'Y': return 1 << 8 | 1 << 10 | 1 << 12;
            case 'Z': return 0x0009 | 1 << 10 | 1 << 11;
            case '-': return 0x00C0;
            case '/': return 1 << 10 | 1 << 11;
            case '\'': return 1 << 9;
            case '"': return 1 << 9 | 1 << 1;
            case 'x': return 1 << 8 | 1 << 10 | 1 << 11 | 1 << 13;
            case '@': return 0x00DF;
            default: return 0;
        }
    }
};

inline std::string random_word(Rng& rng, int len, std::string_view alphabet) {
    std::string s;
    for (int i = 0; i < len; ++i) s += alphabet[rng.below(std::uint32_t(alphabet.size()))];
    return s;
}

/// A revision cloud: a chain of outward bulges along a rectangle's edges.
inline void cloud(Sheet& sh, double x0, double y0, double x1, double y1, double bulge, double width_in, Ink ink) {
    const double pi = std::numbers::pi;
    auto edge = [&](double ax, double ay, double bx, double by, double normal_angle) {
        const double len = std::hypot(bx - ax, by - ay);
        const int n = std::max(1, int(len / (2 * bulge)));
        const double step = len / n, r = step / 2;
        for (int i = 0; i < n; ++i) {
            const double t = (i + 0.5) * step / len;
            const double cx = ax + (bx - ax) * t, cy = ay + (by - ay) * t;
            // A bit more than a half circle, so neighbouring bulges meet with a cusp.
            sh.arc(cx, cy, r * 1.05, normal_angle - pi / 2 - 0.25, normal_angle + pi / 2 + 0.25, width_in, ink);
        }
    };
    // Pixel y grows downward, so the outward normal of the top edge points to angle -pi/2.
    edge(x0, y0, x1, y0, -pi / 2);
    edge(x1, y0, x1, y1, 0.0);
    edge(x1, y1, x0, y1, pi / 2);
    edge(x0, y1, x0, y0, pi);
}

/// Lays the whole sheet out. Coordinates are inches from the top-left corner of a 42 x 30 sheet.
inline std::vector<Prim> build_sheet(double dpi, std::uint64_t seed) {
    Sheet sh(dpi);
    Rng rng(seed);
    const double W = 42.0, H = 30.0;
    const double thin = 0.006, medium = 0.012, thick = 0.024, heavy = 0.04;
    const std::string_view caps = "ABCDEFGHIJKLMNOPRSTUVWXYZ", digits = "0123456789";

    // Border and title block strip on the right.
    sh.rect(0.5, 0.5, W - 0.5, H - 0.5, heavy);
    sh.rect(0.75, 0.75, W - 0.75, H - 0.75, thin);
    const double tb = W - 4.5;
    sh.line(tb, 0.75, tb, H - 0.75, medium);
    for (double y = 20.0; y < H - 1.0; y += 1.25) sh.line(tb, y, W - 0.75, y, thin);
    sh.text(tb + 0.3, 21.0, "FRAMING PLAN", 0.25);
    sh.text(tb + 0.3, 22.3, "LEVEL 2", 0.22);
    sh.text(tb + 0.3, 23.5, "S-201", 0.5);
    sh.text(tb + 0.3, 25.0, "SCALE 1/4\" = 1'-0\"", 0.12);
    sh.text(tb + 0.3, 26.3, std::string("PROJECT 2026-") + random_word(rng, 3, digits), 0.14);
    sh.text(tb + 0.3, 27.5, std::string("DRAWN ") + random_word(rng, 2, caps) + " CHECKED " + random_word(rng, 2, caps), 0.1);
    // General notes: dense rows of small text, the busiest part of a real sheet.
    sh.text(tb + 0.3, 1.2, "GENERAL NOTES", 0.16);
    for (int i = 0; i < 60; ++i) {
        double x = tb + 0.3;
        const double y = 1.6 + i * 0.29;
        x = sh.text(x, y, std::to_string(i + 1) + ".", 0.09) + 0.05;
        const int words = 3 + int(rng.below(4));
        for (int k = 0; k < words && x < W - 1.2; ++k)
            x = sh.text(x, y, random_word(rng, 2 + int(rng.below(6)), caps), 0.09) + 0.09;
    }

    // Structural grid: 8 columns x 6 rows of bays (1/4" = 1'-0", so 4.25" is a 17' bay).
    const int nx = 8, ny = 6;
    const double gx0 = 3.0, gy0 = 3.5, bx = 4.25, by = 4.0;
    const double gx1 = gx0 + nx * bx, gy1 = gy0 + ny * by;
    for (int i = 0; i <= nx; ++i) {
        const double x = gx0 + i * bx;
        sh.dash_dot(x, gy0 - 1.6, x, gy1 + 0.6, thin);
        sh.circle(x, gy0 - 1.9, 0.28, medium);
        sh.text(x - 0.09, gy0 - 2.0, std::string(1, char('A' + i)), 0.2);
    }
    for (int j = 0; j <= ny; ++j) {
        const double y = gy0 + j * by;
        sh.dash_dot(gx0 - 1.6, y, gx1 + 0.6, y, thin);
        sh.circle(gx0 - 1.9, y, 0.28, medium);
        sh.text(gx0 - 1.98, y - 0.1, std::to_string(j + 1), 0.2);
    }

    // Dimension strings above and to the left of the grid.
    auto dim_h = [&](double xa, double xb, double y, const std::string& label) {
        sh.line(xa, y, xb, y, thin);
        sh.line(xa, y + 0.08, xa, y - 0.25, thin);
        sh.line(xb, y + 0.08, xb, y - 0.25, thin);
        for (double x : {xa, xb}) sh.line(x - 0.06, y + 0.06, x + 0.06, y - 0.06, medium);
        sh.text(0.5 * (xa + xb) - 0.3, y - 0.2, label, 0.1);
    };
    auto dim_v = [&](double ya, double yb, double x, const std::string& label) {
        sh.line(x, ya, x, yb, thin);
        sh.line(x - 0.08, ya, x + 0.25, ya, thin);
        sh.line(x - 0.08, yb, x + 0.25, yb, thin);
        for (double y : {ya, yb}) sh.line(x - 0.06, y + 0.06, x + 0.06, y - 0.06, medium);
        sh.text(x - 0.7, 0.5 * (ya + yb) - 0.05, label, 0.1);
    };
    for (int i = 0; i < nx; ++i) dim_h(gx0 + i * bx, gx0 + (i + 1) * bx, gy0 - 0.9, "17'-0\"");
    dim_h(gx0, gx1, gy0 - 1.2, "136'-0\"");
    for (int j = 0; j < ny; ++j) dim_v(gy0 + j * by, gy0 + (j + 1) * by, gx0 - 0.9, "16'-0\"");

    // Beams on every grid line, with a size tag per span.
    const char* beams[] = {"W12X26", "W14X22", "W16X31", "W18X35", "W21X44", "W10X19"};
    for (int j = 0; j <= ny; ++j)
        for (int i = 0; i < nx; ++i) {
            const double y = gy0 + j * by;
            sh.line(gx0 + i * bx + 0.1, y, gx0 + (i + 1) * bx - 0.1, y, thick);
            sh.text(gx0 + i * bx + 1.4, y - 0.2, beams[rng.below(6)], 0.09);
        }
    for (int i = 0; i <= nx; ++i)
        for (int j = 0; j < ny; ++j) {
            const double x = gx0 + i * bx;
            sh.line(x, gy0 + j * by + 0.1, x, gy0 + (j + 1) * by - 0.1, thick);
        }

    // Joists at 16" o.c. (1/3" on paper), alternating direction bay by bay; a diagonal span arrow
    // and a joist tag in each bay.
    for (int j = 0; j < ny; ++j)
        for (int i = 0; i < nx; ++i) {
            const double x0 = gx0 + i * bx, y0 = gy0 + j * by;
            if ((i + j) % 2 == 0) {
                for (double y = y0 + 1.0 / 3; y < y0 + by - 0.1; y += 1.0 / 3) sh.line(x0 + 0.08, y, x0 + bx - 0.08, y, thin);
            } else {
                for (double x = x0 + 1.0 / 3; x < x0 + bx - 0.1; x += 1.0 / 3) sh.line(x, y0 + 0.08, x, y0 + by - 0.08, thin);
            }
            sh.line(x0 + 0.6, y0 + by - 0.6, x0 + bx - 0.6, y0 + 0.6, medium);
            sh.line(x0 + bx - 0.6, y0 + 0.6, x0 + bx - 0.85, y0 + 0.65, medium);
            sh.line(x0 + bx - 0.6, y0 + 0.6, x0 + bx - 0.66, y0 + 0.85, medium);
            sh.text(x0 + 0.9, y0 + 0.5 * by + 0.2, random_word(rng, 2, digits) + "K" + random_word(rng, 1, digits) + " @ 16\"",
                    0.085, kBlack, 0.2);
        }

    // Columns: filled squares with a grey cap plate, at every grid intersection.
    for (int i = 0; i <= nx; ++i)
        for (int j = 0; j <= ny; ++j) {
            const double x = gx0 + i * bx, y = gy0 + j * by;
            sh.box(x - 0.12, y - 0.12, x + 0.12, y + 0.12, kGrey);
            sh.box(x - 0.08, y - 0.08, x + 0.08, y + 0.08, kBlack);
        }

    // Hatched walls: a perimeter wall round the grid and a few interior shear walls (45 degree
    // hatching clipped to each wall).
    auto wall = [&](double x0, double y0, double x1, double y1) {
        sh.rect(x0, y0, x1, y1, medium);
        const double step = 0.07;
        // Lines x - y = c, clipped to the rectangle.
        for (double c = x0 - y1 + step; c < x1 - y0; c += step) {
            const double ya = std::max(y0, x0 - c), yb = std::min(y1, x1 - c);
            if (ya >= yb) continue;
            sh.line(c + ya, ya, c + yb, yb, thin * 0.8);
        }
    };
    const double t = 0.16;
    wall(gx0 - 0.35, gy0 - 0.35, gx1 + 0.35, gy0 - 0.35 + t);
    wall(gx0 - 0.35, gy1 + 0.35 - t, gx1 + 0.35, gy1 + 0.35);
    wall(gx0 - 0.35, gy0 - 0.35 + t, gx0 - 0.35 + t, gy1 + 0.35 - t);
    wall(gx1 + 0.35 - t, gy0 - 0.35 + t, gx1 + 0.35, gy1 + 0.35 - t);
    for (int k = 0; k < 5; ++k) {
        const int i = int(rng.below(nx)), j = int(rng.below(ny));
        const double x = gx0 + i * bx, y = gy0 + j * by;
        if (k % 2 == 0)
            wall(x + 0.4, y + 0.25, x + bx - 0.4, y + 0.25 + t);
        else
            wall(x + 0.25, y + 0.4, x + 0.25 + t, y + by - 0.4);
    }

    // Section cut marks and detail callouts: circles with a split line and two labels.
    for (int k = 0; k < 10; ++k) {
        const double x = rng.uniform(gx0 + 0.5, gx1 - 0.5), y = rng.uniform(gy0 + 0.5, gy1 - 0.5);
        sh.circle(x, y, 0.22, medium);
        sh.line(x - 0.22, y, x + 0.22, y, thin);
        sh.text(x - 0.05, y - 0.17, random_word(rng, 1, digits), 0.12);
        sh.text(x - 0.15, y + 0.05, std::string("S") + random_word(rng, 1, digits), 0.1);
    }

    // Red revision clouds with a delta tag, blue reviewer markups, a yellow highlighter.
    for (int k = 0; k < 6; ++k) {
        const double x = rng.uniform(gx0, gx1 - 3.0), y = rng.uniform(gy0, gy1 - 2.0);
        const double w = rng.uniform(1.5, 3.0), h = rng.uniform(1.0, 2.0);
        cloud(sh, x, y, x + w, y + h, 0.12, medium, kRed);
        sh.line(x + w, y, x + w + 0.25, y - 0.4, medium, kRed);
        sh.line(x + w + 0.25, y - 0.4, x + w + 0.55, y - 0.4, medium, kRed);
        sh.line(x + w + 0.55, y - 0.4, x + w + 0.4, y - 0.14, medium, kRed);
        sh.line(x + w + 0.4, y - 0.14, x + w + 0.25, y - 0.4, medium, kRed);
        sh.text(x + w + 0.34, y - 0.33, std::to_string(k + 1), 0.1, kRed);
    }
    for (int k = 0; k < 8; ++k) {
        const double x = rng.uniform(gx0, gx1 - 2.0), y = rng.uniform(gy0, gy1 - 1.0);
        sh.circle(x, y, rng.uniform(0.3, 0.7), thick, kBlue);
        sh.line(x + 0.5, y + 0.3, x + 1.4, y + 0.9, medium, kBlue);
        sh.text(x + 1.5, y + 0.8, std::string("VERIFY ") + random_word(rng, 3, caps), 0.14, kBlue, 0.25);
    }
    for (int k = 0; k < 4; ++k) {
        const double x = rng.uniform(tb + 0.2, W - 3.0), y = 1.55 + 0.29 * rng.below(60);
        sh.box(x, y - 0.03, x + rng.uniform(1.0, 2.5), y + 0.14, kYellow, 0.45);
    }
    return std::move(sh.prims);
}

}  // namespace detail_drawing

/// The framing-plan sheet at @p dpi (42 x 30 inches: 50 dpi gives 2100 x 1500, 800 dpi
/// 33600 x 24000). Deterministic for a given @p seed whatever @p threads (0: all cores).
inline Drawing make_drawing(int dpi, unsigned threads = 0, std::uint64_t seed = 2026) {
    using namespace detail_drawing;
    Drawing d;
    if (dpi <= 0) return d;
    d.width = 42 * std::int64_t(dpi);
    d.height = 30 * std::int64_t(dpi);
    threads = resolve_threads(threads);
    const std::vector<Prim> prims = build_sheet(double(dpi), seed);

    constexpr std::int64_t kBlockRows = 16;
    const std::int64_t nblocks = (d.height + kBlockRows - 1) / kBlockRows;
    std::vector<std::vector<std::uint32_t>> bins(static_cast<std::size_t>(nblocks));
    for (std::uint32_t i = 0; i < prims.size(); ++i) {
        const std::int64_t b0 = std::max<std::int64_t>(0, prims[i].ymin / kBlockRows);
        const std::int64_t b1 = std::min<std::int64_t>(nblocks - 1, prims[i].ymax / kBlockRows);
        for (std::int64_t b = b0; b <= b1; ++b) bins[std::size_t(b)].push_back(i);
    }

    const std::size_t row_bytes = std::size_t(d.width) * 3;
    d.rgb.resize(row_bytes * std::size_t(d.height));
    parallel_chunks(nblocks, 1, threads, [&](std::int64_t b, std::int64_t) {
        const std::int64_t y0 = b * kBlockRows, y1 = std::min(d.height, y0 + kBlockRows);
        std::memset(d.rgb.data() + std::size_t(y0) * row_bytes, 255, std::size_t(y1 - y0) * row_bytes);
        for (std::uint32_t i : bins[std::size_t(b)]) {
            const Prim& p = prims[i];
            const std::int64_t ya = std::max(y0, p.ymin), yb = std::min(y1 - 1, p.ymax);
            for (std::int64_t y = ya; y <= yb; ++y) raster_row(p, d.rgb.data() + std::size_t(y) * row_bytes, y, d.width);
        }
    });
    return d;
}

/// RGB8 noise: every pixel one of @p colours distinct colours (1 <= colours <= 2^24), drawn
/// uniformly. Rows are seeded independently, so the image is the same for any thread count.
inline std::vector<std::uint8_t> random_palette_image(std::int64_t w, std::int64_t h, int colours, unsigned seed,
                                                      unsigned threads = 0) {
    using namespace detail_drawing;
    colours = std::clamp(colours, 1, 1 << 24);
    // An odd multiplier is a bijection on 24 bits, so the palette entries are distinct.
    const std::uint32_t offset = std::uint32_t(mix(seed, 0xC010u)) & 0xFFFFFFu;
    std::vector<std::uint32_t> palette(static_cast<std::size_t>(colours));
    for (int i = 0; i < colours; ++i) palette[std::size_t(i)] = (std::uint32_t(i) * 0x9E3779u + offset) & 0xFFFFFFu;
    std::vector<std::uint8_t> rgb(std::size_t(std::max<std::int64_t>(0, w * h)) * 3);
    if (w <= 0 || h <= 0) return rgb;
    parallel_chunks(h, 64, resolve_threads(threads), [&](std::int64_t ya, std::int64_t yb) {
        for (std::int64_t y = ya; y < yb; ++y) {
            Rng rng(mix(seed, std::uint64_t(y)));
            std::uint8_t* p = rgb.data() + std::size_t(y * w) * 3;
            for (std::int64_t x = 0; x < w; ++x, p += 3) {
                const std::uint32_t c = palette[rng.below(std::uint32_t(colours))];
                p[0] = std::uint8_t(c), p[1] = std::uint8_t(c >> 8), p[2] = std::uint8_t(c >> 16);
            }
        }
    });
    return rgb;
}

/// A random mask (one byte per pixel, 0 or 1) with foreground probability @p density, set in
/// @p granularity x @p granularity blocks as in YACCLAB's random test images.
inline std::vector<std::uint8_t> random_binary(std::int64_t w, std::int64_t h, double density, unsigned seed,
                                               int granularity = 1, unsigned threads = 0) {
    using namespace detail_drawing;
    std::vector<std::uint8_t> m(std::size_t(std::max<std::int64_t>(0, w * h)));
    if (w <= 0 || h <= 0) return m;
    const int g = std::max(1, granularity);
    const auto threshold = std::uint64_t(std::clamp(density, 0.0, 1.0) * 18446744073709551615.0);
    parallel_chunks(h, 64, resolve_threads(threads), [&](std::int64_t ya, std::int64_t yb) {
        for (std::int64_t y = ya; y < yb; ++y) {
            // Every row of a block row draws the same blocks.
            Rng rng(mix(seed, std::uint64_t(y / g)));
            std::uint8_t* row = m.data() + std::size_t(y * w);
            for (std::int64_t x = 0; x < w; x += g) {
                const std::uint8_t v = density >= 1.0 ? 1 : std::uint8_t(rng.next() < threshold);
                std::memset(row + x, v, std::size_t(std::min<std::int64_t>(g, w - x)));
            }
        }
    });
    return m;
}

/// RGB8 where every pixel has its own colour (w * h <= 2^24): no two neighbours ever merge.
inline std::vector<std::uint8_t> all_distinct_image(std::int64_t w, std::int64_t h) {
    std::vector<std::uint8_t> rgb(std::size_t(std::max<std::int64_t>(0, w * h)) * 3);
    for (std::int64_t i = 0; i < w * h; ++i) {
        // Scrambled by an odd multiplier (a bijection mod 2^24) so runs of values are not sequential.
        const std::uint32_t c = (std::uint32_t(i) * 0x5BD1E9u + 0x1234u) & 0xFFFFFFu;
        rgb[std::size_t(i) * 3 + 0] = std::uint8_t(c);
        rgb[std::size_t(i) * 3 + 1] = std::uint8_t(c >> 8);
        rgb[std::size_t(i) * 3 + 2] = std::uint8_t(c >> 16);
    }
    return rgb;
}

/// Distinct RGB colours in @p rgb (a 2^24-bit set: 2 MiB).
inline std::size_t count_colours(const std::vector<std::uint8_t>& rgb) {
    std::vector<std::uint64_t> seen(static_cast<std::size_t>(1) << 18);
    std::size_t n = 0;
    for (std::size_t i = 0; i + 2 < rgb.size(); i += 3) {
        const std::uint32_t c = rgb[i] | std::uint32_t(rgb[i + 1]) << 8 | std::uint32_t(rgb[i + 2]) << 16;
        std::uint64_t& word = seen[c >> 6];
        const std::uint64_t bit = std::uint64_t(1) << (c & 63);
        n += (word & bit) == 0;
        word |= bit;
    }
    return n;
}

}  // namespace cclabel::bench
