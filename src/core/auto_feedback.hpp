#pragma once
// Backend::Auto corrects its cost model by what its own calls took.
//
// The model's rates are measured once, on probe pictures, at the process's first Auto call
// (core/auto_rates.cpp). A picture unlike the probes, a host that got busier, a path the model
// prices poorly: each leaves the estimate off, and auto then keeps taking the slower backend for
// every call of that kind. On the H100 host (2026-12-07) the 200 dpi sheet with its paper as
// background took 14.9 ms on the CPU, which auto took, against 11.8 ms on the GPU; the 50 dpi
// sheet likewise (1.40×). So for each kind of call (operation, format, threads, size, background,
// density) auto keeps what the last calls took over what the model said, per backend, and
// multiplies the model's estimates by the median of those ratios before it compares them.
//
// It learns only the backend it runs: when the corrected estimates are close (within
// kExploreMargin), a call of a kind whose other backend has been timed fewer than kExploreFirst
// times, or not in the last kExploreEvery calls, runs on that other backend instead. Labels are
// the same on either backend, so this costs time only: at most the margin, on a call or two
// and then one call in kExploreEvery among close calls.
//
// CCLABEL_AUTO_OFF=feedback turns it off (the benchmark's A/B); rates given in CCLABEL_RATES are
// taken as they are, without it.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <map>
#include <mutex>
#include <tuple>

#include "cclabel/options.hpp"

namespace cclabel::detail {

/// The kind of call whose corrections are shared: what makes the two backends' true times move
/// together. Sizes in steps of √2, densities (when the picture was sampled) in steps of √2 too.
struct FeedbackKey {
    int op = 0, format = 0, threads = 0;
    int size_class = 0;     ///< round(2 log2 pixels)
    int density_class = 0;  ///< round(2 log2 density); kNoDensity when the picture was not sampled
    bool background = false;
    int images = 0;         ///< 1 for one picture; a batch's image count class otherwise

    static constexpr int kNoDensity = -1000;
    auto operator<=>(const FeedbackKey&) const = default;
};

/// round(2 log2 @p x) for x > 0 (the classes of FeedbackKey), @p none for x ≤ 0.
inline int half_log2_class(double x, int none) noexcept {
    return x > 0 ? int(std::lround(2.0 * std::log2(x))) : none;
}

class AutoFeedback {
public:
    /// Corrected estimates within this factor of each other are close: the other backend is timed
    /// now and then.
    static constexpr double kExploreMargin = 1.5;
    /// Times each backend is timed for a kind of call before auto goes by the corrections alone
    /// (two, so that one cold first call, with the GPU's buffers still to allocate, does not decide).
    static constexpr int kExploreFirst = 2;
    /// Among close calls of a kind, one in this many runs on the backend not taken, so that a
    /// host whose load changes is followed.
    static constexpr std::uint64_t kExploreEvery = 64;
    /// A correction stays within [1/kLimit, kLimit]: a call disturbed once, badly, moves the
    /// median of several only so far.
    static constexpr double kLimit = 8.0;
    static constexpr int kWindow = 5;  ///< ratios kept a backend and kind; their median corrects

    struct Decision {
        Backend backend = Backend::Cpu;
        bool explore = false;            ///< the corrected estimates would have taken the other one
        double cpu_factor = 1, gpu_factor = 1;
    };

    /// The backend for a call of @p key whose model estimates are @p cpu_s and @p gpu_s seconds,
    /// the GPU only when its corrected estimate is strictly cheaper (as choose_backend), unless the
    /// call explores. Counts the call.
    Decision decide(const FeedbackKey& key, double cpu_s, double gpu_s) {
        std::lock_guard<std::mutex> lock(m_);
        Entry& e = entries_[key];
        Decision d;
        d.cpu_factor = e.side[0].factor();
        d.gpu_factor = e.side[1].factor();
        const double c = cpu_s * d.cpu_factor, g = gpu_s * d.gpu_factor;
        const int pick = g < c ? 1 : 0, other = 1 - pick;
        const bool close = std::max(c, g) < kExploreMargin * std::min(c, g);
        const Side& o = e.side[std::size_t(other)];
        // The backend picked is timed first, then the other (twice while it is new): never two
        // unmeasured backends' guesses against each other for long, never the first call of a kind.
        const bool explore = close && e.calls > 0 &&
                             (o.seen < kExploreFirst || e.calls - o.last_call >= kExploreEvery);
        d.explore = explore;
        d.backend = (explore ? other : pick) == 1 ? Backend::Cuda : Backend::Cpu;
        ++e.calls;
        return d;
    }

    /// What a call of @p key on @p backend took (@p actual_s) against the model's estimate
    /// (@p estimate_s, uncorrected).
    void observe(const FeedbackKey& key, Backend backend, double estimate_s, double actual_s) {
        if (!(estimate_s > 0) || !(actual_s > 0)) return;
        std::lock_guard<std::mutex> lock(m_);
        Entry& e = entries_[key];
        Side& s = e.side[backend == Backend::Cuda ? 1 : 0];
        s.ratios[std::size_t(s.seen % kWindow)] = std::clamp(actual_s / estimate_s, 1.0 / kLimit, kLimit);
        ++s.seen;
        s.last_call = e.calls;
    }

    /// The correction of @p backend for @p key now (1 when it was never timed).
    double factor(const FeedbackKey& key, Backend backend) const {
        std::lock_guard<std::mutex> lock(m_);
        const auto it = entries_.find(key);
        return it == entries_.end() ? 1.0 : it->second.side[backend == Backend::Cuda ? 1 : 0].factor();
    }

    /// Forgets every kind (kinds are few: a process labels pictures of a handful of shapes).
    void clear() {
        std::lock_guard<std::mutex> lock(m_);
        entries_.clear();
    }

    /// The process's feedback (core/auto_rates.cpp's resolve_auto and the calls that report back).
    static AutoFeedback& process();

private:
    struct Side {
        std::array<double, kWindow> ratios{};
        std::uint64_t seen = 0;
        std::uint64_t last_call = 0;  ///< the kind's call count when this side was last timed
        /// 1 until the side is timed kExploreFirst times: one first call, cold (the GPU's buffers of
        /// a new size allocated, 6.8x the estimate for 512² noise on the H100 host, twentieth
        /// session), must not make the estimates look far apart, or the side is never timed again.
        double factor() const {
            const std::size_t n = std::size_t(std::min<std::uint64_t>(seen, kWindow));
            if (seen < std::uint64_t(kExploreFirst)) return 1.0;
            std::array<double, kWindow> r = ratios;
            std::sort(r.begin(), r.begin() + std::ptrdiff_t(n));
            return r[(n - 1) / 2];  // the lower median: of two, the faster (disturbances only add time)
        }
    };
    struct Entry {
        std::array<Side, 2> side;  ///< CPU, GPU
        std::uint64_t calls = 0;
    };
    mutable std::mutex m_;
    std::map<FeedbackKey, Entry> entries_;
};

/// What an Auto call hands back after it ran, so that its time corrects the next estimates: set by
/// resolve_auto when feedback is on and the call was a choice.
struct AutoTicket {
    bool active = false;
    FeedbackKey key;
    Backend backend = Backend::Cpu;
    double estimate_s = 0;  ///< the model's, uncorrected, for @c backend
    /// Records what the call took.
    void done(double actual_s) const {
        if (active) AutoFeedback::process().observe(key, backend, estimate_s, actual_s);
    }
};

}  // namespace cclabel::detail
