#include "io/io_common.hpp"

#include <unistd.h>

#include <algorithm>
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

std::uint64_t memory_budget() {
    static const std::uint64_t budget = [] {
        const long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
        if (pages <= 0 || size <= 0) return std::uint64_t(1) << 40;
        return std::uint64_t(pages) * std::uint64_t(size);
    }();
    return budget;
}

namespace {

std::string mib(std::uint64_t bytes) {
    return std::to_string((bytes + (std::uint64_t(1) << 20) - 1) >> 20) + " MiB";
}

}  // namespace

void check_memory(const std::string& path, std::uint64_t bytes, const std::string& what) {
    const std::uint64_t budget = memory_budget();
    if (bytes > budget) {
        fail(path, what + " needs " + mib(bytes) + " of memory, more than this machine has (" + mib(budget) + ")");
    }
}

void check_decode_work(const std::string& path, std::uint64_t row_bytes, std::uint64_t height, std::uint64_t source_bytes,
                       const std::string& claim) {
    const std::uint64_t most = ~std::uint64_t(0);
    const std::uint64_t allowed =
        source_bytes <= kSmallFileBytes
            ? kFreeDecodeBytes
            : std::max(kFreeDecodeBytes, source_bytes > most / kMaxExpansion ? most : source_bytes * kMaxExpansion);
    // allowed >= kFreeDecodeBytes, far above kRowCost: neither the difference nor the sum wraps.
    if (height != 0 && (row_bytes > allowed - kRowCost || row_bytes + kRowCost > allowed / height)) {
        fail(path, "refused: " +
                       (claim.empty() ? "the header claims " + std::to_string(height) + " rows of " + std::to_string(row_bytes) + " bytes"
                                      : claim) +
                       ", more than a file of " + std::to_string(source_bytes) + " bytes may decode to (" +
                       mib(kFreeDecodeBytes) + " for a file of up to " + mib(kSmallFileBytes) + ", else " +
                       std::to_string(kMaxExpansion) + " times the file's size; a decompression bomb or a corrupt header)");
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
