// The colourised preview PNG. libpng errors longjmp only out of the small step functions, whose
// frames hold nothing with a destructor.
#include <png.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

#include "io/io_common.hpp"

namespace cclabel::io {

std::uint32_t preview_colour(std::uint32_t label) {
    if (label == 0) return 0;
    // A 32-bit mixer (murmur3's finaliser): neighbouring labels get unrelated colours.
    std::uint32_t h = label;
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    // Each channel in 48..255 so that no region is black or so dark it looks like background.
    std::uint32_t c = 0;
    for (int s = 0; s < 24; s += 8) c |= (48u + (((h >> s) & 0xFFu) * 208u >> 8)) << s;
    return c;
}

namespace detail {
namespace {

struct PngWriteCtx {
    png_structp png = nullptr;
    png_infop info = nullptr;
    char message[256] = "unknown libpng error";
};

void on_error(png_structp png, png_const_charp msg) {
    auto* ctx = static_cast<PngWriteCtx*>(png_get_error_ptr(png));
    std::snprintf(ctx->message, sizeof ctx->message, "%s", msg != nullptr ? msg : "libpng error");
    png_longjmp(png, 1);
}
void on_warning(png_structp, png_const_charp) {}

bool step_header(PngWriteCtx* c, std::FILE* f, png_uint_32 w, png_uint_32 h) {
    if (setjmp(png_jmpbuf(c->png))) return false;
    png_init_io(c->png, f);
    png_set_IHDR(c->png, c->info, w, h, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    // Previews are for looking at: favour speed on big label images.
    png_set_compression_level(c->png, 1);
    png_set_filter(c->png, 0, PNG_FILTER_SUB);
    png_write_info(c->png, c->info);
    return true;
}
bool step_row(PngWriteCtx* c, png_bytep row) {
    if (setjmp(png_jmpbuf(c->png))) return false;
    png_write_row(c->png, row);
    return true;
}
bool step_end(PngWriteCtx* c) {
    if (setjmp(png_jmpbuf(c->png))) return false;
    png_write_end(c->png, nullptr);
    return true;
}

struct Guard {
    PngWriteCtx* c;
    ~Guard() { png_destroy_write_struct(&c->png, c->info != nullptr ? &c->info : nullptr); }
};

}  // namespace
}  // namespace detail

void write_preview_png(const std::string& path, const std::uint32_t* labels, std::int64_t width, std::int64_t height) {
    using namespace detail;
    if (width <= 0 || height <= 0 || width > 0x7fffffff || height > 0x7fffffff) {
        fail(path, "PNG cannot hold a " + std::to_string(width) + " x " + std::to_string(height) + " preview");
    }
    if (labels == nullptr) fail(path, "null label image");
    File f(path, "wb");
    PngWriteCtx ctx;
    ctx.png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &ctx, on_error, on_warning);
    if (ctx.png == nullptr) fail(path, "libpng could not start");
    Guard guard{&ctx};
    ctx.info = png_create_info_struct(ctx.png);
    if (ctx.info == nullptr) fail(path, "libpng could not start");
    if (!step_header(&ctx, f.get(), png_uint_32(width), png_uint_32(height))) fail(path, std::string("PNG write failed: ") + ctx.message);
    std::vector<png_byte> row(std::size_t(width) * 3);
    for (std::int64_t y = 0; y < height; ++y) {
        const std::uint32_t* src = labels + std::size_t(y) * std::size_t(width);
        std::uint32_t last = 0, colour = 0;
        for (std::int64_t x = 0; x < width; ++x) {
            if (src[x] != last || x == 0) {
                last = src[x];
                colour = preview_colour(last);
            }
            row[std::size_t(3 * x)] = png_byte(colour >> 16);
            row[std::size_t(3 * x + 1)] = png_byte(colour >> 8);
            row[std::size_t(3 * x + 2)] = png_byte(colour);
        }
        if (!step_row(&ctx, row.data())) fail(path, std::string("PNG write failed: ") + ctx.message);
    }
    if (!step_end(&ctx)) fail(path, std::string("PNG write failed: ") + ctx.message);
    if (std::fflush(f.get()) != 0) fail(path, std::string("write failed: ") + std::strerror(errno));
}

}  // namespace cclabel::io
