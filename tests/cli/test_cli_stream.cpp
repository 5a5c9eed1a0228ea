// `cclabel label` on TIFF pages streamed band by band, run as a separate process: the files equal
// those of the in-memory path, the automatic trigger (--memory-budget), bounded memory (the child's
// peak resident size, getrusage), and one-line errors with a non-zero exit for bad inputs.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fcntl.h>

#include "cli/stream_test_util.hpp"

namespace cclabel::cli {
namespace {

using iotest::TempDir;
using iotest::TiffSpec;

struct ChildRun {
    int code = -1;
    std::string out, err;
    long max_rss_kib = 0;
};

/// Runs the cclabel binary with @p args (and, when set, CCLABEL_TEST_UNTILED_LIMIT=@p limit).
ChildRun cclabel(const TempDir& dir, const std::vector<std::string>& args, const char* limit = nullptr) {
    const std::string out = dir.path("stdout.txt"), err = dir.path("stderr.txt");
    const pid_t pid = fork();
    if (pid == 0) {
        const int o = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644), e = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(o, 1);
        dup2(e, 2);
        if (limit) setenv("CCLABEL_TEST_UNTILED_LIMIT", limit, 1);
        std::vector<char*> argv{const_cast<char*>(CCLABEL_CLI_PATH)};
        for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
        argv.push_back(nullptr);
        execv(CCLABEL_CLI_PATH, argv.data());
        _exit(127);
    }
    ChildRun r;
    int status = 0;
    rusage ru{};
    if (wait4(pid, &status, 0, &ru) == pid && WIFEXITED(status)) r.code = WEXITSTATUS(status);
    r.max_rss_kib = ru.ru_maxrss;
    const auto o = iotest::read_bytes(out), e = iotest::read_bytes(err);
    r.out.assign(o.begin(), o.end());
    r.err.assign(e.begin(), e.end());
    return r;
}

/// A one-line "cclabel: error: ..." on stderr and exit code @p code.
void expect_one_line_error(const ChildRun& r, int code, const std::string& needle) {
    EXPECT_EQ(r.code, code) << r.err;
    EXPECT_EQ(r.err.rfind("cclabel: error: ", 0), 0u) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
}

/// Diagonal stripes of 4 values and a few squares: regions crossing every band and tile.
std::vector<std::uint8_t> stripes(std::uint32_t w, std::uint32_t h, int spp) {
    std::vector<std::uint8_t> v(std::size_t(w) * h * std::size_t(spp));
    for (std::uint32_t y = 0; y < h; ++y)
        for (std::uint32_t x = 0; x < w; ++x) {
            std::uint8_t c = std::uint8_t(((x + y) / 23) % 4 * 60);
            if (x % 50 < 3 && y % 40 < 3) c = 255;
            for (int s = 0; s < spp; ++s) v[(std::size_t(y) * w + x) * std::size_t(spp) + std::size_t(s)] = std::uint8_t(c + s);
        }
    return v;
}

TEST(CliStream, SameFilesAsInMemory) {
    TempDir dir;
    const std::string in = dir.path("in.tif");
    const TiffSpec s = tiff_spec(301, 207, 3, 8, PHOTOMETRIC_RGB, 0, 64, COMPRESSION_ADOBE_DEFLATE);
    iotest::write_tiff(in, s, stripes(301, 207, 3));
    for (const char* ext : {"npy", "tif"}) {
        for (const char* conn : {"4", "8"}) {
            const std::string ref = dir.path(std::string("ref.") + ext), got = dir.path(std::string("got.") + ext);
            const ChildRun a = cclabel(dir, {"label", in, "-c", conn, "-b", "#000102", "-o", ref});
            ASSERT_EQ(a.code, 0) << a.err;
            EXPECT_EQ(a.out.find("streamed"), std::string::npos) << a.out;
            for (const std::vector<std::string>& extra :
                 std::vector<std::vector<std::string>>{{"--stream"}, {"--stream", "--tile", "17x1"}, {"--memory-budget", "20K"}}) {
                std::vector<std::string> args{"label", in, "-c", conn, "-b", "#000102", "-o", got};
                args.insert(args.end(), extra.begin(), extra.end());
                const ChildRun b = cclabel(dir, args);
                ASSERT_EQ(b.code, 0) << b.err;
                EXPECT_NE(b.out.find("streamed"), std::string::npos) << b.out;
                EXPECT_NE(b.out.find("uint32 labels"), std::string::npos) << b.out;
                EXPECT_EQ(iotest::read_bytes(got), iotest::read_bytes(ref)) << ext << " " << extra.back();
            }
        }
    }
}

// With the uint32 limit lowered, a wide page's in-memory labels and the streamed ones (more
// regions than the limit: uint64) are the same .npy file.
TEST(CliStream, Uint64LabelsEqualTheWidePath) {
    TempDir dir;
    const std::string in = dir.path("in.tif");
    const TiffSpec s = tiff_spec(150, 90, 1, 8, PHOTOMETRIC_MINISBLACK, 1);
    iotest::write_tiff(in, s, stripes(150, 90, 1));
    const ChildRun a = cclabel(dir, {"label", in, "-o", dir.path("ref.npy")}, "1000");
    ASSERT_EQ(a.code, 0) << a.err;
    EXPECT_NE(a.out.find("uint64 labels"), std::string::npos) << a.out;
    const ChildRun b = cclabel(dir, {"label", in, "--stream", "--tile", "40x7", "-o", dir.path("got.npy")}, "10");
    ASSERT_EQ(b.code, 0) << b.err;
    EXPECT_NE(b.out.find("uint64 labels"), std::string::npos) << b.out;
    EXPECT_EQ(iotest::read_bytes(dir.path("got.npy")), iotest::read_bytes(dir.path("ref.npy")));
}

// A picture whose pixels and labels need 5 bytes a pixel (180 MB) labelled under a 4 MiB budget:
// it succeeds, and the process's peak resident size stays far below one copy of the pixels.
TEST(CliStream, MemoryStaysBounded) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    GTEST_SKIP() << "resident size means nothing under a sanitizer";
#else
    TempDir dir;
    const std::string in = dir.path("big.tif");
    const std::uint32_t w = 6000, h = 6000;
    {
        TIFF* tif = TIFFOpen(in.c_str(), "w");
        ASSERT_NE(tif, nullptr);
        TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, w);
        TIFFSetField(tif, TIFFTAG_IMAGELENGTH, h);
        TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, 8);
        TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, 1);
        TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_MINISBLACK);
        TIFFSetField(tif, TIFFTAG_COMPRESSION, COMPRESSION_ADOBE_DEFLATE);
        TIFFSetField(tif, TIFFTAG_ROWSPERSTRIP, 16);
        std::vector<std::uint8_t> row(w);
        for (std::uint32_t y = 0; y < h; ++y) {
            for (std::uint32_t x = 0; x < w; ++x) row[x] = std::uint8_t(((x + y) / 97) % 3);
            ASSERT_GE(TIFFWriteScanline(tif, row.data(), y, 0), 0);
        }
        TIFFClose(tif);
    }
    const ChildRun r = cclabel(dir, {"label", in, "--memory-budget", "4M", "-o", dir.path("labels.tif")});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("streamed"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(" 124 regions"), std::string::npos) << r.out;  // (5999 + 5999) / 97 + 1 stripes
    // One copy of the pixels alone is 36 MB, the labels 144 MB more; the streamed run holds 2 MiB
    // bands (its peak, about 24 MiB on the 2-core machine, is mostly the process's own libraries).
    EXPECT_LT(std::uint64_t(r.max_rss_kib) * 1024, std::uint64_t(w) * h) << "peak resident size " << r.max_rss_kib << " KiB";
    std::cout << "streamed 6000x6000 gray8 under --memory-budget 4M: peak resident " << r.max_rss_kib << " KiB\n";
