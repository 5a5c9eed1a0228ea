#include "cuda/host_stager.hpp"

#include <algorithm>
#include <string>

#include "cclabel/error.hpp"
#include "core/cores.hpp"
#include "core/env_list.hpp"
#include "core/parallel_for.hpp"
#include "core/probe.hpp"
#include "core/staged_copy.hpp"
#include "cuda/handles.hpp"

namespace cclabel::cuda::host {

using detail::check;

StagerTuning& stager_tuning() noexcept {
    static StagerTuning t = [] {
        StagerTuning d;
        if (cclabel::detail::env_list_has("CCLABEL_STAGER_TRY", "ramp")) d.ramp_bytes = std::size_t(2) << 20;
        return d;
    }();
    return t;
}

StagerTuning legacy_stager_tuning() noexcept {
    StagerTuning t;
    t.threads = 1;
    t.block_bytes = std::size_t(32) << 20;
    t.blocks = 2;
    t.direct_pinned = false;
    t.ramp_bytes = 0;
    return t;
}

void HostStager::create(std::size_t largest, int threads, const StagerTuning& t) {
    block_ = std::max<std::size_t>(1, std::min(t.block_bytes, std::max<std::size_t>(largest, 1)));
    // No more blocks than the largest copy fills: a small picture pins (or takes from the pool) no
    // more than it needs.
    const std::size_t fill = (std::max<std::size_t>(largest, 1) + block_ - 1) / block_;
    const int n = int(std::max<std::size_t>(1, std::min<std::size_t>(std::size_t(std::max(t.blocks, 2)), fill)));
    threads_ = std::max(1, t.threads > 0 ? t.threads : threads);
    min_part_ = t.min_part;
    ramp_ = t.ramp_bytes;
    slots_ = std::vector<Slot>(std::size_t(n));
    for (Slot& s : slots_) {
        s.block.reserve(block_, "the host path's staging blocks");
        check(cudaEventCreateWithFlags(&s.done, cudaEventDisableTiming), "cudaEventCreateWithFlags");
    }
    next_ = 0;
}

HostStager::~HostStager() {
    for (Slot& s : slots_) {
        if (s.done) {
            if (s.busy) cudaEventSynchronize(s.done);
            cudaEventDestroy(s.done);
        }
    }
    cudaGetLastError();
}

void HostStager::copy_parallel(std::uint8_t* dst, std::size_t dst_pitch, const std::uint8_t* src,
                               std::size_t src_pitch, std::size_t rows, std::size_t len) {
    const std::size_t bytes = rows * len;
    const int parts = cclabel::detail::copy_parts(bytes, threads_, min_part_);
    cclabel::detail::parallel_for(std::uint64_t(parts), parts, [&](std::uint64_t p) {
        const std::size_t b = bytes * std::size_t(p) / std::size_t(parts);
        const std::size_t e = bytes * std::size_t(p + 1) / std::size_t(parts);
        cclabel::detail::copy_rows_part(dst, dst_pitch, src, src_pitch, len, b, e);
    }, cclabel::cpu::Work::streaming);
}

void HostStager::wait_and_empty(Slot& slot) {
    if (!slot.busy) return;
    check(cudaEventSynchronize(slot.done), "cudaEventSynchronize (a staged copy)");
    slot.busy = false;
    if (slot.rows > 0) {
        copy_parallel(slot.dst, slot.dst_pitch, slot.block.as<std::uint8_t>(), slot.len, slot.rows, slot.len);
        slot.rows = 0;
    }
}

void HostStager::upload(void* dst, const void* src, std::size_t src_pitch, std::size_t row_bytes, std::size_t rows,
                        cudaStream_t s) {
    auto* d = static_cast<std::uint8_t*>(dst);
    const auto* h = static_cast<const std::uint8_t*>(src);
    cclabel::detail::ChunkWalk walk(rows, row_bytes, block_, src_pitch == row_bytes, ramp_);
    for (cclabel::detail::Chunk c; walk.next(c);) {
        Slot& slot = slots_[next_];
        next_ = (next_ + 1) % slots_.size();
        wait_and_empty(slot);
        copy_parallel(slot.block.as<std::uint8_t>(), c.len, h + c.row * src_pitch + c.col, src_pitch, c.rows, c.len);
        check(cudaMemcpyAsync(d + c.packed_offset(row_bytes), slot.block.p, c.bytes(), cudaMemcpyHostToDevice, s),
              "cudaMemcpyAsync (host to device, staged)");
        check(cudaEventRecord(slot.done, s), "cudaEventRecord");
        slot.busy = true;
    }
}

void HostStager::download(void* dst, std::size_t dst_pitch, const void* src, std::size_t row_bytes,
                          std::size_t rows, cudaStream_t s) {
    auto* h = static_cast<std::uint8_t*>(dst);
    const auto* d = static_cast<const std::uint8_t*>(src);
    cclabel::detail::ChunkWalk walk(rows, row_bytes, block_, dst_pitch == row_bytes, ramp_);
    for (cclabel::detail::Chunk c; walk.next(c);) {
        Slot& slot = slots_[next_];
        next_ = (next_ + 1) % slots_.size();
        wait_and_empty(slot);
        check(cudaMemcpyAsync(slot.block.p, d + c.packed_offset(row_bytes), c.bytes(), cudaMemcpyDeviceToHost, s),
              "cudaMemcpyAsync (device to host, staged)");
        check(cudaEventRecord(slot.done, s), "cudaEventRecord");
        slot.busy = true;
        slot.dst = h + c.row * dst_pitch + c.col;
        slot.dst_pitch = dst_pitch;
        slot.rows = c.rows;
        slot.len = c.len;
    }
}

void HostStager::drain_all() {
    // Oldest first: the slot the next chunk would take, then round the ring.
    for (std::size_t i = 0; i < slots_.size(); ++i) wait_and_empty(slots_[(next_ + i) % slots_.size()]);
}

int copy_threads(int asked) noexcept {
    const int cores = cclabel::detail::usable_cores();
    // One core is left to the thread that waits on the copy engine (cudaEventSynchronize spins),
    // so that it does not take turns with a copy thread. (The copies run as Work::streaming, so a
    // copy thread descheduled between chunks no longer marks the machine oversubscribed.)
    return asked > 0 ? std::min(asked, cores) : std::max(1, cores - 1);
}

void copy_up(void* dst, const void* src, std::size_t src_pitch, std::size_t row_bytes, std::size_t rows,
             cudaStream_t s, int threads) {
    if (rows == 0 || row_bytes == 0) return;
    const StagerTuning& t = stager_tuning();
    if (t.direct_pinned && is_pinned(src, src_pitch * (rows - 1) + row_bytes)) {
        check(cudaMemcpy2DAsync(dst, row_bytes, src, src_pitch, row_bytes, rows, cudaMemcpyHostToDevice, s),
              "cudaMemcpy2DAsync (host to device)");
        return;
    }
    HostStager st;
    st.create(row_bytes * rows, threads, t);
    st.upload(dst, src, src_pitch, row_bytes, rows, s);
    st.drain_all();
}

void copy_down(void* dst, std::size_t dst_pitch, const void* src, std::size_t row_bytes, std::size_t rows,
               cudaStream_t s, int threads) {
    if (rows == 0 || row_bytes == 0) return;
    const StagerTuning& t = stager_tuning();
    if (t.direct_pinned && is_pinned(dst, dst_pitch * (rows - 1) + row_bytes)) {
        check(cudaMemcpy2DAsync(dst, dst_pitch, src, row_bytes, row_bytes, rows, cudaMemcpyDeviceToHost, s),
              "cudaMemcpy2DAsync (device to host)");
        check(cudaStreamSynchronize(s), "cudaStreamSynchronize (device to host)");
        return;
    }
    HostStager st;
    st.create(row_bytes * rows, threads, t);
    st.download(dst, dst_pitch, src, row_bytes, rows, s);
    st.drain_all();
}

double staged_round_trip_seconds(std::size_t bytes, int threads) {
    std::vector<std::uint8_t> a(bytes, 1), b(bytes);
    void* d = nullptr;
    check(cudaMalloc(&d, bytes), "cudaMalloc (copy-rate probe)");
    cudaStream_t s = nullptr;
    double t = 0;
    try {
        check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
        HostStager st;
        st.create(bytes, threads);
        auto round = [&] {
            st.upload(d, a.data(), bytes, bytes, 1, s);
            st.download(b.data(), bytes, d, bytes, 1, s);
            st.drain_all();
        };
        round();  // first touch of b, and the blocks' first use
        t = cclabel::detail::best_seconds(3, round);
    } catch (...) {
        if (s) cudaStreamDestroy(s);
        cudaFree(d);
        throw;
    }
    cudaStreamDestroy(s);
    cudaFree(d);
    return t;
}

}  // namespace cclabel::cuda::host
