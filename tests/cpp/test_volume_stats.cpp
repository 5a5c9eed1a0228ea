// regions_volume, remove_small_volume, keep_largest_volume and verify_volume against brute force:
// the flood fill (tests/reference/volume_flood_fill.hpp) labels, then direct loops over the voxels
// give each region's count, box, centroid, surface and value, and the filters' expected labels.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "cclabel/cclabel.hpp"
#include "reference/volume_flood_fill.hpp"

namespace cclabel {
namespace {

using test::volume_flood_fill;

/// A volume of palette indices (0..7) and its bytes in one format.
struct Vol {
    std::int64_t w, h, d;
    std::vector<std::uint64_t> idx;
    std::vector<std::uint8_t> bytes;

    Vol(std::int64_t w_, std::int64_t h_, std::int64_t d_) : w(w_), h(h_), d(d_), idx(std::size_t(w_ * h_ * d_)) {}
    std::uint64_t& at(std::int64_t x, std::int64_t y, std::int64_t z) { return idx[std::size_t((z * h + y) * w + x)]; }

    /// The expected VolumeRegionStats::value of palette entry @p i in @p f.
    static std::array<std::uint32_t, 4> value_of(PixelFormat f, std::uint64_t i) {
        switch (f) {
            case PixelFormat::Binary8: return {i != 0 ? 1u : 0u, 0, 0, 0};
            case PixelFormat::Gray8: return {std::uint32_t(i * 30 + 1), 0, 0, 0};
            case PixelFormat::U32: return {std::uint32_t(i * 0x10000001u), 0, 0, 0};
            case PixelFormat::RGB8: return {std::uint32_t(i), 7, std::uint32_t(255 - i), 0};
            case PixelFormat::RGBA8: return {7, std::uint32_t(i), 7, std::uint32_t(3 + 40 * i)};
            case PixelFormat::I16: return {std::uint32_t(std::uint16_t(std::int16_t(-300 * std::int64_t(i)))), 0, 0, 0};
            case PixelFormat::F32: {
                // entry 0 is +0.0 (stored as -0.0 too), 1 NaN (any payload): both read canonical
                const float v = i == 0 ? 0.0f : i == 1 ? std::bit_cast<float>(0x7FC00000u) : float(i) * 0.25f;
                return {std::bit_cast<std::uint32_t>(v), 0, 0, 0};
            }
            case PixelFormat::I64: {
                const std::uint64_t b = std::uint64_t(-(std::int64_t(1) << 40) * std::int64_t(i) - 1);
                return {std::uint32_t(b), std::uint32_t(b >> 32), 0, 0};
            }
            default: return {};
        }
    }

    /// Writes entry @p i in @p f at @p p; @p alt picks another encoding of the same value (a
    /// Binary8 byte other than 1, -0.0, another NaN).
    static void encode(PixelFormat f, std::uint64_t i, bool alt, std::uint8_t* p) {
        const auto v = value_of(f, i);
        switch (f) {
            case PixelFormat::Binary8: p[0] = std::uint8_t(i == 0 ? 0 : alt ? 200 : 1); break;
            case PixelFormat::Gray8: p[0] = std::uint8_t(v[0]); break;
            case PixelFormat::RGB8: p[0] = std::uint8_t(v[0]), p[1] = std::uint8_t(v[1]), p[2] = std::uint8_t(v[2]); break;
            case PixelFormat::RGBA8:
                for (int c = 0; c < 4; ++c) p[c] = std::uint8_t(v[std::size_t(c)]);
                break;
            case PixelFormat::I16: { const std::uint16_t s = std::uint16_t(v[0]); std::memcpy(p, &s, 2); break; }
            case PixelFormat::F32: {
                std::uint32_t b = v[0];
                if (alt && i == 0) b = 0x80000000u;
                if (alt && i == 1) b = 0xFFC00123u;
                std::memcpy(p, &b, 4);
                break;
            }
            case PixelFormat::I64: { const std::uint64_t b = v[0] | (std::uint64_t(v[1]) << 32); std::memcpy(p, &b, 8); break; }
            default: std::memcpy(p, &v[0], 4); break;  // U32
        }
    }

