#pragma once
// The binary scan of the CPU volume labeller (cpu/label3d_cpu.cpp): volumes of one foreground key
// (Binary8, and Gray8 with a background whose other voxels all have one value). Each row becomes a
// bit mask, 64 voxels a word, and its runs are found a transition at a time with count-trailing-
// zeros, so the cost follows the runs, not the voxels. A run [s, e) touches the runs of an earlier
// neighbouring row that meet [s - slack, e + slack) (volume_runs.hpp's picture): with the row's
// run starts as bits and the runs started before each word, those are the consecutive runs
//
//     rank(a) - (voxel a is foreground and starts no run)  ..  rank(b) - 1
//
// (rank(p): runs starting before x = p; a = s - slack, b = e + slack), found with two popcounts
// and no walk through the row: no branch on each run of the neighbouring row. The runs go into
// the run scan's slab (x0, x1, key 1, parent), so its seams and its numbering serve both.
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <vector>

#include "core/volume_request.hpp"
#include "cpu/volume_runs.hpp"
#include "cpu/volume_seams.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#endif

namespace cclabel::cpu::bits {

/// Thrown by a slab's scan when a row has a second foreground value: the caller labels the volume
/// with the other scans (the rows already scanned are thrown away).
struct NotBinary {};

/// The foreground of a row of one-byte voxels as bits; false if a foreground voxel is not @p fg
/// (when @p check). Bits past @p w are 0.
inline bool pack_row_plain(const std::uint8_t* row, std::uint32_t w, std::uint8_t bg, std::uint8_t fg, bool check,
                           std::uint64_t* mask) {
    const std::uint32_t words = (w + 63) / 64;
    bool ok = true;
    for (std::uint32_t i = 0; i < words; ++i) {
        std::uint64_t m = 0;
        const std::uint32_t n = std::min<std::uint32_t>(64, w - i * 64);
        for (std::uint32_t k = 0; k < n; ++k) {
            const std::uint8_t v = row[i * 64 + k];
            m |= std::uint64_t(v != bg) << k;
            ok &= !check || v == bg || v == fg;
        }
        mask[i] = m;
    }
    return ok;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
__attribute__((target("avx2"))) inline bool pack_row_avx2(const std::uint8_t* row, std::uint32_t w, std::uint8_t bg,
                                                          std::uint8_t fg, bool check, std::uint64_t* mask) {
    const __m256i vb = _mm256_set1_epi8(char(bg)), vf = _mm256_set1_epi8(char(fg));
    std::uint32_t x = 0;
    std::uint32_t bad = 0;
    for (; x + 64 <= w; x += 64) {
        const __m256i v0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(row + x));
        const __m256i v1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(row + x + 32));
        const __m256i b0 = _mm256_cmpeq_epi8(v0, vb), b1 = _mm256_cmpeq_epi8(v1, vb);
        const std::uint64_t lo = std::uint32_t(_mm256_movemask_epi8(b0)), hi = std::uint32_t(_mm256_movemask_epi8(b1));
        mask[x / 64] = ~(lo | hi << 32);
        if (check) {
            const __m256i ok0 = _mm256_or_si256(b0, _mm256_cmpeq_epi8(v0, vf));
            const __m256i ok1 = _mm256_or_si256(b1, _mm256_cmpeq_epi8(v1, vf));
            bad |= ~std::uint32_t(_mm256_movemask_epi8(_mm256_and_si256(ok0, ok1)));
        }
    }
    if (x < w && !pack_row_plain(row + x, w - x, bg, fg, check, mask + x / 64)) return false;
    return bad == 0;
}
#endif

/// A row's masks: the foreground, the run starts, and the runs started before each word.
struct RowBits {
    const std::uint64_t* fg = nullptr;
    const std::uint64_t* start = nullptr;
    const std::uint32_t* before = nullptr;
    std::uint32_t id0 = 0;  ///< id of the row's first run
    /// Runs starting before x = @p p (p ≤ w).
    std::uint32_t rank(std::uint32_t p) const {
        const std::uint32_t i = p >> 6, b = p & 63;
        // p == w at a word boundary reads word words (the slab keeps a spare word of zeros).
        return before[i] + std::uint32_t(__builtin_popcountll(start[i] & ((std::uint64_t(1) << b) - 1)));
    }
    /// 1 when voxel @p p is foreground and starts no run (a run started before it covers it).
    std::uint32_t inside(std::uint32_t p) const {
        return std::uint32_t(((fg[p >> 6] & ~start[p >> 6]) >> (p & 63)) & 1);
    }
};

