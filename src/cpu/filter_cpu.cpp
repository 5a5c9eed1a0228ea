// Filtering a label image: drop regions below an area, or keep the k largest, then renumber the
// kept regions 1..M in raster order of their first pixel. Two passes over the labels, one thread.
#include <algorithm>
#include <string>
#include <vector>

#include "cclabel/error.hpp"
#include "cclabel/label.hpp"
#include "cclabel/stats.hpp"
#include "core/stats_backends.hpp"

namespace cclabel {
namespace {

constexpr std::uint32_t kUnset = ~std::uint32_t(0);

}  // namespace

std::uint64_t detail::filter_pixels(const std::uint32_t* labels, std::int64_t width, std::int64_t height,
                                    bool allow_null) {
    if (width < 0 || height < 0)
        throw Error("label image size must not be negative (got " + std::to_string(width) + " x " +
                    std::to_string(height) + ")");
    if (width == 0 || height == 0) return 0;
    if (std::uint64_t(height) > kMaxPixels / std::uint64_t(width))
        throw Error("label image of " + std::to_string(width) + " x " + std::to_string(height) +
                    " pixels has more than 4294967295 (2^32 - 1) pixels");
    if (labels == nullptr && !allow_null) throw Error("label image is null for a non-empty image");
    return std::uint64_t(width) * std::uint64_t(height);
}

namespace {

/// Area of every label 0..N (N = the largest label) and the raster index of each label's first pixel.
struct Census {
    std::vector<std::uint64_t> area;
    std::vector<std::uint64_t> first;
};

Census census(const std::uint32_t* labels, std::uint64_t pixels) {
    const std::uint32_t n = *std::max_element(labels, labels + pixels);
    if (n > pixels)
        throw Error("label value " + std::to_string(n) + " exceeds the number of pixels (" + std::to_string(pixels) +
                    "): not a label image of this size");
    Census c;
    c.area.assign(std::size_t(n) + 1, 0);
    c.first.assign(std::size_t(n) + 1, ~std::uint64_t(0));
    for (std::uint64_t i = 0; i < pixels; ++i) {
        const std::uint32_t l = labels[i];
        if (c.area[l]++ == 0) c.first[l] = i;
    }
    return c;
}

/// Zeroes the labels with keep[l] == false and renumbers the others by first appearance.
std::uint32_t apply(std::uint32_t* labels, std::uint64_t pixels, const std::vector<bool>& keep) {
    std::vector<std::uint32_t> to(keep.size(), kUnset);
    to[0] = 0;
    std::uint32_t m = 0;
    for (std::uint64_t i = 0; i < pixels; ++i) {
        const std::uint32_t l = labels[i];
        std::uint32_t& t = to[l];
        if (t == kUnset) t = keep[l] ? ++m : 0;
        labels[i] = t;
    }
    return m;
}

}  // namespace

std::uint32_t detail::remove_small_cpu(std::uint32_t* labels, std::int64_t width, std::int64_t height,
                                       std::uint64_t min_area) {
    const std::uint64_t pixels = filter_pixels(labels, width, height);
    if (pixels == 0) return 0;
    const Census c = census(labels, pixels);
    std::vector<bool> keep(c.area.size());
    for (std::size_t l = 1; l < keep.size(); ++l) keep[l] = c.area[l] != 0 && c.area[l] >= min_area;
    return apply(labels, pixels, keep);
}

std::uint32_t detail::keep_largest_cpu(std::uint32_t* labels, std::int64_t width, std::int64_t height,
                                       std::uint32_t k) {
    const std::uint64_t pixels = detail::filter_pixels(labels, width, height);
    if (pixels == 0) return 0;
    const Census c = census(labels, pixels);
    std::vector<std::uint32_t> present;
    for (std::size_t l = 1; l < c.area.size(); ++l)
        if (c.area[l] != 0) present.push_back(std::uint32_t(l));
    // Larger area first; equal areas: earlier first pixel first. A strict total order (first
    // pixels are distinct), so the chosen set does not depend on the selection algorithm.
    auto before = [&](std::uint32_t a, std::uint32_t b) {
        return c.area[a] != c.area[b] ? c.area[a] > c.area[b] : c.first[a] < c.first[b];
    };
    if (k < present.size()) {
        std::nth_element(present.begin(), present.begin() + k, present.end(), before);
        present.resize(k);
    }
    std::vector<bool> keep(c.area.size(), false);
    for (std::uint32_t l : present) keep[l] = true;
    return apply(labels, pixels, keep);
}

}  // namespace cclabel