    VolumeView as(PixelFormat f, std::int64_t row_pad = 0, std::int64_t slice_pad = 0) {
        const std::int64_t bpp = bytes_per_pixel(f), rs = w * bpp + row_pad, ss = h * rs + slice_pad;
        bytes.assign(std::size_t(std::max<std::int64_t>(1, d * ss)), 0xCD);
        std::mt19937 rng(7);
        for (std::int64_t z = 0; z < d; ++z)
            for (std::int64_t y = 0; y < h; ++y)
                for (std::int64_t x = 0; x < w; ++x) encode(f, at(x, y, z), rng() % 2, &bytes[std::size_t(z * ss + y * rs + x * bpp)]);
        return VolumeView{bytes.data(), w, h, d, rs, ss, f};
    }
    std::vector<std::uint64_t> keys(PixelFormat f) const {
        std::vector<std::uint64_t> k = idx;
        if (f == PixelFormat::Binary8)
            for (auto& v : k) v = v != 0;
        return k;
    }
};

Vol random_vol(std::int64_t w, std::int64_t h, std::int64_t d, int palette, std::uint32_t seed) {
    Vol v(w, h, d);
    std::mt19937 rng(seed);
    for (auto& i : v.idx) i = rng() % std::uint32_t(palette);
    return v;
}

/// The brute-force rows of @p labels: one pass per voxel, every neighbour looked at directly.
struct Want {
    std::uint64_t voxels = 0, surface = 0;
    std::int64_t x0 = 1 << 30, y0 = 1 << 30, z0 = 1 << 30, x1 = -1, y1 = -1, z1 = -1;
    long double sx = 0, sy = 0, sz = 0;
    std::int64_t first = -1;
};

std::vector<Want> brute(const std::vector<std::uint32_t>& lab, std::int64_t w, std::int64_t h, std::int64_t d) {
    const std::uint32_t n = lab.empty() ? 0 : *std::max_element(lab.begin(), lab.end());
    std::vector<Want> rows(std::size_t(n) + 1);
    auto at = [&](std::int64_t x, std::int64_t y, std::int64_t z) -> std::int64_t {
        if (x < 0 || y < 0 || z < 0 || x >= w || y >= h || z >= d) return -1;
        return lab[std::size_t((z * h + y) * w + x)];
    };
    for (std::int64_t z = 0; z < d; ++z)
        for (std::int64_t y = 0; y < h; ++y)
            for (std::int64_t x = 0; x < w; ++x) {
                const std::int64_t l = at(x, y, z);
                Want& r = rows[std::size_t(l)];
                if (r.first < 0) r.first = (z * h + y) * w + x;
                ++r.voxels;
                r.x0 = std::min(r.x0, x), r.x1 = std::max(r.x1, x);
                r.y0 = std::min(r.y0, y), r.y1 = std::max(r.y1, y);
                r.z0 = std::min(r.z0, z), r.z1 = std::max(r.z1, z);
                r.sx += x, r.sy += y, r.sz += z;
                const bool out = at(x - 1, y, z) != l || at(x + 1, y, z) != l || at(x, y - 1, z) != l ||
                                 at(x, y + 1, z) != l || at(x, y, z - 1) != l || at(x, y, z + 1) != l;
                r.surface += out;
            }
    return rows;
}

/// regions_volume of @p lab equals the brute force; values come from @p v's palette in @p f.
void expect_rows(Vol& v, PixelFormat f, const std::vector<std::uint32_t>& lab, const VolumeView& view, const Options& o,
                 const std::string& what) {
    const std::vector<VolumeRegionStats> got = regions_volume(view, lab.data(), o);
    const std::vector<Want> want = brute(lab, v.w, v.h, v.d);
    ASSERT_EQ(got.size(), want.size()) << what;
    for (std::size_t l = 0; l < got.size(); ++l) {
        const VolumeRegionStats& g = got[l];
        const Want& e = want[l];
        const std::string at = what + " label " + std::to_string(l);
        ASSERT_EQ(g.voxels, e.voxels) << at;
        EXPECT_EQ(g.surface, e.surface) << at;
        if (e.voxels == 0) {
            EXPECT_TRUE(std::isnan(g.cx) && std::isnan(g.cy) && std::isnan(g.cz)) << at;
            EXPECT_EQ(g.width, 0) << at;
            EXPECT_EQ(g.value, (std::array<std::uint32_t, 4>{})) << at;
            continue;
        }
        EXPECT_EQ(g.x, e.x0) << at;
        EXPECT_EQ(g.y, e.y0) << at;
        EXPECT_EQ(g.z, e.z0) << at;
        EXPECT_EQ(g.width, e.x1 - e.x0 + 1) << at;
        EXPECT_EQ(g.height, e.y1 - e.y0 + 1) << at;
        EXPECT_EQ(g.depth, e.z1 - e.z0 + 1) << at;
        EXPECT_NEAR(g.cx, double(e.sx / e.voxels), 1e-9) << at;
        EXPECT_NEAR(g.cy, double(e.sy / e.voxels), 1e-9) << at;
        EXPECT_NEAR(g.cz, double(e.sz / e.voxels), 1e-9) << at;
        EXPECT_EQ(g.value, Vol::value_of(f, v.idx[std::size_t(e.first)])) << at;
    }
}

constexpr PixelFormat kFormats[] = {PixelFormat::Binary8, PixelFormat::Gray8, PixelFormat::U32, PixelFormat::RGB8,
                                    PixelFormat::RGBA8,   PixelFormat::I16,   PixelFormat::F32, PixelFormat::I64};

struct Shape {
    std::int64_t w, h, d;
};
constexpr Shape kShapes[] = {{1, 1, 1}, {7, 1, 1}, {1, 6, 1}, {1, 1, 8}, {5, 4, 3}, {17, 9, 11}, {2, 31, 4}, {40, 30, 20}};

TEST(VolumeRegions, MatchBruteForceOnFloodFillLabels) {
    for (const Shape s : kShapes)
        for (PixelFormat f : kFormats)
            for (int conn : {6, 18, 26}) {
                Vol v = random_vol(s.w, s.h, s.d, f == PixelFormat::Binary8 ? 2 : 4, std::uint32_t(s.w * 131 + s.d + conn));
                const std::vector<std::uint32_t> lab = volume_flood_fill(v.keys(f), v.w, v.h, v.d, conn, std::nullopt);
                Options o;
                o.connectivity = conn;
                for (int t : {1, 2, 3, 0}) {
                    o.threads = t;
                    const std::string what = std::string(format_name(f)) + " " + std::to_string(s.w) + "x" +
                                             std::to_string(s.h) + "x" + std::to_string(s.d) + " conn " +
                                             std::to_string(conn) + " threads " + std::to_string(t);
                    expect_rows(v, f, lab, v.as(f), o, what);
                    expect_rows(v, f, lab, v.as(f, 3, 5), o, what + " padded");
                }
            }
}

TEST(VolumeRegions, LabelVolumeOutputWithBackground) {
    Vol v = random_vol(30, 20, 25, 3, 5);
    for (int conn : {6, 18, 26}) {
        Options o;
        o.connectivity = conn;
        o.background_value = 1;  // Gray8 entry 0 is 1
        const VolumeView view = v.as(PixelFormat::Gray8);
        std::vector<std::uint32_t> lab(v.idx.size());
        const LabelResult r = label_volume(view, lab.data(), o);
        const std::vector<VolumeRegionStats> st = regions_volume(view, lab.data(), o);
        ASSERT_EQ(st.size(), std::size_t(r.count) + 1);
        std::uint64_t total = 0;
        for (const auto& s : st) total += s.voxels;
        EXPECT_EQ(total, v.idx.size());
        expect_rows(v, PixelFormat::Gray8, lab, view, o, "label_volume conn " + std::to_string(conn));
    }
}

TEST(VolumeRegions, LabelVolumeOutputOfColourVolumesWithBackground) {
    // RGB8 and RGBA8 volumes labelled with a colour background: every region's value is its colour,
    // all four channels (entries 0..2 differ in green, and in alpha for RGBA8).
    for (PixelFormat f : {PixelFormat::RGB8, PixelFormat::RGBA8})
        for (int conn : {6, 18, 26}) {
            Vol v = random_vol(13, 7, 9, 3, std::uint32_t(conn) + 11);
            Options o;
            o.connectivity = conn;
            const auto bg = Vol::value_of(f, 1);
            o.background = f == PixelFormat::RGB8 ? std::vector<std::uint64_t>{bg[0], bg[1], bg[2]}
                                                  : std::vector<std::uint64_t>{bg[0], bg[1], bg[2], bg[3]};
            const VolumeView view = v.as(f, 1, 2);
            std::vector<std::uint32_t> lab(v.idx.size());
            const LabelResult r = label_volume(view, lab.data(), o);
            const std::vector<VolumeRegionStats> st = regions_volume(view, lab.data(), o);
            ASSERT_EQ(st.size(), std::size_t(r.count) + 1);
            EXPECT_EQ(st[0].value, bg);
            for (std::size_t l = 1; l < st.size(); ++l) EXPECT_NE(st[l].value, bg) << l;
            expect_rows(v, f, lab, view, o, std::string(format_name(f)) + " background conn " + std::to_string(conn));
        }
}

TEST(VolumeRegions, LabelsWithGapsAndEmptyVolumes) {
    Vol v(4, 3, 2);
    std::vector<std::uint32_t> lab(v.idx.size(), 0);
    lab[5] = 7;  // labels 1..6 have no voxel
    lab[23] = 3;
    Options o;
    o.connectivity = 26;
    expect_rows(v, PixelFormat::Gray8, lab, v.as(PixelFormat::Gray8), o, "gaps");

    for (const Shape s : {Shape{0, 3, 3}, Shape{3, 0, 3}, Shape{3, 3, 0}}) {
        const std::vector<VolumeRegionStats> st =
            regions_volume(make_volume_view(nullptr, s.w, s.h, s.d, PixelFormat::Gray8), nullptr, o);
        ASSERT_EQ(st.size(), 1u);
        EXPECT_EQ(st[0].voxels, 0u);
        EXPECT_TRUE(std::isnan(st[0].cx) && std::isnan(st[0].cz));
    }
}

TEST(VolumeRegions, SurfaceOfBoxesCavitiesAndBorders) {
    // A filled 5 x 4 x 3 box well inside: every voxel but the 3 x 2 x 1 core is on the surface.
    Vol v(11, 10, 9);
    for (int z = 3; z < 6; ++z)
        for (int y = 2; y < 6; ++y)
            for (int x = 4; x < 9; ++x) v.at(x, y, z) = 1;
    // A single voxel, and a 3 x 3 x 3 shell around a one-voxel cavity (of value 0, another region).
    v.at(0, 9, 8) = 2;
    Options o;
    o.connectivity = 6;
    std::vector<std::uint32_t> lab = volume_flood_fill(v.keys(PixelFormat::Gray8), v.w, v.h, v.d, 6, 0);
    std::vector<VolumeRegionStats> st = regions_volume(v.as(PixelFormat::Gray8), lab.data(), o);
    ASSERT_EQ(st.size(), 3u);
    EXPECT_EQ(st[1].voxels, 60u);
    EXPECT_EQ(st[1].surface, 60u - 3u * 2u * 1u);
    EXPECT_EQ(st[1].x, 4);
    EXPECT_EQ(st[1].width, 5);
    EXPECT_EQ(st[1].z, 3);
    EXPECT_EQ(st[1].depth, 3);
    EXPECT_DOUBLE_EQ(st[1].cx, 6.0);
    EXPECT_DOUBLE_EQ(st[1].cy, 3.5);
    EXPECT_DOUBLE_EQ(st[1].cz, 4.0);
    EXPECT_EQ(st[2].voxels, 1u);
    EXPECT_EQ(st[2].surface, 1u);

    Vol shell(5, 5, 5);
    for (int z = 1; z < 4; ++z)
        for (int y = 1; y < 4; ++y)
            for (int x = 1; x < 4; ++x) shell.at(x, y, z) = (x == 2 && y == 2 && z == 2) ? 0 : 1;
    lab = volume_flood_fill(shell.keys(PixelFormat::Gray8), 5, 5, 5, 26, 0);
    st = regions_volume(shell.as(PixelFormat::Gray8), lab.data(), Options{.connectivity = 26});
    ASSERT_EQ(st.size(), 2u);
    EXPECT_EQ(st[1].voxels, 26u);
    EXPECT_EQ(st[1].surface, 26u);  // every shell voxel touches the outside or the cavity
    EXPECT_EQ(st[0].surface, 98u + 1u);  // the border's 98 voxels and the cavity

    // A volume of one value: the surface is the border, 0 inside.
    Vol full(4, 5, 6);
    lab.assign(full.idx.size(), 1);
    st = regions_volume(full.as(PixelFormat::Gray8), lab.data(), Options{.connectivity = 18});
    EXPECT_EQ(st[1].surface, 4u * 5u * 6u - 2u * 3u * 4u);
}

TEST(VolumeRegions, SameRowsForEveryThreadCount) {
    Vol v = random_vol(64, 33, 40, 5, 11);
    const std::vector<std::uint32_t> lab = volume_flood_fill(v.keys(PixelFormat::U32), v.w, v.h, v.d, 26, std::nullopt);
    const VolumeView view = v.as(PixelFormat::U32);
    Options o;
    o.connectivity = 26;
    o.threads = 1;
    const std::vector<VolumeRegionStats> one = regions_volume(view, lab.data(), o);
    for (int t : {2, 5, 16, 0}) {
        o.threads = t;
        const std::vector<VolumeRegionStats> many = regions_volume(view, lab.data(), o);
        ASSERT_EQ(many.size(), one.size());
        for (std::size_t l = 0; l < one.size(); ++l) {
            EXPECT_EQ(many[l].voxels, one[l].voxels);
            EXPECT_EQ(std::memcmp(&many[l].cx, &one[l].cx, sizeof(double) * 3), 0) << "centroid bits of label " << l;
            EXPECT_EQ(many[l].surface, one[l].surface);
            EXPECT_EQ(many[l].value, one[l].value);
        }
    }
}

TEST(VolumeRegions, TypedValuesAsTheirType) {
    Vol v(3, 2, 2);
    for (std::size_t i = 0; i < v.idx.size(); ++i) v.idx[i] = i < 6 ? 0 : 1;  // z = 0: +-0.0, z = 1: NaNs
    const std::vector<std::uint32_t> lab = volume_flood_fill(v.keys(PixelFormat::F32), 3, 2, 2, 6, std::nullopt);
    const std::vector<VolumeRegionStats> st = regions_volume(v.as(PixelFormat::F32), lab.data(), Options{.connectivity = 6});
    ASSERT_EQ(st.size(), 3u);
    EXPECT_EQ(st[1].value[0], 0u);  // +0.0, whatever the first voxel's sign
    EXPECT_EQ(st[2].value[0], 0x7FC00000u);
    EXPECT_TRUE(std::isnan(st[2].value_as<float>()));
    Vol w(2, 1, 1);
    w.idx = {3, 2};
    const std::vector<std::uint32_t> two{1, 2};
    const std::vector<VolumeRegionStats> s64 = regions_volume(w.as(PixelFormat::I64), two.data(), Options{.connectivity = 6});
    EXPECT_EQ(s64[1].value_as<std::int64_t>(), -(std::int64_t(1) << 40) * 3 - 1);
}

TEST(VolumeRegions, Errors) {
    Vol v(3, 3, 3);
    const VolumeView view = v.as(PixelFormat::Gray8);
    std::vector<std::uint32_t> lab(27, 1);
    Options o;
    o.connectivity = 8;
    EXPECT_THROW(regions_volume(view, lab.data(), o), Error);  // a picture's connectivity
    o.connectivity = 26;
    o.backend = Backend::Cuda;
    EXPECT_THROW(regions_volume(view, lab.data(), o), Error);
    o.backend = Backend::Auto;
    EXPECT_THROW(regions_volume(view, nullptr, o), Error);
    lab[4] = 28;  // above the voxel count
    EXPECT_THROW(regions_volume(view, lab.data(), o), Error);
    lab[4] = 27;
    EXPECT_NO_THROW(regions_volume(view, lab.data(), o));
    EXPECT_THROW(regions_volume(make_volume_view(v.bytes.data(), 3, -1, 3, PixelFormat::Gray8), lab.data(), o), Error);
}

/// The filters' expected labels: keep[l] decides, the kept renumbered by first voxel.
std::vector<std::uint32_t> renumber(const std::vector<std::uint32_t>& lab, const std::vector<bool>& keep) {
    std::map<std::uint32_t, std::uint32_t> to;
    std::vector<std::uint32_t> out(lab.size());
    for (std::size_t i = 0; i < lab.size(); ++i) {
        if (lab[i] == 0 || !keep[lab[i]]) continue;
        auto it = to.find(lab[i]);
        if (it == to.end()) it = to.emplace(lab[i], std::uint32_t(to.size() + 1)).first;
        out[i] = it->second;
    }
    return out;
}

TEST(VolumeFilters, RemoveSmallAndKeepLargestMatchBruteForce) {
    for (int conn : {6, 18, 26}) {
        Vol v = random_vol(23, 17, 19, 3, std::uint32_t(conn));
        const std::vector<std::uint32_t> lab = volume_flood_fill(v.keys(PixelFormat::Gray8), v.w, v.h, v.d, conn, 0);
        const std::vector<Want> rows = brute(lab, v.w, v.h, v.d);
        for (std::uint64_t min : {0u, 1u, 2u, 5u, 40u, 100000u}) {
            std::vector<bool> keep(rows.size());
            for (std::size_t l = 1; l < rows.size(); ++l) keep[l] = rows[l].voxels >= min;
            const std::vector<std::uint32_t> want = renumber(lab, keep);
            std::vector<std::uint32_t> got = lab;
            const std::uint32_t m = remove_small_volume(got.data(), v.w, v.h, v.d, min);
            EXPECT_EQ(got, want) << "conn " << conn << " min " << min;
            EXPECT_EQ(m, want.empty() ? 0u : *std::max_element(want.begin(), want.end()));
        }
        for (std::uint32_t k : {0u, 1u, 3u, 50u, 1000000u}) {
            std::vector<std::uint32_t> order;
            for (std::uint32_t l = 1; l < rows.size(); ++l) order.push_back(l);
            std::stable_sort(order.begin(), order.end(),
                             [&](std::uint32_t a, std::uint32_t b) { return rows[a].voxels > rows[b].voxels; });
            std::vector<bool> keep(rows.size());
            for (std::size_t i = 0; i < std::min<std::size_t>(k, order.size()); ++i) keep[order[i]] = true;
            const std::vector<std::uint32_t> want = renumber(lab, keep);
            std::vector<std::uint32_t> got = lab;
            const std::uint32_t m = keep_largest_volume(got.data(), v.w, v.h, v.d, k);
            EXPECT_EQ(got, want) << "conn " << conn << " k " << k;
            EXPECT_EQ(m, std::min<std::uint32_t>(k, std::uint32_t(order.size())));
        }
    }
}

TEST(VolumeFilters, Errors) {
    std::vector<std::uint32_t> lab(8, 1);
    EXPECT_THROW(remove_small_volume(lab.data(), 2, -2, 2, 1), Error);
    EXPECT_THROW(keep_largest_volume(lab.data(), 2, 2, -1, 1), Error);
    EXPECT_THROW(remove_small_volume(nullptr, 2, 2, 2, 1), Error);
    EXPECT_THROW(remove_small_volume(lab.data(), 1 << 16, 1 << 16, 2, 1), Error);  // 2^33 voxels
    lab[3] = 9;
    EXPECT_THROW(keep_largest_volume(lab.data(), 2, 2, 2, 1), Error);
    EXPECT_EQ(remove_small_volume(nullptr, 0, 5, 5, 1), 0u);
    EXPECT_EQ(keep_largest_volume(nullptr, 5, 5, 0, 1), 0u);
}

TEST(VolumeVerify, AcceptsTheFloodFillAndLabelVolume) {
    for (PixelFormat f : {PixelFormat::Binary8, PixelFormat::Gray8, PixelFormat::U32, PixelFormat::RGB8})
        for (int conn : {6, 18, 26}) {
            Vol v = random_vol(14, 9, 11, 3, std::uint32_t(conn) + 3);
            const VolumeView view = v.as(f, 2, 3);
            const std::vector<std::uint32_t> want = volume_flood_fill(v.keys(f), v.w, v.h, v.d, conn, std::nullopt);
            Options o;
            o.connectivity = conn;
            if (f != PixelFormat::Binary8) {
                const VolumeVerifyReport r = verify_volume(view, want.data(), o);
                EXPECT_TRUE(r.ok) << r.message;
                EXPECT_EQ(r.count, *std::max_element(want.begin(), want.end()));
            }
            std::vector<std::uint32_t> got(v.idx.size());
            if (f == PixelFormat::Gray8) o.background_value = 1;
            label_volume(view, got.data(), o);
            const VolumeVerifyReport r = verify_volume(view, got.data(), o);
            EXPECT_TRUE(r.ok) << format_name(f) << " conn " << conn << ": " << r.message;
        }
}

TEST(VolumeVerify, CatchesEveryKindOfWrongLabelling) {
    Vol v = random_vol(9, 8, 7, 3, 21);
    const VolumeView view = v.as(PixelFormat::Gray8);
    const std::vector<std::uint32_t> right = volume_flood_fill(v.keys(PixelFormat::Gray8), 9, 8, 7, 18, 0);
    Options o;
    o.connectivity = 18;
    o.background_value = 1;
    ASSERT_TRUE(verify_volume(view, right.data(), o).ok);

    auto expect_fails = [&](std::vector<std::uint32_t> lab, const std::string& what, const std::string& words) {
        const VolumeVerifyReport r = verify_volume(view, lab.data(), o);
        EXPECT_FALSE(r.ok) << what;
        EXPECT_NE(r.message.find(words), std::string::npos) << what << ": " << r.message;
        EXPECT_GE(r.z, 0) << what;
    };
    // The labelling of another connectivity: regions split or joined.
    Options o6 = o, o26 = o;
    o6.connectivity = 6, o26.connectivity = 26;
    std::vector<std::uint32_t> other(right.size());
    label_volume(view, other.data(), o6);
    ASSERT_NE(other, right);
    expect_fails(other, "6-connected labels checked at 18", "split");
    label_volume(view, other.data(), o26);
    ASSERT_NE(other, right);
    expect_fails(other, "26-connected labels checked at 18", "not connected");
    ASSERT_TRUE(verify_volume(view, other.data(), o26).ok);

    std::vector<std::uint32_t> lab = right;
    const auto bg = std::size_t(std::find(v.idx.begin(), v.idx.end(), 0u) - v.idx.begin());
    lab[bg] = 1;
    expect_fails(lab, "a background voxel labelled", "background voxel");
    lab = right;
    const auto fg = std::size_t(std::find(v.idx.begin(), v.idx.end(), 2u) - v.idx.begin());
    lab[fg] = 0;
    expect_fails(lab, "a foreground voxel at 0", "label 0");
    // Two labels swapped: the numbering is no longer in raster order.
    lab = right;
    for (auto& l : lab) l = l == 1 ? 2 : l == 2 ? 1 : l;
    expect_fails(lab, "labels 1 and 2 swapped", "first appears");
    // One label over two values.
    lab = right;
    const std::uint32_t n = *std::max_element(right.begin(), right.end());
    for (std::size_t i = 0; i < lab.size(); ++i)
        if (lab[i] == n) lab[i] = 1;
    expect_fails(lab, "the last region given label 1", "");
}

TEST(VolumeVerify, Errors) {
    Vol v(2, 2, 2);
    std::vector<std::uint32_t> lab(8, 1);
    Options o;
    o.connectivity = 4;
    EXPECT_THROW(verify_volume(v.as(PixelFormat::Gray8), lab.data(), o), Error);
    o.connectivity = 6;
    EXPECT_THROW(verify_volume(v.as(PixelFormat::F32), lab.data(), o), Error);  // as verify(): no typed formats
    EXPECT_THROW(verify_volume(v.as(PixelFormat::Gray8), nullptr, o), Error);
    EXPECT_TRUE(verify_volume(make_volume_view(nullptr, 0, 0, 0, PixelFormat::Gray8), nullptr, o).ok);
}

}  // namespace
}  // namespace cclabel
