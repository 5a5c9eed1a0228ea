// The PDF renderer's child process (src/io/pdf_reader.cpp, issue 24): a small PDF whose page
// Poppler would draw for days is refused at its time limit, a renderer that crashes is an Error
// rather than the caller's crash, and neither harms the caller: the next PDF still renders, also
// from several threads at once, and a page outlives its reader.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <thread>

#include "io_test_util.hpp"
#include "pdf_test_util.hpp"

namespace cclabel::iotest {
namespace {

using Clock = std::chrono::steady_clock;
constexpr const char* kLimitVariable = "CCLABEL_PDF_RENDER_SECONDS";

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

/// Sets an environment variable for one scope (nullptr: unset), then puts back what was there.
class ScopedEnv {
public:
    ScopedEnv(const char* name, const char* value) : name_(name) {
        if (const char* old = std::getenv(name)) old_ = old;
        if (value != nullptr)
            ::setenv(name, value, 1);
        else
            ::unsetenv(name);
    }
    ~ScopedEnv() {
        if (old_)
            ::setenv(name_, old_->c_str(), 1);
        else
            ::unsetenv(name_);
    }

private:
    const char* name_;
    std::optional<std::string> old_;
};

std::string write_pdf(const TempDir& dir, const std::string& name, const std::string& pdf) {
    write_bytes(dir.path(name), std::vector<std::uint8_t>(pdf.begin(), pdf.end()));
    return dir.path(name);
}

/// The two pages of two_page_pdf() at 144 dpi, spot-checked (test_pages.cpp checks every pixel).
void expect_two_pages(const std::string& path) {
    io::PageReader r(path, io::PageOptions{144});
    const io::Page p = r.read(0);
    const ImageView v = p.view();
    ASSERT_EQ(v.width, 144);
    ASSERT_EQ(v.height, 72);
    const auto px = [&](std::int64_t x, std::int64_t y) { return static_cast<const std::uint8_t*>(v.data) + y * v.row_bytes() + x * 3; };
    EXPECT_EQ(px(30, 40)[1], 0);  // inside the red rectangle
    EXPECT_EQ(px(0, 0)[1], 255);
    const io::Page q = r.read(1);
    EXPECT_EQ(q.view().width, 72);
    EXPECT_EQ(q.view().height, 144);
}

/// Reads the one page of @p path, which must fail; returns the message.
std::string read_error(const std::string& path) {
    try {
        io::PageReader(path).read(0);
    } catch (const Error& e) {
        const std::string m = e.what();
        EXPECT_EQ(m.rfind(path + ": ", 0), 0u) << m;
        EXPECT_EQ(m.find('\n'), std::string::npos) << m;
        return m;
    }
    ADD_FAILURE() << path << " was rendered";
    return "";
}

TEST(PdfChild, ExpensivePageIsRefusedAtTheTimeLimit) {
    if (!io::PageReader::reads_pdf()) GTEST_SKIP() << "this build reads no PDF";
    TempDir dir;
    const std::string forms = write_pdf(dir, "forms.pdf", nested_forms_pdf());
    const std::string bytes = std::to_string(std::filesystem::file_size(forms));
    ASSERT_LT(std::filesystem::file_size(forms), 8192u);  // for 10^10 strokes
    const std::string good = write_pdf(dir, "good.pdf", two_page_pdf());
    const ScopedEnv limit(kLimitVariable, "0.5");
    for (int round = 0; round < 2; ++round) {
        const auto t0 = Clock::now();
        const std::string m = read_error(forms);
        // A4 at 150 dpi: 1240 x 1755 pixels.
        EXPECT_NE(m.find("refused: rendering took longer than 0.5 s (the limit for a page of 2.2 Mpx at 150 dpi from a file of " +
                         bytes + " bytes; CCLABEL_PDF_RENDER_SECONDS overrides it)"),
                  std::string::npos)
            << m;
        EXPECT_LT(seconds_since(t0), 2.5);
        expect_two_pages(good);  // the caller is fine afterwards
    }
}

// Without the variable the page's own budget applies: 1 s + 2.2 Mpx at 20 Mpx/s + 3 kB at 5 us.
TEST(PdfChild, DefaultLimitScalesWithThePage) {
    if (!io::PageReader::reads_pdf()) GTEST_SKIP() << "this build reads no PDF";
    TempDir dir;
    const std::string forms = write_pdf(dir, "forms.pdf", nested_forms_pdf());
    const ScopedEnv limit(kLimitVariable, nullptr);
    const auto t0 = Clock::now();
    const std::string m = read_error(forms);
    EXPECT_NE(m.find("refused: rendering took longer than 1.1 s (the limit for a page of 2.2 Mpx at 150 dpi"), std::string::npos) << m;
    EXPECT_GT(seconds_since(t0), 1.0);
    EXPECT_LT(seconds_since(t0), 3.0);
}

TEST(PdfChild, LimitVariableMustBeANumber) {
    if (!io::PageReader::reads_pdf()) GTEST_SKIP() << "this build reads no PDF";
    TempDir dir;
    const std::string good = write_pdf(dir, "good.pdf", two_page_pdf());
    for (const char* bad : {"abc", "-1", "2s", "nan"}) {
        const ScopedEnv limit(kLimitVariable, bad);
        io::PageReader r(good);
        try {
            r.read(0);
            ADD_FAILURE() << bad << " was taken";
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find("CCLABEL_PDF_RENDER_SECONDS=" + std::string(bad) + " is not a number of seconds"),
                      std::string::npos)
                << e.what();
        }
    }
    const ScopedEnv none(kLimitVariable, "0");  // no limit
    expect_two_pages(good);
}

/// This process's children (from /proc/<pid>/stat: the parent id follows the ")" of the name).
std::vector<pid_t> children() {
    std::vector<pid_t> out;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
        const std::string name = entry.path().filename().string();
        if (name.find_first_not_of("0123456789") != std::string::npos) continue;
        std::ifstream in(entry.path() / "stat");
        std::string stat;
        std::getline(in, stat);
        const std::size_t close = stat.rfind(')');
        if (close == std::string::npos) continue;
        char state = 0;
        long ppid = 0;
        if (std::sscanf(stat.c_str() + close + 1, " %c %ld", &state, &ppid) == 2 && ppid == long(::getpid())) {
            out.push_back(pid_t(std::stol(name)));
        }
    }
    return out;
}

