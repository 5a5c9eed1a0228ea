#pragma once
// What the CPU region statistics of pictures (stats_cpu.cpp) and of volumes (volume_stats_cpu.cpp)
// share: work cut into even slices on threads, the largest label, and the per-thread dense tables
// of per-label partial sums, merged label range by label range.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "cpu/thread_pool.hpp"

namespace cclabel::cpu {

/// Runs fn(part, begin, end) for `parts` even slices of [0, n), on `parts` threads (this one too).
template <typename Fn>
void parallel_slices(int parts, std::uint64_t n, Fn&& fn) {
    auto slice = [&](int p) { return n * std::uint64_t(p) / std::uint64_t(parts); };
    run_parallel(parts, [&](int p) { fn(p, slice(p), slice(p + 1)); });
}

/// The largest of @p n labels, read on @p threads threads.
inline std::uint32_t largest_label(const std::uint32_t* labels, std::uint64_t n, int threads) {
    std::vector<std::uint32_t> part_max(std::size_t(threads), 0);
    parallel_slices(threads, n, [&](int t, std::uint64_t b, std::uint64_t e) {
        std::uint32_t m = 0;
        for (std::uint64_t i = b; i < e; ++i) m = std::max(m, labels[i]);
        part_max[std::size_t(t)] = m;
    });
    return *std::max_element(part_max.begin(), part_max.end());
}

/// @p threads, fewer where each thread's dense table of @p rows entries of @p entry_bytes would
/// take the tables past 256 MiB beyond the first.
inline int table_threads(int threads, std::uint64_t rows, std::uint64_t entry_bytes) {
    const std::uint64_t cap = std::uint64_t(256) << 20;
    return int(std::min<std::uint64_t>(std::uint64_t(threads), 1 + cap / (rows * entry_bytes)));
}

/// Calls finish(l, merged) for every label l of the tables (each of the same length), merged with
/// Partial::add in table order, on up to as many threads as there are tables (one a 4096 labels).
template <typename Partial, typename Finish>
void merge_tables(const std::vector<std::vector<Partial>>& tables, Finish&& finish) {
    const std::uint64_t rows = tables[0].size();
    const int threads = int(std::min<std::uint64_t>(tables.size(), std::max<std::uint64_t>(1, rows >> 12)));
    parallel_slices(threads, rows, [&](int, std::uint64_t b, std::uint64_t e) {
        for (std::uint64_t l = b; l < e; ++l) {
            Partial m = tables[0][l];
            for (std::size_t t = 1; t < tables.size(); ++t) m.add(tables[t][l]);
            finish(l, m);
        }
    });
}

}  // namespace cclabel::cpu
