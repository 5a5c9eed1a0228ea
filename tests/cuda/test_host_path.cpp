// The GPU's host path (cuda::detail::label_host, what label() with Backend::Cuda runs on host memory)
// against the CPU backend: every format, both connectivities, background on and off, pageable and
// pinned picture and labels, padded rows, with the staging ring cut small so that chunks cross
// rows, blocks and the ring's wrap many times; rows longer than a block; a failing call; the
// background and the typed formats through the validated request. Skipped without a device.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "cclabel/cclabel.hpp"
#include "cclabel/cuda.hpp"
#include "core/request.hpp"
#include "cuda/device_cache.hpp"
#include "cuda/gpu_test.hpp"
#include "cuda/host_stager.hpp"
#include "cuda/label_tuned.hpp"
#include "support/test_image.hpp"
#include "support/typed_pictures.hpp"

namespace cclabel::test {
namespace {

constexpr PixelFormat kFormats[] = {PixelFormat::Binary8, PixelFormat::Gray8, PixelFormat::Gray16,
                                    PixelFormat::U32,     PixelFormat::RGB8,  PixelFormat::RGBA8};

/// Sets the process's stager tuning for one scope.
struct TuningScope {
    cuda::host::StagerTuning saved = cuda::host::stager_tuning();
    explicit TuningScope(const cuda::host::StagerTuning& t) { cuda::host::stager_tuning() = t; }
    ~TuningScope() { cuda::host::stager_tuning() = saved; }
};

struct PinnedFree {
    void operator()(void* p) const { cudaFreeHost(p); }
};

/// The labels of @p view through label_host, with picture and labels pageable or pinned, against
/// the CPU's; the word past the labels must stay untouched.
void expect_host_path(const ImageView& view, const Options& o0, bool pinned_in, bool pinned_out,
                      const std::string& what) {
    Options o = o0;
    o.backend = Backend::Cpu;
    const std::size_t n = std::size_t(view.pixels());
    std::vector<std::uint32_t> want(n);
    const LabelResult cpu = label(view, want.data(), o);

    ImageView v = view;
    std::unique_ptr<void, PinnedFree> pin_in, pin_out;
    const std::size_t in_bytes = std::size_t(view.row_bytes()) * std::size_t(view.height);
    if (pinned_in) {
        void* p = nullptr;
        ASSERT_EQ(cudaMallocHost(&p, in_bytes), cudaSuccess);
        pin_in.reset(p);
        std::memcpy(p, view.data, in_bytes);
        v.data = p;
    }
    std::vector<std::uint32_t> pageable_out;
    std::uint32_t* out = nullptr;
    if (pinned_out) {
        void* p = nullptr;
        ASSERT_EQ(cudaMallocHost(&p, (n + 1) * 4), cudaSuccess);
        pin_out.reset(p);
        out = static_cast<std::uint32_t*>(p);
    } else {
        pageable_out.resize(n + 1);
        out = pageable_out.data();
    }
    std::fill(out, out + n + 1, 0xC0FFEE11u);
    std::uint32_t count = 0;
    try {
        count = cuda::detail::label_host(v, out, o0);
    } catch (const std::exception& e) {
        FAIL() << what << ": " << e.what();
    }
    ASSERT_EQ(count, cpu.count) << what;
    ASSERT_EQ(out[n], 0xC0FFEE11u) << what << ": wrote past the labels";
    for (std::size_t i = 0; i < n; ++i)
        ASSERT_EQ(out[i], want[i]) << what << " at (" << i % std::size_t(view.width) << ", "
                                   << i / std::size_t(view.width) << ")";
}

TEST(HostPath, EveryFormatThroughASmallRing) {
    REQUIRE_GPU();
    // Blocks of 4 KiB, three in the ring, three threads of at least 64 bytes: a 97 × 61 picture
    // takes dozens of chunks each way, some of them a row's piece (RGBA rows are 388 bytes, the
    // labels 388), wrapping the ring many times.
    cuda::host::StagerTuning t;
    t.block_bytes = 4096;
    t.blocks = 3;
    t.threads = 3;
    t.min_part = 64;
    const TuningScope scope(t);
    std::uint32_t seed = 11;
    for (PixelFormat f : kFormats)
        for (int conn : {4, 8})
            for (bool bg : {false, true})
                for (int mem = 0; mem < 4; ++mem) {
                    const bool pin_in = mem & 1, pin_out = mem & 2;
                    for (std::int64_t pad : {0, 5}) {
                        const TestImage img = make_image(97, 61, f, random_values(97, 61, 3, 0.3, seed++), pad, 3);
                        Options o;
                        o.connectivity = conn;
                        if (bg && f != PixelFormat::Binary8) o.background = std::vector<std::uint64_t>(
                            std::size_t(f == PixelFormat::RGB8 ? 3 : f == PixelFormat::RGBA8 ? 4 : 1), 0);
                        expect_host_path(img.view(), o, pin_in, pin_out,
                                         std::string(format_name(f)) + " conn " + std::to_string(conn) +
                                             (bg ? " bg" : "") + (pin_in ? " pinned in" : " pageable in") +
                                             (pin_out ? " pinned out" : " pageable out") + " pad " +
                                             std::to_string(pad));
                    }
                }
}

TEST(HostPath, RowsLongerThanABlock) {
    REQUIRE_GPU();
    // 1 KiB blocks and rows of 3 × 1000 bytes in, 4000 bytes of labels out: every row in pieces,
    // padded (not back to back) and packed (cut as one long row).
    cuda::host::StagerTuning t;
    t.block_bytes = 1024;
    t.blocks = 2;
    t.threads = 4;
    t.min_part = 100;
    const TuningScope scope(t);
    for (std::int64_t pad : {0, 7}) {
        const TestImage img = make_image(1000, 23, PixelFormat::RGB8, random_values(1000, 23, 2, 0.2, 5), pad, 1);
        expect_host_path(img.view(), Options{}, false, false, "RGB8 1000 wide, pad " + std::to_string(pad));
    }
}

TEST(HostPath, DefaultRingOnAPictureOfManyBlocks) {
    REQUIRE_GPU();
    // The default tuning: 16 MiB blocks, all threads. 3000 × 2500 RGB8 (22.5 MB in, 30 MB of labels)
    // passes through several blocks each way.
    const TestImage img = make_image(3000, 2500, PixelFormat::RGB8, random_values(3000, 2500, 4, 0.1, 9));
    for (int mem = 0; mem < 4; ++mem)
        expect_host_path(img.view(), Options{}, mem & 1, mem & 2, "default ring, memory kind " + std::to_string(mem));
}

TEST(HostPath, ThreadsOptionChangesNothing) {
    REQUIRE_GPU();
    const TestImage img = make_image(777, 555, PixelFormat::Gray8, random_values(777, 555, 3, 0.2, 21));
    for (int threads : {1, 2, 5}) {
        Options o;
        o.threads = threads;
        expect_host_path(img.view(), o, false, false, "threads " + std::to_string(threads));
    }
}

TEST(HostPath, DeviceMemoryIsRefusedByName) {
    REQUIRE_GPU();
    // A device pointer handed to the host path would be read by host threads (a crash): the path
    // refuses it, naming the argument, before anything is copied; the labels are left alone.
    const TestImage img = make_image(64, 64, PixelFormat::Gray8, random_values(64, 64, 3, 0.2, 1));
    void* d = nullptr;
    ASSERT_EQ(cudaMalloc(&d, 64 * 64 * 4), cudaSuccess);
    ImageView on_device = img.view();
    on_device.data = d;
    on_device.stride = 64;
    std::vector<std::uint32_t> out(64 * 64, 7);
    try {
        cuda::detail::label_host(on_device, out.data(), Options{});
        ADD_FAILURE() << "a picture in device memory was accepted";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("picture"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("device memory"), std::string::npos) << e.what();
    }
    try {
        cuda::detail::label_host(img.view(), static_cast<std::uint32_t*>(d), Options{});
        ADD_FAILURE() << "labels in device memory were accepted";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("labels"), std::string::npos) << e.what();
    }
    cudaFree(d);
    for (std::uint32_t v : out) ASSERT_EQ(v, 7u);
}

/// The labels of @p view with @p o through the host path's two ways in (label() with Backend::Cuda,
/// which hands its validated request straight to the GPU, and label_host on a request made here)
/// against the CPU's.
void expect_request_path(const ImageView& view, const Options& o0, const std::string& what) {
    Options o = o0;
    o.backend = Backend::Cpu;
    const std::size_t n = std::size_t(view.pixels());
    std::vector<std::uint32_t> want(n);
    const LabelResult cpu = label(view, want.data(), o);
    o.backend = Backend::Cuda;
    std::vector<std::uint32_t> got(n + 1, 0xC0FFEE11u);
    const LabelResult gpu = label(view, got.data(), o);
    EXPECT_EQ(gpu.backend, Backend::Cuda) << what;
    ASSERT_EQ(gpu.count, cpu.count) << what << " (label)";
    ASSERT_EQ(got[n], 0xC0FFEE11u) << what << " (label): wrote past the labels";
    got.pop_back();
    ASSERT_TRUE(got == want) << what << " (label)";
    got.assign(n + 1, 0xC0FFEE11u);
    const std::uint32_t count = cuda::detail::label_host(detail::make_request(view, got.data(), o0), got.data());
    ASSERT_EQ(count, cpu.count) << what << " (label_host)";
    ASSERT_EQ(got[n], 0xC0FFEE11u) << what << " (label_host): wrote past the labels";
    got.pop_back();
    ASSERT_TRUE(got == want) << what << " (label_host)";
}

TEST(HostPath, BackgroundReachesTheGpuAsTheCpuReadsIt) {
    REQUIRE_GPU();
    // The request carries the background as a key; the GPU must read the same key. Each picture
    // holds the background's channels in another order too (RGB 1,2,0 and 0,2,1; gray16 0x0201 and
    // 0x0102), so a key packed in the wrong order labels the wrong pixels.
    struct Case {
        PixelFormat f;
        std::uint64_t colours[4];  // colour indices (test_image.hpp's encoding); colours[2] is the background
    };
    const Case cases[] = {
        {PixelFormat::Binary8, {0, 1, 0, 2}},
        {PixelFormat::Gray8, {0, 1, 2, 3}},
        {PixelFormat::Gray16, {0, 0x0102, 0x0201, 3}},
        {PixelFormat::U32, {0, 0x01020304, 0x04030201, 5}},
        {PixelFormat::RGB8, {0, 0x010200, 0x000201, 0x020001}},
        {PixelFormat::RGBA8, {0, 0x01020304, 0x04030201, 0x0102}},
    };
    std::uint32_t seed = 41;
    for (const Case& c : cases)
        for (const auto& [w, h] : {std::pair<std::int64_t, std::int64_t>{97, 61}, {512, 512}}) {
            std::vector<std::uint64_t> v = random_values(w, h, 4, 0.2, seed++);
            for (std::uint64_t& x : v) x = c.colours[x];
            const TestImage img = make_image(w, h, c.f, v, 3, 1);
            for (int conn : {4, 8}) {
                const std::string what = std::string(format_name(c.f)) + " " + std::to_string(w) + "x" +
                                         std::to_string(h) + " conn " + std::to_string(conn);
                Options o;
                o.connectivity = conn;
                expect_request_path(img.view(), o, what + " no background");
                o.background = background_channels(c.f, c.colours[c.f == PixelFormat::Binary8 ? 0 : 2]);
                expect_request_path(img.view(), o, what + " background");
                if (channels(c.f) == 1 && c.f != PixelFormat::Binary8) {
                    o.background.reset();
                    o.background_value = Scalar(std::uint64_t(pixel_class(c.f, c.colours[2])));
                    expect_request_path(img.view(), o, what + " background_value");
                }
            }
        }
}

TEST(HostPath, TypedRequestsKeyedOnTheGpu) {
    REQUIRE_GPU();
    // label_host on a typed request keys the picture on the device (device_keys.hpp: re-typed I16,
    // canonical F32, ranked I64), the background with it, as label() keys it on the host.
    auto each = [&]<typename T>() {
        const std::vector<T> pal = palette<T>();
        const std::vector<T> v = picture(pal, 131, 77, 5);
        for (int b = -1; b < 3; ++b) {
            Options o;
            o.connectivity = 8;
            if (b >= 0) o.background_value = scalar_of(pal[std::size_t(b)]);
            expect_request_path(view_of(v, 131, 77), o,
                                std::string(format_name(kFormat<T>)) + " background " + std::to_string(b));
        }
    };
    each.template operator()<std::int16_t>();
    each.template operator()<float>();
    each.template operator()<std::int64_t>();
}

}  // namespace
}  // namespace cclabel::test

