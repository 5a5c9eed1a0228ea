// Writes the seed corpus of fuzz_decode (tests/fuzz/corpus_decode) from the same writers the tests
// use. Not a test: run it by hand when the readers learn a new variant,
//   CCLABEL_CORPUS_DIR=tests/fuzz/corpus_decode build/tests/io/cclabel_io_tests \
//     --gtest_also_run_disabled_tests --gtest_filter='*DISABLED_WriteFuzzCorpus'
#include <cstdlib>

#include "io_test_util.hpp"
#include "pdf_test_util.hpp"

namespace cclabel::iotest {
namespace {

TEST(Corpus, DISABLED_WriteFuzzCorpus) {
    const char* env = std::getenv("CCLABEL_CORPUS_DIR");
    ASSERT_NE(env, nullptr);
    const std::string dir = env;
    const auto at = [&](const std::string& n) { return dir + "/" + n; };
    for (int c : {PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA, PNG_COLOR_TYPE_RGB, PNG_COLOR_TYPE_RGB_ALPHA}) {
        const int ch = c == PNG_COLOR_TYPE_GRAY ? 1 : c == PNG_COLOR_TYPE_GRAY_ALPHA ? 2 : c == PNG_COLOR_TYPE_RGB ? 3 : 4;
        for (int d : {8, 16}) {
            for (bool il : {false, true}) {
                write_png(at("png_c" + std::to_string(c) + "_d" + std::to_string(d) + (il ? "_il" : "") + ".png"),
                          PngSpec{7, 5, c, d, il, {}, {}}, random_bytes(std::size_t(7 * 5 * ch * d / 8), std::uint32_t(c + d), 3));
            }
        }
    }
    write_png(at("png_gray1.png"), PngSpec{9, 4, PNG_COLOR_TYPE_GRAY, 1, false, {}, {}}, random_bytes(8, 1));
    write_png(at("png_pal_trns.png"), PngSpec{6, 4, PNG_COLOR_TYPE_PALETTE, 4, false, {{1, 2, 3}, {1, 2, 3}, {9, 9, 9}}, {0, 255}},
              std::vector<std::uint8_t>(12, 0x12));
    const auto tiff = [&](const std::string& name, TiffSpec s) {
        const std::size_t row = (std::size_t(s.width) * s.spp * s.bps + 7) / 8;
        write_tiff(at(name), s, random_bytes(row * s.height, s.width * 7 + std::uint32_t(s.bps), 3));
    };
    TiffSpec t;
    t.width = 9;
    t.height = 6;
    t.rows_per_strip = 2;
    tiff("tiff_gray8.tif", t);
    t.bps = 1;
    tiff("tiff_gray1.tif", t);
    t.bps = 32;
    t.big_endian = true;
    t.compression = COMPRESSION_ADOBE_DEFLATE;
    tiff("tiff_u32_be_deflate.tif", t);
    t = TiffSpec{};
    t.width = 20;
    t.height = 18;
    t.spp = 3;
    t.photometric = PHOTOMETRIC_RGB;
    t.tile_w = t.tile_h = 16;
    t.compression = COMPRESSION_LZW;
    tiff("tiff_rgb_tiles_lzw.tif", t);
    t.separate = true;
    t.bps = 16;
    t.compression = COMPRESSION_PACKBITS;
    tiff("tiff_rgb16_planar_tiles.tif", t);
    t.tile_w = t.tile_h = 0;
    t.rows_per_strip = 5;
    t.spp = 4;
    t.alpha = true;
    t.bigtiff = true;
    tiff("bigtiff_rgba16_planar.tif", t);
    TiffSpec p;
    p.width = 5;
    p.height = 3;
    p.bps = 2;
    p.photometric = PHOTOMETRIC_PALETTE;
    p.colormap = {0, 65535, 0, 257, 0, 0, 65535, 514, 0, 0, 0, 771};
    tiff("tiff_palette2.tif", p);
    write_bytes(at("pgm8.pgm"), [] { std::vector<std::uint8_t> v = {'P', '5', ' ', '3', ' ', '2', ' ', '9', '\n', 1, 2, 3, 4, 5, 9}; return v; }());
    const std::string p6 = "P6\n# c\n2 1\n65535\n";
    std::vector<std::uint8_t> v(p6.begin(), p6.end());
    v.insert(v.end(), {0, 1, 0, 2, 0, 3, 255, 255, 0, 0, 1, 0});
    write_bytes(at("ppm16.ppm"), v);
    const std::string plain = "P3 2 1 255 1 2 3 4 5 6\n";
    write_bytes(at("ppm_plain.ppm"), std::vector<std::uint8_t>(plain.begin(), plain.end()));
    const std::string pbm = "P4 9 2\n";
    v.assign(pbm.begin(), pbm.end());
    v.insert(v.end(), {0xA5, 0x80, 0x5A, 0x00});
    write_bytes(at("pbm.pbm"), v);
    const auto npy = [&](const std::string& name, const std::string& descr, const std::string& shape, bool fortran, std::size_t bytes) {
        std::string h = "{'descr': '" + descr + "', 'fortran_order': " + (fortran ? "True" : "False") + ", 'shape': " + shape + ", }";
        while ((10 + h.size() + 1) % 64) h += ' ';
        h += '\n';
        std::vector<std::uint8_t> f = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, std::uint8_t(h.size()), 0};
        f.insert(f.end(), h.begin(), h.end());
        const auto d = random_bytes(bytes, std::uint32_t(bytes), 3);
        f.insert(f.end(), d.begin(), d.end());
        write_bytes(at(name), f);
    };
    npy("npy_u4.npy", "<u4", "(3, 4)", false, 48);
    npy("npy_b1.npy", "|b1", "(3, 4)", false, 12);
    npy("npy_u2_be_f.npy", ">u2", "(3, 4)", true, 24);
    npy("npy_rgb.npy", "|u1", "(2, 3, 3)", false, 18);
    npy("npy_i8.npy", "<i8", "(2, 2)", false, 32);
    // A page of 10^10 strokes from 4 kB (forms drawing forms): refused at the renderer's time limit.
    const std::string forms = nested_forms_pdf();
    write_bytes(at("pdf_nested_forms_1e10_strokes.pdf"), std::vector<std::uint8_t>(forms.begin(), forms.end()));
    // 32 such pages in 11 kB: each page held alone cost 0.25 s at least, the document 8.1 s at 8 dpi;
    // one hold for the document refuses them all in 1.9 s.
    const std::string pages = nested_forms_pdf(8, 10, 100, 32);
    write_bytes(at("pdf_nested_forms_32_pages.pdf"), std::vector<std::uint8_t>(pages.begin(), pages.end()));
    // Pages that render, for fuzz_decode's PDF path: two pages of a rectangle each, and one page of
    // text, an image, forms under a clip, a dashed curve and an even-odd fill.
    for (const auto& [name, pdf] : {std::pair<std::string, std::string>{"pdf_two_pages.pdf", two_page_pdf()}, {"pdf_features.pdf", features_pdf()}}) {
        write_bytes(at(name), std::vector<std::uint8_t>(pdf.begin(), pdf.end()));
    }
}

}  // namespace
}  // namespace cclabel::iotest
