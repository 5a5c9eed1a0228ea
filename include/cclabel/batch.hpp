#pragma once
/// @file batch.hpp
/// @brief Many images in one call: each labelled on its own (labels 1..N_b per image, as
/// cclabel::label gives), counts returned per image. On the CPU the images are spread over threads.
///
/// @code
///   // 64 masks of 512 x 512 in one (B, H, W) buffer:
///   cclabel::BatchView b{masks, 64, 512, 512, 0, 0, cclabel::PixelFormat::Binary8};
///   std::vector<std::uint32_t> labels(64 * 512 * 512);
///   cclabel::BatchResult r = cclabel::label_batch(b, labels.data(), opt);   // r.counts[b] = N_b
/// @endcode
#include <cstdint>
#include <vector>

#include "cclabel/image_view.hpp"
#include "cclabel/options.hpp"

namespace cclabel {

/// B images of one size and format in one buffer, (B, H, W[, C]): image b starts at
/// data + b · batch_stride bytes, its row y at that + y · stride.
struct BatchView {
    const void* data = nullptr;
    std::int64_t count = 0;  ///< B
    std::int64_t width = 0, height = 0;
    std::int64_t stride = 0;        ///< bytes between rows; 0 means packed rows
    std::int64_t batch_stride = 0;  ///< bytes between images; 0 means packed images (height · row stride)
    PixelFormat format = PixelFormat::Gray8;

    /// Image @p b as a view (no checks).
    ImageView image(std::int64_t b) const noexcept;
};

/// B images of different sizes (one format) in one buffer: image b starts at data + offsets[b]
/// bytes and is widths[b] × heights[b] pixels, rows strides[b] bytes apart. Parallel arrays of
/// integers so that they bind to NumPy as they are.
struct RaggedBatchView {
    const void* data = nullptr;
    PixelFormat format = PixelFormat::Gray8;
    std::vector<std::int64_t> offsets;  ///< byte offset of each image from data
    std::vector<std::int64_t> widths, heights;
    std::vector<std::int64_t> strides;  ///< bytes between rows per image (0: packed); empty: all packed

    std::int64_t count() const noexcept { return std::int64_t(offsets.size()); }
};

/// What a batch call reports.
struct BatchResult {
    std::vector<std::uint32_t> counts;  ///< N_b per image, background excluded
    Backend backend = Backend::Cpu;     ///< the backend that ran (Auto resolved)
};

/// Labels every image of @p batch into @p out: B × height × width labels, image b's packed at
/// out + b · height · width. Throws Error on a bad batch (negative count or strides, a batch
/// stride shorter than an image) or on what label() rejects for one image (the message names it).
BatchResult label_batch(const BatchView& batch, std::uint32_t* out, const Options& options = {});

/// Labels every image of @p batch into @p out, the images' labels packed one after another:
/// image b's at out + ragged_label_offsets(batch)[b]. Throws Error on a bad offset table (arrays
/// of different lengths, a negative offset) or on what label() rejects for one image.
BatchResult label_batch(const RaggedBatchView& batch, std::uint32_t* out, const Options& options = {});

/// Where each image's labels start in label_batch()'s output of a ragged batch: B + 1 entries,
/// the last the total number of labels (the size of the output).
std::vector<std::uint64_t> ragged_label_offsets(const RaggedBatchView& batch);

}  // namespace cclabel
