// The CUDA volume labeller (src/cuda/volume_cuda.cu) against the CPU's label_volume, which equals
// the flood fill and cc3d: label_volume with Backend::Cuda (host memory) and label_volume_device
// (device memory, padded strides, a poisoned label buffer with a guard past its end), every format,
// 6/18/26, background on and off, odd shapes that cross the tiles' faces, helices joined only
// through edges or corners, 512³ volumes, repeated runs, and the device API's errors; and the same
// against the run kernels (VolumeSwitches::runs, off by default: VolumeCudaRuns.*), including a
// tolerance, which keeps the voxel kernels. Skipped without a device.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <deque>
#include <random>
#include <string>
#include <vector>

#include "cclabel/cclabel.hpp"
#include "cclabel/cuda_volume.hpp"
#include "cuda/dev_mem.hpp"
#include "cuda/gpu_test.hpp"
#include "cuda/volume_tuned.hpp"
#include "support/volume_data.hpp"

namespace cclabel::test {
namespace {

constexpr std::uint32_t kPoison = 0xABABABABu;
constexpr int kConnectivities[] = {6, 18, 26};
constexpr PixelFormat kAllFormats[] = {PixelFormat::Binary8, PixelFormat::Gray8, PixelFormat::Gray16, PixelFormat::U32,
                                       PixelFormat::RGB8,    PixelFormat::RGBA8, PixelFormat::I8,     PixelFormat::I16,
                                       PixelFormat::I32,     PixelFormat::I64,   PixelFormat::U64,    PixelFormat::F16,
                                       PixelFormat::F32,     PixelFormat::F64};

Options volume_options(PixelFormat f, int conn, bool background, Backend b = Backend::Cpu) {
    Options o;
    o.connectivity = conn;
    o.backend = b;
    return background ? background_zero(f, o) : o;
}

struct Labels {
    std::vector<std::uint32_t> labels;
    std::uint32_t count = 0;
};

Labels on_cpu(const VolumeView& view, const Options& o) {
    Options c = o;
    c.backend = Backend::Cpu;
    Labels l;
    l.labels.assign(view.voxels(), 0);
    l.count = label_volume(view, l.labels.data(), c).count;
    return l;
}

/// label_volume_device of the host volume @p view copied to the GPU with its strides (with
/// @p shape: its tiles and switches, else the public call's).
Labels on_device(const VolumeView& view, const Options& o, const cuda::detail::VolumeShape* shape = nullptr) {
    const std::size_t bytes = std::size_t(view.slice_bytes() * std::max<std::int64_t>(view.depth, 1));
    DevMem d_in(bytes), d_out((view.voxels() + 1) * 4), d_count(4);
    EXPECT_EQ(cudaMemcpy(d_in.p, view.data, bytes, cudaMemcpyHostToDevice), cudaSuccess);
    EXPECT_EQ(cudaMemset(d_out.p, 0xAB, (view.voxels() + 1) * 4), cudaSuccess);
    VolumeView dv = view;
    dv.data = d_in.p;
    std::size_t ws_bytes = 0;
    auto call = [&](void* ws) {
        if (shape)
            cuda::detail::label_volume_device_shaped(ws, ws_bytes, dv, d_out.as<std::uint32_t>(),
                                                     d_count.as<std::uint32_t>(), o, nullptr, *shape);
        else
            cuda::label_volume_device(ws, ws_bytes, dv, d_out.as<std::uint32_t>(), d_count.as<std::uint32_t>(), o);
    };
    call(nullptr);
    DevMem ws(ws_bytes);
    call(ws.p);
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    Labels l;
    l.labels.resize(view.voxels() + 1);
    EXPECT_EQ(cudaMemcpy(l.labels.data(), d_out.p, l.labels.size() * 4, cudaMemcpyDeviceToHost), cudaSuccess);
    EXPECT_EQ(cudaMemcpy(&l.count, d_count.p, 4, cudaMemcpyDeviceToHost), cudaSuccess);
    EXPECT_EQ(l.labels.back(), kPoison) << "wrote past the labels";
    l.labels.pop_back();
    return l;
}

Labels on_host_cuda(const VolumeView& view, const Options& o) {
    Options c = o;
    c.backend = Backend::Cuda;
    Labels l;
    l.labels.assign(view.voxels(), kPoison);
    const LabelResult r = label_volume(view, l.labels.data(), c);
    EXPECT_EQ(r.backend, Backend::Cuda);
    l.count = r.count;
    return l;
}

std::string describe(const Volume& v, PixelFormat f, int conn, bool bg, const std::string& what) {
    return what + " " + std::string(format_name(f)) + " " + std::to_string(v.w) + "x" + std::to_string(v.h) + "x" +
           std::to_string(v.d) + " conn " + std::to_string(conn) + " bg " + std::to_string(bg);
}

/// Both GPU paths equal the CPU on @p v in format @p f.
void expect_cpu(Volume& v, PixelFormat f, int conn, bool bg, const std::string& what, std::int64_t row_pad = 0,
                std::int64_t slice_pad = 0) {
    const VolumeView& view = v.as(f, row_pad, slice_pad);
    const Options o = volume_options(f, conn, bg);
    const Labels want = on_cpu(view, o);
    const std::string at = describe(v, f, conn, bg, what);
    const Labels dev = on_device(view, o);
    ASSERT_EQ(dev.count, want.count) << "device API, " << at;
    ASSERT_EQ(dev.labels, want.labels) << "device API, " << at;
    const Labels host = on_host_cuda(view, o);
    ASSERT_EQ(host.count, want.count) << "Backend::Cuda, " << at;
    ASSERT_EQ(host.labels, want.labels) << "Backend::Cuda, " << at;
}

struct Size {
    std::int64_t w, h, d;
};
constexpr Size kSizes[] = {{1, 1, 1}, {1, 1, 70}, {70, 1, 1}, {1, 70, 1}, {33, 5, 9}, {31, 4, 5},
                           {65, 9, 3}, {17, 17, 17}, {2, 31, 40}, {100, 3, 2}};

TEST(VolumeCuda, EveryFormatConnectivityAndShapeMatchesTheCpu) {
    REQUIRE_GPU();
    std::uint32_t seed = 1;
    for (PixelFormat f : kAllFormats)
        for (const Size& s : kSizes)
            for (int conn : kConnectivities) {
                Volume v = random_volume(s.w, s.h, s.d, f == PixelFormat::Binary8 ? 2 : 4, 0.4, ++seed);
                expect_cpu(v, f, conn, true, "random");
                if (f != PixelFormat::Binary8) expect_cpu(v, f, conn, false, "random");
            }
}

TEST(VolumeCuda, PaddedRowsAndSlices) {
    REQUIRE_GPU();
    for (PixelFormat f : {PixelFormat::Gray8, PixelFormat::RGB8, PixelFormat::U32, PixelFormat::I16, PixelFormat::F32,
                          PixelFormat::U64})
        for (int conn : kConnectivities) {
            Volume v = random_volume(37, 11, 13, 3, 0.3, 5);
            expect_cpu(v, f, conn, true, "padded", 5, 3);
            expect_cpu(v, f, conn, false, "padded", 1, 0);
        }
}

// Backend::Auto on a machine with a GPU: whichever backend the rates pick (forced each way through
// CCLABEL_RATES, then measured), the CPU's labels; a strided volume goes up slice by slice.
TEST(VolumeCuda, AutoTakesEitherBackendWithTheCpusLabels) {
    REQUIRE_GPU();
    const char* had = std::getenv("CCLABEL_RATES");
    const std::string saved = had ? had : "";
    for (const char* rates : {"cuda", "cpu", ""}) {
        if (*rates)
            setenv("CCLABEL_RATES", rates, 1);
        else
            unsetenv("CCLABEL_RATES");
        for (int conn : kConnectivities)
            for (std::int64_t slice_pad : {0, 7}) {
                Volume v = random_volume(96, 40, 70, 3, 0.5, std::uint32_t(conn + slice_pad));
                const VolumeView& view = v.as(PixelFormat::Gray8, 0, slice_pad);
                const Options o = volume_options(PixelFormat::Gray8, conn, true, Backend::Auto);
                const Labels want = on_cpu(view, o);
                Labels got;
                got.labels.assign(view.voxels(), kPoison);
                const LabelResult r = label_volume(view, got.labels.data(), o);
                if (std::string(rates) == "cuda") EXPECT_EQ(r.backend, Backend::Cuda);
                if (std::string(rates) == "cpu") EXPECT_EQ(r.backend, Backend::Cpu);
                ASSERT_EQ(r.count, want.count) << "rates '" << rates << "' conn " << conn << " pad " << slice_pad;
                ASSERT_EQ(got.labels, want.labels) << "rates '" << rates << "' conn " << conn << " pad " << slice_pad;
            }
    }
    if (had)
        setenv("CCLABEL_RATES", saved.c_str(), 1);
    else
        unsetenv("CCLABEL_RATES");
}

TEST(VolumeCuda, DensitiesAndPalettes) {
    REQUIRE_GPU();
    for (double density : {0.05, 0.2, 0.5, 0.69, 0.8, 0.95})
        for (int conn : kConnectivities) {
            Volume bin = random_volume(96, 40, 50, 2, density, 11);
            expect_cpu(bin, PixelFormat::Binary8, conn, true, "binary");
            Volume labels = random_volume(96, 40, 50, 6, density, 12);
            expect_cpu(labels, PixelFormat::Gray8, conn, false, "5-label");
        }
}

TEST(VolumeCuda, HelicesSlabsAndCheckerboards) {
    REQUIRE_GPU();
    for (int conn : kConnectivities) {
        Volume corners = helix(5, 6, 300, 1, 1);
        expect_cpu(corners, PixelFormat::Binary8, conn, true, "corner helix");
        Volume edges = helix(40, 1, 300, 1, 0);
        expect_cpu(edges, PixelFormat::Gray8, conn, false, "edge helix");
        Volume zslabs(40, 9, 33), xslabs(33, 9, 40);
        for (std::int64_t a = 0; a < 33; ++a)
            for (std::int64_t b = 0; b < 9; ++b)
                for (std::int64_t c = 0; c < 40; ++c) {
                    zslabs.at(c, b, a) = 1 + std::uint64_t(a % 2);
                    xslabs.at(a, b, c) = 1 + std::uint64_t(a % 2);
                }
        expect_cpu(zslabs, PixelFormat::Gray16, conn, false, "z slabs");
        expect_cpu(xslabs, PixelFormat::Gray16, conn, false, "x slabs");
        Volume checker(45, 13, 11);
        for (std::int64_t z = 0; z < 11; ++z)
            for (std::int64_t y = 0; y < 13; ++y)
                for (std::int64_t x = 0; x < 45; ++x) checker.at(x, y, z) = std::uint64_t((x + y + z) % 2);
        expect_cpu(checker, PixelFormat::Gray8, conn, false, "checkerboard");
        expect_cpu(checker, PixelFormat::Binary8, conn, true, "checkerboard");
        Volume full(70, 33, 21);
        for (auto& i : full.idx) i = 1;
        expect_cpu(full, PixelFormat::Binary8, conn, true, "all foreground");
    }
}

TEST(VolumeCuda, EachSwitchOffAndOtherTilesMatchTheCpu) {
    REQUIRE_GPU();
    std::vector<cuda::detail::VolumeShape> shapes = {
        {32, 2, 8, 256, 32, 1}, {64, 2, 2, 256, 32, 1}, {32, 4, 4, 256, 32, 1}, {64, 4, 8, 256, 32, 4}, {32, 4, 16, 256, 32, 4}};
    for (const char* name : cuda::detail::kVolumeSwitchNames) {
        cuda::detail::VolumeShape s{};
        ASSERT_TRUE(cuda::detail::volume_switch_off(s.switches, name)) << name;
        shapes.push_back(s);
    }
    std::uint32_t seed = 40;
    for (const cuda::detail::VolumeShape& s : shapes)
        for (double density : {0.2, 0.5, 0.8})
            for (int conn : kConnectivities) {
                Volume v = random_volume(97, 21, 19, 2, density, ++seed);
                const VolumeView& view = v.as(PixelFormat::Binary8);
                const Options o = volume_options(PixelFormat::Binary8, conn, true);
                const Labels want = on_cpu(view, o), got = on_device(view, o, &s);
                const std::string at = "tile " + std::to_string(s.tile_x) + "x" + std::to_string(s.tile_y) + "x" +
                                       std::to_string(s.tile_z) + "/" + std::to_string(s.per_thread) +
                                       " cover " + std::to_string(s.switches.cover) +
                                       " density " + std::to_string(density) + " conn " + std::to_string(conn);
                ASSERT_EQ(got.count, want.count) << at;
                ASSERT_EQ(got.labels, want.labels) << at;
            }
}

TEST(VolumeCuda, Large512CubesMatchTheCpuAndRepeat) {
    REQUIRE_GPU();
    for (double density : {0.3, 0.9}) {
        Volume v = random_volume(512, 512, 512, 2, density, 3);
        for (int conn : {6, 26}) {
            const VolumeView& view = v.as(PixelFormat::Binary8);
            Options o = volume_options(PixelFormat::Binary8, conn, true);
            o.threads = 0;
            const Labels want = on_cpu(view, o);
            for (int rep = 0; rep < 3; ++rep) {
                const Labels got = on_device(view, o);
                ASSERT_EQ(got.count, want.count) << "density " << density << " conn " << conn << " rep " << rep;
                ASSERT_TRUE(got.labels == want.labels) << "density " << density << " conn " << conn << " rep " << rep;
            }
        }
    }
    // Smooth blobs: long runs and large regions, the global unions' worst contention.
    Volume blobs(512, 512, 512);
    for (std::int64_t z = 0; z < 512; ++z)
        for (std::int64_t y = 0; y < 512; ++y)
            for (std::int64_t x = 0; x < 512; ++x)
                blobs.at(x, y, z) = std::sin(x * 0.05) + std::sin(y * 0.07) + std::sin(z * 0.06) > 0.5 ? 1 : 0;
    const VolumeView& view = blobs.as(PixelFormat::Gray8);
    for (int conn : kConnectivities) {
        const Options o = volume_options(PixelFormat::Gray8, conn, true);
        const Labels want = on_cpu(view, o);
        const Labels got = on_host_cuda(view, o);
        ASSERT_EQ(got.count, want.count) << "blobs conn " << conn;
        ASSERT_TRUE(got.labels == want.labels) << "blobs conn " << conn;
    }
}

TEST(VolumeCuda, OneWorkspaceForManyCallsOnAStream) {
    REQUIRE_GPU();
    // Calls of one size and format reuse a workspace on one stream, back to back, no sync between.
    cudaStream_t stream = nullptr;
    ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
    constexpr int kCalls = 4;
    std::vector<Volume> vols;
    for (int c = 0; c < kCalls; ++c) vols.push_back(random_volume(45, 17, 23, 3, 0.2 + 0.2 * c, 40 + std::uint32_t(c)));
    for (PixelFormat f : {PixelFormat::Gray8, PixelFormat::I64}) {
        const Options o = volume_options(f, 26, true);
        std::deque<DevMem> d_in, d_out;  // DevMem does not move
        DevMem d_count(4 * kCalls);
        std::size_t ws_bytes = 0;
        for (int c = 0; c < kCalls; ++c) {
            const VolumeView& view = vols[std::size_t(c)].as(f);
            d_in.emplace_back(std::size_t(view.slice_bytes() * view.depth));
            d_out.emplace_back(view.voxels() * 4);
            ASSERT_EQ(cudaMemcpy(d_in.back().p, view.data, std::size_t(view.slice_bytes() * view.depth),
                                 cudaMemcpyHostToDevice), cudaSuccess);
            VolumeView dv = view;
            dv.data = d_in.back().p;
            std::size_t bytes = 0;
            cuda::label_volume_device(nullptr, bytes, dv, nullptr, nullptr, o, stream);
            if (c > 0) EXPECT_EQ(bytes, ws_bytes) << "the size depends on the sizes and format only";
            ws_bytes = bytes;
        }
        DevMem ws(ws_bytes);
        for (int c = 0; c < kCalls; ++c) {
            VolumeView dv = vols[std::size_t(c)].as(f);
            dv.data = d_in[std::size_t(c)].p;
            cuda::label_volume_device(ws.p, ws_bytes, dv, d_out[std::size_t(c)].as<std::uint32_t>(),
                                      d_count.as<std::uint32_t>() + c, o, stream);
        }
        ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
        for (int c = 0; c < kCalls; ++c) {
            const VolumeView& view = vols[std::size_t(c)].as(f);
            const Labels want = on_cpu(view, o);
            std::vector<std::uint32_t> got(view.voxels());
            std::uint32_t n = 0;
            ASSERT_EQ(cudaMemcpy(got.data(), d_out[std::size_t(c)].p, got.size() * 4, cudaMemcpyDeviceToHost), cudaSuccess);
            ASSERT_EQ(cudaMemcpy(&n, d_count.as<std::uint32_t>() + c, 4, cudaMemcpyDeviceToHost), cudaSuccess);
            EXPECT_EQ(n, want.count) << format_name(f) << " call " << c;
            EXPECT_EQ(got, want.labels) << format_name(f) << " call " << c;
        }
    }
    cudaStreamDestroy(stream);
}

TEST(VolumeCuda, DeviceApiErrorsAndEmptyVolumes) {
    REQUIRE_GPU();
    DevMem d_in(64), d_out(64 * 4), d_count(4);
    const VolumeView v = make_volume_view(d_in.p, 4, 4, 4, PixelFormat::Gray8);
    Options o;
    o.connectivity = 26;
    std::size_t bytes = 0;
    cuda::label_volume_device(nullptr, bytes, v, d_out.as<std::uint32_t>(), d_count.as<std::uint32_t>(), o);
    EXPECT_GT(bytes, 0u);
    DevMem ws(bytes);
    std::size_t small = bytes - 1;
    EXPECT_THROW(cuda::label_volume_device(ws.p, small, v, d_out.as<std::uint32_t>(), d_count.as<std::uint32_t>(), o),
                 Error);
    EXPECT_THROW(cuda::label_volume_device(ws.p, bytes, v, d_out.as<std::uint32_t>(), nullptr, o), Error);
    Options eight = o;
    eight.connectivity = 8;
    EXPECT_THROW(cuda::label_volume_device(ws.p, bytes, v, d_out.as<std::uint32_t>(), d_count.as<std::uint32_t>(), eight),
                 Error);
    // The size query needs no buffers, and depends on the sizes and format only.
    std::size_t again = 0;
    cuda::label_volume_device(nullptr, again, make_volume_view(reinterpret_cast<void*>(16), 4, 4, 4, PixelFormat::Gray8),
                              nullptr, nullptr, o);
    EXPECT_EQ(again, bytes);
    // An empty volume: N = 0 on the device.
    EXPECT_EQ(cudaMemset(d_count.p, 0xFF, 4), cudaSuccess);
    std::size_t none = 0;
    const VolumeView empty = make_volume_view(nullptr, 0, 4, 4, PixelFormat::Gray8);
    cuda::label_volume_device(nullptr, none, empty, nullptr, d_count.as<std::uint32_t>(), o);
    DevMem ws0(none);
    cuda::label_volume_device(ws0.p, none, empty, nullptr, d_count.as<std::uint32_t>(), o);
    std::uint32_t n = 7;
    EXPECT_EQ(cudaMemcpy(&n, d_count.p, 4, cudaMemcpyDeviceToHost), cudaSuccess);
    EXPECT_EQ(n, 0u);
    // The host API refuses device pointers.
    Options c = o;
    c.backend = Backend::Cuda;
    EXPECT_THROW(label_volume(v, d_out.as<std::uint32_t>(), c), Error);
}

// ---- the run kernels (VolumeSwitches::runs, kernels/volume_runs.cuh), off by default ----------

/// The public call's shape for @p depth slices at @p conn with the run kernels on.
cuda::detail::VolumeShape runs_on(std::int64_t depth, int conn) {
    cuda::detail::VolumeShape s = cuda::detail::volume_shape_for(std::uint64_t(std::max<std::int64_t>(depth, 1)), conn);
    s.switches.runs = true;
    return s;
}

/// The run kernels on the device equal the CPU on @p v in format @p f (padded as given).
void expect_runs(Volume& v, PixelFormat f, int conn, bool bg, const std::string& what, std::int64_t row_pad = 0,
                 std::int64_t slice_pad = 0, cuda::detail::VolumeShape* shape = nullptr) {
    const VolumeView& view = v.as(f, row_pad, slice_pad);
    const Options o = volume_options(f, conn, bg);
    const Labels want = on_cpu(view, o);
    cuda::detail::VolumeShape s = shape ? *shape : runs_on(v.d, conn);
    const Labels got = on_device(view, o, &s);
    const std::string at = describe(v, f, conn, bg, what) + " strip " + std::to_string(s.run_strip);
    ASSERT_EQ(got.count, want.count) << "runs, " << at;
    ASSERT_EQ(got.labels, want.labels) << "runs, " << at;
}

TEST(VolumeCudaRuns, EveryFormatConnectivityAndShapeMatchesTheCpu) {
    REQUIRE_GPU();
    std::uint32_t seed = 500;
    for (PixelFormat f : kAllFormats)
        for (const Size& s : kSizes)
            for (int conn : kConnectivities) {
                Volume v = random_volume(s.w, s.h, s.d, f == PixelFormat::Binary8 ? 2 : 4, 0.4, ++seed);
                expect_runs(v, f, conn, true, "random");
                if (f != PixelFormat::Binary8) expect_runs(v, f, conn, false, "random", 1, 3);
            }
}

TEST(VolumeCudaRuns, DensitiesStripsAndAdversarialVolumes) {
    REQUIRE_GPU();
    for (std::uint32_t strip : {1u, 3u, 8u, 64u})
        for (double density : {0.05, 0.3, 0.5, 0.9})
            for (int conn : kConnectivities) {
                cuda::detail::VolumeShape s = runs_on(50, conn);
                s.run_strip = strip;
                s.run_threads = strip == 3 ? 64 : 256;
                Volume bin = random_volume(97, 40, 50, 2, density, 21);
                expect_runs(bin, PixelFormat::Binary8, conn, true, "binary", 0, 0, &s);
                Volume labels = random_volume(96, 40, 50, 6, density, 22);
                expect_runs(labels, PixelFormat::Gray8, conn, false, "5-label", 0, 0, &s);
                expect_runs(labels, PixelFormat::U32, conn, true, "5-label u32", 0, 0, &s);
            }
    for (int conn : kConnectivities) {
        Volume corners = helix(5, 6, 300, 1, 1);
        expect_runs(corners, PixelFormat::Binary8, conn, true, "corner helix");
        Volume edges = helix(40, 1, 300, 1, 0);
        expect_runs(edges, PixelFormat::Gray8, conn, false, "edge helix");
        Volume checker(45, 13, 11);
        for (std::int64_t z = 0; z < 11; ++z)
            for (std::int64_t y = 0; y < 13; ++y)
                for (std::int64_t x = 0; x < 45; ++x) checker.at(x, y, z) = std::uint64_t((x + y + z) % 2);
        expect_runs(checker, PixelFormat::Binary8, conn, true, "checkerboard");
        Volume full(70, 33, 21);
        for (auto& i : full.idx) i = 1;
        expect_runs(full, PixelFormat::Binary8, conn, true, "all foreground");
    }
}

TEST(VolumeCudaRuns, Large512CubesMatchTheCpuAndRepeat) {
    REQUIRE_GPU();
    // Dense noise (many short runs, the most joins) and smooth blobs (long runs, regions across
    // the whole volume: the unions' worst contention), three calls each.
    Volume blobs(512, 512, 512);
    for (std::int64_t z = 0; z < 512; ++z)
        for (std::int64_t y = 0; y < 512; ++y)
            for (std::int64_t x = 0; x < 512; ++x)
                blobs.at(x, y, z) = std::sin(x * 0.05) + std::sin(y * 0.07) + std::sin(z * 0.06) > 0.5 ? 1 : 0;
    for (int which = 0; which < 3; ++which) {
        Volume noise = which < 2 ? random_volume(512, 512, 512, which == 0 ? 2 : 6, which == 0 ? 0.5 : 0.0, 9) : Volume(1, 1, 1);
        Volume& v = which < 2 ? noise : blobs;
        const PixelFormat f = which == 0 ? PixelFormat::Binary8 : PixelFormat::Gray8;
        const VolumeView& view = v.as(f);
        for (int conn : kConnectivities) {
            Options o = volume_options(f, conn, which != 1);
            o.threads = 0;
            const Labels want = on_cpu(view, o);
            cuda::detail::VolumeShape s = runs_on(512, conn);
            for (int rep = 0; rep < 3; ++rep) {
                const Labels got = on_device(view, o, &s);
                ASSERT_EQ(got.count, want.count) << "volume " << which << " conn " << conn << " rep " << rep;
                ASSERT_TRUE(got.labels == want.labels) << "volume " << which << " conn " << conn << " rep " << rep;
            }
        }
    }
}

TEST(VolumeCudaRuns, ATolerancePassesTheSwitchBy) {
    REQUIRE_GPU();
    Volume v = random_volume(45, 17, 23, 6, 0.2, 31);
    const VolumeView& view = v.as(PixelFormat::Gray8);
    for (int conn : kConnectivities) {
        Options o = volume_options(PixelFormat::Gray8, conn, true);
        o.tolerance = 8;
        const Labels want = on_cpu(view, o);
        cuda::detail::VolumeShape s = runs_on(23, conn);
        const Labels got = on_device(view, o, &s);
        ASSERT_EQ(got.count, want.count) << conn;
        ASSERT_EQ(got.labels, want.labels) << conn;
    }
}

}  // namespace
}  // namespace cclabel::test
