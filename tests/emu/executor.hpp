#pragma once
// A CPU executor for the CUDA labeller's per-thread programs (src/cuda/kernels/bodies.cuh).
//
// Every emulated GPU thread is a fiber (ucontext) on one OS thread, so the emulation is free of data
// races by construction and needs no TSan suppressions. Every wrapped memory operation is a yield
// point where a seeded scheduler picks the next fiber (sometimes staying, sometimes jumping), so
// read-find-write windows of different threads really interleave. Warps meet at their votes (all
// lanes of the mask must arrive with the same mask; lanes outside it contribute random bits), blocks
// at their barriers. Blocks start in a random order with a random number of them resident, which is
// what the ticket scheme of the ordered kernels must survive. Every write to the parent array is
// checked: it never increases and, while it is a parent, it points at or below the pixel itself.
// Every loop is bounded. Failures throw std::runtime_error with the seed in the message.
#include <ucontext.h>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#if defined(__SANITIZE_ADDRESS__)
#define CCL_EMU_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CCL_EMU_ASAN 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define CCL_EMU_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define CCL_EMU_TSAN 1
#endif
#endif
#ifdef CCL_EMU_ASAN
#include <sanitizer/common_interface_defs.h>
#endif
#ifdef CCL_EMU_TSAN
#include <sanitizer/tsan_interface.h>
#endif

namespace cclabel::emu {

/// What the parent array's writes must satisfy in the current launch.
/// What the parent array's writes must satisfy in the current launch. Final: labels overwrite
/// parents (the segment pipeline's Number), nothing to check.
enum class Phase { Parents, NumberFlag, NumberWide, Final };

class Executor;

/// The Ops of bodies.cuh for one emulated thread.
class EmuOps {
public:
    EmuOps(Executor* ex, int fiber) : ex_(ex), fiber_(fiber) {}
    std::uint32_t ld(const std::uint32_t* p);
    /// A weak (L1-cacheable) load: on the label array it sometimes returns the value the word held
    /// before its last change, as a stale L1 line would.
    std::uint32_t ld_weak(const std::uint32_t* p);
    void st(std::uint32_t* p, std::uint32_t v);
    // The block's shared parent array of tile_union_find (one word a thread, poisoned at block start).
    std::uint32_t sh_ld(std::uint32_t k);
    void sh_st(std::uint32_t k, std::uint32_t v);
    std::uint32_t sh_amin(std::uint32_t k, std::uint32_t v);
    // The block's shared array of pixel values (shared_keys); reading a word no thread wrote fails.
    void key_st(std::uint32_t k, std::uint32_t v);
    std::uint32_t key_ld(std::uint32_t k);
    /// __shfl_sync: every lane of @p mask must call it; a lane asking for a lane outside the mask
    /// gets random bits.
    std::uint32_t shfl(std::uint32_t mask, std::uint32_t v, std::uint32_t src);
    std::uint32_t amin(std::uint32_t* p, std::uint32_t v);
    std::uint32_t aadd(std::uint32_t* p, std::uint32_t v);
    std::uint32_t aor(std::uint32_t* p, std::uint32_t v);
    std::uint32_t ld_acquire(const std::uint32_t* p) { return ld(p); }
    void st_release(std::uint32_t* p, std::uint32_t v) { st(p, v); }
    void fence() {}
    void pause();
    void bound(std::uint64_t it, std::uint64_t limit, const char* what);
    std::uint32_t ballot(std::uint32_t mask, bool pred);
    void sync();
    std::uint32_t block_ticket(std::uint32_t* counter, std::uint32_t tid);
    std::uint32_t block_exclusive_sum(std::uint32_t v, std::uint32_t& total);
    void check_tile_total(std::uint32_t tid, std::uint32_t got, std::uint32_t expected);
    void ld_own(const std::uint32_t* p, std::uint32_t n, std::uint32_t* v) {
        for (std::uint32_t j = 0; j < n; ++j) v[j] = ld(p + j);
    }
    void st_own(std::uint32_t* p, std::uint32_t n, const std::uint32_t* v) {
        for (std::uint32_t j = 0; j < n; ++j) st(p + j, v[j]);
    }
    void st_row(std::uint32_t* p, std::uint32_t n, const std::uint32_t* v) { st_own(p, n, v); }

private:
    Executor* ex_;
    int fiber_;
};

struct Region {
    const std::uint32_t* begin = nullptr;
    std::uint64_t size = 0;
    const char* name = "";
};

class Executor {
public:
    using Program = std::function<void(EmuOps&, std::uint32_t tid, std::uint64_t block)>;

