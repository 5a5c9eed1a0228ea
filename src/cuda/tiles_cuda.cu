// Tiled labelling on the GPU, streamed, on one or several devices (include/cclabel/cuda_tiles.hpp):
// the tile steps of tiles.hpp with the pixel work on the device(s) and the seams and the resolution
// on the host.
//
// Each entry of the device list is a Context: two slots (a stream, a tile image buffer, a
// label_device workspace, later a map and, for 64-bit output, an output buffer) that the context's
// tiles take in turn, so that tile k + 1 is copied in on one stream while tile k is labelled on the
// other; a device buffer holding every one of its tiles' local labels (they stay on the device
// until the map is known); and a pinned pair of staging buffers for host memory that is not
// pinned. Buffers are sized once per call from the largest tile: nothing is allocated per tile.
//
// Phases (the host waits only between them):
//   A. upload, label_device, gather the border (keys, labels) next to the tile's count; copy the
//      count and the border back (small);
//   B. the first-pixel table of every tile: an atomicMin of each run start's local index into its
//      label's entry (cleared to ~0 first), copied back as 4 bytes a label; the host turns local
//      indices into global ones;
//   C. seam_equivalences + resolve_tiles on the host; each tile's map copied in, its labels
//      renumbered on the device (in place for uint32) and copied out into the tile's place.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "cclabel/cuda.hpp"
#include "cclabel/cuda_tiles.hpp"
#include "cclabel/detail/pixel_traits.hpp"
#include "cclabel/error.hpp"
#include "cclabel/label.hpp"
#include "core/backends.hpp"
#include "core/request.hpp"
#include "core/tile_grid.hpp"
#include "core/tiles_backends.hpp"
#include "core/tiles_limit.hpp"

