// Labeller::run_volume: one volume (--volume) labelled with the options of `label` and `stats`:
// background (auto: the volume's most frequent value), connectivity 6/18/26, threads, --verify
// (verify_volume), then --min-size and --largest (the volume filters).
#include <chrono>
#include <string>

#include "cclabel/volume_stats.hpp"
#include "cli/labelling.hpp"
#include "cli/typed_values.hpp"

namespace cclabel::cli {

LabelledVolume Labeller::run_volume(const VolumeView& volume) const {
    if (volume.slice_bytes() != volume.height * volume.row_bytes())
        throw Error("internal error: the CLI labels packed volumes only");
    LabelledVolume r;
    Options& o = r.options;
    o.connectivity = o_.connectivity;
    o.threads = o_.threads;
    o.backend = o_.backend == "cpu" ? Backend::Cpu : o_.backend == "cuda" ? Backend::Cuda : Backend::Auto;
    o.tolerance = tolerance_;
    // The slices one under another are one picture of the same values: its background is the volume's.
    if (bg_) resolve_background(*bg_, ImageView{volume.data, volume.width, volume.height * volume.depth,
                                                volume.row_bytes(), volume.format}, o);
    if (o_.verify && is_typed_format(volume.format))
        throw Error("--verify does not take a " + dtype_name(volume.format) +
                    " volume (a signed, float or 64-bit .npy array) yet: the certificate checks the unsigned formats only");
    r.labels.resize(volume.voxels());
    std::uint32_t none = 0;  // a valid pointer for an empty volume
    std::uint32_t* out = r.labels.empty() ? &none : r.labels.data();
    const auto t0 = std::chrono::steady_clock::now();
    const LabelResult lr = label_volume(volume, out, o);
    r.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    r.count = lr.count;
    r.backend = lr.backend;
    if (o_.verify) {
        const VolumeVerifyReport v = verify_volume(volume, out, o);
        if (!v.ok) throw Error("verification failed: " + v.message);
    }
    if (o_.min_size > 1) r.count = remove_small_volume(out, volume.width, volume.height, volume.depth, o_.min_size);
    if (o_.largest > 0) r.count = keep_largest_volume(out, volume.width, volume.height, volume.depth, o_.largest);
    return r;
}

}  // namespace cclabel::cli
