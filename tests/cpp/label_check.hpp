#pragma once
// Shared assertion of the C++ tests: a labelling equals the flood-fill reference, value for value,
// and passes the certificate.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cclabel/cclabel.hpp"
#include "reference/flood_fill.hpp"
#include "support/test_image.hpp"

namespace cclabel::test {

inline Options make_options(const TestImage& img, int conn, std::optional<std::uint64_t> bg_index, int threads) {
    Options o;
    o.connectivity = conn;
    o.threads = threads;
    o.backend = Backend::Cpu;
    if (bg_index && img.format != PixelFormat::Binary8) o.background = background_channels(img.format, *bg_index);
    return o;
}

/// Labels @p img with @p o and compares with @p ref (already computed); returns N.
inline std::uint32_t expect_labels(const TestImage& img, const Options& o, const std::vector<std::uint32_t>& ref,
                                   std::uint32_t n_ref, const std::string& what) {
    std::vector<std::uint32_t> out(ref.size() + 1, 0xA5A5A5A5u);
    const LabelResult res = label(img.view(), out.data(), o);
    EXPECT_EQ(res.count, n_ref) << what;
    EXPECT_EQ(out.back(), 0xA5A5A5A5u) << what << ": wrote past the output";
    for (std::size_t i = 0; i < ref.size(); ++i)
        if (out[i] != ref[i]) {
            ADD_FAILURE() << what << ": label " << out[i] << " != reference " << ref[i] << " at ("
                          << i % std::size_t(img.width) << ", " << i / std::size_t(img.width) << ")";
            return res.count;
        }
    const VerifyReport v = verify(img.view(), out.data(), o);
    EXPECT_TRUE(v.ok) << what << ": " << v.message;
    return res.count;
}

}  // namespace cclabel::test
