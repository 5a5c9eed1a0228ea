// Segmentation on the GPU: histogram (per-block shared-memory histograms, per warp and four pixels
// a load for packed Gray8, one global atomic per non-zero bin), Otsu's search (one block over the
// merged histogram), thresholding (sixteen pixels a thread, 16-byte loads and stores where the
// picture and mask allow) and K-means (assign one thread a pixel with block-local 64-bit sums merged by few global
// atomics, or for k ≤ 16 per-thread counters and dot-product distances; k-means++ by one block;
// update by one small kernel; the early stop decided on the GPU). The per-thread logic is
// segment_bodies.cuh, shared with the CPU, so the results are the CPU's bit for bit.
#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <vector>

#include "cclabel/cuda_segment.hpp"
#include "cclabel/error.hpp"
#include "core/backends.hpp"
#include "core/request.hpp"
#include "core/segment_backends.hpp"
#include "cuda/handles.hpp"
#include "cuda/host_stager.hpp"
#include "cuda/kernels/segment_bodies.cuh"

namespace cclabel::cuda {
namespace {

using detail::check;

constexpr std::uint32_t kThreads = 256;
constexpr std::uint32_t kHistPerBlock = kThreads * 16;
constexpr std::uint32_t kKMeansPerBlock = kThreads * 32;
constexpr std::uint32_t kOtsuThreads = 1024;
constexpr std::uint32_t kInitThreads = 256;
constexpr std::uint32_t kHistPassBins = 8192;
constexpr std::uint32_t kHistWordsPerBlock = kThreads * 32;  // Gray8 words (4 pixels) a block  // shared-memory bins a block counts (32 KiB: no opt-in needed)

struct Atomics {
    CCL_HD void add32(std::uint32_t* p, std::uint32_t v) {
#if defined(__CUDA_ARCH__)
        atomicAdd(p, v);
#else
        *p += v;
#endif
    }
    CCL_HD void add64(unsigned long long* p, unsigned long long v) {
#if defined(__CUDA_ARCH__)
        atomicAdd(p, v);
#else
        *p += v;
#endif
    }
};

std::uint64_t align256(std::uint64_t v) { return (v + 255) / 256 * 256; }

__global__ void histogram_kernel(seg::Picture p, std::uint32_t per_block, std::uint32_t pass_bins, std::uint32_t* hist) {
    extern __shared__ std::uint32_t local[];
    for (std::uint32_t b = threadIdx.x; b < pass_bins; b += blockDim.x) local[b] = 0;
    __syncthreads();
    Atomics a;
    const std::uint32_t lo = blockIdx.y * pass_bins;
    seg::histogram_count(p, blockIdx.x, threadIdx.x, blockDim.x, per_block, lo, pass_bins, local, a);
    __syncthreads();
    seg::histogram_merge(threadIdx.x, blockDim.x, lo, pass_bins, local, hist, a);
}

__global__ void otsu_kernel(const std::uint32_t* hist, std::uint32_t bins, std::uint32_t* out) {
    __shared__ unsigned long long w[kOtsuThreads], s[kOtsuThreads];
    __shared__ double best_score[kOtsuThreads];
    __shared__ std::uint32_t best_t[kOtsuThreads];
    const std::uint32_t chunk = (bins + kOtsuThreads - 1) / kOtsuThreads;
    const std::uint32_t b0 = min(bins, threadIdx.x * chunk), b1 = min(bins, b0 + chunk);
    std::uint64_t tw, ts;
    seg::histogram_totals(hist, b0, b1, tw, ts);
    w[threadIdx.x] = tw;
    s[threadIdx.x] = ts;
    __syncthreads();
    __shared__ unsigned long long totals[2];  // N and S
    if (threadIdx.x == 0) {  // exclusive prefix of the chunk totals
        unsigned long long rw = 0, rs = 0;
        for (std::uint32_t i = 0; i < kOtsuThreads; ++i) {
            const unsigned long long a = w[i], b = s[i];
            w[i] = rw;
            s[i] = rs;
            rw += a;
            rs += b;
        }
        totals[0] = rw;
        totals[1] = rs;
    }
    __syncthreads();
    double score = -1.0;
    std::uint32_t t = 0;
    seg::otsu_chunk(hist, b0, b1, w[threadIdx.x], s[threadIdx.x], totals[0], totals[1], score, t);
    __syncthreads();
    best_score[threadIdx.x] = score;
    best_t[threadIdx.x] = t;
    __syncthreads();
    if (threadIdx.x == 0) {
        double b = -1.0;
        std::uint32_t bt = 0;
        for (std::uint32_t i = 0; i < kOtsuThreads; ++i)
            if (best_score[i] >= 0 && seg::otsu_better(best_score[i], best_t[i], b, bt)) {
                b = best_score[i];
                bt = best_t[i];
            }
        *out = bt;
    }
}

/// Sixteen pixels a thread, the mask stored as one 16-byte word where aligned; @p words: a packed,
/// 16-byte-aligned Gray8 picture, read 16 pixels at once.
__global__ void threshold_kernel(seg::Picture p, const std::uint32_t* t_ptr, std::uint32_t t_value, std::uint8_t* mask,
                                 bool words, bool aligned_mask) {
    const std::uint64_t i0 = (std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x) * 16;
    const std::uint64_t pixels = std::uint64_t(p.width) * p.height;
    if (i0 >= pixels) return;
    const std::uint32_t t = t_ptr ? *t_ptr : t_value;
    const std::uint32_t n = pixels - i0 < 16 ? std::uint32_t(pixels - i0) : 16u;
    std::uint32_t m[4];
    if (words && n == 16) {
        const uint4 v = *reinterpret_cast<const uint4*>(p.data + i0);
        m[0] = seg::threshold_word(v.x, t);
        m[1] = seg::threshold_word(v.y, t);
        m[2] = seg::threshold_word(v.z, t);
        m[3] = seg::threshold_word(v.w, t);
    } else {
        seg::threshold_run16(p, std::uint32_t(i0), n, t, m);
    }
    if (aligned_mask && n == 16) {
        *reinterpret_cast<uint4*>(mask + i0) = make_uint4(m[0], m[1], m[2], m[3]);
        return;
    }
#pragma unroll
    for (std::uint32_t j = 0; j < 16; ++j)
        if (j < n) mask[i0 + j] = std::uint8_t(m[j / 4] >> (8 * (j % 4)));
}

/// Gray8, packed and 4-byte aligned: four pixels a load, one histogram per warp (fewer threads
/// on one shared counter), merged into one global atomic per non-zero bin.
__global__ void __launch_bounds__(kThreads) histogram_words_kernel(const std::uint8_t* data, std::uint64_t pixels,
                                                                   std::uint32_t* hist) {
    __shared__ std::uint32_t local[kThreads / 32 * 256];
    for (std::uint32_t b = threadIdx.x; b < kThreads / 32 * 256; b += kThreads) local[b] = 0;
    __syncthreads();
    Atomics a;
    seg::histogram_count_words(data, pixels, blockIdx.x, threadIdx.x, kThreads, kHistWordsPerBlock,
                               local + threadIdx.x / 32 * 256, a);
    __syncthreads();
    seg::histogram_merge_copies(threadIdx.x, kThreads, kThreads / 32, 256, local, hist, a);
}

struct KMeansState {
    std::uint32_t done, changed, iterations, pad;
};

__global__ void kmeans_sample_kernel(seg::Picture p, std::uint64_t seed, std::uint32_t n, std::uint32_t* sample) {
    const std::uint32_t j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= n) return;
    const std::uint64_t pixels = std::uint64_t(p.width) * p.height;
    const std::uint64_t i = seg::kmeans_sample_index(seed, j, pixels);
    seg::kmeans_point(p, std::uint32_t(i % p.width), std::uint32_t(i / p.width), sample + 3 * j);
}

/// k-means++ by one block: the sample and its distances in shared memory, one chunk of points a
/// thread, block-wide sums and a block-wide first crossing between the chunk steps.
__global__ void __launch_bounds__(kInitThreads) kmeans_init_kernel(const std::uint32_t* sample_in, std::uint32_t n,
                                                                   std::uint32_t k, std::uint64_t seed,
                                                                   std::uint32_t* centres, unsigned long long* sums,
                                                                   KMeansState* state) {
    __shared__ std::uint32_t sample[3 * kKMeansSample], dist[kKMeansSample];
    __shared__ unsigned long long warp_before[kInitThreads / 32], total;
    __shared__ std::uint32_t pick;
    const std::uint32_t t = threadIdx.x, lane = t & 31u, warp = t / 32u;
    for (std::uint32_t i = t; i < 4 * k; i += kInitThreads) sums[i] = 0;
    if (t == 0) *state = KMeansState{0, 0, 0, 0};
    if (n == 0) {
        for (std::uint32_t i = t; i < 3 * k; i += kInitThreads) centres[i] = 0;
        return;
    }
    for (std::uint32_t i = t; i < 3 * n; i += kInitThreads) sample[i] = sample_in[i];
    const std::uint32_t chunk = (n + kInitThreads - 1) / kInitThreads;
    const std::uint32_t j0 = min(n, t * chunk), j1 = min(n, j0 + chunk);
    __syncthreads();
    for (std::uint32_t i = 0; i < k; ++i) {
        std::uint32_t pk = std::uint32_t(seg::kmeans_pp_draw(seed, 0) % n);
        if (i > 0) {
            // exclusive prefix of the chunk totals: warp scans, then the warps' totals
            const unsigned long long mine = seg::kmeans_pp_total(dist, j0, j1);
            unsigned long long incl = mine;
            for (std::uint32_t off = 1; off < 32; off *= 2) {
                const unsigned long long y = __shfl_up_sync(0xFFFFFFFFu, incl, off);
                if (lane >= off) incl += y;
            }
            if (lane == 31) warp_before[warp] = incl;
            __syncthreads();
            const std::uint64_t r = seg::kmeans_pp_draw(seed, i);
            if (t == 0) {
                unsigned long long run = 0;
                for (std::uint32_t w = 0; w < kInitThreads / 32; ++w) {
                    const unsigned long long v = warp_before[w];
                    warp_before[w] = run;
                    run += v;
                }
                total = run;
                pick = run == 0 ? std::uint32_t(r % n) : n;
            }
            __syncthreads();
            if (total != 0) {
                const std::uint32_t j = seg::kmeans_pp_find(dist, j0, j1, warp_before[warp] + incl - mine, r % total);
                if (j < j1) atomicMin(&pick, j);
            }
            __syncthreads();
            pk = min(pick, n - 1);
        }
        if (t < 3) centres[3 * i + t] = sample[3 * pk + t];
        seg::kmeans_pp_update(sample, j0, j1, sample + 3 * pk, i == 0, dist);
        __syncthreads();  // dist complete; every thread has read pick and warp_before
    }
}

/// Assign for k ≤ 16: per-thread counters instead of atomics, the centres as dot-product terms.
__global__ void __launch_bounds__(kThreads) kmeans_fast_kernel(seg::Picture p, const std::uint32_t* centres,
                                                               std::uint32_t k, std::uint32_t* clusters, bool compare,
                                                               unsigned long long* sums, KMeansState* state) {
    if (compare && state->done) return;  // uniform across the grid
    extern __shared__ std::uint32_t slots[];  // 2k × kThreads counters
    __shared__ seg::KMeansTerms terms[seg::kKMeansFastK];
    __shared__ std::uint32_t block_sums[4 * seg::kKMeansFastK];
    __shared__ std::uint32_t block_changed;
    const std::uint32_t t = threadIdx.x;
    for (std::uint32_t i = t; i < 2 * k * kThreads; i += kThreads) slots[i] = 0;
    if (t < k) terms[t] = seg::kmeans_terms(centres + 3 * t, t);
    if (t < 4 * k) block_sums[t] = 0;
    if (t == 0) block_changed = 0;
    __syncthreads();
    std::uint32_t changed = 0;
    seg::kmeans_assign_fast(p, blockIdx.x, t, kThreads, seg::kKMeansFastPpt, terms, k, clusters, compare, changed, slots);
    // A thread reads back only its own counters: no barrier before. A warp's sums stay below
    // 32 · 128 · 255 and a block's below 2^23.
    for (std::uint32_t c = 0; c < k; ++c) {
        std::uint32_t v[4];
        seg::kmeans_unpack(slots[seg::kmeans_slot(c, 0, t, kThreads)], slots[seg::kmeans_slot(c, 1, t, kThreads)], v);
        for (std::uint32_t ch = 0; ch < 4; ++ch) {
            const std::uint32_t s = __reduce_add_sync(0xFFFFFFFFu, v[ch]);
            if ((t & 31u) == 0 && s) atomicAdd(&block_sums[4 * c + ch], s);
        }
    }
    changed = __reduce_add_sync(0xFFFFFFFFu, changed);
    if ((t & 31u) == 0 && changed) atomicAdd(&block_changed, changed);
    __syncthreads();
    if (t == 0 && block_changed) atomicAdd(&state->changed, block_changed);
    if (t < 4 * k && block_sums[t]) atomicAdd(&sums[t], static_cast<unsigned long long>(block_sums[t]));
}

__global__ void kmeans_assign_kernel(seg::Picture p, const std::uint32_t* centres, std::uint32_t k,
                                     std::uint32_t* clusters, bool compare, unsigned long long* sums,
                                     KMeansState* state) {
    if (compare && state->done) return;  // uniform across the grid
    extern __shared__ unsigned long long shared[];
    unsigned long long* local = shared;                                        // 4k sums
    auto* c = reinterpret_cast<std::uint32_t*>(shared + 4 * k);                // 3k centre values
    __shared__ std::uint32_t block_changed;
    for (std::uint32_t i = threadIdx.x; i < 4 * k; i += blockDim.x) local[i] = 0;
    for (std::uint32_t i = threadIdx.x; i < 3 * k; i += blockDim.x) c[i] = centres[i];
    if (threadIdx.x == 0) block_changed = 0;
    __syncthreads();
    Atomics a;
    std::uint32_t changed = 0;
    seg::kmeans_assign(p, blockIdx.x, threadIdx.x, blockDim.x, kKMeansPerBlock, c, k, clusters, compare, changed, local, a);
    for (int off = 16; off > 0; off /= 2) changed += __shfl_down_sync(0xFFFFFFFFu, changed, off);
    if ((threadIdx.x & 31) == 0 && changed) atomicAdd(&block_changed, changed);
    __syncthreads();
    if (threadIdx.x == 0 && block_changed) atomicAdd(&state->changed, block_changed);
    for (std::uint32_t i = threadIdx.x; i < 4 * k; i += blockDim.x)
        if (local[i]) atomicAdd(&sums[i], local[i]);
}

__global__ void kmeans_update_kernel(std::uint32_t k, std::uint32_t* centres, unsigned long long* sums,
                                     KMeansState* state, std::uint32_t it) {
    __shared__ bool stop;
    if (threadIdx.x == 0) {
        stop = state->done || (it > 1 && state->changed == 0);
        if (stop) state->done = 1;
    }
    __syncthreads();
    if (stop) return;
    for (std::uint32_t c = threadIdx.x; c < k; c += blockDim.x) {
        unsigned long long* s = sums + 4 * c;
        for (int ch = 0; ch < 3; ++ch) centres[3 * c + ch] = seg::kmeans_new_centre(s[ch], s[3], centres[3 * c + ch]);
        s[0] = s[1] = s[2] = s[3] = 0;
    }
    if (threadIdx.x == 0) {
        state->changed = 0;
        state->iterations = it;
    }
}

__global__ void kmeans_finish_kernel(std::uint32_t k, const std::uint32_t* centres, const KMeansState* state,
                                     std::uint32_t* out_centres, KMeansDeviceInfo* info) {
    for (std::uint32_t i = threadIdx.x; i < 3 * k; i += blockDim.x) out_centres[i] = centres[i];
    if (threadIdx.x == 0 && info)
        *info = KMeansDeviceInfo{state->iterations, state->iterations > 0 && state->changed == 0 ? 1u : 0u};
}

struct Checked {
    seg::Picture p{};
    std::uint64_t pixels = 0;
};

Checked check_view(const char* what, const ImageView& image, const void* out, const char* out_name) {
    static std::uint32_t dummy;
    const cclabel::detail::Request r = cclabel::detail::make_request(image, &dummy, Options{});
    Checked c;
    c.pixels = r.pixels();
    if (c.pixels != 0 && out == nullptr) throw Error(std::string(what) + ": " + out_name + " is null for a non-empty image");
    c.p = seg::Picture{r.data, std::uint64_t(r.stride), std::uint32_t(r.width), std::uint32_t(r.height), int(r.format)};
    return c;
}

void need_workspace(const char* what, std::size_t have, std::size_t need) {
    if (have < need)
        throw Error(std::string(what) + ": workspace of " + std::to_string(have) + " bytes is too small (needs " +
                    std::to_string(need) + ")");
}

unsigned blocks_for(std::uint64_t pixels, std::uint32_t per_block) { return unsigned((pixels + per_block - 1) / per_block); }

struct KMeansLayout {
    std::uint64_t state = 0, centres = 0, sums = 0, sample = 0, bytes = 0;
    explicit KMeansLayout(std::uint32_t k) {
        centres = align256(sizeof(KMeansState));
        sums = centres + align256(3ull * k * 4);
        sample = sums + align256(4ull * k * 8);
        bytes = sample + align256(3ull * kKMeansSample * 4);
    }
};

}  // namespace

