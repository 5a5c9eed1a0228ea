#pragma once
// Runs of one key along x in the rows of a volume, and the sweep that finds which runs of the
// earlier neighbouring rows touch a run under 6-, 18- or 26-connectivity (cpu/label3d_cpu.cpp).
//
// Voxel (x, y, z) has 13 earlier neighbours under 26-connectivity: (x - 1, y, z) in its own row,
// which a run covers, and three voxels x - 1..x + 1 in each of four earlier rows:
//
//        slice z - 1            slice z
//      y-1  o o o             y-1  o o o
//      y    o o o             y    o X .        X the voxel, o its earlier 26-neighbours
//      y+1  o o o             y+1  . . .
//
// 18-connectivity drops the four corners of slice z - 1 (offsets with three nonzero coordinates),
// so rows (y - 1, z - 1) and (y + 1, z - 1) touch through x itself only; 6-connectivity keeps the
// faces: (x, y - 1, z) and (x, y, z - 1). A run [s, e) of the current row touches a run [s', e') of a
// neighbouring row when s' < e + slack and e' + slack > s, slack 1 where x - 1 and x + 1 count and
// 0 where only x does.
#include <array>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#endif

namespace cclabel::cpu::vol {

/// An earlier row of a voxel's row (dz, dy) and whether x ± 1 count there (slack 1) or only x (0).
struct RowOffset {
    int dz, dy;
    std::uint32_t slack;
};

/// The earlier rows whose runs can touch a run of row (y, z) under @p Conn (see the file's picture).
template <int Conn>
constexpr auto earlier_rows() {
    if constexpr (Conn == 6) {
        return std::array<RowOffset, 2>{{{0, -1, 0}, {-1, 0, 0}}};
    } else if constexpr (Conn == 18) {
        return std::array<RowOffset, 4>{{{0, -1, 1}, {-1, -1, 0}, {-1, 0, 1}, {-1, 1, 0}}};
    } else {
        static_assert(Conn == 26);
        return std::array<RowOffset, 4>{{{0, -1, 1}, {-1, -1, 1}, {-1, 0, 1}, {-1, 1, 1}}};
    }
}

/// A growable array of uint32_t that never initialises what it allocates (the scan writes every
/// element before reading it).
class U32Array {
public:
    /// Switches::huge_pages: an allocation of kHugeMin bytes or more is asked for on 2 MiB pages
    /// (MADV_HUGEPAGE). The scans reserve a run or an id a voxel and touch only as far as they
    /// reach; on 4 KiB pages each page touched is a fault (5 labels at 6, 256^3: 8,400 a call,
    /// about 10 ms of 115), on 2 MiB pages one in 512. Where the kernel's transparent huge pages
    /// are off, nothing changes.
    bool huge = false;
    static constexpr std::size_t kHugePage = std::size_t(1) << 21, kHugeMin = std::size_t(4) << 20;
    std::uint32_t* data() noexcept { return p_.get(); }
    const std::uint32_t* data() const noexcept { return p_.get(); }
    std::uint32_t& operator[](std::size_t i) noexcept { return p_[i]; }
    std::uint32_t operator[](std::size_t i) const noexcept { return p_[i]; }
    /// Makes room for @p n more elements past @p used, keeping the first @p used.
    void reserve_more(std::size_t used, std::size_t n) {
        if (used + n <= cap_) return;
        std::size_t cap = std::max<std::size_t>(cap_ * 2, used + n);
        std::unique_ptr<std::uint32_t[], Free> q;
        if (huge && cap * 4 >= kHugeMin) {
            const std::size_t bytes = (cap * 4 + kHugePage - 1) & ~(kHugePage - 1);
            q.reset(static_cast<std::uint32_t*>(std::aligned_alloc(kHugePage, bytes)));
            if (!q) throw std::bad_alloc();
#if defined(__linux__)
            madvise(q.get(), bytes, MADV_HUGEPAGE);  // a hint: where it fails, 4 KiB pages
#endif
        } else {
            q.reset(static_cast<std::uint32_t*>(std::malloc(cap * 4)));
            if (!q) throw std::bad_alloc();
        }
        if (used) std::copy(p_.get(), p_.get() + used, q.get());
        p_ = std::move(q);
        cap_ = cap;
    }

private:
    struct Free {
        void operator()(std::uint32_t* p) const noexcept { std::free(p); }
    };
    std::unique_ptr<std::uint32_t[], Free> p_;
    std::size_t cap_ = 0;
};

/// The runs of one row: x ranges [x0, x1), keys, and the id of the first (ids are consecutive).
struct RowRuns {
    const std::uint32_t* x0 = nullptr;
    const std::uint32_t* x1 = nullptr;
    const std::uint32_t* key = nullptr;
    std::uint32_t n = 0;
    std::uint32_t id0 = 0;
};

/// Drops the runs of the background key from the @p n runs at @p x0, @p x1, @p key; returns how
/// many are left.
inline std::uint32_t drop_background(std::uint32_t n, std::uint32_t background, std::uint32_t* __restrict x0,
                                     std::uint32_t* __restrict x1, std::uint32_t* __restrict key) {
    std::uint32_t m = 0;
    for (std::uint32_t i = 0; i < n; ++i) {
        x0[m] = x0[i];
        x1[m] = x1[i];
        key[m] = key[i];
        m += key[i] != background;
    }
    return m;
}

/// Cuts a row of @p w keys into runs of one key, written at @p x0, @p x1, @p key (room for w each);
/// runs of the background key are left out when @p has_background. Returns the number of runs.
/// Branch-free: on noise nearly every voxel starts a run, and a branch on it would mispredict.
inline std::uint32_t cut_runs(const std::uint32_t* __restrict keys, std::uint32_t w, bool has_background,
                              std::uint32_t background, std::uint32_t* __restrict x0, std::uint32_t* __restrict x1,
                              std::uint32_t* __restrict key) {
    std::uint32_t n = 1;
    x0[0] = 0;
    key[0] = keys[0];
    for (std::uint32_t x = 1; x < w; ++x) {
        x0[n] = x;
        key[n] = keys[x];
        n += keys[x] != keys[x - 1];
    }
    for (std::uint32_t i = 0; i + 1 < n; ++i) x1[i] = x0[i + 1];
    x1[n - 1] = w;
    return has_background ? drop_background(n, background, x0, x1, key) : n;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
/// cut_runs for a row of one-byte voxels read in place (Gray8, or Binary8 when @p binary: keys
/// 0 and 1): the starts of runs are found 32 voxels a compare, so the cost follows the runs, not the
/// voxels (blobs, masks). Same output as cut_runs on the row's keys. AVX2.
__attribute__((target("avx2,bmi"))) inline std::uint32_t cut_runs_bytes_avx2(
    const std::uint8_t* __restrict row, std::uint32_t w, bool binary, bool has_background, std::uint32_t background,
    std::uint32_t* __restrict x0, std::uint32_t* __restrict x1, std::uint32_t* __restrict key) {
    auto key_at = [&](std::uint32_t x) { return binary ? std::uint32_t(row[x] != 0) : std::uint32_t(row[x]); };
    std::uint32_t n = 0;
    auto start = [&](std::uint32_t x) {
        x0[n] = x;
        key[n] = key_at(x);
        ++n;
    };
    start(0);
    std::uint32_t x = 1;
    const __m256i zero = _mm256_setzero_si256();
    for (; x + 32 <= w; x += 32) {
        const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(row + x));
        const __m256i p = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(row + x - 1));
        std::uint32_t differ;
        if (binary)
            differ = std::uint32_t(_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, zero))) ^
                     std::uint32_t(_mm256_movemask_epi8(_mm256_cmpeq_epi8(p, zero)));
        else
            differ = ~std::uint32_t(_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, p)));
        for (; differ; differ &= differ - 1) start(x + std::uint32_t(__builtin_ctz(differ)));
    }
    for (; x < w; ++x)
        if (key_at(x) != key_at(x - 1)) start(x);
    for (std::uint32_t i = 0; i + 1 < n; ++i) x1[i] = x0[i + 1];
    x1[n - 1] = w;
    return has_background ? drop_background(n, background, x0, x1, key) : n;
}
#endif

