// Typed pictures as key pictures on the device (see device_keys.hpp and kernels/key_bodies.cuh).
//
// One call enqueues, on the caller's stream and after validating as the host API does:
//   F16, F32       canonical_kernel (canonical bits into the workspace);
//   I64, U64, F64  per run of images of at most 2^32 - 1 pixels: order_kernel (order values into
//                  the workspace), CUB's radix sort of them (DoubleBuffer: the sorted values in one
//                  buffer), CUB's unique into the other buffer with the count on the device, and
//                  rank_kernel (each pixel's key by binary search in the distinct values);
// then the labeller on the key pictures. Nothing is allocated and the host never waits.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <optional>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_select.cuh>
#include <string>
#include <vector>

#include "cclabel/error.hpp"
#include "core/batch_request.hpp"
#include "core/format_keys.hpp"
#include "core/request.hpp"
#include "cuda/device_keys.hpp"
#include "cuda/handles.hpp"
#include "cuda/kernels/key_bodies.cuh"
#include "cuda/launch.hpp"

namespace cclabel::cuda::detail {
namespace {

constexpr unsigned kKeyThreads = 256;
constexpr std::uint64_t kKeyMaxBlocks = 16384;  // grid-stride kernels over pixels
/// Pixels a 64-bit key map may cover: rank + 1 of as many distinct values stays below 2^32.
constexpr std::uint64_t kMapPixels = 0xFFFFFFFFull;

unsigned key_blocks(std::uint64_t items) {
    return unsigned(std::clamp<std::uint64_t>((items + kKeyThreads - 1) / kKeyThreads, 1, kKeyMaxBlocks));
}

template <typename K>
__global__ void canonical_kernel(keys::Stack s, std::uint64_t n, PixelFormat f, K* out) {
    for (std::uint64_t i = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += std::uint64_t(gridDim.x) * blockDim.x)
        out[i] = K(keys::canonical_bits(f, keys::load_bits(keys::pixel_at(s, i), s.bpp)));
}

__global__ void order_kernel(keys::Stack s, std::uint64_t n, PixelFormat f, std::uint64_t* out) {
    for (std::uint64_t i = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += std::uint64_t(gridDim.x) * blockDim.x)
        out[i] = keys::order64(f, keys::load_bits(keys::pixel_at(s, i), 8));
}

__global__ void rank_kernel(keys::Stack s, std::uint64_t n, PixelFormat f, const std::uint64_t* distinct,
                            const std::int64_t* n_distinct, bool has_bg, std::uint64_t bg, std::uint32_t* out) {
    const std::uint64_t d = std::uint64_t(*n_distinct);
    for (std::uint64_t i = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += std::uint64_t(gridDim.x) * blockDim.x) {
        const std::uint64_t o = keys::order64(f, keys::load_bits(keys::pixel_at(s, i), 8));
        out[i] = keys::wide_key(keys::rank_of(distinct, d, o), o, has_bg, bg);
    }
}

__global__ void canonical_rows_kernel(PixelFormat f, std::uint8_t* rows, const std::uint32_t* count,
                                      std::uint64_t capacity) {
    const std::uint64_t n = count ? std::min<std::uint64_t>(std::uint64_t(*count) + 1, capacity) : capacity;
    for (std::uint64_t l = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; l < n;
         l += std::uint64_t(gridDim.x) * blockDim.x)
        keys::canonical_value_words(
            f, reinterpret_cast<std::uint32_t*>(rows + l * sizeof(RegionStats) + offsetof(RegionStats, value)));
}

}  // namespace

KeyLayout key_layout(PixelFormat f, std::uint64_t images, std::uint64_t image_pixels, cudaStream_t stream) {
    KeyLayout L;
    switch (f) {
        case PixelFormat::I8: L.to = PixelFormat::Gray8; break;
        case PixelFormat::I16: L.to = PixelFormat::Gray16; break;
        case PixelFormat::I32: L.to = PixelFormat::U32; break;
        case PixelFormat::F16: L.to = PixelFormat::Gray16, L.copies = true; break;
        case PixelFormat::F32: L.to = PixelFormat::U32, L.copies = true; break;
        default: L.to = PixelFormat::U32, L.copies = L.wide = true; break;  // I64, U64, F64
    }
    if (!L.copies) return L;
    const std::uint64_t pixels = images * image_pixels;
    L.keys_bytes = align_up(pixels * std::uint64_t(bytes_per_pixel(L.to)), kWorkspaceAlign);
    if (!L.wide || pixels == 0) return L;
    L.map_images = std::clamp<std::uint64_t>(kMapPixels / image_pixels, 1, images);
    const std::uint64_t n = L.map_images * image_pixels;
    std::size_t sort_bytes = 0, unique_bytes = 0;
    cub::DoubleBuffer<std::uint64_t> none(nullptr, nullptr);
    CCL_CUDA(cub::DeviceRadixSort::SortKeys(nullptr, sort_bytes, none, std::int64_t(n), 0, 64, stream));
    CCL_CUDA(cub::DeviceSelect::Unique(nullptr, unique_bytes, static_cast<const std::uint64_t*>(nullptr),
                                       static_cast<std::uint64_t*>(nullptr), static_cast<std::int64_t*>(nullptr),
                                       std::int64_t(n), stream));
    L.off_alt = align_up(8 * n, kWorkspaceAlign);
    L.off_count = L.off_alt + align_up(8 * n, kWorkspaceAlign);
    L.off_temp = L.off_count + kWorkspaceAlign;
    L.temp_bytes = std::max(sort_bytes, unique_bytes);
    L.scratch_bytes = align_up(L.off_temp + L.temp_bytes, kWorkspaceAlign);
    return L;
}

namespace {

// I8 to F32: the background value's bits (floats canonical), as the host's maps; 64-bit: 0
// (rank_kernel gives the background value key 0).
std::optional<std::uint32_t> key_of_background(const KeyLayout& L, PixelFormat f, const cclabel::detail::Request& r) {
    if (!r.has_background) return std::nullopt;
    if (L.wide) return 0;
    cclabel::detail::KeyMap m;
    m.from = f;
    m.to = L.to;
    m.kind = cclabel::detail::KeyMap::Kind::Bits;
    return m.key(r.background_bits);
}

}  // namespace

Options key_options(const KeyLayout& L, PixelFormat f, const cclabel::detail::Request& r, const Options& options) {
    Options o = options;
    o.background_value.reset();
    o.background.reset();
    o.tolerance_value.reset();  // exact values (0.0), as keyed_options: the keys' picture takes no tolerance
    o.tolerance = 0;
    if (const std::optional<std::uint32_t> k = key_of_background(L, f, r)) o.background = std::vector<std::uint64_t>{*k};
    return o;
}

cclabel::detail::Request key_request(const KeyLayout& L, const cclabel::detail::Request& r) {
    cclabel::detail::Request k = r;
    k.format = L.to;
    const std::optional<std::uint32_t> key = key_of_background(L, r.format, r);
    k.has_background = key.has_value();
    k.background_key = key.value_or(0);
    k.background_bits = k.background_key;  // a key picture's values are its keys
    return k;
}

void enqueue_keys(const KeyLayout& L, PixelFormat f, const keys::Stack& s, std::uint64_t images,
                  const cclabel::detail::Request& bg, std::uint8_t* ws, cudaStream_t stream) {
    const std::uint64_t pixels = images * s.image_pixels;
    if (!L.copies || pixels == 0) return;
    if (!L.wide) {
        if (L.to == PixelFormat::Gray16)
            canonical_kernel<<<key_blocks(pixels), kKeyThreads, 0, stream>>>(s, pixels, f,
                                                                            reinterpret_cast<std::uint16_t*>(ws));
        else
            canonical_kernel<<<key_blocks(pixels), kKeyThreads, 0, stream>>>(s, pixels, f,
                                                                            reinterpret_cast<std::uint32_t*>(ws));
        CCL_LAUNCHED("canonical_kernel");
        return;
    }
    std::uint8_t* scratch = ws + L.keys_bytes;
    auto* a = reinterpret_cast<std::uint64_t*>(scratch);
    auto* b = reinterpret_cast<std::uint64_t*>(scratch + L.off_alt);
    auto* n_distinct = reinterpret_cast<std::int64_t*>(scratch + L.off_count);
    void* temp = scratch + L.off_temp;
    auto* out = reinterpret_cast<std::uint32_t*>(ws);
    const std::uint64_t bg_order = keys::order64(f, bg.background_bits);
    for (std::uint64_t first = 0; first < images; first += L.map_images) {
        const std::uint64_t n = std::min(L.map_images, images - first) * s.image_pixels;
        keys::Stack g = s;
        g.data = s.data + std::int64_t(first) * s.batch_stride;
        order_kernel<<<key_blocks(n), kKeyThreads, 0, stream>>>(g, n, f, a);
        CCL_LAUNCHED("order_kernel");
        cub::DoubleBuffer<std::uint64_t> values(a, b);
        std::size_t tb = L.temp_bytes;
        CCL_CUDA(cub::DeviceRadixSort::SortKeys(temp, tb, values, std::int64_t(n), 0, 64, stream));
        tb = L.temp_bytes;
        CCL_CUDA(cub::DeviceSelect::Unique(temp, tb, values.Current(), values.Alternate(), n_distinct,
                                           std::int64_t(n), stream));
        rank_kernel<<<key_blocks(n), kKeyThreads, 0, stream>>>(g, n, f, values.Alternate(), n_distinct,
                                                              bg.has_background, bg_order, out + first * s.image_pixels);
        CCL_LAUNCHED("rank_kernel");
    }
}

void label_typed_device(void* workspace, std::size_t& workspace_bytes, const cclabel::detail::Request& r,
                        std::uint32_t* labels, std::uint32_t* count, cudaStream_t stream, const Tuning& tuning,
                        const StageEvents* events) {
    const KeyLayout L = key_layout(r.format, 1, r.pixels(), stream);
    auto* ws = static_cast<std::uint8_t*>(workspace);
    // The key picture: the caller's memory re-typed, or packed keys at the workspace's start (the
    // size query sees the caller's pointer: the labeller's size depends on the sizes only).
    cclabel::detail::Request k = key_request(L, r);
    if (L.copies && r.pixels() != 0) {
        k.data = ws ? ws : r.data;
        k.stride = r.width * std::int64_t(bytes_per_pixel(L.to));
    }
    keyed_call(
        "label_device", L, workspace, workspace_bytes,
        [&](void* w, std::size_t& bytes) { label_device_tuned(w, bytes, k, labels, count, stream, tuning, events); },
        [&] {
            if (!count) throw Error("label_device: the count pointer is null");
            const keys::Stack s{r.data, std::uint64_t(r.width), r.pixels(), r.stride, 0,
                                std::uint32_t(bytes_per_pixel(r.format))};
            enqueue_keys(L, r.format, s, 1, r, ws, stream);
        });
}

void label_batch_typed_device(void* workspace, std::size_t& workspace_bytes, const BatchView& batch,
                              std::uint32_t* labels, std::uint32_t* counts, const Options& options,
                              cudaStream_t stream, const Tuning& tuning) {
    static std::uint32_t no_labels;
    const cclabel::detail::BatchRequest br =
        cclabel::detail::make_batch_request(batch, workspace ? labels : &no_labels, options);
    // The batch's background, validated as one image of its format (as the host's keyed_batch).
    const cclabel::detail::Request bg =
        cclabel::detail::make_request(ImageView{nullptr, 0, 0, 0, batch.format}, nullptr, br.options);
    const std::uint64_t B = br.images.size(), P = B ? br.images[0].pixels() : 0;
    const KeyLayout L = key_layout(batch.format, B, P, stream);
    const Options ko = key_options(L, batch.format, bg, options);
    auto* ws = static_cast<std::uint8_t*>(workspace);
    BatchView kb = batch;
    kb.format = L.to;
    if (L.copies) {
        kb.data = ws ? ws : batch.data;
        kb.stride = kb.batch_stride = 0;  // packed
    }
    keyed_call(
        "label_batch_device", L, workspace, workspace_bytes,
        [&](void* w, std::size_t& bytes) { label_batch_device_tuned(w, bytes, kb, labels, counts, ko, stream, tuning); },
        [&] {
            if (B && !counts) throw Error("label_batch_device: the counts pointer is null");
            if (!B || !P) return;
            const ImageView& v0 = br.images[0];
            const keys::Stack s{static_cast<const std::uint8_t*>(v0.data), std::uint64_t(v0.width), P, v0.stride,
                                br.batch_stride, std::uint32_t(bytes_per_pixel(batch.format))};
            enqueue_keys(L, batch.format, s, B, bg, ws, stream);
        });
}

void canonical_row_values(PixelFormat f, RegionStats* rows, const std::uint32_t* count, std::uint64_t capacity,
                          cudaStream_t stream) {
    if (f != PixelFormat::F16 && f != PixelFormat::F32 && f != PixelFormat::F64) return;
    canonical_rows_kernel<<<key_blocks(capacity), kKeyThreads, 0, stream>>>(f, reinterpret_cast<std::uint8_t*>(rows),
                                                                           count, capacity);
    CCL_LAUNCHED("canonical_rows_kernel");
}

}  // namespace cclabel::cuda::detail
