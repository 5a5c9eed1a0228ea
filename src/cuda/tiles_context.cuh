#pragma once
// What the tiled GPU pipeline (tiles_cuda.cu, the only file that includes this) holds per device
// and per call: a Context per device (two slots that the tiles take in turn, the local labels, the
// first-pixel tables' store and the mapped host tables, the staging ring for pageable memory), the
// early downloads' rings and maps, and the device memory they need.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/tile_grid.hpp"
#include "cuda/handles.hpp"
#include "cuda/host_stager.hpp"
#include "cuda/pinned_pool.hpp"

namespace cclabel::cuda {
namespace {

using cclabel::detail::TileGrid;
using detail::DeviceBuffer;
using detail::Event;
using detail::Stream;
using host::PooledPinned;

constexpr std::size_t kStagingBytes = std::size_t(32) << 20;  // the staging ring holds a tile, up to this
constexpr std::int64_t kMaxCopyPitch = 0x7FFFFFFF;           // larger pitches go through staging

struct Slot {
    Stream stream;
    Event map_copied;  // the slot's pinned map may be refilled (maps slot by slot only)
    Event downloaded;  // phase C, maps at once, 64-bit output: the slot's `out` may be overwritten
    bool map_busy = false;
    DeviceBuffer image;  // one tile's pixels, packed
    DeviceBuffer workspace;
    std::size_t workspace_bytes = 0;
    DeviceBuffer map;    // phase C, maps slot by slot only: the tile's map, Out per entry
    PooledPinned map_host;
    DeviceBuffer out;    // phase C, 64-bit output only: the tile's global labels
};

/// One entry of the device list.
struct Context {
    int ordinal = 0;
    std::vector<std::uint64_t> tiles;         // global tile numbers, in order
    std::vector<std::uint64_t> label_at;      // element offset of each tile's labels in `labels`
    std::vector<std::uint64_t> meta_at;       // word offset of each tile's count + border + table offset in `meta`
    DeviceBuffer labels, meta;
    PooledPinned meta_host;
    DeviceBuffer first_store;                 // the tiles' first-pixel tables, reserved in phase A
    std::uint64_t first_cap = 0;              // its size in words
    DeviceBuffer cursor;                      // the store's next free word, the host tables' next entry (64-bit)
    PooledPinned host_tables;                 // first-pixel tables as global indices, written by the device
    std::uint64_t* host_tables_dev = nullptr; // the same, as the device addresses it (null: not used)
    std::uint64_t host_cap = 0;               // its size in entries (0: not used)
    std::unique_ptr<Event[]> done;            // a tile's phase A finished
    Stream side;                              // the tables' copies back
    std::vector<std::uint64_t> map_at;        // maps at once: entry offset of each tile's map
    DeviceBuffer maps;                        // maps at once: every tile's map
    PooledPinned maps_host;
    Event maps_in;
    Slot slot[2];
    host::HostStager stager;  // pageable pictures and labels, through a ring of pinned blocks

    // Wait for every copy in flight before the buffers (pooled pinned ones included) are released:
    // only reached with work in flight when an error is thrown mid-pipeline.
    ~Context() {
        cudaSetDevice(ordinal);  // the members are released on their own device
        for (Slot& s : slot)
            if (s.stream.s) cudaStreamSynchronize(s.stream.s);
        if (side.s) cudaStreamSynchronize(side.s);
        cudaGetLastError();
    }
};

/// Early downloads (StreamTuning::early_downloads): strips renumbered and downloaded during phase
/// A on streams of their own, from two ring buffers, with maps the host writes into mapped pinned
/// memory. Released (after its streams finish) before the context.
struct Early {
    int ordinal = 0;
    Stream ks, ds;         // renumbering kernels; downloads
    DeviceBuffer ring[2];  // a strip's global labels, until downloaded
    Event ring_free[2];    // the download out of ring[k] finished
    Event renumbered[2];   // the renumbering into ring[k] finished
    Event finished;        // every early download issued so far finished
    DeviceBuffer maps;     // the maps, as the device reads them
    PooledPinned maps_host;
    const void* maps_host_dev = nullptr;
    std::uint64_t cap = 0, used = 0;  // entries of the maps' buffers
    std::vector<std::uint64_t> at;    // by tile: its map's first entry; kNone when not early
    static constexpr std::uint64_t kNone = ~std::uint64_t(0);
    ~Early() {
        cudaSetDevice(ordinal);
        if (ks.s) cudaStreamSynchronize(ks.s);
        if (ds.s) cudaStreamSynchronize(ds.s);
        cudaGetLastError();
    }
};

/// Pinned host memory for the early maps (entries of the output type; the pool keeps it).
constexpr std::size_t kEarlyMapsBytes = std::size_t(32) << 20;
/// Ids the early numbering may hold (12 bytes each on the host).
constexpr std::uint64_t kEarlyMaxIds = std::uint64_t(1) << 25;

std::uint64_t ring_of(const TileRect& r) { return 2 * std::uint64_t(r.width + r.height); }
/// Words of a tile's entry in `meta`: count, border keys, border labels, first-table offset in the
/// device store, first-table offset in the host's mapped buffer.
std::uint64_t meta_words(const TileRect& r) { return 3 + 2 * ring_of(r); }

// ---------------------------------------------------------------------------------------------

/// What the tiles of one context need on the device, in bytes (worst case: every pixel a label).
/// The first-table store (2 tiles' pixels, a word each) and the maps (at once or two slots: two
/// tiles' entries) take what two slots' tables and maps took before.
template <typename Out>
std::uint64_t device_bytes(const Context& c, const TileGrid& g, std::uint64_t image_tile_bytes, std::size_t ws) {
    std::uint64_t b = 0;
    for (std::uint64_t t : c.tiles) {
        const TileRect r = g.rect(t);
        b += std::uint64_t(r.width) * std::uint64_t(r.height) * 4 + meta_words(r) * 4;
    }
    const std::uint64_t px = g.max_tile_pixels();
    const std::uint64_t per_slot = image_tile_bytes + ws + px * 4 /*first*/ + (px + 1) * sizeof(Out) /*map*/ +
                                   (sizeof(Out) == 8 ? px * 8 : 0);
    return b + 2 * per_slot;
}

/// Maps are converted and uploaded at once when they take at most this much pinned memory (and fit
/// the two tiles' maps budgeted on the device); else slot by slot, as before.
constexpr std::size_t kMapsAtOnceBytes = std::size_t(48) << 20;

/// The pinned host buffer into which the device writes the first-pixel tables in phase A (8 bytes
/// a label: 4M labels a context; the pool keeps it between calls).
constexpr std::size_t kHostTablesBytes = std::size_t(32) << 20;

}  // namespace
}  // namespace cclabel::cuda
