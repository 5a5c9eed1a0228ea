#include "cuda/pinned_pool.hpp"

#include <cuda_runtime_api.h>

#include <cstdint>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "cclabel/error.hpp"

namespace cclabel::cuda::host {

namespace {

// A call on 2.5 Gpx through the tiles keeps about 64 MiB (counts and borders 16, maps 16, the
// mapped first-pixel tables 32) and the early maps of full-width strips 32 more; the host path's
// staging ring takes 64 (host_stager.hpp). A smaller picture's blocks may still be in the pool.
constexpr std::size_t kKeep = std::size_t(256) << 20;

bool is_pinned_block(void* p) {
    cudaPointerAttributes a{};
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        cudaGetLastError();
        return false;
    }
    return a.type == cudaMemoryTypeHost;
}

}  // namespace

struct PinnedPool::State {
    std::mutex mutex;
    std::vector<std::pair<void*, std::size_t>> free;
    std::size_t kept = 0;
};

PinnedPool& PinnedPool::get() {
    static PinnedPool* pool = [] {
        auto* p = new PinnedPool;
        p->state_ = new State;
        return p;
    }();
    return *pool;
}

void* PinnedPool::take(std::size_t bytes, std::size_t& cap, const char* what) {
    State& s = *state_;
    {
        const std::lock_guard<std::mutex> lock(s.mutex);
        std::size_t best = s.free.size();
        for (std::size_t i = 0; i < s.free.size(); ++i)
            if (s.free[i].second >= bytes && (best == s.free.size() || s.free[i].second < s.free[best].second)) best = i;
        if (best != s.free.size()) {
            const auto [p, c] = s.free[best];
            if (is_pinned_block(p)) {
                s.free.erase(s.free.begin() + std::ptrdiff_t(best));
                s.kept -= c;
                cap = c;
                return p;
            }
            // Not pinned any more: the context it was pinned in was reset, which unpinned every
            // block kept. Forget them all now, before anything is allocated again: a new block may
            // come back at a forgotten block's address, which would then pass the check and be
            // handed out twice.
            s.free.clear();
            s.kept = 0;
        }
    }
    std::size_t c = bytes;
    if (bytes <= kKeep) {
        c = std::size_t(1) << 20;
        while (c < bytes) c *= 2;
    }
    void* p = nullptr;
    const cudaError_t e = cudaHostAlloc(&p, c, cudaHostAllocPortable | cudaHostAllocMapped);
    if (e != cudaSuccess) {
        cudaGetLastError();
        throw Error(std::string("cudaHostAlloc of ") + std::to_string(c) + " bytes for " + what +
                    " failed: " + cudaGetErrorString(e));
    }
    cap = c;
    return p;
}

void PinnedPool::give(void* p, std::size_t cap) noexcept {
    if (!p) return;
    State& s = *state_;
    {
        const std::lock_guard<std::mutex> lock(s.mutex);
        if (s.kept + cap <= kKeep) {
            try {
                s.free.push_back({p, cap});
                s.kept += cap;
                return;
            } catch (...) {  // no memory for the list: free the block instead
            }
        }
    }
    cudaFreeHost(p);
    cudaGetLastError();  // a failure here must not be blamed on a later call's launch
}

MemoryKind memory_kind(const void* p) noexcept {
    cudaPointerAttributes a{};
    if (!p || cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        cudaGetLastError();
        return MemoryKind::Pageable;
    }
    switch (a.type) {
        case cudaMemoryTypeHost: return MemoryKind::Pinned;
        case cudaMemoryTypeDevice: return MemoryKind::Device;
        case cudaMemoryTypeManaged: return MemoryKind::Managed;
        default: return MemoryKind::Pageable;
    }
}

bool is_pinned(const void* p, std::size_t bytes) noexcept {
    if (!p || bytes == 0) return false;
    for (const void* q : {p, static_cast<const void*>(static_cast<const std::uint8_t*>(p) + (bytes - 1))}) {
        cudaPointerAttributes a{};
        const cudaError_t e = cudaPointerGetAttributes(&a, q);
        if (e != cudaSuccess) {
            cudaGetLastError();
            return false;
        }
        if (a.type != cudaMemoryTypeHost) return false;
    }
    return true;
}

}  // namespace cclabel::cuda::host
