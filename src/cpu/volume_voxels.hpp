#pragma once
// The voxel-wise scan of the CPU volume labeller (cpu/label3d_cpu.cpp), for volumes whose rows are
// mostly short runs (noise, dense multilabel volumes), where a run-based scan spends several
// mispredicted branches on every run. The label volume doubles as the union-find forest, as in the
// picture labeller (band_numbering.hpp): a fresh label is its voxel's index + 1, out[l - 1] is the
// parent of label l, unions hang the larger root under the smaller.
//
// Each voxel's 13 earlier neighbours under 26-connectivity (fewer under 18 and 6) are bits of a
// code, "same key as me", computed a row at a time from rows of keys (the comparisons vectorise):
//
//   bit  0       (x - 1, y,     z)        L
//   bits 1..3    (x - 1..x + 1, y - 1, z)     the row above
//   bits 4..6    (x - 1..x + 1, y - 1, z - 1)
//   bits 7..9    (x - 1..x + 1, y,     z - 1) (bit 8 is the voxel behind, B)
//   bits 10..12  (x - 1..x + 1, y + 1, z - 1)
//   bit 13       the voxel is background
//
// A table made once for each connectivity (in the manner of the decision trees of SAUF/PRED 3D)
// gives, for every code, the neighbour whose label the voxel takes and one neighbour of every other
// group of its equal neighbours that are not neighbours of each other: equal neighbours that touch
// are in one set already (the later one joined the earlier one when it was scanned), so at most one
// union a group is needed, and under 26-connectivity none at all when B is equal (B touches every
// earlier neighbour). The
// voxel's own fresh label is read through the same table (source 13: the voxel itself, written
// first), so the scan has no branch on the code but the loop over its few unions.
#include <algorithm>
#include <array>
#include <cstring>
#include <cstdlib>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "cclabel/detail/pixel_traits.hpp"
#include "core/volume_request.hpp"
#include "cpu/row_keys.hpp"
#include "cpu/volume_masks.hpp"
#include "cpu/volume_packed.hpp"
#include "cpu/volume_runs.hpp"
#include "cpu/volume_seams.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#endif

