// Tiled labelling on the GPU, streamed, on one or several devices (include/cclabel/cuda_tiles.hpp):
// the tile steps of tiles.hpp with the pixel work on the device(s) and the seams and the resolution
// on the host.
//
// Each entry of the device list is a Context: two slots (a stream, a tile image buffer, a
// label_device workspace and, for 64-bit output, an output buffer) that the context's tiles take
// in turn, so that tile k + 1 is copied in on one stream while tile k is labelled on the other; a
// device buffer holding every one of its tiles' local labels (they stay on the device until the
// map is known); a device store for the tiles' first-pixel tables; a side stream for the small
// copies back; and a pinned pair of staging buffers for host memory that is not pinned. Buffers
// are sized once per call from the largest tile: nothing is allocated per tile. The small pinned
// host buffers (borders, first-pixel tables, maps) come from a process-wide pool (PinnedPool):
// page-locking costs milliseconds per call otherwise.
//
// Phases:
//   A. per tile, all enqueued at once: upload, label_device, gather the border (keys, labels) next
//      to the tile's count, reserve the tile's first-pixel table in the context's store (an
//      atomicAdd of its count on a device cursor), fill it (an atomicMin of each run start's local
//      index into its label's entry, cleared to ~0 first), write the table as global indices
//      straight into a mapped pinned host buffer (reserved by a second device cursor; 8 bytes a
//      label, kHostTablesBytes a context), copy the count, border and table offsets back (small).
//      Then the host takes the tiles in order as each finishes (an event a tile): unpacks the
//      border, takes the table from the mapped buffer (only a table that did not fit it is copied
//      back on the side stream with a wait, as every table was before), and computes the seams
//      whose two tiles are both done, while the device uploads and labels the later tiles: the
//      host no longer issues a copy and waits for it between one tile's event and the next. (The first-pixel tables were a separate phase B after every tile,
//      with its own full pass, host sync and pinned allocation; a table that does not fit the store,
//      only on pictures of very many labels, still gets one after phase A.)
//   C. resolve_tiles on the host; every map converted to the output type in one pinned buffer and
//      copied in at once (when the maps fit the memory budgeted for two tiles' maps), then each
//      tile's labels renumbered on the device (in place for uint32) and copied out into the tile's
//      place, all enqueued with no host work between tiles. With the maps at once, every renumber
//      runs on one stream and every download on the other, each waiting for its tile's renumber
//      by an event, so the downloads follow back to back on one stream and never wait behind a
//      kernel; slot by slot, each slot's stream renumbers then downloads its tiles, as before.
//
// Early downloads (StreamTuning::early_downloads; full-width strips on one device, pinned both
// ways): in phase A, once the strips down to lag_rows below strip j are labelled and their seams
// united by core/strip_numbering.hpp, strip j's map is written into mapped pinned memory, fetched
// and applied by kernels on a stream of their own into one of two ring buffers, and downloaded on
// another, so the downloads overlap the later uploads instead of waiting for the last one. After
// the last strip the remaining maps go out at once (they are final unless the numbering broke),
// and resolve_tiles() runs while they download; every early map is then compared with its final
// map, and a strip whose map differs is renumbered and downloaded again in phase C (after every
// early download, since it writes the same rows). A picture whose regions keep meeting far below
// (noise) breaks the numbering early, and the rest of its strips take phase C as before.
//
// Where the time goes: label_tiled_streamed_profiled (core/tiles_profile.hpp) fills a record of
// host-clock marks at the phase boundaries; bench/cuda/bench_tiles prints it.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/cores.hpp"
#include "cclabel/cuda.hpp"
#include "cclabel/cuda_tiles.hpp"
#include "cclabel/detail/pixel_traits.hpp"
#include "cclabel/error.hpp"
#include "cclabel/label.hpp"
#include "core/backends.hpp"
#include "core/parallel_for.hpp"
#include "core/request.hpp"
#include "core/strip_numbering.hpp"
#include "core/tile_grid.hpp"
#include "core/tiles_backends.hpp"
#include "core/tiles_limit.hpp"
#include "core/tiles_profile.hpp"
#include "cuda/handles.hpp"
#include "cuda/host_stager.hpp"
#include "cuda/tiles_context.cuh"
#include "cuda/tiles_kernels.cuh"
#include "core/refuse_tolerance.hpp"
#include "cuda/pinned_pool.hpp"

