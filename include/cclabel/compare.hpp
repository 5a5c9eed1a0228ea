#pragma once
/// @file compare.hpp
/// @brief How a label image differs from the true labelling of the same picture: regions split,
/// regions joined, regions lost to or invented from the background, and regions only numbered
/// differently. What `cclabel check` reports; usable on any tool's labels.
#include <cstdint>

namespace cclabel {

/// The differences between a given label image and the truth. Both are partitions of the pixels
/// into label values; value 0 is the background in both.
///
/// A true region (truth value r ≥ 1) is
///   - *split* when its pixels carry two or more distinct given values (0 included: a region of
///     which a part was given the background is split);
///   - *missed* when all its pixels carry the given value 0.
/// A given label (given value g ≥ 1) has
///   - *joined* when its pixels carry two or more distinct truth values (0 included: a label that
///     mixes background and foreground joined them);
///   - is *extra* when all its pixels are true background.
/// The partitions are equal exactly when all four counts are 0; then `renumbered` counts the true
/// regions whose single given value differs from their truth value, and the images are identical
/// exactly when it is 0 as well.
struct LabelComparison {
    std::uint64_t true_regions = 0;   ///< distinct nonzero truth values
    std::uint64_t given_regions = 0;  ///< distinct nonzero given values
    std::uint64_t split = 0;
    std::uint64_t joined = 0;
    std::uint64_t missed = 0;
    std::uint64_t extra = 0;
    /// Only meaningful when same_partition(): true regions given another number.
    std::uint64_t renumbered = 0;
    /// Pixels whose given value differs from the truth value.
    std::uint64_t pixels_differ = 0;
    /// The first pixel in raster order that belongs to a split, missed, joined or extra region
    /// (so one to look at); -1, -1 when the partitions are equal.
    std::int64_t x = -1, y = -1;

    bool same_partition() const noexcept { return split == 0 && joined == 0 && missed == 0 && extra == 0; }
    bool identical() const noexcept { return same_partition() && renumbered == 0; }
};

/// Compares @p given with @p truth, both width × height values, row-major, tightly packed. Label
/// values are arbitrary (not necessarily 1..N, not necessarily dense). O(pixels) time; memory
/// O(largest label) for labels up to the pixel count, a hash table above it.
/// Throws cclabel::Error on negative sizes, more than 2^32 − 1 pixels, or a null pointer for a
/// non-empty image.
LabelComparison compare_labels(const std::uint32_t* truth, const std::uint32_t* given, std::int64_t width,
                               std::int64_t height);

}  // namespace cclabel