/// For every run c of @p cur, in order: begin(c), then touch(c, id) for each run of the rows
/// @p nb (one per entry of earlier_rows<Conn>(), n = 0 where the row is outside the volume or the
/// slab) with c's key that touches c, then end(c). Runs of a row are sorted by x and disjoint, so
/// one cursor a neighbouring row walks it once.
template <int Conn, typename Begin, typename Touch, typename End>
void sweep(const RowRuns& cur, const std::array<RowRuns, earlier_rows<Conn>().size()>& nb, Begin&& begin,
           Touch&& touch, End&& end) {
    static constexpr auto rows = earlier_rows<Conn>();
    std::array<std::uint32_t, rows.size()> j{};
    for (std::uint32_t c = 0; c < cur.n; ++c) {
        const std::uint32_t s = cur.x0[c], e = cur.x1[c], k = cur.key[c];
        begin(c);
        for (std::size_t r = 0; r < rows.size(); ++r) {
            const RowRuns& q = nb[r];
            const std::uint32_t slack = rows[r].slack;
            std::uint32_t t = j[r];
            while (t < q.n && q.x1[t] + slack <= s) ++t;
            j[r] = t;
            for (; t < q.n && q.x0[t] < e + slack; ++t)
                if (q.key[t] == k) touch(c, q.id0 + t);
        }
        end(c);
    }
}

}  // namespace cclabel::cpu::vol