namespace cclabel::cuda {
namespace {

using cclabel::detail::TileGrid;

[[noreturn]] void throw_cuda(cudaError_t e, const char* what) {
    cudaGetLastError();  // clear a non-sticky error so that later calls are not blamed for it
    throw Error(std::string("CUDA error in ") + what + ": " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")");
}
void check(cudaError_t e, const char* what) {
    if (e != cudaSuccess) throw_cuda(e, what);
}
#define CCL_TILES_CUDA(call) ::cclabel::cuda::check((call), #call)
#define CCL_TILES_LAUNCHED(name) ::cclabel::cuda::check(cudaGetLastError(), "launch of " name)

// ---------------------------------------------------------------------------------------------
// Kernels

constexpr unsigned kThreads = 256;

unsigned blocks_for(std::uint64_t items, std::uint64_t cap = 65535) {
    return unsigned(std::max<std::uint64_t>(1, std::min<std::uint64_t>((items + kThreads - 1) / kThreads, cap)));
}

/// The tile's border in TileInfo's layout: meta[0] is the count (written by label_device),
/// meta[1 .. 1 + R) the keys and meta[1 + R .. 1 + 2R) the labels, R = 2·(w + h).
template <PixelFormat F>
__global__ void border_kernel(const std::uint8_t* image, std::uint64_t pitch, std::int64_t w, std::int64_t h,
                              const std::uint32_t* labels, std::uint32_t* meta) {
    using T = cclabel::detail::PixelTraits<F>;
    const std::uint64_t ring = 2 * std::uint64_t(w + h);
    for (std::uint64_t i = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < ring;
         i += std::uint64_t(gridDim.x) * blockDim.x) {
        const cclabel::detail::RingPixel p = cclabel::detail::ring_pixel(i, w, h);
        meta[1 + i] = T::key(image + std::uint64_t(p.y) * pitch + std::uint64_t(p.x) * T::kBytes);
        meta[1 + ring + i] = labels[std::uint64_t(p.y) * std::uint64_t(w) + std::uint64_t(p.x)];
    }
}

/// first[l − 1] = min local index of the pixels of label l (first cleared to ~0). Only run starts
/// try, and only while they would lower the entry, so a region of many pixels costs few atomics.
__global__ void first_kernel(const std::uint32_t* labels, std::uint64_t w, std::uint64_t h, std::uint32_t* first) {
    for (std::uint64_t y = blockIdx.y; y < h; y += gridDim.y) {
        const std::uint32_t* row = labels + y * w;
        for (std::uint64_t x = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; x < w;
             x += std::uint64_t(gridDim.x) * blockDim.x) {
            const std::uint32_t l = row[x];
            if (!cclabel::detail::is_run_start(row, std::int64_t(x), l)) continue;
            std::uint32_t* f = first + (l - 1);
            const std::uint32_t i = std::uint32_t(y * w + x);  // < 2^32 − 1: a tile has at most that many pixels
            if (*static_cast<volatile std::uint32_t*>(f) <= i) continue;
            atomicMin(f, i);
        }
    }
}

template <typename Out>
__global__ void relabel_kernel(const std::uint32_t* labels, std::uint64_t pixels, const Out* map, Out* out) {
    for (std::uint64_t i = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < pixels;
         i += std::uint64_t(gridDim.x) * blockDim.x)
        out[i] = map[labels[i]];
}

// ---------------------------------------------------------------------------------------------
// Small RAII helpers (as in label_cuda.cu). Each is created and destroyed with its device current.

std::string mem_info() {
    std::size_t free_b = 0, total_b = 0;
    if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) {
        cudaGetLastError();
        return "";
    }
    return " (" + std::to_string(free_b) + " of " + std::to_string(total_b) + " bytes free)";
}

struct DeviceBuffer {
    void* p = nullptr;
    DeviceBuffer() = default;
    void alloc(std::size_t bytes, const char* what) {
        if (p) {
            cudaFree(p);
            p = nullptr;
        }
        const cudaError_t e = cudaMalloc(&p, std::max<std::size_t>(bytes, 1));
        if (e != cudaSuccess) {
            cudaGetLastError();
            p = nullptr;
            throw Error(std::string("cudaMalloc of ") + std::to_string(bytes) + " bytes for " + what +
                        " failed: " + cudaGetErrorString(e) + mem_info());
        }
    }
    template <typename T>
    T* as() const {
        return static_cast<T*>(p);
    }
    ~DeviceBuffer() {
        if (p) cudaFree(p);
    }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
};

struct PinnedBuffer {
    void* p = nullptr;
    PinnedBuffer() = default;
    void alloc(std::size_t bytes, const char* what) {
        if (p) {
            cudaFreeHost(p);
            p = nullptr;
        }
        const cudaError_t e = cudaHostAlloc(&p, std::max<std::size_t>(bytes, 1), cudaHostAllocPortable);
        if (e != cudaSuccess) {
            cudaGetLastError();
            p = nullptr;
            throw Error(std::string("cudaHostAlloc of ") + std::to_string(bytes) + " bytes for " + what +
                        " failed: " + cudaGetErrorString(e));
        }
    }
    template <typename T>
    T* as() const {
        return static_cast<T*>(p);
    }
    void reset() {
        if (p) cudaFreeHost(p);
        p = nullptr;
    }
    ~PinnedBuffer() {
        if (p) cudaFreeHost(p);
    }
    PinnedBuffer(const PinnedBuffer&) = delete;
    PinnedBuffer& operator=(const PinnedBuffer&) = delete;
};

struct Stream {
    cudaStream_t s = nullptr;
    void create() { CCL_TILES_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking)); }
    ~Stream() {
        if (s) cudaStreamDestroy(s);
    }
};

struct Event {
    cudaEvent_t e = nullptr;
    void create() { CCL_TILES_CUDA(cudaEventCreateWithFlags(&e, cudaEventDisableTiming)); }
    ~Event() {
        if (e) cudaEventDestroy(e);
    }
};

/// Restores the caller's current device.
struct DeviceGuard {
    int saved = 0;
    DeviceGuard() { CCL_TILES_CUDA(cudaGetDevice(&saved)); }
    ~DeviceGuard() { cudaSetDevice(saved); }
};

void set_device(int ordinal) {
    const cudaError_t e = cudaSetDevice(ordinal);
    if (e != cudaSuccess) throw_cuda(e, ("cudaSetDevice(" + std::to_string(ordinal) + ")").c_str());
}

/// Whether [p, p + bytes) is page-locked host memory (registered or cudaHostAlloc'ed), so that the
/// copy engine can read or write it in place.
bool is_pinned(const void* p, std::size_t bytes) {
    if (!p || bytes == 0) return false;
    for (const void* q : {p, static_cast<const void*>(static_cast<const std::uint8_t*>(p) + (bytes - 1))}) {
        cudaPointerAttributes a{};
        const cudaError_t e = cudaPointerGetAttributes(&a, q);
        if (e != cudaSuccess) {
            cudaGetLastError();
            return false;
        }
        if (a.type != cudaMemoryTypeHost) return false;
    }
    return true;
}

