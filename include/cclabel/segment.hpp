#pragma once
/// @file segment.hpp
/// @brief Segmentation before labelling: a fixed threshold, Otsu's threshold and K-means colour
/// clustering, on the CPU and the GPU with identical results. Their outputs (a Binary8 mask, a U32
/// image of cluster indices) are ready for cclabel::label().
///
/// @code
///   std::uint32_t t = cclabel::otsu_threshold(view);            // foreground is value > t
///   std::vector<std::uint8_t> mask(w * h);
///   cclabel::threshold(view, t, mask.data());                   // 1 where value > t, else 0
///   auto labels = cclabel::label(cclabel::make_view(mask.data(), w, h, cclabel::PixelFormat::Binary8));
///
///   std::vector<std::uint32_t> clusters(w * h);
///   cclabel::KMeansOptions ko; ko.k = 8; ko.seed = 1;
///   cclabel::KMeansResult km = cclabel::kmeans(rgb_view, clusters.data(), ko);
///   auto regions = cclabel::label(cclabel::make_view(clusters.data(), w, h, cclabel::PixelFormat::U32));
/// @endcode
#include <array>
#include <cstdint>
#include <vector>

#include "cclabel/image_view.hpp"
#include "cclabel/options.hpp"

namespace cclabel {

/// Options of threshold() and otsu_threshold().
struct SegmentOptions {
    /// Auto: the CPU without a CUDA device, else whichever of the two this machine's measured rates
    /// say is faster for the picture (as Options::backend). Cuda without a CUDA build or device is an
    /// Error. Results never depend on it.
    Backend backend = Backend::Auto;
    /// CPU threads; 0 means all cores, at most one a 2^15 pixels (as Options::threads). Results
    /// never depend on it.
    int threads = 0;
};

/// The grey value thresholding reads from an RGB pixel: OpenCV's integer RGB→gray conversion
/// (cv2.cvtColor(..., COLOR_RGB2GRAY) value for value), Y = (4899 R + 9617 G + 1868 B + 8192) >> 14.
constexpr std::uint32_t luminance(std::uint32_t r, std::uint32_t g, std::uint32_t b) noexcept {
    return (r * 4899u + g * 9617u + b * 1868u + 8192u) >> 14;
}

/// Otsu's threshold of @p image: the t that maximises the between-class variance of the split
/// {value ≤ t} | {value > t}, so that "foreground is value > t" (OpenCV's THRESH_BINARY).
///
/// The value of a pixel is: Gray8 and Gray16 the pixel; RGB8 and RGBA8 luminance(r, g, b) (alpha
/// ignored). The histogram has 256 bins (65536 for Gray16). For each t with both classes non-empty,
/// with N pixels, S the sum of all values, W0 the pixels ≤ t and S0 their sum (exact integers),
///   score(t) = double(N·S0 − S·W0)² / (double(W0) · double(N − W0))
/// (proportional to the between-class variance; N·S0 − S·W0 computed exactly in 128 bits, then
/// rounded once to double; every operation an IEEE double operation in this order, on the CPU and
/// the GPU alike). The result is the smallest t of maximal score; 0 when no t splits the image
/// (an empty image or a single value), as OpenCV returns then.
///
/// Throws cclabel::Error for Binary8 and U32 (no histogram of them), and on the arguments label()
/// rejects for the view (negative sizes, a short or negative stride, null data for a non-empty
/// image, more than 2^32 − 1 pixels), a bad backend or negative threads.
std::uint32_t otsu_threshold(const ImageView& image, const SegmentOptions& options = {});

/// Writes the Binary8 mask of @p image thresholded at @p t to @p mask (width × height bytes,
/// row-major, tightly packed): 1 where the pixel's value is > t, else 0. The value is the one
/// otsu_threshold() reads (Gray8, Gray16, RGB8/RGBA8 through luminance()); U32 pixels compare
/// their 32-bit value. Throws cclabel::Error for Binary8, on a bad view, a null @p mask for a
/// non-empty image, a bad backend or negative threads.
void threshold(const ImageView& image, std::uint32_t t, std::uint8_t* mask, const SegmentOptions& options = {});

/// Largest k of kmeans().
inline constexpr int kKMeansMaxK = 256;
/// Centres are fixed-point numbers with this many fraction bits (units of 1/16 of a channel level).
inline constexpr int kKMeansFractionBits = 4;
/// Pixels sampled for the k-means++ initialisation (all pixels when the image has fewer).
inline constexpr std::uint32_t kKMeansSample = 2048;

/// Options of kmeans().
struct KMeansOptions {
    int k = 8;                ///< clusters, 1..kKMeansMaxK
    int max_iterations = 10;  ///< centre updates at most (0: the initial centres only); ≥ 0
    std::uint64_t seed = 0;   ///< the same seed gives the same result on every backend and thread count
    Backend backend = Backend::Auto;  ///< as SegmentOptions::backend
    int threads = 0;                  ///< CPU threads; 0 as SegmentOptions::threads
};

/// What kmeans() reports besides the cluster image.
struct KMeansResult {
    /// The k final centres (channel 0..2 = R, G, B; Gray8: channel 0, the others 0), each an exact
    /// multiple of 1/16 (the fixed-point value divided by 16).
    std::vector<std::array<float, 3>> centres;
    /// Centre updates performed (≤ max_iterations).
    std::uint32_t iterations = 0;
    /// True when the last assignment changed no pixel (the centres are a fixed point).
    bool converged = false;
    /// The backend that ran (Auto resolved).
    Backend backend = Backend::Cpu;
};

/// K-means clustering of the colours of @p image (RGB8; RGBA8 with alpha ignored; Gray8 as 1-D
/// values) into @p clusters (width × height uint32 cluster indices 0..k−1, row-major, tightly
/// packed: a U32 image ready for label()).
///
/// The arithmetic is integer, so every backend and thread count gives the same bits:
/// - a pixel's point is p = 16·(channel values); a centre c is a fixed-point point (1/16 units);
///   the distance is the exact integer Σ (p_i − c_i)² over the channels;
/// - assignment: the nearest centre, ties to the smaller index;
/// - update: per cluster the exact 64-bit sums of the channel values and the pixel count, then
///   c_i = (16·sum_i + count/2) / count (integer division: the mean rounded half up to 1/16);
///   an empty cluster keeps its centre;
/// - initialisation (k-means++ on a deterministic sample): the sample is all pixels in raster order
///   when the image has at most kKMeansSample pixels, else pixel mix(seed, j) mod (width·height) for
///   j = 0..kKMeansSample−1; the first centre is sample[mix(seed, 2^32) mod S]; centre i (1..k−1) is
///   the first sample point whose running sum of D² (each point's squared distance to its nearest
///   chosen centre) exceeds mix(seed, 2^32 + i) mod ΣD², or sample[mix(seed, 2^32 + i) mod S] when
///   ΣD² = 0. mix(seed, n) is SplitMix64's finaliser of seed + (n + 1)·0x9E3779B97F4A7C15;
/// - iterations: assign; then up to max_iterations times: update, assign, stop early when the
///   assignment changed no pixel. The returned clusters are the last assignment, so every pixel is
///   at its nearest returned centre.
///
/// An empty image gives k zero centres and 0 iterations. Throws cclabel::Error for formats other
/// than RGB8, RGBA8 and Gray8, k outside 1..kKMeansMaxK, negative max_iterations or threads, a bad
/// backend, a bad view or a null @p clusters for a non-empty image.
KMeansResult kmeans(const ImageView& image, std::uint32_t* clusters, const KMeansOptions& options = {});

}  // namespace cclabel