namespace cclabel::cpu::vox {

inline constexpr int kNeighbours = 13;
inline constexpr int kSelf = 13;  ///< source index: the voxel's own fresh label
inline constexpr std::uint32_t kBgBit = 1u << 13;

struct Offset3 {
    int dx, dy, dz;
};

inline constexpr std::array<Offset3, kNeighbours> kOffsets{{{-1, 0, 0},
                                                           {-1, -1, 0},
                                                           {0, -1, 0},
                                                           {1, -1, 0},
                                                           {-1, -1, -1},
                                                           {0, -1, -1},
                                                           {1, -1, -1},
                                                           {-1, 0, -1},
                                                           {0, 0, -1},
                                                           {1, 0, -1},
                                                           {-1, 1, -1},
                                                           {0, 1, -1},
                                                           {1, 1, -1}}};

constexpr int nonzero(const Offset3& o) { return (o.dx != 0) + (o.dy != 0) + (o.dz != 0); }
constexpr int max_nonzero(int conn) { return conn == 6 ? 1 : conn == 18 ? 2 : 3; }

/// The code bits a connectivity uses.
constexpr std::uint32_t conn_mask(int conn) {
    std::uint32_t m = 0;
    for (int k = 0; k < kNeighbours; ++k)
        if (nonzero(kOffsets[std::size_t(k)]) <= max_nonzero(conn)) m |= 1u << k;
    return m;
}

constexpr bool touch(int conn, int a, int b) {
    const Offset3 p = kOffsets[std::size_t(a)], q = kOffsets[std::size_t(b)];
    const Offset3 d{p.dx - q.dx, p.dy - q.dy, p.dz - q.dz};
    if (d.dx < -1 || d.dx > 1 || d.dy < -1 || d.dy > 1 || d.dz < -1 || d.dz > 1) return false;
    return nonzero(d) <= max_nonzero(conn);
}

/// A table entry: bits 0..3 the source (a neighbour, or kSelf), bits 4..6 the number of unions,
/// bit 7 "opens a label", bit 8 background, then from bit 9 on 4 bits for each of kUnions<Conn>
/// neighbours to unite with: slots left over name the source itself, so that a scan may also run a
/// fixed number of them (no mispredicted loop end), a slot with nothing to join comparing the label
/// with itself.
using Entry = std::uint32_t;
/// The most unions a voxel can need: groups of equal earlier neighbours that touch no other, less one.
template <int Conn>
inline constexpr int kUnions = Conn == 26 ? 3 : 2;

template <int Conn>
std::vector<Entry> make_table() {
    std::vector<Entry> t(std::size_t(1) << 14, 0);
    const std::uint32_t cm = conn_mask(Conn);
    for (std::uint32_t c = 0; c < (1u << 14); ++c) {
        auto slots_of_source = [](Entry src) {
            Entry e = 0;
            for (int i = 0; i < kUnions<Conn>; ++i) e |= src << (9 + 4 * i);
            return e;
        };
        if (c & kBgBit) {
            t[c] = Entry(kSelf) | (1u << 8) | slots_of_source(kSelf);
            continue;
        }
        const std::uint32_t m = c & cm;
        if (m != c) continue;  // unreachable code for this connectivity
        int comp[kNeighbours];
        for (int k = 0; k < kNeighbours; ++k) comp[k] = k;
        auto find = [&](int k) {
            while (comp[k] != k) k = comp[k];
            return k;
        };
        for (int a = 0; a < kNeighbours; ++a)
            for (int b = a + 1; b < kNeighbours; ++b)
                if ((m >> a & 1) && (m >> b & 1) && touch(Conn, a, b)) {
                    const int ra = find(a), rb = find(b);
                    if (ra != rb) comp[std::max(ra, rb)] = std::min(ra, rb);
                }
        // Source: a member of the group with the most members (in this slice where one is, the
        // labels written last); one member of each other group is united with it.
        int src = kSelf;
        if (m == 0) {
            t[c] = Entry(kSelf) | (1u << 7) | slots_of_source(kSelf);
            continue;
        }
        int size[kNeighbours] = {};
        for (int k = 0; k < kNeighbours; ++k)
            if (m >> k & 1) ++size[find(k)];
        int best = -1;
        for (int k = 0; k < kNeighbours; ++k)
            if (size[k] > 0 && (best < 0 || size[k] > size[best])) best = k;
        // Prefer a member of the best group in the current slice (recently written, in cache).
        src = best;
        for (int k = 0; k < kNeighbours; ++k)
            if ((m >> k & 1) && find(k) == best && kOffsets[std::size_t(k)].dz == 0) {
                src = k;
                break;
            }
        Entry e = Entry(src);
        int n = 0;
        for (int k = 0; k < kNeighbours; ++k) {
            if (size[k] == 0 || k == best) continue;
            if (n == kUnions<Conn>) throw std::logic_error("volume_voxels: more unions than kUnions");
            e |= Entry(k) << (9 + 4 * n);
            ++n;
        }
        e |= Entry(n) << 4;
        for (; n < kUnions<Conn>; ++n) e |= Entry(src) << (9 + 4 * n);
        t[c] = e;
    }
    return t;
}

template <int Conn>
const std::vector<Entry>& table() {
    static const std::vector<Entry> t = make_table<Conn>();
    return t;
}

/// The code of voxel @p x of a row (see the file's comment), reading only inside the rows: for the
/// ends of rows. @p u: row (y - 1, z); @p a, @p b, @p c: rows (y - 1, y, y + 1) of slice z - 1;
/// @p rowmask clears the bits of rows that are not there.
template <typename T>
std::uint16_t voxel_code(const T* k, const T* u, const T* a, const T* b, const T* c, std::uint32_t x, std::uint32_t w,
                         std::uint32_t rowmask, std::uint32_t connmask, std::uint32_t bgm, T bg) {
    // Straight compares, the missing x - 1 or x + 1 masked off (no loop with a bound check on each
    // neighbour: this runs twice a row).
    const T v = k[x];
    const std::uint32_t hl = x > 0, hr = x + 1 < w;
    const std::uint32_t xl = hl ? x - 1 : x, xr = hr ? x + 1 : x;
    auto eq = [v](T q) { return std::uint32_t(q == v); };
    std::uint32_t m = (hl & eq(k[xl])) | (hl & eq(u[xl])) << 1 | eq(u[x]) << 2 | (hr & eq(u[xr])) << 3 |
                      (hl & eq(a[xl])) << 4 | eq(a[x]) << 5 | (hr & eq(a[xr])) << 6 | (hl & eq(b[xl])) << 7 |
                      eq(b[x]) << 8 | (hr & eq(b[xr])) << 9 | (hl & eq(c[xl])) << 10 | eq(c[x]) << 11 |
                      (hr & eq(c[xr])) << 12;
    return std::uint16_t((m & rowmask & connmask) | ((bgm & std::uint32_t(v == bg)) << 13));
}

/// Codes of the voxels 1 .. w - 2 of a row (voxel_code's arguments; the ends are the caller's).
/// @p Ext (6-connectivity, Switches::behind): also @p ext, the code with bit 14 set where the
/// voxel behind L, (x - 1, y, z - 1), has the voxel's key and bit 15 where the voxel behind the
/// row above's, (x, y - 1, z - 1), has it (behind6_mask): not 6-neighbours, so not in the code.
template <typename T, int Conn, bool Ext>
__attribute__((always_inline)) inline void row_codes_body(const T* __restrict k, const T* __restrict u,
                                                          const T* __restrict a, const T* __restrict b,
                                                          const T* __restrict c, std::uint32_t w,
                                                          std::uint32_t rowmask, std::uint32_t bgm, T bg,
                                                          std::uint16_t* __restrict code,
                                                          std::uint16_t* __restrict ext) {
    for (std::uint32_t x = 1; x + 1 < w; ++x) {
        const T v = k[x];
        std::uint32_t m = std::uint32_t(k[x - 1] == v) | (std::uint32_t(u[x] == v) << 2) | (std::uint32_t(b[x] == v) << 8);
        if constexpr (Conn >= 18) {
            m |= (std::uint32_t(u[x - 1] == v) << 1) | (std::uint32_t(u[x + 1] == v) << 3) |
                 (std::uint32_t(a[x] == v) << 5) | (std::uint32_t(b[x - 1] == v) << 7) |
                 (std::uint32_t(b[x + 1] == v) << 9) | (std::uint32_t(c[x] == v) << 11);
        }
        if constexpr (Conn == 26) {
            m |= (std::uint32_t(a[x - 1] == v) << 4) | (std::uint32_t(a[x + 1] == v) << 6) |
                 (std::uint32_t(c[x - 1] == v) << 10) | (std::uint32_t(c[x + 1] == v) << 12);
        }
        const std::uint32_t cx = (m & rowmask) | ((bgm & std::uint32_t(v == bg)) << 13);
        code[x] = std::uint16_t(cx);
        if constexpr (Ext)
            ext[x] = std::uint16_t(cx | (std::uint32_t(b[x - 1] == v) << 14) | (std::uint32_t(a[x] == v) << 15));
    }
}

template <typename T, int Conn, bool Ext>
void row_codes_plain(const T* k, const T* u, const T* a, const T* b, const T* c, std::uint32_t w,
                     std::uint32_t rowmask, std::uint32_t bgm, T bg, std::uint16_t* code, std::uint16_t* ext) {
    row_codes_body<T, Conn, Ext>(k, u, a, b, c, w, rowmask, bgm, bg, code, ext);
}

#if defined(__x86_64__) && defined(__GNUC__)
template <typename T, int Conn, bool Ext>
__attribute__((target("avx2"))) void row_codes_avx2(const T* k, const T* u, const T* a, const T* b, const T* c,
                                                    std::uint32_t w, std::uint32_t rowmask, std::uint32_t bgm, T bg,
                                                    std::uint16_t* code, std::uint16_t* ext) {
    row_codes_body<T, Conn, Ext>(k, u, a, b, c, w, rowmask, bgm, bg, code, ext);
}
#endif

/// Codes of a whole row (voxel_code's arguments), the comparisons vectorised where AVX2 is; with
/// @p Ext also the extended codes of row_codes_body.
template <typename T, int Conn, bool Ext = false>
void row_codes(const T* k, const T* u, const T* a, const T* b, const T* c, std::uint32_t w, std::uint32_t rowmask,
               std::uint32_t bgm, T bg, std::uint16_t* code, std::uint16_t* ext = nullptr) {
#if defined(__x86_64__) && defined(__GNUC__)
    static const bool avx2 = __builtin_cpu_supports("avx2");
    if (avx2)
        row_codes_avx2<T, Conn, Ext>(k, u, a, b, c, w, rowmask, bgm, bg, code, ext);
    else
#endif
        row_codes_plain<T, Conn, Ext>(k, u, a, b, c, w, rowmask, bgm, bg, code, ext);
    constexpr std::uint32_t cm = conn_mask(Conn);
    code[0] = voxel_code(k, u, a, b, c, 0, w, rowmask, cm, bgm, bg);
    if (w > 1) code[w - 1] = voxel_code(k, u, a, b, c, w - 1, w, rowmask, cm, bgm, bg);
    if constexpr (Ext) {
        // Bit 14 means nothing without L, bit 15 nothing without the row above and the slice
        // before: the rows read are there whenever it matters.
        ext[0] = std::uint16_t(code[0] | (std::uint32_t(a[0] == k[0]) << 15));
        if (w > 1)
            ext[w - 1] = std::uint16_t(code[w - 1] | (std::uint32_t(b[w - 2] == k[w - 1]) << 14) |
                                       (std::uint32_t(a[w - 1] == k[w - 1]) << 15));
    }
}

/// The code of voxel @p x, 0 < x < w - 1, of a row (row_codes_body for one voxel).
template <typename T, int Conn>
__attribute__((always_inline)) inline std::uint16_t voxel_code_inside(const T* k, const T* u, const T* a, const T* b,
                                                                      const T* c, std::uint32_t x, std::uint32_t rowmask,
                                                                      std::uint32_t bgm, T bg) {
    const T v = k[x];
    std::uint32_t m = std::uint32_t(k[x - 1] == v) | (std::uint32_t(u[x] == v) << 2) | (std::uint32_t(b[x] == v) << 8);
    if constexpr (Conn >= 18) {
        m |= (std::uint32_t(u[x - 1] == v) << 1) | (std::uint32_t(u[x + 1] == v) << 3) | (std::uint32_t(a[x] == v) << 5) |
             (std::uint32_t(b[x - 1] == v) << 7) | (std::uint32_t(b[x + 1] == v) << 9) | (std::uint32_t(c[x] == v) << 11);
    }
    if constexpr (Conn == 26) {
        m |= (std::uint32_t(a[x - 1] == v) << 4) | (std::uint32_t(a[x + 1] == v) << 6) |
             (std::uint32_t(c[x - 1] == v) << 10) | (std::uint32_t(c[x + 1] == v) << 12);
    }
    return std::uint16_t((m & rowmask) | ((bgm & std::uint32_t(v == bg)) << 13));
}

/// Whether voxel @p x of a row of a later slice takes the label of the voxel behind with no union
/// (behind_code), straight from the rows: @p uv is 1 when the row above (and so row @p a, behind
/// it) is there, else 0 (@p u and @p a are then any row).
template <typename T, int Conn>
__attribute__((always_inline)) inline std::uint32_t behind_ok(const T* k, const T* u, const T* a, const T* b,
                                                              std::uint32_t x, std::uint32_t uv, T v, std::uint32_t beq,
                                                              std::uint32_t left, std::uint32_t right) {
    std::uint32_t ok = beq;
    if constexpr (Conn == 18) {
        const std::uint32_t uu = std::uint32_t(u[x] == v) & uv;
        const std::uint32_t ul = std::uint32_t(u[x - left] == v) & uv & left;
        const std::uint32_t ur = std::uint32_t(u[x + right] == v) & uv & right;
        const std::uint32_t l = std::uint32_t(k[x - left] == v) & left;
        ok &= ~(ur & ~uu) & ~(ul & ~l & ~uu);
    } else if constexpr (Conn == 6) {
        const std::uint32_t uu = std::uint32_t(u[x] == v) & uv;
        const std::uint32_t l = std::uint32_t(k[x - left] == v) & left;
        const std::uint32_t e0 = std::uint32_t(b[x - left] == v), e1 = std::uint32_t(a[x] == v);
        ok &= (~l | e0) & (~uu | e1);
    }
    (void)k, (void)u, (void)a, (void)left, (void)right;
    return ok & 1u;
}

/// Switches::fused_behind: for the voxels of a row of a later slice, in one pass over the rows of
/// keys, the label of the voxel behind where it has the key (else 0) into @p o (from @p ob, the
/// row of labels behind) and flag[x] = 1 where the voxel is foreground and not behind_ok (it
/// needs the table); returns the background voxels (@p bgm 1: there is a background @p bg).
template <typename T, int Conn>
__attribute__((always_inline)) inline std::uint32_t behind_pass_body(const T* __restrict k, const T* __restrict u,
                                                                     const T* __restrict a, const T* __restrict b,
                                                                     std::uint32_t w, std::uint32_t uv, std::uint32_t bgm,
                                                                     T bg, const std::uint32_t* __restrict ob,
                                                                     std::uint32_t* __restrict o,
                                                                     std::uint16_t* __restrict flag) {
    std::uint32_t bgs = 0;
    for (std::uint32_t x = 1; x + 1 < w; ++x) {  // vectorises: no branch
        const T v = k[x];
        const std::uint32_t beq = b[x] == v, isbg = bgm & std::uint32_t(v == bg);
        std::uint32_t ok = beq;
        if constexpr (Conn == 18) {
            const std::uint32_t uu = std::uint32_t(u[x] == v) & uv, ul = std::uint32_t(u[x - 1] == v) & uv;
            const std::uint32_t ur = std::uint32_t(u[x + 1] == v) & uv, l = k[x - 1] == v;
            ok &= (ur & ~uu) ^ 1u;
            ok &= (ul & ~l & ~uu) ^ 1u;
        } else if constexpr (Conn == 6) {
            const std::uint32_t uu = std::uint32_t(u[x] == v) & uv, l = k[x - 1] == v;
            const std::uint32_t e0 = b[x - 1] == v, e1 = a[x] == v;
            ok &= (l & ~e0) ^ 1u;
            ok &= (uu & ~e1) ^ 1u;
        }
        o[x] = ob[x] & (0u - beq);
        flag[x] = std::uint16_t((ok | isbg) ^ 1u);
        bgs += isbg;
    }
    for (std::uint32_t x : {0u, w - 1}) {  // the ends (x = 0 twice when w == 1)
        const T v = k[x];
        const std::uint32_t left = x > 0, right = x + 1 < w;
        const std::uint32_t beq = b[x] == v, isbg = bgm & std::uint32_t(v == bg);
        o[x] = ob[x] & (0u - beq);
        flag[x] = std::uint16_t((behind_ok<T, Conn>(k, u, a, b, x, uv, v, beq, left, right) | isbg) ^ 1u);
        if (x > 0 || w == 1) bgs += isbg;
    }
    if (w > 1) bgs += bgm & std::uint32_t(k[0] == bg);
    return bgs;
}

template <typename T, int Conn>
std::uint32_t behind_pass_plain(const T* k, const T* u, const T* a, const T* b, std::uint32_t w, std::uint32_t uv,
                                std::uint32_t bgm, T bg, const std::uint32_t* ob, std::uint32_t* o, std::uint16_t* flag) {
    return behind_pass_body<T, Conn>(k, u, a, b, w, uv, bgm, bg, ob, o, flag);
}

#if defined(__x86_64__) && defined(__GNUC__)
template <typename T, int Conn>
__attribute__((target("avx2"))) std::uint32_t behind_pass_avx2(const T* k, const T* u, const T* a, const T* b,
                                                               std::uint32_t w, std::uint32_t uv, std::uint32_t bgm, T bg,
                                                               const std::uint32_t* ob, std::uint32_t* o,
                                                               std::uint16_t* flag) {
    return behind_pass_body<T, Conn>(k, u, a, b, w, uv, bgm, bg, ob, o, flag);
}
#endif

/// The five rows the codes of row (y, z) read: rows y - 1 and y of slice z, rows y - 1, y and
/// y + 1 of slice z - 1. Gray8 volumes are read in place, a byte a voxel (32 compares at a time),
/// and so are U32 volumes whose rows are 4-byte aligned (@p InPlace); other formats through a
/// window of rows of keys (rather than whole slices of keys, which would crowd the labels of two
/// slices out of L2).
template <PixelFormat F, bool InPlace = F == PixelFormat::Gray8>
class KeyRows {
public:
    static constexpr bool kInPlace = InPlace;
    static_assert(!InPlace || F == PixelFormat::Gray8 || F == PixelFormat::U32);
    using T = std::conditional_t<InPlace && F == PixelFormat::Gray8, std::uint8_t, std::uint32_t>;