    explicit Executor(std::uint64_t seed) : rng_(seed), seed_(seed) {}
    Executor(const Executor&) = delete;
    Executor& operator=(const Executor&) = delete;
    ~Executor() {
#ifdef CCL_EMU_TSAN
        // TSan counts each fiber as a thread (at most 8128 alive): hand them back.
        for (auto& f : fibers_)
            if (f.tsan_fiber) __tsan_destroy_fiber(f.tsan_fiber);
#endif
    }

    /// Arrays the programs may touch; anything else is an out-of-bounds access.
    void set_regions(std::vector<Region> r) { regions_ = std::move(r); }
    /// The parent array and how its writes are checked in the next launches.
    void set_parents(std::uint32_t* labels, std::uint64_t n, std::uint32_t flag, std::uint32_t background) {
        labels_ = labels;
        n_ = n;
        prev_.assign(n, kNone);
        flag_ = flag;
        background_ = background;
    }
    void set_phase(Phase p) { phase_ = p; }
    /// A kernel boundary for weak loads: L1 keeps nothing from one launch to the next, so weak loads
    /// return no value older than the launch (the pixel pipeline keeps the history, which is harsher).
    void forget_stale() { prev_.assign(n_, kNone); }
    /// Words of the shared parent and key arrays in the next launches (at least one a thread).
    void set_shared_words(std::uint32_t n) { shared_words_ = n; }

    /// Runs @p blocks blocks of @p threads threads; warps are @p warp_w consecutive threads.
    void launch(std::uint64_t blocks, std::uint32_t threads, std::uint32_t warp_w, const Program& program);

    std::uint64_t steps() const { return steps_; }

private:
    friend class EmuOps;
    struct Fiber {
        ucontext_t ctx{};
        std::unique_ptr<char[]> stack;
        std::uint64_t block = 0;
        std::uint32_t tid = 0;
        int block_slot = 0;
        bool waiting = false, finished = false;
        std::uint32_t result = 0;  // of the last collective
        void* fake_stack = nullptr;
#ifdef CCL_EMU_TSAN
        void* tsan_fiber = nullptr;
#endif
    };
    struct Warp {
        std::uint32_t expected = 0, arrived = 0, votes = 0;
        std::vector<int> fibers;
        std::vector<std::uint32_t> values, sources;  // of a shuffle, by lane (values) and by arrival (sources)
        int kind = 0;  // 1 ballot, 2 shuffle: the lanes of a warp must meet at the same collective
    };
    struct Block {
        std::uint64_t id = 0;
        std::uint32_t arrived = 0, live = 0;
        std::vector<int> waiting;
        std::vector<std::uint32_t> scratch;
        std::vector<std::uint32_t> local;  // shared parent array
        std::vector<std::uint32_t> keys;   // shared pixel values
        std::vector<bool> key_set;
        std::vector<Warp> warps;
    };

    static constexpr std::size_t kStack = 256 * 1024;

