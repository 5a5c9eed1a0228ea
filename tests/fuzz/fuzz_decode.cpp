// libFuzzer target over the image readers (PNG, TIFF, PPM/PGM/PBM, .npy, PDF where the build has
// Poppler): any input must either decode or throw cclabel::Error naming the file; crashes,
// sanitizer reports and other exceptions are bugs. The readers take a path, so each input goes
// through one scratch file per process.
//
// A PDF goes through PageReader at kPdfDpi, where an A4 page is 66 x 94 pixels: Poppler still
// parses and interprets every operator, but the render budget, which grows with the pixels
// (src/io/pdf_reader.cpp), refuses a page that draws forever within about a second of processor
// time for a file of up to 1 MiB (1.5 s for the largest page box a small file may claim), 0.25 s
// for a small one, inside -timeout=5 with one page a unit. Poppler itself is not instrumented:
// the fuzzer is guided by cclabel's side (the size checks, the child, its reports), and a crash of
// Poppler must come back as an Error from the renderer's child.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <cstring>
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

// Each PDF page forks a renderer, and after a fork every page this process then writes is copied:
// with ASan's default 256 MiB quarantine of freed memory the process held 400 MB, and the fuzzer ran
// 65 units a second instead of 181 with 16 MiB (30 s runs here). A chunk of the size the readers
// free (a row, a picture of at most 128 MiB, mapped apart and unmapped when freed) is still caught
// when used after its free.
extern "C" const char* __asan_default_options() { return "quarantine_size_mb=16"; }

namespace {

constexpr double kPdfDpi = 8;

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
    if (size >= 5 && std::memcmp(data, "%PDF-", 5) == 0) {
        try {
            cclabel::io::PageReader reader(path, cclabel::io::PageOptions{kPdfDpi});
            const int n = reader.pages();
            if (n < 1) std::abort();
            // One page a unit, the last: finding it walks the page tree (in this process), and a
            // second render would double the unit's time for no more of cclabel's code.
            const int i = n - 1;
            try {
                const cclabel::io::Page page = reader.read(i);
                const cclabel::ImageView v = page.view();
                if (v.width < 1 || v.height < 1 || v.data == nullptr || v.format != cclabel::PixelFormat::RGB8) std::abort();
                // Every row of the rendered page is there to be read.
                const auto* last = static_cast<const volatile std::uint8_t*>(v.data) + (v.height - 1) * v.row_bytes();
                (void)last[v.width * 3 - 1];
            } catch (const cclabel::Error& e) {
                if (std::string(e.what()).rfind(path + (n == 1 ? ": " : " page " + std::to_string(i + 1) + ": "), 0) != 0) std::abort();
            }
        } catch (const cclabel::Error& e) {
            if (std::string(e.what()).rfind(path + ": ", 0) != 0) std::abort();
        }
        return 0;
    }
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