void otsu_threshold_device(void* workspace, std::size_t& workspace_bytes, const ImageView& image, std::uint32_t* threshold,
                           cudaStream_t stream) {
    const Checked c = check_view("otsu_threshold_device", image, threshold, "threshold");
    if (image.format == PixelFormat::Binary8 || image.format == PixelFormat::U32)
        throw Error("otsu_threshold_device: " + std::string(format_name(image.format)) +
                    " images are not supported (supported: gray8, gray16, rgb8, rgba8)");
    const std::uint32_t bins = seg::histogram_bins(int(image.format));
    const std::size_t need = bins * sizeof(std::uint32_t);
    if (workspace == nullptr) {
        workspace_bytes = need;
        return;
    }
    need_workspace("otsu_threshold_device", workspace_bytes, need);
    if (c.pixels == 0) {
        if (threshold) CCL_CUDA(cudaMemsetAsync(threshold, 0, sizeof(std::uint32_t), stream));
        return;
    }
    auto* hist = static_cast<std::uint32_t*>(workspace);
    CCL_CUDA(cudaMemsetAsync(hist, 0, need, stream));
    if (image.format == PixelFormat::Gray8 && c.p.stride == c.p.width && reinterpret_cast<std::uintptr_t>(c.p.data) % 4 == 0) {
        histogram_words_kernel<<<blocks_for(c.pixels / 4 + 1, kHistWordsPerBlock), kThreads, 0, stream>>>(c.p.data,
                                                                                                           c.pixels, hist);
        CCL_LAUNCHED("histogram_words_kernel");
    } else {
        const std::uint32_t pass_bins = bins < kHistPassBins ? bins : kHistPassBins;
        const std::uint32_t per_block = bins > 256 ? kThreads * 64 : kHistPerBlock;
        histogram_kernel<<<dim3(blocks_for(c.pixels, per_block), bins / pass_bins), kThreads, pass_bins * 4, stream>>>(
            c.p, per_block, pass_bins, hist);
        CCL_LAUNCHED("histogram_kernel");
    }
    otsu_kernel<<<1, kOtsuThreads, 0, stream>>>(hist, bins, threshold);
    CCL_LAUNCHED("otsu_kernel");
}

