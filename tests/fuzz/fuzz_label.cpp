// libFuzzer target over small pictures: the first bytes choose the size (≤ 64 × 64), format,
// connectivity, background, row padding and thread count; the rest are palette indices. The oracle
// is the flood-fill reference and the certificate: any disagreement aborts.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "cclabel/cclabel.hpp"
#include "reference/flood_fill.hpp"
#include "support/test_image.hpp"

using namespace cclabel;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 6) return 0;
    const std::int64_t w = data[0] % 65, h = data[1] % 65;
    const auto format = static_cast<PixelFormat>(data[2] % 6);
    const int conn = data[3] & 1 ? 8 : 4;
    const bool use_bg = data[3] & 2;
    const int threads = 1 + (data[3] >> 2) % 7;
    const std::int64_t pad = data[4] % 5;
    const std::uint64_t palette = 1 + data[5] % 16;
    data += 6;
    size -= 6;
    std::vector<std::uint64_t> v(std::size_t(w * h));
    // Palette indices map to values that differ in one channel by one, or in a high byte.
    for (std::size_t i = 0; i < v.size(); ++i) {
        const std::uint64_t k = size ? data[i % size] % palette : 0;
        v[i] = k & 1 ? k : k << 16;
    }
    const test::TestImage img = test::make_image(w, h, format, v, pad, 0, 0x5A);
    Options o;
    o.connectivity = conn;
    o.threads = threads;
    o.backend = Backend::Cpu;
    std::optional<std::uint64_t> bg_index;
    if (use_bg && format != PixelFormat::Binary8) {
        bg_index = v.empty() ? 0 : v[0];
        o.background = test::background_channels(format, *bg_index);
    }
    std::vector<std::uint32_t> out(v.size() + 1, 0xFEEDFACE);
    const LabelResult r = label(img.view(), out.data(), o);
    std::uint32_t n = 0;
    const auto ref = test::flood_fill(img.values, w, h, conn, test::reference_background(format, bg_index), &n);
    if (r.count != n || out.back() != 0xFEEDFACE || !std::equal(ref.begin(), ref.end(), out.begin())) {
        std::fprintf(stderr, "mismatch with the reference: %s %lldx%lld conn %d\n", std::string(format_name(format)).c_str(),
                     (long long)w, (long long)h, conn);
        std::abort();
    }
    const VerifyReport vr = verify(img.view(), out.data(), o);
    if (!vr.ok) {
        std::fprintf(stderr, "certificate rejects the labels: %s\n", vr.message.c_str());
        std::abort();
    }
    return 0;
}
