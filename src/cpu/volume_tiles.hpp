#pragma once
// The run scan of the CPU volume labeller (cpu/label3d_cpu.cpp) for volumes without a background
// whose rows are long runs (label volumes: Voronoi cells, segmentations): every voxel is in a run,
// so a row's runs tile [0, w) and the runs of an earlier row that touch a run are the consecutive
// ones from the run holding x = s - slack to the run holding x = e - 1 + slack (volume_runs.hpp's
// picture). That drops the general sweep's checks for gaps, and lets the scan
//   - find the runs of U32 rows in place, 8 voxels a compare (no row of keys, no store a voxel);
//   - unite with a touching run of another key as with itself (a no-op), so that the key compare
//     is a select, not a branch that cell borders mispredict half the time;
//   - take, under 18 and 26, the set of the run behind (y, z - 1) at once when that run has the
//     key and covers the run (26: [s, e); 18: [s - 1, e]): every earlier neighbour of the run's
//     voxels with the key touches a voxel of the run behind, so it is in that run's set already.
// The runs go into the run scan's slab (x0, x1, key, parent), so its seams and numbering serve.
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <vector>

#include "cclabel/detail/pixel_traits.hpp"
#include "core/volume_request.hpp"
#include "cpu/row_keys.hpp"
#include "cpu/volume_runs.hpp"
#include "cpu/volume_seams.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#endif

namespace cclabel::cpu::tiles {

/// x1 of each of the @p n runs from the starts: the next run's start, w for the last.
inline void close_runs(const std::uint32_t* __restrict x0, std::uint32_t n, std::uint32_t w, std::uint32_t* __restrict x1) {
    for (std::uint32_t i = 0; i + 1 < n; ++i) x1[i] = x0[i + 1];
    x1[n - 1] = w;
}

/// The runs of a row of @p w 4-byte keys at @p row (any alignment), scalar.
inline std::uint32_t cut_u32_plain(const std::uint8_t* row, std::uint32_t w, std::uint32_t* __restrict x0,
                                   std::uint32_t* __restrict x1, std::uint32_t* __restrict key) {
    auto at = [&](std::uint32_t x) {
        std::uint32_t v;
        std::memcpy(&v, row + std::size_t(x) * 4, 4);
        return v;
    };
    std::uint32_t n = 1, prev = at(0);
    x0[0] = 0;
    key[0] = prev;
    for (std::uint32_t x = 1; x < w; ++x) {
        const std::uint32_t v = at(x);
        if (v != prev) {
            x0[n] = x;
            key[n] = v;
            ++n;
        }
        prev = v;
    }
    close_runs(x0, n, w, x1);
    return n;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
/// cut_u32_plain 8 voxels a compare: the cost follows the runs, not the voxels. AVX2.
__attribute__((target("avx2,bmi"))) inline std::uint32_t cut_u32_avx2(const std::uint8_t* row, std::uint32_t w,
                                                                      std::uint32_t* __restrict x0,
                                                                      std::uint32_t* __restrict x1,
                                                                      std::uint32_t* __restrict key) {
    auto at = [&](std::uint32_t x) {
        std::uint32_t v;
        std::memcpy(&v, row + std::size_t(x) * 4, 4);
        return v;
    };
    std::uint32_t n = 1;
    x0[0] = 0;
    key[0] = at(0);
    std::uint32_t x = 1;
    for (; x + 8 <= w; x += 8) {
        const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(row + std::size_t(x) * 4));
        const __m256i p = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(row + std::size_t(x) * 4 - 4));
        std::uint32_t differ = ~std::uint32_t(_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(v, p)))) & 0xFFu;
        for (; differ; differ &= differ - 1) {
            const std::uint32_t xs = x + std::uint32_t(__builtin_ctz(differ));
            x0[n] = xs;
            key[n] = at(xs);
            ++n;
        }
    }
    for (; x < w; ++x)
        if (at(x) != at(x - 1)) {
            x0[n] = x;
            key[n] = at(x);
            ++n;
        }
    close_runs(x0, n, w, x1);
    return n;
}
#endif

/// The run behind a run must cover for the run to take its set alone (see the file's comment):
/// -1 where no such shortcut holds (6: the voxel behind touches no other earlier neighbour).
template <int Conn>
inline constexpr int kCoverSlack = Conn == 26 ? 0 : Conn == 18 ? 1 : -1;