/// The masks of the rows of two slices (the current one and the one before), row (y, z) at slot
/// (z % 2) * h + y, a row every `stride` words with a spare word of zeros for rank(w) at a word
/// boundary: 2 x h rows stay in L2, where masks for the whole slab cost a memset and page faults
/// of 6.5 MB a call at 256^3 (a quarter of the scan).
struct SliceBits {
    std::uint32_t words = 0, stride = 0;
    std::vector<std::uint64_t> fg, start;
    std::vector<std::uint32_t> before;
    void reset(std::size_t rows, std::uint32_t w) {
        words = (w + 63) / 64;
        stride = words + 1;
        fg.assign(rows * stride, 0);
        start.assign(rows * stride, 0);
        before.assign(rows * stride, 0);
    }
    RowBits row(std::size_t r, std::uint32_t id0) const {
        return RowBits{fg.data() + r * stride, start.data() + r * stride, before.data() + r * stride, id0};
    }
};

/// Cuts the row whose foreground mask is at @p m (words words, bits past w zero) into runs: writes
/// the run starts and the runs started before each word, x0 and x1 of each run; returns the count.
inline std::uint32_t cut_row(const std::uint64_t* m, std::uint32_t words, std::uint32_t w, std::uint64_t* start,
                             std::uint32_t* before, std::uint32_t* x0, std::uint32_t* x1) {
    std::uint32_t n = 0;
    std::uint64_t carry = 0;  // the foreground bit of the voxel before the word
    for (std::uint32_t i = 0; i < words; ++i) {
        before[i] = n;
        const std::uint64_t cur = m[i];
        const std::uint64_t prev = (cur << 1) | carry;
        start[i] = cur & ~prev;
        // Transitions alternate start, end, start... ; an end is where the voxel before is
        // foreground and this one is not.
        std::uint64_t t = cur ^ prev;
        const std::uint32_t at = i * 64;
        if (carry && t) {  // a run open from the word before ends here first
            x1[n - 1] = at + std::uint32_t(__builtin_ctzll(t));
            t &= t - 1;
        }
        while (t) {
            x0[n] = at + std::uint32_t(__builtin_ctzll(t));
            t &= t - 1;
            x1[n] = t ? at + std::uint32_t(__builtin_ctzll(t)) : w;  // w: open, closed by a later word
            t &= t - 1;
            ++n;
        }
        carry = cur >> 63;
    }
    before[words] = n;
    return n;
}

/// The foreground value of a Gray8 volume with a background: its first voxel that is not
/// background (any value when there is none).
inline std::uint8_t first_foreground(const detail::VolumeRequest& r) {
    const auto bg = std::uint8_t(r.background_key);
    for (std::int64_t z = 0; z < r.depth; ++z)
        for (std::int64_t y = 0; y < r.height; ++y) {
            const std::uint8_t* row = r.row(z, y);
            for (std::int64_t x = 0; x < r.width; ++x)
                if (row[x] != bg) return row[x];
        }
    return std::uint8_t(bg + 1);
}

