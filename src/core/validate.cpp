// Argument checks for every call, in 64-bit arithmetic, before anything is allocated or read.
#include <algorithm>
#include <cmath>
#include <string>

#include "core/cores.hpp"
#include "core/format_value.hpp"
#include "cclabel/error.hpp"
#include "cclabel/label.hpp"
#include "core/request.hpp"
#include "cclabel/detail/pixel_traits.hpp"

namespace cclabel {

std::string_view format_name(PixelFormat f) noexcept {
    switch (f) {
        case PixelFormat::Binary8: return "binary8";
        case PixelFormat::Gray8: return "gray8";
        case PixelFormat::Gray16: return "gray16";
        case PixelFormat::U32: return "u32";
        case PixelFormat::RGB8: return "rgb8";
        case PixelFormat::RGBA8: return "rgba8";
        case PixelFormat::I8: return "i8";
        case PixelFormat::I16: return "i16";
        case PixelFormat::I32: return "i32";
        case PixelFormat::I64: return "i64";
        case PixelFormat::U64: return "u64";
        case PixelFormat::F16: return "f16";
        case PixelFormat::F32: return "f32";
        case PixelFormat::F64: return "f64";
    }
    return "unknown";
}

std::string_view backend_name(Backend b) noexcept {
    switch (b) {
        case Backend::Auto: return "auto";
        case Backend::Cpu: return "cpu";
        case Backend::Cuda: return "cuda";
    }
    return "unknown";
}

namespace detail {
namespace {

/// Options::threads = 0: every core, but at least kAutoPixelsPerThread pixels a thread. Waking a
/// thread and merging its band seam cost about as much as labelling tens of thousands of pixels, so
/// small pictures (a batch of 512 x 512 masks called one by one) are faster on fewer threads
/// (bench/thread_scaling.sh; the figures behind 2^15 are in bench/RESULTS.md).
constexpr std::uint64_t kAutoPixelsPerThread = std::uint64_t(1) << 15;

int auto_threads(std::uint64_t pixels) {
    const std::uint64_t cores = std::uint64_t(usable_cores());
    return int(std::clamp<std::uint64_t>(pixels / kAutoPixelsPerThread, 1, cores));
}

std::uint64_t channel_max(PixelFormat f) {
    switch (f) {
        case PixelFormat::Gray16: return 0xFFFFu;
        case PixelFormat::U32: return 0xFFFFFFFFu;
        default: return 0xFFu;
    }
}

}  // namespace

void check_size_and_stride(const ImageView& image) {
    if (image.width < 0 || image.height < 0)
        throw Error("image size must not be negative (got " + std::to_string(image.width) + " x " +
                    std::to_string(image.height) + ")");
    if (image.stride < 0)
        throw Error("negative row stride " + std::to_string(image.stride) +
                    " is not supported: flip a bottom-up image before labelling it");
}

Request make_request(const ImageView& image, const std::uint32_t* out, const Options& options, bool typed_tolerance) {
    const int bpp = bytes_per_pixel(image.format);
    if (bpp == 0)
        throw Error("unknown pixel format " + std::to_string(int(image.format)) +
                    " (supported: binary8, gray8, gray16, u32, rgb8, rgba8, i8, i16, i32, i64, u64, f16, f32, f64)");
    check_size_and_stride(image);
    // Both factors are < 2^63, so compare by division to stay within 64 bits.
    if (image.width != 0 && image.height != 0 &&
        std::uint64_t(image.height) > kMaxPixels / std::uint64_t(image.width))
        throw Error("image of " + std::to_string(image.width) + " x " + std::to_string(image.height) +
                    " pixels has more than 4294967295 (2^32 - 1) pixels, more than uint32 labels can number");
    if (options.connectivity != 4 && options.connectivity != 8)
        throw Error("connectivity must be 4 or 8 (got " + std::to_string(options.connectivity) + ")" +
                    (options.connectivity == 6 || options.connectivity == 18 || options.connectivity == 26
                         ? std::string(": 6, 18 and 26 are for 3-D volumes, labelled by label_volume")
                         : std::string()));
    if (options.threads < 0)
        throw Error("thread count must not be negative (got " + std::to_string(options.threads) + ")");
    if (options.backend != Backend::Auto && options.backend != Backend::Cpu && options.backend != Backend::Cuda)
        throw Error("unknown backend " + std::to_string(int(options.backend)) + " (supported: auto, cpu, cuda)");

    const bool typed = is_typed_format(image.format);
    if (options.tolerance_value) {
        const double t = *options.tolerance_value;
        if (options.tolerance != 0) throw Error("tolerance and tolerance_value are both set; give the tolerance one way");
        if (!typed)
            throw Error("tolerance_value is for the typed formats (I8 to F64); a " + std::string(format_name(image.format)) +
                        " picture takes tolerance");
        if (!(t >= 0) || !std::isfinite(t))
            throw Error("tolerance_value " + format_double(t) + " must be a finite number of at least 0");
    }
    const double typed_tol = typed ? options.tolerance_value.value_or(double(options.tolerance)) : 0.0;
    if (typed_tol != 0 && !typed_tolerance)
        throw Error("tolerance " + format_double(typed_tol) + " is not supported for " +
                    std::string(format_name(image.format)) + " here yet (exact values only; label() takes it on the CPU)");
    if (!typed && std::uint64_t(options.tolerance) > channel_max(image.format))
        throw Error("tolerance " + std::to_string(options.tolerance) + " is out of range for " +
                    std::string(format_name(image.format)) + " (max " + std::to_string(channel_max(image.format)) +
                    ", the largest difference of one channel)");

    Request r;
    r.format = image.format;
    r.tolerance = typed ? 0 : options.tolerance;
    r.tolerance_value = typed_tol;
    r.width = image.width;
    r.height = image.height;
    r.connectivity = options.connectivity;

    if (image.format == PixelFormat::Binary8) {
        r.has_background = true;
        r.background_key = 0;
    }
    if (options.background && options.background_value)
        throw Error("background and background_value are both set; give the background one way");
    if (options.background_value || (options.background && is_typed_format(image.format))) {
        // One value of the image's own type: its bits (floats canonical) are the key of the
        // single-channel formats up to 32 bits; the typed formats map them with their keys.
        Scalar v = options.background_value.value_or(Scalar{});
        const char* arg = options.background_value ? "background_value" : "background";
        if (!options.background_value) {
            const auto& bg = *options.background;
            if (bg.size() != 1)
                throw Error("background value has " + std::to_string(bg.size()) + " channel(s), but a " +
                            std::string(format_name(image.format)) + " pixel has 1");
            v = Scalar(bg[0]);
        }
        r.background_bits = value_bits(image.format, v, arg);
        r.background_key = std::uint32_t(r.background_bits);
        r.has_background = true;
    } else if (options.background) {
        const auto& bg = *options.background;
        const int ch = channels(image.format);
        if (int(bg.size()) != ch)
            throw Error("background value has " + std::to_string(bg.size()) + " channel(s), but a " +
                        std::string(format_name(image.format)) + " pixel has " + std::to_string(ch));
        for (std::size_t i = 0; i < bg.size(); ++i)
            if (bg[i] > channel_max(image.format))
                throw Error("background channel " + std::to_string(i) + " value " + std::to_string(bg[i]) +
                            " is out of range for " + std::string(format_name(image.format)) + " (max " +
                            std::to_string(channel_max(image.format)) + ")");
        if (image.format == PixelFormat::Binary8 && bg[0] != 0)
            throw Error("binary8 images always have background 0; a background of " + std::to_string(bg[0]) +
                        " is not allowed (use gray8 to label zeros too)");
        r.has_background = true;
        r.background_key = pack_key(image.format, bg.data());
    }

    const std::uint64_t pixels = image.pixels();
    if (pixels == 0) return r;  // A valid empty image: null data and out are fine, N = 0.

    const std::int64_t row_bytes = image.width * bpp;  // width < 2^32, bpp ≤ 8: no overflow
    const std::int64_t stride = image.stride == 0 ? row_bytes : image.stride;
    if (stride < row_bytes)
        throw Error("row stride of " + std::to_string(stride) + " bytes is smaller than a row of " +
                    std::to_string(image.width) + " " + std::string(format_name(image.format)) + " pixels (" +
                    std::to_string(row_bytes) + " bytes)");
    if (std::uint64_t(stride) > (~std::uint64_t(0) >> 1) / std::uint64_t(image.height))
        throw Error("row stride " + std::to_string(stride) + " times height " + std::to_string(image.height) +
                    " overflows the address space");
    if (image.data == nullptr) throw Error("image data is null for a non-empty " + std::to_string(image.width) +
                                           " x " + std::to_string(image.height) + " image");
    if (out == nullptr) throw Error("output label buffer is null for a non-empty image");

    r.data = static_cast<const std::uint8_t*>(image.data);
    r.stride = stride;
    r.threads = options.threads > 0 ? options.threads : auto_threads(r.pixels());
    return r;
}

}  // namespace detail

void validate(const ImageView& image, const std::uint32_t* out, const Options& options) {
    (void)detail::make_request(image, out, options);
}

}  // namespace cclabel
