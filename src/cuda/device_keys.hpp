#pragma once
// The typed formats (I8 to F64) on the device API: each call's pictures become key pictures
// (Gray8, Gray16 or U32) on the device, on the caller's stream, and the labeller runs on those
// (kernels/key_bodies.cuh says how the keys are made). The workspace is laid out
//   [the key pictures, packed] [the labeller's workspace, or the sort of the 64-bit values]
// (the sort is done before the labeller starts, so the two share their bytes), and its size is a
// function of the format and the sizes only. I8, I16 and I32 are re-typed views of the caller's
// memory: no key pictures, no work. Implemented in device_keys.cu. Needs the CUDA runtime headers.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

#include "cclabel/batch.hpp"
#include "cclabel/error.hpp"
#include "cclabel/image_view.hpp"
#include "cclabel/options.hpp"
#include "cclabel/stats.hpp"
#include "core/request.hpp"
#include "cuda/kernels/key_bodies.cuh"
#include "cuda/label_tuned.hpp"

namespace cclabel::cuda::detail {

/// Where the keys of a call's pictures go, and what the 64-bit sort needs.
struct KeyLayout {
    PixelFormat to = PixelFormat::Gray8;  ///< the key pictures' format
    bool copies = false;                  ///< key pictures in the workspace (else re-typed views)
    bool wide = false;                    ///< 64-bit values: sort, unique, rank
    std::uint64_t keys_bytes = 0;         ///< the key pictures, at the workspace's start (aligned)
    std::uint64_t map_images = 1;         ///< wide: images a key map covers
    // Wide, after keys_bytes: two buffers of 8 bytes a pixel of a map, the distinct count, CUB's temp.
    std::uint64_t off_alt = 0, off_count = 0, off_temp = 0, temp_bytes = 0, scratch_bytes = 0;
};

/// The layout of the keys of @p images pictures of @p image_pixels pixels in format @p f (one key
/// map for up to 2^32 - 1 pixels; CUB's sizes are asked on @p stream).
KeyLayout key_layout(PixelFormat f, std::uint64_t images, std::uint64_t image_pixels, cudaStream_t stream);

/// @p options for the key pictures: the background (validated into @p r, a request of format
/// @p f) as a key.
Options key_options(const KeyLayout& L, PixelFormat f, const cclabel::detail::Request& r, const Options& options);

/// @p r (a typed format) as the request of its key picture: format L.to, the background as the key
/// key_options gives. The data are @p r's (the re-typed views); a caller of a copying layout points
/// them at the key pictures.
cclabel::detail::Request key_request(const KeyLayout& L, const cclabel::detail::Request& r);

/// Enqueues the keys of the @p images pictures of @p s (format @p f) into @p ws as one packed
/// stack; @p bg holds the validated background.
void enqueue_keys(const KeyLayout& L, PixelFormat f, const keys::Stack& s, std::uint64_t images,
                  const cclabel::detail::Request& bg, std::uint8_t* ws, cudaStream_t stream);

/// A keyed call's two passes. The size query: the key pictures and the larger of the labeller's
/// workspace and the sort (one after the other, so they share bytes). The call: @p keys (checks,
/// then the key pictures), then the labeller on them, its workspace after the keys.
/// @p label(workspace, bytes) runs the labeller's size query (workspace null) or call.
template <typename Label, typename Keys>
void keyed_call(const char* name, const KeyLayout& L, void* workspace, std::size_t& workspace_bytes, Label&& label,
                Keys&& keys) {
    std::size_t inner = 0;
    label(nullptr, inner);
    const std::uint64_t need = L.keys_bytes + std::max<std::uint64_t>(inner, L.scratch_bytes);
    if (!workspace) {
        workspace_bytes = std::size_t(need);
        return;
    }
    if (workspace_bytes < need)
        throw Error(std::string(name) + ": workspace of " + std::to_string(workspace_bytes) + " bytes, " +
                    std::to_string(need) + " needed");
    keys();
    std::size_t rest = workspace_bytes - std::size_t(L.keys_bytes);
    label(static_cast<std::uint8_t*>(workspace) + L.keys_bytes, rest);
}

/// label_device_tuned for a typed request @p r: its keys, then label_device_tuned on them.
void label_typed_device(void* workspace, std::size_t& workspace_bytes, const cclabel::detail::Request& r,
                        std::uint32_t* labels, std::uint32_t* count, cudaStream_t stream, const Tuning& tuning,
                        const StageEvents* events);

/// label_device for a typed request @p r with a tolerance (r.tolerance_value > 0): no keys (a key
/// keeps equality, not distances), the typed values compared as they are by the volume programs,
/// the picture a volume of one slice (volume_plan.hpp's typed_picture). Its own size query
/// (@p workspace null). Implemented in volume_cuda.cu.
void label_typed_tolerance_device(void* workspace, std::size_t& workspace_bytes, const cclabel::detail::Request& r,
                                  std::uint32_t* labels, std::uint32_t* count, cudaStream_t stream);

/// label_batch_device_tuned for a typed @p batch: one key map for the call's images (as the host
/// batch; per run of images of at most 2^32 - 1 pixels for 64-bit values), the keys written as a
/// packed batch, then label_batch_device_tuned on them.
void label_batch_typed_device(void* workspace, std::size_t& workspace_bytes, const BatchView& batch,
                              std::uint32_t* labels, std::uint32_t* counts, const Options& options,
                              cudaStream_t stream, const Tuning& tuning);

/// After regions_device's rows of a typed picture of format @p f are written: their value words
/// made canonical (F16, F32, F64; nothing to do for the integers, whose bits the rows hold as they
/// are). Rows 0..min(*count + 1, capacity) - 1, or all @p capacity rows when @p count is null.
void canonical_row_values(PixelFormat f, RegionStats* rows, const std::uint32_t* count, std::uint64_t capacity,
                          cudaStream_t stream);

}  // namespace cclabel::cuda::detail
