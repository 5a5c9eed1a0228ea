#include "cli/pixel_census.hpp"

#include <algorithm>
#include <memory>
#include <unordered_map>

#include "cclabel/detail/pixel_traits.hpp"
#include "cli/typed_values.hpp"

namespace cclabel::cli {
namespace {

/// Calls fn(canonical bits) for every pixel of a typed picture, in raster order.
template <typename Fn>
void for_each_value(const ImageView& image, Fn&& fn) {
    const auto* base = static_cast<const std::uint8_t*>(image.data);
    const int bpp = bytes_per_pixel(image.format);
    for (std::int64_t y = 0; y < image.height; ++y) {
        const std::uint8_t* row = base + y * image.row_bytes();
        for (std::int64_t x = 0; x < image.width; ++x) fn(canonical_bits(image.format, row + x * bpp));
    }
}

template <typename Fn>
void for_each_key(const ImageView& image, Fn&& fn) {
    detail::dispatch_format(image.format, [&]<PixelFormat F>() {
        using T = detail::PixelTraits<F>;
        const auto* base = static_cast<const std::uint8_t*>(image.data);
        for (std::int64_t y = 0; y < image.height; ++y) {
            const std::uint8_t* row = base + y * image.row_bytes();
            for (std::int64_t x = 0; x < image.width; ++x) fn(T::key(row + x * T::kBytes));
        }
    });
}

// The U32/RGBA8 key space has 2^32 values: a bitmap in 8 KiB pages allocated on first use keeps
// memory proportional to the occupied part of the key space.
class SparseBitset {
public:
    bool insert(std::uint32_t k) {
        auto& page = pages_[k >> 16];
        if (!page) page = std::make_unique<std::uint64_t[]>(1024);
        std::uint64_t& word = page[(k & 0xFFFF) >> 6];
        const std::uint64_t bit = std::uint64_t(1) << (k & 63);
        const bool fresh = (word & bit) == 0;
        word |= bit;
        return fresh;
    }

private:
    std::vector<std::unique_ptr<std::uint64_t[]>> pages_ = std::vector<std::unique_ptr<std::uint64_t[]>>(65536);
};

std::vector<std::uint64_t> unpack(PixelFormat f, std::uint32_t k) {
    switch (f) {
        case PixelFormat::RGB8: return {k & 0xFF, (k >> 8) & 0xFF, (k >> 16) & 0xFF};
        case PixelFormat::RGBA8: return {k & 0xFF, (k >> 8) & 0xFF, (k >> 16) & 0xFF, k >> 24};
        default: return {k};
    }
}

/// How many pixels carry each key that @p each(fn) hands to fn, in raster order. Pictures come in
/// runs: a run is counted at once instead of one hash update per pixel.
template <typename K, typename Each>
std::unordered_map<K, std::uint64_t> run_counts(Each&& each) {
    std::unordered_map<K, std::uint64_t> counts;
    K last = 0;
    std::uint64_t run = 0;
    each([&](K k) {
        if (run != 0 && k == last) {
            ++run;
            return;
        }
        if (run) counts[last] += run;
        last = k;
        run = 1;
    });
    if (run) counts[last] += run;
    return counts;
}

}  // namespace

std::uint64_t count_distinct(const ImageView& image) {
    std::uint64_t n = 0;
    if (is_typed_format(image.format) && bytes_per_pixel(image.format) == 8) {
        std::vector<std::uint64_t> values;
        values.reserve(image.pixels());
        for_each_value(image, [&](std::uint64_t v) { values.push_back(v); });
        std::sort(values.begin(), values.end());
        return std::uint64_t(std::unique(values.begin(), values.end()) - values.begin());
    }
    SparseBitset seen;
    if (is_typed_format(image.format)) {  // canonical bits of at most 32
        for_each_value(image, [&](std::uint64_t v) { n += seen.insert(std::uint32_t(v)); });
        return n;
    }
    for_each_key(image, [&](std::uint32_t k) { n += seen.insert(k); });
    return n;
}

std::optional<Scalar> most_frequent_value(const ImageView& image) {
    if (image.pixels() == 0) return std::nullopt;
    const auto counts = run_counts<std::uint64_t>([&](auto&& fn) { for_each_value(image, fn); });
    std::uint64_t best = 0, best_n = 0;
    for (auto [v, c] : counts)
        if (c > best_n || (c == best_n && value_less(image.format, v, best))) best = v, best_n = c;
    return scalar_of(image.format, best);
}

std::vector<std::uint64_t> most_frequent(const ImageView& image) {
    if (image.pixels() == 0) return {};
    const auto counts = run_counts<std::uint32_t>([&](auto&& fn) { for_each_key(image, fn); });
    std::uint32_t best = 0;
    std::uint64_t best_n = 0;
    for (auto [k, c] : counts)
        if (c > best_n || (c == best_n && k < best)) best = k, best_n = c;
    return unpack(image.format, best);
}

}  // namespace cclabel::cli
