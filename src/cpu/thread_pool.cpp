// The pools behind run_parallel. A pool runs one job at a time; a caller that finds one busy (a
// second user thread, a call from inside a part) tries the next, and a pool is made for a caller
// that finds every one busy, so concurrent callers never serialise and a nested call cannot
// deadlock. A caller that may use only one thread (no core left, or an oversubscribed machine) runs
// every part itself.
//
// A job's workers join it through its pool's gate: a worker woken late, after its caller closed the
// gate and returned, finds the gate closed (or open for a later job, whose parts it may as well
// take) and never touches the job that woke it. The caller, once no part is left to claim, closes
// the gate and waits only for the workers inside it, which are running parts they claimed.
//
// Pools are never destroyed: their workers may still be spinning on their memory while the process
// exits, and pools reachable through a static pointer are no leak to LeakSanitizer.
#include "cpu/thread_pool.hpp"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>

#include "cpu/machine_budget.hpp"
#include "cpu/spin_wait.hpp"

namespace cclabel::cpu {
namespace {

struct Job {
    void (*part)(void*, int);
    void* fn;
    int parts;
    int cpu;  // the CPU its caller runs on (see leave_cpu)
    Work work;
    std::atomic<int> next{0};
    std::atomic<int> joined{0};  // workers that got through the gate
    std::atomic<bool> failed{false};
    std::exception_ptr error;  // written only by the thread that set failed, read after all finished
};

/// Parts of parallel calls this thread is running (its own thread is counted in their calls).
thread_local int parts_running = 0;

void run_part(Job& job, int i) noexcept {
    ++parts_running;
    try {
        job.part(job.fn, i);
    } catch (...) {
        if (!job.failed.exchange(true, std::memory_order_acq_rel)) job.error = std::current_exception();
    }
    --parts_running;
}

/// Runs the job's parts that nobody has claimed yet.
void run_parts(Job& job) noexcept {
    for (int i; (i = job.next.fetch_add(1, std::memory_order_relaxed)) < job.parts;) run_part(job, i);
}

/// The CPU the calling thread runs on, or -1 where that cannot be known.
int this_cpu() noexcept {
#ifdef __linux__
    return sched_getcpu();
#else
    return -1;
#endif
}

/// Moves this thread off @p cpu (the thread that handed it work runs there) when it is on it. A
/// thread woken by another is often put on that thread's CPU, and the scheduler of this small
/// virtual machine leaves it there for milliseconds while the other CPU idles, so that two bands
/// take turns on one CPU (measured: band 1 starting only when band 0 reaches the barrier, for the
/// first several calls). Narrowing the affinity moves the thread at once; restoring it does not
/// move it back.
void leave_cpu(int cpu) noexcept {
#ifdef __linux__
    if (cpu < 0 || this_cpu() != cpu) return;
    cpu_set_t allowed;
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0 || CPU_COUNT(&allowed) < 2) return;
    cpu_set_t others = allowed;
    CPU_CLR(cpu, &others);
    if (sched_setaffinity(0, sizeof others, &others) == 0) sched_setaffinity(0, sizeof allowed, &allowed);
#else
    (void)cpu;
#endif
}

/// A woken worker that has not run after this long is kept off the cores by other work: a blocked
/// thread wakes 0.5-2.5 ms after its notification on an idle virtual machine.
constexpr std::chrono::milliseconds kLateWorker{5};

class Pool {
public:
    /// Runs @p job here and on up to threads - 1 workers; false (nothing run) when busy.
    bool try_run(int threads, Job& job) {
        if (busy_.test_and_set(std::memory_order_acquire)) return false;
        struct Release {
            std::atomic_flag& busy;
            ~Release() { busy.clear(std::memory_order_release); }
        } release{busy_};
        while (int(workers_.size()) < threads - 1) {
            Worker& w = workers_.emplace_back();
            try {
                std::thread([this, &w] { work(w); }).detach();
            } catch (...) {
                workers_.pop_back();  // no thread will answer it; the call runs on fewer threads
                break;
            }
        }
        job_ = &job;
        gate_.store(kOpen, std::memory_order_release);  // publishes job_
        const int woken = std::min(threads - 1, int(workers_.size()));
        const std::int64_t start = steady_ns();
        for (int i = 0; i < woken; ++i) {
            Worker& w = workers_[std::size_t(i)];
            w.ticket.fetch_add(1, std::memory_order_release);  // a worker that sees it sees the gate open
            w.ticket.notify_one();
        }
        run_parts(job);
        // Every part is claimed: close the gate, then wait for the workers that got in.
        // (A streaming job's caller, waiting for a copy thread descheduled mid-part, says nothing
        // about the machine: see Work::streaming.)
        for (std::uint32_t inside = gate_.fetch_and(~kOpen, std::memory_order_acq_rel) & ~kOpen; inside != 0;)
            inside = wait_while_equal(gate_, inside, job.work == Work::compute);
        // Workers woken and not run for longer than a blocked thread takes to wake on an idle
        // machine: other work holds the cores.
        if (job.work == Work::compute && woken > 0 && job.joined.load(std::memory_order_relaxed) == 0) {
            const std::int64_t now = steady_ns();
            if (now - start > std::chrono::nanoseconds(kLateWorker).count()) {
                mark_oversubscribed(now);
                trace_mark("oversubscribed: no woken worker joined", now - start);
            }
        }
        return true;
    }

private:
    static constexpr std::uint32_t kOpen = 1u << 31;  // the gate's flag; its other bits count workers inside

