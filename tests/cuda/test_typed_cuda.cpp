// The typed formats (I8 ... F64) through the CUDA backend on host memory (label, label_batch,
// regions, label with statistics, as Backend::Cuda runs them), against the flood fill on the typed
// values: the key maps are made on the host and the GPU labels the keys, so what this checks is that
// every map reaches the device path intact (re-typed views with their stride, canonical copies,
// 64-bit windows and tables) and that values come back in the image's own type. Skipped without a
// device.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "cclabel/batch.hpp"
#include "cclabel/cclabel.hpp"
#include "cuda/gpu_test.hpp"
#include "support/typed_pictures.hpp"

namespace cclabel::test {
namespace {

template <typename T>
class TypedCuda : public ::testing::Test {};
using TypedPixels = ::testing::Types<std::int8_t, std::int16_t, std::int32_t, std::int64_t, std::uint64_t, Half,
                                     float, double>;
TYPED_TEST_SUITE(TypedCuda, TypedPixels);

TYPED_TEST(TypedCuda, LabelMatchesTypedFloodFill) {
    REQUIRE_GPU();
    using T = TypeParam;
    const std::vector<T> pal = palette<T>();
    for (const auto& [w, h] : {std::pair<std::int64_t, std::int64_t>{1, 1}, {37, 23}, {1, 40}, {700, 300}}) {
        const std::vector<T> v = picture(pal, w, h, std::uint32_t(w * 17 + h));
        for (int conn : {4, 8})
            for (int b = -1; b < 3; ++b) {
                Options o;
                o.connectivity = conn;
                o.backend = Backend::Cuda;
                std::optional<T> bg;
                if (b >= 0) {
                    bg = pal[std::size_t(b)];
                    o.background_value = scalar_of(*bg);
                }
                const std::string what = std::string(format_name(kFormat<T>)) + " " + std::to_string(w) + "x" +
                                         std::to_string(h) + " conn " + std::to_string(conn) + " bg " +
                                         std::to_string(b);
                std::uint32_t n_ref = 0;
                const std::vector<std::uint32_t> ref = flood(v, w, h, conn, bg, &n_ref);
                std::vector<std::uint32_t> out(v.size() + 1, 0xA5A5A5A5u);
                const LabelResult r = label(view_of(v, w, h), out.data(), o);
                ASSERT_EQ(r.count, n_ref) << what;
                EXPECT_EQ(out.back(), 0xA5A5A5A5u) << what << ": wrote past the labels";
                out.pop_back();
                ASSERT_TRUE(out == ref) << what;
            }
    }
}

TYPED_TEST(TypedCuda, BatchAndRegionsMatchTheCpu) {
    REQUIRE_GPU();
    using T = TypeParam;
    const std::vector<T> pal = palette<T>();
    const std::int64_t w = 53, h = 29, B = 5;
    std::vector<T> all;
    for (std::int64_t b = 0; b < B; ++b) {
        std::vector<T> part(pal.begin() + b % 3, pal.end());  // images that lack some values
        const std::vector<T> v = picture(part, w, h, std::uint32_t(b + 31));
        all.insert(all.end(), v.begin(), v.end());
    }
    for (int conn : {4, 8}) {
        Options o;
        o.connectivity = conn;
        o.background_value = scalar_of(pal[2]);
        o.backend = Backend::Cuda;
        BatchView batch{all.data(), B, w, h, 0, 0, kFormat<T>};
        std::vector<std::uint32_t> out(all.size());
        const BatchResult r = label_batch(batch, out.data(), o);
        for (std::int64_t b = 0; b < B; ++b) {
            const std::vector<T> img(all.begin() + b * w * h, all.begin() + (b + 1) * w * h);
            std::uint32_t n_ref = 0;
            const auto ref = flood(img, w, h, conn, std::optional<T>(pal[2]), &n_ref);
            EXPECT_EQ(r.counts[std::size_t(b)], n_ref) << "image " << b;
            EXPECT_TRUE(std::equal(ref.begin(), ref.end(), out.begin() + b * w * h))
                << format_name(kFormat<T>) << " image " << b << " conn " << conn;
        }
        // regions() and label() with statistics on the GPU report what the CPU reports.
        const std::vector<T> img(all.begin(), all.begin() + w * h);
        std::vector<std::uint32_t> gl(img.size()), cl(img.size());
        std::vector<RegionStats> gs, cs;
        const LabelResult gr = label(view_of(img, w, h), gl.data(), o, gs);
        Options oc = o;
        oc.backend = Backend::Cpu;
        const LabelResult cr = label(view_of(img, w, h), cl.data(), oc, cs);
        ASSERT_EQ(gr.count, cr.count);
        EXPECT_TRUE(gl == cl);
        const std::vector<RegionStats> gr2 = regions(view_of(img, w, h), cl.data(), o);
        ASSERT_EQ(gs.size(), cs.size());
        ASSERT_EQ(gr2.size(), cs.size());
        for (std::size_t l = 1; l < cs.size(); ++l) {
            for (const std::vector<RegionStats>* g : {static_cast<const std::vector<RegionStats>*>(&gs), &gr2}) {
                EXPECT_EQ((*g)[l].area, cs[l].area) << "label " << l;
                EXPECT_EQ((*g)[l].value[0], cs[l].value[0]) << "label " << l;
                EXPECT_EQ((*g)[l].value[1], cs[l].value[1]) << "label " << l;
                EXPECT_EQ((*g)[l].x, cs[l].x) << "label " << l;
                EXPECT_EQ((*g)[l].height, cs[l].height) << "label " << l;
            }
        }
    }
}

}  // namespace
}  // namespace cclabel::test