namespace {
void threshold_launch(const ImageView& image, const std::uint32_t* t_ptr, std::uint32_t t, std::uint8_t* mask,
                      cudaStream_t stream) {
    const Checked c = check_view("threshold_device", image, mask, "mask");
    if (image.format == PixelFormat::Binary8)
        throw Error("threshold_device: binary8 images are not supported (supported: gray8, gray16, u32, rgb8, rgba8)");
    if (c.pixels == 0) return;
    const bool words = image.format == PixelFormat::Gray8 && c.p.stride == c.p.width &&
                       reinterpret_cast<std::uintptr_t>(c.p.data) % 16 == 0;
    const bool aligned_mask = reinterpret_cast<std::uintptr_t>(mask) % 16 == 0;
    threshold_kernel<<<blocks_for(c.pixels, kThreads * 16), kThreads, 0, stream>>>(c.p, t_ptr, t, mask, words, aligned_mask);
    CCL_LAUNCHED("threshold_kernel");
}
}  // namespace

void threshold_device(const ImageView& image, const std::uint32_t* threshold, std::uint8_t* mask, cudaStream_t stream) {
    if (threshold == nullptr && image.pixels() != 0) throw Error("threshold_device: threshold pointer is null");
    threshold_launch(image, threshold, 0, mask, stream);
}