#endif
}

TEST(CliStream, BadInputsFailOnOneLine) {
    TempDir dir;
    const TiffSpec s = tiff_spec(200, 150, 1, 8, PHOTOMETRIC_MINISBLACK, 10);
    const std::string good = dir.path("good.tif");
    iotest::write_tiff(good, s, stripes(200, 150, 1));
    // Truncated: the strips' data cut off (libtiff writes the directory after the data, so keep
    // the header and directory by cutting out the middle instead of the end).
    {
        auto bytes = iotest::read_bytes(good);
        for (std::size_t i = 8 + 3000; i < 8 + 20000 && i < bytes.size(); ++i) bytes[i] = 0xFF;
        const std::string bad = dir.path("corrupt.tif");
        iotest::write_bytes(bad, bytes);
        iotest::write_bytes(dir.path("cut.tif"), std::vector<std::uint8_t>(bytes.begin(), bytes.begin() + 5000));
    }
    TiffSpec c = s;
    c.sample_format = SAMPLEFORMAT_COMPLEXINT;
    c.bps = 32;
    iotest::write_tiff(dir.path("complex.tif"), c, std::vector<std::uint8_t>(200 * 150 * 4, 1));
    TiffSpec twelve = s;
    twelve.compression = COMPRESSION_LZW;
    twelve.rows_per_strip = 150;
    iotest::write_tiff(dir.path("lzw.tif"), twelve, stripes(200, 150, 1));
    {
        auto bytes = iotest::read_bytes(dir.path("lzw.tif"));
        bytes.resize(bytes.size() / 3);  // the directory is lost too: an error when opened
        iotest::write_bytes(dir.path("lzw-cut.tif"), bytes);
    }

    expect_one_line_error(cclabel(dir, {"label", dir.path("cut.tif"), "--stream", "-o", dir.path("o.npy")}), 1, "cut.tif");
    expect_one_line_error(cclabel(dir, {"label", dir.path("lzw-cut.tif"), "--stream"}), 1, "lzw-cut.tif");
    expect_one_line_error(cclabel(dir, {"label", dir.path("complex.tif"), "--stream"}), 1, "complex");
    const ChildRun png = cclabel(dir, {"label", CCLABEL_EXAMPLE_PNG, "--stream"});
    expect_one_line_error(png, 1, "--stream reads TIFF files only");
    for (const char* opt : {"--verify", "--threshold=otsu", "--min-size=5", "--largest=2", "--kmeans=2"}) {
        SCOPED_TRACE(opt);
        expect_one_line_error(cclabel(dir, {"label", good, "--stream", opt}), 1, "needs the whole picture in memory");
    }
    expect_one_line_error(cclabel(dir, {"label", good, "--stream", "--stats", dir.path("s.csv")}), 1, "--stats needs");
    expect_one_line_error(cclabel(dir, {"label", good, "--stream", "--preview", dir.path("p.png")}), 1, "--preview needs");
    expect_one_line_error(cclabel(dir, {"label", good, "--stream", "-b", "auto"}), 1, "--background auto");
    expect_one_line_error(cclabel(dir, {"label", good, "--memory-budget", "12Q"}), 2, "unknown unit");
    expect_one_line_error(cclabel(dir, {"label", good, "--memory-budget", "0"}), 2, "at least 1 byte");
    expect_one_line_error(cclabel(dir, {"label", good, "--stream", "-b", "#ffffff"}), 1, "background");
    // Corrupt strip data: libtiff either decodes garbage (any labels) or reports the strip; never a crash.
    const ChildRun corrupt = cclabel(dir, {"label", dir.path("corrupt.tif"), "--stream", "-o", dir.path("o2.npy")});
    EXPECT_TRUE(corrupt.code == 0 || corrupt.code == 1) << corrupt.err;
    if (corrupt.code == 1) expect_one_line_error(corrupt, 1, "corrupt.tif");
    // The other inputs are still labelled after a bad one.
    const ChildRun many = cclabel(dir, {"label", dir.path("cut.tif"), good, "--stream", "-o", dir.path("outs")});
    EXPECT_EQ(many.code, 1);
    EXPECT_NE(many.out.find("good.tif"), std::string::npos) << many.out;
}

}  // namespace
}  // namespace cclabel::cli