constexpr std::size_t kStagingBytes = std::size_t(32) << 20;  // per staging buffer; two alternate
constexpr std::int64_t kMaxCopyPitch = 0x7FFFFFFF;           // larger pitches go through staging

/// A pair of pinned buffers through which pageable host memory is copied, as in label_host: the
/// host fills (or empties) one while the copy engine moves the other.
struct Stager {
    PinnedBuffer buf[2];
    Event ev[2];
    bool busy[2] = {false, false};
    std::size_t bytes = 0;
    int k = 0;
    // A download waiting for the host to copy it out: rows of row_bytes from buf[b] to dst.
    struct Pending {
        std::uint8_t* dst = nullptr;
        std::size_t dst_pitch = 0, row_bytes = 0, rows = 0;
    } pending[2];

    void create(std::size_t b) {
        bytes = b;
        for (int i = 0; i < 2; ++i) {
            buf[i].alloc(b, "staging");
            ev[i].create();
        }
    }
    void drain(int b) {
        if (!busy[b]) return;
        CCL_TILES_CUDA(cudaEventSynchronize(ev[b].e));
        busy[b] = false;
        Pending& p = pending[b];
        for (std::size_t r = 0; r < p.rows; ++r)
            std::memcpy(p.dst + r * p.dst_pitch, buf[b].as<std::uint8_t>() + r * p.row_bytes, p.row_bytes);
        p.rows = 0;
    }
    void drain_all() {
        drain(k);
        drain(k ^ 1);
    }
    /// Copies @p rows rows of @p row_bytes from host @p src (pitch @p src_pitch) to device @p dst (packed).
    void upload(std::uint8_t* dst, const std::uint8_t* src, std::size_t src_pitch, std::size_t row_bytes,
                std::size_t rows, cudaStream_t s) {
        const std::size_t per = std::max<std::size_t>(1, bytes / std::max<std::size_t>(row_bytes, 1));
        for (std::size_t r = 0; r < rows;) {
            drain(k);
            const std::size_t n = std::min(per, rows - r);
            for (std::size_t j = 0; j < n; ++j)
                std::memcpy(buf[k].as<std::uint8_t>() + j * row_bytes, src + (r + j) * src_pitch, row_bytes);
            CCL_TILES_CUDA(cudaMemcpyAsync(dst + r * row_bytes, buf[k].p, n * row_bytes, cudaMemcpyHostToDevice, s));
            CCL_TILES_CUDA(cudaEventRecord(ev[k].e, s));
            busy[k] = true;
            pending[k].rows = 0;
            k ^= 1;
            r += n;
        }
    }
    /// Copies @p rows rows of @p row_bytes from device @p src (packed) to host @p dst (pitch
    /// @p dst_pitch); the last two chunks reach the host at the next drain.
    void download(std::uint8_t* dst, std::size_t dst_pitch, const std::uint8_t* src, std::size_t row_bytes,
                  std::size_t rows, cudaStream_t s) {
        const std::size_t per = std::max<std::size_t>(1, bytes / std::max<std::size_t>(row_bytes, 1));
        for (std::size_t r = 0; r < rows;) {
            drain(k);
            const std::size_t n = std::min(per, rows - r);
            CCL_TILES_CUDA(cudaMemcpyAsync(buf[k].p, src + r * row_bytes, n * row_bytes, cudaMemcpyDeviceToHost, s));
            CCL_TILES_CUDA(cudaEventRecord(ev[k].e, s));
            busy[k] = true;
            pending[k] = Pending{dst + r * dst_pitch, dst_pitch, row_bytes, n};
            k ^= 1;
            r += n;
        }
    }
};

struct Slot {
    Stream stream;
    Event map_copied;  // the pinned map may be refilled
    bool map_busy = false;
    DeviceBuffer image;  // one tile's pixels, packed
    DeviceBuffer workspace;
    std::size_t workspace_bytes = 0;
    DeviceBuffer first;  // phase B: one word a label
    DeviceBuffer map;    // phase C: the tile's map, Out per entry
    PinnedBuffer map_host;
    DeviceBuffer out;    // phase C, 64-bit output only: the tile's global labels
};

