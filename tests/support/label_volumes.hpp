#pragma once
// Label volumes for the volume graph's tests (tests/emu, tests/cuda): uint32 labels with padding
// after each row and each slice (holding a label that would make edges of its own if it were
// read), random labels from a palette, and Voronoi cells whose boundaries are surfaces across tiles,
// warps and slices, as in a segmentation.
#include <algorithm>
#include <climits>
#include <cstdint>
#include <random>
#include <vector>

#include "cclabel/volume.hpp"

namespace cclabel::test {

struct LabelVolume {
    std::int64_t w = 0, h = 0, d = 0, rs = 0, ss = 0;
    std::vector<std::uint32_t> buf;
    LabelVolume(std::int64_t w_, std::int64_t h_, std::int64_t d_, std::int64_t row_pad = 0, std::int64_t slice_pad = 0)
        : w(w_), h(h_), d(d_), rs(w_ + row_pad), ss((w_ + row_pad) * h_ + slice_pad),
          buf(std::size_t(std::max<std::int64_t>(1, ss * d_)), 0xFFFFFFF0u) {}
    std::uint32_t& at(std::int64_t x, std::int64_t y, std::int64_t z) { return buf[std::size_t(z * ss + y * rs + x)]; }
    /// The labels at @p data (this buffer, or a copy of it elsewhere: device memory) with this layout.
    VolumeView view(const void* data) const { return make_volume_view(data, w, h, d, PixelFormat::U32, rs * 4, ss * 4); }
    VolumeView view() const { return view(buf.data()); }
    /// Every voxel f(x, y, z), in raster order (z, then y, then x).
    template <class F>
    void fill(F&& f) {
        for (std::int64_t z = 0; z < d; ++z)
            for (std::int64_t y = 0; y < h; ++y)
                for (std::int64_t x = 0; x < w; ++x) at(x, y, z) = f(x, y, z);
    }
};

/// Labels 1..palette at random, 0 with the share @p zeros.
inline LabelVolume random_labels(std::int64_t w, std::int64_t h, std::int64_t d, std::uint32_t palette, double zeros,
                                 std::uint32_t seed, std::int64_t row_pad = 0, std::int64_t slice_pad = 0) {
    LabelVolume v(w, h, d, row_pad, slice_pad);
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(0, 1);
    v.fill([&](auto, auto, auto) { return u(rng) < zeros ? 0u : 1u + std::uint32_t(rng() % palette); });
    return v;
}

/// The cells of the nearest of @p cells random seeds (z counted twice); a seed's label is 0 one time
/// in @p zero_one_in, else first_label + a number below @p label_range.
inline LabelVolume voronoi(std::int64_t w, std::int64_t h, std::int64_t d, int cells, std::uint32_t seed,
                           std::int64_t row_pad = 0, std::int64_t slice_pad = 0, std::uint32_t zero_one_in = 9,
                           std::uint32_t first_label = 1, std::uint32_t label_range = 4000000) {
    LabelVolume v(w, h, d, row_pad, slice_pad);
    std::mt19937 rng(seed);
    struct P {
        std::int64_t x, y, z;
        std::uint32_t label;
    };
    std::vector<P> s;
    for (int i = 0; i < cells; ++i)
        s.push_back({std::int64_t(rng() % std::uint32_t(w)), std::int64_t(rng() % std::uint32_t(h)),
                     std::int64_t(rng() % std::uint32_t(d)),
                     rng() % zero_one_in == 0 ? 0u : first_label + std::uint32_t(rng() % label_range)});
    v.fill([&](std::int64_t x, std::int64_t y, std::int64_t z) {
        std::int64_t best = INT64_MAX;
        std::uint32_t label = 0;
        for (const P& p : s) {
            const std::int64_t dd = (p.x - x) * (p.x - x) + (p.y - y) * (p.y - y) + 4 * (p.z - z) * (p.z - z);
            if (dd < best) best = dd, label = p.label;
        }
        return label;
    });
    return v;
}

}  // namespace cclabel::test