    struct alignas(64) Worker {  // a line of its own: the dispatcher writes tickets while others spin
        std::atomic<std::uint32_t> ticket{0};  // bumped for every job this worker is asked to join
    };

    void work(Worker& w) {
        for (std::uint32_t seen = 0, streamed = 0;;) {
            // After a streaming job the wait is the gap to its next chunk: not a sign of a busy machine.
            seen = wait_while_equal(w.ticket, seen, streamed == 0);
            bool joined = false;
            for (std::uint32_t g = gate_.load(std::memory_order_relaxed); (g & kOpen) != 0;)
                if (gate_.compare_exchange_weak(g, g + 1, std::memory_order_acquire, std::memory_order_relaxed)) {
                    joined = true;
                    break;
                }
            if (!joined) continue;  // woken too late: its job is done
            Job& job = *job_;
            streamed = job.work == Work::streaming ? 1 : 0;
            job.joined.fetch_add(1, std::memory_order_relaxed);
            leave_cpu(job.cpu);
            run_parts(job);
            // The last use of the job: its caller may return as soon as the count reaches zero.
            if ((gate_.fetch_sub(1, std::memory_order_release) & kOpen) == 0) gate_.notify_one();
        }
    }

    std::atomic_flag busy_;
    std::deque<Worker> workers_;  // grows only; a deque keeps the workers where their threads see them
    Job* job_ = nullptr;          // the job in progress, read by workers that got through the gate
    std::atomic<std::uint32_t> gate_{0};
};

constexpr int kMaxPools = 64;  // concurrent multi-threaded callers; more run their parts themselves

struct Pools {
    explicit Pools(Pools* p) : pid(getpid()), parent(p) {}
    const pid_t pid;
    [[maybe_unused]] Pools* const parent;  // the pools of the process this one was forked from, kept reachable
    std::array<std::atomic<Pool*>, kMaxPools> slots{};
    std::mutex grow;
};

constinit std::atomic<Pools*> current_pools{nullptr};
constinit std::mutex pools_creation;

/// This process's pools: after fork() the child has its parent's memory but none of its threads.
Pools& pools() {
    Pools* p = current_pools.load(std::memory_order_acquire);
    if (p != nullptr && p->pid == getpid()) return *p;
    const std::lock_guard<std::mutex> lock(pools_creation);
    p = current_pools.load(std::memory_order_acquire);
    if (p == nullptr || p->pid != getpid()) {
        p = new Pools(p);
        current_pools.store(p, std::memory_order_release);
    }
    return *p;
}

/// Runs @p job on the first pool that is free, making one where none is; false when all are busy.
bool run_on_a_pool(int threads, Job& job) {
    Pools& ps = pools();
    for (auto& slot : ps.slots) {
        Pool* p = slot.load(std::memory_order_acquire);
        if (p == nullptr) {
            const std::lock_guard<std::mutex> lock(ps.grow);
            p = slot.load(std::memory_order_acquire);
            if (p == nullptr) {
                p = new Pool;
                slot.store(p, std::memory_order_release);
            }
        }
        if (p->try_run(threads, job)) return true;
    }
    return false;
}

/// The machine's budget for calls in this process, or null: none (turned off, no file), or a test
/// that sets its own core budget.
MachineBudget* budget_for_calls() noexcept {
    return core_budget_for_tests.load(std::memory_order_relaxed) > 0 ? nullptr : machine_budget();
}

/// Threads for a call of @p n parts now, given @p in_calls threads in this process's calls and
/// @p others in other processes' calls (counted by @p mb; null: none counted).
int threads_for(int n, int in_calls, const MachineBudget* mb, int others, Work work) noexcept {
    if (n <= 1 || (work == Work::compute && machine_oversubscribed())) return 1;
    return threads_to_take(n, core_budget(), mb ? mb->cores() : 0, others, in_calls, parts_running > 0);
}

}  // namespace

