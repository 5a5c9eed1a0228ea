#pragma once
/// @file cuda_tiles.hpp
/// @brief Tiled labelling on the GPU, streamed, on one or several devices: the four steps of
/// tiles.hpp with the tiles labelled, their first-pixel tables and borders computed, and their
/// labels renumbered on the device(s); the seams and the resolution run on the host with the
/// functions of tiles.hpp. Needs the library built with CUDA.
///
/// The pipeline (per device entry: two streams, two slots of buffers, reused for every tile):
///   A. tile k + 1 is copied in (a 2-D copy straight from a pinned host image, else through pinned
///      staging buffers filled by the host while the copy engine moves the other) while tile k is
///      labelled by cuda::label_device(); the tile's border (keys, labels) and its first-pixel table
///      (the first pixel of each local label, as a global index) are made on the device, the table
///      written straight into mapped pinned host memory where it fits (else copied back), and the
///      host reads each finished tile's border and table and finds its seams with the tiles before
///      it while later tiles upload. The local labels stay on the device.
///   B. (only for tables that did not fit in phase A) the first-pixel table found after phase A.
///   C. resolve_tiles() on the host; then the maps are copied in (at once when they fit), every
///      tile's labels renumbered on the device on one stream and copied out into the tile's place in
///      @p out on the other, each download waiting only for its own tile's renumbering.
/// With full-width strips (tile_w ≥ the width) on one device, from a pinned picture into pinned
/// labels, a strip's labels are numbered and downloaded during phase A, once the strips a few
/// thousand rows below it are labelled, so that the downloads overlap the uploads; a strip whose
/// numbering a later strip changes (regions meeting further down) is downloaded again in phase C.
/// The labels are the same either way: this is the fastest way to stream a large picture.
/// So the labelled tiles of a device must fit in its memory together (4 bytes a pixel, plus two
/// tiles' worth of buffers); when they do not, label_tiled_streamed() throws, and
/// cclabel::label_tiled() with Backend::Cuda falls back to labelling one tile at a time.
#include <cstdint>
#include <vector>

#include "cclabel/image_view.hpp"
#include "cclabel/options.hpp"
#include "cclabel/tiles.hpp"

namespace cclabel::cuda {

/// Labels @p image (host memory, pageable or pinned, any stride) in tiles of @p tile_w × @p tile_h
/// (the last column and row ragged; a tile larger than the image is clipped) on the GPU and writes
/// width × height labels (packed) to @p out (host memory): exactly cclabel::label()'s labels.
///
/// @p devices lists CUDA device ordinals; tile t goes to devices[t % devices.size()]. An ordinal may
/// repeat ({0, 0, 0}): each entry gets its own streams and buffers, as a separate device would.
/// Empty means the current device. options.backend and options.threads are ignored.
///
/// @throws cclabel::Error on the arguments label_tiled() rejects, a device ordinal out of range,
/// tiles that do not fit in a device's free memory, or any CUDA error (naming the call).
TiledResult label_tiled_streamed(const ImageView& image, std::uint32_t* out, const Options& options,
                                 std::int64_t tile_w, std::int64_t tile_h, const std::vector<int>& devices = {});

/// The same with 64-bit labels: the image may have more than 2^32 − 1 pixels (each tile at most
/// that many) and N may exceed 2^32 − 1.
TiledResult label_tiled_streamed(const ImageView& image, std::uint64_t* out, const Options& options,
                                 std::int64_t tile_w, std::int64_t tile_h, const std::vector<int>& devices = {});

}  // namespace cclabel::cuda