    void fail(const std::string& what) {
        throw std::runtime_error("emulator (seed " + std::to_string(seed_) + "): " + what);
    }
    void yield();
    void block_on_collective();
    void wake(int f);
    void check_access(const std::uint32_t* p, const char* op);
    void check_parent_write(const std::uint32_t* p, std::uint32_t old, std::uint32_t v);
    void note_write(const std::uint32_t* p, std::uint32_t old, std::uint32_t v) {
        if (p < labels_ || p >= labels_ + n_ || old == kNone || old == v) return;
        prev_[std::size_t(p - labels_)] = old;
    }
    std::uint32_t& local_word(std::uint32_t k, const char* op) {
        auto& b = blocks_[std::size_t(fibers_[std::size_t(current_)].block_slot)];
        if (k >= b.local.size()) fail(std::string(op) + " past the shared parent array");
        return b.local[k];
    }
    static constexpr std::uint32_t kNone = 0xFFFFFFFFu;
    std::vector<std::uint32_t> prev_;  // a label word's value before its last change (kNone: none)
    static void entry();
    void start_block(std::uint64_t block);

    std::mt19937_64 rng_;
    std::uint64_t seed_;
    std::vector<Region> regions_;
    std::uint32_t* labels_ = nullptr;
    std::uint64_t n_ = 0;
    std::uint32_t flag_ = 0, background_ = 0;
    Phase phase_ = Phase::Parents;
    std::uint32_t shared_words_ = 0;

    // The launch in progress.
    const Program* program_ = nullptr;
    std::uint32_t threads_ = 0, warp_w_ = 32;
    // Deques: a live fiber's ucontext must never move (it points into itself).
    std::deque<Fiber> fibers_;
    std::deque<Block> blocks_;  // resident slots
    std::vector<int> runnable_;
    std::vector<std::uint64_t> pending_blocks_;
    int current_ = -1;
    ucontext_t main_ctx_{};
    const void* main_stack_bottom_ = nullptr;
    std::size_t main_stack_size_ = 0;
    void* main_fake_stack_ = nullptr;
#ifdef CCL_EMU_TSAN
    void* main_tsan_fiber_ = nullptr;
#endif
    std::string fiber_error_;
    std::uint64_t steps_ = 0;
    std::uint64_t max_steps_ = 400'000'000;