/// One entry of the device list.
struct Context {
    int ordinal = 0;
    std::vector<std::uint64_t> tiles;         // global tile numbers, in order
    std::vector<std::uint64_t> label_at;      // element offset of each tile's labels in `labels`
    std::vector<std::uint64_t> meta_at;       // word offset of each tile's count + border in `meta`
    DeviceBuffer labels, meta;
    PinnedBuffer meta_host;
    PinnedBuffer first_host;
    std::vector<std::uint64_t> first_at;      // word offset of each tile's table in first_host
    Slot slot[2];
    Stager stager;

    ~Context() { cudaSetDevice(ordinal); }  // the members are released on their own device
};

std::uint64_t ring_of(const TileRect& r) { return 2 * std::uint64_t(r.width + r.height); }

// ---------------------------------------------------------------------------------------------

/// What the tiles of one context need on the device, in bytes (worst case: every pixel a label).
template <typename Out>
std::uint64_t device_bytes(const Context& c, const TileGrid& g, std::uint64_t image_tile_bytes, std::size_t ws) {
    std::uint64_t b = 0;
    for (std::uint64_t t : c.tiles) {
        const TileRect r = g.rect(t);
        b += std::uint64_t(r.width) * std::uint64_t(r.height) * 4 + (1 + 2 * ring_of(r)) * 4;
    }
    const std::uint64_t px = g.max_tile_pixels();
    const std::uint64_t per_slot = image_tile_bytes + ws + px * 4 /*first*/ + (px + 1) * sizeof(Out) /*map*/ +
                                   (sizeof(Out) == 8 ? px * 8 : 0);
    return b + 2 * per_slot;
}

