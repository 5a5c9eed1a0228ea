// Backend::Auto's corrections from its own calls (core/auto_feedback.hpp), with given estimates and
// times: no device needed.
#include <gtest/gtest.h>

#include "core/auto_feedback.hpp"

namespace cclabel::test {
namespace {

using detail::AutoFeedback;
using detail::FeedbackKey;

FeedbackKey kind(int size_class = 40) {
    FeedbackKey k;
    k.op = 0;
    k.format = 1;
    k.threads = 16;
    k.size_class = size_class;
    k.density_class = FeedbackKey::kNoDensity;
    k.images = 1;
    return k;
}

/// Runs @p calls calls of one kind whose model says @p cpu_est / @p gpu_est seconds and which take
/// @p cpu_true / @p gpu_true; returns how many ran on the GPU.
int run_calls(AutoFeedback& f, const FeedbackKey& k, int calls, double cpu_est, double gpu_est, double cpu_true,
              double gpu_true) {
    int gpu = 0;
    for (int i = 0; i < calls; ++i) {
        const AutoFeedback::Decision d = f.decide(k, cpu_est, gpu_est);
        const bool on_gpu = d.backend == Backend::Cuda;
        gpu += on_gpu;
        f.observe(k, d.backend, on_gpu ? gpu_est : cpu_est, on_gpu ? gpu_true : cpu_true);
    }
    return gpu;
}

TEST(AutoFeedback, TheFirstCallGoesByTheModel) {
    AutoFeedback f;
    EXPECT_EQ(f.decide(kind(), 10e-3, 9e-3).backend, Backend::Cuda);
    AutoFeedback g;
    EXPECT_EQ(g.decide(kind(), 9e-3, 10e-3).backend, Backend::Cpu);
    AutoFeedback h;  // a tie goes to the CPU, as choose_backend
    EXPECT_EQ(h.decide(kind(), 9e-3, 9e-3).backend, Backend::Cpu);
}

TEST(AutoFeedback, AModelThatPicksTheSlowerBackendIsCorrected) {
    // The 200 dpi sheet with paper as background: the model says CPU 9 ms, GPU 11 ms; they take 15 and 12.
    AutoFeedback f;
    const FeedbackKey k = kind();
    const int gpu = run_calls(f, k, 40, 9e-3, 11e-3, 15e-3, 12e-3);
    // The first call takes the CPU, the next two time the GPU, and from then on the GPU is taken
    // but for one call in kExploreEvery.
    EXPECT_GE(gpu, 40 - 1 - 2);
    EXPECT_EQ(f.decide(k, 9e-3, 11e-3).backend, Backend::Cuda);
    EXPECT_NEAR(f.factor(k, Backend::Cpu), 15.0 / 9.0, 1e-9);
    EXPECT_NEAR(f.factor(k, Backend::Cuda), 12.0 / 11.0, 1e-9);
}

TEST(AutoFeedback, ARightModelCostsOnlyItsExploringCalls) {
    AutoFeedback f;
    const FeedbackKey k = kind();
    // Close estimates, right: the GPU is timed twice to learn it, then once in kExploreEvery calls.
    const int calls = 1 + 2 + int(AutoFeedback::kExploreEvery) * 3;
    const int gpu = run_calls(f, k, calls, 9e-3, 10e-3, 9e-3, 10e-3);
    EXPECT_GE(gpu, 2);
    EXPECT_LE(gpu, 2 + 3);
}

TEST(AutoFeedback, FarApartEstimatesAreNeverExplored) {
    AutoFeedback f;
    const FeedbackKey k = kind();
    EXPECT_EQ(run_calls(f, k, 200, 1e-3, 5e-3, 1e-3, 5e-3), 0);
    EXPECT_EQ(run_calls(f, kind(41), 200, 5e-3, 1e-3, 5e-3, 1e-3), 200);
}

TEST(AutoFeedback, KindsAreLearnedApart) {
    AutoFeedback f;
    const FeedbackKey a = kind(40), b = kind(44);
    run_calls(f, a, 10, 9e-3, 11e-3, 15e-3, 12e-3);
    EXPECT_NE(f.factor(a, Backend::Cpu), 1.0);
    EXPECT_EQ(f.factor(b, Backend::Cpu), 1.0);
    EXPECT_EQ(f.factor(b, Backend::Cuda), 1.0);
    EXPECT_EQ(f.decide(b, 9e-3, 11e-3).backend, Backend::Cpu);  // b's first call: the model
}

TEST(AutoFeedback, OneDisturbedCallDoesNotTurnTheDecision) {
    AutoFeedback f;
    const FeedbackKey k = kind();
    // The CPU is right and faster by 20%; after both are learned one CPU call takes 8x its time.
    run_calls(f, k, 10, 8e-3, 10e-3, 8e-3, 10e-3);
    f.observe(k, Backend::Cpu, 8e-3, 64e-3);
    EXPECT_EQ(f.decide(k, 8e-3, 10e-3).backend, Backend::Cpu);
    EXPECT_DOUBLE_EQ(f.factor(k, Backend::Cpu), 1.0);  // the median of the last five ratios
}

TEST(AutoFeedback, AHostThatGetsBusyIsFollowed) {
    AutoFeedback f;
    const FeedbackKey k = kind();
    run_calls(f, k, 20, 8e-3, 10e-3, 8e-3, 10e-3);
    // The CPU now takes 14 ms a call (other work on the host); the GPU still 10.
    const int later = 2 * int(AutoFeedback::kExploreEvery);
    const int gpu = run_calls(f, k, later, 8e-3, 10e-3, 14e-3, 10e-3);
    EXPECT_GE(gpu, later - 5);
}

TEST(AutoFeedback, AColdFirstCallDoesNotDecide) {
    // 512² noise (H100 host): model CPU 0.29 ms, GPU 0.23; the CPU takes 0.56, the GPU 0.33, but its
    // first call, with buffers of a new size to allocate, 1.6 ms.
    AutoFeedback f;
    const FeedbackKey k = kind(36);
    int gpu = 0;
    for (int i = 0; i < 30; ++i) {
        const AutoFeedback::Decision d = f.decide(k, 0.29e-3, 0.23e-3);
        const bool on_gpu = d.backend == Backend::Cuda;
        gpu += on_gpu;
        f.observe(k, d.backend, on_gpu ? 0.23e-3 : 0.29e-3, on_gpu ? (gpu == 1 ? 1.6e-3 : 0.33e-3) : 0.56e-3);
    }
    EXPECT_GE(gpu, 27);
    EXPECT_EQ(f.decide(k, 0.29e-3, 0.23e-3).backend, Backend::Cuda);
}

TEST(AutoFeedback, CorrectionsAreBounded) {
    AutoFeedback f;
    const FeedbackKey k = kind();
    f.observe(k, Backend::Cpu, 1e-3, 1.0);
    EXPECT_DOUBLE_EQ(f.factor(k, Backend::Cpu), 1.0);  // one call is not yet a correction
    for (int i = 0; i < 10; ++i) f.observe(k, Backend::Cpu, 1e-3, 1.0);
    EXPECT_DOUBLE_EQ(f.factor(k, Backend::Cpu), AutoFeedback::kLimit);
    for (int i = 0; i < 10; ++i) f.observe(k, Backend::Cuda, 1.0, 1e-6);
    EXPECT_DOUBLE_EQ(f.factor(k, Backend::Cuda), 1.0 / AutoFeedback::kLimit);
    f.observe(k, Backend::Cpu, 0.0, 1.0);  // no estimate: ignored
    f.observe(k, Backend::Cpu, 1.0, -1.0);
    EXPECT_DOUBLE_EQ(f.factor(k, Backend::Cpu), AutoFeedback::kLimit);
    f.clear();
    EXPECT_DOUBLE_EQ(f.factor(k, Backend::Cpu), 1.0);
}

TEST(AutoFeedback, ClassesOfSizesAndDensities) {
    EXPECT_EQ(detail::half_log2_class(1 << 20, 0), 40);
    EXPECT_EQ(detail::half_log2_class(1.5 * (1 << 20), 0), 41);  // √2 steps
    EXPECT_EQ(detail::half_log2_class(0, -7), -7);
    EXPECT_EQ(detail::half_log2_class(-1, FeedbackKey::kNoDensity), FeedbackKey::kNoDensity);
}

}  // namespace
}  // namespace cclabel::test
