// Histogram, Otsu's threshold and thresholding on the CPU, through the same bodies as the GPU.
#include <vector>

#include "core/segment_backends.hpp"
#include "cpu/parallel_chunks.hpp"

namespace cclabel::detail {

void histogram_cpu(const seg::Picture& p, int threads, std::uint32_t* hist) {
    const std::uint64_t pixels = std::uint64_t(p.width) * p.height;
    const std::uint32_t bins = seg::histogram_bins(p.format);
    threads = cpu::chunk_threads(threads, pixels);
    std::vector<std::vector<std::uint32_t>> local(std::size_t(threads), std::vector<std::uint32_t>(bins, 0));
    cpu::for_chunks(threads, pixels, [&](int t, std::uint64_t chunk) {
        cpu::PlainAdd add;
        seg::histogram_count(p, chunk, 0, 1, cpu::kChunkPixels, 0, bins, local[std::size_t(t)].data(), add);
    });
    for (std::uint32_t b = 0; b < bins; ++b) hist[b] = 0;
    for (const auto& h : local)
        for (std::uint32_t b = 0; b < bins; ++b) hist[b] += h[b];
}

std::uint32_t otsu_from_histogram(const std::uint32_t* hist, std::uint32_t bins) {
    std::uint64_t n = 0, s = 0;
    seg::histogram_totals(hist, 0, bins, n, s);
    double best = -1.0;
    std::uint32_t best_t = 0;
    seg::otsu_chunk(hist, 0, bins, 0, 0, n, s, best, best_t);
    return best_t;
}

void threshold_cpu(const seg::Picture& p, int threads, std::uint32_t t, std::uint8_t* mask) {
    const std::uint64_t pixels = std::uint64_t(p.width) * p.height;
    cpu::for_chunks(cpu::chunk_threads(threads, pixels), pixels, [&](int, std::uint64_t chunk) {
        const std::uint64_t begin = chunk * cpu::kChunkPixels;
        const std::uint64_t end = std::min<std::uint64_t>(pixels, begin + cpu::kChunkPixels);
        for (seg::PixelWalk w(std::uint32_t(begin), p.width);; w.advance(1, p.width)) {
            mask[w.i] = seg::threshold_pixel(p, w.x, w.y, t);
            if (w.i + 1 >= end) break;
        }
    });
}

}  // namespace cclabel::detail