template <typename Out>
bool run(const ImageView& image, Out* out, const Options& options, std::int64_t tile_w, std::int64_t tile_h,
         std::vector<int> devices, bool throw_if_no_fit, std::uint64_t& count) {
    const DeviceGuard guard;
    if (devices.empty()) devices.push_back(guard.saved);
    int n_devices = 0;
    CCL_TILES_CUDA(cudaGetDeviceCount(&n_devices));
    for (int d : devices)
        if (d < 0 || d >= n_devices)
            throw Error("label_tiled_streamed: device " + std::to_string(d) + " does not exist (" +
                        std::to_string(n_devices) + " present)");

    const TileGrid grid(image.width, image.height, tile_w, tile_h);
    const std::uint64_t tiles = grid.count();
    const std::int64_t W = image.width;
    const int bpp = bytes_per_pixel(image.format);
    const std::int64_t stride = image.row_bytes();
    const std::uint64_t image_tile_bytes = grid.max_tile_pixels() * std::uint64_t(bpp);
    const auto* src = static_cast<const std::uint8_t*>(image.data);
    const bool image_pinned = stride <= kMaxCopyPitch &&
                              is_pinned(src, std::size_t(stride) * std::size_t(image.height - 1) +
                                                 std::size_t(W) * std::size_t(bpp));
    const std::size_t out_pitch = std::size_t(W) * sizeof(Out);
    const bool out_pinned = std::int64_t(out_pitch) <= kMaxCopyPitch &&
                            is_pinned(out, out_pitch * std::size_t(image.height));

    // Deal the tiles round-robin.
    const std::size_t C = std::size_t(std::min<std::uint64_t>(devices.size(), tiles));
    std::vector<std::unique_ptr<Context>> ctx(C);
    for (std::size_t c = 0; c < C; ++c) {
        ctx[c] = std::make_unique<Context>();
        ctx[c]->ordinal = devices[c];
    }
    for (std::uint64_t t = 0; t < tiles; ++t) ctx[t % C]->tiles.push_back(t);

    // Workspace size: the largest over the (at most four) tile shapes; then the memory check.
    static const std::uint8_t dummy_pixel[8] = {};
    std::size_t ws_bytes = 0;
    {
        std::vector<std::pair<std::int64_t, std::int64_t>> shapes;
        for (std::uint64_t t : {std::uint64_t(0), grid.nx - 1, tiles - grid.nx, tiles - 1}) {
            const TileRect r = grid.rect(t);
            shapes.push_back({r.width, r.height});
        }
        set_device(ctx[0]->ordinal);
        for (auto [w, h] : shapes) {
            std::size_t b = 0;
            const ImageView v{dummy_pixel, w, h, w * bpp, image.format};
            label_device(nullptr, b, v, nullptr, nullptr, options, nullptr);
            ws_bytes = std::max(ws_bytes, b);
        }
    }
    {
        std::vector<std::pair<int, std::uint64_t>> need;  // per ordinal
        for (const auto& c : ctx) {
            const std::uint64_t b = device_bytes<Out>(*c, grid, image_tile_bytes, ws_bytes);
            auto it = std::find_if(need.begin(), need.end(), [&](const auto& p) { return p.first == c->ordinal; });
            if (it == need.end()) need.push_back({c->ordinal, b});
            else it->second += b;
        }
        for (auto [d, b] : need) {
            set_device(d);
            std::size_t free_b = 0, total_b = 0;
            CCL_TILES_CUDA(cudaMemGetInfo(&free_b, &total_b));
            const std::uint64_t margin = std::max<std::uint64_t>(std::uint64_t(256) << 20, total_b / 50);
            if (b + margin > free_b) {
                if (!throw_if_no_fit) return false;
                throw Error("label_tiled_streamed: the labelled tiles need " + std::to_string(b) +
                            " bytes on device " + std::to_string(d) + ", which has " + std::to_string(free_b) +
                            " free: use more devices, or cclabel::label_tiled, which then labels one tile at a time");
            }
        }
    }

    // Allocation, once per call. The staging buffers hold at least one tile row (in or out) and at
    // most kStagingBytes, but no more than a whole tile needs: pinning 2 x 32 MiB per context costs
    // tens of milliseconds, which would dominate calls on small pictures.
    const std::size_t stage_unit = std::max<std::size_t>(std::size_t(bpp), sizeof(Out));
    const std::size_t stage_row = std::size_t(grid.tw) * stage_unit;
    const std::size_t stage_tile = std::size_t(grid.max_tile_pixels()) * stage_unit;
    const std::size_t stage = stage_tile <= kStagingBytes ? stage_tile : std::max(kStagingBytes, stage_row);
    for (auto& cp : ctx) {
        Context& c = *cp;
        set_device(c.ordinal);
        std::uint64_t labels = 0, meta = 0;
        for (std::uint64_t t : c.tiles) {
            const TileRect r = grid.rect(t);
            c.label_at.push_back(labels);
            c.meta_at.push_back(meta);
            labels += std::uint64_t(r.width) * std::uint64_t(r.height);
            meta += 1 + 2 * ring_of(r);
        }
        c.labels.alloc(std::size_t(labels) * 4, "the local labels");
        c.meta.alloc(std::size_t(meta) * 4, "the tiles' counts and borders");
        c.meta_host.alloc(std::size_t(meta) * 4, "the tiles' counts and borders");
        for (Slot& s : c.slot) {
            s.stream.create();
            s.map_copied.create();
            s.image.alloc(std::size_t(image_tile_bytes), "a tile's pixels");
            s.workspace.alloc(ws_bytes, "the workspace");
            s.workspace_bytes = ws_bytes;
        }
        if (!image_pinned || !out_pinned) c.stager.create(stage);
    }

    // A. Upload, label, gather the border; copy the count and border back.
    for (std::uint64_t t = 0; t < tiles; ++t) {
        Context& c = *ctx[t % C];
        const std::size_t i = std::size_t(t / C);
        Slot& s = c.slot[i % 2];
        set_device(c.ordinal);
        const TileRect r = grid.rect(t);
        const std::size_t row_bytes = std::size_t(r.width) * std::size_t(bpp);
        const std::uint8_t* tile_src = src + r.y0 * stride + r.x0 * bpp;
        if (image_pinned)
            CCL_TILES_CUDA(cudaMemcpy2DAsync(s.image.p, row_bytes, tile_src, std::size_t(stride), row_bytes,
                                             std::size_t(r.height), cudaMemcpyHostToDevice, s.stream.s));
        else
            c.stager.upload(s.image.as<std::uint8_t>(), tile_src, std::size_t(stride), row_bytes,
                            std::size_t(r.height), s.stream.s);
        const ImageView dv{s.image.p, r.width, r.height, std::int64_t(row_bytes), image.format};
        std::uint32_t* labels = c.labels.as<std::uint32_t>() + c.label_at[i];
        std::uint32_t* meta = c.meta.as<std::uint32_t>() + c.meta_at[i];
        std::size_t wsb = s.workspace_bytes;
        label_device(s.workspace.p, wsb, dv, labels, meta, options, s.stream.s);
        const std::uint64_t ring = ring_of(r);
        cclabel::detail::dispatch_format(image.format, [&]<PixelFormat F>() {
            border_kernel<F><<<blocks_for(ring), kThreads, 0, s.stream.s>>>(s.image.as<std::uint8_t>(), row_bytes,
                                                                             r.width, r.height, labels, meta);
            return 0;
        });
        CCL_TILES_LAUNCHED("border_kernel");
        CCL_TILES_CUDA(cudaMemcpyAsync(c.meta_host.as<std::uint32_t>() + c.meta_at[i], meta,
                                       std::size_t(1 + 2 * ring) * 4, cudaMemcpyDeviceToHost, s.stream.s));
    }
    for (auto& c : ctx) {
        set_device(c->ordinal);
        for (Slot& s : c->slot) CCL_TILES_CUDA(cudaStreamSynchronize(s.stream.s));
    }

    std::vector<TileInfo> infos(tiles);
    std::vector<std::uint32_t> n_of(tiles);
    for (auto& cp : ctx) {
        Context& c = *cp;
        for (std::size_t i = 0; i < c.tiles.size(); ++i) {
            const std::uint64_t t = c.tiles[i];
            const TileRect r = grid.rect(t);
            const std::uint32_t* m = c.meta_host.as<std::uint32_t>() + c.meta_at[i];
            const std::uint64_t ring = ring_of(r);
            if (std::uint64_t(m[0]) > std::uint64_t(r.width) * std::uint64_t(r.height))
                throw Error("label_tiled_streamed: internal error: tile " + std::to_string(t) + " reports " +
                            std::to_string(m[0]) + " labels");
            n_of[t] = m[0];
            TileInfo& info = infos[t];
            info.rect = r;
            info.image_width = W;
            info.edge_keys.assign(m + 1, m + 1 + ring);
            info.edge_labels.assign(m + 1 + ring, m + 1 + 2 * ring);
        }
    }

    // B. First-pixel tables.
    for (auto& cp : ctx) {
        Context& c = *cp;
        set_device(c.ordinal);
        std::uint64_t total = 0, most = 0;
        for (std::uint64_t t : c.tiles) {
            c.first_at.push_back(total);
            total += n_of[t];
            most = std::max<std::uint64_t>(most, n_of[t]);
        }
        c.first_host.alloc(std::size_t(total) * 4, "the first-pixel tables");
        for (Slot& s : c.slot) s.first.alloc(std::size_t(most) * 4, "a first-pixel table");
        for (std::size_t i = 0; i < c.tiles.size(); ++i) {
            const std::uint64_t t = c.tiles[i];
            const std::uint32_t n = n_of[t];
            if (n == 0) continue;
            Slot& s = c.slot[i % 2];
            const TileRect r = grid.rect(t);
            CCL_TILES_CUDA(cudaMemsetAsync(s.first.p, 0xFF, std::size_t(n) * 4, s.stream.s));
            const dim3 blocks(blocks_for(std::uint64_t(r.width), 64), unsigned(std::min<std::int64_t>(r.height, 65535)));
            first_kernel<<<blocks, kThreads, 0, s.stream.s>>>(c.labels.as<std::uint32_t>() + c.label_at[i],
                                                              std::uint64_t(r.width), std::uint64_t(r.height),
                                                              s.first.as<std::uint32_t>());
            CCL_TILES_LAUNCHED("first_kernel");
            CCL_TILES_CUDA(cudaMemcpyAsync(c.first_host.as<std::uint32_t>() + c.first_at[i], s.first.p,
                                           std::size_t(n) * 4, cudaMemcpyDeviceToHost, s.stream.s));
        }
    }
    for (auto& c : ctx) {
        set_device(c->ordinal);
        for (Slot& s : c->slot) CCL_TILES_CUDA(cudaStreamSynchronize(s.stream.s));
    }
    for (auto& cp : ctx) {
        Context& c = *cp;
        for (std::size_t i = 0; i < c.tiles.size(); ++i) {
            const std::uint64_t t = c.tiles[i];
            const TileRect r = grid.rect(t);
            const std::uint32_t* f = c.first_host.as<std::uint32_t>() + c.first_at[i];
            auto& fi = infos[t].first_index;
            fi.resize(n_of[t]);
            for (std::uint32_t l = 0; l < n_of[t]; ++l) {
                if (f[l] == ~std::uint32_t(0))
                    throw Error("label_tiled_streamed: internal error: label " + std::to_string(l + 1) + " of tile " +
                                std::to_string(t) + " has no pixel");
                fi[l] = cclabel::detail::global_index(r, W, f[l]);
            }
        }
        c.first_host.reset();  // release the tables' pinned memory early
    }

    // C. Resolve on the host; renumber on the device and copy out.
    const std::vector<Seam> seams = cclabel::detail::grid_seams(grid, infos, options.connectivity);
    std::vector<std::vector<std::uint64_t>> first(tiles);
    for (std::uint64_t t = 0; t < tiles; ++t) first[t] = std::move(infos[t].first_index);
    infos = {};
    const Resolution res = resolve_tiles(first, seams);
    first = {};
    if (sizeof(Out) == 4 && res.count > cclabel::detail::tiled_label_limit())
        throw Error("label_tiled_streamed: " + std::to_string(res.count) +
                    " regions do not fit uint32 labels (use 64-bit labels)");

    for (auto& cp : ctx) {
        Context& c = *cp;
        set_device(c.ordinal);
        std::uint64_t most = 0;
        for (std::uint64_t t : c.tiles) most = std::max<std::uint64_t>(most, n_of[t]);
        for (Slot& s : c.slot) {
            s.map.alloc(std::size_t(most + 1) * sizeof(Out), "a tile's map");
            s.map_host.alloc(std::size_t(most + 1) * sizeof(Out), "a tile's map");
            if (sizeof(Out) == 8) s.out.alloc(std::size_t(grid.max_tile_pixels()) * 8, "a tile's global labels");
        }
    }
    for (std::uint64_t t = 0; t < tiles; ++t) {
        Context& c = *ctx[t % C];
        const std::size_t i = std::size_t(t / C);
        Slot& s = c.slot[i % 2];
        set_device(c.ordinal);
        const TileRect r = grid.rect(t);
        const std::uint64_t px = std::uint64_t(r.width) * std::uint64_t(r.height);
        const std::vector<std::uint64_t>& map = res.maps[t];
        if (s.map_busy) CCL_TILES_CUDA(cudaEventSynchronize(s.map_copied.e));
        Out* mh = s.map_host.as<Out>();
        for (std::size_t k = 0; k < map.size(); ++k) mh[k] = Out(map[k]);
        CCL_TILES_CUDA(cudaMemcpyAsync(s.map.p, mh, map.size() * sizeof(Out), cudaMemcpyHostToDevice, s.stream.s));
        CCL_TILES_CUDA(cudaEventRecord(s.map_copied.e, s.stream.s));
        s.map_busy = true;
        std::uint32_t* labels = c.labels.as<std::uint32_t>() + c.label_at[i];
        Out* dst_dev = sizeof(Out) == 4 ? reinterpret_cast<Out*>(labels) : s.out.as<Out>();
        relabel_kernel<Out><<<blocks_for(px, 4096), kThreads, 0, s.stream.s>>>(labels, px, s.map.as<Out>(), dst_dev);
        CCL_TILES_LAUNCHED("relabel_kernel");
        const std::size_t row_bytes = std::size_t(r.width) * sizeof(Out);
        auto* dst = reinterpret_cast<std::uint8_t*>(out + std::uint64_t(r.y0) * std::uint64_t(W) + std::uint64_t(r.x0));
        if (out_pinned)
            CCL_TILES_CUDA(cudaMemcpy2DAsync(dst, out_pitch, dst_dev, row_bytes, row_bytes, std::size_t(r.height),
                                             cudaMemcpyDeviceToHost, s.stream.s));
        else
            c.stager.download(dst, out_pitch, reinterpret_cast<const std::uint8_t*>(dst_dev), row_bytes,
                              std::size_t(r.height), s.stream.s);
    }
    for (auto& c : ctx) {
        set_device(c->ordinal);
        if (c->stager.bytes) c->stager.drain_all();
        for (Slot& s : c->slot) CCL_TILES_CUDA(cudaStreamSynchronize(s.stream.s));
    }
    count = res.count;
    return true;
}

