#pragma once
// What the streamed-labelling tests share: a TiffSpec in one call.
#include "io/io_test_util.hpp"

namespace cclabel::cli {

/// A TIFF of @p w × @p h, @p spp samples of @p bps bits; strips of @p rps rows (0: libtiff's
/// default) or, with @p tile, square tiles.
inline iotest::TiffSpec tiff_spec(std::uint32_t w, std::uint32_t h, int spp = 1, int bps = 8,
                                  int photometric = PHOTOMETRIC_MINISBLACK, std::uint32_t rps = 0, std::uint32_t tile = 0,
                                  int compression = COMPRESSION_NONE) {
    iotest::TiffSpec s;
    s.width = w;
    s.height = h;
    s.spp = spp;
    s.bps = bps;
    s.photometric = photometric;
    s.rows_per_strip = rps;
    s.tile_w = s.tile_h = tile;
    s.compression = compression;
    return s;
}

}  // namespace cclabel::cli
