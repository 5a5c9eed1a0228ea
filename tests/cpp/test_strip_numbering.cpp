// The early strip numbering of the streamed GPU pipeline (core/strip_numbering.hpp), run on the CPU
// with the tile API: pictures cut into full-width strips, each strip's map taken `lag` strips after
// it (as the pipeline downloads it), against resolve_tiles()'s final maps. Whenever the numbering
// does not say it is broken, every early map must equal the final one; pictures whose regions meet
// far below (a U, a comb, noise at lag 0) must be caught as broken, with at least one early map
// actually wrong, so the test sees both sides.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "cclabel/cclabel.hpp"
#include "cclabel/tiles.hpp"
#include "core/strip_numbering.hpp"
#include "support/adversarial.hpp"
#include "support/test_image.hpp"

namespace cclabel::test {
namespace {

struct Outcome {
    bool broken = false;
    std::size_t early = 0;       // maps given out before the last strip
    std::size_t early_wrong = 0; // of those, maps unequal to the final one
};

// Strips of @p strip_h rows; strip j's map is taken once strip j + lag is united.
template <typename Out>
Outcome run_strips(const ImageView& view, const Options& o, std::int64_t strip_h, std::uint64_t lag,
                   std::uint64_t max_ids = std::uint64_t(1) << 30) {
    const std::int64_t W = view.width, H = view.height;
    std::vector<TileInfo> infos;
    std::vector<std::vector<std::uint64_t>> first;
    std::vector<Seam> seams;
    cclabel::detail::StripNumbering num(max_ids);
    std::vector<std::vector<Out>> early;
    Outcome out;
    for (std::int64_t y0 = 0; y0 < H; y0 += strip_h) {
        const TileRect r{0, y0, W, std::min(strip_h, H - y0)};
        std::vector<std::uint32_t> local(std::size_t(r.width * r.height));
        infos.push_back(label_tile(tile_view(view, r), 0, y0, W, local.data(), o));
        const std::uint64_t t = infos.size() - 1;
        first.push_back(infos[t].first_index);
        num.add_strip(infos[t].count());
        if (t > 0) {
            Seam s{t - 1, t, seam_equivalences(infos[t - 1], infos[t], o.connectivity)};
            num.unite(t, s.pairs.data(), s.pairs.size());
            if (!s.pairs.empty()) seams.push_back(std::move(s));
        }
        while (num.mapped() + lag <= t) {
            std::vector<Out> m(std::size_t(infos[num.mapped()].count()) + 1, Out(0xEEEEEEEE));
            if (!num.next_map(m.data())) break;
            early.push_back(std::move(m));
        }
    }
    const Resolution res = resolve_tiles(first, seams, 1);
    out.broken = num.broken();
    out.early = early.size();
    for (std::size_t j = 0; j < early.size(); ++j) {
        const auto& want = res.maps[j];
        bool same = want.size() == early[j].size();
        for (std::size_t k = 0; same && k < want.size(); ++k) same = Out(want[k]) == early[j][k];
        if (!same) ++out.early_wrong;
    }
    return out;
}

Options opts(PixelFormat f, int conn, bool bg) {
    Options o;
    o.connectivity = conn;
    o.backend = Backend::Cpu;
    o.threads = 1;
    if (bg && f != PixelFormat::Binary8) o.background = background_channels(f, 0);
    return o;
}

// Unless broken, every early map is the final one: random pictures of every density, the
// adversarial set, every lag and strip height, both connectivities, background on and off.
TEST(StripNumbering, EarlyMapsAreFinalUnlessBroken) {
    std::size_t checked = 0, caught = 0;
    std::uint32_t seed = 7;
    std::vector<Case> cases = adversarial_cases();
    for (std::int64_t h : {40, 97})
        for (std::uint64_t palette : {2, 3, 5}) {
            Case c;
            c.name = "random " + std::to_string(h) + " palette " + std::to_string(palette);
            c.width = 37;
            c.height = h;
            c.v = random_values(c.width, h, palette, 0.3, seed++);
            cases.push_back(std::move(c));
        }
    for (const Case& c : cases) {
        if (c.width == 0 || c.height == 0 || c.width * c.height > 6000) continue;  // the suite's time
        const TestImage img = make_image(c.width, c.height, PixelFormat::Gray16, c.v, 0, 0);
        for (int conn : {4, 8})
            for (bool bg : {false, true})
                for (std::int64_t sh : {std::int64_t(1), std::int64_t(3), std::int64_t(8)})
                    for (std::uint64_t lag : {0u, 1u, 3u}) {
                        const Options o = opts(PixelFormat::Gray16, conn, bg);
                        const std::string what = c.name + " conn " + std::to_string(conn) + (bg ? " bg" : "") +
                                                 " strips of " + std::to_string(sh) + " lag " + std::to_string(lag);
                        const Outcome a = run_strips<std::uint32_t>(img.view(), o, sh, lag);
                        const Outcome b = run_strips<std::uint64_t>(img.view(), o, sh, lag);
                        EXPECT_EQ(a.broken, b.broken) << what;
                        EXPECT_EQ(a.early_wrong, b.early_wrong) << what;
                        if (!a.broken) {
                            EXPECT_EQ(a.early_wrong, 0u) << what;
                            checked += a.early;
                        } else if (a.early_wrong) {
                            ++caught;
                        }
                    }
    }
    std::printf("early maps compared %zu, wrong guesses flagged %zu\n", checked, caught);
    EXPECT_GT(checked, 1000u);  // many early maps were compared, not just given up on
    EXPECT_GT(caught, 10u);     // and wrong guesses happened and were flagged
}

// A U whose arms meet only in the last strip: at lag 0 the right arm's strip is mapped while the
// arms are still two regions, so the join below must break the numbering, and the map was wrong.
TEST(StripNumbering, LateJoinBreaksAndIsSeen) {
    const Case c = late_merge();
    const TestImage img = make_image(c.width, c.height, PixelFormat::Gray8, c.v, 0, 0);
    const Outcome o = run_strips<std::uint32_t>(img.view(), opts(PixelFormat::Gray8, 8, true), 8, 0);
    EXPECT_TRUE(o.broken);
    EXPECT_GT(o.early_wrong, 0u);
    // A lag past the picture's height maps nothing early: nothing can break.
    const Outcome late = run_strips<std::uint32_t>(img.view(), opts(PixelFormat::Gray8, 8, true), 8, 8);
    EXPECT_FALSE(late.broken);
    EXPECT_EQ(late.early, 0u);
}

// The id cap: a checkerboard at 4-connectivity (32 regions a strip of 2 rows, none joined), lag
// 0, room for 100 ids: three strips are mapped (and right), the fourth passes the cap and stops
// the guesses.
TEST(StripNumbering, IdCapStops) {
    const Case c = checkerboard(16, 16);
    const TestImage img = make_image(c.width, c.height, PixelFormat::Gray8, c.v, 0, 0);
    const Outcome o = run_strips<std::uint32_t>(img.view(), opts(PixelFormat::Gray8, 4, false), 2, 0, 100);
    EXPECT_TRUE(o.broken);
    EXPECT_EQ(o.early, 3u);
    EXPECT_EQ(o.early_wrong, 0u);
    // Malformed seams give up rather than read out of range.
    cclabel::detail::StripNumbering n(100);
    n.add_strip(2);
    n.add_strip(2);
    const std::uint32_t bad[] = {1, 3};
    n.unite(1, bad, 2);
    EXPECT_TRUE(n.broken());
    std::uint32_t m[3];
    EXPECT_FALSE(n.next_map(m));
}

}  // namespace
}  // namespace cclabel::test