constexpr std::uint64_t kMaxIndex = ~std::uint64_t(0) >> 1;

// The checks of label_tiled() (tiles_label_tiled.cpp), for the public entry point.
template <typename Out>
void validate(const ImageView& image, const Out* out, const Options& options, std::int64_t tile_w, std::int64_t tile_h) {
    if (tile_w < 1 || tile_h < 1)
        throw Error("tile size must be at least 1 x 1 (got " + std::to_string(tile_w) + " x " + std::to_string(tile_h) +
                    ")");
    if constexpr (sizeof(Out) == 4) {
        (void)cclabel::detail::make_request(image, out, options);
        if (image.pixels() > cclabel::detail::tiled_label_limit())
            throw Error("image of " + std::to_string(image.width) + " x " + std::to_string(image.height) +
                        " pixels has more than " + std::to_string(cclabel::detail::tiled_label_limit()) +
                        " pixels, more than uint32 labels can number (use 64-bit labels)");
    } else {
        (void)cclabel::detail::make_request(ImageView{nullptr, 0, 0, 0, image.format}, nullptr, options);
        if (image.width < 0 || image.height < 0) throw Error("image size must not be negative");
        if (image.stride < 0) throw Error("negative row stride is not supported: flip a bottom-up image first");
        if (image.width > 0 && image.height > 0) {
            const int bpp = bytes_per_pixel(image.format);
            if (std::uint64_t(image.height) > kMaxIndex / std::uint64_t(image.width) ||
                std::uint64_t(image.width) > kMaxIndex / std::uint64_t(bpp))
                throw Error("image of " + std::to_string(image.width) + " x " + std::to_string(image.height) +
                            " pixels is too large");
            const std::int64_t stride = image.row_bytes();
            if (stride < image.width * bpp)
                throw Error("row stride of " + std::to_string(stride) + " bytes is smaller than a row");
            if (std::uint64_t(stride) > kMaxIndex / std::uint64_t(image.height))
                throw Error("row stride times height overflows the address space");
            if (!image.data) throw Error("image data is null for a non-empty image");
            if (!out) throw Error("output label buffer is null for a non-empty image");
        }
    }
    const TileGrid g(image.width, image.height, tile_w, tile_h);
    if (std::uint64_t(g.th) > cclabel::detail::tiled_label_limit() / std::uint64_t(g.tw))
        throw Error("tiles of " + std::to_string(g.tw) + " x " + std::to_string(g.th) + " pixels have more than " +
                    std::to_string(cclabel::detail::tiled_label_limit()) +
                    " pixels (a tile is labelled with uint32 labels)");
}

