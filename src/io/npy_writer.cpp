// Label images as .npy: format 1.0, '<u4' (or '<u8' for 64-bit labels), C order, shape (height, width)
// (or (depth, height, width) for a volume).
// The header first, then the rows as they arrive (LabelRowWriter), so a picture never has to be whole.
#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <vector>

#include "io/io_common.hpp"
#include "io/npy_format.hpp"

namespace cclabel::io::detail {

namespace {

class NpyLabelSink : public LabelRowWriter::Sink {
public:
    NpyLabelSink(const std::string& path, std::int64_t width, std::int64_t height, int bytes, std::int64_t depth)
        : path_(path), f_(path, "wb"), width_(width), height_(depth < 0 ? height : height * depth), bytes_(bytes) {
        const std::string shape = (depth < 0 ? "" : std::to_string(depth) + ", ") + std::to_string(height) + ", " +
                                  std::to_string(width);
        std::string dict = "{'descr': '<u" + std::to_string(bytes) + "', 'fortran_order': False, 'shape': (" + shape +
                           "), }";
        // NumPy aligns the data to 64 bytes: pad with spaces, end with a newline.
        const std::size_t unpadded = 10 + dict.size() + 1;
        dict.append((64 - unpadded % 64) % 64, ' ');
        dict.push_back('\n');
        std::string head(kNpyMagic, 6);
        head.push_back('\x01');
        head.push_back('\x00');
        head.push_back(char(dict.size() & 0xFF));
        head.push_back(char(dict.size() >> 8));
        head += dict;
        put(head.data(), head.size());
    }

    void write(const void* rows, std::int64_t n) override {
        if (n < 0 || n > height_ - rows_) fail(path_, "internal error: more rows than the image has");
        const std::size_t count = std::size_t(n) * std::size_t(width_);
        if constexpr (std::endian::native == std::endian::little) {
            put(rows, count * std::size_t(bytes_));
        } else {
            swapped_.resize(count * std::size_t(bytes_));
            const auto* src = static_cast<const std::uint8_t*>(rows);
            for (std::size_t i = 0; i < count * std::size_t(bytes_); i += std::size_t(bytes_))
                std::reverse_copy(src + i, src + i + bytes_, swapped_.data() + i);
            put(swapped_.data(), swapped_.size());
        }
        rows_ += n;
    }

    void close() override {
        if (rows_ != height_) fail(path_, "internal error: " + std::to_string(height_ - rows_) + " rows never written");
        if (std::fflush(f_.get()) != 0) fail(path_, std::string("write failed: ") + std::strerror(errno));
    }

private:
    void put(const void* p, std::size_t n) {
        if (n != 0 && std::fwrite(p, 1, n, f_.get()) != n) fail(path_, std::string("write failed: ") + std::strerror(errno));
    }

    std::string path_;
    File f_;
    std::int64_t width_, height_;
    int bytes_;
    std::int64_t rows_ = 0;
    std::vector<std::uint8_t> swapped_;
};

}  // namespace

std::unique_ptr<LabelRowWriter::Sink> open_npy_label_sink(const std::string& path, std::int64_t width, std::int64_t height,
                                                          int label_bytes, std::int64_t depth) {
    return std::make_unique<NpyLabelSink>(path, width, height, label_bytes, depth);
}

}  // namespace cclabel::io::detail
