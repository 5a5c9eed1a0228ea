// The device's typed-format keys (src/cuda/kernels/key_bodies.cuh) on the CPU: the per-pixel
// bodies one by one (canonical float bits, 64-bit order values, unaligned loads, addressing in a
// strided stack, rank by binary search, the background's key 0), then the whole key step of
// device_keys.cu emulated pixel by pixel (CUB's sort and unique as std::sort and std::unique) on
// every typed format, labelled by the CPU labeller and compared with the flood fill on the typed
// values: padded rows, a misaligned base, a batch with a gap between images, backgrounds present,
// absent and absent from the picture.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>
#include <optional>
#include <random>
#include <vector>

#include "cclabel/cclabel.hpp"
#include "core/format_value.hpp"
#include "cuda/kernels/key_bodies.cuh"
#include "support/each_typed.hpp"
#include "support/typed_pictures.hpp"

namespace cclabel::test {
namespace {

namespace keys = cclabel::cuda::detail::keys;

TEST(KeyBodies, CanonicalFloatBits) {
    // F16: -0 -> +0; NaNs of any sign and payload -> 0x7E00; the rest unchanged.
    EXPECT_EQ(keys::canonical_bits(PixelFormat::F16, 0x8000), 0x0000u);
    for (std::uint64_t nan : {0x7E00u, 0x7C01u, 0xFE00u, 0xFFFFu, 0x7FFFu}) EXPECT_EQ(keys::canonical_bits(PixelFormat::F16, nan), 0x7E00u);
    for (std::uint64_t v : {0x0000u, 0x3C00u, 0x0001u, 0x7C00u, 0xFC00u, 0x7BFFu}) EXPECT_EQ(keys::canonical_bits(PixelFormat::F16, v), v);
    // F32
    EXPECT_EQ(keys::canonical_bits(PixelFormat::F32, 0x80000000u), 0u);
    for (std::uint64_t nan : {0x7FC00000u, 0x7F800001u, 0xFFC00000u, 0xFFFFFFFFu})
        EXPECT_EQ(keys::canonical_bits(PixelFormat::F32, nan), 0x7FC00000u);
    for (std::uint64_t v : {0x00000000u, 0x3F800000u, 0x7F800000u, 0xFF800000u, 0x00000001u})
        EXPECT_EQ(keys::canonical_bits(PixelFormat::F32, v), v);
    // F64
    EXPECT_EQ(keys::canonical_bits(PixelFormat::F64, 0x8000000000000000ull), 0ull);
    for (std::uint64_t nan : {0x7FF8000000000000ull, 0x7FF0000000000001ull, 0xFFF8000000000000ull, ~0ull})
        EXPECT_EQ(keys::canonical_bits(PixelFormat::F64, nan), 0x7FF8000000000000ull);
    for (double d : {0.0, 1.0, 2.0, -1.0, std::numeric_limits<double>::infinity(), std::numeric_limits<double>::denorm_min()})
        EXPECT_EQ(keys::canonical_bits(PixelFormat::F64, std::bit_cast<std::uint64_t>(d)), std::bit_cast<std::uint64_t>(d));
    // The integers keep their bits.
    for (PixelFormat f : {PixelFormat::I8, PixelFormat::I16, PixelFormat::I32, PixelFormat::I64, PixelFormat::U64})
        EXPECT_EQ(keys::canonical_bits(f, 0x8000000000000000ull), 0x8000000000000000ull);
}

TEST(KeyBodies, OrderValuesOrderAndCompareAsTheValues) {
    const std::vector<std::int64_t> i64 = palette<std::int64_t>();
    for (std::int64_t a : i64)
        for (std::int64_t b : i64) {
            const std::uint64_t oa = keys::order64(PixelFormat::I64, std::uint64_t(a));
            const std::uint64_t ob = keys::order64(PixelFormat::I64, std::uint64_t(b));
            EXPECT_EQ(a < b, oa < ob) << a << " " << b;
            EXPECT_EQ(a == b, oa == ob);
        }
    for (std::uint64_t v : palette<std::uint64_t>()) EXPECT_EQ(keys::order64(PixelFormat::U64, v), v);
    const std::vector<double> f64 = palette<double>();
    for (double a : f64)
        for (double b : f64)
            EXPECT_EQ(same(a, b), keys::order64(PixelFormat::F64, std::bit_cast<std::uint64_t>(a)) ==
                                      keys::order64(PixelFormat::F64, std::bit_cast<std::uint64_t>(b)))
                << a << " " << b;
}

TEST(KeyBodies, LoadBitsAlignedAndNot) {
    alignas(8) std::uint8_t bytes[24];
    for (int i = 0; i < 24; ++i) bytes[i] = std::uint8_t(0x11 * (i % 15) + i);
    for (std::uint32_t bpp : {1u, 2u, 4u, 8u})
        for (int off = 0; off < 8; ++off) {
            std::uint64_t want = 0;
            std::memcpy(&want, bytes + off, bpp);  // little-endian host
            EXPECT_EQ(keys::load_bits(bytes + off, bpp), want) << bpp << " at +" << off;
        }
}

TEST(KeyBodies, PixelAtWalksAStridedStack) {
    const keys::Stack s{reinterpret_cast<const std::uint8_t*>(std::uintptr_t(4096)), 5, 15, 23, 1000, 4};
    std::uint64_t i = 0;
    for (std::uint64_t b = 0; b < 3; ++b)
        for (std::uint64_t y = 0; y < 3; ++y)
            for (std::uint64_t x = 0; x < 5; ++x, ++i)
                EXPECT_EQ(keys::pixel_at(s, i), s.data + b * 1000 + y * 23 + x * 4) << i;
}

TEST(KeyBodies, RankIsTheLowerBound) {
    std::mt19937_64 rng(0);
    for (std::size_t n : {0u, 1u, 2u, 3u, 7u, 64u, 1000u}) {
        std::vector<std::uint64_t> u(n);
        for (auto& v : u) v = rng() >> (rng() % 64);
        u.push_back(0), u.push_back(~0ull);
        std::sort(u.begin(), u.end());
        u.erase(std::unique(u.begin(), u.end()), u.end());
        if (n == 0) u.clear();
        std::vector<std::uint64_t> probes = u;
        for (int k = 0; k < 200; ++k) probes.push_back(rng());
        probes.push_back(0), probes.push_back(~0ull);
        for (std::uint64_t o : probes)
            EXPECT_EQ(keys::rank_of(u.data(), u.size(), o), std::uint64_t(std::lower_bound(u.begin(), u.end(), o) - u.begin()));
    }
}

TEST(KeyBodies, BackgroundKeyIsZeroAndTheRestShift) {
    EXPECT_EQ(keys::wide_key(5, 77, false, 77), 5u);  // no background: the rank
    EXPECT_EQ(keys::wide_key(5, 77, true, 77), 0u);   // the background value
    EXPECT_EQ(keys::wide_key(0, 10, true, 77), 1u);
    EXPECT_EQ(keys::wide_key(6, 80, true, 77), 7u);
    // The largest rank a map can give (2^32 - 2: 2^32 - 1 pixels) still fits after the shift.
    EXPECT_EQ(keys::wide_key(0xFFFFFFFEull, 1, true, 0), 0xFFFFFFFFu);
}

TEST(KeyBodies, RowValuesMadeCanonical) {
    std::uint32_t v[2] = {0, 0x80000000u};
    keys::canonical_value_words(PixelFormat::F64, v);
    EXPECT_EQ(v[0], 0u);
    EXPECT_EQ(v[1], 0u);
    std::uint32_t w[2] = {0xFFC00001u, 0};
    keys::canonical_value_words(PixelFormat::F32, w);
    EXPECT_EQ(w[0], 0x7FC00000u);
    std::uint32_t x[2] = {0xFFFFFFFFu, 0xFFFFFFFFu};
    keys::canonical_value_words(PixelFormat::I64, x);
    EXPECT_EQ(x[0], 0xFFFFFFFFu);
    EXPECT_EQ(x[1], 0xFFFFFFFFu);
}

// --- the whole key step, emulated -----------------------------------------------------------

/// The bits of a typed value, zero-extended.
template <typename T>
std::uint64_t bits_of(T v) {
    if constexpr (std::is_same_v<T, Half>) return v.bits;
    else {
        using U = std::conditional_t<sizeof(T) == 1, std::uint8_t,
                                     std::conditional_t<sizeof(T) == 2, std::uint16_t,
                                                        std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>>>;
        return std::bit_cast<U>(v);
    }
}

/// device_keys.cu's enqueue_keys and key_options on the CPU: the keys of the @p images pictures of
/// @p s (as U32) and the background key to label them with.
std::vector<std::uint32_t> emulate_keys(PixelFormat f, const keys::Stack& s, std::uint64_t images,
                                        std::optional<std::uint64_t> bg_bits, std::optional<std::uint32_t>& bg_key) {
    const std::uint64_t n = images * s.image_pixels;
    std::vector<std::uint32_t> out(n);
    const bool wide = f == PixelFormat::I64 || f == PixelFormat::U64 || f == PixelFormat::F64;
    if (!wide) {
        for (std::uint64_t i = 0; i < n; ++i)
            out[i] = std::uint32_t(keys::canonical_bits(f, keys::load_bits(keys::pixel_at(s, i), s.bpp)));
        if (bg_bits) bg_key = std::uint32_t(keys::canonical_bits(f, *bg_bits));
        return out;
    }
    std::vector<std::uint64_t> order(n);
    for (std::uint64_t i = 0; i < n; ++i) order[i] = keys::order64(f, keys::load_bits(keys::pixel_at(s, i), 8));
    std::vector<std::uint64_t> distinct = order;
    std::sort(distinct.begin(), distinct.end());
    distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
    const std::uint64_t bg = bg_bits ? keys::order64(f, *bg_bits) : 0;
    for (std::uint64_t i = 0; i < n; ++i)
        out[i] = keys::wide_key(keys::rank_of(distinct.data(), distinct.size(), order[i]), order[i], bg_bits.has_value(), bg);
    if (bg_bits) bg_key = 0;
    return out;
}

/// A stack of @p images pictures laid out at byte offset @p base, rows padded by @p pad bytes,
/// images @p gap bytes apart beyond their rows.
struct Laid {
    std::vector<std::uint8_t> bytes;
    keys::Stack stack;
};
template <typename T>
Laid lay_out(const std::vector<std::vector<T>>& pics, std::int64_t w, std::int64_t h, int base, int pad, int gap) {
    Laid l;
    const std::int64_t stride = w * std::int64_t(sizeof(T)) + pad, batch = stride * h + gap;
    l.bytes.assign(std::size_t(base + batch * std::int64_t(pics.size()) + 8), 0xA5);
    for (std::size_t b = 0; b < pics.size(); ++b)
        for (std::int64_t y = 0; y < h; ++y)
            std::memcpy(l.bytes.data() + base + std::int64_t(b) * batch + y * stride, pics[b].data() + y * w,
                        std::size_t(w) * sizeof(T));
    l.stack = keys::Stack{l.bytes.data() + base, std::uint64_t(w), std::uint64_t(w * h), stride, batch, std::uint32_t(sizeof(T))};
    return l;
}

template <typename T>
void check_emulated_keys() {
    const std::vector<T> pal = palette<T>();
    constexpr std::int64_t w = 37, h = 23;
    std::vector<std::vector<T>> pics;
    for (std::uint32_t seed = 1; seed <= 3; ++seed) pics.push_back(picture(pal, w, h, seed));
    // Backgrounds: none, a palette value (present), and a value not in the palette.
    std::vector<std::optional<T>> bgs{std::nullopt, pal[1], pal[pal.size() / 2]};
    if constexpr (std::is_same_v<T, Half>) bgs.push_back(Half{0x4100});  // 2.5
    else if constexpr (std::is_floating_point_v<T>) bgs.push_back(T(2.5));
    else bgs.push_back(T(42));
    for (int base : {0, 1, 3})
        for (int pad : {0, 5}) {
            const Laid l = lay_out(pics, w, h, base, pad, 7);
            for (const std::optional<T>& bg : bgs) {
                std::optional<std::uint32_t> bg_key;
                const std::optional<std::uint64_t> bg_bits = bg ? std::optional<std::uint64_t>(bits_of(*bg)) : std::nullopt;
                const std::vector<std::uint32_t> k = emulate_keys(kFormat<T>, l.stack, pics.size(), bg_bits, bg_key);
                for (std::size_t b = 0; b < pics.size(); ++b)
                    for (int conn : {4, 8}) {
                        Options o;
                        o.connectivity = conn;
                        if (bg_key) o.background = std::vector<std::uint64_t>{*bg_key};
                        std::vector<std::uint32_t> got(std::size_t(w * h));
                        const LabelResult r = label(make_view(k.data() + b * std::size_t(w * h), w, h, PixelFormat::U32), got.data(), o);
                        std::uint32_t n = 0;
                        const std::vector<std::uint32_t> want = flood(pics[b], w, h, conn, bg, &n);
                        EXPECT_EQ(r.count, n) << "image " << b << " conn " << conn << " base " << base << " pad " << pad;
                        EXPECT_EQ(got, want) << "image " << b << " conn " << conn << " base " << base << " pad " << pad;
                    }
            }
        }
}

TEST(KeyBodies, EmulatedKeysLabelAsTheTypedValues) {
    each_typed([]<typename T>() { check_emulated_keys<T>(); });
}

}  // namespace
}  // namespace cclabel::test
