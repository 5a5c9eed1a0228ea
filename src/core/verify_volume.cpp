// The correctness certificate of a label volume (cclabel/volume_stats.hpp), the picture's
// (verify.cpp) in three dimensions. A labelling is right exactly when
//   1. background voxels, and only they, are 0;
//   2. every label's voxels share one value;
//   3. neighbouring same-valued foreground voxels share a label (regions are maximal): checked
//      against each voxel's earlier neighbours in raster order, which covers every pair once;
//   4. every label is connected (one flood from its first voxel reaches all of it);
//   5. labels are exactly 1..N, first occurrences in increasing raster order (z, then y, then x).
// Checks 1, 2, 3 and 5 are one raster pass; check 4 is one flood per label over a visited bitmap.
#include <string>
#include <vector>

#include "cclabel/detail/pixel_traits.hpp"
#include "cclabel/error.hpp"
#include "cclabel/volume_stats.hpp"
#include "core/volume_request.hpp"

namespace cclabel {
namespace {

struct Step {
    int dx, dy, dz;
};

/// The offsets of the connectivity's neighbourhood; the first half (13, 9 or 3 of them) come
/// earlier in raster order than the voxel, the second half are their mirror images.
std::vector<Step> neighbourhood(int connectivity) {
    const int most = connectivity == 6 ? 1 : connectivity == 18 ? 2 : 3;
    std::vector<Step> earlier, later;
    for (int dz = -1; dz <= 1; ++dz)
        for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) {
                const int nonzero = (dx != 0) + (dy != 0) + (dz != 0);
                if (nonzero == 0 || nonzero > most) continue;
                const bool before = dz < 0 || (dz == 0 && (dy < 0 || (dy == 0 && dx < 0)));
                (before ? earlier : later).push_back({dx, dy, dz});
            }
    earlier.insert(earlier.end(), later.begin(), later.end());
    return earlier;
}

VolumeVerifyReport fail(std::int64_t x, std::int64_t y, std::int64_t z, std::string msg) {
    VolumeVerifyReport r;
    r.ok = false;
    r.x = x, r.y = y, r.z = z;
    r.message = "at (x " + std::to_string(x) + ", y " + std::to_string(y) + ", z " + std::to_string(z) +
                "): " + std::move(msg);
    return r;
}

template <PixelFormat F>
VolumeVerifyReport verify_impl(const detail::VolumeRequest& r, const std::uint32_t* lab) {
    using T = detail::PixelTraits<F>;
    const std::int64_t w = r.width, h = r.height, d = r.depth;
    const std::vector<Step> steps = neighbourhood(r.connectivity);
    const std::size_t earlier = steps.size() / 2;
    auto key = [&](std::int64_t x, std::int64_t y, std::int64_t z) { return T::key(r.row(z, y) + x * T::kBytes); };
    auto index = [&](std::int64_t x, std::int64_t y, std::int64_t z) {
        return (std::uint64_t(z) * std::uint64_t(h) + std::uint64_t(y)) * std::uint64_t(w) + std::uint64_t(x);
    };
    auto inside = [&](std::int64_t x, std::int64_t y, std::int64_t z) {
        return x >= 0 && y >= 0 && z >= 0 && x < w && y < h && z < d;
    };

    std::vector<std::uint32_t> label_key{0};
    std::vector<std::uint64_t> label_first{0};
    std::uint32_t n = 0;
    for (std::int64_t z = 0; z < d; ++z)
        for (std::int64_t y = 0; y < h; ++y)
            for (std::int64_t x = 0; x < w; ++x) {
                const std::uint32_t k = key(x, y, z);
                const std::uint32_t l = lab[index(x, y, z)];
                if (r.has_background && k == r.background_key) {
                    if (l != 0) return fail(x, y, z, "background voxel has label " + std::to_string(l) + ", expected 0");
                    continue;
                }
                if (l == 0) return fail(x, y, z, "foreground voxel has label 0");
                if (l > n) {
                    if (l != n + 1)
                        return fail(x, y, z, "label " + std::to_string(l) + " first appears before label " +
                                                 std::to_string(n + 1) + " (labels must be 1..N in raster order)");
                    n = l;
                    label_key.push_back(k);
                    label_first.push_back(index(x, y, z));
                } else if (label_key[l] != k) {
                    return fail(x, y, z, "label " + std::to_string(l) + " covers voxels of two different values");
                }
                for (std::size_t s = 0; s < earlier; ++s) {
                    const std::int64_t nx = x + steps[s].dx, ny = y + steps[s].dy, nz = z + steps[s].dz;
                    if (!inside(nx, ny, nz)) continue;
                    const std::uint32_t nl = lab[index(nx, ny, nz)];
                    if (key(nx, ny, nz) == k && nl != l)
                        return fail(x, y, z, "same-valued neighbour (x " + std::to_string(nx) + ", y " +
                                                 std::to_string(ny) + ", z " + std::to_string(nz) + ") has label " +
                                                 std::to_string(nl) + ", this voxel " + std::to_string(l) +
                                                 " (a region is split)");
                }
            }

    // Connectedness: flood each label from its first voxel; any voxel left unvisited is cut off.
    const std::uint64_t total = r.voxels();
    std::vector<std::uint64_t> visited((total + 63) / 64, 0);
    auto seen = [&](std::uint64_t i) { return (visited[i >> 6] >> (i & 63)) & 1u; };
    auto mark = [&](std::uint64_t i) { visited[i >> 6] |= std::uint64_t(1) << (i & 63); };
    std::vector<std::uint64_t> queue;
    for (std::uint32_t l = 1; l <= n; ++l) {
        queue.assign(1, label_first[l]);
        mark(label_first[l]);
        for (std::size_t q = 0; q < queue.size(); ++q) {
            const std::uint64_t i = queue[q];
            const std::int64_t x = std::int64_t(i % std::uint64_t(w));
            const std::int64_t y = std::int64_t(i / std::uint64_t(w) % std::uint64_t(h));
            const std::int64_t z = std::int64_t(i / std::uint64_t(w) / std::uint64_t(h));
            for (const Step& s : steps) {
                const std::int64_t nx = x + s.dx, ny = y + s.dy, nz = z + s.dz;
                if (!inside(nx, ny, nz)) continue;
                const std::uint64_t ni = index(nx, ny, nz);
                if (!seen(ni) && lab[ni] == l) {
                    mark(ni);
                    queue.push_back(ni);
                }
            }
        }
    }
    for (std::uint64_t i = 0; i < total; ++i)
        if (lab[i] != 0 && !seen(i)) {
            const std::int64_t x = std::int64_t(i % std::uint64_t(w));
            const std::int64_t y = std::int64_t(i / std::uint64_t(w) % std::uint64_t(h));
            const std::int64_t z = std::int64_t(i / std::uint64_t(w) / std::uint64_t(h));
            return fail(x, y, z, "label " + std::to_string(lab[i]) +
                                     " is not connected: this voxel is not reachable from its first voxel");
        }
    VolumeVerifyReport ok;
    ok.count = n;
    return ok;
}

}  // namespace

VolumeVerifyReport verify_volume(const VolumeView& volume, const std::uint32_t* labels, const Options& options) {
    Options o = options;
    o.backend = Backend::Cpu;  // the certificate runs here whatever labelled the volume
    const detail::VolumeRequest r = detail::make_volume_request(volume, labels, o);
    if (r.voxels() == 0) return VolumeVerifyReport{};
    return detail::dispatch_format(r.format, [&]<PixelFormat F>() { return verify_impl<F>(r, labels); });
}

}  // namespace cclabel