    explicit KeyRows(const detail::VolumeRequest& r)
        : r_(r), w_(std::uint32_t(r.width)), store_((kInPlace ? 1 : 6) * std::size_t(w_), 0) {
        for (int i = 0; i < 6; ++i) buf_[i] = store_.data() + (kInPlace ? 0 : std::size_t(i) * w_);
    }
    /// Row 0 of slice z; @p behind: slice z - 1 is in the slab.
    void begin(std::int64_t z, bool behind) {
        z_ = z;
        y_ = 0;
        behind_ = behind;
        load(kK, z, 0);
        if (behind) {
            load(kB, z - 1, 0);
            if (r_.height > 1) load(kC, z - 1, 1);
        }
    }
    /// Moves to row y + 1.
    void next() {
        ++y_;
        std::swap(buf_[kU], buf_[kK]);
        load(kK, z_, y_);
        if (behind_) {
            std::swap(buf_[kA], buf_[kB]);
            std::swap(buf_[kB], buf_[kC]);
            if (y_ + 1 < r_.height) load(kC, z_ - 1, y_ + 1);
        }
    }
    /// The code's bits whose rows the current row has: its own, the row above where there is one,
    /// and the three rows of the slice behind where there are (codes() and coder() share it).
    std::uint32_t row_mask() const {
        std::uint32_t rm = 1u;
        if (y_ > 0) rm |= 0xEu;
        if (behind_) {
            rm |= 0x380u;
            if (y_ > 0) rm |= 0x70u;
            if (y_ + 1 < r_.height) rm |= 0x1C00u;
        }
        return rm;
    }
    /// The codes of the current row; with @p ext (6-connectivity only) also its extended codes
    /// (row_codes_body).
    template <int Conn>
    void codes(std::uint16_t* code, std::uint16_t* ext = nullptr) const {
        const std::int64_t h = r_.height;
        const T* none = kInPlace ? store_.data() : buf_[kNone];
        const std::uint32_t rm = row_mask();
        const T* rows[5] = {buf_[kK], y_ > 0 ? buf_[kU] : none, behind_ && y_ > 0 ? buf_[kA] : none,
                            behind_ ? buf_[kB] : none, behind_ && y_ + 1 < h ? buf_[kC] : none};
        const std::uint32_t bgm = r_.has_background ? 1u : 0u;
        if constexpr (Conn == 6) {
            if (ext)
                return row_codes<T, Conn, true>(rows[0], rows[1], rows[2], rows[3], rows[4], w_, rm, bgm,
                                                T(r_.background_key), code, ext);
        }
        row_codes<T, Conn>(rows[0], rows[1], rows[2], rows[3], rows[4], w_, rm, bgm, T(r_.background_key), code);
    }

