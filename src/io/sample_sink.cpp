#include "io/sample_sink.hpp"

#include <algorithm>
#include <cstring>
#include <new>
#include <utility>

#include "io/io_common.hpp"

namespace cclabel::io::detail {
namespace {

std::uint64_t load(const std::uint8_t* p, int bytes) {
    switch (bytes) {
        case 1: return p[0];
        case 2: { std::uint16_t v; std::memcpy(&v, p, 2); return v; }
        case 4: { std::uint32_t v; std::memcpy(&v, p, 4); return v; }
        default: { std::uint64_t v; std::memcpy(&v, p, 8); return v; }
    }
}

}  // namespace

PixelConverter::PixelConverter(const std::string& path, int spp, int sample_bytes, bool binary)
    : spp_(spp), bytes_(sample_bytes) {
    const int bits = spp * sample_bytes * 8;
    if (binary) {
        format_ = PixelFormat::Binary8;
    } else if (spp == 1 && sample_bytes == 1) {
        format_ = PixelFormat::Gray8;
    } else if (spp == 1 && sample_bytes == 2) {
        format_ = PixelFormat::Gray16;
    } else if (spp == 1 && sample_bytes == 4) {
        format_ = PixelFormat::U32;
    } else if (spp == 3 && sample_bytes == 1) {
        format_ = PixelFormat::RGB8;
    } else if (spp == 4 && sample_bytes == 1) {
        format_ = PixelFormat::RGBA8;
    } else if (spp == 2 && sample_bytes == 1) {
        format_ = PixelFormat::RGBA8;
        mode_ = Mode::GrayAlpha8;
    } else if (spp == 2 && sample_bytes == 2) {
        format_ = PixelFormat::U32;
        mode_ = Mode::GrayAlpha16;
    } else if (spp >= 1 && spp <= 4 && bits <= 64) {
        format_ = PixelFormat::U32;
        mode_ = Mode::Index;
    } else {
        fail(path, "unsupported pixel layout: " + std::to_string(spp) + " samples of " +
                       std::to_string(sample_bytes * 8) + " bits");
    }
}

PixelConverter::PixelConverter(PixelFormat typed) : format_(typed), spp_(1), bytes_(bytes_per_pixel(typed)) {}

void PixelConverter::convert(const std::uint8_t* src, std::size_t px, std::uint8_t* dst) {
    switch (mode_) {
        case Mode::Copy: std::memcpy(dst, src, px * std::size_t(bytes_per_pixel(format_))); break;
        case Mode::GrayAlpha8:
            for (std::size_t i = 0; i < px; ++i) {
                dst[4 * i] = dst[4 * i + 1] = dst[4 * i + 2] = src[2 * i];
                dst[4 * i + 3] = src[2 * i + 1];
            }
            break;
        case Mode::GrayAlpha16:
            for (std::size_t i = 0; i < px; ++i) {
                const std::uint32_t v = std::uint32_t(load(src + 4 * i, 2)) | std::uint32_t(load(src + 4 * i + 2, 2)) << 16;
                std::memcpy(dst + 4 * i, &v, 4);
            }
            break;
        case Mode::Index: {
            const std::size_t step = std::size_t(spp_) * std::size_t(bytes_);
            for (std::size_t i = 0; i < px; ++i) {
                std::uint64_t key = 0;
                for (int s = 0; s < spp_; ++s) key |= load(src + i * step + std::size_t(s * bytes_), bytes_) << (s * bytes_ * 8);
                const std::uint32_t id = index_(key);
                std::memcpy(dst + 4 * i, &id, 4);
            }
            break;
        }
    }
}

SampleSink::SampleSink(const std::string& path, std::int64_t width, std::int64_t height, int spp,
                       int sample_bytes, std::uint64_t source_bytes, bool binary)
    : SampleSink(path, width, height, spp, sample_bytes, source_bytes, PixelConverter(path, spp, sample_bytes, binary)) {}

SampleSink::SampleSink(const std::string& path, std::int64_t width, std::int64_t height, PixelFormat typed,
                       std::uint64_t source_bytes)
    : SampleSink(path, width, height, 1, bytes_per_pixel(typed), source_bytes, PixelConverter(typed)) {}

SampleSink::SampleSink(const std::string& path, std::int64_t width, std::int64_t height, int spp,
                       int sample_bytes, std::uint64_t source_bytes, PixelConverter conv)
    : path_(path), conv_(std::move(conv)) {
    if (width < 0 || height < 0) fail(path, "negative image size");
    check_pixels(path, std::uint64_t(width), std::uint64_t(height));
    img_.width = width;
    img_.height = height;
    img_.format = conv_.format();
    in_row_ = std::size_t(width) * std::size_t(spp) * std::size_t(sample_bytes);
    out_row_ = std::size_t(width) * std::size_t(bytes_per_pixel(img_.format));
    const std::uint64_t total = std::uint64_t(out_row_) * std::uint64_t(height);
    check_memory(path, total,
                 "a " + std::to_string(width) + " x " + std::to_string(height) + " " + std::string(format_name(img_.format)) +
                     " picture");
    check_decode_work(path, std::max(in_row_, out_row_), std::uint64_t(height), source_bytes);
    if (total > img_.pixels.max_size()) fail(path, "image too large for this machine");
    try {
        // Only address space: the pages are touched as rows arrive.
        img_.pixels.reserve(std::size_t(total));
    } catch (const std::bad_alloc&) {
        fail(path, "out of memory for " + std::to_string(total) + " bytes of pixels");
    }
}

void SampleSink::add_rows(const std::uint8_t* src, std::int64_t n) {
    if (n <= 0) return;
    if (n > img_.height - rows_) fail(path_, "internal error: more rows than the image has");
    if (img_.width == 0) {  // zero-width rows (a (H, 0) .npy) carry no bytes, and data() may be null
        rows_ += n;
        return;
    }
    const std::size_t old = img_.pixels.size();
    img_.pixels.resize(old + std::size_t(n) * out_row_);
    conv_.convert(src, std::size_t(n) * std::size_t(img_.width), img_.pixels.data() + old);
    rows_ += n;
}

Image SampleSink::finish(std::string description) {
    if (rows_ != img_.height) fail(path_, "truncated image data");
    if (conv_.indexed()) description += ", " + std::to_string(conv_.colours()) + " colours indexed as u32";
    img_.description = std::move(description);
    return std::move(img_);
}

}  // namespace cclabel::io::detail
