#pragma once
// The per-thread programs of the CUDA volume labeller (6, 18 or 26 neighbours), written once for
// the kernels of src/cuda/volume_cuda.cu and for the CPU executor of tests/emu, through the same
// Ops as the picture pipeline (kernels/bodies.cuh says what each operation means on either side).
//
// Union-find over voxels on the label buffer itself (Komura 2015; Playne & Hawick 2018, in 3-D as
// Allegretti et al. 2020), with min-linking so that a region's root is its first voxel in raster
// order (z, then y, then x); numbering the roots in index order is then cc3d's numbering.
//   Local    a block a tile of tile_x × tile_y × tile_z voxels, per_thread a thread (voxels tid,
//            tid + threads, ...; raster order in the tile): keys into shared memory, each voxel
//            joins its earlier same-valued neighbours inside the tile in a shared parent array
//            (atomicMin union), then writes its tile root's global index. Background voxels get
//            kVolumeBackground. Most joins never touch global memory.
//   Border   the same tiles, a block a tile and step (the voxels tid + step·threads): a voxel on a
//            face of its tile joins its earlier neighbours in other tiles, by atomicMin union with
//            retry on the global parents. Interior voxels return before reading anything.
//   Flatten  a thread a voxel: its root, stored; a warp's vote of "is a root" is one word of root
//            bits, and its popcount goes to the per-word counts, which CUB scans (exclusive).
//   Number   a thread a voxel: its root's number is the roots before the root's word plus the
//            root bits below it in that word, plus one. Reads only the bits and counts, so it
//            overwrites the labels with no order between threads.
// Local and Border join a voxel only to the earlier neighbours that its joins so far leave
// uncovered (VolumeSwitches::cover; cover_mask): a joined neighbour covers the earlier neighbours
// adjacent to it. Both phases take the same decisions for the neighbours in the tile, so Border
// knows which of its own are covered without any record from Local.
//
// What joins is the policy M of kernels/close_values.cuh: equal keys (EqualKeys, exact labelling),
// or with a tolerance keys or typed values close to each other (CloseKeys, CloseValues). Closeness
// is not transitive, so with a tolerance the shortcuts that rest on "a neighbour with my value
// has my neighbours' joins" are off, each for its reason:
//   cover / prelink  X joined K, and J (adjacent to K) joins X: J ~ X and X ~ K do not make J ~ K,
//                    so J may not be joined to K at all. Prelink is a form of Local's cover walk
//                    (its first join), so it goes with it.
//   covered_by_left  X ~ L, and N (a neighbour of both) ~ X: L joins N only if N ~ L.
// Border's left-lane sharing stays: a voxel leaves a join to the lane before it only when that
// lane's voxel L joins it (X ~ L, joined by Local in the tile) and L's own neighbour has the same
// parent, i.e. lies in the same set; L's set, which holds X, is then joined to that set whatever
// the values are (or L left it to its own left lane, by the same argument).
#include <cstdint>
#include <utility>

#include "cclabel/detail/hd.hpp"
#include "cclabel/detail/pixel_traits.hpp"
#include "cuda/kernels/bits.cuh"
#include "cuda/kernels/close_values.cuh"