    /// behind_pass_body for the current row (of a later slice: begin's @p behind was true).
    template <int Conn>
    std::uint32_t behind_pass(const std::uint32_t* ob, std::uint32_t* o, std::uint16_t* flag) const {
        const T* none = kInPlace ? store_.data() : buf_[kNone];
        const std::uint32_t uv = y_ > 0 ? 1u : 0u;
        const T* u = y_ > 0 ? buf_[kU] : none;
        const T* a = y_ > 0 ? buf_[kA] : none;
        const std::uint32_t bgm = r_.has_background ? 1u : 0u;
#if defined(__x86_64__) && defined(__GNUC__)
        static const bool avx2 = __builtin_cpu_supports("avx2");
        if (avx2) return behind_pass_avx2<T, Conn>(buf_[kK], u, a, buf_[kB], w_, uv, bgm, T(r_.background_key), ob, o, flag);
#endif
        return behind_pass_plain<T, Conn>(buf_[kK], u, a, buf_[kB], w_, uv, bgm, T(r_.background_key), ob, o, flag);
    }
    /// The rows of the current row's codes, for one voxel at a time (codes' for one voxel).
    struct Coder {
        const T *k, *u, *a, *b, *c;
        std::uint32_t w, rm, bgm;
        T bg;
        template <int Conn>
        std::uint16_t code(std::uint32_t x) const {
            if (x > 0 && x + 1 < w) [[likely]]
                return voxel_code_inside<T, Conn>(k, u, a, b, c, x, rm, bgm, bg);
            return voxel_code(k, u, a, b, c, x, w, rm, conn_mask(Conn), bgm, bg);
        }
    };
    Coder coder() const {
        const std::int64_t h = r_.height;
        const T* none = kInPlace ? store_.data() : buf_[kNone];
        const std::uint32_t rm = row_mask();
        return Coder{buf_[kK], y_ > 0 ? buf_[kU] : none, behind_ && y_ > 0 ? buf_[kA] : none, behind_ ? buf_[kB] : none,
                     behind_ && y_ + 1 < h ? buf_[kC] : none, w_, rm, r_.has_background ? 1u : 0u, T(r_.background_key)};
    }

private:
    enum { kU, kK, kA, kB, kC, kNone };
    void load(int i, std::int64_t z, std::int64_t y) {
        if constexpr (kInPlace)
            buf_[i] = reinterpret_cast<const T*>(r_.row(z, y));  // U32: aligned (the caller checked)
        else
            load_row_keys<F>(r_.row(z, y), w_, buf_[i]);
    }
    const detail::VolumeRequest& r_;
    std::uint32_t w_;
    std::vector<T> store_;
    std::conditional_t<kInPlace, const T*, T*> buf_[6];
    std::int64_t z_ = 0, y_ = 0;
    bool behind_ = false;
};

/// A slab of slices [z0, z1). Its provisional labels are ids base + 1, base + 2, ... in the order
/// they are opened (raster order of their first voxels), base being the slab's first voxel index,
/// so ids of later slabs are larger and no id is 0 (background). parent[id - base] is the id's
/// parent (an id of this slab, or after the seams a final root of an earlier slab); parent[0] is 0.
struct VoxelSlab {
    static constexpr std::uint32_t kFirst = 1;  ///< the first id is base + 1 (volume_seams.hpp)
    std::int64_t z0 = 0, z1 = 0;
    std::uint32_t base = 0;
    std::uint32_t count = 0;  ///< ids opened
    vol::U32Array parent;
    std::vector<std::uint32_t> row_begin;  ///< per row of the slab, ids opened before it; then count
    std::vector<std::uint32_t> row_roots;  ///< roots among each row's ids, after the scan and the seams
    std::uint32_t first_label = 0;
    /// Whether the scan counts row_roots (Switches::no_row_roots: not in a volume's only slab,
    /// whose numbering's last number, last_label, is N).
    bool count_roots = true;
    std::uint32_t last_label = 0;
    /// Per slice of the slab, the u32 slots of its packed rows at the start of its place in the
    /// label volume (volume_packed.hpp), 0 where the slice is there as it is; empty: none packed.
    std::vector<std::uint32_t> packed;
};

/// Labels one row's voxels from their codes (see the file's comment); returns the ids opened so
/// far in the slab. @p BgBranch: background voxels branch off at once (rows mostly of one kind),
/// else they run through the table like the others.
/// The label of voxel @p x of a row from its table entry @p e (see the file's comment): opens an
/// id when the entry says so (@p cnt counts the slab's ids; parent[cnt + 1] is written in any case),
/// takes the source's label and makes the entry's unions. @p prev: the left voxel's label, kept in
/// a register (reading it back from o[x - 1] would put a store-to-load forwarding on the chain from
/// voxel to voxel). @p Fixed: all kUnions<Conn> slots are checked, not the entry's count.
template <int Conn, bool Fixed>
__attribute__((always_inline)) inline std::uint32_t label_voxel(Entry e, std::uint32_t x,
                                                                const std::array<std::int64_t, 14>& off, std::uint32_t* o,
                                                                std::uint32_t* parent, std::uint32_t base,
                                                                std::uint32_t& cnt, std::uint32_t prev) {
    const std::uint32_t fresh_id = base + cnt + 1;
    o[x] = fresh_id;  // source kSelf reads it back (off the chain through prev)
    parent[cnt + 1] = fresh_id;
    cnt += (e >> 7) & 1u;
    auto label_of = [&](std::uint32_t k) {
        const std::uint32_t v = o[std::ptrdiff_t(x) + off[k]];
        return k == 0 ? prev : v;
    };
    std::uint32_t lab = label_of(e & 15u);
    const int nu = Fixed ? kUnions<Conn> : int((e >> 4) & 7u);
    for (int i = 0; i < nu; ++i) {
        const std::uint32_t j = label_of((e >> (9 + 4 * i)) & 15u);
        if (j != lab) [[unlikely]] {
            const vol::SlabForest f{parent, base};
            const std::uint32_t a = f.find(lab), b = f.find(j);
            const std::uint32_t lo = std::min(a, b), hi = std::max(a, b);
            parent[hi - base] = lo;
            lab = lo;
        }
    }
    return lab;
}

/// Bit k set where (code[k] & @p mask) == @p eq, for k < @p n (at most 64).
inline std::uint64_t code_bits_plain(const std::uint16_t* code, std::uint32_t n, std::uint16_t mask, std::uint16_t eq) {
    std::uint64_t m = 0;
    for (std::uint32_t k = 0; k < n; ++k) m |= std::uint64_t((code[k] & mask) == eq) << k;
    return m;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
/// 32 codes -> 32 bits of code_bits_avx2.
__attribute__((target("avx2"), always_inline)) inline std::uint64_t code_bits32_avx2(const std::uint16_t* c, __m256i vm,
                                                                                   __m256i ve) {
    const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(c));
    const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(c + 16));
    const __m256i ea = _mm256_cmpeq_epi16(_mm256_and_si256(a, vm), ve);
    const __m256i eb = _mm256_cmpeq_epi16(_mm256_and_si256(b, vm), ve);
    // packs interleaves the 128-bit lanes (a0-7, b0-7, a8-15, b8-15): put them back in order.
    const __m256i p = _mm256_permute4x64_epi64(_mm256_packs_epi16(ea, eb), 0xD8);
    return std::uint64_t(std::uint32_t(_mm256_movemask_epi8(p)));
}

/// code_bits_plain 16 codes a compare: the scalar loop was 16% of sparse noise's time at 26.
__attribute__((target("avx2"))) inline std::uint64_t code_bits_avx2(const std::uint16_t* code, std::uint32_t n,
                                                                    std::uint16_t mask, std::uint16_t eq) {
    if (n < 64) return code_bits_plain(code, n, mask, eq);
    const __m256i vm = _mm256_set1_epi16(std::int16_t(mask)), ve = _mm256_set1_epi16(std::int16_t(eq));
    return code_bits32_avx2(code, vm, ve) | code_bits32_avx2(code + 32, vm, ve) << 32;
}
#endif

/// code_bits_plain, with AVX2 where @p avx2.
inline std::uint64_t code_bits(const std::uint16_t* code, std::uint32_t n, std::uint16_t mask, std::uint16_t eq,
                               bool avx2) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    if (avx2) return code_bits_avx2(code, n, mask, eq);
#endif
    (void)avx2;
    return code_bits_plain(code, n, mask, eq);
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
__attribute__((target("popcnt"))) inline std::uint32_t popcount64_fast(std::uint64_t m) {
    return std::uint32_t(__builtin_popcountll(m));
}
#endif

/// The bits set in @p m, with the popcount instruction where there is one (without it GCC calls a
/// library function).
inline std::uint32_t popcount64(std::uint64_t m) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    static const bool fast = __builtin_cpu_supports("popcnt");
    if (fast) return popcount64_fast(m);
#endif
    return std::uint32_t(__builtin_popcountll(m));
}

/// scan_row for a row with background, where it is not in long stretches (noise of any density):
/// the row is zeroed first, and only the voxels of its foreground are visited, found 64 at a time
/// from the codes' background bits (Switches::fg_bits): no branch on each voxel's background,
/// which noise would mispredict. The left label in a register is read only when the left voxel is
/// equal, and then it is the voxel visited just before.
/// With @p pack (Switches::packed_rows), the row also goes packed to @p pack as it is labelled
/// (volume_packed.hpp: the foreground mask, then the ids): no pass of its own.
template <int Conn, bool Fixed, bool Pack = false>
std::uint32_t scan_row_fg(const Entry* __restrict tab, const std::uint16_t* __restrict code, std::uint32_t w,
                          const std::array<std::int64_t, 14>& off, std::uint32_t* o, std::uint32_t* parent,
                          std::uint32_t base, std::uint32_t cnt, bool avx2, std::uint32_t* __restrict pack = nullptr) {
    std::fill(o, o + w, 0u);
    std::uint32_t prev = 0;
    std::uint32_t* ids = Pack ? pack + packed::mask_slots(w) : nullptr;
    for (std::uint32_t x0 = 0; x0 < w; x0 += 64) {
        const std::uint32_t n = std::min<std::uint32_t>(64, w - x0);
        std::uint64_t m = code_bits(code + x0, n, kBgBit, 0, avx2);
        if constexpr (Pack) std::memcpy(pack + x0 / 32, &m, 8);
        for (; m; m &= m - 1) {
            const std::uint32_t x = x0 + std::uint32_t(__builtin_ctzll(m));
            prev = label_voxel<Conn, Fixed>(tab[code[x]], x, off, o, parent, base, cnt, prev);
            o[x] = prev;
            if constexpr (Pack) *ids++ = prev;
        }
    }
    return cnt;
}