/// Scans slab @p s (the run scan's Slab: z0, z1, base) of a one-foreground volume into runs and
/// their forest, as the run scan does. @p binary8: any nonzero byte is foreground (no check);
/// else foreground is not r.background_key, and every foreground voxel must be @p fg (NotBinary).
template <int Conn, typename Slab>
__attribute__((always_inline)) inline void scan_slab_body(const detail::VolumeRequest& r, Slab& s, bool binary8,
                                                          std::uint8_t fg, bool avx2) {
    static constexpr auto offs = vol::earlier_rows<Conn>();
    const auto w = std::uint32_t(r.width);
    const std::int64_t h = r.height;
    const std::int64_t rows = (s.z1 - s.z0) * h;
    const std::uint8_t bg = binary8 ? 0 : std::uint8_t(r.background_key);
    SliceBits b;
    b.reset(2 * std::size_t(h), w);
    auto slot = [&](std::int64_t z, std::int64_t y) { return std::size_t((z & 1) * h + y); };
    s.row_begin.assign(std::size_t(rows) + 1, 0);
    // A run needs a background voxel after it: at most (w + 1) / 2 runs a row.
    const std::size_t most = std::size_t(rows) * ((w + 1) / 2);
    for (vol::U32Array* a : {&s.x0, &s.x1, &s.parent}) a->reserve_more(0, most);
    std::uint32_t used = 0;
    std::uint32_t* parent = s.parent.data();
    const vol::SlabForest f{parent, s.base};
    for (std::int64_t z = s.z0; z < s.z1; ++z) {
        for (std::int64_t y = 0; y < h; ++y) {
            const std::size_t lr = std::size_t((z - s.z0) * h + y);
            const std::size_t sl = slot(z, y);
            std::uint64_t* m = b.fg.data() + sl * b.stride;
            bool ok;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
            if (avx2)
                ok = pack_row_avx2(r.row(z, y), w, bg, fg, !binary8, m);
            else
#endif
                ok = pack_row_plain(r.row(z, y), w, bg, fg, !binary8, m);
            if (!ok) throw NotBinary{};
            const std::uint32_t n = cut_row(m, b.words, w, b.start.data() + sl * b.stride, b.before.data() + sl * b.stride,
                                            s.x0.data() + used, s.x1.data() + used);
            s.row_begin[lr] = used;
            s.row_begin[lr + 1] = used + n;
            std::array<RowBits, offs.size()> nb{};
            std::array<bool, offs.size()> there{};
            for (std::size_t i = 0; i < offs.size(); ++i) {
                const std::int64_t nz = z + offs[i].dz, ny = y + offs[i].dy;
                there[i] = nz >= s.z0 && ny >= 0 && ny < h;
                if (there[i]) {
                    const std::size_t q = std::size_t((nz - s.z0) * h + ny);
                    nb[i] = b.row(slot(nz, ny), s.base + s.row_begin[q]);
                }
            }
            const std::uint32_t* x0 = s.x0.data() + used;
            const std::uint32_t* x1 = s.x1.data() + used;
            const std::uint32_t id0 = s.base + used;
            for (std::uint32_t c = 0; c < n; ++c) {
                std::uint32_t root = id0 + c;
                parent[used + c] = root;
                for (std::size_t i = 0; i < offs.size(); ++i) {
                    if (!there[i]) continue;
                    const std::uint32_t slack = offs[i].slack;
                    const std::uint32_t a = x0[c] - (x0[c] >= slack ? slack : 0);  // x0 - 1 clamped at 0
                    const std::uint32_t e = std::min(x1[c] + slack, w);
                    const RowBits& q = nb[i];
                    std::uint32_t t = q.rank(a) - q.inside(a);
                    const std::uint32_t t1 = q.rank(e);
                    for (; t < t1; ++t) root = f.join(root, q.id0 + t);
                }
                parent[used + c] = root;
            }
            used += n;
        }
    }
    s.runs = used;
    s.key.reserve_more(0, used);  // the seams' sweep compares keys: one key
    std::fill(s.key.data(), s.key.data() + used, 1u);
    vol::count_row_roots(s, rows);
}

template <int Conn, typename Slab>
void scan_slab_plain(const detail::VolumeRequest& r, Slab& s, bool binary8, std::uint8_t fg) {
    scan_slab_body<Conn>(r, s, binary8, fg, false);
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
/// With the popcount and count-trailing-zeros instructions (without them GCC calls a library
/// popcount: the scan took 2.5x as long).
template <int Conn, typename Slab>
__attribute__((target("avx2,bmi,popcnt"))) void scan_slab_avx2(const detail::VolumeRequest& r, Slab& s, bool binary8,
                                                                 std::uint8_t fg) {
    scan_slab_body<Conn>(r, s, binary8, fg, true);
}
#endif

/// Scans slab @p s (see scan_slab_body) with the instructions this CPU has.
template <int Conn, typename Slab>
void scan_slab(const detail::VolumeRequest& r, Slab& s, bool binary8, std::uint8_t fg) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    static const bool fast = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi") &&
                             __builtin_cpu_supports("popcnt");
    if (fast) return scan_slab_avx2<Conn>(r, s, binary8, fg);
#endif
    scan_slab_plain<Conn>(r, s, binary8, fg);
}

}  // namespace cclabel::cpu::bits
