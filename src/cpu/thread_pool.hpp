#pragma once
// One process-wide set of worker threads for every parallel loop on the CPU. A thread started per
// call costs little CPU time but much wall time on a virtual machine: it starts 0.5-2.5 ms late on
// an idle vCPU, as long as a band's work on a small picture. Workers started once, and spinning
// briefly between jobs, take up the next job at once.
#include <memory>
#include <type_traits>

namespace cclabel::cpu {

/// run_parallel without the template: part(fn, i) runs fn(i).
void run_parallel_erased(int n, void (*part)(void* fn, int i), void* fn);

/// Runs fn(0), ..., fn(n - 1) at the same time, each on a thread of its own, so that they may wait
/// for each other (SpinBarrier): fn(0) on this thread, the others on the pool's workers or, while
/// another call holds the pool (a second user thread, or a call from inside fn), on threads started
/// for this call. Returns when all have returned, then rethrows the first exception any of them threw.
template <typename Fn>
void run_parallel(int n, Fn&& fn) {
    using F = std::remove_reference_t<Fn>;
    run_parallel_erased(
        n, [](void* f, int i) { (*static_cast<F*>(f))(i); },
        const_cast<void*>(static_cast<const void*>(std::addressof(fn))));
}

}  // namespace cclabel::cpu
