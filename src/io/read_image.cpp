// The public entry points: pick the reader by the file's first bytes (never by its extension), and
// the label writer by the output's extension.
#include <cstring>
#include <filesystem>
#include <new>

#include "cclabel/error.hpp"
#include "io/io_common.hpp"

namespace cclabel::io {

using detail::fail;

namespace {

/// The size of the regular, non-empty file @p path and its first bytes (@p got of them).
std::uint64_t open_checked(const std::string& path, unsigned char (&magic)[8], std::size_t& got) {
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::file_status st = fs::status(path, ec);
    if (ec || !fs::exists(st)) fail(path, "no such file");
    if (fs::is_directory(st)) fail(path, "is a directory, not an image");
    if (!fs::is_regular_file(st)) fail(path, "not a regular file");
    const std::uintmax_t size = fs::file_size(path, ec);
    if (ec) fail(path, "cannot read the file size: " + ec.message());
    if (size == 0) fail(path, "empty file");
    detail::File f(path, "rb");
    got = std::fread(magic, 1, sizeof magic, f.get());
    return size;
}

bool is_npy_magic(const unsigned char* magic, std::size_t got) { return got >= 6 && std::memcmp(magic, "\x93NUMPY", 6) == 0; }

}  // namespace

Image read_image(const std::string& path) {
    unsigned char magic[8] = {};
    std::size_t got = 0;
    const std::uint64_t size = open_checked(path, magic, got);
    try {
        static const unsigned char png[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
        if (got >= 8 && std::memcmp(magic, png, 8) == 0) return detail::read_png(path, size);
        if (got >= 4 && detail::is_tiff_magic(magic)) return detail::read_tiff(path, size);
        if (is_npy_magic(magic, got)) return detail::read_npy(path, size);
        if (got >= 2 && magic[0] == 'P' && magic[1] >= '1' && magic[1] <= '6') return detail::read_pnm(path, size);
    } catch (const std::bad_alloc&) {
        fail(path, "out of memory");
    } catch (const std::length_error&) {
        fail(path, "image too large for this machine");
    }
    fail(path, "unrecognised file format (not PNG, TIFF, PPM/PGM/PBM or NumPy .npy)");
}

Volume read_volume(const std::string& path) {
    unsigned char magic[8] = {};
    std::size_t got = 0;
    const std::uint64_t size = open_checked(path, magic, got);
    Volume v;
    try {
        if (is_npy_magic(magic, got)) {
            Image slices = detail::read_npy_volume(path, size, v.depth);
            v.width = slices.width;
            v.height = v.depth != 0 ? slices.height / v.depth : 0;
            v.format = slices.format;
            v.voxels = std::move(slices.pixels);
            v.description = std::move(slices.description);
            return v;
        }
        PageReader reader(path);
        v.depth = reader.pages();
        std::string first;
        for (int i = 0; i < reader.pages(); ++i) {
            const Page page = reader.read(i);
            const ImageView s = page.view();
            const std::string what = std::to_string(s.width) + "x" + std::to_string(s.height) + " " +
                                     std::string(format_name(s.format));
            if (i == 0) {
                v.width = s.width, v.height = s.height, v.format = s.format, first = what;
                v.description = page.image.description;
                detail::check_pixels(path, std::uint64_t(s.width), std::uint64_t(s.height) * std::uint64_t(v.depth));
                v.voxels.reserve(std::size_t(s.pixels() * std::uint64_t(v.depth) * std::uint64_t(bytes_per_pixel(s.format))));
            } else if (s.width != v.width || s.height != v.height || s.format != v.format) {
                fail(path, "page " + std::to_string(i + 1) + " is " + what + ", page 1 " + first +
                               ": the pages of a volume must share size and format");
            }
            const std::size_t row = std::size_t(s.width * bytes_per_pixel(s.format));
            const auto* p = static_cast<const std::uint8_t*>(s.data);
            for (std::int64_t y = 0; y < s.height; ++y)
                v.voxels.insert(v.voxels.end(), p + y * s.row_bytes(), p + y * s.row_bytes() + row);
        }
        if (v.depth > 1) v.description += ", " + std::to_string(v.depth) + " pages";
        return v;
    } catch (const std::bad_alloc&) {
        fail(path, "out of memory");
    } catch (const std::length_error&) {
        fail(path, "volume too large for this machine");
    }
}

namespace {

template <typename T>
void write_label_file(const std::string& path, const T* labels, std::int64_t width, std::int64_t height) {
    if (width < 0 || height < 0) fail(path, "negative image size");
    if constexpr (sizeof(T) == 4) {
        detail::check_pixels(path, std::uint64_t(width), std::uint64_t(height), detail::kMaxPixels);
    } else if (width != 0 && std::uint64_t(height) > (std::uint64_t(1) << 60) / std::uint64_t(width)) {
        fail(path, std::to_string(width) + " x " + std::to_string(height) + " labels overflow the address space");
    }
    if (labels == nullptr && width != 0 && height != 0) fail(path, "null label image");
    LabelRowWriter out(path, width, height, int(sizeof(T)));
    out.write(labels, height);
    out.close();
}

}  // namespace

void write_labels(const std::string& path, const std::uint32_t* labels, std::int64_t width, std::int64_t height) {
    write_label_file(path, labels, width, height);
}

void write_labels(const std::string& path, const std::uint64_t* labels, std::int64_t width, std::int64_t height) {
    write_label_file(path, labels, width, height);
}

void write_volume_labels(const std::string& path, const std::uint32_t* labels, std::int64_t width, std::int64_t height,
                         std::int64_t depth) {
    if (width < 0 || height < 0 || depth < 0) fail(path, "negative volume size");
    detail::check_pixels(path, std::uint64_t(width), std::uint64_t(height) * std::uint64_t(depth), detail::kMaxPixels);
    if (labels == nullptr && width != 0 && height != 0 && depth != 0) fail(path, "null label volume");
    LabelRowWriter out(path, width, height, 4, depth);
    out.write(labels, height * depth);
    out.close();
}

LabelRowWriter::LabelRowWriter(const std::string& path, std::int64_t width, std::int64_t height, int label_bytes,
                               std::int64_t depth) {
    if (width < 0 || height < 0 || depth < -1) fail(path, "negative image size");
    if (label_bytes != 4 && label_bytes != 8) fail(path, "internal error: labels of " + std::to_string(label_bytes) + " bytes");
    if (width != 0 && std::uint64_t(height) > (std::uint64_t(1) << 60) / std::uint64_t(width))
        fail(path, std::to_string(width) + " x " + std::to_string(height) + " labels overflow the address space");
    if (depth > 0 && width != 0 && height != 0 &&
        std::uint64_t(depth) > (std::uint64_t(1) << 60) / (std::uint64_t(width) * std::uint64_t(height)))
        fail(path, std::to_string(width) + " x " + std::to_string(height) + " x " + std::to_string(depth) +
                       " labels overflow the address space");
    std::string ext = std::filesystem::path(path).extension().string();
    for (char& c : ext) c = char(std::tolower(static_cast<unsigned char>(c)));
    if (ext == ".npy")
        sink_ = detail::open_npy_label_sink(path, width, height, label_bytes, depth);
    else if (ext == ".tif" || ext == ".tiff")
        sink_ = detail::open_tiff_label_sink(path, width, height, label_bytes, depth);
    else
        fail(path, "unknown label file extension '" + ext + "' (use .tif, .tiff or .npy)");
    bytes_ = label_bytes;
}

LabelRowWriter::~LabelRowWriter() = default;

void LabelRowWriter::write(const std::uint32_t* rows, std::int64_t n) {
    if (bytes_ != 4) throw Error("internal error: uint32 rows for a writer of uint64 labels");
    sink_->write(rows, n);
}

void LabelRowWriter::write(const std::uint64_t* rows, std::int64_t n) {
    if (bytes_ != 8) throw Error("internal error: uint64 rows for a writer of uint32 labels");
    sink_->write(rows, n);
}

void LabelRowWriter::close() { sink_->close(); }

}  // namespace cclabel::io
