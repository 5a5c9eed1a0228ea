#pragma once
// Page-locked host memory for the copies between host and device: a process-wide pool of pinned
// blocks, so that calls do not pin and unpin their staging buffers every time, and the test of
// whether a caller's buffer is pinned already (then the copy engine reads or writes it in place).
#include <cstddef>

namespace cclabel::cuda::host {

/// Pinned host blocks kept between calls, process-wide. cudaHostAlloc page-locks and maps every
/// page (about a millisecond per few MiB) and cudaFreeHost unmaps them again, so a call that pinned
/// its buffers afresh paid that every time. Blocks of up to kKeep bytes in all are kept for the next
/// call (larger ones are freed when given back); a kept block is checked to be still pinned before
/// reuse (a cudaDeviceReset in between drops it). The pool is never destroyed: the process's exit
/// unpins what is left, and no CUDA call runs from a static destructor after the runtime is gone.
/// Blocks are pinned portable and mapped, so any device may copy from them and a kernel may write
/// into them.
class PinnedPool {
public:
    static PinnedPool& get();
    /// A block of at least @p bytes (a block the pool may keep rounded up to a power of two, at
    /// least 1 MiB, so that the next call of about the same picture finds it; a larger one pinned at
    /// its size, as it is freed when given back); @p cap receives its size. Throws cclabel::Error
    /// naming @p what when the memory cannot be pinned.
    void* take(std::size_t bytes, std::size_t& cap, const char* what);
    /// Gives a block back (kept, or freed when the pool holds enough).
    void give(void* p, std::size_t cap) noexcept;

private:
    PinnedPool() = default;
    struct State;
    State* state_ = nullptr;
};

/// A block of the pool, given back on destruction. Whoever holds it must have synchronised every
/// copy into or out of it by then.
struct PooledPinned {
    void* p = nullptr;
    std::size_t cap = 0;
    PooledPinned() = default;
    void reserve(std::size_t bytes, const char* what) {
        if (p && cap >= bytes) return;
        reset();
        p = PinnedPool::get().take(bytes < 1 ? 1 : bytes, cap, what);
    }
    template <typename T>
    T* as() const {
        return static_cast<T*>(p);
    }
    void reset() noexcept {
        PinnedPool::get().give(p, cap);
        p = nullptr;
        cap = 0;
    }
    ~PooledPinned() { reset(); }
    PooledPinned(const PooledPinned&) = delete;
    PooledPinned& operator=(const PooledPinned&) = delete;
};

/// Where a host-API pointer points: memory the host path may read with the CPU (pageable, pinned,
/// managed) or device memory, which it must refuse.
enum class MemoryKind { Pageable, Pinned, Managed, Device };
MemoryKind memory_kind(const void* p) noexcept;

/// Whether [p, p + bytes) is page-locked host memory (registered or cudaHostAlloc'ed), judged by its
/// first and last byte.
bool is_pinned(const void* p, std::size_t bytes) noexcept;

}  // namespace cclabel::cuda::host
