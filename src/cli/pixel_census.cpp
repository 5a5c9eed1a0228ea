#include "cli/pixel_census.hpp"

#include <memory>
#include <unordered_map>

#include "cclabel/detail/pixel_traits.hpp"

namespace cclabel::cli {
namespace {

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

}  // namespace

std::uint64_t count_distinct(const ImageView& image) {
    SparseBitset seen;
    std::uint64_t n = 0;
    for_each_key(image, [&](std::uint32_t k) { n += seen.insert(k); });
    return n;
}

std::vector<std::uint64_t> most_frequent(const ImageView& image) {
    if (image.pixels() == 0) return {};
    std::unordered_map<std::uint32_t, std::uint64_t> counts;
    std::uint32_t last = 0;
    std::uint64_t run = 0;
    // Pictures come in runs: count a run at once instead of one hash update per pixel.
    for_each_key(image, [&](std::uint32_t k) {
        if (run != 0 && k == last) {
            ++run;
            return;
        }
        if (run) counts[last] += run;
        last = k;
        run = 1;
    });
    counts[last] += run;
    std::uint32_t best = 0;
    std::uint64_t best_n = 0;
    for (auto [k, c] : counts)
        if (c > best_n || (c == best_n && k < best)) best = k, best_n = c;
    return unpack(image.format, best);
}

}  // namespace cclabel::cli
