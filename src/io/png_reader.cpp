// PNG through libpng's progressive-free classic API. The simplified API would be easier but it
// converts gamma and premultiplies 16-bit alpha, which changes pixel values and so the labels.
//
// libpng reports errors by longjmp. Every setjmp lives in a small step function whose frame holds
// no C++ object with a destructor, and only libpng frames lie between it and the error callback,
// so the jump never skips a destructor.
#include <png.h>

#include <cstdio>
#include <cstring>
#include <vector>

#include "io/io_common.hpp"
#include "io/sample_sink.hpp"

namespace cclabel::io::detail {
namespace {

struct PngCtx {
    png_structp png = nullptr;
    png_infop info = nullptr;
    char message[256] = "unknown libpng error";
};

void on_error(png_structp png, png_const_charp msg) {
    auto* ctx = static_cast<PngCtx*>(png_get_error_ptr(png));
    std::snprintf(ctx->message, sizeof ctx->message, "%s", msg != nullptr ? msg : "libpng error");
    png_longjmp(png, 1);
}

void on_warning(png_structp, png_const_charp) {}  // benign (bad ancillary CRC etc.): keep quiet

bool step_header(PngCtx* c, std::FILE* f) {
    if (setjmp(png_jmpbuf(c->png))) return false;
    png_init_io(c->png, f);
    // The PNG limit; the pixel-count limit is checked by the sink.
    png_set_user_limits(c->png, 0x7fffffffu, 0x7fffffffu);
    // Ancillary chunks (iCCP, zTXt, ...) could otherwise inflate without bound, and none of them
    // changes a pixel as read here (no gamma, no colour management): skip them all, so that a file
    // of a thousand zTXt or iCCP chunks costs a read, not a thousand inflates. IHDR, PLTE, tRNS,
    // IDAT and IEND are still handled.
    png_set_chunk_malloc_max(c->png, 16u << 20);
    png_set_keep_unknown_chunks(c->png, PNG_HANDLE_CHUNK_NEVER, nullptr, -1);
    png_read_info(c->png, c->info);
    return true;
}

bool step_transforms(PngCtx* c, int* passes) {
    if (setjmp(png_jmpbuf(c->png))) return false;
    const int colour = png_get_color_type(c->png, c->info);
    const int depth = png_get_bit_depth(c->png, c->info);
    if (colour == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(c->png);  // tRNS becomes alpha
    if (colour == PNG_COLOR_TYPE_GRAY && depth < 8) png_set_expand_gray_1_2_4_to_8(c->png);
    if (depth == 16) {
        const unsigned probe = 1;
        unsigned char first;
        std::memcpy(&first, &probe, 1);
        if (first == 1) png_set_swap(c->png);  // PNG stores big-endian; the library wants native
    }
    *passes = png_set_interlace_handling(c->png);
    png_read_update_info(c->png, c->info);
    return true;
}

bool step_row(PngCtx* c, png_bytep row) {
    if (setjmp(png_jmpbuf(c->png))) return false;
    png_read_row(c->png, row, nullptr);
    return true;
}

bool step_image(PngCtx* c, png_bytepp rows) {
    if (setjmp(png_jmpbuf(c->png))) return false;
    png_read_image(c->png, rows);
    return true;
}

bool step_end(PngCtx* c) {
    if (setjmp(png_jmpbuf(c->png))) return false;
    png_read_end(c->png, nullptr);
    return true;
}

const char* colour_name(int colour) {
    switch (colour) {
        case PNG_COLOR_TYPE_GRAY: return "gray";
        case PNG_COLOR_TYPE_GRAY_ALPHA: return "gray+alpha";
        case PNG_COLOR_TYPE_RGB: return "rgb";
        case PNG_COLOR_TYPE_RGB_ALPHA: return "rgba";
        case PNG_COLOR_TYPE_PALETTE: return "palette";
    }
    return "unknown";
}

struct PngGuard {
    PngCtx* c;
    ~PngGuard() { png_destroy_read_struct(&c->png, c->info != nullptr ? &c->info : nullptr, nullptr); }
};

}  // namespace

Image read_png(const std::string& path, std::uint64_t file_size) {
    File file(path, "rb");
    PngCtx ctx;
    ctx.png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &ctx, on_error, on_warning);
    if (ctx.png == nullptr) fail(path, "libpng could not start");
    PngGuard guard{&ctx};
    ctx.info = png_create_info_struct(ctx.png);
    if (ctx.info == nullptr) fail(path, "libpng could not start");

    if (!step_header(&ctx, file.get())) fail(path, std::string("corrupt PNG: ") + ctx.message);
    const std::uint64_t width = png_get_image_width(ctx.png, ctx.info);
    const std::uint64_t height = png_get_image_height(ctx.png, ctx.info);
    const int colour = png_get_color_type(ctx.png, ctx.info);
    const int depth = png_get_bit_depth(ctx.png, ctx.info);
    const bool interlaced = png_get_interlace_type(ctx.png, ctx.info) != PNG_INTERLACE_NONE;
    check_pixels(path, width, height);
    // Deflate cannot compress better than 1032:1, so a file too small to hold the declared rows
    // is rejected before any pixel memory is reserved (the classic decompression-bomb header).
    const std::uint64_t file_bits_per_row =
        width * std::uint64_t(png_get_channels(ctx.png, ctx.info)) * std::uint64_t(depth);
    const std::uint64_t raw = height * (1 + (file_bits_per_row + 7) / 8);
    if (raw / 1032 > file_size + 1024) {
        fail(path, "truncated or corrupt PNG: " + std::to_string(width) + " x " + std::to_string(height) +
                       " pixels cannot fit in " + std::to_string(file_size) + " bytes");
    }

    int passes = 1;
    if (!step_transforms(&ctx, &passes)) fail(path, std::string("corrupt PNG: ") + ctx.message);
    const int spp = png_get_channels(ctx.png, ctx.info);
    const int sample_bytes = png_get_bit_depth(ctx.png, ctx.info) == 16 ? 2 : 1;
    SampleSink sink(path, std::int64_t(width), std::int64_t(height), spp, sample_bytes, file_size);
    if (png_get_rowbytes(ctx.png, ctx.info) != sink.in_row_bytes()) fail(path, "unexpected PNG row layout");

    if (!interlaced) {
        std::vector<png_byte> row(sink.in_row_bytes());
        for (std::uint64_t y = 0; y < height; ++y) {
            if (!step_row(&ctx, row.data())) fail(path, std::string("corrupt PNG: ") + ctx.message);
            sink.add_rows(row.data(), 1);
        }
    } else {
        // Adam7 fills every row on each pass, so the whole picture must be decoded first.
        std::vector<png_byte> all;
        std::vector<png_bytep> rows;
        try {
            all.resize(sink.in_row_bytes() * height);
            rows.resize(height);
        } catch (const std::bad_alloc&) {
            fail(path, "out of memory decoding an interlaced PNG");
        }
        for (std::uint64_t y = 0; y < height; ++y) rows[y] = all.data() + y * sink.in_row_bytes();
        if (!step_image(&ctx, rows.data())) fail(path, std::string("corrupt PNG: ") + ctx.message);
        sink.add_rows(all.data(), std::int64_t(height));
    }
    if (!step_end(&ctx)) fail(path, std::string("corrupt PNG: ") + ctx.message);

    std::string desc = std::string("png ") + colour_name(colour) + " " + std::to_string(depth) + "-bit";
    if (interlaced) desc += " interlaced";
    return sink.finish(desc);
}

}  // namespace cclabel::io::detail