/// scan_row_fg for a row whose five rows are pure (Switches::mask_codes, volume_masks.hpp): the
/// foreground is the row's own mask, and each foreground voxel's code comes from the rows' masks.
/// @p mk, @p mu, @p ma, @p mb, @p mc: the masks of rows (y, z), (y - 1, z), (y - 1, z - 1), (y, z - 1)
/// and (y + 1, z - 1), the row of zeros for those that are not there.
template <int Conn, bool Pack>
std::uint32_t scan_row_masks(const Entry* __restrict tab, const std::uint64_t* mk, const std::uint64_t* mu,
                             const std::uint64_t* ma, const std::uint64_t* mb, const std::uint64_t* mc, std::uint32_t w,
                             const std::array<std::int64_t, 14>& off, std::uint32_t* o, std::uint32_t* parent,
                             std::uint32_t base, std::uint32_t cnt, std::uint32_t* __restrict pack) {
    std::fill(o, o + w, 0u);
    std::uint32_t prev = 0;
    std::uint32_t* ids = Pack ? pack + packed::mask_slots(w) : nullptr;
    for (std::uint32_t i = 0; i * 64 < w; ++i) {
        std::uint64_t m = mk[i];
        if constexpr (Pack) std::memcpy(pack + 2 * i, &m, 8);
        for (; m; m &= m - 1) {
            const std::uint32_t x = i * 64 + std::uint32_t(__builtin_ctzll(m));
            prev = label_voxel<Conn, false>(tab[masks::code_of<Conn>(mk, mu, ma, mb, mc, x)], x, off, o, parent, base,
                                            cnt, prev);
            o[x] = prev;
            if constexpr (Pack) *ids++ = prev;
        }
    }
    return cnt;
}

/// Whether a voxel's code lets it take its left neighbour's label with no union under @p Conn
/// (18 or 26): the left voxel L and the voxel behind B have its key (background too, whose label
/// is then L's 0). L and B touch, so they are in one set already, and under 26 B touches every
/// earlier neighbour; under 18 only (x + 1, y - 1, z) (bit 3) touches neither L nor B, unless
/// (x, y - 1, z) (bit 2), which touches B, has the key as well.
template <int Conn>
constexpr bool easy_code(std::uint32_t c) {
    const bool lb = (c & 0x101u) == 0x101u;
    if constexpr (Conn == 26) return lb;
    return lb && ((c & 0xCu) != 0x8u);
}

/// o[x] = (code[x] has B) ? b[x] : 0 for the @p w voxels of a row; @p b: the row behind.
__attribute__((always_inline)) inline void copy_behind_body(const std::uint16_t* __restrict code, std::uint32_t w,
                                                            const std::uint32_t* __restrict b,
                                                            std::uint32_t* __restrict o) {
    for (std::uint32_t x = 0; x < w; ++x) o[x] = b[x] & (0u - ((std::uint32_t(code[x]) >> 8) & 1u));
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
__attribute__((target("avx2"))) inline void copy_behind_avx2(const std::uint16_t* __restrict code, std::uint32_t w,
                                                             const std::uint32_t* __restrict b,
                                                             std::uint32_t* __restrict o) {
    copy_behind_body(code, w, b, o);
}
#endif

inline void copy_behind(const std::uint16_t* __restrict code, std::uint32_t w, const std::uint32_t* __restrict b,
                        std::uint32_t* __restrict o) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    static const bool avx2 = __builtin_cpu_supports("avx2");
    if (avx2) return copy_behind_avx2(code, w, b, o);
#endif
    copy_behind_body(code, w, b, o);
}

/// scan_row for rows whose voxels mostly take the left label with no union (easy_code: the
/// inside of cells of label volumes, blobs and their background, dense noise under 26): the other
/// ("hard") voxels are found 64 at a time from a mask and labelled by the table; the easy ones
/// after each take its label, 8 at a time (Switches::easy). No branch on each voxel, which
/// noise would mispredict. @p hard: room for (w + 63) / 64 + 1 words.
template <int Conn>
std::uint32_t scan_row_easy(const Entry* __restrict tab, const std::uint16_t* __restrict code, std::uint32_t w,
                            const std::array<std::int64_t, 14>& off, std::uint32_t* o, std::uint32_t* parent,
                            std::uint32_t base, std::uint32_t cnt, std::uint64_t* __restrict hard, bool avx2) {
    static_assert(Conn == 26, "the easy mask below is 26's easy_code");
    const std::uint32_t words = (w + 63) / 64;
    for (std::uint32_t i = 0; i < words; ++i) {
        const std::uint32_t x0 = i * 64, n = std::min<std::uint32_t>(64, w - x0);
        hard[i] = ~code_bits(code + x0, n, 0x101u, 0x101u, avx2) & (n == 64 ? ~std::uint64_t(0) : (std::uint64_t(1) << n) - 1);
    }
    hard[words] = 1;  // a hard "voxel" at x = words * 64 ends the last stretch
    std::uint32_t prev = 0;
    std::uint32_t x = 0, wi = 0;
    std::uint64_t m = hard[0];
    for (;;) {
        while (m == 0) m = hard[++wi];
        const std::uint32_t hx = wi * 64 + std::uint32_t(__builtin_ctzll(m));
        m &= m - 1;
        // The easy voxels [x, hx) take prev; a store of 8 may run past hx inside the row, where
        // later voxels overwrite it.
        const std::uint32_t end = std::min(hx, w);
        if (x + 8 <= w) {
            std::uint32_t v[8] = {prev, prev, prev, prev, prev, prev, prev, prev};
            for (; x < end; x += 8) {
                if (x + 8 > w) {
                    std::fill(o + x, o + end, prev);
                    break;
                }
                std::memcpy(o + x, v, sizeof v);
            }
        } else {
            std::fill(o + x, o + end, prev);
        }
        if (hx >= w) break;
        const Entry e = tab[code[hx]];
        std::uint32_t lab = label_voxel<Conn, false>(e, hx, off, o, parent, base, cnt, prev);
        lab &= ((e >> 8) & 1u) - 1u;
        prev = lab;
        o[hx] = lab;
        x = hx + 1;
    }
    return cnt;
}

/// The masks of the voxels that scan_row_behind labels through the table, 64 a word: foreground
/// voxels whose voxel behind B lacks their key, under 18 also those with B whose equal
/// (x - 1, y - 1, z) or (x + 1, y - 1, z) touches neither B nor another equal neighbour that
/// touches B, and under 6 those with B whose equal L or (x, y - 1, z) has not the key behind it
/// (behind_code). Under 6 @p code holds the extended codes (row_codes_body). Returns how many.
/// @p hard: room for (w + 63) / 64 + 1 words.
/// scan_row_behind takes a row when at most 1 / kBehindHard of its voxels are hard (behind_mask).
inline constexpr std::uint32_t kBehindHard = 2;

template <int Conn>
std::uint32_t behind_mask(const std::uint16_t* __restrict code, std::uint32_t w, std::uint64_t* __restrict hard,
                          bool avx2) {
    const std::uint32_t words = (w + 63) / 64;
    std::uint32_t n_hard = 0;
    for (std::uint32_t i = 0; i < words; ++i) {
        const std::uint32_t x0 = i * 64, n = std::min<std::uint32_t>(64, w - x0);
        std::uint64_t m = code_bits(code + x0, n, 0x2100u, 0, avx2);  // foreground without B
        if constexpr (Conn == 18) {
            m |= code_bits(code + x0, n, 0x210Cu, 0x108u, avx2);  // B, (x + 1, y - 1), not (x, y - 1)
            m |= code_bits(code + x0, n, 0x2107u, 0x102u, avx2);  // B, (x - 1, y - 1), not L, not (x, y - 1)
        } else if constexpr (Conn == 6) {  // extended codes (row_codes_body)
            m |= code_bits(code + x0, n, 0x6101u, 0x101u, avx2);  // B, L, not L's behind
            m |= code_bits(code + x0, n, 0xA104u, 0x104u, avx2);  // B, (x, y - 1), not its behind
        }
        hard[i] = m;
        n_hard += popcount64(m);
    }
    hard[words] = 0;
    return n_hard;
}

