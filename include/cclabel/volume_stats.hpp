#pragma once
/// @file volume_stats.hpp
/// @brief Region statistics (voxel count, 3-D bounding box, centroid, surface voxels, value),
/// filtering (drop small regions, keep the k largest) and the correctness certificate of 3-D label
/// volumes, on the CPU.
///
/// As for pictures (cclabel/stats.hpp), a region is the set of voxels that carry one label value:
/// the functions read the label volume as it is, so any label volume works, not only
/// label_volume()'s. Label volumes are width × height × depth uint32 values, packed, z then y then
/// x, as label_volume() writes them.
#include <array>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "cclabel/detail/value_as.hpp"
#include "cclabel/options.hpp"
#include "cclabel/volume.hpp"

namespace cclabel {

/// Statistics of one region (one label value) of a volume. Counts and coordinate sums are 64-bit.
struct VolumeRegionStats {
    /// Number of voxels carrying the label.
    std::uint64_t voxels = 0;
    /// Bounding box in the convention of RegionStats (OpenCV's): the smallest x, y and z of the
    /// region and the inclusive extents (x1 - x + 1, ...), so the box is
    /// [x, x + width) × [y, y + height) × [z, z + depth). All 0 when voxels is 0.
    std::int64_t x = 0, y = 0, z = 0, width = 0, height = 0, depth = 0;
    /// Centroid: the mean x, y and z of the region's voxels (voxel centres at integer coordinates),
    /// computed as double(exact 64-bit sum) / double(voxels). NaN when voxels is 0.
    double cx = 0, cy = 0, cz = 0;
    /// Number of the region's voxels with at least one of their 6 face neighbours (x ± 1, y ± 1,
    /// z ± 1) outside the region: carrying another label, or outside the volume (the volume's
    /// border counts as outside). Always the 6-neighbourhood, whatever the labelling's
    /// connectivity: a 1-voxel region has surface 1, a filled box of a × b × c (each ≥ 3) well
    /// inside the volume has a·b·c - (a - 2)(b - 2)(c - 2), and a region around a cavity also
    /// counts the voxels around the cavity.
    std::uint64_t surface = 0;
    /// The region's value per channel, read from the volume at the region's first voxel in raster
    /// order (z, then y, then x), as RegionStats::value: {r, g, b, 0} for RGB8, {r, g, b, a} for
    /// RGBA8, {v, 0, 0, 0} for Gray8/Gray16/U32, {0 or 1, 0, 0, 0} for Binary8; the typed formats'
    /// bits zero-extended (low 32 in value[0], high 32 in value[1]), floats canonical (+0.0 for
    /// -0.0, the default quiet NaN for any NaN). All 0 when voxels is 0.
    std::array<std::uint32_t, 4> value{};

    /// value[0] (and value[1] for an 8-byte @p T) as a @p T, as RegionStats::value_as.
    template <typename T>
        requires(std::is_trivially_copyable_v<T> && (sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8))
    T value_as() const noexcept {
        return detail::value_as<T>(value);
    }
};

/// Statistics of every region of @p labels, a label volume of @p volume.
///
/// Returns rows 0..N, N being the largest label present (0 for an empty volume or an all-zero
/// label volume), so that `stats[label]` works; row 0 describes the voxels labelled 0 (the
/// background) with the same definitions. A label in 1..N with no voxel gets a row with 0 voxels.
/// The result never depends on the thread count.
///
/// @param volume   the volume that was labelled (any format label_volume() takes, with its
///                 strides); it gives each region's value.
/// @param labels   width × height × depth labels, packed, z then y then x.
/// @param options  connectivity must be 6, 18 or 26 (as for label_volume(); the surface is always
///                 counted over the 6 face neighbours); threads: 0 means every core, at most one a
///                 2^15 voxels; backend Auto or Cpu (Cuda is an Error: the statistics of volumes
///                 run on the CPU); background is only validated.
/// @return N + 1 rows, row l describing label l.
/// Throws cclabel::Error on the arguments label_volume() rejects, and when a label value exceeds
/// the number of voxels.
std::vector<VolumeRegionStats> regions_volume(const VolumeView& volume, const std::uint32_t* labels,
                                              const Options& options);

/// Removes the regions of fewer than @p min_voxels voxels from a label volume: their voxels become
/// 0 and the remaining regions are renumbered 1..M in raster order (z, then y, then x) of their
/// first voxel, as remove_small() does for pictures (one thread, on the CPU).
///
/// @param labels      width × height × depth labels, packed, z then y then x; rewritten in place.
/// @param width       voxels along x.
/// @param height      rows along y.
/// @param depth       slices along z.
/// @param min_voxels  regions with fewer voxels are removed.
/// @return M, the regions left.
/// Throws cclabel::Error on negative sizes, more than 2^32 - 1 voxels, a null pointer for a
/// non-empty volume, or a label value above the voxel count.
std::uint32_t remove_small_volume(std::uint32_t* labels, std::int64_t width, std::int64_t height, std::int64_t depth,
                                  std::uint64_t min_voxels);

/// Keeps the @p k largest regions of a label volume (by voxel count; between equal counts the
/// region whose first voxel comes first in raster order wins), sets every other voxel to 0 and
/// renumbers the kept regions 1..M in raster order of their first voxel.
///
/// @param labels  width × height × depth labels, packed, z then y then x; rewritten in place.
/// @param width   voxels along x.
/// @param height  rows along y.
/// @param depth   slices along z.
/// @param k       how many regions to keep.
/// @return M = min(k, number of regions).
/// Same errors as remove_small_volume().
std::uint32_t keep_largest_volume(std::uint32_t* labels, std::int64_t width, std::int64_t height, std::int64_t depth,
                                  std::uint32_t k);

/// The verdict of verify_volume(). When ok is false, message says what is wrong and (x, y, z) where.
struct VolumeVerifyReport {
    bool ok = true;
    std::string message;
    std::int64_t x = -1;
    std::int64_t y = -1;
    std::int64_t z = -1;
    std::uint32_t count = 0;  ///< N read off the labels when ok
};

/// Checks that @p labels is exactly label_volume()'s labelling of @p volume under @p options, in
/// O(voxels) with no second labeller: background voxels, and only they, are 0; every label's
/// voxels share one value; neighbouring (under the connectivity) voxels of one value share a
/// label; every label is connected; labels are exactly 1..N with first voxels in increasing raster
/// order (z, then y, then x).
///
/// @param volume   the volume (Binary8, Gray8, Gray16, U32, RGB8 or RGBA8; the typed formats I8 to
///                 F64 are an Error, as for verify()).
/// @param labels   width × height × depth labels, packed, z then y then x.
/// @param options  connectivity 6, 18 or 26; background / background_value as labelled.
/// @return ok, or the first problem found: message, and x, y, z of the voxel where it was found.
/// Throws Error only for bad arguments (those label_volume() rejects); a wrong labelling is a
/// report.
VolumeVerifyReport verify_volume(const VolumeView& volume, const std::uint32_t* labels, const Options& options);

}  // namespace cclabel
