#pragma once
// The run-based volume path (VolumeSwitches::runs): union-find over runs along x instead of over
// voxels, the picture labeller's segment pipeline (kernels/segments.cuh) taken to 6, 18 and 26
// neighbours. Written once for the kernels of src/cuda/volume_cuda.cu and the CPU executor of
// tests/emu, through the same Ops as kernels/volume_bodies.cuh.
//
// Why. Local + Border (volume_bodies.cuh) spend 84-96 % of a 512³ call on per-voxel work: every
// voxel compares itself with up to 13 neighbours one key at a time and makes its joins in shared
// or global memory, and the faces of every tile go through global atomics again. A volume's voxels
// come in runs along x (a run a voxel or two in dense noise, tens to hundreds in blobs, Voronoi
// cells and solid regions), and every earlier neighbour of a voxel lies in one of at most five
// rows: its own (the voxel before) and four earlier rows, (y-1, z), (y, z-1), (y-1, z-1) and
// (y+1, z-1). So a thread takes a 32-voxel segment of a row and compares it with each of those rows
// once, as whole words: a bit mask a neighbour row says which voxels match it at dx = -1, 0 and +1,
// and one join is made a maximal stretch of matches a run (consecutive equal voxels of the other
// row are one run there, hence one set). Union-find then works on nodes (a run's first voxel in a
// segment) only: in dense 26-connected noise about one join a run and row instead of up to twelve
// voxel joins through shared and global memory, in smooth volumes a few joins a 32 voxels.
//
//   Start    a thread a strip (below): each segment's node mask S (first voxel of each run of
//            equal keys, background excepted, and the segment's first voxel) and background mask
//            BG; each node's parent word is set to itself. Nothing else is written.
//   Connect  each segment joins its nodes with the nodes of the earlier rows, one atomicMin union
//            a stretch (the masks below), and its first node with the last node of the segment
//            before (when the run goes on across the seam and no earlier row joins both already).
//            Min-linking: a region's root is its first voxel in raster order (z, y, x).
//   Flatten  every node points at its root; a segment's roots as a bit mask and their count.
//   (CUB)    exclusive sum of the counts: the roots before each segment.
//   Number   a root's number is the roots before its segment + the root bits before it + 1; each
//            segment writes its 32 labels once (background 0). Numbers equal the voxel path's.
//
// The joins of segment voxel k (nonbackground) with row R, from three masks over the segment:
//   M0 = a[k] == c[k], Mm = a[k-1] == c[k], Mp = a[k+1] == c[k]   (a: R's keys, c: this row's)
// where R allows dx = ±1 (delta: the row (y-1, z) and (y, z-1) under 18 and 26, every row under
// 26), the neighbour voxels of R a run [k0, k1] touches are j in [k0-1, k1+1] with a[j] equal to
// the run's value; one join a maximal stretch of such j, made by the run's voxel nearest to it:
//   Z0 = M0 & ~((E & M0 << 1) | (RS & Mm))   (j = k, unless j-1 is in the stretch)
//   Zm = RS & Mm                              (j = k0 - 1, at the run's start)
//   Zp = RE & Mp & ~M0                        (j = k1 + 1, unless k1 matched)
// (E: same run as k-1; RS, RE: run starts and ends, a segment's first and last voxel included).
// Without dx (6, and the corner-free rows (y±1, z-1) under 18) only Z0 = M0 & ~(E & M0 << 1).
// A run cut by a segment seam is two nodes, joined by the seam join; a stretch cut by a seam of R
// is two nodes of R, joined by R's seam join. The seam join is left out when some earlier row
// joins both sides of the seam already (Mm bit 0 in a row with dx, or Mm and M0 bit 0 without):
// the voxel before the seam reaches the same run of that row with dx = 0.
//
// Strips. A thread takes `strip` segments down z, (x, y) fixed, in raster order, as segments.cuh's
// for_strip takes a column of rows: its joins with (y, z-1) then meet a node it has just hung
// under its root, so the trees stay short, and the row it read last is in L1. The lanes of a warp
// are consecutive segments of a slice (rows along x), so their loads of each row are contiguous.
//
// Extra memory: four words a segment (S, BG, root bits, root counts; the last two are the voxel
// path's root words and counts, a word a segment here), 0.5 bytes a voxel.
#include <cstdint>