/// Index of the row behind (y, z - 1) in earlier_rows<Conn>().
template <int Conn>
constexpr std::size_t behind_index() {
    constexpr auto offs = vol::earlier_rows<Conn>();
    for (std::size_t i = 0; i < offs.size(); ++i)
        if (offs[i].dz == -1 && offs[i].dy == 0) return i;
    return 0;
}

/// A row's run starts as bits (64 voxels a word, a spare word of zeros) and the runs started
/// before each word: rank(p), the runs starting before x = p, is then a popcount, and the run
/// holding x is rank(x + 1) - 1 (the row is tiled), with no walk through the row.
struct StartBits {
    const std::uint64_t* start = nullptr;
    const std::uint32_t* before = nullptr;
    std::uint32_t rank(std::uint32_t p) const {
        return before[p >> 6] + std::uint32_t(__builtin_popcountll(start[p >> 6] & ((std::uint64_t(1) << (p & 63)) - 1)));
    }
};

/// Writes the start bits and counts of a row of @p n runs starting at @p x0 (words + 1 words).
inline void mark_starts(const std::uint32_t* x0, std::uint32_t n, std::uint32_t words, std::uint64_t* start,
                        std::uint32_t* before) {
    std::fill(start, start + words + 1, 0);
    for (std::uint32_t i = 0; i < n; ++i) start[x0[i] >> 6] |= std::uint64_t(1) << (x0[i] & 63);
    std::uint32_t c = 0;
    for (std::uint32_t i = 0; i <= words; ++i) {
        before[i] = c;
        c += std::uint32_t(__builtin_popcountll(start[i]));
    }
}

/// Joins the runs of row @p cur (its parents written here) with the runs of the earlier rows @p nb
/// (their start bits in @p bits) that touch them and have their key, all rows tiled by their runs
/// (rows outside the slab: n = 0). @p cover: the shortcut of the file's comment
/// (Switches::tiles_cover).
template <int Conn>
__attribute__((always_inline)) inline void join_row(const vol::RowRuns& cur,
                                                    const std::array<vol::RowRuns, vol::earlier_rows<Conn>().size()>& nb,
                                                    const std::array<StartBits, vol::earlier_rows<Conn>().size()>& bits,
                                                    std::uint32_t w, const vol::SlabForest& f, bool cover) {
    static constexpr auto rows = vol::earlier_rows<Conn>();
    constexpr std::size_t kB = behind_index<Conn>();
    std::uint32_t* parent = f.parent;
    const std::uint32_t base = f.base;
    // The runs of row r touching [s, e): those holding x = s - slack .. e - 1 + slack, clamped.
    auto first = [&](std::size_t r, std::uint32_t s, std::uint32_t slack) {
        return bits[r].rank((s >= slack ? s - slack : 0) + 1) - 1;
    };
    auto last = [&](std::size_t r, std::uint32_t e, std::uint32_t slack) { return bits[r].rank(std::min(e + slack, w)) - 1; };
    for (std::uint32_t c = 0; c < cur.n; ++c) {
        const std::uint32_t s = cur.x0[c], e = cur.x1[c], k = cur.key[c];
        std::uint32_t root = cur.id0 + c;
        parent[root - base] = root;
        if constexpr (kCoverSlack<Conn> >= 0) {
            const vol::RowRuns& q = nb[kB];
            if (cover && q.n) {
                constexpr std::uint32_t cs = std::uint32_t(kCoverSlack<Conn>);
                const std::uint32_t t = first(kB, s, cs);
                if (q.key[t] == k && last(kB, e, cs) == t) {
                    parent[root - base] = f.find(q.id0 + t);
                    continue;
                }
            }
        }
        for (std::size_t r = 0; r < rows.size(); ++r) {
            const vol::RowRuns& q = nb[r];
            if (q.n == 0) continue;
            const std::uint32_t slack = rows[r].slack;
            const std::uint32_t t0 = first(r, s, slack), t1 = last(r, e, slack);
            // Another key unites the root with itself: a select instead of a branch that cell
            // borders would mispredict; the first and last touching runs are joined without a loop.
            root = f.join(root, q.key[t0] == k ? q.id0 + t0 : root);
            root = f.join(root, q.key[t1] == k ? q.id0 + t1 : root);
            for (std::uint32_t t = t0 + 1; t < t1; ++t) root = f.join(root, q.key[t] == k ? q.id0 + t : root);
        }
        parent[cur.id0 + c - base] = root;
    }
}

}  // namespace cclabel::cpu::tiles
