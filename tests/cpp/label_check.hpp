#pragma once
// Shared assertion of the C++ tests: a labelling equals the flood-fill reference, value for value,
// and passes the certificate.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cclabel/cclabel.hpp"
#include "cpu/tuning.hpp"
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
    if (o.backend == Backend::Cpu) {
        // Every switch of the CPU labeller off in turn, then all of them: the labels never change.
        auto with_off = [&](const char* name, auto set) {
            cpu::Switches sw;
            set(sw);
            std::vector<std::uint32_t> alt(ref.size() + 1, 0xA5A5A5A5u);
            EXPECT_EQ(cpu::label(img.view(), alt.data(), o, sw), n_ref) << what << " with " << name << " off";
            EXPECT_EQ(alt.back(), 0xA5A5A5A5u) << what << " with " << name << " off: wrote past the output";
            alt.pop_back();
            EXPECT_TRUE(alt == ref) << what << ": labels differ with " << name << " off";
        };
        with_off("number_from_above", [](cpu::Switches& s) { s.number_from_above = false; });
        with_off("predict_stretchy", [](cpu::Switches& s) { s.predict_stretchy = false; });
        with_off("up_mask_scan", [](cpu::Switches& s) { s.up_mask_scan = false; });
        with_off("left_runs", [](cpu::Switches& s) { s.left_runs = false; });
        with_off("run_length", [](cpu::Switches& s) { s.run_length = false; });
        with_off("run_blocks", [](cpu::Switches& s) { s.run_blocks = false; });
        with_off("run_masks", [](cpu::Switches& s) { s.run_masks = false; });
        with_off("shared_bands", [](cpu::Switches& s) { s.shared_bands = false; });
        with_off("stream_stores", [](cpu::Switches& s) { s.stream_stores = false; });
        with_off("binary_runs", [](cpu::Switches& s) { s.binary_runs = false; });
        // The test pictures are below the size that streams: stream them all (rows on 16 bytes or not).
        with_off("stream_min_bytes (set to 0)", [](cpu::Switches& s) { s.stream_min_bytes = 0; });
        // Shared bands of one row and more (up to 16 a thread): seams on every row.
        with_off("min_band_rows (set to 1, 16 bands a thread)", [](cpu::Switches& s) {
            s.min_band_rows = 1;
            s.bands_per_thread = 16;
        });
        with_off("every switch", [](cpu::Switches& s) {
            s.number_from_above = s.predict_stretchy = s.up_mask_scan = s.left_runs = s.run_length = s.run_blocks =
                s.run_masks = s.shared_bands = s.stream_stores = s.binary_runs = false;
        });
    }
    return res.count;
}

}  // namespace cclabel::test
