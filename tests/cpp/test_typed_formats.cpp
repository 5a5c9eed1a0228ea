// The typed formats (I8, I16, I32, I64, U64, F16, F32, F64) through the host API: label() on both
// connectivities, background off, present and absent, and thread counts, compared pixel for pixel
// with a flood fill written on the typed values themselves (C++ ==, with NaN equal to NaN; F16
// decoded to float), never on the library's keys. Pictures hold each type's extremes, negative
// values, 64-bit values equal in their low 32 bits, NaNs of several payloads and both zeros; every
// key map (re-typed, canonical copy, 64-bit window, 64-bit table) is checked to be the one taken.
// Then label_batch, regions() values, label() with statistics, and the errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "cclabel/batch.hpp"
#include "cclabel/cclabel.hpp"
#include "core/format_keys.hpp"
#include "support/typed_pictures.hpp"

namespace cclabel::test {
namespace {

template <typename T>
void expect_same_labels(const std::vector<T>& v, std::int64_t w, std::int64_t h, const Options& o,
                        std::optional<T> bg, const std::string& what) {
    std::uint32_t n_ref = 0;
    const std::vector<std::uint32_t> ref = flood(v, w, h, o.connectivity, bg, &n_ref);
    std::vector<std::uint32_t> out(v.size() + 1, 0xA5A5A5A5u);
    const LabelResult r = label(view_of(v, w, h), out.data(), o);
    ASSERT_EQ(r.count, n_ref) << what;
    EXPECT_EQ(out.back(), 0xA5A5A5A5u) << what << ": wrote past the output";
    for (std::size_t i = 0; i < ref.size(); ++i)
        ASSERT_EQ(out[i], ref[i]) << what << " at (" << i % std::size_t(w) << ", " << i / std::size_t(w) << ")";
}

/// Both connectivities, threads 1 and 3, background off, each palette value and one absent value.
template <typename T>
void check_picture(const std::vector<T>& v, std::int64_t w, std::int64_t h, const std::vector<T>& bgs,
                   const std::string& what) {
    for (int conn : {4, 8})
        for (int threads : {1, 3}) {
            Options o;
            o.connectivity = conn;
            o.threads = threads;
            o.backend = Backend::Cpu;
            const std::string base = what + " conn " + std::to_string(conn) + " threads " + std::to_string(threads);
            expect_same_labels<T>(v, w, h, o, std::nullopt, base);
            for (std::size_t b = 0; b < bgs.size(); ++b) {
                o.background_value = scalar_of(bgs[b]);
                expect_same_labels<T>(v, w, h, o, bgs[b], base + " background #" + std::to_string(b));
            }
        }
}

template <typename T>
class TypedFormat : public ::testing::Test {};
using TypedPixels = ::testing::Types<std::int8_t, std::int16_t, std::int32_t, std::int64_t, std::uint64_t, Half,
                                     float, double>;
TYPED_TEST_SUITE(TypedFormat, TypedPixels);

TYPED_TEST(TypedFormat, MatchesTypedFloodFill) {
    using T = TypeParam;
    const std::vector<T> pal = palette<T>();
    for (const auto& [w, h] : {std::pair<std::int64_t, std::int64_t>{1, 1}, {37, 23}, {64, 5}, {1, 40}, {300, 260}}) {
        const std::vector<T> v = picture(pal, w, h, std::uint32_t(w * 131 + h));
        std::vector<T> bgs = {pal[0], pal[1], pal[2], pal[3]};
        check_picture(v, w, h, bgs, std::string(format_name(kFormat<T>)) + " " + std::to_string(w) + "x" +
                                        std::to_string(h));
    }
}

// The 64-bit formats on pictures whose values fit a window of 2^32 (keys value - min, not a table).
TEST(TypedFormatWindow, MatchesTypedFloodFill) {
    const std::int64_t k32 = std::int64_t(1) << 32;
    const std::vector<std::int64_t> i64 = {-3, -2, 5, (std::int64_t(1) << 31) - 1, -(std::int64_t(1) << 31)};
    const std::vector<std::uint64_t> u64 = {std::uint64_t(k32) << 8, (std::uint64_t(k32) << 8) + 1,
                                            (std::uint64_t(k32) << 8) + std::uint64_t(k32) - 1};
    const std::vector<double> f64 = {1.0, std::nextafter(1.0, 2.0), 1.0 + std::ldexp(1.0, -30), 1.0 + std::ldexp(1.0, -21)};
    const auto run = [](const auto& pal, const char* what) {
        using T = typename std::decay_t<decltype(pal)>::value_type;
        const std::vector<T> v = picture(pal, 53, 47, 5);
        const ImageView view = view_of(v, 53, 47);
        EXPECT_EQ(detail::plan_keys(view.format, std::span<const ImageView>(&view, 1), 1).kind,
                  detail::KeyMap::Kind::Offset)
            << what;
        check_picture(v, 53, 47, {pal[0], pal[2], T(7)}, what);
    };
    run(i64, "i64 window");
    run(u64, "u64 window");
    run(f64, "f64 window");
}

// Floats with no -0 and no NaN but the canonical one: labelled re-typed, with no copy.
TEST(TypedFormatRetyped, FloatsMatchTypedFloodFill) {
    const std::vector<float> f32 = {1.0f, 2.0f, -1.0f, std::numeric_limits<float>::infinity(),
                                    std::numeric_limits<float>::quiet_NaN(), 0.0f};
    const std::vector<float> v = picture(f32, 61, 37, 9);
    const ImageView view = view_of(v, 61, 37);
    EXPECT_EQ(detail::plan_keys(view.format, std::span<const ImageView>(&view, 1), 1).kind, detail::KeyMap::Kind::Bits);
    check_picture(v, 61, 37, {2.0f, -0.0f, std::bit_cast<float>(0xFFC00123u)}, "f32 re-typed");
    const std::vector<Half> f16 = {{0x3C00}, {0x0000}, {0xBC00}, {0x7E00}};
    const std::vector<Half> h = picture(f16, 61, 37, 10);
    check_picture(h, 61, 37, {Half{0x8000}, Half{0x7C01}}, "f16 re-typed");
}

TYPED_TEST(TypedFormat, AbsentBackgroundLabelsEverything) {
    using T = TypeParam;
    std::vector<T> pal = palette<T>();
    const T absent = pal.back();
    pal.pop_back();
    const std::vector<T> v = picture(pal, 29, 31, 7);
    check_picture(v, 29, 31, {absent}, std::string(format_name(kFormat<T>)) + " absent background");
}

TYPED_TEST(TypedFormat, BatchMatchesLabelOfEachImage) {
    using T = TypeParam;
    const std::vector<T> pal = palette<T>();
    const std::int64_t w = 19, h = 13, B = 4;
    std::vector<T> all;
    for (std::int64_t b = 0; b < B; ++b) {
        // Image b uses a part of the palette, so that the batch's key map covers values some
        // images lack.
        std::vector<T> part(pal.begin() + b % 2, pal.end() - (b == 3 ? 2 : 0));
        const std::vector<T> v = picture(part, w, h, std::uint32_t(b + 11));
        all.insert(all.end(), v.begin(), v.end());
    }
    for (int conn : {4, 8})
        for (bool bg : {false, true}) {
            Options o;
            o.connectivity = conn;
            o.backend = Backend::Cpu;
            if (bg) o.background_value = scalar_of(pal[1]);
            BatchView batch{all.data(), B, w, h, 0, 0, kFormat<T>};
            std::vector<std::uint32_t> out(all.size());
            const BatchResult r = label_batch(batch, out.data(), o);
            RaggedBatchView ragged{all.data(), kFormat<T>, {}, {}, {}, {}};
            for (std::int64_t b = 0; b < B; ++b) {
                ragged.offsets.push_back(b * w * h * std::int64_t(sizeof(T)));
                ragged.widths.push_back(w);
                ragged.heights.push_back(h);
            }
            std::vector<std::uint32_t> out_ragged(all.size());
            const BatchResult rr = label_batch(ragged, out_ragged.data(), o);
            EXPECT_TRUE(out == out_ragged);
            for (std::int64_t b = 0; b < B; ++b) {
                const std::vector<T> img(all.begin() + b * w * h, all.begin() + (b + 1) * w * h);
                std::uint32_t n_ref = 0;
                const auto ref = flood(img, w, h, conn, bg ? std::optional<T>(pal[1]) : std::nullopt, &n_ref);
                EXPECT_EQ(r.counts[std::size_t(b)], n_ref) << "image " << b;
                EXPECT_EQ(rr.counts[std::size_t(b)], n_ref) << "ragged image " << b;
                EXPECT_TRUE(std::equal(ref.begin(), ref.end(), out.begin() + b * w * h))
                    << format_name(kFormat<T>) << " image " << b << " conn " << conn << " bg " << bg;
            }
        }
}

TYPED_TEST(TypedFormat, RegionsReportTypedValues) {
    using T = TypeParam;
    const std::vector<T> v = picture(palette<T>(), 41, 17, 3);
    for (bool bg : {false, true}) {
        Options o;
        o.backend = Backend::Cpu;
        if (bg) o.background_value = scalar_of(palette<T>()[0]);
        std::vector<std::uint32_t> labels(v.size());
        std::vector<RegionStats> with;
        const LabelResult r = label(view_of(v, 41, 17), labels.data(), o, with);
        std::vector<RegionStats> rows = regions(view_of(v, 41, 17), labels.data(), o);
        ASSERT_EQ(rows.size(), std::size_t(r.count) + 1);
        ASSERT_EQ(with.size(), rows.size());
        std::vector<bool> seen(rows.size(), false);
        for (std::size_t i = 0; i < v.size(); ++i) {
            const std::uint32_t l = labels[i];
            if (seen[l]) continue;
            seen[l] = true;  // i is the region's first pixel
            for (const RegionStats* s : {&rows[l], &with[l]}) {
                if constexpr (std::is_same_v<T, Half>) {
                    const std::uint16_t got = s->template value_as<std::uint16_t>();
                    EXPECT_TRUE(same(Half{got}, v[i])) << "label " << l;
                    EXPECT_NE(got, 0x8000u) << "label " << l << ": -0 is reported as +0";
                    if (std::isnan(half_to_float(v[i].bits))) EXPECT_EQ(got, 0x7E00u);
                } else {
                    const T got = s->template value_as<T>();
                    EXPECT_TRUE(same(got, v[i])) << "label " << l;
                    if constexpr (std::is_floating_point_v<T>) {
                        EXPECT_FALSE(got == 0 && std::signbit(got)) << "label " << l << ": -0 is reported as +0";
                        using U = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
                        if (std::isnan(got))  // every NaN is reported as the default quiet NaN
                            EXPECT_EQ(std::bit_cast<U>(got), std::bit_cast<U>(std::numeric_limits<T>::quiet_NaN()));
                    }
                }
                if (sizeof(T) < 8) EXPECT_EQ(s->value[1], 0u);
                EXPECT_EQ(s->value[2], 0u);
                EXPECT_EQ(s->value[3], 0u);
            }
        }
    }
}

// --- which key map each picture takes ---------------------------------------------------------

detail::KeyMap plan(PixelFormat f, const void* data, std::int64_t w, std::int64_t h) {
    const ImageView v = make_view(data, w, h, f, w * bytes_per_pixel(f));
    return detail::plan_keys(f, std::span<const ImageView>(&v, 1), 2);
}

TEST(TypedKeyMap, SignedFormatsAreRetyped) {
    const std::int16_t v[] = {-1, 0};
    const detail::KeyMap m = plan(PixelFormat::I16, v, 2, 1);
    EXPECT_EQ(m.kind, detail::KeyMap::Kind::Bits);
    EXPECT_EQ(m.to, PixelFormat::Gray16);
    EXPECT_EQ(plan(PixelFormat::I8, v, 2, 1).to, PixelFormat::Gray8);
    EXPECT_EQ(plan(PixelFormat::I32, v, 1, 1).to, PixelFormat::U32);
}

TEST(TypedKeyMap, FloatsCopyOnlyForNegativeZeroOrNaN) {
    // 300 x 300 pixels: several bands, the odd pixel in the last one.
    std::vector<float> f(300 * 300, 1.5f);
    EXPECT_EQ(plan(PixelFormat::F32, f.data(), 300, 300).kind, detail::KeyMap::Kind::Bits);
    f.back() = -0.0f;
    EXPECT_EQ(plan(PixelFormat::F32, f.data(), 300, 300).kind, detail::KeyMap::Kind::Canonical);
    f.back() = std::bit_cast<float>(0x7FC00001u);  // a NaN with a payload
    EXPECT_EQ(plan(PixelFormat::F32, f.data(), 300, 300).kind, detail::KeyMap::Kind::Canonical);
    f.back() = -std::numeric_limits<float>::quiet_NaN();
    EXPECT_EQ(plan(PixelFormat::F32, f.data(), 300, 300).kind, detail::KeyMap::Kind::Canonical);
    // The canonical NaN itself needs no copy.
    f.back() = std::numeric_limits<float>::quiet_NaN();
    EXPECT_EQ(plan(PixelFormat::F32, f.data(), 300, 300).kind, detail::KeyMap::Kind::Bits);
    std::vector<std::uint16_t> hbits(300 * 300, 0x3C00);
    EXPECT_EQ(plan(PixelFormat::F16, hbits.data(), 300, 300).kind, detail::KeyMap::Kind::Bits);
    hbits[77] = 0x7C01;  // a signalling NaN pattern
    EXPECT_EQ(plan(PixelFormat::F16, hbits.data(), 300, 300).kind, detail::KeyMap::Kind::Canonical);
}

TEST(TypedKeyMap, WideFormatsTakeAWindowOrATable) {
    const std::int64_t base = std::int64_t(1) << 40;
    // max - min = 2^32 - 1: still a window.
    std::vector<std::int64_t> win = {base, base + 5, base + 0xFFFFFFFFll, base + 5};
    const detail::KeyMap w = plan(PixelFormat::I64, win.data(), 4, 1);
    EXPECT_EQ(w.kind, detail::KeyMap::Kind::Offset);
    EXPECT_EQ(w.key(std::uint64_t(base + 5)), std::optional<std::uint32_t>(5));
    EXPECT_EQ(w.key(std::uint64_t(base - 1)), std::nullopt);
    EXPECT_EQ(w.value(5), std::uint64_t(base + 5));
    std::vector<std::int64_t> neg = {-3, -2, 5, -3};
    EXPECT_EQ(plan(PixelFormat::I64, neg.data(), 4, 1).kind, detail::KeyMap::Kind::Offset);
    // One more: a table of the three distinct values.
    win[2] = base + 0x100000000ll;
    const detail::KeyMap t = plan(PixelFormat::I64, win.data(), 4, 1);
    EXPECT_EQ(t.kind, detail::KeyMap::Kind::Table);
    EXPECT_EQ(t.table.size(), 3u);
    EXPECT_EQ(t.key(std::uint64_t(base + 0x100000000ll)), std::optional<std::uint32_t>(2));
    EXPECT_EQ(t.key(std::uint64_t(base + 1)), std::nullopt);
    // Values equal in their low 32 bits never join (window and table alike).
    for (std::int64_t hi : {std::int64_t(1), std::int64_t(1) << 31}) {
        const std::int64_t v[] = {7, 7 + (hi << 32), 7, 7 + (hi << 32)};
        const Labels l = label(make_view(v, 4, 1, PixelFormat::I64));
        EXPECT_EQ(l.count, 4u);
        const std::uint64_t u[] = {7, 7 + (std::uint64_t(hi) << 32)};
        EXPECT_EQ(label(make_view(u, 2, 1, PixelFormat::U64)).count, 2u);
    }
    const double d[] = {1.0, 2.0, 0.0, -0.0};  // 1.0 and 2.0 share their low 32 bits; 0.0 == -0.0
    const Labels l = label(make_view(d, 4, 1, PixelFormat::F64));
    EXPECT_EQ(l.count, 3u);
    EXPECT_EQ(l.data[2], l.data[3]);
}

TEST(TypedKeyMap, TableFromManyBandsHoldsEachValueOnce) {
    // Values from a palette wider than 2^32, spread over many bands (sorted and merged in
    // parallel): the table is the sorted set of the values present, whatever the thread count.
    std::mt19937_64 rng(17);
    std::vector<std::int64_t> pal(3001);
    for (auto& v : pal) v = std::int64_t(rng());
    const std::int64_t w = 517, h = 311;
    std::vector<std::int64_t> px(std::size_t(w * h));
    for (auto& v : px) v = pal[rng() % pal.size()];
    std::vector<std::uint64_t> want;
    for (std::int64_t v : px) want.push_back(std::uint64_t(v) ^ (std::uint64_t(1) << 63));  // signed order
    std::sort(want.begin(), want.end());
    want.erase(std::unique(want.begin(), want.end()), want.end());
    const ImageView v = make_view(px.data(), w, h, PixelFormat::I64);
    for (int threads : {1, 2, 3, 7, 16}) {
        const detail::KeyMap m = detail::plan_keys(PixelFormat::I64, std::span<const ImageView>(&v, 1), threads);
        ASSERT_EQ(m.kind, detail::KeyMap::Kind::Table);
        EXPECT_TRUE(m.table == want) << "threads " << threads;
    }
}

TEST(TypedKeyMap, StridedPictureAndCopies) {
    // Padded rows with poison: the copy packs them, the re-typed view keeps the stride.
    const std::int64_t w = 5, h = 4, stride = w * 8 + 16;
    std::vector<std::uint8_t> bytes(std::size_t(stride * h), 0xA5);
    std::vector<double> vals(std::size_t(w * h));
    for (std::int64_t i = 0; i < w * h; ++i) vals[std::size_t(i)] = (i % 3 == 0) ? -0.0 : double(i % 2) * 1e300;
    for (std::int64_t y = 0; y < h; ++y) std::memcpy(bytes.data() + y * stride, vals.data() + y * w, std::size_t(w * 8));
    const Labels a = label(make_view(bytes.data(), w, h, PixelFormat::F64, stride));
    const Labels b = label(make_view(vals.data(), w, h, PixelFormat::F64));
    EXPECT_EQ(a.count, b.count);
    EXPECT_EQ(a.data, b.data);
}

// --- background values ------------------------------------------------------------------------

void expect_error(PixelFormat f, const Options& o, const std::string& part1, const std::string& part2 = "") {
    static const std::uint64_t px[2] = {0, 0};
    std::uint32_t out[2];
    try {
        label(make_view(px, 1, 1, f), out, o);
        ADD_FAILURE() << format_name(f) << ": no Error (expected \"" << part1 << "\")";
    } catch (const Error& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find(part1), std::string::npos) << m;
        EXPECT_NE(m.find(part2), std::string::npos) << m;
    }
}

TEST(TypedBackground, UnrepresentableValuesAreErrors) {
    Options o;
    o.background_value = 40000;
    expect_error(PixelFormat::I16, o, "background_value", "i16");
    o.background_value = -1;
    expect_error(PixelFormat::U64, o, "background_value", "u64");
    expect_error(PixelFormat::Gray8, o, "background_value", "gray8");
    o.background_value = 1.5;
    expect_error(PixelFormat::I64, o, "background_value", "not an integer");
    o.background_value = std::numeric_limits<double>::quiet_NaN();
    expect_error(PixelFormat::I32, o, "background_value", "not an integer");
    o.background_value = 0.1;
    expect_error(PixelFormat::F32, o, "background_value", "not exactly representable");
    expect_error(PixelFormat::F16, o, "background_value", "f16");
    o.background_value = 65520.0;
    expect_error(PixelFormat::F16, o, "background_value", "f16");
    o.background_value = (std::int64_t(1) << 53) + 1;
    expect_error(PixelFormat::F64, o, "background_value", "not exactly representable");
    o.background_value = 1;
    expect_error(PixelFormat::RGB8, o, "background_value", "per channel");
    expect_error(PixelFormat::Binary8, o, "background_value", "binary8");
    Options both;
    both.background_value = 0;
    both.background = std::vector<std::uint64_t>{0};
    expect_error(PixelFormat::I8, both, "background and background_value");
    Options old;
    old.background = std::vector<std::uint64_t>{128};
    expect_error(PixelFormat::I8, old, "background", "i8");
    old.background = std::vector<std::uint64_t>{1, 2};
    expect_error(PixelFormat::F32, old, "background", "channel");
    Options tol;  // the typed formats take a tolerance in label() on the CPU and the GPU
    tol.tolerance = 1;
    tol.backend = Backend::Cuda;
    if (!cuda_available()) expect_error(PixelFormat::I16, tol, "backend cuda");  // says why (tests/cuda labels)
}

TEST(TypedBackground, ExactValuesAreAccepted) {
    // A float value for an integer format when it is an integer; an integer for a float format
    // when the float holds it; F16 takes the doubles binary16 holds.
    const std::int16_t i16[] = {-1, 3, -1};
    Options o;
    o.background_value = -1.0;
    EXPECT_EQ(label(make_view(i16, 3, 1, PixelFormat::I16), o).count, 1u);
    const float f32[] = {0.1f, 3.0f, -0.0f, 0.0f};
    o.background_value = 0.1f;
    EXPECT_EQ(label(make_view(f32, 4, 1, PixelFormat::F32), o).count, 2u);
    o.background_value = 3;
    EXPECT_EQ(label(make_view(f32, 4, 1, PixelFormat::F32), o).count, 2u);
    o.background_value = 0.0;  // +0.0 is also every -0.0
    EXPECT_EQ(label(make_view(f32, 4, 1, PixelFormat::F32), o).count, 2u);
    const std::uint16_t f16[] = {0x7BFF, 0x0001, 0x3C00};  // 65504, 2^-24, 1.0
    o.background_value = 65504.0;
    EXPECT_EQ(label(make_view(f16, 3, 1, PixelFormat::F16), o).count, 2u);
    o.background_value = std::ldexp(1.0, -24);
    EXPECT_EQ(label(make_view(f16, 3, 1, PixelFormat::F16), o).count, 2u);
    // The unsigned per-channel form names the value too.
    Options old;
    old.background = std::vector<std::uint64_t>{3};
    EXPECT_EQ(label(make_view(f32, 4, 1, PixelFormat::F32), old).count, 2u);
    const std::uint64_t u64[] = {~std::uint64_t(0), 5};
    old.background = std::vector<std::uint64_t>{~std::uint64_t(0)};
    EXPECT_EQ(label(make_view(u64, 2, 1, PixelFormat::U64), old).count, 1u);
    // background_value on the old single-channel formats.
    const std::uint8_t g8[] = {255, 1};
    o.background_value = 255u;
    EXPECT_EQ(label(make_view(g8, 2, 1, PixelFormat::Gray8), o).count, 1u);
}

TEST(TypedFormatNames, NamesAndSizes) {
    const std::pair<PixelFormat, const char*> names[] = {
        {PixelFormat::I8, "i8"},   {PixelFormat::I16, "i16"}, {PixelFormat::I32, "i32"}, {PixelFormat::I64, "i64"},
        {PixelFormat::U64, "u64"}, {PixelFormat::F16, "f16"}, {PixelFormat::F32, "f32"}, {PixelFormat::F64, "f64"}};
    const int bytes[] = {1, 2, 4, 8, 8, 2, 4, 8};
    for (std::size_t i = 0; i < 8; ++i) {
        EXPECT_EQ(format_name(names[i].first), names[i].second);
        EXPECT_EQ(bytes_per_pixel(names[i].first), bytes[i]);
        EXPECT_EQ(channels(names[i].first), 1);
        EXPECT_TRUE(is_typed_format(names[i].first));
        EXPECT_EQ(int(names[i].first), 6 + int(i));
    }
    EXPECT_FALSE(is_typed_format(PixelFormat::RGBA8));
}

TEST(TypedFormatCalls, OtherCallsRefuseThemByName) {
    const float f[4] = {1, 2, 3, 4};
    std::vector<std::uint32_t> out(4);
    try {
        (void)verify(make_view(f, 2, 2, PixelFormat::F32), out.data(), Options{});
        ADD_FAILURE() << "verify took f32";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("f32"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace cclabel::test