namespace cclabel::cuda::detail::vol {

/// A background voxel's parent: never an index (a volume has at most 2^32 - 1 voxels).
inline constexpr std::uint32_t kVolumeBackground = 0xFFFFFFFFu;

/// Everything a program needs; plain values, copied to the device as a kernel argument.
struct VolParams {
    const std::uint8_t* data = nullptr;  ///< keys (an untyped format): voxel (x, y, z) at z·slice + y·row + x·bpp
    std::int64_t row_stride = 0, slice_stride = 0;
    std::uint32_t width = 0, height = 0, depth = 0;
    std::uint64_t voxels = 0;
    std::uint32_t* labels = nullptr;  ///< parents, then labels
    std::uint32_t* mask = nullptr;    ///< root bits, a word a 32 voxels
    std::uint32_t* prefix = nullptr;  ///< roots a word; scanned in place (exclusive) before Number
    std::uint32_t tile_x = 32, tile_y = 4, tile_z = 4;
    std::uint32_t tile_threads = 512, tile_voxels = 512;  ///< a thread takes voxels tid + j·tile_threads
    std::uint32_t tiles_x = 0, tiles_y = 0;
    // Divisions by the launch's sizes, by multiplication (bits.cuh): a hardware-less division is
    // about twenty instructions, and a tile's thread decodes its place with five.
    FastDiv fd_tile_x, fd_tile_xy, fd_tiles_x, fd_tiles_xy;
    std::uint32_t background_key = 0;
    bool has_background = false;
    bool prelink = true;  ///< VolumeSwitches::prelink (volume_plan.hpp); Local with cover only
    // Tolerance joining (CloseKeys, CloseValues of kernels/close_values.cuh); unused when exact.
    std::uint32_t tolerance = 0;       ///< Options::tolerance: untyped formats, per channel
    double tolerance_value = 0;        ///< typed formats: in the format's values
    std::uint64_t background_bits = 0; ///< typed formats: the background's canonical bits
};

/// Conn = kDropOffset + k is 26-connectivity without earlier offset k: the emulator's mutation
/// test shows that dropping any one offset changes some labels. Never launched on the GPU.
inline constexpr int kDropOffset = 1000;

/// Earlier neighbour @p k (0..12) under connectivity @p Conn, as (dx, dy, dz): the nine of the
/// slice before (k = 0..8), the three of the row before (9..11), the voxel before (12). False
/// when the connectivity leaves it out: 18 drops the corners (three coordinates nonzero), 6 keeps
/// the faces (one nonzero). The programs loop over k (a loop, not a lambda a neighbour: thirteen
/// inlined unions spilled registers).
///
///   slice z-1      slice z
///   0 1 2          9 10 11     (y - 1)
///   3 4 5         12  X        (y)
///   6 7 8                      (y + 1)
template <int Conn>
CCL_HD constexpr bool earlier(int k, int& dx, int& dy, int& dz) {
    dz = k < 9 ? -1 : 0;
    dy = k < 9 ? k / 3 - 1 : (k < 12 ? -1 : 0);
    dx = k < 9 ? k % 3 - 1 : (k < 12 ? k - 10 : -1);
    const int nonzero = (dx != 0) + (dy != 0) + (dz != 0);
    return !((Conn == 6 && nonzero > 1) || (Conn == 18 && nonzero > 2) || Conn == kDropOffset + k);
}

/// Whether earlier neighbour @p k of a voxel X is also an earlier neighbour of X's left voxel L
/// (its offset from L, (dx + 1, dy, dz), is in L's neighbourhood): when L has X's value, X and L
/// are joined (offset 12) and L (or, down the row, the first voxel that does not cover it) joins
/// that neighbour, so X need not. Under 26 this leaves X the four offsets of column x + 1 and its
/// left; under 18 five in all; under 6 nothing is covered.
template <int Conn>
CCL_HD bool covered_by_left(int k) {
    int dx, dy, dz;
    earlier<Conn>(k, dx, dy, dz);
    const int most = Conn == 6 ? 1 : Conn == 18 ? 2 : 3;
    return k != 12 && dx + 1 <= 1 && (dx + 1 != 0) + (dy != 0) + (dz != 0) <= most;
}

/// The order in which VolumeSwitches::cover tries a voxel's earlier neighbours: those adjacent to
/// most of the others first, so that the first join covers most. Under 26 the voxel below (4) is
/// adjacent to all twelve others, the one above (10) to nine and the left one (12) to eight; the
/// face neighbours of the slice before and the row above come next, the corners last.
CCL_HD constexpr int cover_order(int i) {
    return i == 0 ? 4 : i == 1 ? 10 : i == 2 ? 12 : i < 9 ? 2 * (i - 3) + 1 : 2 * (i - 9) + (i >= 11 ? 2 : 0);
}

/// The earlier neighbours (bit j for offset j) adjacent to earlier neighbour @p K under @p Conn:
/// when a voxel X has joined K, each of these that has X's value is joined to K (an earlier pair,
/// whose later voxel joined the other or one that covers it), hence to X. A host constexpr,
/// evaluated at compile time only (kCover): the device reads the constants.
template <int Conn>
constexpr std::uint32_t adjacent_earlier(int K) {
    int kx = 0, ky = 0, kz = 0, jx = 0, jy = 0, jz = 0;
    if (!earlier<Conn>(K, kx, ky, kz)) return 0;
    const int most = Conn == 6 ? 1 : Conn == 18 ? 2 : 3;
    std::uint32_t m = 0;
    for (int j = 0; j < 13; ++j) {
        if (j == K || !earlier<Conn>(j, jx, jy, jz)) continue;
        const int ax = jx - kx, ay = jy - ky, az = jz - kz;
        if (ax >= -1 && ax <= 1 && ay >= -1 && ay <= 1 && az >= -1 && az <= 1 &&
            (ax != 0) + (ay != 0) + (az != 0) <= most)
            m |= 1u << j;
    }
    return m;
}

template <int Conn, int K>
inline constexpr std::uint32_t kCover = adjacent_earlier<Conn>(K) | 1u << K;

/// kCover<Conn, k>: neighbour @p k and those it covers. @p k is a constant in the unrolled loops,
/// so the fold below leaves one constant.
template <int Conn, int... K>
CCL_HD std::uint32_t cover_mask(int k, std::integer_sequence<int, K...>) {
    std::uint32_t m = 0;
    ((m = k == K ? kCover<Conn, K> : m), ...);
    return m;
}

template <int Conn>
CCL_HD std::uint32_t cover_mask(int k) {
    return cover_mask<Conn>(k, std::make_integer_sequence<int, 13>{});
}

/// The value of voxel (x, y, z) as policy @p M compares it (EqualKeys: the key).
template <PixelFormat F, class M = EqualKeys<F>>
CCL_HD typename M::Value key_at(const VolParams& g, std::uint32_t x, std::uint32_t y, std::uint32_t z) {
    return M::load(g.data + std::int64_t(z) * g.slice_stride + std::int64_t(y) * g.row_stride +
                   std::int64_t(x) * bytes_per_pixel(F));
}

CCL_HD std::uint32_t index_of(const VolParams& g, std::uint32_t x, std::uint32_t y, std::uint32_t z) {
    return std::uint32_t((std::uint64_t(z) * g.height + y) * g.width + x);  // < 2^32 by validation
}

/// Where a thread of a tile sits: local index = thread id, raster order inside the tile, so the
/// minimum local index of a set is also its minimum global index.
struct TileVoxel {
    std::uint32_t x = 0, y = 0, z = 0;     ///< the voxel
    std::uint32_t lx = 0, ly = 0, lz = 0;  ///< within the tile
    bool inside = false;
};

/// The first voxel of tile @p tile (< 2^31 by the plan): a thread of Local finds it once for its
/// per_thread voxels (two FastDivs fewer a voxel).
struct TileCorner {
    std::uint32_t x = 0, y = 0, z = 0;  ///< inside the volume: < 2^32
};

CCL_HD TileCorner tile_corner(const VolParams& g, std::uint64_t tile) {
    const std::uint32_t t32 = std::uint32_t(tile);
    const std::uint32_t tz = g.fd_tiles_xy.div(t32), rest = t32 - tz * g.fd_tiles_xy.d;
    const std::uint32_t ty = g.fd_tiles_x.div(rest), tx = rest - ty * g.tiles_x;
    return {tx * g.tile_x, ty * g.tile_y, tz * g.tile_z};
}

CCL_HD TileVoxel tile_voxel(const VolParams& g, const TileCorner& c, std::uint32_t tid) {
    TileVoxel t;
    t.lz = g.fd_tile_xy.div(tid);
    const std::uint32_t in_slice = tid - t.lz * g.fd_tile_xy.d;
    t.ly = g.fd_tile_x.div(in_slice);
    t.lx = in_slice - t.ly * g.tile_x;
    const std::uint64_t x = std::uint64_t(c.x) + t.lx, y = std::uint64_t(c.y) + t.ly, z = std::uint64_t(c.z) + t.lz;
    t.inside = x < g.width && y < g.height && z < g.depth;
    t.x = std::uint32_t(x), t.y = std::uint32_t(y), t.z = std::uint32_t(z);
    return t;
}

/// Whether the earlier neighbour (x + dx, y + dy, z + dz) of @p t is inside the volume (dz ≤ 0 and
/// the voxel itself is inside, so only the far sides can be crossed, and the near ones at 0).
CCL_HD bool neighbour_inside(const VolParams& g, const TileVoxel& t, int dx, int dy, int dz) {
    return !(dz < 0 && t.z == 0) && !(dy < 0 && t.y == 0) && !(dy > 0 && t.y + 1 >= g.height) &&
           !(dx < 0 && t.x == 0) && !(dx > 0 && t.x + 1 >= g.width);
}

CCL_HD bool neighbour_in_tile(const VolParams& g, const TileVoxel& t, int dx, int dy, int dz) {
    return !(dz < 0 && t.lz == 0) && !(dy < 0 && t.ly == 0) && !(dy > 0 && t.ly + 1 >= g.tile_y) &&
           !(dx < 0 && t.lx == 0) && !(dx > 0 && t.lx + 1 >= g.tile_x);
}

/// Root of tile-local voxel @p p in the block's shared parents, halving the path with atomicMin
/// (a plain store could undo a lower parent another thread just wrote).
template <class Ops>
CCL_HD std::uint32_t find_shared(Ops& ops, const VolParams& g, std::uint32_t p) {
    for (std::uint64_t it = 0;; ++it) {
        ops.bound(it, g.tile_voxels + 1, "volume find_shared");
        const std::uint32_t q = ops.sh_ld(p);
        if (q == p) return p;
        const std::uint32_t r = ops.sh_ld(q);
        if (r != q) ops.sh_amin(p, r);
        p = r;
    }
}

/// Root of voxel @p p in the global parents. With @p Halve (Border) the path is halved by
/// atomicMin: a region that spans thousands of tiles (dense noise, blobs) would otherwise leave
/// chains of tile roots that every later find walks. Flatten only reads: there every voxel of a
/// tile walks through its tile root, and halving would be hundreds of atomics on one word. Reads
/// may be stale: parents only decrease and every value a voxel held is an ancestor, and unite's
/// atomicMin sees the real value.
template <bool Halve, class Ops>
CCL_HD std::uint32_t find_global(Ops& ops, const VolParams& g, std::uint32_t p) {
    for (std::uint64_t it = 0;; ++it) {
        ops.bound(it, g.voxels + 1, "volume find_global");
        const std::uint32_t q = ops.ld_weak(&g.labels[p]);
        if (q == p) return p;
        if constexpr (Halve) {
            const std::uint32_t r = ops.ld_weak(&g.labels[q]);
            if (r != q) ops.amin(&g.labels[p], r);
            p = r;
        } else {
            p = q;
        }
    }
}

/// Joins the sets of @p a and @p b: the larger root is hung under the smaller by atomicMin; when
/// that root had meanwhile got a parent, retry from it (Playne & Hawick). Shared (tile-local
/// indices) or global parents. Returns the smaller root: an ancestor of both, so a voxel's next
/// join may start there instead of walking from itself again.
template <bool Shared, class Ops>
CCL_HD std::uint32_t unite_voxels(Ops& ops, const VolParams& g, std::uint32_t a, std::uint32_t b) {
    for (std::uint64_t it = 0;; ++it) {
        ops.bound(it, 2 * g.voxels + 2, "volume unite");
        if constexpr (Shared) {
            a = find_shared(ops, g, a);
            b = find_shared(ops, g, b);
        } else {
            a = find_global<true>(ops, g, a);
            b = find_global<true>(ops, g, b);
        }
        if (a == b) return a;
        if (a > b) {
            const std::uint32_t t = a;
            a = b;
            b = t;
        }
        const std::uint32_t old = Shared ? ops.sh_amin(b, a) : ops.amin(&g.labels[b], a);
        if (old == b) return a;
        b = old;
    }
}

/// Walks the earlier neighbours of voxel @p t inside its tile and the volume: same(dx, dy, dz)
/// tells whether one has t's value, join(dx, dy, dz) is called on those that do and are not
/// covered (bit k for offset k), and the covered ones are returned. With @p Cover (VolumeSwitches::cover) a
/// neighbour joined covers those adjacent to it and the walk goes in cover_order; without, a
/// voxel whose left neighbour has its value (@p left_same) skips what that one covers. Local joins
/// through it, Border takes Local's decisions again through it, to skip what they cover.
template <int Conn, bool Cover, class Same, class Join>
CCL_HD std::uint32_t tile_joins(const VolParams& g, const TileVoxel& t, bool left_same, Same same, Join join) {
    std::uint32_t covered = 0;
    // Unrolled: each offset and its connectivity tests are constants, which leaves a few compares
    // a neighbour (a warp with one foreground lane pays for the whole loop).
    CCL_UNROLL
    for (int i = 0; i < 13; ++i) {
        const int k = Cover ? cover_order(i) : i;
        int dx, dy, dz;
        if (!earlier<Conn>(k, dx, dy, dz) || (Cover ? (covered >> k & 1u) != 0 : left_same && covered_by_left<Conn>(k)) ||
            !neighbour_in_tile(g, t, dx, dy, dz) || !neighbour_inside(g, t, dx, dy, dz) || !same(dx, dy, dz))
            continue;
        join(dx, dy, dz);
        if constexpr (Cover) covered |= cover_mask<Conn>(k);
    }
    return covered;
}

/// Local: every thread of the tile's block calls it (two barriers; three with prelink). A thread takes the tile's
/// voxels tid, tid + tile_threads, ... (VolumeShape::per_thread), in each step. @p Cover:
/// VolumeSwitches::cover (volume_plan.hpp), a template parameter so that each kernel is built for
/// its own registers. @p M: what joins (kernels/close_values.cuh); values that fit a word are kept
/// in shared memory, 64-bit ones read from the volume (L1) where needed.
template <PixelFormat F, int Conn, bool Cover, class M = EqualKeys<F>, class Ops>
CCL_HD void volume_local_program(Ops& ops, const VolParams& g, std::uint32_t tid, std::uint64_t tile) {
    static_assert(M::kTransitive || !Cover, "cover and prelink need joining to be an equivalence of values");
    using Value = typename M::Value;
    auto foreground = [&](const TileVoxel& t, Value key) { return t.inside && !M::background(g, key); };
    const bool prelink = Cover && g.prelink;
    const TileCorner corner = tile_corner(g, tile);
    for (std::uint32_t v = tid; v < g.tile_voxels; v += g.tile_threads) {
        const TileVoxel t = tile_voxel(g, corner, v);
        if constexpr (M::kShared) ops.key_st(v, t.inside ? M::word(key_at<F, M>(g, t.x, t.y, t.z)) : 0u);
        if (!prelink) ops.sh_st(v, v);  // background too: no join ever reaches it
    }
    ops.sync();
    auto at = [&](std::uint32_t v, int dx, int dy, int dz) {
        return std::uint32_t(std::int64_t(v) + dx + std::int64_t(dy) * g.tile_x + std::int64_t(dz) * g.tile_x * g.tile_y);
    };
    // The value of tile voxel @p v (inside the volume), from shared memory or the volume.
    auto value = [&](std::uint32_t v) -> Value {
        if constexpr (M::kShared) {
            return M::from_word(ops.key_ld(v));
        } else {
            const TileVoxel u = tile_voxel(g, corner, v);
            return u.inside ? key_at<F, M>(g, u.x, u.y, u.z) : Value{};
        }
    };
    if (prelink) {
        // Each voxel's parent is its first join's neighbour (or itself), a plain store: no other
        // thread writes the word before the barrier. Under 26 that join covers all the others
        // whenever the voxel below has the voxel's value, so about half the voxels of dense noise
        // and most of a solid region make no atomic union at all.
        for (std::uint32_t v = tid; v < g.tile_voxels; v += g.tile_threads) {
            const TileVoxel t = tile_voxel(g, corner, v);
            const Value key = value(v);
            std::uint32_t parent = v;
            if (foreground(t, key)) {
                auto same = [&](int dx, int dy, int dz) { return parent == v && M::joins(g, key, value(at(v, dx, dy, dz))); };
                tile_joins<Conn, Cover>(g, t, false, same, [&](int dx, int dy, int dz) { parent = at(v, dx, dy, dz); });
            }
            ops.sh_st(v, parent);
        }
        ops.sync();
    }
    for (std::uint32_t v = tid; v < g.tile_voxels; v += g.tile_threads) {
        const TileVoxel t = tile_voxel(g, corner, v);
        const Value key = value(v);
        if (!foreground(t, key)) continue;
        std::uint32_t self = v;  // v or an ancestor of it: where the next join starts
        bool linked = prelink;  // the walk's first join is the parent stored above
        auto same = [&](int dx, int dy, int dz) { return M::joins(g, key, value(at(v, dx, dy, dz))); };
        auto join = [&](int dx, int dy, int dz) {
            if (linked)
                linked = false;
            else
                self = unite_voxels<true>(ops, g, self, at(v, dx, dy, dz));
        };
        // covered_by_left (without cover): only where joining is an equivalence of values.
        tile_joins<Conn, Cover>(g, t, !Cover && M::kTransitive && t.lx > 0 && M::joins(g, key, value(v - 1)), same, join);
    }
    ops.sync();
    for (std::uint32_t v = tid; v < g.tile_voxels; v += g.tile_threads) {
        const TileVoxel t = tile_voxel(g, corner, v);
        if (!t.inside) continue;
        std::uint32_t label = kVolumeBackground;
        if (foreground(t, value(v))) {
            const std::uint32_t r = find_shared(ops, g, v);
            const std::uint32_t rz = g.fd_tile_xy.div(r), r_in_slice = r - rz * g.fd_tile_xy.d;
            const std::uint32_t ry = g.fd_tile_x.div(r_in_slice), rx = r_in_slice - ry * g.tile_x;
            label = index_of(g, t.x - t.lx + rx, t.y - t.ly + ry, t.z - t.lz + rz);
        }
        ops.st(&g.labels[index_of(g, t.x, t.y, t.z)], label);
    }
}

/// Border for voxel @p v of the tile: a voxel with earlier neighbours in other tiles joins those of
/// its value. Every lane of @p mask calls it (the warp's votes and shuffles): a voxel whose left
/// neighbour is the lane before it, joined to it and wanting to join the same parent, leaves that
/// join to it, so a run along x makes one global join a neighbouring tile set instead of one a voxel. With @p Cover the
/// neighbours that Local's joins cover are skipped (Local's walk again, on the keys in global
/// memory), and each neighbour of another tile with the voxel's value covers more.
template <PixelFormat F, int Conn, bool Cover, class M = EqualKeys<F>, class Ops>
CCL_HD void border_voxel(Ops& ops, const VolParams& g, std::uint64_t tile, std::uint32_t v, std::uint32_t lane,
                         std::uint32_t mask) {
    static_assert(M::kTransitive || !Cover, "cover needs joining to be an equivalence of values");
    const TileVoxel t = tile_voxel(g, tile_corner(g, tile), v);
    // Earlier neighbours leave the tile only through its first slice, its first and last rows and
    // its first and last columns (dz is never +1; dy = +1 only with dz = -1, so not under 6).
    const bool shell = t.lz == 0 || t.ly == 0 || t.lx == 0 || (Conn != 6 && (t.ly + 1 == g.tile_y || t.lx + 1 == g.tile_x));
    bool active = t.inside && shell;
    typename M::Value key{};
    if (active) {
        key = key_at<F, M>(g, t.x, t.y, t.z);
        active = !M::background(g, key);
    }
    if ((ops.ballot(mask, active) & mask) == 0) return;  // the whole warp: nothing to join
    const std::uint32_t i = active ? index_of(g, t.x, t.y, t.z) : 0u;
    auto same = [&](int dx, int dy, int dz) {
        return M::joins(g, key,
                        key_at<F, M>(g, std::uint32_t(std::int64_t(t.x) + dx), std::uint32_t(std::int64_t(t.y) + dy),
                                     std::uint32_t(std::int64_t(t.z) + dz)));
    };
    std::uint32_t covered = 0;
    if constexpr (Cover) {
        if (active) covered = tile_joins<Conn, true>(g, t, false, same, [](int, int, int) {});
        // A warp whose voxels' neighbours in other tiles are all covered stops here, before the
        // loads and shuffles below: under 26 the voxel below covers every other neighbour, so in
        // solid regions most of the shell below the tile's first slice has nothing left to join.
        std::uint32_t open = 0;  // the neighbours in other tiles, inside the volume
        CCL_UNROLL
        for (int k = 0; k < 13; ++k) {
            int dx, dy, dz;
            if (earlier<Conn>(k, dx, dy, dz) && !neighbour_in_tile(g, t, dx, dy, dz) && neighbour_inside(g, t, dx, dy, dz))
                open |= 1u << k;
        }
        if ((ops.ballot(mask, active && (open & ~covered) != 0) & mask) == 0) return;
    }
    // X joins its left voxel L. Only for an equivalence does that let X skip what L covers; the
    // lane sharing below needs only the join (see the file's head).
    const bool left_joins = active && t.x > 0 && M::joins(g, key, key_at<F, M>(g, t.x - 1, t.y, t.z));
    const bool left_same = M::kTransitive && left_joins;
    const bool left_lane = left_joins && lane > 0 && t.lx > 0;  // lane - 1 holds the left voxel
    std::uint32_t last = kVolumeBackground;  // the parent of the last neighbour joined
    // An ancestor of i where its next join starts: first its tile root (no atomic on i's own word).
    std::uint32_t self = active ? ops.ld_weak(&g.labels[i]) : 0u;
    CCL_UNROLL
    for (int j = 0; j < 13; ++j) {
        const int k = Cover ? cover_order(j) : j;
        int dx, dy, dz;
        if (!earlier<Conn>(k, dx, dy, dz)) continue;  // the same for the whole warp
        std::uint32_t parent = kVolumeBackground;
        if (active && !(Cover ? (covered >> k & 1u) != 0 : left_same && covered_by_left<Conn>(k)) &&
            !neighbour_in_tile(g, t, dx, dy, dz) && neighbour_inside(g, t, dx, dy, dz)) {
            const std::uint32_t nx = std::uint32_t(std::int64_t(t.x) + dx),
                                ny = std::uint32_t(std::int64_t(t.y) + dy),
                                nz = std::uint32_t(std::int64_t(t.z) + dz);
            if (M::joins(g, key, key_at<F, M>(g, nx, ny, nz))) {
                parent = ops.ld_weak(&g.labels[index_of(g, nx, ny, nz)]);
                // Covered even when the join below is left to the left voxel or was made already:
                // either way this voxel ends up joined to the neighbour.
                if constexpr (Cover) covered |= cover_mask<Conn>(k);
            }
        }
        const std::uint32_t left_parent = ops.shfl(mask, parent, lane > 0 ? lane - 1 : 0u);
        // Neighbours of one tile set mostly share a parent: one join for them all, here and left.
        if (parent == kVolumeBackground || parent == last || (left_lane && left_parent == parent)) continue;
        self = unite_voxels<false>(ops, g, self, parent);
        last = parent;
    }
}

/// Border: step @p step (< per_thread) of tile @p tile, voxel tid + step·tile_threads
/// (VolumeShape::per_thread). Border needs no barrier and no shared memory, so a tile's steps are
/// blocks of their own (the grid's y) rather than a loop, which needed more registers (it spilled
/// at three blocks a multiprocessor). The lanes of a warp take consecutive voxels, so the lane
/// before a voxel holds its left neighbour.
template <PixelFormat F, int Conn, bool Cover, class M = EqualKeys<F>, class Ops>
CCL_HD void volume_border_program(Ops& ops, const VolParams& g, std::uint32_t tid, std::uint64_t tile, std::uint32_t step) {
    const std::uint32_t lane = tid % 32u, threads = g.tile_threads;
    const std::uint32_t mask = mask_below(threads - (tid - lane) < 32u ? threads - (tid - lane) : 32u);
    border_voxel<F, Conn, Cover, M>(ops, g, tile, tid + step * threads, lane, mask);
}

/// Flatten: called by every thread of whole warps (the word of root bits is their vote).
template <class Ops>
CCL_HD void volume_flatten_program(Ops& ops, const VolParams& g, std::uint64_t i64, std::uint32_t lane) {
    const bool inside = i64 < g.voxels;
    const std::uint32_t i = std::uint32_t(i64);
    const std::uint32_t p = inside ? ops.ld(&g.labels[i]) : kVolumeBackground;
    if (p != kVolumeBackground && p != i) {
        const std::uint32_t r = find_global<false>(ops, g, p);
        if (r != p) ops.st(&g.labels[i], r);
    }
    const std::uint32_t bits = ops.ballot(0xFFFFFFFFu, inside && p == i);
    if (lane == 0 && inside) {  // lane 0 of a warp with a voxel: its word exists
        ops.st(&g.mask[i64 / 32], bits);
        ops.st(&g.prefix[i64 / 32], popc32(bits));
    }
}

/// Number: a voxel's label from its root's place among the root bits.
template <class Ops>
CCL_HD void volume_number_program(Ops& ops, const VolParams& g, std::uint64_t i64) {
    if (i64 >= g.voxels) return;
    const std::uint32_t r = ops.ld(&g.labels[i64]);
    std::uint32_t label = 0;
    if (r != kVolumeBackground) {
        const std::uint32_t w = r >> 5;
        label = ops.ld(&g.prefix[w]) + popc32(ops.ld(&g.mask[w]) & mask_below(r & 31u)) + 1u;
    }
    ops.st(&g.labels[i64], label);
}

}  // namespace cclabel::cuda::detail::vol