    static Executor*& self() {
        static thread_local Executor* e = nullptr;
        return e;
    }
};

// ---- the executor ------------------------------------------------------------------------------

inline void Executor::entry() {
    Executor* ex = self();
#ifdef CCL_EMU_ASAN
    __sanitizer_finish_switch_fiber(nullptr, &ex->main_stack_bottom_, &ex->main_stack_size_);
#endif
    const int f = ex->current_;
    {
        EmuOps ops(ex, f);
        try {
            (*ex->program_)(ops, ex->fibers_[std::size_t(f)].tid, ex->fibers_[std::size_t(f)].block);
        } catch (const std::exception& e) {
            if (ex->fiber_error_.empty()) ex->fiber_error_ = e.what();
        }
    }
    ex->fibers_[std::size_t(f)].finished = true;
#ifdef CCL_EMU_ASAN
    __sanitizer_start_switch_fiber(nullptr, ex->main_stack_bottom_, ex->main_stack_size_);
#endif
#ifdef CCL_EMU_TSAN
    __tsan_switch_to_fiber(ex->main_tsan_fiber_, 0);
#endif
    setcontext(&ex->main_ctx_);
}

inline void Executor::start_block(std::uint64_t block) {
    // Reuse a free slot.
    volatile int slot = -1;
    for (std::size_t s = 0; s < blocks_.size(); ++s)
        if (blocks_[s].live == 0) {
            slot = int(s);
            break;
        }
    if (slot < 0) {
        blocks_.emplace_back();
        slot = int(blocks_.size()) - 1;
    }
    Block& b = blocks_[std::size_t(int(slot))];
    b.id = block;
    b.arrived = 0;
    b.live = threads_;
    b.waiting.clear();
    b.scratch.assign(threads_ + 1, 0);
    b.local.assign(std::max(threads_, shared_words_), 0xFFFFFFFFu);
    b.keys.assign(std::max(threads_, shared_words_), 0xDEADBEEFu);
    b.key_set.assign(std::max(threads_, shared_words_), false);
    b.warps.assign((threads_ + warp_w_ - 1) / warp_w_, Warp{});
    for (std::uint32_t t = 0; t < threads_; ++t) {
        // Fibers are recycled once finished.
        int f = -1;
        for (std::size_t k = 0; k < fibers_.size(); ++k)
            if (fibers_[k].finished) {
                f = int(k);
                break;
            }
        if (f < 0) {
            fibers_.emplace_back();
            f = int(fibers_.size()) - 1;
            fibers_[std::size_t(f)].stack.reset(new char[kStack]);
        }
        Fiber& fb = fibers_[std::size_t(f)];
        fb.block = block;
        fb.tid = t;
        fb.block_slot = slot;
        fb.waiting = false;
        fb.finished = false;
        getcontext(&fb.ctx);
        fb.ctx.uc_stack.ss_sp = fb.stack.get();
        fb.ctx.uc_stack.ss_size = kStack;
        fb.ctx.uc_link = nullptr;
        makecontext(&fb.ctx, &Executor::entry, 0);
#ifdef CCL_EMU_TSAN
        if (!fb.tsan_fiber) fb.tsan_fiber = __tsan_create_fiber(0);
#endif
        runnable_.push_back(f);
    }
}

inline void Executor::launch(std::uint64_t blocks, std::uint32_t threads, std::uint32_t warp_w, const Program& program) {
    if (blocks == 0) return;
    self() = this;
    program_ = &program;
    threads_ = threads;
    warp_w_ = warp_w;
    fiber_error_.clear();
    for (auto& f : fibers_) f.finished = true;
    blocks_.clear();
    runnable_.clear();
#ifdef CCL_EMU_TSAN
    main_tsan_fiber_ = __tsan_get_current_fiber();
#endif
    // Blocks start in a random order, a random number at a time: nothing may depend on blockIdx
    // order or on every block being resident.
    pending_blocks_.resize(blocks);
    for (std::uint64_t b = 0; b < blocks; ++b) pending_blocks_[b] = b;
    std::shuffle(pending_blocks_.begin(), pending_blocks_.end(), rng_);
    const std::uint64_t resident = 1 + rng_() % std::min<std::uint64_t>(blocks, 6);
    std::size_t next_block = 0;
    auto live_blocks = [&] {
        std::uint64_t n = 0;
        for (auto& b : blocks_) n += b.live > 0;
        return n;
    };
    while (next_block < pending_blocks_.size() && live_blocks() < resident) start_block(pending_blocks_[next_block++]);

    const std::uint32_t stay_percent = std::uint32_t(rng_() % 90);
    current_ = -1;
    while (true) {
        if (!fiber_error_.empty()) fail(fiber_error_);
        if (runnable_.empty()) {
            if (next_block < pending_blocks_.size()) {
                start_block(pending_blocks_[next_block++]);
                continue;
            }
            for (auto& f : fibers_)
                if (!f.finished) fail("deadlock: every live thread waits at a collective");
            break;
        }
        // Stay on the current fiber sometimes, so some read-find-write windows run through.
        std::size_t pick;
        auto it = std::find(runnable_.begin(), runnable_.end(), current_);
        if (current_ >= 0 && it != runnable_.end() && rng_() % 100 < stay_percent)
            pick = std::size_t(it - runnable_.begin());
        else
            pick = std::size_t(rng_() % runnable_.size());
        current_ = runnable_[pick];
        Fiber& fb = fibers_[std::size_t(current_)];
        if (++steps_ > max_steps_) fail("step budget exhausted (livelock?)");
#ifdef CCL_EMU_ASAN
        __sanitizer_start_switch_fiber(&main_fake_stack_, fb.stack.get(), kStack);
#endif
#ifdef CCL_EMU_TSAN
        __tsan_switch_to_fiber(fb.tsan_fiber, 0);
#endif
        swapcontext(&main_ctx_, &fb.ctx);
#ifdef CCL_EMU_ASAN
        __sanitizer_finish_switch_fiber(main_fake_stack_, nullptr, nullptr);
#endif
        Fiber& after = fibers_[std::size_t(current_)];
        if (after.finished || after.waiting) {
            runnable_.erase(std::find(runnable_.begin(), runnable_.end(), current_));
            if (after.finished) {
                Block& b = blocks_[std::size_t(after.block_slot)];
                if (--b.live == 0 && next_block < pending_blocks_.size()) start_block(pending_blocks_[next_block++]);
            }
        }
    }
    if (!fiber_error_.empty()) fail(fiber_error_);
    program_ = nullptr;
}

inline void Executor::yield() {
    Fiber& fb = fibers_[std::size_t(current_)];
#ifdef CCL_EMU_ASAN
    __sanitizer_start_switch_fiber(&fb.fake_stack, main_stack_bottom_, main_stack_size_);
#endif
#ifdef CCL_EMU_TSAN
    __tsan_switch_to_fiber(main_tsan_fiber_, 0);
#endif
    swapcontext(&fb.ctx, &main_ctx_);
#ifdef CCL_EMU_ASAN
    __sanitizer_finish_switch_fiber(fb.fake_stack, &main_stack_bottom_, &main_stack_size_);
#endif
}

inline void Executor::block_on_collective() {
    fibers_[std::size_t(current_)].waiting = true;
    yield();
}

inline void Executor::wake(int f) {
    fibers_[std::size_t(f)].waiting = false;
    if (f != current_) runnable_.push_back(f);
}

inline void Executor::check_access(const std::uint32_t* p, const char* op) {
    for (const Region& r : regions_)
        if (p >= r.begin && p < r.begin + r.size) return;
    fail(std::string(op) + " outside every array");
}

inline void Executor::check_parent_write(const std::uint32_t* p, std::uint32_t old, std::uint32_t v) {
    if (p < labels_ || p >= labels_ + n_ || phase_ == Phase::NumberWide || phase_ == Phase::Final) return;
    const std::uint64_t i = std::uint64_t(p - labels_);
    if (v > old)
        fail("label[" + std::to_string(i) + "] increased from " + std::to_string(old) + " to " + std::to_string(v));
    if (phase_ == Phase::Parents && v != background_ && std::uint64_t(v & ~flag_) > i)
        fail("label[" + std::to_string(i) + "] set to parent " + std::to_string(v & ~flag_) + " above itself");
    if (phase_ == Phase::Parents && flag_ != 0 && v != background_ && (v & flag_) == 0)
        fail("label[" + std::to_string(i) + "] lost its parent flag");
}

// ---- the Ops ------------------------------------------------------------------------------------

inline std::uint32_t EmuOps::ld(const std::uint32_t* p) {
    ex_->yield();
    ex_->check_access(p, "load");
    return *p;
}
inline std::uint32_t EmuOps::ld_weak(const std::uint32_t* p) {
    ex_->yield();
    ex_->check_access(p, "load");
    if (p >= ex_->labels_ && p < ex_->labels_ + ex_->n_) {
        const std::uint32_t old = ex_->prev_[std::size_t(p - ex_->labels_)];
        if (old != Executor::kNone && ex_->rng_() % 3 == 0) return old;
    }
    return *p;
}
inline void EmuOps::st(std::uint32_t* p, std::uint32_t v) {
    ex_->yield();
    ex_->check_access(p, "store");
    ex_->check_parent_write(p, *p, v);
    ex_->note_write(p, *p, v);
    *p = v;
}
inline std::uint32_t EmuOps::sh_ld(std::uint32_t k) {
    ex_->yield();
    return ex_->local_word(k, "shared load");
}
inline void EmuOps::sh_st(std::uint32_t k, std::uint32_t v) {
    ex_->yield();
    std::uint32_t& w = ex_->local_word(k, "shared store");
    if (v > w || v > k) ex_->fail("shared parent " + std::to_string(k) + " set to " + std::to_string(v));
    w = v;
}
inline std::uint32_t EmuOps::sh_amin(std::uint32_t k, std::uint32_t v) {
    ex_->yield();
    std::uint32_t& w = ex_->local_word(k, "shared atomicMin");
    const std::uint32_t old = w;
    if (v > k) ex_->fail("shared parent " + std::to_string(k) + " offered " + std::to_string(v));
    w = std::min(old, v);
    return old;
}
inline std::uint32_t EmuOps::amin(std::uint32_t* p, std::uint32_t v) {
    ex_->yield();
    ex_->check_access(p, "atomicMin");
    const std::uint32_t old = *p;
    ex_->check_parent_write(p, old, std::min(old, v));
    ex_->note_write(p, old, std::min(old, v));
    *p = std::min(old, v);
    return old;
}
inline std::uint32_t EmuOps::aadd(std::uint32_t* p, std::uint32_t v) {
    ex_->yield();
    ex_->check_access(p, "atomicAdd");
    const std::uint32_t old = *p;
    *p = old + v;
    return old;
}
inline std::uint32_t EmuOps::aor(std::uint32_t* p, std::uint32_t v) {
    ex_->yield();
    ex_->check_access(p, "atomicOr");
    const std::uint32_t old = *p;
    *p = old | v;
    return old;
}
inline void EmuOps::pause() { ex_->yield(); }
inline void EmuOps::bound(std::uint64_t it, std::uint64_t limit, const char* what) {
    // The loops' own bounds, and a tighter one on waits: no wait in a correct schedule outlasts
    // every other thread's remaining steps, which the step budget caps.
    if (it > limit) ex_->fail(std::string(what) + ": loop bound exceeded");
}
inline std::uint32_t EmuOps::ballot(std::uint32_t mask, bool pred) {
    auto& fb = ex_->fibers_[std::size_t(fiber_)];
    auto& b = ex_->blocks_[std::size_t(fb.block_slot)];
    auto& w = b.warps[fb.tid / ex_->warp_w_];
    const std::uint32_t lane = fb.tid % ex_->warp_w_;
    if (!(mask >> lane & 1u)) ex_->fail("ballot by a lane outside its own mask");
    if (w.arrived == 0) {
        w.expected = mask;
        w.votes = 0;
        w.kind = 1;
        w.fibers.clear();
    } else if (w.expected != mask || w.kind != 1) {
        ex_->fail("lanes of one warp voted with different masks (or met at different collectives)");
    }
    if (w.arrived >> lane & 1u) ex_->fail("lane voted twice in one ballot");
    w.arrived |= 1u << lane;
    if (pred) w.votes |= 1u << lane;
    w.fibers.push_back(fiber_);
    if (w.arrived == mask) {
        // Lanes outside the mask (and bits past warp_w) read as random.
        const std::uint32_t result = (w.votes & mask) | (std::uint32_t(ex_->rng_()) & ~mask);
        for (int f : w.fibers) {
            ex_->fibers_[std::size_t(f)].result = result;
            if (f != fiber_) ex_->wake(f);
        }
        w.arrived = 0;
        ex_->yield();
    } else {
        ex_->block_on_collective();
    }
    return ex_->fibers_[std::size_t(fiber_)].result;
}
inline void EmuOps::key_st(std::uint32_t k, std::uint32_t v) {
    ex_->yield();
    auto& b = ex_->blocks_[std::size_t(ex_->fibers_[std::size_t(fiber_)].block_slot)];
    if (k >= b.keys.size()) ex_->fail("shared key store past the array");
    b.keys[k] = v;
    b.key_set[k] = true;
}
inline std::uint32_t EmuOps::key_ld(std::uint32_t k) {
    ex_->yield();
    auto& b = ex_->blocks_[std::size_t(ex_->fibers_[std::size_t(fiber_)].block_slot)];
    if (k >= b.keys.size()) ex_->fail("shared key load past the array");
    if (!b.key_set[k]) ex_->fail("shared key " + std::to_string(k) + " read before any thread wrote it");
    return b.keys[k];
}
inline std::uint32_t EmuOps::shfl(std::uint32_t mask, std::uint32_t v, std::uint32_t src) {
    auto& fb = ex_->fibers_[std::size_t(fiber_)];
    auto& b = ex_->blocks_[std::size_t(fb.block_slot)];
    auto& w = b.warps[fb.tid / ex_->warp_w_];
    const std::uint32_t lane = fb.tid % ex_->warp_w_;
    if (!(mask >> lane & 1u)) ex_->fail("shuffle by a lane outside its own mask");
    if (w.arrived == 0) {
        w.expected = mask;
        w.kind = 2;
        w.fibers.clear();
        w.sources.clear();
        w.values.assign(32, 0);
    } else if (w.expected != mask || w.kind != 2) {
        ex_->fail("lanes of one warp shuffled with different masks (or met at different collectives)");
    }
    if (w.arrived >> lane & 1u) ex_->fail("lane shuffled twice in one shuffle");
    w.arrived |= 1u << lane;
    w.values[lane] = v;
    w.fibers.push_back(fiber_);
    w.sources.push_back(src);
    if (w.arrived == mask) {
        for (std::size_t k = 0; k < w.fibers.size(); ++k) {
            const std::uint32_t s = w.sources[k];
            const int f = w.fibers[k];
            ex_->fibers_[std::size_t(f)].result =
                s < 32 && (mask >> s & 1u) ? w.values[s] : std::uint32_t(ex_->rng_());
            if (f != fiber_) ex_->wake(f);
        }
        w.arrived = 0;
        ex_->yield();
    } else {
        ex_->block_on_collective();
    }
    return ex_->fibers_[std::size_t(fiber_)].result;
}
inline void EmuOps::sync() {
    auto& fb = ex_->fibers_[std::size_t(fiber_)];
    auto& b = ex_->blocks_[std::size_t(fb.block_slot)];
    // A lane that other lanes of its warp wait for in a vote must not walk past it to a barrier.
    const auto& w = b.warps[fb.tid / ex_->warp_w_];
    const std::uint32_t lane = fb.tid % ex_->warp_w_;
    if (w.arrived != 0 && (w.expected >> lane & 1u) && !(w.arrived >> lane & 1u))
        ex_->fail("a lane reached a block barrier while its warp's vote waits for it");
    ++b.arrived;
    if (b.arrived == ex_->threads_) {
        b.arrived = 0;
        for (int f : b.waiting) ex_->wake(f);
        b.waiting.clear();
        ex_->yield();
    } else {
        b.waiting.push_back(fiber_);
        ex_->block_on_collective();
    }
}
inline std::uint32_t EmuOps::block_ticket(std::uint32_t* counter, std::uint32_t tid) {
    auto& b = ex_->blocks_[std::size_t(ex_->fibers_[std::size_t(fiber_)].block_slot)];
    if (tid == 0) b.scratch[ex_->threads_] = aadd(counter, 1);
    sync();
    const std::uint32_t t = b.scratch[ex_->threads_];
    sync();
    return t;
}
inline std::uint32_t EmuOps::block_exclusive_sum(std::uint32_t v, std::uint32_t& total) {
    const std::uint32_t tid = ex_->fibers_[std::size_t(fiber_)].tid;
    auto& b = ex_->blocks_[std::size_t(ex_->fibers_[std::size_t(fiber_)].block_slot)];
    b.scratch[tid] = v;
    sync();
    std::uint32_t before = 0, all = 0;
    for (std::uint32_t k = 0; k < ex_->threads_; ++k) {
        if (k < tid) before += b.scratch[k];
        all += b.scratch[k];
    }
    sync();
    total = all;
    return before;
}
inline void EmuOps::check_tile_total(std::uint32_t tid, std::uint32_t got, std::uint32_t expected) {
    if (tid == 0 && got != expected)
        ex_->fail("Number tile has " + std::to_string(got) + " roots but its count says " + std::to_string(expected));
}

}  // namespace cclabel::emu