/// Whether a voxel's code lets it take the label of the voxel behind it, B = (x, y, z - 1), with no
/// union (Switches::behind): B has its key, and every other equal earlier neighbour is in B's set
/// already. Under 26, B touches each of the 12 other earlier neighbours; under 18 all but
/// (x - 1, y - 1, z) and (x + 1, y - 1, z), which are in B's set when one of their equal
/// neighbours touching B is equal: (x, y - 1, z) for both, L for the first. Under 6, L and
/// (x, y - 1, z) touch no other earlier neighbour, but an equal one whose own voxel behind is equal
/// is in that voxel's set, which holds B (they are 6-neighbours in slice z - 1): @p c is then the
/// extended code (row_codes_body), bits 14 and 15. behind_mask is its complement over the
/// foreground.
template <int Conn>
constexpr bool behind_code(std::uint32_t c) {
    if (!(c & 0x100u)) return false;
    if constexpr (Conn == 18) return (c & 0x10Cu) != 0x108u && (c & 0x107u) != 0x102u;
    if constexpr (Conn == 6) return (c & 0x4001u) != 0x1u && (c & 0x8004u) != 0x4u;
    return true;
}

/// scan_row for rows of slice z > z0 whose voxels mostly have the key of the voxel behind them
/// (behind_code; the inside of cells of label volumes and of blobs, dense noise): every voxel
/// first takes B's label where B has its key and 0 elsewhere, a copy from the slice before that
/// vectorises (background behind background is 0 too); then the voxels of @p hard (behind_mask)
/// are labelled by the table, left to right, reading the left label back from the row. Unlike
/// the easy rows (left and behind equal), no voxel waits for its left neighbour's label.
template <int Conn, bool Fixed>
std::uint32_t scan_row_behind(const Entry* __restrict tab, const std::uint16_t* __restrict code, std::uint32_t w,
                              std::int64_t plane, const std::array<std::int64_t, 14>& off, std::uint32_t* o,
                              std::uint32_t* parent, std::uint32_t base, std::uint32_t cnt,
                              const std::uint64_t* __restrict hard) {
    copy_behind(code, w, o - plane, o);
    const std::uint32_t words = (w + 63) / 64;
    for (std::uint32_t i = 0; i < words; ++i)
        for (std::uint64_t m = hard[i]; m; m &= m - 1) {
            const std::uint32_t x = i * 64 + std::uint32_t(__builtin_ctzll(m));
            const std::uint32_t prev = x > 0 ? o[x - 1] : 0;
            o[x] = label_voxel<Conn, Fixed>(tab[code[x]], x, off, o, parent, base, cnt, prev);
        }
    return cnt;
}

template <int Conn, bool BgBranch, bool Fixed, bool Stretches>
std::uint32_t scan_row(const Entry* __restrict tab, const std::uint16_t* __restrict code, std::uint32_t w,
                       const std::array<std::int64_t, 14>& off, std::uint32_t* o, std::uint32_t* parent,
                       std::uint32_t base, std::uint32_t cnt) {
    // The label of the voxel before (L) stays in a register: reading it back from o[x - 1] would
    // put a store-to-load forwarding on the chain from voxel to voxel.
    std::uint32_t prev = 0;
    for (std::uint32_t x = 0; x < w; ++x) {
        // Switches::stretches: a voxel with its left neighbour's key (or background) whose code
        // equals the left neighbour's takes its label: every equal neighbour of x is in the set of
        // x - 1 already (one of x - 1's own equal neighbours, or the right-hand neighbour of one in
        // its row, which joined it when it was scanned). Cells of label volumes and blobs are such
        // stretches but at their borders; noise has nearly none (a well-predicted branch).
        if (Stretches && x > 0 && code[x] == code[x - 1] && (code[x] & (1u | kBgBit))) {
            std::uint32_t end = x + 1;
            while (end < w && code[end] == code[x]) ++end;
            std::fill(o + x, o + end, prev);
            x = end - 1;
            continue;
        }
        const Entry e = tab[code[x]];
        if constexpr (BgBranch) {
            if (e & (1u << 8)) {
                o[x] = 0;
                prev = 0;
                continue;
            }
        }
        std::uint32_t lab = label_voxel<Conn, Fixed>(e, x, off, o, parent, base, cnt, prev);
        if constexpr (!BgBranch) lab &= ((e >> 8) & 1u) - 1u;
        prev = lab;
        o[x] = lab;
    }
    return cnt;
}

