#pragma once
// The CUDA volume labeller of src/cuda/volume_cuda.cu run by the CPU executor: the same programs,
// launch order and plan, launched as fibers. CUB's exclusive sum over the per-word root counts is
// a host loop here. With VolumeSwitches::runs (exact labelling) the run kernels of
// kernels/volume_runs.cuh, as volume_cuda.cu launches them.
#include <cstdint>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "cclabel/detail/pixel_traits.hpp"
#include "core/volume_request.hpp"
#include "cuda/volume_plan.hpp"
#include "emu/executor.hpp"

namespace cclabel::emu {

/// Labels a validated request of an untyped format into @p out with the emulated kernels; N.
/// @p Conn 0: the request's connectivity; else the programs' Conn whatever the request says (the
/// mutation test's kDropOffset + k). A tolerance (r.tolerance, a typed volume's r.tolerance_value,
/// or @p typed for a typed picture made a volume by typed_picture) runs the tolerance
/// instantiations, as volume_cuda.cu does.
/// @p Shortcuts: the mutation tests' wrong programs, the tolerance's joins with the shortcuts of an
/// equivalence of values (cd::Transitive): cover and prelink as @p shape's switches say, and
/// covered_by_left where cover is off.
/// The run kernels (VolumeSwitches::runs) on request @p r with plan @p plan (plan.runs): Start,
/// Connect, Flatten, the scan, Number. @p Conn 0: the request's connectivity; else the programs'
/// Conn (the mutation tests' vruns::kMutate + m).
template <int Conn = 0>
std::uint32_t emu_label_runs(const cclabel::detail::VolumeRequest& r, std::uint32_t* out, const cuda::detail::VolumePlan& plan,
                             const cuda::detail::VolumeShape& shape, std::uint64_t seed) {
    namespace cd = cclabel::cuda::detail;
    // The workspace poisoned like fresh device memory, the last count cleared as the GPU does.
    std::vector<std::uint32_t> ws(std::size_t((plan.workspace_bytes + 3) / 4), 0xA5A5A5A5u);
    auto* bytes = reinterpret_cast<std::uint8_t*>(ws.data());
    const cd::vruns::RunParams g = cd::vruns::make_run_params(r, plan, shape, out, bytes);
    g.counts[plan.segments] = 0;
    for (std::uint64_t i = 0; i < plan.voxels; ++i) out[i] = 0xFFFFFFFFu;
    Executor ex(seed);
    ex.set_regions({{out, plan.voxels, "labels"},
                    {g.roots, plan.segments, "root bits"},
                    {g.counts, plan.segments + 1, "counts"},
                    {g.seg_s, plan.segments, "node masks"},
                    {g.seg_bg, plan.segments, "background masks"}});
    ex.set_parents(out, plan.voxels, 0, cd::vol::kVolumeBackground);
    const std::uint32_t t = shape.run_threads;
    auto run = [&]<PixelFormat F, int C>() {
        ex.set_phase(Phase::Parents);
        ex.launch(plan.run_blocks, t, shape.warp_w, [&](EmuOps& ops, std::uint32_t tid, std::uint64_t b) {
            cd::vruns::runs_start_program<F>(ops, g, b * t + tid);
        });
        ex.forget_stale();
        ex.launch(plan.run_blocks, t, shape.warp_w, [&](EmuOps& ops, std::uint32_t tid, std::uint64_t b) {
            cd::vruns::runs_connect_program<F, C>(ops, g, b * t + tid);
        });
        ex.forget_stale();
        ex.launch(plan.run_blocks, t, shape.warp_w, [&](EmuOps& ops, std::uint32_t tid, std::uint64_t b) {
            cd::vruns::runs_flatten_program(ops, g, b * t + tid);
        });
        std::uint32_t sum = 0;
        for (std::uint64_t i = 0; i <= plan.segments; ++i) {
            const std::uint32_t v = g.counts[i];
            g.counts[i] = sum;
            sum += v;
        }
        ex.set_phase(Phase::Final);
        ex.launch(plan.run_blocks, t, shape.warp_w, [&](EmuOps& ops, std::uint32_t tid, std::uint64_t b) {
            cd::vruns::runs_number_program(ops, g, b * t + tid);
        });
        return 0;
    };
    cclabel::detail::dispatch_format(r.format, [&]<PixelFormat F>() {
        if constexpr (Conn != 0) return run.template operator()<F, Conn>();
        switch (r.connectivity) {
            case 6: return run.template operator()<F, 6>();
            case 18: return run.template operator()<F, 18>();
            default: return run.template operator()<F, 26>();
        }
    });
    return g.counts[plan.segments];
}

template <int Conn = 0, bool Shortcuts = false>
std::uint32_t emu_label_volume(const cclabel::detail::VolumeRequest& r, std::uint32_t* out,
                               const cuda::detail::VolumeShape& shape, std::uint64_t seed,
                               const cuda::detail::TypedPicture* typed = nullptr) {
    namespace cd = cclabel::cuda::detail;
    // As plan_for: a tolerance (or a typed picture's) keeps the voxel kernels.
    cd::VolumeShape run_shape = cd::shape_for_request(r, shape);
    if (typed || Shortcuts || (Conn >= cd::vol::kDropOffset && Conn < cd::vruns::kMutate)) run_shape.switches.runs = false;
    if (Conn >= cd::vruns::kMutate && !run_shape.switches.runs) throw std::runtime_error("a run mutation needs switches.runs");
    const cd::VolumePlan plan = cd::plan_volume(std::uint64_t(r.width), std::uint64_t(r.height),
                                                std::uint64_t(r.depth), run_shape, 0, /*for_gpu=*/false);
    if (!plan.error.empty()) throw std::runtime_error(plan.error);
    if (plan.voxels == 0) return 0;
    if constexpr (Conn == 0 || Conn >= cd::vruns::kMutate) {
        if (plan.runs) return emu_label_runs<Conn>(r, out, plan, run_shape, seed);
    }
    // Poisoned like fresh device memory.
    std::vector<std::uint32_t> mask(plan.words, 0xA5A5A5A5u), prefix(plan.scan_items, 0xA5A5A5A5u);
    prefix[plan.words] = 0;  // the GPU clears the last count
    for (std::uint64_t i = 0; i < plan.voxels; ++i) out[i] = 0xFFFFFFFFu;
    cd::vol::VolParams g = cd::vol::make_vol_params(r, plan, shape, out, mask.data(), prefix.data());
    // As enqueue_volume: a typed volume's tolerance comes with its request, a typed picture's with
    // the TypedPicture made of it.
    g.tolerance_value = typed ? typed->tolerance_value : r.tolerance_value;
    g.background_bits = typed ? typed->background_bits : r.background_bits;

    Executor ex(seed);
    ex.set_regions({{out, plan.voxels, "labels"}, {mask.data(), mask.size(), "mask"}, {prefix.data(), prefix.size(), "prefix"}});
    ex.set_parents(out, plan.voxels, 0, cd::vol::kVolumeBackground);
    ex.set_shared_words(plan.tile_voxels);  // parents and keys, a word a voxel of the tile
    const std::uint32_t vt = shape.voxel_threads;
    auto run = [&]<PixelFormat F, int C, class M = cd::EqualKeys<F>>() {
        // As the GPU: cover is a template parameter of the programs (Conn 6 always without).
        auto tiles = [&]<bool Cover>() {
            ex.set_phase(Phase::Parents);
            ex.launch(plan.tiles, plan.tile_threads, shape.warp_w, [&](EmuOps& ops, std::uint32_t tid, std::uint64_t b) {
                cd::vol::volume_local_program<F, C, Cover, M>(ops, g, tid, b);
            });
            ex.forget_stale();
            // The GPU's grid of tiles × steps, as one list of blocks.
            ex.launch(plan.tiles * plan.steps, plan.tile_threads, shape.warp_w, [&](EmuOps& ops, std::uint32_t tid, std::uint64_t b) {
                cd::vol::volume_border_program<F, C, Cover, M>(ops, g, tid, b % plan.tiles, std::uint32_t(b / plan.tiles));
            });
        };
        if constexpr (M::kTransitive) {
            if (C != 6 && shape.switches.cover)
                tiles.template operator()<true>();
            else
                tiles.template operator()<false>();
        } else {
            tiles.template operator()<false>();
        }
        ex.forget_stale();
        ex.launch(plan.voxel_blocks, vt, shape.warp_w, [&](EmuOps& ops, std::uint32_t tid, std::uint64_t b) {
            cd::vol::volume_flatten_program(ops, g, b * vt + tid, tid % 32);
        });
        std::uint32_t sum = 0;
        for (auto& c : prefix) {
            const std::uint32_t v = c;
            c = sum;
            sum += v;
        }
        ex.set_phase(Phase::Final);
        ex.launch(plan.voxel_blocks, vt, shape.warp_w, [&](EmuOps& ops, std::uint32_t tid, std::uint64_t b) {
            cd::vol::volume_number_program(ops, g, b * vt + tid);
        });
        return 0;
    };
    if (typed || cd::volume_tolerance(r) || r.tolerance_value > 0) {
        cd::dispatch_tolerance(r.format, [&]<PixelFormat F, class M0>() {
            using M = std::conditional_t<Shortcuts, cd::Transitive<M0>, M0>;
            auto with = [&]<int C>() { return run.template operator()<F, C, M>(); };
            if constexpr (Conn != 0) return with.template operator()<Conn>();
            switch (r.connectivity) {
                case 6: return with.template operator()<6>();
                case 18: return with.template operator()<18>();
                default: return with.template operator()<26>();
            }
        });
    } else {
        cclabel::detail::dispatch_format(r.format, [&]<PixelFormat F>() {
            if constexpr (Conn != 0) return run.template operator()<F, Conn>();
            switch (r.connectivity) {
                case 6: return run.template operator()<F, 6>();
                case 18: return run.template operator()<F, 18>();
                default: return run.template operator()<F, 26>();
            }
        });
    }
    return prefix[plan.words];
}

}  // namespace cclabel::emu
