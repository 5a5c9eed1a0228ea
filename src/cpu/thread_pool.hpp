#pragma once
// Sets of worker threads, started once, for every parallel loop on the CPU. A thread started per
// call costs little CPU time but much wall time on a virtual machine: it starts 0.5-2.5 ms late on
// an idle vCPU, as long as a band's work on a small picture. Workers started once, and spinning
// briefly between jobs, take up the next job at once.
//
// A call's parts are claimed, not assigned: the calling thread works too and takes every part no
// worker has claimed, so a call never waits for a worker that has not started (the OS may not run
// it for milliseconds while other work holds the cores). It waits only for parts that a running
// thread has claimed and not finished.
#include <memory>
#include <type_traits>

namespace cclabel::cpu {

/// run_parallel without the template: part(fn, i) runs fn(i).
void run_parallel_erased(int n, void (*part)(void* fn, int i), void* fn);

/// Runs fn(0), ..., fn(n - 1), each once, on up to n threads: this one and workers of a pool. Parts
/// must not wait for each other (one thread may run several in turn; see band_phases.hpp for work
/// in phases). Fewer threads than n are used where there are not the cores for them: the cores this
/// process may use less the threads of parallel calls already in progress (a second user thread, a
/// call from inside fn), no more than other processes' calls leave (machine_budget.hpp), and one
/// thread while the machine is oversubscribed (spin_wait.hpp).
/// Returns when all parts have returned, then rethrows the first exception any of them threw.
template <typename Fn>
void run_parallel(int n, Fn&& fn) {
    using F = std::remove_reference_t<Fn>;
    run_parallel_erased(
        n, [](void* f, int i) { (*static_cast<F*>(f))(i); },
        const_cast<void*>(static_cast<const void*>(std::addressof(fn))));
}

/// The number of threads run_parallel(n, ...) would use now (for tests and benchmarks).
int parallel_threads_now(int n) noexcept;

}  // namespace cclabel::cpu