/// Scans slab @p s into @p out (step 1 of label3d_cpu.cpp, voxel by voxel): provisional ids in
/// out, their forest in s.parent; counts each row's roots.
template <PixelFormat F, int Conn, bool InPlace>
void scan_slab(const detail::VolumeRequest& r, VoxelSlab& s, std::uint32_t* out, bool stretches, bool fg_bits,
               bool easy, bool sparse_first, bool behind, bool fused, bool fixed_hard, bool packed_rows,
               bool mask_codes) {
    const std::vector<Entry>& tab = table<Conn>();
    const auto w = std::uint32_t(r.width);
    const std::int64_t h = r.height;
    const std::int64_t plane = std::int64_t(w) * h;
    // Switches::packed_rows: the scan labels into a ring of two slices (slice z at (z % 2) * plane),
    // so the slice behind is plane voxels before or after; the label volume gets each row when it
    // is done, packed (volume_packed.hpp) where it is mostly background. Volumes with no
    // background have no row to pack.
    const bool ring_on = packed_rows && r.has_background;
    std::unique_ptr<std::uint32_t[]> ring;
    std::vector<std::uint32_t> stage;  // the current slice's packed rows
    if (ring_on) {
        ring = std::make_unique_for_overwrite<std::uint32_t[]>(2 * std::size_t(plane));
        stage.resize(std::size_t(plane) + 8);  // pack's vector stores run up to 8 slots past a row
    }
    // Switches::mask_codes: every row's foreground mask, made when the scan reaches it.
    const bool masks_on = mask_codes && r.has_background;
    masks::RowMasks rmask;
    if (masks_on) rmask.reset(h, w);
    using KeyT = typename KeyRows<F, InPlace>::T;
    const auto bg_key = KeyT(r.background_key);
    KeyT fg_key = KeyT(bg_key + 1);  // the slab's first foreground value, once a row has one
    bool have_fg_key = false;
    std::array<std::int64_t, 14> off{};
    std::int64_t behind_off = -plane;  // from a voxel to the voxel behind it
    auto set_offsets = [&] {
        for (int k = 0; k < kNeighbours; ++k) {
            const Offset3 o = kOffsets[std::size_t(k)];
            off[std::size_t(k)] = o.dx + o.dy * std::int64_t(w) + o.dz * -behind_off;
        }
        off[kSelf] = 0;
    };
    set_offsets();
    const std::int64_t rows = (s.z1 - s.z0) * h;
    if (ring_on) s.packed.assign(std::size_t(s.z1 - s.z0), 0);
    // At most one id a voxel, and the parent[0] spare: pages no id reaches are never touched.
    s.parent.reserve_more(0, std::size_t(rows) * w + 2);
    std::uint32_t* parent = s.parent.data();
    const std::uint32_t base = s.base;
    parent[0] = 0;
    s.row_begin.assign(std::size_t(rows) + 1, 0);
    KeyRows<F, InPlace> keys(r);
    std::vector<std::uint16_t> code(w), ext(Conn == 6 ? w : 0), flag(w);
    bool fused_last = true;  // the row before took the row behind's labels
    std::vector<std::uint64_t> hard((w + 63) / 64 + 1);
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    static const bool avx2 = __builtin_cpu_supports("avx2");
#else
    constexpr bool avx2 = false;
#endif
    std::uint32_t cnt = 0;
    for (std::int64_t z = s.z0; z < s.z1; ++z) {
        // The seams (merge_seam) read the slab's first and last slices from the label volume as
        // they are: those rows are never packed.
        bool may_pack = ring_on && (z > s.z0 || s.z0 == 0) && (z + 1 < s.z1 || s.z1 == r.depth);
        std::uint32_t staged = 0;  // slots of stage used
        if (ring_on) {
            behind_off = (z & 1) ? -plane : plane;
            set_offsets();
        }
        for (std::int64_t y = 0; y < h; ++y) {
            if (y == 0)
                keys.begin(z, z > s.z0);
            else
                keys.next();
            const std::int64_t lr = (z - s.z0) * h + y;
            s.row_begin[std::size_t(lr)] = cnt;
            std::uint32_t* const dst = out + std::uint64_t(z * h + y) * w;
            std::uint32_t* o = ring_on ? ring.get() + std::uint64_t((z & 1) * h + y) * w : dst;
            std::uint32_t mask_fg = 0;  // the row's foreground voxels (masks_on)
            if (masks_on) {
                const KeyT* k = keys.coder().k;
                if (!have_fg_key)
                    for (std::uint32_t x = 0; x < w; ++x)
                        if (k[x] != bg_key) {
                            fg_key = k[x];
                            have_fg_key = true;
                            break;
                        }
                bool pure = true;
                const std::size_t sl = std::size_t((z & 1) * h + y);
                mask_fg = masks::make_row<KeyT>(k, w, bg_key, fg_key, rmask.row(sl), pure, avx2);
                rmask.pure[sl] = pure;
            }
            bool row_packed = false;  // scan_row_fg packed it into stage, in row_slots slots
            std::uint32_t row_slots = 0;
            // Where scan_row_fg or scan_row_masks packs the row (Switches::packed_rows).
            auto pack_to = [&](std::uint32_t bgs) {
                row_packed = may_pack && packed::worth(w - bgs, w);
                row_slots = packed::mask_slots(w) + (w - bgs);
                return row_packed;
            };

            // Labels the row into o.
            // Inlined: a call would keep cnt and the row's pointers in memory through the hot
            // loops below (Voronoi at 26: 27 -> 32 ms).
            [&]() __attribute__((always_inline)) {
                // Switches::mask_codes: a row of sparse noise whose five rows are pure.
                if (masks_on && mask_fg * 5 <= 2 * w) {
                    auto slot = [&](std::int64_t zz, std::int64_t yy) { return std::size_t((zz & 1) * h + yy); };
                    const std::size_t none = 2 * std::size_t(h);
                    const bool bh = z > s.z0;
                    const std::size_t sk = slot(z, y), su = y > 0 ? slot(z, y - 1) : none;
                    const std::size_t sa = bh && y > 0 ? slot(z - 1, y - 1) : none, sb = bh ? slot(z - 1, y) : none;
                    const std::size_t sc = bh && y + 1 < h ? slot(z - 1, y + 1) : none;
                    const auto& p = rmask.pure;
                    if (p[sk] & p[su] & p[sa] & p[sb] & p[sc]) {
                        const std::uint64_t *mk = rmask.row(sk), *mu = rmask.row(su), *ma = rmask.row(sa),
                                            *mb = rmask.row(sb), *mc = rmask.row(sc);
                        cnt = pack_to(w - mask_fg)
                                  ? scan_row_masks<Conn, true>(tab.data(), mk, mu, ma, mb, mc, w, off, o, parent, base, cnt,
                                                               stage.data() + staged)
                                  : scan_row_masks<Conn, false>(tab.data(), mk, mu, ma, mb, mc, w, off, o, parent, base, cnt,
                                                                nullptr);
                        return;
                    }
                }
                // Switches::fused_behind: a row of a later slice (after a row that copied the row
                // behind, or the first of its slice) tries the copy with no codes first; only the
                // voxels that need the table get theirs. Rows of sparse noise and rows with too many
                // such voxels go on below (the copy is overwritten there).
                // Only rows of 4-byte keys under 18 and 26 gain: one-byte codes are 32 voxels a compare
                // (binary 0.9 at 6 lost 50 -> 62 ms, at 26 31 -> 33), and under 6 the codes are few
                // (Voronoi at 6 the same, 44 ms; at 18 38 -> 35, at 26 36-39 -> 32-37).
                constexpr bool kFused = sizeof(typename KeyRows<F, InPlace>::T) == 4 && Conn != 6;
                bool tried = false;
                if (kFused && behind && fused && z > s.z0 && (fused_last || y == 0)) {
                    const std::uint32_t bgs = keys.template behind_pass<Conn>(o + behind_off, o, flag.data());
                    fused_last = false;
                    if (!(sparse_first && fg_bits && r.has_background && bgs * 5 >= 3 * w)) {
                        tried = true;
                        const std::uint32_t words = (w + 63) / 64;
                        std::uint32_t n_hard = 0;
                        for (std::uint32_t i = 0; i < words; ++i) {
                            const std::uint32_t x0 = i * 64;
                            hard[i] = code_bits(flag.data() + x0, std::min<std::uint32_t>(64, w - x0), 1, 1, avx2);
                            n_hard += popcount64(hard[i]);
                        }
                        if (std::uint64_t(n_hard) * kBehindHard <= w) {
                            const auto coder = keys.coder();
                            for (std::uint32_t i = 0; i < words; ++i)
                                for (std::uint64_t m = hard[i]; m; m &= m - 1) {
                                    const std::uint32_t x = i * 64 + std::uint32_t(__builtin_ctzll(m));
                                    const std::uint32_t prev = x > 0 ? o[x - 1] : 0;
                                    const Entry e = tab[coder.template code<Conn>(x)];
                                    o[x] = label_voxel<Conn, false>(e, x, off, o, parent, base, cnt, prev);
                                }
                            fused_last = true;
                            return;
                        }
                    }
                }
                // Under 6 the rows that may copy the row behind need the extended codes.
                const bool ext6 = Conn == 6 && behind && z > s.z0 && !tried;
                keys.template codes<Conn>(code.data(), ext6 ? ext.data() : nullptr);
                // Rows that are mostly background or mostly not branch on it (well predicted, and a
                // background voxel then costs a store); rows of noise take background through the table.
                std::uint32_t bg = 0;
                if (r.has_background)
                    for (std::uint32_t x = 0; x < w; ++x) bg += code[x] >> 13;
                // Dense binary rows under 6-connectivity: L, U and B are mostly all equal and need two
                // union checks each; a fixed count of checks then beats a loop whose end mispredicts.
                // Rows of sparse noise (60% background or more) visit their foreground only.
                auto row = [&]<bool Stretches>() {
                    if (!Stretches && fg_bits && r.has_background && bg * 5 >= 3 * w)
                        cnt = pack_to(bg) ? scan_row_fg<Conn, false, true>(tab.data(), code.data(), w, off, o, parent, base, cnt,
                                                                              avx2, stage.data() + staged)
                                         : scan_row_fg<Conn, false>(tab.data(), code.data(), w, off, o, parent, base, cnt, avx2);
                    else if (Conn == 6 && r.has_background && bg * 8 < w)
                        cnt = scan_row<Conn, true, true, Stretches>(tab.data(), code.data(), w, off, o, parent, base, cnt);
                    else if (bg * 8 > 7 * w)
                        cnt = scan_row<Conn, true, false, Stretches>(tab.data(), code.data(), w, off, o, parent, base, cnt);
                    else if (Conn == 6 && r.has_background && bg * 5 < 2 * w)  // dense binary, as above
                        cnt = scan_row<Conn, false, true, Stretches>(tab.data(), code.data(), w, off, o, parent, base, cnt);
                    else
                        cnt = scan_row<Conn, false, false, Stretches>(tab.data(), code.data(), w, off, o, parent, base, cnt);
                };
                // Under 18 (Voronoi cells: 62 -> 72 ms) the stretches below do better; under 26 they
                // stop at every change of the code that easy voxels ignore (Voronoi: 68 -> 62 ms).
                // Rows at least half easy: dense noise (0.9, 73% easy) gains too, 59 -> 54 ms (it lost,
                // 62 -> 70, while the mask was a scalar loop); 0.7 (34%) stays below.
                // Switches::sparse_first: rows of sparse noise visit their foreground only, before the
                // easy rows and the stretches look at them: their background is easy and repeats its
                // code, so both took such rows and ran every background voxel next to the foreground
                // through the table (binary 0.1 at 26: 63 -> 39 ms; at 6 and 18 about 10%).
                if (sparse_first && fg_bits && r.has_background && bg * 5 >= 3 * w) {
                    cnt = pack_to(bg) ? scan_row_fg<Conn, false, true>(tab.data(), code.data(), w, off, o, parent, base, cnt,
                                                                          avx2, stage.data() + staged)
                                     : scan_row_fg<Conn, false>(tab.data(), code.data(), w, off, o, parent, base, cnt, avx2);
                    return;
                }
                // Switches::behind: rows of a later slice at least half of whose voxels take the
                // label of the voxel behind with no union (before the stretches are counted).
                if (behind && z > s.z0 && !tried) {
                    const std::uint32_t n_hard = behind_mask<Conn>(Conn == 6 ? ext.data() : code.data(), w, hard.data(), avx2);
                    if (std::uint64_t(n_hard) * kBehindHard <= w) {
                        // Switches::fixed_hard: under 6 only (2 slots); under 18 and 26 the loop was
                        // faster (Voronoi at 18: 33 against 41 ms, binary 0.7 at 26: 47 against 56).
                        cnt = fixed_hard && Conn == 6 ? scan_row_behind<Conn, true>(tab.data(), code.data(), w, -behind_off, off, o, parent, base,
                                                                       cnt, hard.data())
                                         : scan_row_behind<Conn, false>(tab.data(), code.data(), w, -behind_off, off, o, parent, base,
                                                                        cnt, hard.data());
                        fused_last = true;
                        return;
                    }
                }
                std::uint32_t same = 0, starts = 0;  // starts: voxels that begin a stretch (equal to the left, which is not)
                if (stretches && w > 1) {
                    same = starts = code[1] == code[0];
                    const std::uint16_t* c = code.data();
                    for (std::uint32_t x = 2; x < w; ++x) {  // vectorises: no branch, no carried state
                        const std::uint32_t eq = c[x] == c[x - 1];
                        same += eq;
                        starts += eq & std::uint32_t(c[x - 1] != c[x - 2]);
                    }
                }
                if constexpr (Conn == 26) {
                    if (easy && z > s.z0) {
                        std::uint32_t n_easy = 0;
                        for (std::uint32_t x = 0; x < w; ++x) n_easy += easy_code<Conn>(code[x]);
                        if (n_easy * 2 >= w) {
                            cnt = scan_row_easy<Conn>(tab.data(), code.data(), w, off, o, parent, base, cnt, hard.data(), avx2);
                            return;
                        }
                    }
                }
                // Stretches pay where most voxels continue long ones (cells, blobs); on noise their
                // starts and ends would mispredict.
                if (stretches && same * 2 > w && same >= 8 * starts)
                    row.template operator()<true>();
                else
                    row.template operator()<false>();
            }();
            (void)dst;
            // A row that scan_row_fg did not pack is packed here if it can be; if not, the slice
            // goes to the label volume as it is.
            if (row_packed) staged += row_slots;
            if (may_pack && !row_packed) {
                std::uint32_t fg = 0;
                for (std::uint32_t x = 0; x < w; ++x) fg += o[x] != 0;
                if (packed::worth(fg, w))
                    staged += packed::mask_slots(w) + packed::pack(o, w, stage.data() + staged, avx2);
                else
                    may_pack = false;
            }
        }
        if (ring_on) {
            std::uint32_t* slice = out + std::uint64_t(z) * std::uint64_t(plane);
            if (may_pack) {
                std::memcpy(slice, stage.data(), std::size_t(staged) * 4);
                s.packed[std::size_t(z - s.z0)] = staged;
            } else {
                std::memcpy(slice, ring.get() + std::uint64_t(z & 1) * std::uint64_t(plane), std::size_t(plane) * 4);
            }
        }
    }
    s.count = cnt;
    s.row_begin[std::size_t(rows)] = cnt;
    vol::count_row_roots(s, rows);
}

