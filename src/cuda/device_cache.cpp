#include "cuda/device_cache.hpp"

#include <cuda_runtime_api.h>

#include <mutex>
#include <string>

#include "cclabel/error.hpp"
#include "core/backends.hpp"
#include "core/freed_buffers.hpp"
#include "core/host_output_cache.hpp"
#include "cuda/handles.hpp"

namespace cclabel::cuda::detail {

using cclabel::detail::FreedBuffers;

struct DeviceCache::State {
    std::mutex m;
    FreedBuffers freed;
    std::size_t limit = 0;
    bool limit_known = false;
    std::size_t fresh = 0;
};

namespace {

constexpr std::size_t kSmall = 512, kLarge = std::size_t(2) << 20;

std::size_t round_up(std::size_t bytes) {
    const std::size_t unit = bytes >= (std::size_t(1) << 20) ? kLarge : kSmall;
    return (bytes + unit - 1) / unit * unit;
}

/// cudaFree on the buffer's own device, the caller's current device kept.
void free_entry(const FreedBuffers::Entry& e) noexcept {
    int saved = 0;
    const bool switch_device = cudaGetDevice(&saved) == cudaSuccess && saved != e.key;
    if (switch_device) cudaSetDevice(e.key);
    cudaFree(e.p);
    if (switch_device) cudaSetDevice(saved);
    cudaGetLastError();
}

/// A quarter of the current device's memory, or CCLABEL_DEVICE_CACHE_BYTES (throws for bad text).
std::size_t default_limit() {
    std::size_t free_b = 0, total_b = 0;
    if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) {
        cudaGetLastError();
        total_b = 0;
    }
    return cclabel::detail::byte_count_from_environment("CCLABEL_DEVICE_CACHE_BYTES", total_b / 4);
}

}  // namespace

DeviceCache& DeviceCache::process() {
    // Never destroyed: no CUDA call may run from a static destructor after the runtime is gone.
    static DeviceCache* cache = [] {
        auto* c = new DeviceCache;
        c->state_ = new State;
        return c;
    }();
    return *cache;
}

void* DeviceCache::acquire(std::size_t bytes, const char* what, std::size_t& got, int& device) {
    State& s = *state_;
    check(cudaGetDevice(&device), "cudaGetDevice");
    const std::size_t want = round_up(bytes < 1 ? 1 : bytes);
    {
        std::lock_guard<std::mutex> lock(s.m);
        if (!s.limit_known) {
            s.limit = default_limit();
            s.limit_known = true;
        }
        FreedBuffers::Entry e;
        if (s.freed.take(want, device, e)) {
            got = e.bytes;
            return e.p;
        }
        ++s.fresh;
    }
    void* p = nullptr;
    cudaError_t e = cudaMalloc(&p, want);
    if (e == cudaErrorMemoryAllocation) {  // what the cache keeps may be just what is missing
        cudaGetLastError();
        if (free_all() > 0) e = cudaMalloc(&p, want);
    }
    if (e != cudaSuccess) {
        cudaGetLastError();  // allocation errors are not sticky
        throw Error(std::string("cudaMalloc of ") + std::to_string(bytes) + " bytes for " + what +
                    " failed: " + cudaGetErrorString(e) + mem_info());
    }
    got = want;
    return p;
}

void DeviceCache::release(void* p, std::size_t got, int device) noexcept {
    if (!p) return;
    State& s = *state_;
    std::lock_guard<std::mutex> lock(s.m);
    s.freed.put(FreedBuffers::Entry{p, got, device}, s.limit_known ? s.limit : 0, free_entry);
}

std::size_t DeviceCache::free_all() noexcept {
    State& s = *state_;
    std::lock_guard<std::mutex> lock(s.m);
    const std::size_t had = s.freed.bytes();
    s.freed.trim(0, free_entry);
    return had;
}

std::size_t DeviceCache::cached_bytes(int device) const noexcept {
    std::lock_guard<std::mutex> lock(state_->m);
    return state_->freed.bytes(device);
}

std::size_t DeviceCache::limit() const noexcept {
    std::lock_guard<std::mutex> lock(state_->m);
    return state_->limit_known ? state_->limit : 0;
}

std::size_t DeviceCache::fresh_allocations() const noexcept {
    std::lock_guard<std::mutex> lock(state_->m);
    return state_->fresh;
}

}  // namespace cclabel::cuda::detail

namespace cclabel::detail {

std::size_t free_device_cache() noexcept { return cuda::detail::DeviceCache::process().free_all(); }

}  // namespace cclabel::detail
