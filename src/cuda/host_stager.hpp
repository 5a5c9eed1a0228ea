#pragma once
// Copies between a caller's host rows (pageable memory) and a packed device buffer at the copy
// engine's speed: a ring of pinned blocks from the process's pool; host threads fill a block (or
// empty one) while the copy engine moves the others. One thread's memcpy from pageable memory moves
// a fraction of what PCIe can (issue 21 measured 6 GB/s for the path that used one thread and two
// blocks, against about 55 GB/s from pinned memory), so the host side is shared by the call's
// threads. The cutting into chunks and each thread's share are core/staged_copy.hpp, tested on the
// CPU.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "cuda/pinned_pool.hpp"

namespace cclabel::cuda::host {

/// The stager's switches, for the benchmark (process-wide; the defaults are the product).
struct StagerTuning {
    int threads = 0;                             ///< host threads for the memcpy; 0: the call's
    std::size_t block_bytes = std::size_t(16) << 20;  ///< one pinned block
    int blocks = 4;                              ///< blocks in the ring (at least 2)
    std::size_t min_part = std::size_t(1) << 20; ///< fewest bytes one thread copies of a chunk
    bool direct_pinned = true;                   ///< caller's pinned memory is copied in place
    /// The first and last chunks of a copy grow from and shrink to this many bytes (ChunkWalk's
    /// ramp, core/staged_copy.hpp); 0: every chunk a whole block. Off: on the H100 host the ramp
    /// made the 50 Mpx sheet's host call slower, 9.63 / 9.94 ms against 8.33 / 8.05 without
    /// (labels), 9.09 / 9.38 against 8.20 / 8.51 (paper as background), 2048² noise 1.95 against
    /// 1.25 (bench_host, twentieth session): more, smaller copies cost more than the tail they
    /// shorten. CCLABEL_STAGER_TRY=ramp turns it on (2 MiB) for an A/B run.
    std::size_t ramp_bytes = 0;
};
/// The tuning in force (benchmarks may change it between calls; not thread-safe against calls).
StagerTuning& stager_tuning() noexcept;
/// StagerTuning{1 thread, 2 blocks of 32 MiB}: the path as it was before issue 21, for A/B runs.
StagerTuning legacy_stager_tuning() noexcept;

class HostStager {
public:
    HostStager() = default;
    /// A ring for copies of up to @p largest bytes, with @p threads host threads (≥ 1).
    void create(std::size_t largest, int threads, const StagerTuning& t = stager_tuning());
    bool created() const { return !slots_.empty(); }
    /// Rows of @p row_bytes from host @p src (pitch @p src_pitch) to device @p dst (packed), on
    /// @p s. Returns once every row is in a pinned block; the copies finish in stream order.
    void upload(void* dst, const void* src, std::size_t src_pitch, std::size_t row_bytes, std::size_t rows,
                cudaStream_t s);
    /// Rows of @p row_bytes from device @p src (packed) to host @p dst (pitch @p dst_pitch), on
    /// @p s, after whatever the stream holds before. The last blocks reach @p dst at drain_all().
    void download(void* dst, std::size_t dst_pitch, const void* src, std::size_t row_bytes, std::size_t rows,
                  cudaStream_t s);
    /// Waits for every copy in flight and empties the blocks still holding downloaded rows.
    void drain_all();
    /// Waits for the copies in flight (not emptying them: only reached after an error) before the
    /// blocks go back to the pool.
    ~HostStager();
    HostStager(const HostStager&) = delete;
    HostStager& operator=(const HostStager&) = delete;

private:
    struct Slot {
        PooledPinned block;
        cudaEvent_t done = nullptr;
        bool busy = false;
        // A download waiting to be copied out: rows × len bytes to dst (pitch dst_pitch).
        std::uint8_t* dst = nullptr;
        std::size_t dst_pitch = 0, rows = 0, len = 0;
    };
    void wait_and_empty(Slot& slot);
    void copy_parallel(std::uint8_t* dst, std::size_t dst_pitch, const std::uint8_t* src, std::size_t src_pitch,
                       std::size_t rows, std::size_t len);
    std::vector<Slot> slots_;
    std::size_t block_ = 0, min_part_ = 0, ramp_ = 0;
    int threads_ = 1;
    std::size_t next_ = 0;  // the slot the next chunk takes
};

/// Host threads for a call's copies: @p asked (Options::threads) when positive, else every core this
/// process may use but one (left to the thread that waits on the copy engine).
int copy_threads(int asked) noexcept;

/// One whole copy up: in place when @p src is pinned, else through a ring of @p threads threads.
/// Returns once @p src may be reused; the device side completes in stream order on @p s.
void copy_up(void* dst, const void* src, std::size_t src_pitch, std::size_t row_bytes, std::size_t rows,
             cudaStream_t s, int threads);
/// One whole copy down, finished on return (@p s is waited for up to it).
void copy_down(void* dst, std::size_t dst_pitch, const void* src, std::size_t row_bytes, std::size_t rows,
               cudaStream_t s, int threads);

/// Seconds for @p bytes up and the same down through a HostStager of @p threads threads (the
/// best of three, after one unmeasured round): the GPU host path's copy rate, for the cost model.
double staged_round_trip_seconds(std::size_t bytes, int threads);

}  // namespace cclabel::cuda::host
