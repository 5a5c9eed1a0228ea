// Tolerance labelling through the segment pipeline (Switches::tolerance_segments; segments.cuh's
// tolerance Start and Connect), run by the CPU executor and compared label for label with the CPU
// tolerance labeller (Backend::Cpu, Options::tolerance) and the tolerance flood fill. Plus the join
// thinning (seg_close_joins) against a brute force over random masks, and mutants of it that the
// brute force must catch.
#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "cclabel/cclabel.hpp"
#include "core/request.hpp"
#include "cuda/launch.hpp"
#include "emu/emu_label.hpp"
#include "reference/tolerance_flood_fill.hpp"
#include "support/channel_image.hpp"

namespace cclabel::test {
namespace {

using cuda::Tuning;
namespace cd = cclabel::cuda::detail;

// ---- seg_close_joins against a brute force -------------------------------------------------------

struct Dsu {
    std::vector<int> p;
    explicit Dsu(int n) : p(std::size_t(n)) { std::iota(p.begin(), p.end(), 0); }
    int find(int x) { return p[std::size_t(x)] == x ? x : p[std::size_t(x)] = find(p[std::size_t(x)]); }
    void unite(int a, int b) { p[std::size_t(find(a))] = find(b); }
};

bool bit(std::uint32_t m, int k) { return k >= 0 && k < 32 && ((m >> k) & 1u) != 0; }

/// Whether joins @p j (of masks @p m over @p n pixels) make exactly the unions of lower runs and
/// upper runs that every close foreground pair of neighbours asks for: each join is such a pair,
/// and every pair's runs end up in one set. @p why says what failed.
bool joins_are_complete(const cd::SegCloseMasks& m, std::uint32_t n, bool eight, const cd::SegCloseJoins& j,
                        std::string* why) {
    const int N = int(n);
    auto fg = [&](int k) { return !bit(m.BG, k); };
    auto afg = [&](int q) { return q == -1 ? m.al_fg : q == N ? m.ar_fg : !bit(m.ABG, q); };
    // Lower runs: k goes on with k - 1 when close and both foreground.
    std::vector<int> run(static_cast<std::size_t>(N));
    for (int k = 0; k < N; ++k) {
        const bool cont = k > 0 && bit(m.E, k) && fg(k) && fg(k - 1);
        if (bit(j.E, k) != cont) {
            *why = "E at " + std::to_string(k);
            return false;
        }
        run[std::size_t(k)] = cont ? run[std::size_t(k - 1)] : k;
    }
    // Upper positions -1..N as nodes N + 1 + q + 1 .. ; upper q goes on with q - 1.
    auto up = [&](int q) { return N + 1 + q; };
    Dsu d(2 * N + 3);
    for (int q = 0; q <= N; ++q) {
        const bool close = q < N ? bit(m.UE, q) : m.ue_n;
        if (close && afg(q) && afg(q - 1)) d.unite(up(q), up(q - 1));
    }
    auto candidate = [&](int k, int q) {
        if (!fg(k) || !afg(q)) return false;
        if (q == k) return bit(m.U, k);
        if (!eight) return false;
        return q == k - 1 ? bit(m.UL, k) : bit(m.UR, k);
    };
    for (int k = 0; k < N; ++k)
        for (int d_ = -1; d_ <= 1; ++d_) {
            const std::uint32_t z = d_ == -1 ? j.Zl : d_ == 0 ? j.Zin : j.Zr;
            if (!bit(z, k)) continue;
            if (!candidate(k, k + d_)) {
                *why = "a join that is no close pair: pixel " + std::to_string(k) + " to upper " + std::to_string(k + d_);
                return false;
            }
            d.unite(run[std::size_t(k)], up(k + d_));
        }
    if ((j.Zin | j.Zl | j.Zr) & ~cd::mask_below(n)) {
        *why = "a join past the segment";
        return false;
    }
    for (int k = 0; k < N; ++k)
        for (int q = k - 1; q <= k + 1; ++q)
            if (candidate(k, q) && d.find(run[std::size_t(k)]) != d.find(up(q))) {
                *why = "pixel " + std::to_string(k) + "'s run never reaches upper " + std::to_string(q);
                return false;
            }
    return true;
}

/// Random masks, biased towards long runs and long upper runs (where the thinning acts).
cd::SegCloseMasks random_masks(std::mt19937& rng, std::uint32_t n) {
    auto dense = [&](int ones_in_8) {
        std::uint32_t v = 0;
        for (int k = 0; k < 32; ++k)
            if (int(rng() % 8) < ones_in_8) v |= 1u << k;
        return v;
    };
    const std::uint32_t valid = cd::mask_below(n);
    cd::SegCloseMasks m;
    const int density = int(rng() % 9);
    m.E = dense(density) & valid & ~1u;
    m.BG = dense(int(rng() % 3)) & valid;
    m.U = dense(density) & valid;
    m.UL = dense(density) & valid;
    m.UR = dense(density) & valid;
    m.UE = dense(int(rng() % 9)) & valid;
    m.ABG = dense(int(rng() % 3)) & valid;
    m.ue_n = rng() % 2;
    m.al_fg = rng() % 2;
    m.ar_fg = rng() % 2;
    if (!m.al_fg) m.UL &= ~1u, m.UE &= ~1u;  // nothing to be close to (the callers leave these 0 then)
    if (!m.ar_fg) m.UR &= ~(1u << (n - 1)), m.ue_n = false;
    return m;
}

/// Counts the masks (random and every one-pixel-to-three-pixel pattern) for which @p fn's joins
/// are incomplete or wrong.
template <class Fn>
int failures_of(Fn&& fn, std::string* first_why = nullptr) {
    std::mt19937 rng(28);
    int bad = 0;
    for (int it = 0; it < 40000; ++it) {
        const std::uint32_t n = it % 4 == 0 ? 1 + rng() % 32 : 32 - (rng() % 3 == 0 ? rng() % 4 : 0);
        const cd::SegCloseMasks m = random_masks(rng, n);
        for (bool eight : {false, true}) {
            std::string why;
            if (!joins_are_complete(m, n, eight, fn(m, n, eight), &why)) {
                if (bad == 0 && first_why) *first_why = why + " (n " + std::to_string(n) + (eight ? ", 8-conn)" : ", 4-conn)");
                ++bad;
            }
        }
    }
    return bad;
}

TEST(EmuToleranceSegments, CloseJoinsAreCompleteAndValid) {
    std::string why;
    EXPECT_EQ(failures_of([](const cd::SegCloseMasks& m, std::uint32_t n, bool e) { return cd::seg_close_joins(m, n, e); }, &why),
              0)
        << why;
}

TEST(EmuToleranceSegments, CloseJoinsThinTheUniformCase) {
    // Paper below paper: one join a segment (up-left of pixel 0), as the exact pipeline's.
    cd::SegCloseMasks m;
    m.E = ~1u;
    m.U = ~0u;
    m.UL = m.UE = ~0u;
    m.UR = ~0u;
    m.al_fg = m.ar_fg = m.ue_n = true;
    const cd::SegCloseJoins j = cd::seg_close_joins(m, 32, true);
    EXPECT_EQ(j.Zl, 1u);
    EXPECT_EQ(j.Zin, 0u);
    EXPECT_EQ(j.Zr, 0u);
    const cd::SegCloseJoins j4 = cd::seg_close_joins(m, 32, false);
    EXPECT_EQ(j4.Zin, 1u);
}

// Mutants of the thinning: each must be caught by the brute force.
TEST(EmuToleranceSegments, MutantsOfTheThinningAreCaught) {
    using M = cd::SegCloseMasks;
    // Only the first upper run that meets C: every witness after a run's first dropped.
    auto first_only = [](const M& m, std::uint32_t n, bool e) {
        cd::SegCloseJoins j = cd::seg_close_joins(m, n, e);
        const std::uint32_t RS = (~j.E | 1u) & cd::mask_below(n);
        std::uint32_t keep_l = 0, keep_in = 0, keep_r = 0;
        bool seen = false;
        for (std::uint32_t k = 0; k < n; ++k) {
            if (RS >> k & 1u) seen = false;
            for (int d = -1; d <= 1; ++d) {
                std::uint32_t& keep = d == -1 ? keep_l : d == 0 ? keep_in : keep_r;
                const std::uint32_t z = d == -1 ? j.Zl : d == 0 ? j.Zin : j.Zr;
                if ((z >> k & 1u) && !seen) keep |= 1u << k, seen = true;
            }
        }
        j.Zl = keep_l, j.Zin = keep_in, j.Zr = keep_r;
        return j;
    };
    EXPECT_GT(failures_of(first_only), 0);
    // The stretch rule without "an upper run starts at q": one join a stretch of C even across upper runs.
    auto no_upper_runs = [](const M& m, std::uint32_t n, bool e) {
        M all = m;
        all.UE = ~0u;
        all.ue_n = true;
        all.ABG = 0;
        all.al_fg = all.ar_fg = true;
        cd::SegCloseJoins j = cd::seg_close_joins(all, n, e);
        const cd::SegCloseJoins real = cd::seg_close_joins(m, n, e);  // keep only valid pairs
        j.Zl &= real.Zl | m.UL, j.Zin &= real.Zin | m.U, j.Zr &= real.Zr | m.UR;
        j.E = real.E;
        return j;
    };
    EXPECT_GT(failures_of(no_upper_runs), 0);
    // The exact pipeline's rules: up-left only at run starts, up-right only at run ends without the up join.
    auto exact_rules = [](const M& m, std::uint32_t n, bool e) {
        cd::SegCloseJoins j = cd::seg_close_joins(m, n, e);
        const std::uint32_t valid = cd::mask_below(n), RS = (~j.E | 1u) & valid;
        const std::uint32_t RE = ((RS >> 1) | (1u << (n - 1))) & valid;
        j.Zl &= RS;
        j.Zr &= RE & ~m.U;
        return j;
    };
    EXPECT_GT(failures_of(exact_rules), 0);
    // Background ignored in the row above.
    auto upper_bg_ignored = [](const M& m, std::uint32_t n, bool e) {
        M x = m;
        x.ABG = 0;
        x.al_fg = x.ar_fg = true;
        return cd::seg_close_joins(x, n, e);
    };
    EXPECT_GT(failures_of(upper_bg_ignored), 0);
}

// ---- the emulated segment pipeline against the CPU ----------------------------------------------

struct Variant {
    std::string name;
    Tuning tuning;
};

Tuning seg_tuning(std::uint32_t seg_w, std::uint32_t threads, std::uint32_t rows, std::uint32_t warp = 4) {
    Tuning t;
    t.switches.segment_runs = true;
    t.switches.tolerance_segments = true;
    t.shape.warp_w = warp;
    t.shape.seg_w = seg_w;
    t.shape.seg_threads = threads;
    t.shape.seg_rows = rows;
    return t;
}

/// The segment pipeline's shapes and switches, each with a tolerance.
std::vector<Variant> variants() {
    std::vector<Variant> v;
    {
        Tuning t;  // the GPU's defaults: segments of 32, warps of 32, spans of 32, every switch as shipped
        t.switches.segment_runs = true;
        t.switches.tolerance_segments = true;  // off by default until it has run on a GPU
        v.push_back({"defaults", t});
    }
    {
        Tuning t = seg_tuning(32, 8, 1);  // warps of 4 lanes, spans of 4: uniform warps and halves in small pictures
        t.shape.seg_span = 4;
        v.push_back({"segments of 32, spans of 4 (warp carry)", t});
        t.switches.seg_uniform_warps = false;
        v.push_back({"segments of 32, spans of 4, seg_uniform_warps off", t});
        t.switches.seg_uniform_warps = true;
        t.switches.seg_start_halves = false;
        v.push_back({"segments of 32, spans of 4, seg_start_halves off", t});
        t.switches.seg_start_halves = true;
        t.switches.seg_start_zeroes = true;
        v.push_back({"segments of 32, spans of 4, seg_start_zeroes on", t});
        t.switches.seg_start_zeroes = false;
        t.switches.seg_carry_labels = false;
        t.shape.number_px = 3;
        v.push_back({"segments of 32, spans of 4, number 3 px, seg_carry_labels off", t});
    }
    {
        Tuning t = seg_tuning(4, 8, 1);
        t.shape.seg_span = 4;
        t.shape.number_px = 3;
        v.push_back({"segments of 4, spans of 4 (warp carry), number 3 px", t});
        t.switches.seg_warp_carry = false;
        v.push_back({"segments of 4, spans of 4, Carry kernel", t});
    }
    {
        Tuning t = seg_tuning(5, 4, 3);  // strips of 3 rows: the row above from the previous row
        t.switches.seg_start_halves = false;
        v.push_back({"segments of 5, strips of 3, halves off (keys held)", t});
        t.switches.seg_start_halves = true;
        v.push_back({"segments of 5, strips of 3, halves", t});
    }
    {
        Tuning t = seg_tuning(1, 8, 2);
        t.shape.seg_span = 2;
        v.push_back({"segments of 1, spans of 2, strips of 2", t});
        t = seg_tuning(3, 4, 1);
        t.shape.seg_span = 1;
        v.push_back({"segments of 3, spans of 1 (nothing carried)", t});
        t = seg_tuning(32, 3, 1);
        t.switches.seg_carry = false;
        v.push_back({"segments of 32, seg_carry off", t});
        t = seg_tuning(32, 3, 1);
        t.switches.seg_quad_number = false;
        v.push_back({"segments of 32, seg_quad_number off", t});
        t = seg_tuning(7, 3, 1);
        t.switches.cached_loads = true;
        t.switches.path_halving = false;
        v.push_back({"segments of 7, cached_loads on, path_halving off", t});
    }
    return v;
}

std::optional<std::vector<std::uint64_t>> bg_channels(PixelFormat f, std::uint64_t v) {
    return std::vector<std::uint64_t>(std::size_t(channels(f)), v);
}

/// The emulated labels of @p img against the CPU tolerance labeller and the flood fill.
void expect_tolerance_matches(const ChannelImage& img, int conn, std::uint32_t tol,
                              const std::optional<std::vector<std::uint64_t>>& bg, const Variant& var,
                              std::uint64_t seed, const std::string& what) {
    Options o;
    o.connectivity = conn;
    o.tolerance = tol;
    o.background = bg;
    o.backend = Backend::Cpu;
    const std::size_t n = std::size_t(img.width * img.height);
    std::vector<std::uint32_t> want(n + 1, 0xDEADBEEF), got(n + 1, 0xDEADBEEF);
    const LabelResult cpu = label(img.view(), want.data(), o);
    std::uint32_t n_ref = 0;
    const auto ref = tolerance_flood_fill(img.channels, channels(img.format), img.width, img.height, conn, tol, bg, &n_ref);
    ASSERT_EQ(cpu.count, n_ref) << what << ": the CPU against the flood fill";
    const auto r = cclabel::detail::make_request(img.view(), got.data(), o);
    // The tolerance takes the segment pipeline (for_tolerance keeps it, as label_cuda.cu does).
    const Tuning applied = cuda::for_tolerance(var.tuning);
    ASSERT_TRUE(tol == 0 || applied.switches.segment_runs) << var.name;
    emu::EmuRun run;
    try {
        run = emu::emu_label(r, got.data(), var.tuning, seed);
    } catch (const std::exception& e) {
        FAIL() << what << " [" << var.name << "]: " << e.what();
    }
    const std::string where = what + " conn " + std::to_string(conn) + " tol " + std::to_string(tol) +
                              (bg ? " bg" : "") + " [" + var.name + "] seed " + std::to_string(seed);
    ASSERT_EQ(run.count, cpu.count) << where;
    ASSERT_EQ(got[n], 0xDEADBEEFu) << where << ": wrote past the output";
    for (std::size_t i = 0; i < n; ++i)
        ASSERT_EQ(got[i], want[i]) << where << " at (" << i % std::size_t(img.width) << ", " << i / std::size_t(img.width)
                                   << ")";
}

constexpr PixelFormat kFormats[] = {PixelFormat::Gray8, PixelFormat::Gray16, PixelFormat::RGB8, PixelFormat::RGBA8,
                                    PixelFormat::U32};

/// Row padding so that rows start on 16 bytes (Start's 16-byte loads, halves, uniform warps), or
/// an odd one (@p aligned false: pixel by pixel).
std::int64_t pad_for(std::int64_t w, PixelFormat f, bool aligned) {
    const std::int64_t row = w * bytes_per_pixel(f);
    return aligned ? (16 - row % 16) % 16 : 16 - row % 16 + 1;
}

TEST(EmuToleranceSegments, RandomPicturesEveryVariant) {
    const std::pair<std::int64_t, std::int64_t> sizes[] = {{1, 1},  {1, 9},  {9, 1},  {31, 5}, {32, 6},
                                                           {33, 5}, {64, 4}, {65, 4}, {100, 3}};
    std::uint32_t seed = 1;
    for (const Variant& var : variants())
        for (auto [w, h] : sizes) {
            const PixelFormat f = kFormats[seed % 5];
            const int nch = channels(f);
            const std::uint64_t step = f == PixelFormat::U32 ? 1000003 : f == PixelFormat::Gray16 ? 257 : seed % 2 ? 1 : 5;
            const ChannelImage img(w, h, f, random_channels(w * h, nch, channel_max(f), step, nch > 1 ? 3 : 6, seed),
                                   pad_for(w, f, seed % 3 != 0));
            for (int conn : {4, 8}) {
                const std::uint32_t tol = std::uint32_t(step * (1 + seed % 3));
                expect_tolerance_matches(img, conn, tol, seed % 2 ? bg_channels(f, 0) : std::nullopt, var, seed,
                                         std::string(format_name(f)) + " random " + std::to_string(w) + "x" +
                                             std::to_string(h));
                ++seed;
            }
        }
}

/// Ramps: each step within the tolerance, the ends far apart, so only the chain joins them.
/// Horizontal (along rows, across every seam), vertical, diagonal (8-conn only) and a serpentine.
ChannelImage ramp(std::int64_t w, std::int64_t h, PixelFormat f, int kind, std::uint64_t step, bool aligned) {
    const int nch = channels(f);
    const std::uint64_t max = channel_max(f);
    std::vector<std::uint64_t> v(std::size_t(w * h * nch));
    for (std::int64_t y = 0; y < h; ++y)
        for (std::int64_t x = 0; x < w; ++x) {
            std::uint64_t t = 0;
            switch (kind) {
                case 0: t = std::uint64_t(x); break;
                case 1: t = std::uint64_t(y); break;
                case 2: t = std::uint64_t(x + y); break;  // diagonal bands: steps of one along both axes
                case 3: t = std::uint64_t(y * w + (y % 2 ? w - 1 - x : x)); break;
                default: t = std::uint64_t((x * 7 + y * 3) % 11); break;  // a jagged field
            }
            for (int c = 0; c < nch; ++c) {
                const std::uint64_t range = max + 1 == 0 ? max : max + 1;
                const std::uint64_t val = (t * step * std::uint64_t(c + 1)) % (range / step * step);
                v[std::size_t((y * w + x) * nch + c)] = c % 2 ? max - val : val;
            }
        }
    return ChannelImage(w, h, f, v, pad_for(w, f, aligned));
}

TEST(EmuToleranceSegments, RampsJoinOnlyThroughTheChain) {
    const std::pair<std::int64_t, std::int64_t> sizes[] = {{31, 3}, {33, 4}, {64, 3}, {65, 3}, {100, 2}, {130, 3}};
    std::uint32_t seed = 500;
    const std::vector<Variant> vs = variants();
    for (std::size_t vi = 0; vi < vs.size(); ++vi)
        for (auto [w, h] : sizes)
            for (int kind = 0; kind < 5; ++kind) {
                const PixelFormat f = kFormats[(seed + vi) % 5];
                const std::uint64_t step = f == PixelFormat::U32 ? 70000 : f == PixelFormat::Gray16 ? 300 : 2;
                const ChannelImage img = ramp(w, h, f, kind, step, (seed % 2) == 0);
                for (int conn : {4, 8})
                    for (std::uint64_t tol_steps : {1u, 2u}) {
                        // tol_steps 1: a step of one channel's "step" is within the tolerance; channel c moves
                        // by (c + 1) steps, so multi-channel formats need 3 or 4 steps for every channel.
                        const std::uint32_t tol = std::uint32_t(step * tol_steps * std::uint64_t(channels(f)));
                        expect_tolerance_matches(img, conn, tol, (seed % 3 == 0) ? bg_channels(f, 0) : std::nullopt,
                                                 vs[vi], seed, std::string(format_name(f)) + " ramp " +
                                                                   std::to_string(kind) + " " + std::to_string(w) +
                                                                   "x" + std::to_string(h));
                        ++seed;
                    }
            }
}

/// A drawing: a paper value (as background or labelled) with strokes whose edges fade into the
/// paper within the tolerance, dots, and strokes ending on segment seams; rows aligned so that
/// uniform warps take their short path. Widths of 128 and more: some warps (4 lanes of 32) see
/// paper only.
TEST(EmuToleranceSegments, DrawingLikePicturesPaperAsBackgroundOrNot) {
    std::uint32_t seed = 900;
    // The variants whose Start reads whole aligned segments (uniform warps, halves), and the defaults.
    std::vector<Variant> drawing_variants;
    for (const Variant& v : variants())
        if (v.name == "defaults" || v.name.rfind("segments of 32, spans of 4", 0) == 0) drawing_variants.push_back(v);
    ASSERT_EQ(drawing_variants.size(), 6u);
    for (PixelFormat f : {PixelFormat::Gray8, PixelFormat::RGB8, PixelFormat::RGBA8})
        for (std::int64_t w : {128, 200, 256}) {
            const std::int64_t h = 16;
            const int nch = channels(f);
            std::mt19937 rng(seed);
            std::vector<std::uint64_t> px(std::size_t(w * h), 250);
            auto put = [&](std::int64_t x, std::int64_t y, std::uint64_t v) {
                if (x >= 0 && x < w && y >= 0 && y < h) px[std::size_t(y * w + x)] = v;
            };
            for (int s = 0; s < 6; ++s) {  // horizontal strokes with faded ends, on and off seams
                const std::int64_t y = std::int64_t(rng() % std::uint32_t(h)), x0 = std::int64_t(rng() % std::uint32_t(w));
                const std::int64_t len = 5 + std::int64_t(rng() % 60);
                for (std::int64_t x = x0; x < x0 + len; ++x) put(x, y, 20);
                put(x0 - 1, y, 120), put(x0 - 2, y, 200), put(x0 + len, y, 120), put(x0 + len + 1, y, 200);
            }
            for (int s = 0; s < 4; ++s) {  // vertical strokes
                const std::int64_t x = s % 2 ? 32 * std::int64_t(rng() % std::uint32_t(w / 32)) + (s % 4 == 1 ? 31 : 0)
                                             : std::int64_t(rng() % std::uint32_t(w));
                const std::int64_t y0 = std::int64_t(rng() % std::uint32_t(h));
                for (std::int64_t y = y0; y < y0 + 10; ++y) put(x, y, 60 + std::uint64_t(y % 3) * 30);
            }
            for (int s = 0; s < 8; ++s)  // dots close to the paper and far from it
                put(std::int64_t(rng() % std::uint32_t(w)), std::int64_t(rng() % std::uint32_t(h)), s % 2 ? 230 : 90);
            std::vector<std::uint64_t> ch(std::size_t(w * h * nch));
            for (std::size_t i = 0; i < px.size(); ++i)
                for (int c = 0; c < nch; ++c) ch[i * std::size_t(nch) + std::size_t(c)] = c == 3 ? 255 : px[i];
            const ChannelImage img(w, h, f, ch, pad_for(w, f, true));
            std::optional<std::vector<std::uint64_t>> paper = std::vector<std::uint64_t>(std::size_t(nch), 250);
            if (nch == 4) (*paper)[3] = 255;
            for (const Variant& var : drawing_variants)
                for (int conn : {4, 8})
                    for (std::uint32_t tol : {29u, 64u})
                        for (bool as_bg : {true, false})
                            expect_tolerance_matches(img, conn, tol, as_bg ? paper : std::nullopt, var, seed++,
                                                     std::string(format_name(f)) + " drawing " + std::to_string(w));
        }
}

/// seg_uniform_warps with a tolerance: stripes as wide as a warp's span (4 segments of 32), each
/// one value, so that whole warps are uniform and their rows join only through the uniform path's
/// masks; neighbouring stripes differ by a step within the tolerance or beyond it, so the joins
/// across the stripes' seams (pixel 0's left join or carry, up-left and up-right) are decided by
/// closeness. One stripe is the background when it is on.
TEST(EmuToleranceSegments, UniformWarpsOfCloseStripes) {
    std::uint32_t seed = 1700;
    std::vector<Variant> uniform_variants;
    for (const Variant& v : variants())
        if (v.name.rfind("segments of 32, spans of 4", 0) == 0) uniform_variants.push_back(v);
    ASSERT_EQ(uniform_variants.size(), 5u);
    for (PixelFormat f : kFormats) {
        const std::int64_t w = 640, h = 5;
        const int nch = channels(f);
        const std::uint64_t unit = f == PixelFormat::U32 ? 100000 : f == PixelFormat::Gray16 ? 1000 : 10;
        const std::uint64_t steps[] = {0, 1, 3, 4, 8};  // stripe i's value: the sum of the steps so far, in units
        std::vector<std::uint64_t> ch(std::size_t(w * h * nch));
        for (std::int64_t y = 0; y < h; ++y)
            for (std::int64_t x = 0; x < w; ++x) {
                std::uint64_t v = 5 * unit;
                for (std::int64_t i = 1; i <= x / 128; ++i) v += steps[std::size_t(i)] * unit;
                if (y == 0 && x % 128 == 64) v += 20 * unit;  // the top row is never a uniform warp's
                for (int c = 0; c < nch; ++c) ch[std::size_t((y * w + x) * nch + c)] = v;
            }
        const ChannelImage img(w, h, f, ch, pad_for(w, f, true));
        for (const Variant& var : uniform_variants)
            for (int conn : {4, 8})
                for (std::uint64_t tol_units : {1u, 3u, 4u})
                    for (bool bg : {false, true})
                        expect_tolerance_matches(img, conn, std::uint32_t(tol_units * unit),
                                                 bg ? bg_channels(f, 9 * unit) : std::nullopt, var, seed++,
                                                 std::string(format_name(f)) + " uniform stripes");
    }
}

/// Runs and carries across seams: long runs of one value with single pixels out of tolerance,
/// placed at lanes 0, 1, 30, 31 of segments and around span ends, rows that continue a run into the
/// next segment with the upper row broken, and the 0 / maximum channel edges with tolerances 1,
/// max - 1 and max (everything but the background joins).
TEST(EmuToleranceSegments, SeamsCarriesAndChannelEdges) {
    std::uint32_t seed = 1300;
    const std::vector<Variant> vs = variants();
    for (PixelFormat f : kFormats)
        for (std::int64_t w : {31, 32, 33, 64, 65, 100, 257}) {
            const std::int64_t h = 5;
            const int nch = channels(f);
            const std::uint64_t max = channel_max(f);
            std::vector<std::uint64_t> ch(std::size_t(w * h * nch));
            for (std::int64_t y = 0; y < h; ++y)
                for (std::int64_t x = 0; x < w; ++x) {
                    const std::int64_t lane = x % 32;
                    std::uint64_t v = (y % 2 ? max : 0);  // rows of 0 and of the maximum: far apart
                    if ((lane == 0 || lane == 31 || lane == 1 || lane == 30) && (x / 32 + y) % 3 == 0) v = max - v;
                    if (x % 128 == 127 || x % 128 == 0) v = max / 2;  // span seams
                    if (y == 2 && x % 5 == 0) v = y % 2 ? 1 : max - 1;
                    for (int c = 0; c < nch; ++c) ch[std::size_t((y * w + x) * nch + c)] = c == 1 ? max - v : v;
                }
            const ChannelImage img(w, h, f, ch, pad_for(w, f, w % 2 == 0));
            const std::uint32_t m32 = std::uint32_t(max);
            for (std::uint32_t tol : {1u, m32 / 2, m32 - 1, m32})
                for (int conn : {4, 8})
                    for (bool bg : {false, true}) {
                        const Variant& var = vs[seed % vs.size()];
                        expect_tolerance_matches(img, conn, tol, bg ? bg_channels(f, 0) : std::nullopt, var, seed++,
                                                 std::string(format_name(f)) + " seams " + std::to_string(w));
                    }
        }
}

/// 8-connectivity's diagonal joins across segment seams, where the exact pipeline's rules (up-left
/// only at a run's first pixel, up-right only at its last without the up join) would miss: a run
/// whose middle pixel is close to an upper pixel its neighbours are not close to; a carried upper
/// pixel past the segment's end.
TEST(EmuToleranceSegments, DiagonalsThroughRunMiddlesAndSeams) {
    std::uint32_t seed = 2000;
    for (std::int64_t w : {8, 31, 32, 33, 64, 96}) {
        const std::int64_t h = 6;
        std::vector<std::uint64_t> v(std::size_t(w * h));
        for (std::int64_t y = 0; y < h; ++y)
            for (std::int64_t x = 0; x < w; ++x) {
                // Lower rows: a gentle ramp 100, 103, 106, ... (each step 3); upper rows: isolated
                // values each close to just one of the lower pixels diagonally.
                v[std::size_t(y * w + x)] = y % 2 ? std::uint64_t(100 + 3 * (x % 30)) : std::uint64_t(100 + 3 * ((x + 1) % 30) + (x % 2 ? 0 : 50));
            }
        const ChannelImage img(w, h, PixelFormat::Gray8, v, pad_for(w, PixelFormat::Gray8, true));
        for (const Variant& var : variants())
            for (int conn : {4, 8})
                for (std::uint32_t tol : {3u, 4u, 5u})
                    expect_tolerance_matches(img, conn, tol, std::nullopt, var, seed++, "diagonals " + std::to_string(w));
    }
}

TEST(EmuToleranceSegments, BatchesNumberEachImage) {
    // A stack of images (the row above the first row of each image is another image's): with the
    // segment pipeline the tolerance joins must stop at each image's top, as exact ones do.
    const std::int64_t w = 40, h = 5, B = 3;
    std::vector<std::uint64_t> v(std::size_t(w * h * B));
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = (i * 3) % 40;
    const ChannelImage img(w, h * B, PixelFormat::Gray8, v, pad_for(w, PixelFormat::Gray8, true));
    Options o;
    o.tolerance = 4;
    for (const Variant& var : variants()) {
        std::vector<std::uint32_t> got(std::size_t(w * h * B)), counts;
        const auto r = cclabel::detail::make_request(img.view(), got.data(), o);
        emu::emu_label(r, got.data(), var.tuning, 3, std::uint32_t(h), &counts);
        for (std::int64_t b = 0; b < B; ++b) {
            const std::vector<std::uint64_t> part(v.begin() + b * w * h, v.begin() + (b + 1) * w * h);
            std::uint32_t n_ref = 0;
            const auto ref = tolerance_flood_fill(part, 1, w, h, 8, 4, std::nullopt, &n_ref);
            ASSERT_EQ(counts[std::size_t(b)], n_ref) << var.name << " image " << b;
            for (std::int64_t i = 0; i < w * h; ++i)
                ASSERT_EQ(got[std::size_t(b * w * h + i)], ref[std::size_t(i)]) << var.name << " image " << b << " pixel " << i;
        }
    }
}

TEST(EmuToleranceSegments, SwitchOffTakesThePixelPipeline) {
    Tuning t;
    t.switches.tolerance_segments = false;
    EXPECT_FALSE(cuda::for_tolerance(t).switches.segment_runs);
    t.switches.tolerance_segments = true;
    EXPECT_TRUE(cuda::for_tolerance(t).switches.segment_runs);
    // On by default since it ran on the H100 (cuda/tuning.hpp): a large picture's tolerance takes
    // the segment pipeline.
    EXPECT_TRUE(cuda::Switches{}.tolerance_segments);
    EXPECT_TRUE(cuda::for_tolerance(cuda::default_tuning(std::uint64_t(1) << 22)).switches.segment_runs);
    // Small pictures keep the pixel pipeline (default_tuning turns segment_runs off below 2^22 pixels).
    Tuning small = cuda::default_tuning(1000), large = cuda::default_tuning(std::uint64_t(1) << 22);
    small.switches.tolerance_segments = large.switches.tolerance_segments = true;
    EXPECT_FALSE(cuda::for_tolerance(small).switches.segment_runs);
    EXPECT_TRUE(cuda::for_tolerance(large).switches.segment_runs);
}

}  // namespace
}  // namespace cclabel::test
