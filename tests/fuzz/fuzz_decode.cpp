// libFuzzer target over the image readers (PNG, TIFF, PPM/PGM/PBM, .npy): any input must either
// decode or throw cclabel::Error naming the file; crashes, sanitizer reports and other exceptions
// are bugs. read_image takes a path, so each input goes through one scratch file per process.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <string>

#include "cclabel/error.hpp"
#include "cclabel/io.hpp"

// A header may claim a picture of up to 2^40 pixels (the readers' limit, so that the CLI can tile
// what label() cannot). Where memory runs out the readers must say so ("out of memory", from
// std::bad_alloc), as on a real machine; libFuzzer instead stops at any allocation above its RSS
// limit. So here, as on a machine with little memory, a request above 1 GiB fails with bad_alloc.
constexpr std::size_t kMaxAllocation = std::size_t(1) << 30;

// Every unaligned form is replaced (ASan pairs each new with its own delete); the aligned forms
// stay AddressSanitizer's.
static void* limited_malloc(std::size_t n) noexcept { return n > kMaxAllocation ? nullptr : std::malloc(n != 0 ? n : 1); }
void* operator new(std::size_t n) {
    if (void* p = limited_malloc(n)) return p;
    throw std::bad_alloc();
}
void* operator new[](std::size_t n) { return operator new(n); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept { return limited_malloc(n); }
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept { return limited_malloc(n); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }

namespace {

const std::string& scratch() {
    static const std::string path = [] {
        const char* dir = std::getenv("TMPDIR");
        return std::string(dir != nullptr ? dir : "/tmp") + "/fuzz_decode_" + std::to_string(::getpid()) + ".bin";
    }();
    return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string& path = scratch();
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (f == nullptr) std::abort();
    if (size != 0 && std::fwrite(data, 1, size, f) != size) std::abort();
    std::fclose(f);
    try {
        const cclabel::io::Image img = cclabel::io::read_image(path);
        const std::size_t expect = std::size_t(img.width) * std::size_t(img.height) *
                                   std::size_t(cclabel::bytes_per_pixel(img.format));
        if (img.pixels.size() != expect) std::abort();
    } catch (const cclabel::Error& e) {
        if (std::string(e.what()).rfind(path + ": ", 0) != 0) std::abort();
    }
    return 0;
}