namespace cclabel::test {
namespace {

TEST(HostPath, ManyHostThreadsAtOnce) {
    REQUIRE_GPU();
    // Issue 24: calls from several host threads at once, each through the host path (its own
    // stream, staging blocks from the shared pool, copies on the shared CPU pool), give the labels
    // each would alone.
    constexpr int kThreads = 6;
    std::vector<TestImage> imgs;
    for (int t = 0; t < kThreads; ++t)
        imgs.push_back(make_image(513 + 37 * t, 389 + 11 * t, kFormats[t % 6],
                                  random_values(513 + 37 * t, 389 + 11 * t, 4, 0.2, std::uint32_t(100 + t))));
    std::vector<std::vector<std::uint32_t>> want(kThreads), got(kThreads);
    for (int t = 0; t < kThreads; ++t) {
        want[t].resize(std::size_t(imgs[t].view().pixels()));
        got[t].assign(want[t].size(), 0);
        Options o;
        o.backend = Backend::Cpu;
        label(imgs[t].view(), want[t].data(), o);
    }
    std::vector<std::string> errors(kThreads);
    std::vector<std::thread> pool;
    for (int t = 0; t < kThreads; ++t)
        pool.emplace_back([&, t] {
            try {
                Options o;
                o.backend = Backend::Cuda;
                for (int round = 0; round < 4; ++round) label(imgs[t].view(), got[t].data(), o);
            } catch (const std::exception& e) {
                errors[t] = e.what();
            }
        });
    for (auto& th : pool) th.join();
    for (int t = 0; t < kThreads; ++t) {
        EXPECT_EQ(errors[t], "") << "thread " << t;
        EXPECT_EQ(got[t], want[t]) << "thread " << t << " (" << format_name(imgs[t].format) << ")";
    }
}

}  // namespace
}  // namespace cclabel::test

