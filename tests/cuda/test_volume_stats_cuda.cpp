// GPU statistics of label volumes (cclabel::cuda::regions_volume_device) against the CPU's
// regions_volume, exactly (centroids bit for bit): random volumes in every format with padded
// strides, 6/18/26, background on and off, thin / single-slice / single-column volumes, one
// region covering a 256³ volume and a volume of single-voxel regions (table overflow), label
// volumes not from the labeller, the labeller's device count with no host synchronisation between
// labelling and statistics, a null count, a row cap, and the errors. Skipped without a device.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "cclabel/cclabel.hpp"
#include "cclabel/cuda_volume.hpp"
#include "cclabel/cuda_volume_stats.hpp"
#include "cclabel/volume_stats.hpp"
#include "cuda/dev_mem.hpp"
#include "cuda/gpu_test.hpp"
#include "support/volume_data.hpp"

namespace cclabel::test {
namespace {

constexpr std::uint64_t kPoison = 0xA5A5A5A5A5A5A5A5ull;
constexpr PixelFormat kAllFormats[] = {PixelFormat::Binary8, PixelFormat::Gray8, PixelFormat::Gray16, PixelFormat::U32,
                                       PixelFormat::RGB8,    PixelFormat::RGBA8, PixelFormat::I8,     PixelFormat::I16,
                                       PixelFormat::I32,     PixelFormat::I64,   PixelFormat::U64,    PixelFormat::F16,
                                       PixelFormat::F32,     PixelFormat::F64};

void expect_same_rows(const std::vector<VolumeRegionStats>& got, const std::vector<VolumeRegionStats>& want,
                      const std::string& what) {
    ASSERT_EQ(got.size(), want.size()) << what;
    for (std::size_t l = 0; l < want.size(); ++l)
        ASSERT_EQ(0, std::memcmp(&got[l], &want[l], sizeof(VolumeRegionStats)))
            << what << " label " << l << ": voxels " << got[l].voxels << " vs " << want[l].voxels << ", surface "
            << got[l].surface << " vs " << want[l].surface << ", cx " << got[l].cx << " vs " << want[l].cx;
}

std::vector<std::uint32_t> cpu_labels(const VolumeView& v, int conn, bool background) {
    Options o;
    o.connectivity = conn;
    o.backend = Backend::Cpu;
    if (background) o = background_zero(v.format, o);
    std::vector<std::uint32_t> lab(std::size_t(v.voxels()));
    label_volume(v, lab.data(), o);
    return lab;
}

std::vector<VolumeRegionStats> cpu_rows(const VolumeView& v, const std::vector<std::uint32_t>& lab, int conn) {
    Options o;
    o.connectivity = conn;
    o.backend = Backend::Cpu;
    return regions_volume(v, lab.empty() ? nullptr : lab.data(), o);
}

/// The volume @p v (with its strides) and @p lab on the GPU; regions_volume_device with @p count
/// (null: found on the GPU) into @p capacity rows (plus a poisoned guard row), copied back.
std::vector<VolumeRegionStats> device_rows(const VolumeView& v, const std::vector<std::uint32_t>& lab, int conn,
                                           std::uint64_t capacity, const std::uint32_t* host_count) {
    const std::size_t bytes = std::size_t(v.slice_bytes() * std::max<std::int64_t>(v.depth, 1));
    DevMem d_in(bytes), d_lab(lab.size() * 4), d_rows((capacity + 1) * sizeof(VolumeRegionStats)), d_count(4);
    EXPECT_EQ(cudaMemcpy(d_in.p, v.data, bytes, cudaMemcpyHostToDevice), cudaSuccess);
    EXPECT_EQ(cudaMemcpy(d_lab.p, lab.data(), lab.size() * 4, cudaMemcpyHostToDevice), cudaSuccess);
    EXPECT_EQ(cudaMemset(d_rows.p, 0xA5, (capacity + 1) * sizeof(VolumeRegionStats)), cudaSuccess);
    if (host_count) {
        EXPECT_EQ(cudaMemcpy(d_count.p, host_count, 4, cudaMemcpyHostToDevice), cudaSuccess);
    }
    VolumeView dv = v;
    dv.data = d_in.p;
    Options o;
    o.connectivity = conn;
    std::size_t ws_bytes = 0;
    cuda::regions_volume_device(nullptr, ws_bytes, dv, nullptr, nullptr, capacity, nullptr, o);
    DevMem ws(ws_bytes);
    cuda::regions_volume_device(ws.p, ws_bytes, dv, d_lab.as<std::uint32_t>(),
                                host_count ? d_count.as<std::uint32_t>() : nullptr, capacity,
                                d_rows.as<VolumeRegionStats>(), o);
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    std::uint32_t n = 0;
    for (std::uint32_t l : lab) n = std::max(n, l);
    const std::uint64_t rows = std::min<std::uint64_t>(std::uint64_t(host_count ? *host_count : n) + 1, capacity);
    std::vector<VolumeRegionStats> out(capacity + 1);
    EXPECT_EQ(cudaMemcpy(out.data(), d_rows.p, out.size() * sizeof(VolumeRegionStats), cudaMemcpyDeviceToHost),
              cudaSuccess);
    for (std::uint64_t l = rows; l < out.size(); ++l) {
        std::uint64_t w[13];
        std::memcpy(w, &out[l], sizeof w);
        for (std::uint64_t word : w) EXPECT_EQ(word, kPoison) << "row " << l << " written (rows " << rows << ")";
    }
    out.resize(rows);
    return out;
}

void expect_cpu(const VolumeView& v, int conn, bool background, const std::string& what) {
    const auto lab = cpu_labels(v, conn, background);
    std::uint32_t n = 0;
    for (std::uint32_t l : lab) n = std::max(n, l);
    const auto want = cpu_rows(v, lab, conn);
    expect_same_rows(device_rows(v, lab, conn, std::uint64_t(n) + 1, &n), want, what + " (count)");
    expect_same_rows(device_rows(v, lab, conn, std::uint64_t(n) + 1, nullptr), want, what + " (no count)");
}

TEST(CudaVolumeStats, RandomVolumesEveryFormatAndConnectivity) {
    REQUIRE_GPU();
    std::uint32_t seed = 0;
    for (PixelFormat f : kAllFormats)
        for (int conn : {6, 18, 26})
            for (bool background : {false, true}) {
                Volume v = random_volume(67, 33, 19, f == PixelFormat::Binary8 ? 2 : 5, 0.35, ++seed);
                const VolumeView& view = v.as(f, seed % 2 ? 3 : 0, seed % 3 ? 7 : 0, seed);
                expect_cpu(view, conn, background,
                           "format " + std::to_string(int(f)) + " conn " + std::to_string(conn) + (background ? " bg" : ""));
            }
}

TEST(CudaVolumeStats, ThinSingleSliceSingleRowAndSingleColumn) {
    REQUIRE_GPU();
    struct Case {
        std::int64_t w, h, d;
    };
    const Case cases[] = {{1, 1, 1}, {1, 1, 5000}, {5000, 1, 1}, {1, 3000, 1}, {513, 257, 1}, {1, 129, 257},
                          {2049, 2, 2}, {3, 3, 3001}};
    std::uint32_t seed = 50;
    for (const Case& c : cases) {
        Volume v = random_volume(c.w, c.h, c.d, 3, 0.3, ++seed);
        for (int conn : {6, 26})
            expect_cpu(v.as(PixelFormat::Gray8), conn, true,
                       std::to_string(c.w) + "x" + std::to_string(c.h) + "x" + std::to_string(c.d));
    }
}

TEST(CudaVolumeStats, OneRegionCoveringTheVolumeAndOneRegionAVoxel) {
    REQUIRE_GPU();
    Volume one(256, 256, 256);  // every voxel label 1: a block-wide hot spot on one table entry
    for (auto& i : one.idx) i = 1;
    expect_cpu(one.as(PixelFormat::Gray8), 26, false, "one region");
    Volume all(129, 65, 33);  // U32 index + 1: every voxel its own label, tables overflow
    for (std::size_t i = 0; i < all.idx.size(); ++i) all.idx[i] = i;
    const VolumeView& view = all.as(PixelFormat::U32);
    std::vector<std::uint32_t> lab(all.idx.size());
    for (std::size_t i = 0; i < lab.size(); ++i) lab[i] = std::uint32_t(i + 1);
    std::uint32_t n = std::uint32_t(lab.size());
    expect_same_rows(device_rows(view, lab, 6, n + 1, &n), cpu_rows(view, lab, 6), "a region a voxel");
}

TEST(CudaVolumeStats, LabelVolumesNotFromTheLabellerAndARowCap) {
    REQUIRE_GPU();
    Volume v = random_volume(100, 31, 17, 4, 0.2, 9);
    const VolumeView& view = v.as(PixelFormat::Gray16);
    std::vector<std::uint32_t> lab(std::size_t(view.voxels()));
    std::mt19937 rng(4);
    for (auto& l : lab) l = rng() % 3 == 0 ? 0u : 7u * (rng() % 500);  // gaps, scattered pieces
    std::uint32_t n = *std::max_element(lab.begin(), lab.end());
    const auto want = cpu_rows(view, lab, 18);
    expect_same_rows(device_rows(view, lab, 18, n + 1, nullptr), want, "gaps");
    const auto capped = device_rows(view, lab, 18, 100, &n);  // labels ≥ 100 are not counted
    expect_same_rows(capped, std::vector<VolumeRegionStats>(want.begin(), want.begin() + 100), "cap 100");
}

TEST(CudaVolumeStats, AfterTheLabellerOnOneStreamWithoutWaiting) {
    REQUIRE_GPU();
    Volume v = random_volume(300, 200, 60, 3, 0.4, 77);
    const VolumeView& view = v.as(PixelFormat::Gray8);
    Options o;
    o.connectivity = 18;
    o = background_zero(PixelFormat::Gray8, o);
    const std::size_t voxels = std::size_t(view.voxels());
    DevMem d_in(voxels), d_lab(voxels * 4), d_count(4);
    cudaStream_t s = nullptr;
    ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(d_in.p, view.data, voxels, cudaMemcpyHostToDevice), cudaSuccess);
    VolumeView dv = view;
    dv.data = d_in.p;
    std::size_t lb = 0, sb = 0;
    cuda::label_volume_device(nullptr, lb, dv, nullptr, nullptr, o, s);
    const std::uint64_t capacity = voxels + 1;  // enough for any N: the host never learns N first
    cuda::regions_volume_device(nullptr, sb, dv, nullptr, nullptr, capacity, nullptr, o, s);
    DevMem ws(std::max(lb, sb)), d_rows(capacity * sizeof(VolumeRegionStats));
    cuda::label_volume_device(ws.p, lb, dv, d_lab.as<std::uint32_t>(), d_count.as<std::uint32_t>(), o, s);
    cuda::regions_volume_device(ws.p, sb, dv, d_lab.as<std::uint32_t>(), d_count.as<std::uint32_t>(), capacity,
                                d_rows.as<VolumeRegionStats>(), o, s);
    std::uint32_t n = 0;
    ASSERT_EQ(cudaMemcpyAsync(&n, d_count.p, 4, cudaMemcpyDeviceToHost, s), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
    std::vector<VolumeRegionStats> got(std::size_t(n) + 1);
    ASSERT_EQ(cudaMemcpy(got.data(), d_rows.p, got.size() * sizeof(VolumeRegionStats), cudaMemcpyDeviceToHost),
              cudaSuccess);
    std::vector<std::uint32_t> lab(voxels);
    ASSERT_EQ(cudaMemcpy(lab.data(), d_lab.p, voxels * 4, cudaMemcpyDeviceToHost), cudaSuccess);
    cudaStreamDestroy(s);
    expect_same_rows(got, cpu_rows(view, lab, 18), "fused");
}

TEST(CudaVolumeStats, BadArgumentsAreErrors) {
    REQUIRE_GPU();
    Volume v = random_volume(8, 4, 3, 3, 0.3, 1);
    const VolumeView& view = v.as(PixelFormat::Gray8);
    DevMem d_in(96), d_lab(96 * 4), d_rows(10 * sizeof(VolumeRegionStats)), ws(256);
    VolumeView dv = view;
    dv.data = d_in.p;
    Options o;
    o.connectivity = 26;
    std::size_t bytes = 256;
    auto call = [&](const VolumeView& vv, const Options& oo, std::uint64_t cap, VolumeRegionStats* rows, std::size_t b) {
        std::size_t wb = b;
        cuda::regions_volume_device(ws.p, wb, vv, d_lab.as<std::uint32_t>(), nullptr, cap, rows, oo);
    };
    EXPECT_THROW(call(dv, o, 0, d_rows.as<VolumeRegionStats>(), bytes), Error);        // capacity 0
    EXPECT_THROW(call(dv, o, 10, nullptr, bytes), Error);                              // no rows
    EXPECT_THROW(call(dv, o, 10, d_rows.as<VolumeRegionStats>(), 8), Error);           // workspace too small
    Options eight = o;
    eight.connectivity = 8;
    EXPECT_THROW(call(dv, eight, 10, d_rows.as<VolumeRegionStats>(), bytes), Error);   // a picture's connectivity
    Options tol = o;
    tol.tolerance = 2;
    EXPECT_THROW(call(dv, tol, 10, d_rows.as<VolumeRegionStats>(), bytes), Error);     // statistics join nothing
    std::size_t wb = bytes;
    EXPECT_THROW(cuda::regions_volume_device(ws.p, wb, dv, nullptr, nullptr, 10, d_rows.as<VolumeRegionStats>(), o),
                 Error);                                                               // null labels
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
}

}  // namespace
}  // namespace cclabel::test
