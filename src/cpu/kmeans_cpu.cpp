// K-means on the CPU: the GPU's steps (k-means++ on the sample, fused assign + sums, update) with
// chunks of pixels for blocks, so the integer sums and hence the result equal the GPU's.
#include <vector>

#include "core/segment_backends.hpp"
#include "cpu/parallel_chunks.hpp"

namespace cclabel::detail {

namespace {

/// One assign pass: writes the clusters, returns the changed pixels (when @p compare) and the
/// per-cluster sums (k × 4: R, G, B, count).
std::uint64_t assign_pass(const seg::Picture& p, int threads, const std::uint32_t* centres, std::uint32_t k,
                          std::uint32_t* clusters, bool compare, std::vector<unsigned long long>& sums) {
    const std::uint64_t pixels = std::uint64_t(p.width) * p.height;
    threads = cpu::chunk_threads(threads, pixels);
    std::vector<std::vector<unsigned long long>> local(std::size_t(threads), std::vector<unsigned long long>(4 * k, 0));
    std::vector<std::uint64_t> changed(std::size_t(threads), 0);
    cpu::for_chunks(threads, pixels, [&](int t, std::uint64_t chunk) {
        cpu::PlainAdd add;
        std::uint32_t c = 0;
        seg::kmeans_assign(p, chunk, 0, 1, cpu::kChunkPixels, centres, k, clusters, compare, c,
                           local[std::size_t(t)].data(), add);
        changed[std::size_t(t)] += c;
    });
    sums.assign(4 * std::size_t(k), 0);
    std::uint64_t total = 0;
    for (int t = 0; t < threads; ++t) {
        for (std::size_t i = 0; i < sums.size(); ++i) sums[i] += local[std::size_t(t)][i];
        total += changed[std::size_t(t)];
    }
    return total;
}

}  // namespace

KMeansResult kmeans_cpu(const seg::Picture& p, int threads, std::uint32_t* clusters, const KMeansOptions& options) {
    const std::uint64_t pixels = std::uint64_t(p.width) * p.height;
    const auto k = std::uint32_t(options.k);

    const std::uint32_t n = seg::kmeans_sample_size(pixels);
    std::vector<std::uint32_t> sample(3 * std::size_t(n)), dist(n);
    for (std::uint32_t j = 0; j < n; ++j) {
        const std::uint64_t i = seg::kmeans_sample_index(options.seed, j, pixels);
        seg::kmeans_point(p, std::uint32_t(i % p.width), std::uint32_t(i / p.width), &sample[3 * std::size_t(j)]);
    }
    std::vector<std::uint32_t> centres(3 * std::size_t(k));
    seg::kmeans_plus_plus(sample.data(), n, k, options.seed, centres.data(), dist.data());

    KMeansResult result;
    std::vector<unsigned long long> sums;
    assign_pass(p, threads, centres.data(), k, clusters, false, sums);
    for (int it = 1; it <= options.max_iterations; ++it) {
        for (std::uint32_t c = 0; c < k; ++c)
            for (int ch = 0; ch < 3; ++ch)
                centres[3 * c + ch] = seg::kmeans_new_centre(sums[4 * c + ch], sums[4 * c + 3], centres[3 * c + ch]);
        result.iterations = std::uint32_t(it);
        if (assign_pass(p, threads, centres.data(), k, clusters, true, sums) == 0) {
            result.converged = true;
            break;
        }
    }
    result.centres.resize(k);
    for (std::uint32_t c = 0; c < k; ++c)
        for (int ch = 0; ch < 3; ++ch)
            result.centres[c][std::size_t(ch)] = float(centres[3 * c + ch]) / float(1 << kKMeansFractionBits);
    result.backend = Backend::Cpu;
    return result;
}

}  // namespace cclabel::detail