void threshold_device(const ImageView& image, std::uint32_t t, std::uint8_t* mask, cudaStream_t stream) {
    threshold_launch(image, nullptr, t, mask, stream);
}

void kmeans_device(void* workspace, std::size_t& workspace_bytes, const ImageView& image, std::uint32_t* clusters,
                   std::uint32_t* centres, KMeansDeviceInfo* info, const KMeansOptions& options, cudaStream_t stream) {
    const Checked c = check_view("kmeans_device", image, clusters, "cluster buffer");
    if (image.format != PixelFormat::RGB8 && image.format != PixelFormat::RGBA8 && image.format != PixelFormat::Gray8)
        throw Error("kmeans_device: " + std::string(format_name(image.format)) +
                    " images are not supported (supported: rgb8, rgba8, gray8)");
    if (options.k < 1 || options.k > kKMeansMaxK)
        throw Error("kmeans_device: k must be 1.." + std::to_string(kKMeansMaxK) + " (got " + std::to_string(options.k) + ")");
    if (options.max_iterations < 0)
        throw Error("kmeans_device: max_iterations must not be negative (got " + std::to_string(options.max_iterations) + ")");
    if (centres == nullptr) throw Error("kmeans_device: centres pointer is null");
    const auto k = std::uint32_t(options.k);
    const KMeansLayout L(k);
    if (workspace == nullptr) {
        workspace_bytes = L.bytes;
        return;
    }
    need_workspace("kmeans_device", workspace_bytes, L.bytes);
    if (c.pixels == 0) {
        CCL_CUDA(cudaMemsetAsync(centres, 0, 3ull * k * 4, stream));
        if (info) CCL_CUDA(cudaMemsetAsync(info, 0, sizeof(KMeansDeviceInfo), stream));
        return;
    }
    auto* base = static_cast<std::uint8_t*>(workspace);
    auto* state = reinterpret_cast<KMeansState*>(base + L.state);
    auto* ctr = reinterpret_cast<std::uint32_t*>(base + L.centres);
    auto* sums = reinterpret_cast<unsigned long long*>(base + L.sums);
    auto* sample = reinterpret_cast<std::uint32_t*>(base + L.sample);
    const std::uint32_t n = seg::kmeans_sample_size(c.pixels);
    kmeans_sample_kernel<<<(n + kThreads - 1) / kThreads, kThreads, 0, stream>>>(c.p, options.seed, n, sample);
    CCL_LAUNCHED("kmeans_sample_kernel");
    kmeans_init_kernel<<<1, kInitThreads, 0, stream>>>(sample, n, k, options.seed, ctr, sums, state);
    CCL_LAUNCHED("kmeans_init_kernel");
    const bool fast = k <= seg::kKMeansFastK;
    const unsigned blocks = blocks_for(c.pixels, fast ? kThreads * seg::kKMeansFastPpt : kKMeansPerBlock);
    const std::size_t shared = fast ? 2ull * k * kThreads * 4 : 4ull * k * 8 + 3ull * k * 4;
    auto assign = [&](bool compare) {
        if (fast)
            kmeans_fast_kernel<<<blocks, kThreads, shared, stream>>>(c.p, ctr, k, clusters, compare, sums, state);
        else
            kmeans_assign_kernel<<<blocks, kThreads, shared, stream>>>(c.p, ctr, k, clusters, compare, sums, state);
        CCL_LAUNCHED("kmeans assign kernel");
    };
    assign(false);
    for (int it = 1; it <= options.max_iterations; ++it) {
        kmeans_update_kernel<<<1, kThreads, 0, stream>>>(k, ctr, sums, state, std::uint32_t(it));
        CCL_LAUNCHED("kmeans_update_kernel");
        assign(true);
    }
    kmeans_finish_kernel<<<1, kThreads, 0, stream>>>(k, ctr, state, centres, info);
    CCL_LAUNCHED("kmeans_finish_kernel");
}

}  // namespace cclabel::cuda