template <typename Out>
TiledResult streamed(const ImageView& image, Out* out, const Options& options, std::int64_t tile_w,
                     std::int64_t tile_h, const std::vector<int>& devices) {
    validate(image, out, options, tile_w, tile_h);
    if (!cclabel::detail::cuda_device_present()) throw Error("backend cuda: no CUDA device is present");
    if (image.pixels() == 0) return TiledResult{0, Backend::Cuda};
    std::uint64_t n = 0;
    run(image, out, options, tile_w, tile_h, devices, true, n);
    return TiledResult{n, Backend::Cuda};
}

}  // namespace

TiledResult label_tiled_streamed(const ImageView& image, std::uint32_t* out, const Options& options,
                                 std::int64_t tile_w, std::int64_t tile_h, const std::vector<int>& devices) {
    return streamed(image, out, options, tile_w, tile_h, devices);
}

TiledResult label_tiled_streamed(const ImageView& image, std::uint64_t* out, const Options& options,
                                 std::int64_t tile_w, std::int64_t tile_h, const std::vector<int>& devices) {
    return streamed(image, out, options, tile_w, tile_h, devices);
}

}  // namespace cclabel::cuda

namespace cclabel::detail {

bool cuda_label_tiled(const ImageView& image, std::uint32_t* out, const Options& options, std::int64_t tile_w,
                      std::int64_t tile_h, std::uint64_t& count) {
    if (!cuda_device_present()) throw Error("backend cuda: no CUDA device is present");
    return cclabel::cuda::run(image, out, options, tile_w, tile_h, {}, false, count);
}

bool cuda_label_tiled(const ImageView& image, std::uint64_t* out, const Options& options, std::int64_t tile_w,
                      std::int64_t tile_h, std::uint64_t& count) {
    if (!cuda_device_present()) throw Error("backend cuda: no CUDA device is present");
    return cclabel::cuda::run(image, out, options, tile_w, tile_h, {}, false, count);
}

}  // namespace cclabel::detail
