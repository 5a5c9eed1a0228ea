#include "cli/label_file.hpp"

#include <bit>
#include <cstdio>
#include <cstring>
#include <memory>

#include "cclabel/error.hpp"
#include "cclabel/io.hpp"
#include "io/npy_format.hpp"

namespace cclabel::cli {
namespace {

[[noreturn]] void fail(const std::string& path, const std::string& why) { throw Error(path + ": " + why); }

/// The .npy header's dtype when the file is a .npy of 8-byte integers (which read_image would
/// renumber as colours), else "".
std::string npy64_dtype(const std::string& path, io::detail::NpyHeader& h, long& data_start) {
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
    if (!f) return {};
    unsigned char pre[12] = {};
    if (std::fread(pre, 1, 10, f.get()) != 10 || std::memcmp(pre, io::detail::kNpyMagic, 6) != 0) return {};
    std::size_t len = pre[8] | std::size_t(pre[9]) << 8;
    data_start = 10;
    if (pre[6] != 1) {
        if (std::fread(pre + 10, 1, 2, f.get()) != 2) return {};
        len |= std::size_t(pre[10]) << 16 | std::size_t(pre[11]) << 24;
        data_start = 12;
    }
    if (len > (1u << 20)) return {};
    std::string text(len, '\0');
    if (std::fread(text.data(), 1, len, f.get()) != len) return {};
    data_start += long(len);
    h = io::detail::parse_npy_header(path, text);
    const std::string& d = h.descr;
    return d.size() == 3 && (d[1] == 'i' || d[1] == 'u') && d[2] == '8' ? d : std::string();
}

LabelFile read_npy64(const std::string& path, const io::detail::NpyHeader& h, const std::string& dtype, long data_start) {
    if (h.shape.size() != 2) fail(path, "a label image needs shape (height, width)");
    const std::uint64_t rows = h.shape[0], cols = h.shape[1];
    if (cols != 0 && rows > 0xFFFFFFFFull / cols) fail(path, "label image over 2^32 - 1 pixels");
    const std::uint64_t n = rows * cols;
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
    if (!f || std::fseek(f.get(), data_start, SEEK_SET) != 0) fail(path, "cannot read the file");
    std::vector<std::uint64_t> raw(n);
    if (std::fread(raw.data(), 8, n, f.get()) != n) fail(path, "truncated .npy file");
    const bool swap = (dtype[0] == '>') == (std::endian::native == std::endian::little) && dtype[0] != '|' && dtype[0] != '=';
    LabelFile out;
    out.width = std::int64_t(cols);
    out.height = std::int64_t(rows);
    out.labels.resize(n);
    for (std::uint64_t i = 0; i < n; ++i) {
        std::uint64_t v = raw[i];
        if (swap) v = __builtin_bswap64(v);
        // Fortran order stores column by column.
        const std::uint64_t at = h.fortran_order ? (i % rows) * cols + i / rows : i;
        if ((dtype[1] == 'i' && std::int64_t(v) < 0) || v > 0xFFFFFFFFull) {
            fail(path, "label value " + (dtype[1] == 'i' ? std::to_string(std::int64_t(v)) : std::to_string(v)) +
                           " at (x=" + std::to_string(at % cols) + ", y=" + std::to_string(at / cols) +
                           ") is not in 0..4294967295");
        }
        out.labels[at] = std::uint32_t(v);
    }
    out.description = "npy " + std::string(dtype[1] == 'i' ? "int64" : "uint64");
    return out;
}

}  // namespace

namespace {

/// The labels of @p width × @p rows pixels of @p format at @p p, as a label file; @p slice_rows > 0
/// names positions in slices of that many rows (x, y, z).
LabelFile labels_of(const std::string& path, const std::uint8_t* p, PixelFormat format, std::int64_t width,
                    std::int64_t rows, const std::string& description, std::int64_t slice_rows) {
    if (description.find("indexed") != std::string::npos || format == PixelFormat::RGB8 || format == PixelFormat::RGBA8)
        fail(path, "a label image has one integer channel (this is " + description + ")");
    if (format == PixelFormat::F16 || format == PixelFormat::F32 || format == PixelFormat::F64)
        fail(path, "a label image has integer values (this is " + description + ")");
    LabelFile out;
    out.width = width;
    out.height = rows;
    out.description = description;
    const std::size_t n = std::size_t(width * rows);
    out.labels.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        std::int64_t v = 0;  // signed labels must not be negative, 64-bit ones must fit
        std::uint64_t u = 0;
        switch (format) {
            case PixelFormat::Binary8:
            case PixelFormat::Gray8: out.labels[i] = p[i]; continue;
            case PixelFormat::Gray16: { std::uint16_t g; std::memcpy(&g, p + 2 * i, 2); out.labels[i] = g; continue; }
            case PixelFormat::I8: v = std::int8_t(p[i]); break;
            case PixelFormat::I16: { std::int16_t x; std::memcpy(&x, p + 2 * i, 2); v = x; break; }
            case PixelFormat::I32: { std::int32_t x; std::memcpy(&x, p + 4 * i, 4); v = x; break; }
            case PixelFormat::I64: std::memcpy(&v, p + 8 * i, 8); break;
            case PixelFormat::U64: std::memcpy(&u, p + 8 * i, 8); v = u > 0xFFFFFFFFull ? -1 : std::int64_t(u); break;
            default: std::memcpy(&out.labels[i], p + 4 * i, 4); continue;
        }
        if (v < 0 || v > 0xFFFFFFFFll) {
            const std::size_t x = i % std::size_t(width), y = i / std::size_t(width);
            const std::string at = slice_rows > 0 ? "(x=" + std::to_string(x) + ", y=" + std::to_string(y % std::size_t(slice_rows)) +
                                                        ", z=" + std::to_string(y / std::size_t(slice_rows)) + ")"
                                                  : "(x=" + std::to_string(x) + ", y=" + std::to_string(y) + ")";
            fail(path, "label value " + (u > 0xFFFFFFFFull ? std::to_string(u) : std::to_string(v)) + " at " + at +
                           " is not in 0..4294967295");
        }
        out.labels[i] = std::uint32_t(v);
    }
    return out;
}

}  // namespace

LabelFile read_label_file(const std::string& path) {
    io::detail::NpyHeader h;
    long data_start = 0;
    if (const std::string d = npy64_dtype(path, h, data_start); !d.empty()) return read_npy64(path, h, d, data_start);
    const io::Image img = io::read_image(path);
    return labels_of(path, img.pixels.data(), img.format, img.width, img.height, img.description, 0);
}

LabelFile read_label_volume(const std::string& path) {
    const io::Volume v = io::read_volume(path);
    LabelFile out = labels_of(path, v.voxels.data(), v.format, v.width, v.height * v.depth, v.description, v.height);
    out.height = v.height;
    out.depth = v.depth;
    return out;
}

}  // namespace cclabel::cli