#include "cclabel/detail/hd.hpp"
#include "cclabel/detail/pixel_traits.hpp"
#include "cuda/kernels/bits.cuh"
#include "cuda/kernels/segments.cuh"

namespace cclabel::cuda::detail::vruns {

/// Voxels a segment: a bit a voxel in one word.
inline constexpr std::uint32_t kSeg = 32;
/// No node (never a voxel index: a volume has at most 2^32 - 1 voxels).
inline constexpr std::uint32_t kNoNode = 0xFFFFFFFFu;

/// Conn = kMutate + m: the emulator's mutation tests' wrong programs (26-connectivity with one
/// piece of the joins left out, or 18 with too much). Never launched on the GPU.
inline constexpr int kMutate = 2000;
enum Mutation : int {
    kDropRow0 = 0,   ///< without the row (y-1, z)
    kDropRow1 = 1,   ///< without the row (y, z-1)
    kDropRow2 = 2,   ///< without the row (y-1, z-1)
    kDropRow3 = 3,   ///< without the row (y+1, z-1)
    kDropMm = 4,     ///< without the dx = -1 joins (Zm)
    kDropMp = 5,     ///< without the dx = +1 joins (Zp)
    kDropSeam = 6,   ///< without the seam join
    kDeltaAll18 = 7  ///< 18 with dx = ±1 in the corner rows (y±1, z-1) too: joins through corners
};

/// Everything a program needs; plain values, copied to the device as a kernel argument.
struct RunParams {
    const std::uint8_t* data = nullptr;  ///< keys (an untyped format): voxel (x, y, z) at z·slice + y·row + x·bpp
    std::int64_t row_stride = 0, slice_stride = 0;
    std::uint32_t width = 0, height = 0, depth = 0;
    std::uint64_t voxels = 0;
    std::uint32_t* labels = nullptr;  ///< parents of nodes, then labels
    std::uint32_t* seg_s = nullptr;   ///< node mask a segment
    std::uint32_t* seg_bg = nullptr;  ///< background mask a segment
    std::uint32_t* roots = nullptr;   ///< root bits a segment (Flatten)
    std::uint32_t* counts = nullptr;  ///< roots a segment; scanned in place (exclusive) before Number
    std::uint32_t segs_x = 0;         ///< segments a row
    std::uint32_t segs_xy = 0;        ///< segments a slice (segs_x · height)
    std::uint32_t strip = 8;          ///< segments a thread, down z
    std::uint64_t strips = 0;         ///< threads: segs_xy · ceil(depth / strip)
    FastDiv fd_width, fd_segs_x, fd_segs_xy;
    std::uint32_t background_key = 0;
    bool has_background = false;
};

/// Where segment (sx, y, z) lies: its first voxel and its index, its voxel count.
struct SegAt {
    std::uint32_t x0 = 0, y = 0, z = 0, n = 0;
    std::uint32_t s = 0;      ///< segment index: (z · height + y) · segs_x + sx (raster order)
    std::uint32_t first = 0;  ///< voxel index of (x0, y, z)
};

/// Calls fn(seg) for the segments of thread @p t64's strip, in raster order (z up).
template <class Fn>
CCL_HD void for_strip(const RunParams& g, std::uint64_t t64, Fn&& fn) {
    if (t64 >= g.strips) return;
    const std::uint32_t t = std::uint32_t(t64);  // strips ≤ segments < 2^32
    const std::uint32_t zs = g.fd_segs_xy.div(t), c = t - zs * g.segs_xy;
    const std::uint32_t y = g.fd_segs_x.div(c), sx = c - y * g.segs_x;
    const std::uint64_t z0 = std::uint64_t(zs) * g.strip;
    SegAt p;
    p.x0 = sx * kSeg;
    p.y = y;
    p.n = g.width - p.x0 < kSeg ? g.width - p.x0 : kSeg;
    for (std::uint32_t r = 0; r < g.strip && z0 + r < g.depth; ++r) {
        p.z = std::uint32_t(z0 + r);
        p.s = std::uint32_t(std::uint64_t(p.z) * g.segs_xy + c);
        p.first = std::uint32_t((std::uint64_t(p.z) * g.height + y) * g.width + p.x0);  // < 2^32 by validation
        fn(p);
    }
}

template <PixelFormat F>
CCL_HD const std::uint8_t* row_at(const RunParams& g, std::uint32_t y, std::uint32_t z) {
    return g.data + std::int64_t(z) * g.slice_stride + std::int64_t(y) * g.row_stride;
}

template <PixelFormat F>
CCL_HD std::uint32_t key_in_row(const std::uint8_t* row, std::uint32_t x) {
    return cclabel::detail::PixelTraits<F>::key(row + std::int64_t(x) * cclabel::detail::PixelTraits<F>::kBytes);
}

/// Whether format @p F's keys are single bytes (Binary8, Gray8): a segment's are then held four to
/// a word and compared four at a time (SWAR), 8 registers a row instead of 32.
template <PixelFormat F>
inline constexpr bool kByteKeys = cclabel::detail::PixelTraits<F>::kBytes == 1;

/// Bit b of the result: byte b of @p x equals byte b of @p y (b = 0..3). Plain integer arithmetic,
/// the same on host and device: a byte of x ^ y is zero exactly when (t & 0x7F) + 0x7F leaves its
/// top bit clear and t's own top bit is clear (no carry leaves a byte), and the multiply gathers
/// the four top bits into bits 28..31 without carries (the other partial products land below).
CCL_HD std::uint32_t byte_eq_bits(std::uint32_t x, std::uint32_t y) {
    const std::uint32_t t = x ^ y;
    const std::uint32_t z = ~(((t & 0x7F7F7F7Fu) + 0x7F7F7F7Fu) | t) & 0x80808080u;
    return (z * 0x00204081u) >> 28;
}

/// Binary8's raw bytes as keys: each nonzero byte 1.
CCL_HD std::uint32_t bytes_nonzero(std::uint32_t x) {
    return ((((x & 0x7F7F7F7Fu) + 0x7F7F7F7Fu) | x) >> 7) & 0x01010101u;
}

/// A segment's keys: byte k % 4 of w[k / 4] for single-byte keys, w[k] otherwise; 0 from n on.
template <PixelFormat F>
struct SegKeys {
    static constexpr std::uint32_t kWords = kByteKeys<F> ? kSeg / 4 : kSeg;
    std::uint32_t w[kWords];
    CCL_HD std::uint32_t key(std::uint32_t k) const {
        if constexpr (kByteKeys<F>)
            return (w[k / 4] >> (8 * (k % 4))) & 0xFFu;
        else
            return w[k];
    }
};

/// The keys of the @p n voxels of @p row from @p x0: a full segment on 16 bytes with 16-byte
/// loads, anything else a voxel at a time (any stride, any alignment).
template <PixelFormat F>
CCL_HD void load_keys(const std::uint8_t* row, std::uint32_t x0, std::uint32_t n, SegKeys<F>& c) {
    constexpr std::uint32_t B = std::uint32_t(cclabel::detail::PixelTraits<F>::kBytes);
    const std::uint8_t* p = row + std::int64_t(x0) * B;
    const bool whole = n == kSeg && (reinterpret_cast<std::uintptr_t>(p) & 15u) == 0;
    if constexpr (kByteKeys<F>) {
        if (whole) {
            load16(p, c.w);
            load16(p + 16, c.w + 4);
            if constexpr (F == PixelFormat::Binary8) {
                CCL_UNROLL
                for (std::uint32_t j = 0; j < SegKeys<F>::kWords; ++j) c.w[j] = bytes_nonzero(c.w[j]);
            }
            return;
        }
        CCL_UNROLL
        for (std::uint32_t j = 0; j < SegKeys<F>::kWords; ++j) {
            std::uint32_t v = 0;
            CCL_UNROLL
            for (std::uint32_t b = 0; b < 4; ++b)
                if (4 * j + b < n) v |= cclabel::detail::PixelTraits<F>::key(p + 4 * j + b) << (8 * b);
            c.w[j] = v;
        }
    } else {
        if (whole) {
            static_assert(kSeg == kMaxSeg, "a whole segment is the picture pipeline's");
            load_whole_seg_keys<F>(p, c.w);
            return;
        }
        CCL_UNROLL
        for (std::uint32_t k = 0; k < kSeg; ++k) c.w[k] = k < n ? cclabel::detail::PixelTraits<F>::key(p + k * B) : 0u;
    }
}

/// A segment's run masks (bit k: voxel k), from its keys.
struct RunMasks {
    std::uint32_t valid = 0;  ///< the segment's voxels
    std::uint32_t RS = 0;     ///< run starts (background runs too; bit 0 always)
    std::uint32_t RE = 0;     ///< run ends (bit n-1 always)
    std::uint32_t BG = 0;     ///< background voxels
    std::uint32_t S = 0;      ///< nodes: run starts that are not background
};

template <PixelFormat F>
CCL_HD RunMasks run_masks(const RunParams& g, const SegKeys<F>& c, std::uint32_t n) {
    RunMasks m;
    m.valid = mask_below(n);
    std::uint32_t E = 0;  // voxel k equals voxel k - 1 (bit 0 never)
    if constexpr (kByteKeys<F>) {
        const std::uint32_t bg = g.background_key * 0x01010101u;
        CCL_UNROLL
        for (std::uint32_t j = 0; j < SegKeys<F>::kWords; ++j) {
            const std::uint32_t before = (c.w[j] << 8) | (j > 0 ? c.w[j > 0 ? j - 1 : 0] >> 24 : 0u);
            E |= byte_eq_bits(c.w[j], before) << (4 * j);
            if (g.has_background) m.BG |= byte_eq_bits(c.w[j], bg) << (4 * j);
        }
        E &= ~1u;
    } else {
        CCL_UNROLL
        for (std::uint32_t k = 0; k < kSeg; ++k) {
            if (k > 0 && c.w[k] == c.w[k > 0 ? k - 1 : 0]) E |= 1u << k;
            if (g.has_background && c.w[k] == g.background_key) m.BG |= 1u << k;
        }
    }
    m.BG &= m.valid;
    m.RS = (~E | 1u) & m.valid;
    m.RE = ((m.RS >> 1) | (1u << (n - 1))) & m.valid;
    m.S = m.RS & ~m.BG;
    return m;
}

/// Which voxels of a segment (keys @p c, @p n voxels from @p x0) match the voxel of row @p arow
/// at dx = 0 (M0), -1 (Mm) and +1 (Mp); voxels outside the row never match (@p has_l: x0 > 0,
/// @p has_r: the row goes on after the segment, which then has 32 voxels). Not masked to the
/// foreground yet.
struct RowMatch {
    std::uint32_t M0 = 0, Mm = 0, Mp = 0;
};

template <PixelFormat F>
CCL_HD RowMatch match_row(const std::uint8_t* arow, std::uint32_t x0, std::uint32_t n, const SegKeys<F>& c, bool has_l,
                          bool has_r) {
    RowMatch r;
    const std::uint32_t al = has_l ? key_in_row<F>(arow, x0 - 1) : 0u;
    const std::uint32_t ar = has_r ? key_in_row<F>(arow, x0 + n) : 0u;
    if constexpr (kByteKeys<F>) {
        SegKeys<F> a;
        load_keys<F>(arow, x0, n, a);
        CCL_UNROLL
        for (std::uint32_t j = 0; j < SegKeys<F>::kWords; ++j) {
            const std::uint32_t before = j > 0 ? a.w[j > 0 ? j - 1 : 0] >> 24 : al;  // the byte before word j
            const std::uint32_t after = j + 1 < SegKeys<F>::kWords ? a.w[j + 1 < SegKeys<F>::kWords ? j + 1 : j] : ar;
            r.M0 |= byte_eq_bits(c.w[j], a.w[j]) << (4 * j);
            r.Mm |= byte_eq_bits(c.w[j], (a.w[j] << 8) | before) << (4 * j);
            r.Mp |= byte_eq_bits(c.w[j], (a.w[j] >> 8) | (after << 24)) << (4 * j);
        }
    } else {
        // R's voxels streamed one at a time, each compared with the three voxels of this row it
        // touches: only one key of R held at once.
        if (c.w[0] == al) r.Mm |= 1u;
        constexpr std::uint32_t B = std::uint32_t(cclabel::detail::PixelTraits<F>::kBytes);
        const std::uint8_t* p = arow + std::int64_t(x0) * B;
        CCL_UNROLL
        for (std::uint32_t j = 0; j < kSeg; ++j) {
            if (j >= n) break;
            const std::uint32_t a = cclabel::detail::PixelTraits<F>::key(p + j * B);
            if (a == c.w[j]) r.M0 |= 1u << j;
            if (j + 1 < kSeg && a == c.w[j + 1 < kSeg ? j + 1 : j]) r.Mm |= 1u << (j + 1);
            if (j > 0 && a == c.w[j > 0 ? j - 1 : 0]) r.Mp |= 1u << (j - 1);
        }
        if (c.w[kSeg - 1] == ar) r.Mp |= 1u << (kSeg - 1);  // has_r: the segment is whole
    }
    if (!has_l) r.Mm &= ~1u;
    if (!has_r) r.Mp &= ~(1u << (n - 1));
    return r;
}

/// Start of a strip: node masks, background masks, and each node its own parent.
template <PixelFormat F, class Ops>
CCL_HD void runs_start_program(Ops& ops, const RunParams& g, std::uint64_t t64) {
    for_strip(g, t64, [&](const SegAt& p) {
        SegKeys<F> c;
        load_keys<F>(row_at<F>(g, p.y, p.z), p.x0, p.n, c);
        const RunMasks m = run_masks<F>(g, c, p.n);
        for (std::uint32_t b = m.S; b; b &= b - 1) {
            const std::uint32_t i = p.first + ffs32(b) - 1;
            ops.st(&g.labels[i], i);
        }
        ops.st(&g.seg_s[p.s], m.S);
        ops.st(&g.seg_bg[p.s], m.BG);
    });
}

/// Root of node @p p, halving the path by atomicMin (a plain store could raise a parent another
/// thread just lowered). Weak loads: parents only decrease, so a stale one is still an ancestor,
/// and unite's atomicMin sees the real value of a stale "root".
template <class Ops>
CCL_HD std::uint32_t find_root(Ops& ops, const RunParams& g, std::uint32_t p) {
    for (std::uint64_t it = 0;; ++it) {
        ops.bound(it, g.voxels + 1, "runs find");
        const std::uint32_t q = ops.ld_weak(&g.labels[p]);
        if (q == p) return p;
        const std::uint32_t r = ops.ld_weak(&g.labels[q]);
        if (r != q) ops.amin(&g.labels[p], r);
        p = r;
    }
}

/// Joins the sets of nodes @p a and @p b (Playne & Hawick: the larger root hung under the smaller
/// by atomicMin, retried from the parent it had meanwhile got). Returns the smaller root.
template <class Ops>
CCL_HD std::uint32_t unite(Ops& ops, const RunParams& g, std::uint32_t a, std::uint32_t b) {
    for (std::uint64_t it = 0;; ++it) {
        ops.bound(it, 2 * g.voxels + 2, "runs unite");
        a = find_root(ops, g, a);
        b = find_root(ops, g, b);
        if (a == b) return a;
        if (a > b) {
            const std::uint32_t t = a;
            a = b;
            b = t;
        }
        const std::uint32_t old = ops.amin(&g.labels[b], a);
        if (old == b) return a;
        b = old;
    }
}

/// Earlier row @p r (0..3) as (dy, dz): (y-1, z), (y, z-1), (y-1, z-1), (y+1, z-1). Whether
/// connectivity @p Conn (or a mutation, kMutate + m over 26) uses it, and with dx = ±1 (@p delta).
template <int Conn>
CCL_HD constexpr bool earlier_row(int r, int& dy, int& dz, bool& delta) {
    dy = r == 0 || r == 2 ? -1 : r == 3 ? 1 : 0;
    dz = r == 0 ? 0 : -1;
    if constexpr (Conn == 6) {
        delta = false;
        return r < 2;
    } else if constexpr (Conn == 18) {
        delta = r < 2;
        return true;
    } else if constexpr (Conn == kMutate + kDeltaAll18) {
        delta = true;  // 18's rows, with the corners of (y±1, z-1): a wrong program
        return true;
    } else {
        delta = true;
        return !(Conn >= kMutate && Conn - kMutate == r);
    }
}

/// Connect of segment @p p: its joins with the earlier rows, then the seam join (file comment).
template <PixelFormat F, int Conn, class Ops>
CCL_HD void runs_connect_one(Ops& ops, const RunParams& g, const SegAt& p) {
    constexpr bool drop_mm = Conn == kMutate + kDropMm, drop_mp = Conn == kMutate + kDropMp;
    constexpr bool drop_seam = Conn == kMutate + kDropSeam;
    const std::uint8_t* row = row_at<F>(g, p.y, p.z);
    SegKeys<F> c;
    load_keys<F>(row, p.x0, p.n, c);
    const RunMasks m = run_masks<F>(g, c, p.n);
    if (m.S == 0) return;  // all background
    const std::uint32_t n = p.n, nonbg = m.valid & ~m.BG, E = m.valid & ~m.RS;
    const bool has_l = p.x0 > 0, has_r = p.x0 + n < g.width;
    const bool seam = has_l && (nonbg & 1u) && key_in_row<F>(row, p.x0 - 1) == c.key(0);
    bool seam_covered = false;
    auto node_here = [&](std::uint32_t k) { return p.first + highest_bit(m.S & mask_upto(k)); };
    // The last union's two nodes and the root it left them under (an ancestor of both): a node
    // of this segment joins up to four rows, and a node of R is often joined by the next run
    // too, so a union starting there walks no path already walked.
    std::uint32_t last_a = kNoNode, last_b = kNoNode, last_root = 0;
    auto join = [&](std::uint32_t a, std::uint32_t b) {
        const std::uint32_t r = unite(ops, g, a == last_a || a == last_b ? last_root : a, b == last_a || b == last_b ? last_root : b);
        last_a = a, last_b = b, last_root = r;
    };
    CCL_UNROLL
    for (int r = 0; r < 4; ++r) {
        int dy = 0, dz = 0;
        bool delta = false;
        if (!earlier_row<Conn>(r, dy, dz, delta)) continue;
        if ((dz < 0 && p.z == 0) || (dy < 0 && p.y == 0) || (dy > 0 && p.y + 1 >= g.height)) continue;
        const std::uint32_t ry = std::uint32_t(std::int64_t(p.y) + dy), rz = std::uint32_t(std::int64_t(p.z) + dz);
        const RowMatch mt = match_row<F>(row_at<F>(g, ry, rz), p.x0, n, c, has_l, has_r);
        const std::uint32_t M0 = mt.M0 & nonbg, Mm = mt.Mm & nonbg, Mp = mt.Mp & nonbg;
        if ((Mm & 1u) && (delta || (M0 & 1u))) seam_covered = true;
        std::uint32_t Z0, Zm = 0, Zp = 0;
        if (delta) {
            Z0 = M0 & ~((E & (M0 << 1)) | (m.RS & Mm));
            if (!drop_mm) Zm = m.RS & Mm;
            if (!drop_mp) Zp = m.RE & Mp & ~M0;
        } else {
            Z0 = M0 & ~(E & (M0 << 1));
        }
        if ((Z0 | Zm | Zp) == 0) continue;
        const std::uint32_t rs = std::uint32_t(std::int64_t(p.s) + std::int64_t(dz) * g.segs_xy + std::int64_t(dy) * g.segs_x);
        const std::uint32_t rfirst =
            std::uint32_t(std::int64_t(p.first) + (std::int64_t(dz) * g.height + dy) * std::int64_t(g.width));
        const std::uint32_t SR = ops.ld_weak(&g.seg_s[rs]);
        // The node of R's voxel j (0 ≤ j < n, not background: it has a run's value).
        auto node_there = [&](std::uint32_t j) { return rfirst + highest_bit(SR & mask_upto(j)); };
        // One union call site for the three kinds (a copy of unite's loops each would be three
        // times the code and registers): the joins at dx = -1, then 0, then +1.
        std::uint32_t zm = Zm, z0 = Z0, zp = Zp;
        while ((zm | z0 | zp) != 0) {
            std::uint32_t a, b;
            if (zm) {
                const std::uint32_t k = ffs32(zm) - 1;
                zm &= zm - 1;
                a = p.first + k;  // a run start: a node
                if (k > 0)
                    b = node_there(k - 1);
                else if (M0 & 1u)  // the stretch goes on to R's voxel 0: that node is in its run too
                    b = rfirst;
                else  // R's voxel before the segment: the last node of R's segment before
                    b = rfirst - kSeg + highest_bit(ops.ld_weak(&g.seg_s[rs - 1]));
            } else if (z0) {
                const std::uint32_t k = ffs32(z0) - 1;
                z0 &= z0 - 1;
                a = node_here(k);
                b = node_there(k);
            } else {
                const std::uint32_t k = ffs32(zp) - 1;
                zp &= zp - 1;
                a = node_here(k);
                b = k + 1 < n ? node_there(k + 1) : rfirst + n;  // past the segment: R's next segment's first voxel, a node
            }
            join(a, b);
        }
    }
    if (seam && !seam_covered && !drop_seam) join(p.first, p.first - kSeg + highest_bit(ops.ld_weak(&g.seg_s[p.s - 1])));
}

template <PixelFormat F, int Conn, class Ops>
CCL_HD void runs_connect_program(Ops& ops, const RunParams& g, std::uint64_t t64) {
    for_strip(g, t64, [&](const SegAt& p) { runs_connect_one<F, Conn>(ops, g, p); });
}

/// Flatten of a strip: every node points at its root (a store only where it does not already),
/// roots set their bit; each segment's root bits and count. Roots no longer change, so weak loads
/// may meet stale parents (ancestors still) but never a stale root.
template <class Ops>
CCL_HD void runs_flatten_program(Ops& ops, const RunParams& g, std::uint64_t t64) {
    for_strip(g, t64, [&](const SegAt& p) {
        const std::uint32_t S = ops.ld(&g.seg_s[p.s]);
        std::uint32_t roots = 0;
        for (std::uint32_t b = S; b; b &= b - 1) {
            const std::uint32_t k = ffs32(b) - 1, i = p.first + k;
            const std::uint32_t q = ops.ld_weak(&g.labels[i]);
            if (q == i) {
                roots |= 1u << k;
                continue;
            }
            std::uint32_t r = q;
            for (std::uint64_t it = 0;; ++it) {
                ops.bound(it, g.voxels + 1, "runs flatten");
                const std::uint32_t u = ops.ld_weak(&g.labels[r]);
                if (u == r) break;
                r = u;
            }
            if (r != q) ops.st(&g.labels[i], r);
        }
        ops.st(&g.roots[p.s], roots);
        ops.st(&g.counts[p.s], popc32(roots));
    });
}

/// The label of root @p r once the counts are scanned: the roots before its segment, the root bits
/// before it in its segment, plus one. Nothing it reads changes during Number.
template <class Ops>
CCL_HD std::uint32_t root_number(Ops& ops, const RunParams& g, std::uint32_t r) {
    const std::uint32_t line = g.fd_width.div(r), x = r - line * g.width;  // line: z · height + y
    const std::uint32_t s = line * g.segs_x + x / kSeg;
    return ops.ld_weak(&g.counts[s]) + popc32(ops.ld_weak(&g.roots[s]) & mask_below(x % kSeg)) + 1u;
}

/// Number of a strip: each segment's labels, written once. A thread reads only its own nodes'
/// words (roots since Flatten) before it overwrites them.
template <class Ops>
CCL_HD void runs_number_program(Ops& ops, const RunParams& g, std::uint64_t t64) {
    for_strip(g, t64, [&](const SegAt& p) {
        const std::uint32_t S = ops.ld_weak(&g.seg_s[p.s]), BG = ops.ld_weak(&g.seg_bg[p.s]);
        std::uint32_t out[kSeg];
        std::uint32_t label = 0;
        CCL_UNROLL
        for (std::uint32_t k = 0; k < kSeg; ++k) {
            if (S >> k & 1u) label = root_number(ops, g, ops.ld(&g.labels[p.first + k]));
            out[k] = (BG >> k & 1u) ? 0u : label;
        }
        ops.st_row(&g.labels[p.first], p.n, out);
    });
}

}  // namespace cclabel::cuda::detail::vruns
