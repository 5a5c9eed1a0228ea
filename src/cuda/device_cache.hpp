#pragma once
// Device memory for the calls that take host memory (label(), label_batch(), regions() with
// Backend::Cuda): the picture's copy, the labels and the workspace of one call are kept for the
// next call instead of going back to the driver.
//
// cudaMalloc maps and cudaFree unmaps the device's pages, and cudaFree waits for the whole device;
// a call on a 50 Mpx picture allocated and freed 350 MB that way every time, a fixed cost the copies
// alone do not have (issue 21: the host path at 50 Mpx took 1.69x its copy floor from Python). The
// cache keeps freed buffers by core/freed_buffers.hpp's rule, up to a quarter of the first device's
// memory in all (CCLABEL_DEVICE_CACHE_BYTES sets the limit in bytes; 0 turns the cache off), and
// counts them as free when a call decides whether a picture fits (gpu_free_bytes). An allocation
// that fails gives every kept buffer back and tries again.
//
// A buffer goes back to the cache only after its call's stream is synchronised (CachedDevice does
// that), so no kernel or copy still uses it when the next call takes it.
#include <cuda_runtime_api.h>

#include <cstddef>

namespace cclabel::cuda::detail {

class DeviceCache {
public:
    static DeviceCache& process();

    /// Device memory of at least @p bytes on the current device (rounded up: 512 bytes below 1 MiB,
    /// 2 MiB from there), its size in @p got; a kept buffer when one fits. Throws cclabel::Error
    /// naming @p what and the free memory when the driver has none.
    void* acquire(std::size_t bytes, const char* what, std::size_t& got, int& device);
    /// Takes back a buffer of acquire() on @p device, whose last use has completed.
    void release(void* p, std::size_t got, int device) noexcept;
    /// Frees every kept buffer; returns their bytes.
    std::size_t free_all() noexcept;
    /// Bytes kept for @p device (free for the next call, though the driver counts them as used).
    std::size_t cached_bytes(int device) const noexcept;
    std::size_t limit() const noexcept;
    /// Buffers the driver allocated for acquire() so far (not taken from the cache).
    std::size_t fresh_allocations() const noexcept;

private:
    DeviceCache() = default;
    struct State;
    State* state_ = nullptr;
};

/// A buffer of DeviceCache for one call on @p stream: synchronises the stream before giving it back
/// (after an error half-way the stream may still hold copies into it).
struct CachedDevice {
    void* p = nullptr;
    CachedDevice() = default;
    CachedDevice(std::size_t bytes, const char* what, cudaStream_t stream) { alloc(bytes, what, stream); }
    void alloc(std::size_t bytes, const char* what, cudaStream_t stream) {
        reset();
        s_ = stream;
        p = DeviceCache::process().acquire(bytes, what, got_, device_);
    }
    void reset() noexcept {
        if (!p) return;
        cudaStreamSynchronize(s_);
        cudaGetLastError();
        DeviceCache::process().release(p, got_, device_);
        p = nullptr;
    }
    template <typename T>
    T* as() const {
        return static_cast<T*>(p);
    }
    ~CachedDevice() { reset(); }
    CachedDevice(const CachedDevice&) = delete;
    CachedDevice& operator=(const CachedDevice&) = delete;

private:
    cudaStream_t s_ = nullptr;
    std::size_t got_ = 0;
    int device_ = 0;
};

}  // namespace cclabel::cuda::detail
