// The volume host API (cclabel/volume.hpp): validate once, turn the typed formats into keys, label
// on the CPU (cpu/label3d_cpu.cpp), or hand Backend::Cuda to the GPU (cuda/volume_cuda.cu).
#include <algorithm>
#include <cstring>
#include <memory>
#include <string>

#include "cclabel/error.hpp"
#include "cclabel/volume.hpp"
#include "core/cores.hpp"
#include "core/format_keys.hpp"
#include "core/format_value.hpp"
#include "core/request.hpp"
#include "core/backends.hpp"
#include "core/cost_model.hpp"
#include "core/volume_backends.hpp"
#include "core/volume_request.hpp"
#include "cpu/label3d_cpu.hpp"

namespace cclabel {
namespace detail {
namespace {

/// Options::threads = 0 for a volume: every core, at most one a 2^15 voxels (as for pictures).
constexpr std::uint64_t kAutoVoxelsPerThread = std::uint64_t(1) << 15;

/// @p options as the picture validator takes them: the volume's own checks come first. The
/// tolerance is checked as for a picture (the format's channel range; none for the typed formats).
Options as_picture_options(const Options& options) {
    Options o = options;
    o.connectivity = 8;
    return o;
}

}  // namespace

VolumeRequest make_volume_request(const VolumeView& v, const std::uint32_t* out, const Options& options,
                                  bool takes_tolerance) {
    const int c = options.connectivity;
    if (c == 4 || c == 8)
        throw Error("connectivity " + std::to_string(c) +
                    " is for 2-D pictures; volumes take 6 (faces), 18 (faces and edges) or 26 (faces, edges and corners)");
    if (c != 6 && c != 18 && c != 26)
        throw Error("connectivity must be 6, 18 or 26 for a volume (got " + std::to_string(c) + ")");
    if ((options.tolerance != 0 || options.tolerance_value.value_or(0) != 0) && !takes_tolerance)
        throw Error("tolerance " +
                    (options.tolerance_value ? format_double(*options.tolerance_value) : std::to_string(options.tolerance)) +
                    " is not supported by this volume call yet (exact values only; label_volume takes it)");
    // Format, background, threads, backend and tolerance as for a picture: one slice of no size
    // says it all (a typed format's tolerance_value and background bits too).
    const Request bg =
        make_request(ImageView{nullptr, 0, 0, 0, v.format}, nullptr, as_picture_options(options), takes_tolerance);

    if (v.width < 0 || v.height < 0 || v.depth < 0)
        throw Error("volume size must not be negative (got " + std::to_string(v.width) + " x " +
                    std::to_string(v.height) + " x " + std::to_string(v.depth) + ")");
    if (v.row_stride < 0 || v.slice_stride < 0)
        throw Error("negative strides (row " + std::to_string(v.row_stride) + ", slice " +
                    std::to_string(v.slice_stride) + " bytes) are not supported: flip the volume before labelling it");
    const std::uint64_t w = std::uint64_t(v.width), h = std::uint64_t(v.height), d = std::uint64_t(v.depth);
    if (w != 0 && h != 0 && d != 0 && (h > kMaxPixels / w || d > kMaxPixels / (w * h)))
        throw Error("volume of " + std::to_string(v.width) + " x " + std::to_string(v.height) + " x " +
                    std::to_string(v.depth) +
                    " voxels has more than 4294967295 (2^32 - 1) voxels, more than uint32 labels can number (for now)");

    VolumeRequest r;
    r.width = v.width;
    r.height = v.height;
    r.depth = v.depth;
    r.format = v.format;
    r.connectivity = c;
    r.has_background = bg.has_background;
    r.background_key = bg.background_key;
    r.tolerance = bg.tolerance;
    r.tolerance_value = bg.tolerance_value;
    r.background_bits = bg.background_bits;
    if (v.voxels() == 0) return r;  // a valid empty volume: null pointers are fine, N = 0

    if (v.data == nullptr)
        throw Error("volume data is null for a non-empty " + std::to_string(v.width) + " x " +
                    std::to_string(v.height) + " x " + std::to_string(v.depth) + " volume");
    if (out == nullptr) throw Error("output label buffer is null for a non-empty volume");
    // The row stride as for a picture: one slice says it.
    const std::int64_t rs = make_request(ImageView{v.data, v.width, v.height, v.row_stride, v.format}, out,
                                         as_picture_options(options), takes_tolerance).stride;
    const std::int64_t slice_bytes = rs * v.height;
    const std::int64_t ss = v.slice_stride != 0 ? v.slice_stride : slice_bytes;
    if (ss < slice_bytes)
        throw Error("slice stride of " + std::to_string(ss) + " bytes is smaller than a slice of " +
                    std::to_string(v.height) + " rows of " + std::to_string(rs) + " bytes (" +
                    std::to_string(slice_bytes) + " bytes): the slices would overlap");
    if (std::uint64_t(ss) > (~std::uint64_t(0) >> 2) / d)
        throw Error("slice stride " + std::to_string(ss) + " times depth " + std::to_string(v.depth) +
                    " overflows the address space");

    r.data = static_cast<const std::uint8_t*>(v.data);
    r.row_stride = rs;
    r.slice_stride = ss;
    r.threads = options.threads > 0
                    ? options.threads
                    : int(std::clamp<std::uint64_t>(v.voxels() / kAutoVoxelsPerThread, 1, std::uint64_t(usable_cores())));
    return r;
}

Backend volume_auto(const VolumeRequest& r, const std::uint32_t* out, const Options& options) {
    if (options.backend != Backend::Auto) return options.backend;
    // What Auto samples of the volume (its run starts along x, its background's share): the
    // slices one under another when they lie back to back, else the first slice.
    const bool packed = r.slice_stride == r.row_stride * r.height;
    const Request picture = make_request(ImageView{r.data, r.width, packed ? r.height * r.depth : r.height, r.row_stride, r.format},
                                         out, as_picture_options(options));
    Workload w{Workload::Op::Volume, r.voxels(), r.format, r.threads, &picture};
    w.connectivity = r.connectivity;
    return resolve_auto(Backend::Auto, w);
}

}  // namespace detail

void validate_volume(const VolumeView& volume, const std::uint32_t* out, const Options& options) {
    (void)detail::make_volume_request(volume, out, options, true);
}

LabelResult label_volume(const VolumeView& volume, std::uint32_t* out, const Options& options) {
    const detail::VolumeRequest r = detail::make_volume_request(volume, out, options, true);
    if (options.backend == Backend::Cuda) return LabelResult{detail::label_volume_cuda_host(volume, out, options), Backend::Cuda};
    if (r.voxels() == 0) return LabelResult{0, Backend::Cpu};
    // Binary8: one foreground value, labelled exactly. A typed volume's tolerance is in its values
    // (tolerance_value), compared as values on either side, never through keys.
    if ((r.tolerance != 0 && r.format != PixelFormat::Binary8) || r.tolerance_value > 0) {
        // Auto weighs the CPU's tolerance labeller of pictures (the same union-find over pixels; a
        // voxel has up to 13 earlier neighbours, not 4, so this favours the CPU) against the GPU.
        // A typed format has no rates of its own: the untyped format of its width stands in, as
        // for typed pictures (dispatch.cpp).
        const int bpp = bytes_per_pixel(r.format);
        const PixelFormat rated = !is_typed_format(r.format) ? r.format
                                  : bpp == 1                 ? PixelFormat::Gray8
                                  : bpp == 2                 ? PixelFormat::Gray16
                                                             : PixelFormat::U32;
        const detail::Workload w{detail::Workload::Op::Tolerance, r.voxels(), rated, r.threads, nullptr};
        if (detail::resolve_auto(options.backend, w) == Backend::Cuda)
            return LabelResult{detail::label_volume_cuda_host(volume, out, options), Backend::Cuda};
        return LabelResult{cpu::label_volume_tolerance(r, out), Backend::Cpu};
    }
    if (!is_typed_format(volume.format)) {
        if (detail::volume_auto(r, out, options) == Backend::Cuda)
            return LabelResult{detail::label_volume_cuda_host(volume, out, options), Backend::Cuda};
        return LabelResult{cpu::label_volume(r, out), Backend::Cpu};
    }

    // A typed volume becomes a volume of keys (core/format_keys.hpp) through the picture of its
    // slices one under another: the volume itself when they lie back to back, else a packed copy.
    const std::int64_t row_bytes = volume.width * bytes_per_pixel(volume.format);
    std::unique_ptr<std::uint8_t[]> packed;
    ImageView tall{r.data, r.width, r.height * r.depth, r.row_stride, r.format};
    if (r.slice_stride != r.row_stride * r.height) {
        packed = std::make_unique_for_overwrite<std::uint8_t[]>(r.voxels() * std::uint64_t(bytes_per_pixel(r.format)));
        for (std::int64_t z = 0; z < r.depth; ++z)
            for (std::int64_t y = 0; y < r.height; ++y)
                std::memcpy(packed.get() + (z * r.height + y) * row_bytes, r.row(z, y), std::size_t(row_bytes));
        tall = ImageView{packed.get(), r.width, r.height * r.depth, row_bytes, r.format};
    }
    Options picture = options;
    picture.connectivity = 8;
    picture.threads = r.threads;
    const detail::Request tr = detail::make_request(tall, out, picture);
    const detail::KeyedImage k = detail::keyed_image(tall, picture, tr);
    Options keyed = options;
    keyed.background_value.reset();
    keyed.tolerance_value.reset();  // 0 here (a tolerance went above); the keys' format takes none
    keyed.background = k.options.background;
    const std::int64_t krs = k.view.row_bytes();
    const VolumeView kv{k.view.data, r.width, r.height, r.depth, krs, krs * r.height, k.view.format};
    return label_volume(kv, out, keyed);
}

}  // namespace cclabel
