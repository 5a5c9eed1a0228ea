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

/// What a call's parts do, which decides how the pool treats a busy machine.
enum class Work {
    /// Compute in phases or with shared state: on an oversubscribed machine (spin_wait.hpp) the
    /// call takes one thread, since more would only take turns on cores other work keeps busy.
    compute,
    /// Independent, memory-bound parts that a machine's cores share well (the GPU's staging
    /// copies): the call takes its threads even on a busy machine, since a worker that starts late
    /// only misses parts the caller takes itself, and neither the call nor its workers' waits for
    /// the next call mark the machine oversubscribed. The staging ring's copy threads, idle between
    /// chunks beside the thread that spins on the copy engine, are often descheduled for a moment on
    /// a machine whose every core they fill; counted, that sent every call for the next 100 ms, the
    /// ring's own chunks and the CPU labeller alike, to one thread (measured: 800 dpi through the
    /// ring at 1.2 s instead of 0.13 s).
    streaming,
};

/// run_parallel without the template: part(fn, i) runs fn(i).
void run_parallel_erased(int n, void (*part)(void* fn, int i), void* fn, Work work = Work::compute);

/// Runs fn(0), ..., fn(n - 1), each once, on up to n threads: this one and workers of a pool. Parts
/// must not wait for each other (one thread may run several in turn; see band_phases.hpp for work
/// in phases). Fewer threads than n are used where there are not the cores for them: the cores this
/// process may use less the threads of parallel calls already in progress (a second user thread, a
/// call from inside fn), no more than other processes' calls leave (machine_budget.hpp), and one
/// thread while the machine is oversubscribed (spin_wait.hpp).
/// Returns when all parts have returned, then rethrows the first exception any of them threw.
template <typename Fn>
void run_parallel(int n, Fn&& fn, Work work = Work::compute) {
    using F = std::remove_reference_t<Fn>;
    run_parallel_erased(
        n, [](void* f, int i) { (*static_cast<F*>(f))(i); },
        const_cast<void*>(static_cast<const void*>(std::addressof(fn))), work);
}

/// The number of threads run_parallel(n, ...) would use now (for tests and benchmarks).
int parallel_threads_now(int n, Work work = Work::compute) noexcept;

}  // namespace cclabel::cpu
