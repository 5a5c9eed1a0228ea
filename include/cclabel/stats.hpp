#pragma once
/// @file stats.hpp
/// @brief Region statistics (area, bounding box, centroid, perimeter, value) and filtering of a
/// label image (drop small regions, keep the k largest), on the CPU or the GPU (same results, bit
/// for bit), and labelling with statistics in one call. The device versions (pictures and labels
/// already in GPU memory, on a caller's stream) are in cclabel/cuda_stats.hpp.
///
/// A region here is the set of pixels that carry one label value; the functions read the label
/// image as it is (they do not re-label), so any label image works, not only this library's.
#include <array>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "cclabel/detail/value_as.hpp"
#include "cclabel/image_view.hpp"
#include "cclabel/label.hpp"
#include "cclabel/options.hpp"

namespace cclabel {

/// Statistics of one region (one label value). All counts and coordinate sums are 64-bit. A plain
/// 80-byte row (no pointers, trivially copyable): the GPU writes arrays of it as they are.
struct RegionStats {
    /// Number of pixels carrying the label.
    std::uint64_t area = 0;
    /// Bounding box as OpenCV's connectedComponentsWithStats gives it (CC_STAT_LEFT, CC_STAT_TOP,
    /// CC_STAT_WIDTH, CC_STAT_HEIGHT): leftmost column, top row, and the inclusive extent
    /// (right - left + 1, bottom - top + 1). All 0 when area is 0.
    std::int64_t x = 0, y = 0, width = 0, height = 0;
    /// Centroid: mean column and mean row of the region's pixels (pixel centres at integer
    /// coordinates, as OpenCV), computed as double(exact 64-bit sum) / double(area). NaN when
    /// area is 0.
    double cx = 0, cy = 0;
    /// Number of the region's pixels that have at least one neighbour, under the options'
    /// connectivity (4: left, right, up, down; 8: those and the four diagonals), that either lies
    /// outside the image or carries a different label. So every region pixel on the image border
    /// counts, a 1-pixel region has perimeter 1, a filled w × h rectangle (w, h ≥ 3) well inside
    /// the image has 2w + 2h - 4 under both connectivities, and a region with a hole also counts
    /// the pixels around the hole. (Pixels, not edge lengths: this is not OpenCV's arcLength.)
    std::uint64_t perimeter = 0;
    /// The region's value per channel, read from the image at the region's first pixel in raster
    /// order: RGB8 {r, g, b, 0}, RGBA8 {r, g, b, a}, Gray8/Gray16/U32 {v, 0, 0, 0}, Binary8
    /// {0 or 1, 0, 0, 0} (any nonzero byte reads 1). For a label image made by label() from the
    /// same image and options, every pixel of a region has this value. All 0 when area is 0.
    /// The typed formats (I8 to F64) give the value's bits in the image's own type, zero-extended:
    /// the low 32 in value[0], the high 32 in value[1] (8-byte formats), so value_as<std::int16_t>()
    /// of an I16 region is its value. Floats are reported canonical, as they are compared: +0.0 for
    /// a region of -0.0 and +0.0 pixels, the default quiet NaN (F32 0x7FC00000) for any NaN.
    std::array<std::uint32_t, 4> value{};

    /// value[0] (and value[1] for an 8-byte @p T) as a @p T: the region's value of a
    /// single-channel format, in its own type (std::int8_t for I8, double for F64, std::uint16_t
    /// for the bits of an F16, ...).
    template <typename T>
        requires(std::is_trivially_copyable_v<T> && (sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8))
    T value_as() const noexcept {
        return detail::value_as<T>(value);
    }
};

/// Statistics of every region of @p labels, a label image of @p image (row-major, tightly packed,
/// image.width × image.height values, as label() writes it).
///
/// Returns rows 0..N, N being the largest label present (0 for an empty image or an all-zero
/// label image), so that `stats[label]` works as with OpenCV and cc3d. Row 0 describes the pixels
/// labelled 0 (the background), with the same definitions (its perimeter counts background pixels
/// next to a labelled pixel or the image border). Labels need not be consecutive: a label in 1..N
/// with no pixel gets a row with area 0. @p options gives the connectivity of the perimeter and
/// the thread count (options.threads; 0 means all cores; the result never depends on it) and the
/// backend (Auto: the GPU for images of 2^20 pixels or more when one is present; Cuda copies the
/// picture and the labels to the GPU and the rows back; the rows are identical bit for bit,
/// centroids included); its background is only validated.
///
/// Throws cclabel::Error on the arguments label() rejects (see validate()), when a label value
/// exceeds the number of pixels (no labelling of the image can produce it, and N + 1 rows would be
/// allocated for it), and for Backend::Cuda without a CUDA build or device.
std::vector<RegionStats> regions(const ImageView& image, const std::uint32_t* labels, const Options& options = {});

/// Removes the regions of fewer than @p min_area pixels from @p labels (width × height values,
/// row-major, tightly packed): their pixels become 0, and the remaining regions are renumbered
/// 1..M in raster order of their first pixel. Returns M. (cc3d's `dust`.) A region is a label
/// value, as in regions(). Throws cclabel::Error on negative sizes, more than 2^32 - 1 pixels,
/// a null pointer for a non-empty image, or a label value above the pixel count. @p backend as in
/// regions() (the CPU version is single-threaded; the GPU version copies the labels there and
/// back); the labels are the same on both.
std::uint32_t remove_small(std::uint32_t* labels, std::int64_t width, std::int64_t height, std::uint64_t min_area,
                           Backend backend = Backend::Auto);

/// Keeps the @p k largest regions of @p labels (by area; between equal areas the region whose
/// first pixel comes first in raster order wins, which for label() output is the smaller label),
/// sets every other pixel to 0 and renumbers the kept regions 1..M in raster order of their first
/// pixel. Returns M = min(k, number of regions). (cc3d's `largest_k`.) Same errors and backends
/// as remove_small().
std::uint32_t keep_largest(std::uint32_t* labels, std::int64_t width, std::int64_t height, std::uint32_t k,
                           Backend backend = Backend::Auto);

/// Labels @p image into @p out (as label()) and fills @p stats with regions() of the result (rows
/// 0..N, N = the returned count). The same labels and rows as the two calls; what one call saves:
/// on the CPU, the validation and the thread start-up of the second call (both steps use
/// options.threads); on the GPU, the picture goes up once, labelling and statistics run back to
/// back on one stream with one workspace (cuda::label_regions_device), and the labels and the
/// rows come down once: the separate calls copy the picture up and the labels both ways twice.
LabelResult label(const ImageView& image, std::uint32_t* out, const Options& options, std::vector<RegionStats>& stats);

}  // namespace cclabel