using Forests = vol::Forests<VoxelSlab>;
using vol::ExternalRoots;

/// Unites the ids across the seam between slab @p s's first slice and the slice before it (the
/// last of the slab before); appends each root hung to @p hung.
template <PixelFormat F, int Conn>
void merge_seam(const detail::VolumeRequest& r, const VoxelSlab& s, const Forests& forests, const std::uint32_t* out,
                std::vector<std::uint32_t>& hung) {
    const auto w = std::uint32_t(r.width);
    const std::int64_t h = r.height;
    const std::int64_t plane = std::int64_t(w) * h;
    KeyRows<F> keys(r);
    std::vector<std::uint16_t> code(w);
    std::uint32_t last_a = 0, last_b = 0;  // the pair just united: touching voxels repeat it
    for (std::int64_t y = 0; y < h; ++y) {
        if (y == 0)
            keys.begin(s.z0, true);
        else
            keys.next();
        keys.template codes<Conn>(code.data());
        const std::uint32_t* o = out + std::uint64_t(s.z0 * h + y) * w;
        for (std::uint32_t x = 0; x < w; ++x) {
            std::uint32_t m = code[x] & 0x1FF0u;  // the neighbours in the slice before
            if (!m || (code[x] & kBgBit)) continue;
            for (; m; m &= m - 1) {
                const Offset3 d = kOffsets[std::size_t(__builtin_ctz(m))];
                const std::uint32_t q = o[std::ptrdiff_t(x) + d.dx + d.dy * std::int64_t(w) - plane];
                if (q == last_a && o[x] == last_b) continue;
                last_a = q;
                last_b = o[x];
                std::uint32_t a = forests.find_readonly(q), c = forests.find_readonly(o[x]);
                if (a == c) continue;
                if (a < c) std::swap(a, c);
                forests.parent(a) = c;
                hung.push_back(a);
            }
        }
    }
}

/// Step 2 (seams, one thread): returns N.
template <PixelFormat F, int Conn>
std::uint32_t join_seams(const detail::VolumeRequest& r, std::vector<VoxelSlab>& slabs, const std::uint32_t* out,
                         ExternalRoots& ext) {
    const Forests forests{slabs};
    std::vector<std::uint32_t> hung;
    for (std::size_t si = 1; si < slabs.size(); ++si) merge_seam<F, Conn>(r, slabs[si], forests, out, hung);
    return vol::settle_seams(forests, hung, ext);
}

/// out[i] = lab[out[i] - base] for @p n voxels, background (0) reading lab[0] = 0: arithmetic, not
/// a branch, which noise would mispredict.
inline void renumber_plain(std::uint32_t* out, std::uint64_t n, const std::uint32_t* lab, std::uint32_t base) {
    for (std::uint64_t i = 0; i < n; ++i) {
        const std::uint32_t v = out[i];
        out[i] = lab[(v - base) & (0u - std::uint32_t(v != 0))];
    }
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
/// renumber_plain 8 voxels a gather (Switches::gather).
__attribute__((target("avx2"))) inline void renumber_avx2(std::uint32_t* out, std::uint64_t n, const std::uint32_t* lab,
                                                          std::uint32_t base) {
    const __m256i vb = _mm256_set1_epi32(int(base)), zero = _mm256_setzero_si256();
    std::uint64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(out + i));
        const __m256i idx = _mm256_andnot_si256(_mm256_cmpeq_epi32(v, zero), _mm256_sub_epi32(v, vb));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i),
                            _mm256_i32gather_epi32(reinterpret_cast<const int*>(lab), idx, 4));
    }
    renumber_plain(out + i, n - i, lab, base);
}
#endif

/// Step 3: numbers the slab's ids in order (a root the next number, any other id its parent's,
/// which comes earlier), then writes every voxel's number.
inline void number_slab(const detail::VolumeRequest& r, VoxelSlab& s, const ExternalRoots& ext, std::uint32_t* out,
                        bool gather) {
    std::uint32_t* lab = s.parent.data();
    const std::uint32_t base = s.base;
    std::uint32_t n = s.first_label;
    for (std::uint32_t i = 1; i <= s.count; ++i) {
        const std::uint32_t p = lab[i];
        std::uint32_t l;
        if (p == base + i)
            l = ++n;
        else if (p > base)
            l = lab[p - base];
        else
            l = ext.number_of(p);
        lab[i] = l;
    }
    s.last_label = n;
    lab[0] = 0;
    const std::uint64_t w = std::uint64_t(r.width);
    const std::uint64_t begin = std::uint64_t(s.z0) * std::uint64_t(r.height) * w;
    const std::uint64_t end = std::uint64_t(s.z1) * std::uint64_t(r.height) * w;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    static const bool avx2 = __builtin_cpu_supports("avx2");
#else
    constexpr bool avx2 = false;
#endif
    auto renumber = [&](std::uint64_t from, std::uint64_t to) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
        if (avx2 && gather) return renumber_avx2(out + from, to - from, lab, base);
#endif
        renumber_plain(out + from, to - from, lab, base);
    };
    if (s.packed.empty()) return renumber(begin, end);
    // Switches::packed_rows: runs of slices stored as they are renumber at once; a packed slice's
    // rows are copied out of its place first, then unpacked into it row by row.
    const std::uint64_t plane = std::uint64_t(r.height) * w;
    std::vector<std::uint32_t> stream(std::size_t(plane) + w + 8);
    std::uint32_t* lbl = stream.data() + plane;
    std::uint64_t plain = begin;  // the first voxel not yet renumbered
    for (std::size_t zi = 0; zi < s.packed.size(); ++zi) {
        if (!s.packed[zi]) continue;
        const std::uint64_t at = begin + zi * plane;
        if (plain < at) renumber(plain, at);
        std::memcpy(stream.data(), out + at, std::size_t(s.packed[zi]) * 4);
        const std::uint32_t* src = stream.data();
        for (std::uint64_t y = 0; y < std::uint64_t(r.height); ++y)
            src += packed::unpack(src, std::uint32_t(w), lab, base, out + at + y * w, lbl, avx2 && gather);
        plain = at + plane;
    }
    if (plain < end) renumber(plain, end);
}

}  // namespace cclabel::cpu::vox
