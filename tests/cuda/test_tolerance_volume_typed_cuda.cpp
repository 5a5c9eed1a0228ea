// Typed volumes (I8 to F64) with a tolerance on the GPU: the volume kernels with CloseValues,
// reading the values where they lie (label_volume_device, and the host API's Backend::Cuda and
// Auto), against the flood fill of tests/reference/typed_volume.hpp and the CPU. Every typed
// format and connectivity, background on and off, padded rows and slices at odd addresses, sizes
// that cross many tiles and blocks (64-bit values are read from memory, not the tiles' shared
// words), the 64-bit extremes, NaN, -0 and infinities, repeated runs (the unions race). Skipped
// without a device.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "cclabel/cclabel.hpp"
#include "cclabel/cuda_volume.hpp"
#include "cclabel/volume.hpp"
#include "cuda/dev_mem.hpp"
#include "cuda/gpu_test.hpp"
#include "reference/typed_volume.hpp"

namespace cclabel::test {
namespace {

using typed_volume::encode;
using typed_volume::is_float;
using typed_volume::reference;
using typed_volume::TypedVolume;
using typed_volume::wandering;

/// The device API on @p t's bytes (its strides), copied to the GPU at @p offset bytes past an
/// aligned base, the labels poisoned first.
std::vector<std::uint32_t> device_volume(const TypedVolume& t, const Options& o, std::uint32_t* n, std::size_t offset) {
    DevMem d(t.bytes.size() + offset), labels(std::size_t(t.voxels()) * 4), count(4);
    EXPECT_EQ(cudaMemcpy(d.as<std::uint8_t>() + offset, t.bytes.data(), t.bytes.size(), cudaMemcpyHostToDevice), cudaSuccess);
    EXPECT_EQ(cudaMemset(labels.p, 0xA5, std::size_t(t.voxels()) * 4), cudaSuccess);
    VolumeView dv = t.view();
    dv.data = d.as<std::uint8_t>() + offset + 1;  // t.view() starts one byte in
    std::size_t ws_bytes = 0;
    cuda::label_volume_device(nullptr, ws_bytes, dv, nullptr, nullptr, o);
    DevMem ws(ws_bytes);
    cuda::label_volume_device(ws.p, ws_bytes, dv, labels.as<std::uint32_t>(), count.as<std::uint32_t>(), o);
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    std::vector<std::uint32_t> out(std::size_t(t.voxels()));
    EXPECT_EQ(cudaMemcpy(out.data(), labels.p, out.size() * 4, cudaMemcpyDeviceToHost), cudaSuccess);
    EXPECT_EQ(cudaMemcpy(n, count.p, 4, cudaMemcpyDeviceToHost), cudaSuccess);
    return out;
}

void expect_gpu(const TypedVolume& t, int conn, double tol, std::optional<Scalar> bg, std::uint32_t seed) {
    const std::string what = std::string(format_name(t.f)) + " " + std::to_string(t.w) + "x" + std::to_string(t.h) + "x" +
                             std::to_string(t.d) + " conn " + std::to_string(conn) + " tol " + std::to_string(tol) +
                             (bg ? " bg" : "") + " seed " + std::to_string(seed);
    std::uint32_t n_ref = 0;
    const std::vector<std::uint32_t> ref = reference(t, conn, tol, bg, &n_ref);
    Options o;
    o.connectivity = conn;
    o.tolerance_value = tol;
    o.background_value = bg;
    o.backend = Backend::Cuda;
    std::vector<std::uint32_t> host(ref.size(), 0xA5A5A5A5u);
    const LabelResult r = label_volume(t.view(), host.data(), o);
    EXPECT_EQ(r.backend, Backend::Cuda) << what;
    ASSERT_EQ(r.count, n_ref) << "host API: " << what;
    ASSERT_EQ(host, ref) << "host API: " << what;
    std::uint32_t n_dev = 0;
    const std::vector<std::uint32_t> dev = device_volume(t, o, &n_dev, seed % 8);
    ASSERT_EQ(n_dev, n_ref) << "device API: " << what;
    ASSERT_EQ(dev, ref) << "device API: " << what;
}

double tolerance_of(PixelFormat f) {
    return f == PixelFormat::I64 ? 2.5 * double(std::int64_t(1) << 30) : is_float(f) ? 1.5 : 2.5;
}

std::optional<Scalar> background_of(PixelFormat f) {
    return f == PixelFormat::U64 ? Scalar((std::uint64_t(1) << 63) + 100000) : is_float(f) ? Scalar(0.0) : Scalar(std::int64_t(0));
}

TEST(ToleranceTypedVolumeCuda, EveryFormatAndConnectivityMatchesTheFloodFill) {
    REQUIRE_GPU();
    std::uint32_t seed = 1;
    for (PixelFormat f : {PixelFormat::I8, PixelFormat::I16, PixelFormat::I32, PixelFormat::I64, PixelFormat::U64,
                          PixelFormat::F16, PixelFormat::F32, PixelFormat::F64})
        for (auto [w, h, d] : {std::array<std::int64_t, 3>{37, 21, 19}, {1, 1, 300}, {130, 3, 5}, {33, 9, 1}})
            for (int conn : {6, 18, 26})
                for (bool bg : {false, true}) {
                    TypedVolume t = wandering(f, w, h, d, ++seed);
                    encode(t, seed % 3 ? 0 : 3, seed % 2 ? 0 : 5);
                    expect_gpu(t, conn, tolerance_of(f), bg ? background_of(f) : std::nullopt, seed);
                    if (::testing::Test::HasFailure()) return;
                }
}

TEST(ToleranceTypedVolumeCuda, LargeVolumesRepeatIdentically) {
    REQUIRE_GPU();
    // 160 x 120 x 100 voxels: many tiles and blocks; every run must give the flood fill's labels.
    for (PixelFormat f : {PixelFormat::F32, PixelFormat::I64})
        for (int conn : {6, 26})
            for (int run = 0; run < 3; ++run) {
                TypedVolume t = wandering(f, 160, 120, 100, 11);
                encode(t, 0, 0);
                expect_gpu(t, conn, tolerance_of(f), run == 1 ? background_of(f) : std::nullopt, 11);
                if (::testing::Test::HasFailure()) return;
            }
}

TEST(ToleranceTypedVolumeCuda, SixtyFourBitExtremesNaNZeroAndInfinity) {
    REQUIRE_GPU();
    constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min(), kMax = std::numeric_limits<std::int64_t>::max();
    const std::int64_t q = std::int64_t(1) << 62;
    TypedVolume i{2, 1, 6, PixelFormat::I64, {}, {}, {}, 0, 0};
    for (std::int64_t v : {kMin, kMax, kMin + 1, kMax - 1, std::int64_t(-1), std::int64_t(0), kMin, kMin + q, -q,
                           std::int64_t(0), q, kMax})
        i.ints.push_back(__int128(v));
    encode(i, 0, 3);
    for (int conn : {6, 18, 26})
        for (double tol : {2.0, double(q), 4.0 * double(q)}) expect_gpu(i, conn, tol, std::nullopt, 1);
    TypedVolume u{3, 2, 2, PixelFormat::U64, {}, {}, {}, 0, 0};
    const std::uint64_t top = std::numeric_limits<std::uint64_t>::max();
    for (std::uint64_t v : {std::uint64_t(0), top, top - 1, std::uint64_t(1), std::uint64_t(2), top - 2, top,
                            std::uint64_t(0), std::uint64_t(3), std::uint64_t(1) << 63, (std::uint64_t(1) << 63) - 1, top})
        u.ints.push_back(__int128(v));
    encode(u, 5, 0);
    for (int conn : {6, 26}) {
        expect_gpu(u, conn, 2.0, std::nullopt, 2);
        expect_gpu(u, conn, 1e19, Scalar(top), 3);
    }
    const double nan = std::numeric_limits<double>::quiet_NaN(), inf = HUGE_VAL;
    for (PixelFormat f : {PixelFormat::F16, PixelFormat::F32, PixelFormat::F64}) {
        TypedVolume t{3, 2, 3, f, {}, {nan, nan, 1, -0.0, 0.0, inf, 2, nan, 1.5, inf, inf, -inf, nan, 3, 4.5, -inf, 0.25, -0.0},
                      {}, 0, 0};
        encode(t, 2, 1);
        for (int conn : {6, 18, 26}) {
            expect_gpu(t, conn, 1.0, std::nullopt, 4);
            expect_gpu(t, conn, 1.0, Scalar(0.0), 5);
            expect_gpu(t, conn, 1.0, Scalar(nan), 6);
            expect_gpu(t, conn, 1e300, std::nullopt, 7);
        }
    }
}

TEST(ToleranceTypedVolumeCuda, AutoForcedToTheGpuAndBadTolerances) {
    REQUIRE_GPU();
    TypedVolume t = wandering(PixelFormat::F32, 40, 30, 20, 5);
    encode(t, 0, 0);
    setenv("CCLABEL_RATES", "cuda", 1);
    Options o;
    o.connectivity = 26;
    o.tolerance_value = 1.5;
    std::vector<std::uint32_t> got(std::size_t(t.voxels()));
    const LabelResult r = label_volume(t.view(), got.data(), o);
    unsetenv("CCLABEL_RATES");
    EXPECT_EQ(r.backend, Backend::Cuda);
    std::uint32_t n_ref = 0;
    EXPECT_EQ(got, reference(t, 26, 1.5, std::nullopt, &n_ref));
    EXPECT_EQ(r.count, n_ref);
    // The device API refuses what the host API refuses, before any launch.
    std::size_t bytes = 0;
    Options bad = o;
    bad.tolerance_value = -1.0;
    EXPECT_THROW(cuda::label_volume_device(nullptr, bytes, t.view(), nullptr, nullptr, bad), Error);
    bad.tolerance_value = std::numeric_limits<double>::quiet_NaN();
    EXPECT_THROW(cuda::label_volume_device(nullptr, bytes, t.view(), nullptr, nullptr, bad), Error);
}

}  // namespace
}  // namespace cclabel::test
