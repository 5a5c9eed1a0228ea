// Labeller::run_volume: one volume (--volume) labelled with the options of `label` and `stats`:
// segmentation (--threshold, --kmeans), background (auto: the volume's most frequent value),
// connectivity 6/18/26, threads, --verify (verify_volume), then --min-size and --largest (the
// volume filters).
//
// Segmentation is per voxel with one histogram (Otsu) or one set of centres (K-means) for the
// whole volume, and K-means samples voxels by their raster index: so the slices one under another,
// a picture of width × (height · depth), give exactly the volume's mask or cluster indices, and the
// pictures' segmentation (cclabel/segment.hpp) does it. The mask or cluster volume is then labelled
// with the volume's neighbourhood, as a picture's mask is labelled with the picture's.
#include <chrono>
#include <string>

#include "cclabel/segment.hpp"
#include "cclabel/volume_stats.hpp"
#include "cli/labelling.hpp"
#include "cli/typed_values.hpp"

namespace cclabel::cli {

LabelledVolume Labeller::run_volume(const VolumeView& volume) const {
    if (volume.slice_bytes() != volume.height * volume.row_bytes())
        throw Error("internal error: the CLI labels packed volumes only");
    LabelledVolume r;
    r.labelled = volume;
    Options& o = r.options;
    o.connectivity = o_.connectivity;
    o.threads = o_.threads;
    o.backend = o_.backend == "cpu" ? Backend::Cpu : o_.backend == "cuda" ? Backend::Cuda : Backend::Auto;
    o.tolerance = tolerance_;
    const ImageView tall{volume.data, volume.width, volume.height * volume.depth, volume.row_bytes(), volume.format};
    if (!o_.threshold.empty() || o_.kmeans > 0) {
        const char* option = o_.kmeans > 0 ? "--kmeans" : "--threshold";
        if (is_typed_format(volume.format))
            throw Error(std::string(option) + " does not take a " + dtype_name(volume.format) +
                        " volume (a signed, float or 64-bit .npy array) yet: label its values, or save it as uint8, "
                        "uint16 or uint32");
        if (o_.kmeans > 0) {
            KMeansOptions ko;
            ko.k = o_.kmeans;
            ko.seed = o_.seed;
            ko.max_iterations = o_.iterations;
            ko.backend = o.backend;
            ko.threads = o_.threads;
            r.clusters.resize(volume.voxels());
            const KMeansResult km = kmeans(tall, r.clusters.data(), ko);
            r.labelled = make_volume_view(r.clusters.data(), volume.width, volume.height, volume.depth, PixelFormat::U32);
            r.segmented = "k-means " + std::to_string(o_.kmeans) + " clusters, " + std::to_string(km.iterations) +
                          " iterations" + (km.converged ? " (converged)" : "");
        } else {
            SegmentOptions so;
            so.backend = o.backend;
            so.threads = o_.threads;
            const std::uint32_t t = fixed_threshold_ ? *fixed_threshold_ : otsu_threshold(tall, so);
            r.mask.resize(volume.voxels());
            threshold(tall, t, r.mask.data(), so);
            r.labelled = make_volume_view(r.mask.data(), volume.width, volume.height, volume.depth, PixelFormat::Binary8);
            r.segmented = (fixed_threshold_ ? "threshold " : "otsu threshold ") + std::to_string(t);
        }
    }
    const VolumeView& v = r.labelled;
    // The slices one under another are one picture of the same values: its background is the volume's.
    if (bg_) resolve_background(*bg_, ImageView{v.data, v.width, v.height * v.depth, v.row_bytes(), v.format}, o);
    if (o_.verify && is_typed_format(v.format))
        throw Error("--verify does not take a " + dtype_name(v.format) +
                    " volume (a signed, float or 64-bit .npy array) yet: the certificate checks the unsigned formats only");
    r.labels.resize(v.voxels());
    std::uint32_t none = 0;  // a valid pointer for an empty volume
    std::uint32_t* out = r.labels.empty() ? &none : r.labels.data();
    const auto t0 = std::chrono::steady_clock::now();
    const LabelResult lr = label_volume(v, out, o);
    r.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    r.count = lr.count;
    r.backend = lr.backend;
    if (o_.verify) {
        const VolumeVerifyReport vr = verify_volume(v, out, o);
        if (!vr.ok) throw Error("verification failed: " + vr.message);
    }
    if (o_.min_size > 1) r.count = remove_small_volume(out, v.width, v.height, v.depth, o_.min_size);
    if (o_.largest > 0) r.count = keep_largest_volume(out, v.width, v.height, v.depth, o_.largest);
    return r;
}

}  // namespace cclabel::cli