// ---- the host API's CUDA path ------------------------------------------------------------------
namespace cclabel::detail {
namespace {

using cuda::detail::DeviceBuffer;

std::size_t packed_row(const seg::Picture& p) {
    if (!cuda_device_present()) throw Error("backend cuda: no CUDA device is present");
    return std::size_t(p.width) * std::size_t(bytes_per_pixel(PixelFormat(p.format)));
}

/// Copies the picture packed into @p buf (packed_row(p) · height bytes); the view of the copy.
ImageView upload(const seg::Picture& p, DeviceBuffer& buf) {
    const std::size_t row = packed_row(p);
    // Pageable pictures through the host path's staging ring (cuda/host_stager.hpp), on the legacy
    // default stream that the kernels below run on.
    cuda::host::copy_up(buf.p, p.data, std::size_t(p.stride), row, std::size_t(p.height), nullptr,
                        cuda::host::copy_threads(0));
    return ImageView{buf.p, p.width, p.height, std::int64_t(row), PixelFormat(p.format)};
}

}  // namespace

std::uint32_t otsu_cuda_host(const seg::Picture& p) {
    DeviceBuffer img(packed_row(p) * p.height, "the picture");
    const ImageView v = upload(p, img);
    std::size_t bytes = 0;
    DeviceBuffer t(4, "the threshold");
    cuda::otsu_threshold_device(nullptr, bytes, v, t.as<std::uint32_t>());
    DeviceBuffer ws(bytes, "the workspace");
    cuda::otsu_threshold_device(ws.p, bytes, v, t.as<std::uint32_t>());
    std::uint32_t out = 0;
    cuda::detail::check(cudaMemcpy(&out, t.p, 4, cudaMemcpyDeviceToHost), "cudaMemcpy");
    return out;
}

void threshold_cuda_host(const seg::Picture& p, std::uint32_t t, std::uint8_t* mask) {
    DeviceBuffer img(packed_row(p) * p.height, "the picture");
    const ImageView v = upload(p, img);
    DeviceBuffer m(v.pixels(), "the mask");
    cuda::threshold_device(v, t, m.as<std::uint8_t>());
    cuda::host::copy_down(mask, std::size_t(v.pixels()), m.p, std::size_t(v.pixels()), 1, nullptr,
                          cuda::host::copy_threads(0));
}

KMeansResult kmeans_cuda_host(const seg::Picture& p, std::uint32_t* clusters, const KMeansOptions& options) {
    DeviceBuffer img(packed_row(p) * p.height, "the picture");
    const ImageView v = upload(p, img);
    const std::size_t k = std::size_t(options.k);
    DeviceBuffer cl(v.pixels() * 4, "the clusters"), ctr(k * 12, "the centres"),
        info(sizeof(cuda::KMeansDeviceInfo), "the K-means state");
    std::size_t bytes = 0;
    cuda::kmeans_device(nullptr, bytes, v, cl.as<std::uint32_t>(), ctr.as<std::uint32_t>(), info.as<cuda::KMeansDeviceInfo>(), options);
    DeviceBuffer ws(bytes, "the workspace");
    cuda::kmeans_device(ws.p, bytes, v, cl.as<std::uint32_t>(), ctr.as<std::uint32_t>(), info.as<cuda::KMeansDeviceInfo>(), options);
    std::vector<std::uint32_t> c(3 * k);
    cuda::KMeansDeviceInfo in{};
    cuda::host::copy_down(clusters, std::size_t(v.pixels()) * 4, cl.p, std::size_t(v.pixels()) * 4, 1, nullptr,
                          cuda::host::copy_threads(0));
    cuda::detail::check(cudaMemcpy(c.data(), ctr.p, 3 * k * 4, cudaMemcpyDeviceToHost), "cudaMemcpy");
    cuda::detail::check(cudaMemcpy(&in, info.p, sizeof in, cudaMemcpyDeviceToHost), "cudaMemcpy");
    KMeansResult r;
    r.centres.resize(k);
    for (std::size_t i = 0; i < k; ++i)
        for (std::size_t ch = 0; ch < 3; ++ch) r.centres[i][ch] = float(c[3 * i + ch]) / float(1 << kKMeansFractionBits);
    r.iterations = in.iterations;
    r.converged = in.converged != 0;
    r.backend = Backend::Cuda;
    return r;
}

}  // namespace cclabel::detail