// A renderer that crashes (here: sent SIGSEGV by a thread of the test while it draws the endless
// page) is an Error naming the signal; the caller goes on.
TEST(PdfChild, CrashedRendererIsAnError) {
    if (!io::PageReader::reads_pdf()) GTEST_SKIP() << "this build reads no PDF";
    if (!std::filesystem::exists("/proc/self/stat")) GTEST_SKIP() << "no /proc to find the renderer in";
    TempDir dir;
    const std::string forms = write_pdf(dir, "forms.pdf", nested_forms_pdf());
    const std::string good = write_pdf(dir, "good.pdf", two_page_pdf());
    const ScopedEnv limit(kLimitVariable, "30");
    std::atomic<bool> stop{false};
    std::atomic<int> sent{0};
    std::thread killer([&] {
        while (!stop && sent == 0) {
            for (pid_t c : children()) {
                // Once it draws (a signal as it leaves fork() would meet the parent's handlers).
                std::this_thread::sleep_for(std::chrono::milliseconds(200));
                if (::kill(c, SIGSEGV) == 0) ++sent;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
    });
    const auto t0 = Clock::now();
    const std::string m = read_error(forms);
    stop = true;
    killer.join();
    EXPECT_EQ(sent, 1);
    EXPECT_NE(m.find("the PDF renderer stopped on signal " + std::to_string(SIGSEGV)), std::string::npos) << m;
    EXPECT_NE(m.find("the page was not rendered"), std::string::npos) << m;
    EXPECT_LT(seconds_since(t0), 10.0);
    expect_two_pages(good);
}

TEST(PdfChild, PagesRenderFromSeveralThreads) {
    if (!io::PageReader::reads_pdf()) GTEST_SKIP() << "this build reads no PDF";
    TempDir dir;
    const std::string good = write_pdf(dir, "good.pdf", two_page_pdf());
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
        threads.emplace_back([&] {
            for (int i = 0; i < 5; ++i) expect_two_pages(good);
        });
    }
    for (auto& t : threads) t.join();
}

// The rows live in a mapping that the page owns, not the reader.
TEST(PdfChild, PageOutlivesItsReader) {
    if (!io::PageReader::reads_pdf()) GTEST_SKIP() << "this build reads no PDF";
    TempDir dir;
    const std::string good = write_pdf(dir, "good.pdf", two_page_pdf());
    io::Page p = [&] { return io::PageReader(good, io::PageOptions{144}).read(0); }();
    const ImageView v = p.view();
    ASSERT_EQ(v.width, 144);
    EXPECT_EQ(v.row_bytes() % 4, 0);
    EXPECT_EQ(static_cast<const std::uint8_t*>(v.data)[40 * v.row_bytes() + 30 * 3 + 1], 0);
    const io::Page copy = p;
    p = io::Page{};
    EXPECT_EQ(static_cast<const std::uint8_t*>(copy.view().data)[40 * copy.view().row_bytes() + 30 * 3], 255);
}

}  // namespace
}  // namespace cclabel::iotest
