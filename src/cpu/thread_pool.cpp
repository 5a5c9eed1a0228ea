// The pool behind run_parallel. One job at a time: a call that finds the pool busy starts threads
// of its own rather than wait, so concurrent callers never serialise and a nested call cannot
// deadlock. The pool is never destroyed: its workers may still be spinning on its memory while the
// process exits, and a pool reachable through a static pointer is no leak to LeakSanitizer.
#include "cpu/thread_pool.hpp"

#include <sched.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "cpu/spin_wait.hpp"

namespace cclabel::cpu {
namespace {

struct Job {
    void (*part)(void*, int);
    void* fn;
    std::atomic<bool> failed{false};
    std::exception_ptr error;  // written only by the thread that set failed, read after all finished
};

void run_part(Job& job, int i) noexcept {
    try {
        job.part(job.fn, i);
    } catch (...) {
        if (!job.failed.exchange(true, std::memory_order_acq_rel)) job.error = std::current_exception();
    }
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
/// thread woken or started by another is often put on that thread's CPU, and the scheduler of this
/// small virtual machine leaves it there for milliseconds while the other CPU idles, so that two
/// bands take turns on one CPU (measured: band 1 starting only when band 0 reaches the barrier, for
/// the first several calls). Narrowing the affinity moves the thread at once; restoring it does not
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

class Pool {
public:
    explicit Pool(Pool* parent) : pid_(getpid()), parent_(parent) {}

    /// After fork() the child has this pool's memory but none of its threads.
    bool owned_by_this_process() const { return pid_ == getpid(); }

    /// Runs job's parts 1 .. n - 1 on workers and part 0 here; false (nothing run) when busy.
    bool try_run(int n, Job& job) {
        if (busy_.test_and_set(std::memory_order_acquire)) return false;
        struct Release {
            std::atomic_flag& busy;
            ~Release() { busy.clear(std::memory_order_release); }
        } release{busy_};
        while (int(workers_.size()) < n - 1) {
            Worker& w = workers_.emplace_back(int(workers_.size()) + 1);
            try {
                std::thread([this, &w] { work(w); }).detach();
            } catch (...) {
                workers_.pop_back();  // no thread would ever answer its ticket
                throw;
            }
        }
        job_ = &job;
        job_cpu_ = this_cpu();
        pending_.store(n - 1, std::memory_order_relaxed);  // published by the tickets' release
        for (int i = 0; i < n - 1; ++i) {
            Worker& w = workers_[std::size_t(i)];
            w.ticket.fetch_add(1, std::memory_order_release);
            w.ticket.notify_one();
        }
        run_part(job, 0);
        for (int p; (p = pending_.load(std::memory_order_acquire)) != 0;) wait_while_equal(pending_, p);
        return true;
    }

private:
    struct alignas(64) Worker {  // a line of its own: the dispatcher writes tickets while others spin
        explicit Worker(int i) : index(i) {}
        std::atomic<std::uint32_t> ticket{0};  // bumped once for every job this worker takes part in
        const int index;                       // the part it runs
    };

    void work(Worker& w) {
        for (std::uint32_t seen = 0;;) {
            seen = wait_while_equal(w.ticket, seen);
            leave_cpu(job_cpu_);
            run_part(*job_, w.index);
            // The counter lives in the pool, not in the job: the dispatcher may return, and its job
            // go out of scope, as soon as the count reaches zero.
            if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) pending_.notify_one();
        }
    }

    std::atomic_flag busy_;
    std::deque<Worker> workers_;  // grows only; a deque keeps the workers where their threads see them
    Job* job_ = nullptr;          // the job in progress, handed to workers through their tickets
    int job_cpu_ = -1;            // the CPU its dispatcher runs on
    std::atomic<int> pending_{0};  // worker parts of the job in progress not yet finished
    const pid_t pid_;
    [[maybe_unused]] Pool* const parent_;  // the pool of the process this one was forked from, kept reachable
};

constinit std::atomic<Pool*> current_pool{nullptr};
constinit std::mutex pool_creation;

Pool& pool() {
    Pool* p = current_pool.load(std::memory_order_acquire);
    if (p != nullptr && p->owned_by_this_process()) return *p;
    const std::lock_guard<std::mutex> lock(pool_creation);
    p = current_pool.load(std::memory_order_acquire);
    if (p == nullptr || !p->owned_by_this_process()) {
        p = new Pool(p);
        current_pool.store(p, std::memory_order_release);
    }
    return *p;
}

/// The fallback: a thread per part, started for this call. Every thread waits until all have
/// started, since parts that wait for each other would hang if one could not be started.
void run_on_threads(int n, Job& job) {
    std::atomic<int> start{0};  // 1: go, 2: a thread could not be started
    const int cpu = this_cpu();
    std::vector<std::jthread> threads;
    threads.reserve(std::size_t(n - 1));
    try {
        for (int i = 1; i < n; ++i)
            threads.emplace_back([&job, &start, cpu, i] {
                if (wait_while_equal(start, 0) != 1) return;
                leave_cpu(cpu);
                run_part(job, i);
            });
    } catch (...) {
        start.store(2, std::memory_order_release);
        start.notify_all();
        throw;  // the jthreads join first
    }
    start.store(1, std::memory_order_release);
    start.notify_all();
    run_part(job, 0);
}

}  // namespace

void run_parallel_erased(int n, void (*part)(void*, int), void* fn) {
    if (n <= 0) return;
    struct Count {  // while this call's threads work, spinning must leave them the cores
        int n;
        explicit Count(int threads) : n(threads) { threads_in_parallel_calls.fetch_add(n, std::memory_order_relaxed); }
        ~Count() { threads_in_parallel_calls.fetch_sub(n, std::memory_order_relaxed); }
    } count(n);
    if (n == 1) {
        part(fn, 0);  // its exception reaches the caller as it is
        return;
    }
    Job job{part, fn, {}, {}};
    if (!pool().try_run(n, job)) run_on_threads(n, job);
    if (job.error) std::rethrow_exception(job.error);
}

}  // namespace cclabel::cpu
