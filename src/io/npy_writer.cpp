// Label images as .npy: format 1.0, '<u4' (or '<u8' for 64-bit labels), C order, shape (height, width).
#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <vector>

#include "io/io_common.hpp"
#include "io/npy_format.hpp"

namespace cclabel::io::detail {

namespace {

template <typename T>
void write_npy(const std::string& path, const T* labels, std::int64_t width, std::int64_t height) {
    std::string dict = "{'descr': '<u" + std::to_string(sizeof(T)) + "', 'fortran_order': False, 'shape': (" +
                       std::to_string(height) + ", " + std::to_string(width) + "), }";
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

    File f(path, "wb");
    const auto put = [&](const void* p, std::size_t n) {
        if (n != 0 && std::fwrite(p, 1, n, f.get()) != n) fail(path, std::string("write failed: ") + std::strerror(errno));
    };
    put(head.data(), head.size());
    const std::size_t pixels = std::size_t(width) * std::size_t(height);
    if constexpr (std::endian::native == std::endian::little) {
        put(labels, pixels * sizeof(T));
    } else {
        std::vector<T> row(static_cast<std::size_t>(width));
        for (std::int64_t y = 0; y < height; ++y) {
            for (std::size_t x = 0; x < row.size(); ++x) {
                const T v = labels[std::size_t(y) * row.size() + x];
                if constexpr (sizeof(T) == 4) row[x] = __builtin_bswap32(v); else row[x] = __builtin_bswap64(v);
            }
            put(row.data(), row.size() * sizeof(T));
        }
    }
    if (std::fflush(f.get()) != 0) fail(path, std::string("write failed: ") + std::strerror(errno));
}

}  // namespace

void write_npy_labels(const std::string& path, const std::uint32_t* labels, std::int64_t width, std::int64_t height) {
    write_npy(path, labels, width, height);
}

void write_npy_labels(const std::string& path, const std::uint64_t* labels, std::int64_t width, std::int64_t height) {
    write_npy(path, labels, width, height);
}

}  // namespace cclabel::io::detail
