// Tolerance joining on the GPU for volumes (CloseKeys under the volume kernels) and for typed
// pictures (CloseValues, a picture as a volume of one slice): the real kernels against the CPU's
// tolerance labellers, which the tests of tests/cpp compare with flood fills. The host API
// (Backend::Cuda, Auto forced to the GPU), the device API (label_volume_device, label_device) with
// strides and unaligned bases, every format and connectivity, sizes that cross many tiles and
// blocks, repeated runs (the unions race). Skipped without a device.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "cclabel/cclabel.hpp"
#include "cclabel/cuda.hpp"
#include "cclabel/cuda_volume.hpp"
#include "cclabel/volume.hpp"
#include "cuda/dev_mem.hpp"
#include "cuda/gpu_test.hpp"

namespace cclabel::test {
namespace {

int channels_of(PixelFormat f) { return f == PixelFormat::RGB8 ? 3 : f == PixelFormat::RGBA8 ? 4 : 1; }

/// Bytes of a volume of format @p f whose channel values wander by steps of @p unit (chains of
/// close voxels), with jumps; rows padded by @p pad bytes.
std::vector<std::uint8_t> wandering_bytes(PixelFormat f, std::int64_t w, std::int64_t rows, std::int64_t pad,
                                          std::uint64_t unit, std::uint32_t seed) {
    const int bpp = bytes_per_pixel(f), nch = channels_of(f);
    const std::uint64_t max = f == PixelFormat::Gray16 ? 0xFFFF : f == PixelFormat::U32 ? 0xFFFFFFFFull : 0xFF;
    std::mt19937 rng(seed);
    const std::int64_t rs = w * bpp + pad;
    std::vector<std::uint8_t> out(std::size_t(rs * rows), 0xAB);
    std::vector<std::int64_t> prev(std::size_t(w * nch), 0), cur(std::size_t(w * nch), 0);
    for (std::int64_t r = 0; r < rows; ++r) {
        for (std::int64_t x = 0; x < w; ++x)
            for (int c = 0; c < nch; ++c) {
                const std::size_t i = std::size_t(x * nch + c);
                const std::int64_t base = rng() % 2 && r > 0 ? prev[i] : x > 0 ? cur[i - std::size_t(nch)] : prev[i];
                std::int64_t v = base + (std::int64_t(rng() % 5) - 2) * std::int64_t(unit);
                if (rng() % 40 == 0) v = std::int64_t(rng() % (max + 1));
                cur[i] = std::clamp<std::int64_t>(v, 0, std::int64_t(max));
            }
        for (std::int64_t x = 0; x < w; ++x) {
            std::uint8_t* p = out.data() + r * rs + x * bpp;
            if (f == PixelFormat::Gray16) {
                const auto v = std::uint16_t(cur[std::size_t(x)]);
                std::memcpy(p, &v, 2);
            } else if (f == PixelFormat::U32) {
                const auto v = std::uint32_t(cur[std::size_t(x)]);
                std::memcpy(p, &v, 4);
            } else {
                for (int c = 0; c < nch; ++c) p[c] = std::uint8_t(cur[std::size_t(x * nch + c)]);
            }
        }
        prev.swap(cur);
    }
    return out;
}

std::vector<std::uint32_t> cpu_volume(const VolumeView& v, Options o, std::uint32_t* n) {
    o.backend = Backend::Cpu;
    std::vector<std::uint32_t> out(v.voxels());
    *n = label_volume(v, out.data(), o).count;
    return out;
}

/// The device API on @p v (copied to the GPU with its strides, at @p offset bytes past an aligned base).
std::vector<std::uint32_t> device_volume(const VolumeView& v, const std::vector<std::uint8_t>& bytes, const Options& o,
                                         std::uint32_t* n, std::size_t offset = 0) {
    DevMem d(bytes.size() + offset), labels(v.voxels() * 4), count(4);
    EXPECT_EQ(cudaMemcpy(d.as<std::uint8_t>() + offset, bytes.data(), bytes.size(), cudaMemcpyHostToDevice), cudaSuccess);
    VolumeView dv = v;
    dv.data = d.as<std::uint8_t>() + offset;
    std::size_t ws_bytes = 0;
    cuda::label_volume_device(nullptr, ws_bytes, dv, nullptr, nullptr, o);
    DevMem ws(ws_bytes);
    cuda::label_volume_device(ws.p, ws_bytes, dv, labels.as<std::uint32_t>(), count.as<std::uint32_t>(), o);
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    std::vector<std::uint32_t> out(v.voxels());
    EXPECT_EQ(cudaMemcpy(out.data(), labels.p, out.size() * 4, cudaMemcpyDeviceToHost), cudaSuccess);
    EXPECT_EQ(cudaMemcpy(n, count.p, 4, cudaMemcpyDeviceToHost), cudaSuccess);
    return out;
}

void expect_volume(PixelFormat f, std::int64_t w, std::int64_t h, std::int64_t d, int conn, std::uint32_t tol, bool bg,
                   std::int64_t pad, std::uint32_t seed) {
    const std::uint64_t unit = f == PixelFormat::Gray16 ? 97 : f == PixelFormat::U32 ? 100003 : 1;
    const std::vector<std::uint8_t> bytes = wandering_bytes(f, w, h * d, pad, unit, seed);
    const std::int64_t rs = w * bytes_per_pixel(f) + pad;
    const VolumeView v{bytes.data(), w, h, d, rs, rs * h, f};
    Options o;
    o.connectivity = conn;
    o.tolerance = std::uint32_t(tol * unit);
    if (bg) o.background = std::vector<std::uint64_t>(std::size_t(channels_of(f)), 0);
    const std::string what = std::string(format_name(f)) + " " + std::to_string(w) + "x" + std::to_string(h) + "x" +
                             std::to_string(d) + " conn " + std::to_string(conn) + " tol " + std::to_string(tol) +
                             (bg ? " bg" : "") + " seed " + std::to_string(seed);
    std::uint32_t n_cpu = 0, n_dev = 0;
    const std::vector<std::uint32_t> want = cpu_volume(v, o, &n_cpu);
    Options cuda = o;
    cuda.backend = Backend::Cuda;
    std::vector<std::uint32_t> host(want.size());
    const LabelResult r = label_volume(v, host.data(), cuda);
    EXPECT_EQ(r.backend, Backend::Cuda) << what;
    ASSERT_EQ(r.count, n_cpu) << what;
    ASSERT_EQ(host, want) << "host API: " << what;
    const std::vector<std::uint32_t> dev = device_volume(v, bytes, o, &n_dev, std::size_t(seed % 4));
    ASSERT_EQ(n_dev, n_cpu) << what;
    ASSERT_EQ(dev, want) << "device API: " << what;
}

TEST(ToleranceVolumeCuda, EveryFormatAndConnectivityMatchesTheCpu) {
    REQUIRE_GPU();
    struct Size {
        std::int64_t w, h, d;
    };
    const Size sizes[] = {{1, 1, 1}, {70, 3, 5}, {33, 17, 9}, {5, 65, 11}, {2, 3, 100}, {129, 40, 21}};
    std::uint32_t seed = 1;
    for (PixelFormat f : {PixelFormat::Gray8, PixelFormat::Gray16, PixelFormat::U32, PixelFormat::RGB8, PixelFormat::RGBA8,
                          PixelFormat::Binary8})
        for (const Size& s : sizes)
            for (int conn : {6, 18, 26}) {
                ++seed;
                expect_volume(f, s.w, s.h, s.d, conn, 1 + seed % 3, seed % 2 == 0, seed % 3 == 0 ? 5 : 0, seed);
                if (::testing::Test::HasFailure()) return;
            }
}

TEST(ToleranceVolumeCuda, LargeVolumesRepeatIdentically) {
    REQUIRE_GPU();
    // 200 x 150 x 120 voxels: many tiles and blocks; each run must give the CPU's labels.
    for (int conn : {6, 26})
        for (int run = 0; run < 3; ++run) {
            expect_volume(PixelFormat::Gray8, 200, 150, 120, conn, 2, run == 1, 0, 11);
            if (::testing::Test::HasFailure()) return;
        }
}

TEST(ToleranceVolumeCuda, AutoForcedToTheGpu) {
    REQUIRE_GPU();
    const std::vector<std::uint8_t> bytes = wandering_bytes(PixelFormat::Gray8, 40, 30 * 20, 0, 1, 3);
    const VolumeView v{bytes.data(), 40, 30, 20, 40, 1200, PixelFormat::Gray8};
    const Options o{.connectivity = 18, .tolerance = 2};
    std::uint32_t n = 0;
    const std::vector<std::uint32_t> want = cpu_volume(v, o, &n);
    setenv("CCLABEL_RATES", "cuda", 1);
    std::vector<std::uint32_t> got(want.size());
    const LabelResult r = label_volume(v, got.data(), o);
    unsetenv("CCLABEL_RATES");
    EXPECT_EQ(r.backend, Backend::Cuda);
    EXPECT_EQ(r.count, n);
    EXPECT_EQ(got, want);
}

// ---- typed pictures with a tolerance ----------------------------------------------------------

/// A typed picture of wandering values (steps of @p unit, with jumps and, for floats, NaN, -0 and
/// infinities), rows padded by @p pad bytes.
std::vector<std::uint8_t> typed_bytes(PixelFormat f, std::int64_t w, std::int64_t h, std::int64_t pad, std::uint32_t seed) {
    const int bpp = bytes_per_pixel(f);
    const bool is_float = f == PixelFormat::F32 || f == PixelFormat::F64 || f == PixelFormat::F16;
    std::mt19937 rng(seed);
    const std::int64_t rs = w * bpp + pad;
    std::vector<std::uint8_t> out(std::size_t(rs * h), 0xEE);
    std::vector<double> v(std::size_t(w * h));
    for (std::int64_t p = 0; p < w * h; ++p) {
        const std::int64_t from = rng() % 2 && p >= w ? p - w : p - 1;
        double x = from >= 0 && std::isfinite(v[std::size_t(from)]) ? v[std::size_t(from)] : 0;
        x += double(int(rng() % 5) - 2) * (is_float ? 0.75 : 1);
        if (rng() % 40 == 0) x = double(int(rng() % 200) - 100);
        x = std::clamp(x, f == PixelFormat::I8 ? -128.0 : -400.0, f == PixelFormat::I8 ? 127.0 : 400.0);
        if (is_float && rng() % 30 == 0) {
            const int k = int(rng() % 3);
            x = k == 0 ? std::numeric_limits<double>::quiet_NaN() : k == 1 ? -0.0 : std::numeric_limits<double>::infinity();
        }
        v[std::size_t(p)] = x;
        std::uint8_t* q = out.data() + (p / w) * rs + (p % w) * bpp;
        switch (f) {
            case PixelFormat::I8: { const auto t = std::int8_t(x); std::memcpy(q, &t, 1); break; }
            case PixelFormat::I16: { const auto t = std::int16_t(x); std::memcpy(q, &t, 2); break; }
            case PixelFormat::I32: { const auto t = std::int32_t(x) * 1000; std::memcpy(q, &t, 4); break; }
            case PixelFormat::I64: { const auto t = std::int64_t(x) * (std::int64_t(1) << 40); std::memcpy(q, &t, 8); break; }
            case PixelFormat::U64: { const auto t = (std::uint64_t(1) << 63) + std::uint64_t(x + 400); std::memcpy(q, &t, 8); break; }
            case PixelFormat::F16: {
                // Quarters below 512 are exact halves; NaN, -0 and infinity by their bits.
                std::uint16_t b;
                if (x != x) b = 0x7E00;
                else if (std::isinf(x)) b = 0x7C00;
                else if (x == 0) b = std::signbit(x) ? 0x8000 : 0;
                else {
                    int e = 0;
                    const double m = std::frexp(std::fabs(x), &e);
                    b = std::uint16_t((x < 0 ? 0x8000 : 0) | ((e - 1 + 15) << 10) | std::lround((m * 2 - 1) * 1024));
                }
                std::memcpy(q, &b, 2);
                break;
            }
            case PixelFormat::F32: { const auto t = float(x); std::memcpy(q, &t, 4); break; }
            default: std::memcpy(q, &x, 8); break;
        }
    }
    return out;
}

double typed_tolerance(PixelFormat f) {
    return f == PixelFormat::I32 ? 2500 : f == PixelFormat::I64 ? 2.5 * double(std::int64_t(1) << 40)
                                       : (f == PixelFormat::F16 || f == PixelFormat::F32 || f == PixelFormat::F64) ? 1.5 : 2.5;
}

TEST(ToleranceTypedCuda, HostAndDeviceApiMatchTheCpu) {
    REQUIRE_GPU();
    std::uint32_t seed = 1;
    for (PixelFormat f : {PixelFormat::I8, PixelFormat::I16, PixelFormat::I32, PixelFormat::I64, PixelFormat::U64,
                          PixelFormat::F16, PixelFormat::F32, PixelFormat::F64})
        for (auto [w, h] : {std::pair<std::int64_t, std::int64_t>{1, 1}, {33, 17}, {300, 7}, {17, 300}, {1000, 700}})
            for (int conn : {4, 8}) {
                ++seed;
                const std::int64_t pad = seed % 3 == 0 ? 3 : 0;
                const std::vector<std::uint8_t> bytes = typed_bytes(f, w, h, pad, seed);
                const ImageView view{bytes.data(), w, h, w * bytes_per_pixel(f) + pad, f};
                Options o;
                o.connectivity = conn;
                o.tolerance_value = typed_tolerance(f);
                if (seed % 2) o.background_value = 0.0;
                const std::string what = std::string(format_name(f)) + " " + std::to_string(w) + "x" + std::to_string(h) +
                                         " conn " + std::to_string(conn) + " seed " + std::to_string(seed);
                Options cpu = o;
                cpu.backend = Backend::Cpu;
                std::vector<std::uint32_t> want(view.pixels()), host(view.pixels());
                const std::uint32_t n = label(view, want.data(), cpu).count;
                Options gpu = o;
                gpu.backend = Backend::Cuda;
                const LabelResult r = label(view, host.data(), gpu);
                EXPECT_EQ(r.backend, Backend::Cuda) << what;
                ASSERT_EQ(r.count, n) << what;
                ASSERT_EQ(host, want) << "host API: " << what;

                // The device API, at an unaligned base.
                const std::size_t offset = 1 + seed % 3;
                DevMem d(bytes.size() + offset), labels(view.pixels() * 4), count(4);
                ASSERT_EQ(cudaMemcpy(d.as<std::uint8_t>() + offset, bytes.data(), bytes.size(), cudaMemcpyHostToDevice),
                          cudaSuccess);
                ImageView dv = view;
                dv.data = d.as<std::uint8_t>() + offset;
                std::size_t ws_bytes = 0;
                cuda::label_device(nullptr, ws_bytes, dv, nullptr, nullptr, o);
                DevMem ws(ws_bytes);
                cuda::label_device(ws.p, ws_bytes, dv, labels.as<std::uint32_t>(), count.as<std::uint32_t>(), o);
                ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess) << what;
                std::vector<std::uint32_t> dev(view.pixels());
                std::uint32_t dn = 0;
                ASSERT_EQ(cudaMemcpy(dev.data(), labels.p, dev.size() * 4, cudaMemcpyDeviceToHost), cudaSuccess);
                ASSERT_EQ(cudaMemcpy(&dn, count.p, 4, cudaMemcpyDeviceToHost), cudaSuccess);
                ASSERT_EQ(dn, n) << what;
                ASSERT_EQ(dev, want) << "device API: " << what;
            }
}

TEST(ToleranceTypedCuda, BatchesStillRefuseATypedTolerance) {
    REQUIRE_GPU();
    std::vector<float> px(8, 1.0f);
    Options o;
    o.tolerance_value = 0.5;
    std::size_t bytes = 0;
    EXPECT_THROW(cuda::label_batch_device(nullptr, bytes, BatchView{px.data(), 2, 2, 2, 0, 0, PixelFormat::F32}, nullptr,
                                          nullptr, o),
                 Error);
}

}  // namespace
}  // namespace cclabel::test
