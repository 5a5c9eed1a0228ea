// Batch arguments checked before anything is read: the batch's own shape (count, strides, offset
// table), then each image as label() checks one, with the image named in the message.
#include <string>

#include "core/cores.hpp"
#include "cclabel/error.hpp"
#include "cclabel/label.hpp"
#include "core/batch_request.hpp"
#include "core/request.hpp"

namespace cclabel {

ImageView BatchView::image(std::int64_t b) const noexcept {
    const std::int64_t row = stride != 0 ? stride : width * bytes_per_pixel(format);
    const std::int64_t step = batch_stride != 0 ? batch_stride : row * height;
    return ImageView{data ? static_cast<const std::uint8_t*>(data) + b * step : nullptr, width, height, stride, format};
}

namespace detail {
namespace {

constexpr std::uint64_t kMaxBytes = ~std::uint64_t(0) >> 1;

// The options, checked (on an empty image of the batch's format) and with the thread count resolved.
Options resolved(PixelFormat format, const Options& options) {
    (void)make_request(ImageView{nullptr, 0, 0, 0, format}, nullptr, options);
    Options o = options;
    if (o.threads == 0) o.threads = usable_cores();
    return o;
}

// Checks image b as label() would; the message names the image.
void check_image(std::int64_t b, const ImageView& v, const std::uint32_t* out, const Options& options) {
    try {
        (void)make_request(v, out, options);
    } catch (const Error& e) {
        throw Error("batch image " + std::to_string(b) + ": " + e.what());
    }
}

}  // namespace

BatchRequest make_batch_request(const BatchView& batch, const std::uint32_t* out, const Options& options) {
    BatchRequest r;
    r.options = resolved(batch.format, options);
    if (batch.count < 0) throw Error("batch count must not be negative (got " + std::to_string(batch.count) + ")");
    if (batch.batch_stride < 0)
        throw Error("negative batch stride " + std::to_string(batch.batch_stride) + " is not supported");
    r.uniform = true;
    r.label_offsets.assign(1, 0);
    if (batch.count == 0) return r;
    const ImageView first = batch.image(0);
    check_image(0, first, out, options);
    const std::uint64_t px = first.pixels();
    if (px > 0) {
        const std::int64_t row = first.row_bytes();
        const std::int64_t span = (batch.height - 1) * row + batch.width * bytes_per_pixel(batch.format);
        const std::int64_t step = batch.batch_stride != 0 ? batch.batch_stride : row * batch.height;
        if (batch.count > 1 && step < span)
            throw Error("batch stride of " + std::to_string(step) + " bytes is shorter than one image (" +
                        std::to_string(span) + " bytes)");
        if (std::uint64_t(batch.count - 1) > (kMaxBytes - std::uint64_t(span)) / std::uint64_t(step))
            throw Error("batch of " + std::to_string(batch.count) + " images of " + std::to_string(step) +
                        " bytes overflows the address space");
        if (std::uint64_t(batch.count) > kMaxBytes / 4 / px)
            throw Error("batch of " + std::to_string(batch.count) + " images of " + std::to_string(px) +
                        " pixels has more labels than memory can address");
        r.batch_stride = step;
    }
    r.images.reserve(std::size_t(batch.count));
    r.label_offsets.resize(std::size_t(batch.count) + 1);
    for (std::int64_t b = 0; b < batch.count; ++b) {
        ImageView v = batch.image(b);
        if (px > 0) v.stride = v.row_bytes();
        r.images.push_back(v);
        r.label_offsets[std::size_t(b) + 1] = std::uint64_t(b + 1) * px;
    }
    return r;
}

BatchRequest make_batch_request(const RaggedBatchView& batch, const std::uint32_t* out, const Options& options) {
    BatchRequest r;
    r.options = resolved(batch.format, options);
    const std::size_t n = batch.offsets.size();
    if (batch.widths.size() != n || batch.heights.size() != n || (!batch.strides.empty() && batch.strides.size() != n))
        throw Error("ragged batch: " + std::to_string(n) + " offsets, " + std::to_string(batch.widths.size()) +
                    " widths, " + std::to_string(batch.heights.size()) + " heights and " +
                    std::to_string(batch.strides.size()) + " strides (need one of each per image; strides may be empty)");
    r.images.reserve(n);
    r.label_offsets.assign(n + 1, 0);
    for (std::size_t b = 0; b < n; ++b) {
        if (batch.offsets[b] < 0)
            throw Error("batch image " + std::to_string(b) + ": negative offset " + std::to_string(batch.offsets[b]));
        ImageView v{nullptr, batch.widths[b], batch.heights[b], batch.strides.empty() ? 0 : batch.strides[b],
                    batch.format};
        if (batch.data) v.data = static_cast<const std::uint8_t*>(batch.data) + batch.offsets[b];
        check_image(std::int64_t(b), v, out, options);
        const std::uint64_t px = v.pixels();
        if (px > 0) v.stride = v.row_bytes();
        if (r.label_offsets[b] > kMaxBytes / 4 - px)
            throw Error("ragged batch has more labels than memory can address (at image " + std::to_string(b) + ")");
        r.label_offsets[b + 1] = r.label_offsets[b] + px;
        r.images.push_back(v);
    }
    return r;
}

}  // namespace detail

std::vector<std::uint64_t> ragged_label_offsets(const RaggedBatchView& batch) {
    static std::uint32_t dummy;
    return detail::make_batch_request(batch, &dummy, Options{}).label_offsets;
}

}  // namespace cclabel