int parallel_threads_now(int n, Work work) noexcept {
    MachineBudget* mb = n > 1 ? budget_for_calls() : nullptr;
    return threads_for(n, threads_in_parallel_calls.load(std::memory_order_relaxed), mb, mb ? mb->others() : 0, work);
}

void run_parallel_erased(int n, void (*part)(void*, int), void* fn, Work work) {
    if (n <= 0) return;
    MachineBudget* mb = budget_for_calls();
    const int others = mb && n > 1 ? mb->others() : 0;
    if (mb && n > 1) machine_cores_left.store(mb->cores() - others, std::memory_order_relaxed);
    // Reserve the threads, so that calls starting at the same time do not both take every core.
    const int own = parts_running > 0 ? 1 : 0;
    int in_calls = threads_in_parallel_calls.load(std::memory_order_relaxed), threads = 1;
    do {
        threads = threads_for(n, in_calls, mb, others, work);
    } while (!threads_in_parallel_calls.compare_exchange_weak(in_calls, in_calls + threads - own, std::memory_order_relaxed));
    struct Unreserve {
        MachineBudget* mb;
        int n;
        ~Unreserve() {
            threads_in_parallel_calls.fetch_sub(n, std::memory_order_relaxed);
            if (mb) mb->add(-n);
        }
    } unreserve{mb, threads - own};
    if (mb) {
        // Published, then the others read again: of two processes' calls starting together, at
        // least one sees the other (machine_budget.hpp). One that now finds too few cores gives
        // back the threads it has not started.
        mb->add(unreserve.n);
        if (threads > 1) {
            const int fit = threads_to_take(n, core_budget(), mb->cores(), mb->others(),
                                            threads_in_parallel_calls.load(std::memory_order_relaxed) - unreserve.n, own);
            if (fit < threads) {
                threads_in_parallel_calls.fetch_sub(threads - fit, std::memory_order_relaxed);
                mb->add(fit - threads);
                unreserve.n -= threads - fit;
                threads = fit;
            }
        }
    }
    if (n == 1) {
        struct Running {
            Running() { ++parts_running; }
            ~Running() { --parts_running; }
        } running;
        part(fn, 0);  // its exception reaches the caller as it is
        return;
    }
    if (trace_threads() && threads < std::min(n, core_budget()))
        std::fprintf(stderr, "cclabel threads: a call of %d parts on %d threads (cores %d, this process's calls %d, other processes' %d%s)\n", n,
                     threads, core_budget(), in_calls, others, work == Work::compute && machine_oversubscribed() ? ", marked oversubscribed" : "");
    Job job{part, fn, n, this_cpu(), work, {}, {}, {}, {}};
    if (threads <= 1 || !run_on_a_pool(threads, job)) run_parts(job);
    if (job.error) std::rethrow_exception(job.error);
}

}  // namespace cclabel::cpu