namespace cclabel::test {
namespace {

TEST(HostPath, DeviceBuffersAreKeptForTheNextCallAndEachCallIsRight) {
    REQUIRE_GPU();
    // cuda/device_cache.hpp: a call's picture copy, labels and workspace go back to the cache, and
    // the next call of about the same size takes them instead of the driver's. Sizes that shrink,
    // grow and come back, so that a reused buffer larger than the call and one left from a larger
    // picture are both written whole before they are read back.
    auto& cache = cuda::detail::DeviceCache::process();
    cache.free_all();
    int device = 0;
    ASSERT_EQ(cudaGetDevice(&device), cudaSuccess);
    const std::int64_t sizes[][2] = {{1500, 1100}, {1400, 1100}, {700, 300}, {1500, 1100}, {1499, 1101}, {3000, 1500}};
    std::size_t fresh_before_repeat = 0;
    for (std::size_t i = 0; i < std::size(sizes); ++i) {
        const auto [w, h] = sizes[i];
        TestImage img = make_image(w, h, PixelFormat::RGB8, random_values(w, h, 3, 0.1, std::uint32_t(7 + i)));
        std::vector<std::uint32_t> want(std::size_t(w * h)), got(want.size(), 0xDEADBEEFu);
        Options o;
        o.backend = Backend::Cpu;
        const auto nw = label(img.view(), want.data(), o).count;
        o.backend = Backend::Cuda;
        const auto ng = label(img.view(), got.data(), o).count;
        EXPECT_EQ(ng, nw) << w << " x " << h;
        EXPECT_EQ(got, want) << w << " x " << h;
        if (i == 2) fresh_before_repeat = cache.fresh_allocations();
        if (i == 3) EXPECT_EQ(cache.fresh_allocations(), fresh_before_repeat) << "the first size's buffers came back";
        EXPECT_GT(cache.cached_bytes(device), 0u) << "the call's buffers are kept (limit " << cache.limit() << ")";
        EXPECT_LE(cache.cached_bytes(device), cache.limit());
    }
    const std::size_t had = cache.cached_bytes(device);
    EXPECT_GE(cache.free_all(), had);
    EXPECT_EQ(cache.cached_bytes(device), 0u);
}

}  // namespace
}  // namespace cclabel::test
