#pragma once
// The whole CUDA labelling pipeline of src/cuda/label_cuda.cu, run by the CPU executor: the same
// programs, the same launch order and workspace plan, only launched as fibers. The in-place scan
// of the counts, which CUB does on the GPU, is a host loop here.
#include <cstdint>
#include <vector>

#include "cclabel/detail/pixel_traits.hpp"
#include "core/request.hpp"
#include "cuda/kernels/bodies.cuh"
#include "cuda/kernels/segments.cuh"
#include "cuda/launch.hpp"
#include "cuda/params.hpp"
#include "emu/executor.hpp"

namespace cclabel::emu {

struct EmuRun {
    std::uint32_t count = 0;
    std::uint64_t steps = 0;
};

/// The segment pipeline (segments.cuh) as label_cuda.cu's enqueue_segments launches it.
inline EmuRun emu_label_segments(const cclabel::detail::Request& r, const cuda::detail::LaunchPlan& plan,
                                 std::uint32_t* out, const cuda::Tuning& tuning, std::uint64_t seed,
                                 std::uint32_t image_h, std::vector<std::uint32_t>* image_counts) {
    using namespace cclabel::cuda::detail;
    EmuRun run;
    // Poisoned like uninitialised device memory: a read of a word no one wrote shows as a wrong label.
    std::vector<std::uint32_t> seg(kSegArrays * plan.seg_words, 0xA5A5A5A5u);
    for (std::uint64_t i = 0; i < plan.pixels; ++i) out[i] = 0xFFFFFFFFu;
    const std::uint64_t images = image_h ? plan.height / image_h : 0;
    std::vector<std::uint32_t> counts_b(images + 1, 0xFFFFFFFFu);
    Params g = make_params(r, plan, tuning);
    if (image_h) set_batch(g, image_h);
    g.labels = out;
    g.seg_s = seg.data();
    g.seg_g = g.seg_s + plan.seg_words;
    g.seg_zin = g.seg_s + 2 * plan.seg_words;
    g.seg_zl = g.seg_s + 3 * plan.seg_words;
    g.seg_zr = g.seg_s + 4 * plan.seg_words;
    g.seg_c = g.seg_s + 5 * plan.seg_words;
    // Only the segs + 1 words of each array that the pipeline may touch.
    const std::uint64_t used = plan.segs + 1;
    Executor ex(seed);
    ex.set_regions({{out, plan.pixels, "labels"},
                    {g.seg_s, used, "seg S"},
                    {g.seg_g, used, "seg G"},
                    {g.seg_zin, used, "seg Zin / roots"},
                    {g.seg_zl, used, "seg Zl / counts"},
                    {g.seg_zr, used, "seg Zr"},
                    {g.seg_c, used, "seg C"},
                    {counts_b.data(), images, "image_counts"}});
    ex.set_parents(out, plan.pixels, 0, 0xFFFFFFFFu);
    ex.set_shared_words(1);
    const std::uint32_t threads = tuning.shape.seg_threads, ww = tuning.shape.warp_w;
    const std::uint64_t blocks = plan.seg_blocks;
    cclabel::detail::dispatch_format(r.format, [&]<PixelFormat F>() {
        ex.set_phase(Phase::Parents);
        auto launch = [&]<SegStage S>(std::uint64_t grid) {
            ex.forget_stale();
            ex.launch(grid, threads, ww, [&](EmuOps& ops, std::uint32_t tid, std::uint64_t b) {
                seg_stage_program<S, F>(ops, g, b * threads + tid);
            });
        };
        const bool tol = g.tolerance > 0;  // Start and Connect's tolerance instantiations, as label_cuda.cu
        if (tol && g.sw.seg_start_halves)
            launch.template operator()<SegStage::StartHalvesTolerance>(plan.start_blocks);
        else if (tol)
            launch.template operator()<SegStage::StartTolerance>(plan.start_blocks);
        else if (g.sw.seg_start_halves)
            launch.template operator()<SegStage::StartHalves>(plan.start_blocks);
        else
            launch.template operator()<SegStage::Start>(plan.start_blocks);
        if (plan.carry && !plan.warp_carry) launch.template operator()<SegStage::Carry>(blocks);
        if (tol)
            launch.template operator()<SegStage::ConnectTolerance>(blocks);
        else
            launch.template operator()<SegStage::Connect>(blocks);
        launch.template operator()<SegStage::Flatten>(blocks);
        std::uint32_t sum = 0;  // CUB's in-place exclusive sum on the GPU
        for (std::uint64_t k = 0; k < plan.scan_items; ++k) {
            const std::uint32_t v = g.seg_zl[k];
            g.seg_zl[k] = sum;
            sum += v;
        }
        ex.set_phase(Phase::Final);
        if (plan.quad) {
            launch.template operator()<SegStage::Resolve>(blocks);
            if (g.carry_labels) launch.template operator()<SegStage::CarryLabels>(carry_labels_blocks(plan.segs, ww, threads));
            launch.template operator()<SegStage::QuadNumber>(plan.quad_blocks);
        } else {
            launch.template operator()<SegStage::Number>(blocks);
        }
        if (image_h)
            ex.launch((images + ww - 1) / ww, ww, ww, [&](EmuOps& ops, std::uint32_t tid, std::uint64_t b) {
                seg_batch_counts_program(ops, g, counts_b.data(), images, b * ww + tid);
            });
        return 0;
    });
    run.count = g.seg_zl[plan.segs];
    if (image_counts) image_counts->assign(counts_b.begin(), counts_b.begin() + std::ptrdiff_t(images));
    run.steps = ex.steps();
    return run;
}

/// Labels a validated request into @p out with the emulated kernels. With @p image_h > 0 the
/// request is a batch of images of image_h rows stacked (as label_batch_device launches it): each
/// image numbered on its own, its count in (*image_counts)[b].
inline EmuRun emu_label(const cclabel::detail::Request& r, std::uint32_t* out, const cuda::Tuning& given,
                        std::uint64_t seed, std::uint32_t image_h = 0,
                        std::vector<std::uint32_t>* image_counts = nullptr) {
    using namespace cclabel::cuda::detail;
    const cuda::Tuning tuning = r.tolerance > 0 ? cuda::for_tolerance(given) : given;  // as label_cuda.cu
    const LaunchPlan plan = plan_launch(std::uint64_t(r.width), std::uint64_t(r.height), tuning.shape,
                                        tuning.force_wide_numbering, 0, /*for_gpu=*/false, tuning.switches);
    if (!plan.error.empty()) throw std::runtime_error(plan.error);
    EmuRun run;
    if (plan.pixels == 0) return run;
    if (plan.segments) return emu_label_segments(r, plan, out, tuning, seed, image_h, image_counts);
    std::vector<std::uint32_t> counts(plan.number_tiles + 1, 0), done(plan.tiles, 0), tickets(4, 0),
        mask(plan.wide ? plan.mask_words : 1, 0);
    for (std::uint64_t i = 0; i < plan.pixels; ++i) out[i] = 0xFFFFFFFFu;  // poison, and the "never increases" start

    const std::uint64_t images = image_h ? plan.height / image_h : 0;
    std::vector<std::uint32_t> image_base(images + 1, 0xFFFFFFFFu), counts_b(images + 1, 0xFFFFFFFFu);
    Params g = make_params(r, plan, tuning);
    if (image_h) set_batch(g, image_h);
    g.labels = out;
    g.counts = counts.data();
    g.done = done.data();
    g.tickets = tickets.data();
    g.mask = mask.data();

    Executor ex(seed);
    ex.set_regions({{out, plan.pixels, "labels"},
                    {counts.data(), counts.size(), "counts"},
                    {done.data(), done.size(), "done"},
                    {tickets.data(), tickets.size(), "tickets"},
                    {mask.data(), mask.size(), "mask"},
                    {image_base.data(), images, "image_base"},
                    {counts_b.data(), images, "image_counts"}});
    ex.set_parents(out, plan.pixels, g.flag, g.background);
    ex.set_shared_words(plan.tile_threads);  // one parent a pixel of the tile
    const std::uint32_t ww = tuning.shape.warp_w;
    cclabel::detail::dispatch_format(r.format, [&]<PixelFormat F>() {
        ex.set_phase(Phase::Parents);
        if (tuning.switches.fuse_start_connect) {
            ex.launch(plan.tiles, plan.tile_threads, ww,
                      [&](EmuOps& ops, std::uint32_t tid, std::uint64_t b) { start_connect_program<F>(ops, g, tid, b, 0); });
        } else {
            if (plan.rows_per_thread > 1)
                ex.launch(plan.tiles, plan.start_threads, ww,
                          [&](EmuOps& ops, std::uint32_t tid, std::uint64_t b) { start_tile_rows<F>(ops, g, b, tid); });
            else
                ex.launch(plan.tiles, plan.start_threads, ww,
                          [&](EmuOps& ops, std::uint32_t tid, std::uint64_t b) { start_connect_program<F>(ops, g, tid, b, 1); });
            if (tuning.switches.tile_union_find)
                ex.launch(plan.border_blocks, plan.tile_threads, ww, [&](EmuOps& ops, std::uint32_t tid, std::uint64_t b) {
                    connect_border_program<F>(ops, g, tid, b, plan.tile_threads);
                });
            else
                ex.launch(plan.tiles, plan.tile_threads, ww,
                          [&](EmuOps& ops, std::uint32_t tid, std::uint64_t b) { start_connect_program<F>(ops, g, tid, b, 2); });
        }
        if (tuning.switches.count_after_connect)
            ex.launch(plan.number_tiles, plan.number_threads, ww,
                      [&](EmuOps& ops, std::uint32_t tid, std::uint64_t b) { count_program<F>(ops, g, tid, b); });
        std::uint32_t sum = 0;  // CUB's in-place exclusive sum on the GPU
        for (auto& c : counts) {
            const std::uint32_t v = c;
            c = sum;
            sum += v;
        }
        if (image_h) {
            ex.launch((images + ww - 1) / ww, ww, ww, [&](EmuOps& ops, std::uint32_t tid, std::uint64_t b) {
                batch_base_program<F>(ops, g, image_base.data(), counts_b.data(), images, b * ww + tid);
            });
            g.image_base = image_base.data();
        }
        if (!plan.wide) {
            ex.set_phase(Phase::NumberFlag);
            ex.launch(plan.number_tiles, plan.number_threads, ww,
                      [&](EmuOps& ops, std::uint32_t tid, std::uint64_t) { number_program<F>(ops, g, tid); });
        } else {
            ex.launch(plan.number_tiles, plan.number_threads, ww,
                      [&](EmuOps& ops, std::uint32_t tid, std::uint64_t b) { collapse_wide_program<F>(ops, g, tid, b); });
            ex.set_phase(Phase::NumberWide);
            ex.launch(plan.number_tiles, plan.number_threads, ww,
                      [&](EmuOps& ops, std::uint32_t tid, std::uint64_t b) { number_wide_program<F>(ops, g, tid, b); });
        }
        return 0;
    });
    run.count = counts[plan.number_tiles];
    if (image_counts) image_counts->assign(counts_b.begin(), counts_b.begin() + std::ptrdiff_t(images));
    run.steps = ex.steps();
    return run;
}

}  // namespace cclabel::emu
