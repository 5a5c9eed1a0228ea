#include "io/io_common.hpp"

#include <cerrno>
#include <cstring>

#include "cclabel/error.hpp"

namespace cclabel::io::detail {

void fail(const std::string& path, const std::string& reason) {
    // Library messages (libtiff's especially) may carry newlines; callers print one line per file.
    std::string r = reason;
    for (char& c : r) {
        if (c == '\n' || c == '\r') c = ' ';
    }
    while (!r.empty() && r.back() == ' ') r.pop_back();
    throw Error(path + ": " + r);
}

void check_pixels(const std::string& path, std::uint64_t width, std::uint64_t height, std::uint64_t limit) {
    if (width != 0 && height > limit / width) {
        fail(path, std::to_string(width) + " x " + std::to_string(height) + " pixels is more than " +
                       (limit == kMaxPixels ? "a 32-bit label can number (at most 4294967295 pixels)"
                                            : "cclabel reads (at most " + std::to_string(limit) + " pixels)"));
    }
}

File::File(const std::string& path, const char* mode) : path_(path), f_(std::fopen(path.c_str(), mode)) {
    if (f_ == nullptr) fail(path, std::string("cannot open: ") + std::strerror(errno));
}

File::~File() {
    if (f_ != nullptr) std::fclose(f_);
}

void File::read_exact(void* dst, std::size_t n, const char* what) {
    if (n != 0 && std::fread(dst, 1, n, f_) != n) {
        fail(path_, std::string("truncated file (") + what + " ends early)");
    }
}

}  // namespace cclabel::io::detail
