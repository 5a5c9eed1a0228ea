// The public entry points: pick the reader by the file's first bytes (never by its extension), and
// the label writer by the output's extension.
#include <cstring>
#include <filesystem>
#include <new>

#include "cclabel/error.hpp"
#include "io/io_common.hpp"

namespace cclabel::io {

using detail::fail;

Image read_image(const std::string& path) {
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::file_status st = fs::status(path, ec);
    if (ec || !fs::exists(st)) fail(path, "no such file");
    if (fs::is_directory(st)) fail(path, "is a directory, not an image");
    if (!fs::is_regular_file(st)) fail(path, "not a regular file");
    const std::uintmax_t size = fs::file_size(path, ec);
    if (ec) fail(path, "cannot read the file size: " + ec.message());
    if (size == 0) fail(path, "empty file");

    unsigned char magic[8] = {};
    std::size_t got = 0;
    {
        detail::File f(path, "rb");
        got = std::fread(magic, 1, sizeof magic, f.get());
    }
    try {
        static const unsigned char png[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
        if (got >= 8 && std::memcmp(magic, png, 8) == 0) return detail::read_png(path, size);
        if (got >= 4 && detail::is_tiff_magic(magic)) return detail::read_tiff(path, size);
        if (got >= 6 && std::memcmp(magic, "\x93NUMPY", 6) == 0) return detail::read_npy(path, size);
        if (got >= 2 && magic[0] == 'P' && magic[1] >= '1' && magic[1] <= '6') return detail::read_pnm(path, size);
    } catch (const std::bad_alloc&) {
        fail(path, "out of memory");
    } catch (const std::length_error&) {
        fail(path, "image too large for this machine");
    }
    fail(path, "unrecognised file format (not PNG, TIFF, PPM/PGM/PBM or NumPy .npy)");
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

LabelRowWriter::LabelRowWriter(const std::string& path, std::int64_t width, std::int64_t height, int label_bytes) {
    if (width < 0 || height < 0) fail(path, "negative image size");
    if (label_bytes != 4 && label_bytes != 8) fail(path, "internal error: labels of " + std::to_string(label_bytes) + " bytes");
    if (width != 0 && std::uint64_t(height) > (std::uint64_t(1) << 60) / std::uint64_t(width))
        fail(path, std::to_string(width) + " x " + std::to_string(height) + " labels overflow the address space");
    std::string ext = std::filesystem::path(path).extension().string();
    for (char& c : ext) c = char(std::tolower(static_cast<unsigned char>(c)));
    if (ext == ".npy")
        sink_ = detail::open_npy_label_sink(path, width, height, label_bytes);
    else if (ext == ".tif" || ext == ".tiff")
        sink_ = detail::open_tiff_label_sink(path, width, height, label_bytes);
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