namespace cclabel::cuda {
namespace {

using cclabel::detail::TileGrid;
using host::is_pinned;
using host::PooledPinned;

using detail::check;
using detail::DeviceBuffer;
using detail::DeviceGuard;
using detail::Event;
using detail::Stream;
using detail::throw_cuda;

// ---------------------------------------------------------------------------------------------
// Small helpers (the RAII handles are cuda/handles.hpp). Each is made and released with its device current.

void set_device(int ordinal) {
    const cudaError_t e = cudaSetDevice(ordinal);
    if (e != cudaSuccess) throw_cuda(e, ("cudaSetDevice(" + std::to_string(ordinal) + ")").c_str());
}

using Clock = std::chrono::steady_clock;

double ms_between(Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double, std::milli>(b - a).count();
}

template <typename Out>
bool run(const ImageView& image, Out* out, const Options& options, std::int64_t tile_w, std::int64_t tile_h,
         std::vector<int> devices, bool throw_if_no_fit, std::uint64_t& count,
         cclabel::detail::TilesProfile* prof = nullptr, const cclabel::detail::StreamTuning& tuning = {}) {
    const Clock::time_point t_enter = Clock::now();
    auto mark = [&](double cclabel::detail::TilesProfile::*field) {
        if (prof) prof->*field = ms_between(t_enter, Clock::now());
    };
    const DeviceGuard guard;
    if (devices.empty()) devices.push_back(guard.saved);
    int n_devices = 0;
    CCL_CUDA(cudaGetDeviceCount(&n_devices));
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

    // Early downloads: full-width strips on one device, pinned both ways, and strips enough below
    // the lag for one to be downloaded before the last upload.
    const std::uint64_t lag = tuning.lag_rows <= 0 ? 0 : std::uint64_t((tuning.lag_rows + grid.th - 1) / grid.th);
    bool early_wanted = tuning.early_downloads && C == 1 && grid.nx == 1 && image_pinned && out_pinned &&
                        tiles > lag + 1;
    const std::uint64_t early_bytes = 2 * grid.max_tile_pixels() * sizeof(Out) + kEarlyMapsBytes;

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
            CCL_CUDA(cudaMemGetInfo(&free_b, &total_b));
            const std::uint64_t margin = std::max<std::uint64_t>(std::uint64_t(256) << 20, total_b / 50);
            if (early_wanted && b + early_bytes + margin > free_b) early_wanted = false;  // not worth failing for
            if (b + margin > free_b) {
                if (!throw_if_no_fit) return false;
                throw Error("label_tiled_streamed: the labelled tiles need " + std::to_string(b) +
                            " bytes on device " + std::to_string(d) + ", which has " + std::to_string(free_b) +
                            " free: use more devices, or cclabel::label_tiled, which then labels one tile at a time");
            }
        }
    }
    mark(&cclabel::detail::TilesProfile::setup_ms);

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
            meta += meta_words(r);
        }
        c.labels.alloc(std::size_t(labels) * 4, "the local labels");
        c.meta.alloc(std::size_t(meta) * 4, "the tiles' counts and borders");
        c.meta_host.reserve(std::size_t(meta) * 4, "the tiles' counts and borders");
        // The store never needs more words than the context's pixels, and offsets are 32-bit.
        // At least a whole tile of the context (the overflow path fills one from the store's
        // start): a tile has at most 2^32 − 1 pixels, so the cap of kNoOffset never cuts that.
        c.first_cap = std::min<std::uint64_t>({2 * grid.max_tile_pixels(), labels, std::uint64_t(kNoOffset)});
        c.first_store.alloc(std::size_t(c.first_cap) * 4, "the first-pixel tables");
        c.cursor.alloc(2 * sizeof(unsigned long long), "the first-pixel tables' cursors");
        // The host's mapped table buffer: kHostTablesBytes at most (pooled, so pinned once per
        // process), no more than the context's pixels. Tables that do not fit it are copied back
        // by the host after the tile's event, as before.
        c.host_cap = std::min<std::uint64_t>({kHostTablesBytes / 8, labels, std::uint64_t(kNoOffset) - 1});
        c.host_tables.reserve(std::size_t(c.host_cap) * 8, "the first-pixel tables");
        {
            void* dp = nullptr;
            if (cudaHostGetDevicePointer(&dp, c.host_tables.p, 0) == cudaSuccess && dp) {
                c.host_tables_dev = static_cast<std::uint64_t*>(dp);
            } else {
                cudaGetLastError();
                c.host_tables_dev = nullptr;
                c.host_cap = 0;
            }
        }
        c.done.reset(new Event[c.tiles.size()]);
        for (std::size_t i = 0; i < c.tiles.size(); ++i) c.done[i].create();
        c.side.create();
        for (Slot& s : c.slot) {
            s.stream.create();
            s.map_copied.create();
            s.downloaded.create();
            s.image.alloc(std::size_t(image_tile_bytes), "a tile's pixels");
            s.workspace.alloc(ws_bytes, "the workspace");
            s.workspace_bytes = ws_bytes;
        }
        if (!image_pinned || !out_pinned) c.stager.create(stage, host::copy_threads(options.threads));
        // The cursor is cleared before either stream uses it (one tiny wait, here rather than an
        // event between the streams).
        CCL_CUDA(cudaMemsetAsync(c.cursor.p, 0, 2 * sizeof(unsigned long long), c.side.s));
        CCL_CUDA(cudaStreamSynchronize(c.side.s));
    }
    std::unique_ptr<Early> early;
    if (early_wanted) {
        early = std::make_unique<Early>();
        Early& e = *early;
        e.ordinal = ctx[0]->ordinal;
        set_device(e.ordinal);
        e.ks.create();
        e.ds.create();
        for (int k = 0; k < 2; ++k) {
            e.ring[k].alloc(std::size_t(grid.max_tile_pixels()) * sizeof(Out), "a strip's early labels");
            e.ring_free[k].create();
            e.renumbered[k].create();
        }
        e.finished.create();
        e.cap = kEarlyMapsBytes / sizeof(Out);
        e.maps.alloc(std::size_t(e.cap) * sizeof(Out), "the early maps");
        e.maps_host.reserve(std::size_t(e.cap) * sizeof(Out), "the early maps");
        void* dp = nullptr;
        if (cudaHostGetDevicePointer(&dp, e.maps_host.p, 0) == cudaSuccess && dp) {
            e.maps_host_dev = dp;
        } else {
            cudaGetLastError();
            early.reset();
        }
        if (early) e.at.assign(std::size_t(tiles), Early::kNone);
    }
    if (prof)
        for (auto& c : ctx) {
            set_device(c->ordinal);
            CCL_CUDA(cudaDeviceSynchronize());
        }
    mark(&cclabel::detail::TilesProfile::alloc_ms);

    // A. Upload, label, gather the border, fill the first-pixel table; copy the count, border and
    // table offset back. Everything is enqueued before the host waits for anything.
    for (std::uint64_t t = 0; t < tiles; ++t) {
        Context& c = *ctx[t % C];
        const std::size_t i = std::size_t(t / C);
        Slot& s = c.slot[i % 2];
        set_device(c.ordinal);
        const TileRect r = grid.rect(t);
        const std::size_t row_bytes = std::size_t(r.width) * std::size_t(bpp);
        const std::uint8_t* tile_src = src + r.y0 * stride + r.x0 * bpp;
        if (image_pinned)
            CCL_CUDA(cudaMemcpy2DAsync(s.image.p, row_bytes, tile_src, std::size_t(stride), row_bytes,
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
        std::uint32_t* offset = meta + 1 + 2 * ring;
        cclabel::detail::dispatch_format(image.format, [&]<PixelFormat F>() {
            border_kernel<F><<<blocks_for(ring), kThreads, 0, s.stream.s>>>(s.image.as<std::uint8_t>(), row_bytes,
                                                                             r.width, r.height, labels, meta);
            return 0;
        });
        CCL_LAUNCHED("border_kernel");
        // The table used to be a phase of its own after every tile (a host wait, a full pass over
        // all the labels, another wait). Here it rides on the tile's stream while the other stream
        // uploads the next tile, which takes longer than labelling this one.
        const std::uint64_t px = std::uint64_t(r.width) * std::uint64_t(r.height);
        first_reserve_kernel<<<1, 1, 0, s.stream.s>>>(meta, c.cursor.as<unsigned long long>(), c.first_cap,
                                                      c.host_cap, offset);
        CCL_LAUNCHED("first_reserve_kernel");
        first_clear_kernel<<<blocks_for(px, 1024), kThreads, 0, s.stream.s>>>(meta, offset,
                                                                              c.first_store.as<std::uint32_t>());
        CCL_LAUNCHED("first_clear_kernel");
        const dim3 fblocks(blocks_for(std::uint64_t(r.width), 64), unsigned(std::min<std::int64_t>(r.height, 65535)));
        first_kernel<<<fblocks, kThreads, 0, s.stream.s>>>(labels, std::uint64_t(r.width), std::uint64_t(r.height),
                                                           c.first_store.as<std::uint32_t>(), offset);
        CCL_LAUNCHED("first_kernel");
        if (c.host_tables_dev) {
            first_out_kernel<<<blocks_for(px, 1024), kThreads, 0, s.stream.s>>>(
                meta, c.first_store.as<std::uint32_t>(), offset, c.host_tables_dev, std::uint64_t(r.x0),
                std::uint64_t(r.y0), std::uint64_t(r.width), std::uint64_t(W));
            CCL_LAUNCHED("first_out_kernel");
        }
        CCL_CUDA(cudaMemcpyAsync(c.meta_host.as<std::uint32_t>() + c.meta_at[i], meta,
                                       std::size_t(meta_words(r)) * 4, cudaMemcpyDeviceToHost, s.stream.s));
        CCL_CUDA(cudaEventRecord(c.done[i].e, s.stream.s));
    }
    mark(&cclabel::detail::TilesProfile::enqueue_ms);

    // The host side of phase A, tile by tile as each finishes, while the device works on the later
    // tiles: the border, the first-pixel table (copied back on the side stream, 4 bytes a label,
    // into a pooled pinned scratch buffer) and the seams of every pair of tiles now both done.
    std::vector<TileInfo> infos(tiles);
    std::vector<std::uint32_t> n_of(tiles);
    std::vector<char> ready(tiles, 0);  // first_index known
    std::vector<std::uint64_t> overflow;
    PooledPinned scratch;
    const std::uint64_t nx = grid.nx, ny = grid.ny;
    const bool eight = options.connectivity == 8;
    std::vector<Seam> seam_at(4 * tiles);  // tile t's seam k at 4t + k: grid_seams' order
    std::vector<char> seam_done(4 * tiles, 0);
    // Seam k of tile t: 0 right, 1 below, 2 below right, 3 below left (8-connectivity), as
    // grid_seams and label_tiled number them; u = the other tile, or tiles when there is none.
    auto seam_peer = [&](std::uint64_t t, int k) -> std::uint64_t {
        const std::uint64_t i = t % nx, j = t / nx;
        switch (k) {
            case 0: return i + 1 < nx ? t + 1 : tiles;
            case 1: return j + 1 < ny ? t + nx : tiles;
            case 2: return eight && i + 1 < nx && j + 1 < ny ? t + nx + 1 : tiles;
            default: return eight && i > 0 && j + 1 < ny ? t + nx - 1 : tiles;
        }
    };
    auto try_seam = [&](std::uint64_t t, int k) {
        const std::uint64_t u = seam_peer(t, k);
        const std::size_t at = std::size_t(4 * t + std::uint64_t(k));
        if (u >= tiles || seam_done[at] || !ready[t] || !ready[u]) return;
        seam_at[at] = Seam{t, u, seam_equivalences(infos[t], infos[u], options.connectivity)};
        seam_done[at] = 1;
    };
    // The seams whose later tile is u (every neighbour of a seam comes before its peer).
    auto seams_ending_at = [&](std::uint64_t u) {
        const std::uint64_t i = u % nx, j = u / nx;
        if (i > 0) try_seam(u - 1, 0);
        if (j > 0) try_seam(u - nx, 1);
        if (j > 0 && i > 0) try_seam(u - nx - 1, 2);
        if (j > 0 && i + 1 < nx) try_seam(u - nx + 1, 3);
    };
    // Copies tile t's table (n words at store + off) back and turns it into global indices.
    auto take_table = [&](Context& c, std::uint64_t t, std::uint32_t off) {
        const std::uint32_t n = n_of[t];
        const TileRect r = grid.rect(t);
        scratch.reserve(std::size_t(n) * 4, "a first-pixel table");
        CCL_CUDA(cudaMemcpyAsync(scratch.p, c.first_store.as<std::uint32_t>() + off, std::size_t(n) * 4,
                                       cudaMemcpyDeviceToHost, c.side.s));
        CCL_CUDA(cudaStreamSynchronize(c.side.s));
        const std::uint32_t* f = scratch.as<std::uint32_t>();
        auto& fi = infos[t].first_index;
        fi.resize(n);
        for (std::uint32_t l = 0; l < n; ++l) {
            if (f[l] == ~std::uint32_t(0))
                throw Error("label_tiled_streamed: internal error: label " + std::to_string(l + 1) + " of tile " +
                            std::to_string(t) + " has no pixel");
            fi[l] = cclabel::detail::global_index(r, W, f[l]);
        }
    };
    // Tile t's table as the device wrote it into the mapped buffer (global indices already).
    auto take_mapped = [&](Context& c, std::uint64_t t, std::uint32_t host_at) {
        const std::uint32_t n = n_of[t];
        if (std::uint64_t(host_at) + n > c.host_cap)
            throw Error("label_tiled_streamed: internal error: tile " + std::to_string(t) + "'s table passes the buffer");
        const std::uint64_t* f = c.host_tables.as<std::uint64_t>() + host_at;
        auto& fi = infos[t].first_index;
        fi.assign(f, f + n);
        for (std::uint32_t l = 0; l < n; ++l)
            if (fi[l] == ~std::uint64_t(0))
                throw Error("label_tiled_streamed: internal error: label " + std::to_string(l + 1) + " of tile " +
                            std::to_string(t) + " has no pixel");
    };
    // Early downloads: strip j's map from the numbering of the strips so far, written into mapped
    // pinned memory, fetched and applied into a ring buffer on the early kernel stream, downloaded
    // on the early copy stream; the ring buffer is reused once the download of strip j − 2 is out.
    cclabel::detail::StripNumbering numbering(kEarlyMaxIds);
    std::uint64_t early_count = 0;
    auto issue_early = [&](std::uint64_t j) -> bool {
        Early& e = *early;
        Context& c = *ctx[0];
        const std::uint64_t n = n_of[j];
        if (e.used + n + 1 > e.cap) {
            numbering.give_up();
            return false;
        }
        Out* mh = e.maps_host.as<Out>() + e.used;
        if (!numbering.next_map(mh)) return false;
        const std::uint64_t at = e.used;
        e.used += n + 1;
        e.at[std::size_t(j)] = at;
        const TileRect r = grid.rect(j);
        const std::uint64_t px = std::uint64_t(r.width) * std::uint64_t(r.height);
        const int k = int(j % 2);
        if (j >= 2) CCL_CUDA(cudaStreamWaitEvent(e.ks.s, e.ring_free[k].e, 0));
        fetch_kernel<Out><<<blocks_for(n + 1, 1024), kThreads, 0, e.ks.s>>>(
            static_cast<const Out*>(e.maps_host_dev) + at, e.maps.as<Out>() + at, n + 1);
        CCL_LAUNCHED("fetch_kernel");
        relabel_kernel<Out><<<blocks_for(px, 4096), kThreads, 0, e.ks.s>>>(
            c.labels.as<std::uint32_t>() + c.label_at[std::size_t(j)], px, e.maps.as<Out>() + at, e.ring[k].as<Out>());
        CCL_LAUNCHED("relabel_kernel");
        CCL_CUDA(cudaEventRecord(e.renumbered[k].e, e.ks.s));
        CCL_CUDA(cudaStreamWaitEvent(e.ds.s, e.renumbered[k].e, 0));
        // A full-width strip is one contiguous block of the packed output.
        CCL_CUDA(cudaMemcpyAsync(out + std::uint64_t(r.y0) * std::uint64_t(W), e.ring[k].p,
                                       std::size_t(px) * sizeof(Out), cudaMemcpyDeviceToHost, e.ds.s));
        CCL_CUDA(cudaEventRecord(e.ring_free[k].e, e.ds.s));
        ++early_count;
        return true;
    };
    auto early_step = [&](std::uint64_t t) {
        if (!early || numbering.broken()) return;
        numbering.add_strip(n_of[t]);
        if (t > 0) {
            const std::size_t at = std::size_t(4 * (t - 1) + 1);  // the seam below strip t − 1
            if (!seam_done[at]) {
                numbering.give_up();  // a first-pixel table overflowed: its seams come later
                return;
            }
            numbering.unite(t, seam_at[at].pairs.data(), seam_at[at].pairs.size());
        }
        while (!numbering.broken() && numbering.mapped() + lag <= t && issue_early(numbering.mapped())) {
        }
    };
    std::uint64_t tables_copied = 0;
    double a_wait = 0, a_host = 0;
    for (std::uint64_t t = 0; t < tiles; ++t) {
        Context& c = *ctx[t % C];
        const std::size_t i = std::size_t(t / C);
        set_device(c.ordinal);
        const Clock::time_point w0 = Clock::now();
        CCL_CUDA(cudaEventSynchronize(c.done[i].e));
        const Clock::time_point w1 = Clock::now();
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
        const std::uint32_t off = m[1 + 2 * ring];
        const std::uint32_t host_at = m[2 + 2 * ring];
        if (n_of[t] > 0 && off == kNoOffset) {
            overflow.push_back(t);
        } else {
            if (n_of[t] > 0 && host_at != kNoOffset && c.host_tables_dev) {
                take_mapped(c, t, host_at);
            } else if (n_of[t] > 0) {
                take_table(c, t, off);
                ++tables_copied;
            }
            ready[t] = 1;
            seams_ending_at(t);
        }
        early_step(t);
        a_wait += ms_between(w0, w1);
        a_host += ms_between(w1, Clock::now());
    }
    mark(&cclabel::detail::TilesProfile::phase_a_ms);

    // The tables that did not fit the store (pictures of very many labels): one at a time from the
    // store's start, free now that every other table is back.
    for (std::uint64_t t : overflow) {
        Context& c = *ctx[t % C];
        const std::size_t i = std::size_t(t / C);
        set_device(c.ordinal);
        const TileRect r = grid.rect(t);
        std::uint32_t* meta = c.meta.as<std::uint32_t>() + c.meta_at[i];
        std::uint32_t* offset = meta + 1 + 2 * ring_of(r);
        const std::uint64_t px = std::uint64_t(r.width) * std::uint64_t(r.height);
        CCL_CUDA(cudaMemsetAsync(offset, 0, 4, c.side.s));
        first_clear_kernel<<<blocks_for(px, 1024), kThreads, 0, c.side.s>>>(meta, offset,
                                                                            c.first_store.as<std::uint32_t>());
        CCL_LAUNCHED("first_clear_kernel");
        const dim3 fblocks(blocks_for(std::uint64_t(r.width), 64), unsigned(std::min<std::int64_t>(r.height, 65535)));
        first_kernel<<<fblocks, kThreads, 0, c.side.s>>>(c.labels.as<std::uint32_t>() + c.label_at[i],
                                                         std::uint64_t(r.width), std::uint64_t(r.height),
                                                         c.first_store.as<std::uint32_t>(), offset);
        CCL_LAUNCHED("first_kernel");
        take_table(c, t, 0);
        ready[t] = 1;
    }
    scratch.reset();
    mark(&cclabel::detail::TilesProfile::first_ms);

    // The seams not yet computed (those of tiles that overflowed), then the list in grid order.
    for (std::uint64_t t = 0; t < tiles; ++t)
        for (int k = 0; k < 4; ++k) try_seam(t, k);
    std::vector<Seam> seams;
    for (Seam& s : seam_at)
        if (!s.pairs.empty()) seams.push_back(std::move(s));
    seam_at = {};
    // Every strip is united now: unless the early numbering broke, its maps of the last strips are
    // final, so they go out at once, and resolve_tiles() and the check below run on the host while
    // they download.
    if (early && !numbering.broken()) {
        set_device(early->ordinal);
        while (numbering.mapped() < tiles && issue_early(numbering.mapped())) {
        }
    }
    mark(&cclabel::detail::TilesProfile::seams_ms);

    // C. Resolve on the host; renumber on the device and copy out.
    std::vector<std::vector<std::uint64_t>> first(tiles);
    for (std::uint64_t t = 0; t < tiles; ++t) first[t] = std::move(infos[t].first_index);
    infos = {};
    Resolution res = resolve_tiles(first, seams, options.threads);
    first = {};
    if (sizeof(Out) == 4 && res.count > cclabel::detail::tiled_label_limit())
        throw Error("label_tiled_streamed: " + std::to_string(res.count) +
                    " regions do not fit uint32 labels (use 64-bit labels)");
    // The strips downloaded early whose map is the final one are done; the others are renumbered
    // and downloaded again below, after every early download (same rows of `out`).
    std::vector<char> done_early(std::size_t(tiles), 0);
    std::uint64_t early_redone = 0;
    if (early) {
        Early& e = *early;
        std::vector<std::uint64_t> firsts;
        for (std::uint64_t t = 0; t < tiles; ++t)
            if (e.at[std::size_t(t)] != Early::kNone) firsts.push_back(t);
        const int workers = e.used >= (std::uint64_t(1) << 18) ? host::copy_threads(options.threads) : 1;
        cclabel::detail::parallel_for(firsts.size(), workers, [&](std::uint64_t i) {
            const std::uint64_t t = firsts[std::size_t(i)];
            const std::vector<std::uint64_t>& map = res.maps[std::size_t(t)];
            const Out* got = e.maps_host.as<Out>() + e.at[std::size_t(t)];
            bool same = map.size() == std::size_t(n_of[t]) + 1;
            for (std::size_t k = 0; same && k < map.size(); ++k) same = std::uint64_t(got[k]) == map[k];
            done_early[std::size_t(t)] = same;
        });
        for (std::uint64_t t : firsts) early_redone += done_early[std::size_t(t)] ? 0 : 1;
        set_device(e.ordinal);
        CCL_CUDA(cudaEventRecord(e.finished.e, e.ds.s));
        for (Slot& s : ctx[0]->slot) CCL_CUDA(cudaStreamWaitEvent(s.stream.s, e.finished.e, 0));
    }
    mark(&cclabel::detail::TilesProfile::resolve_ms);

    // The maps: at once when they are small (the usual case: a few bytes a region), so that the
    // loop below has no host work between one tile's download and the next; else slot by slot.
    // None when every strip went out early with its final map.
    const bool any_left = std::find(done_early.begin(), done_early.end(), char(0)) != done_early.end();
    bool at_once = true;
    for (auto& cp : ctx) {
        Context& c = *cp;
        std::uint64_t total = 0;
        for (std::uint64_t t : c.tiles) {
            c.map_at.push_back(total);
            total += std::uint64_t(n_of[t]) + 1;
        }
        if (total * sizeof(Out) > kMapsAtOnceBytes || total > 2 * (grid.max_tile_pixels() + 1)) at_once = false;
    }
    if (at_once && any_left) {
        for (auto& cp : ctx) {
            Context& c = *cp;
            set_device(c.ordinal);
            const std::uint64_t total = c.map_at.empty() ? 0 : c.map_at.back() + n_of[c.tiles.back()] + 1;
            c.maps_host.reserve(std::size_t(total) * sizeof(Out), "the tiles' maps");
            c.maps.alloc(std::size_t(total) * sizeof(Out), "the tiles' maps");
            Out* mh = c.maps_host.as<Out>();
            const int workers = total >= (std::uint64_t(1) << 18) ? host::copy_threads(options.threads) : 1;
            cclabel::detail::parallel_for(c.tiles.size(), workers, [&](std::uint64_t i) {
                const std::vector<std::uint64_t>& map = res.maps[c.tiles[i]];
                Out* dst = mh + c.map_at[i];
                for (std::size_t k = 0; k < map.size(); ++k) dst[k] = Out(map[k]);
            });
            c.maps_in.create();
            CCL_CUDA(cudaMemcpyAsync(c.maps.p, mh, std::size_t(total) * sizeof(Out), cudaMemcpyHostToDevice,
                                           c.slot[0].stream.s));
            CCL_CUDA(cudaEventRecord(c.maps_in.e, c.slot[0].stream.s));
            CCL_CUDA(cudaStreamWaitEvent(c.slot[1].stream.s, c.maps_in.e, 0));
        }
    } else if (!at_once) {
        for (auto& cp : ctx) {
            Context& c = *cp;
            set_device(c.ordinal);
            std::uint64_t most = 0;
            for (std::uint64_t t : c.tiles) most = std::max<std::uint64_t>(most, n_of[t]);
            for (Slot& s : c.slot) {
                s.map.alloc(std::size_t(most + 1) * sizeof(Out), "a tile's map");
                s.map_host.reserve(std::size_t(most + 1) * sizeof(Out), "a tile's map");
            }
        }
    }
    for (auto& cp : ctx)
        if (sizeof(Out) == 8 && any_left) {
            set_device(cp->ordinal);
            for (Slot& s : cp->slot) s.out.alloc(std::size_t(grid.max_tile_pixels()) * 8, "a tile's global labels");
        }
    mark(&cclabel::detail::TilesProfile::maps_ms);

    if (at_once) {
        // Every relabel on one stream (slot 0's, behind the maps' copy), every download on the
        // other (slot 1's), each download waiting for its tile's relabel by an event (the tile's
        // phase A event, long fired, recorded again). The relabels run ahead, so the copy engine
        // finds each download ready when the previous one ends: downloads back to back on one
        // stream, with no kernel and no other stream's copy between them. (Before, each slot's
        // stream had relabel then download, so a download could wait for a kernel queued behind
        // the same slot's previous download.) For 64-bit output the relabel into a slot's `out`
        // waits until the download of the tile two before has left it.
        for (std::uint64_t t = 0; t < tiles; ++t) {
            if (done_early[std::size_t(t)]) continue;
            Context& c = *ctx[t % C];
            const std::size_t i = std::size_t(t / C);
            Slot& s = c.slot[i % 2];
            cudaStream_t ks = c.slot[0].stream.s, ds = c.slot[1].stream.s;
            set_device(c.ordinal);
            const TileRect r = grid.rect(t);
            const std::uint64_t px = std::uint64_t(r.width) * std::uint64_t(r.height);
            std::uint32_t* labels = c.labels.as<std::uint32_t>() + c.label_at[i];
            Out* dst_dev = sizeof(Out) == 4 ? reinterpret_cast<Out*>(labels) : s.out.as<Out>();
            if (sizeof(Out) == 8 && i >= 2) CCL_CUDA(cudaStreamWaitEvent(ks, s.downloaded.e, 0));
            relabel_kernel<Out><<<blocks_for(px, 4096), kThreads, 0, ks>>>(labels, px, c.maps.as<Out>() + c.map_at[i],
                                                                          dst_dev);
            CCL_LAUNCHED("relabel_kernel");
            CCL_CUDA(cudaEventRecord(c.done[i].e, ks));
            CCL_CUDA(cudaStreamWaitEvent(ds, c.done[i].e, 0));
            const std::size_t row_bytes = std::size_t(r.width) * sizeof(Out);
            auto* dst =
                reinterpret_cast<std::uint8_t*>(out + std::uint64_t(r.y0) * std::uint64_t(W) + std::uint64_t(r.x0));
            if (out_pinned)
                CCL_CUDA(cudaMemcpy2DAsync(dst, out_pitch, dst_dev, row_bytes, row_bytes, std::size_t(r.height),
                                                 cudaMemcpyDeviceToHost, ds));
            else
                c.stager.download(dst, out_pitch, reinterpret_cast<const std::uint8_t*>(dst_dev), row_bytes,
                                  std::size_t(r.height), ds);
            if (sizeof(Out) == 8) CCL_CUDA(cudaEventRecord(s.downloaded.e, ds));
        }
    }
    for (std::uint64_t t = 0; t < tiles && !at_once; ++t) {
        if (done_early[std::size_t(t)]) continue;
        Context& c = *ctx[t % C];
        const std::size_t i = std::size_t(t / C);
        Slot& s = c.slot[i % 2];
        set_device(c.ordinal);
        const TileRect r = grid.rect(t);
        const std::uint64_t px = std::uint64_t(r.width) * std::uint64_t(r.height);
        const Out* d_map = nullptr;
        if (at_once) {
            d_map = c.maps.as<Out>() + c.map_at[i];
        } else {
            const std::vector<std::uint64_t>& map = res.maps[t];
            if (s.map_busy) CCL_CUDA(cudaEventSynchronize(s.map_copied.e));
            Out* mh = s.map_host.as<Out>();
            for (std::size_t k = 0; k < map.size(); ++k) mh[k] = Out(map[k]);
            CCL_CUDA(cudaMemcpyAsync(s.map.p, mh, map.size() * sizeof(Out), cudaMemcpyHostToDevice, s.stream.s));
            CCL_CUDA(cudaEventRecord(s.map_copied.e, s.stream.s));
            s.map_busy = true;
            d_map = s.map.as<Out>();
        }
        std::uint32_t* labels = c.labels.as<std::uint32_t>() + c.label_at[i];
        Out* dst_dev = sizeof(Out) == 4 ? reinterpret_cast<Out*>(labels) : s.out.as<Out>();
        relabel_kernel<Out><<<blocks_for(px, 4096), kThreads, 0, s.stream.s>>>(labels, px, d_map, dst_dev);
        CCL_LAUNCHED("relabel_kernel");
        const std::size_t row_bytes = std::size_t(r.width) * sizeof(Out);
        auto* dst = reinterpret_cast<std::uint8_t*>(out + std::uint64_t(r.y0) * std::uint64_t(W) + std::uint64_t(r.x0));
        if (out_pinned)
            CCL_CUDA(cudaMemcpy2DAsync(dst, out_pitch, dst_dev, row_bytes, row_bytes, std::size_t(r.height),
                                             cudaMemcpyDeviceToHost, s.stream.s));
        else
            c.stager.download(dst, out_pitch, reinterpret_cast<const std::uint8_t*>(dst_dev), row_bytes,
                              std::size_t(r.height), s.stream.s);
    }
    for (auto& c : ctx) {
        set_device(c->ordinal);
        if (c->stager.created()) c->stager.drain_all();
        for (Slot& s : c->slot) CCL_CUDA(cudaStreamSynchronize(s.stream.s));
    }
    if (early) {
        set_device(early->ordinal);
        CCL_CUDA(cudaStreamSynchronize(early->ds.s));
    }
    mark(&cclabel::detail::TilesProfile::phase_c_ms);
    count = res.count;
    if (prof) {
        prof->a_wait_ms = a_wait;
        prof->a_host_ms = a_host;
        prof->tiles = tiles;
        prof->local_labels = 0;
        for (std::uint32_t n : n_of) prof->local_labels += n;
        prof->seam_pairs = 0;
        for (const Seam& s : seams) prof->seam_pairs += s.pairs.size() / 2;
        prof->overflow_tiles = overflow.size();
        prof->tables_copied = tables_copied;
        prof->regions = res.count;
        prof->maps_at_once = at_once;
        prof->early_tiles = early_count;
        prof->early_redone = early_redone;
        prof->early_broken = early && numbering.broken();
    }
    res = {};
    early.reset();
    ctx.clear();  // device buffers, streams and events released inside the timed call
    mark(&cclabel::detail::TilesProfile::release_ms);
    return true;
}

constexpr std::uint64_t kMaxIndex = ~std::uint64_t(0) >> 1;

// The checks of label_tiled() (tiles_label_tiled.cpp), for the public entry point.
template <typename Out>
void validate(const ImageView& image, const Out* out, const Options& options, std::int64_t tile_w, std::int64_t tile_h) {
    cclabel::detail::refuse_tolerance(options.tolerance, "in the streamed GPU tile pipeline (its seams join equal values only)",
                                      "use label_tiled, which labels its tiles with a tolerance", "label_tiled_streamed");
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
                     std::int64_t tile_h, const std::vector<int>& devices,
                     cclabel::detail::TilesProfile* profile = nullptr,
                     const cclabel::detail::StreamTuning& tuning = {}) {
    validate(image, out, options, tile_w, tile_h);
    if (!cclabel::detail::cuda_device_present()) throw Error("backend cuda: no CUDA device is present");
    if (image.pixels() == 0) return TiledResult{0, Backend::Cuda};
    std::uint64_t n = 0;
    run(image, out, options, tile_w, tile_h, devices, true, n, profile, tuning);
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

namespace detail {

TiledResult label_tiled_streamed_profiled(const ImageView& image, std::uint32_t* out, const Options& options,
                                          std::int64_t tile_w, std::int64_t tile_h, const std::vector<int>& devices,
                                          cclabel::detail::TilesProfile* profile,
                                          const cclabel::detail::StreamTuning& tuning) {
    return streamed(image, out, options, tile_w, tile_h, devices, profile, tuning);
}

TiledResult label_tiled_streamed_profiled(const ImageView& image, std::uint64_t* out, const Options& options,
                                          std::int64_t tile_w, std::int64_t tile_h, const std::vector<int>& devices,
                                          cclabel::detail::TilesProfile* profile,
                                          const cclabel::detail::StreamTuning& tuning) {
    return streamed(image, out, options, tile_w, tile_h, devices, profile, tuning);
}

}  // namespace detail

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
