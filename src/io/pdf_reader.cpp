// PDF pages through Poppler's C++ library (libpoppler-cpp), rendered to RGB8 on white paper with
// anti-aliasing, as pdftoppm renders them. The library rather than a pdftoppm pipe: no process per
// page, no PPM encode/decode of what can be 3 GB a page at 800 dpi, errors as messages instead of
// exit codes, and the rendered buffer is labelled where Poppler put it (rgb24 rows are R, G, B
// bytes padded to 4: an RGB8 view with that stride, no repacking).
// Built only where CMake found poppler-cpp (CCLABEL_HAVE_POPPLER); otherwise opening a PDF says so.
//
// Each page is rendered in a forked child (POSIX), bounded in time and memory: the page size is
// checked first (pixels, memory, work at 150 dpi), but a small file can still hold a page that is
// very expensive to draw (millions of operators, forms drawing forms, a huge image scaled down),
// and Poppler may crash on crafted input. The child writes the rows into a shared anonymous
// mapping, which the page then owns; a child past its deadline is killed, and a crashed child is
// an Error, never the caller's crash. docs/decode_limits.md gives the budget's figures.
#include <memory>
#include <string>

#include "cclabel/error.hpp"
#include "cclabel/label.hpp"
#include "io/io_common.hpp"
#include "io/page_source.hpp"

#if CCLABEL_HAVE_POPPLER
#include <poppler-document.h>
#include <poppler-global.h>
#include <poppler-image.h>
#include <poppler-page-renderer.h>
#include <poppler-page.h>

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <new>

#if defined(__unix__) || defined(__APPLE__)
#define CCLABEL_PDF_RENDER_CHILD 1
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <time.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#else
#define CCLABEL_PDF_RENDER_CHILD 0
#endif
#endif

namespace cclabel::io::detail {

void (*pdf_render_child_hook)() = nullptr;

#if CCLABEL_HAVE_POPPLER
namespace {

// Poppler reports problems through one process-wide function (by default onto stderr); keep the
// latest message so that the error thrown can carry it.
std::mutex g_poppler_mutex;
std::string g_poppler_message;

void on_poppler_message(const std::string& msg, void*) {
    const std::lock_guard<std::mutex> lock(g_poppler_mutex);
    g_poppler_message = msg;
}

/// Poppler keeps process-wide state behind its own locks (GlobalParams, fonts): a fork while
/// another thread was inside Poppler handed the child a lock that nobody would release (a renderer
/// that used no processor time until the clock stopped it, four threads reading pages at once
/// under ASan). Every Poppler call of this process and every fork hold this.
std::mutex g_poppler_calls;

std::string take_poppler_message() {
    const std::lock_guard<std::mutex> lock(g_poppler_mutex);
    std::string m;
    m.swap(g_poppler_message);
    return m.empty() ? m : " (" + m + ")";
}

std::string px_text(double w, double h) { return std::to_string(std::llround(w)) + " x " + std::to_string(std::llround(h)); }

/// Whether Poppler rendered exactly the w x h rgb24 slice asked for.
bool rendered_as_asked(const poppler::image& img, int w, int h) {
    return img.is_valid() && img.format() == poppler::image::format_rgb24 && img.width() == w && img.height() == h &&
           img.bytes_per_row() >= w * 3;
}

#if CCLABEL_PDF_RENDER_CHILD

/// How long a page may take to render, from what Poppler needed for legitimate 1 MiB PDFs here
/// (docs/decode_limits.md has the figures): a quarter second (the fork, fonts), plus for each MiB of
/// file 0.6 s of interpreting, whatever the resolution (a matplotlib scatter of 36,000 coloured
/// markers needs 1 s of it at 8 dpi), and 5 s of drawing at A4 150 dpi, growing as the
/// pixels^0.75 (strokes grow with the page's side, fills with its area: 4x the pixels took 1.8x
/// to 2.8x as long), plus the pixels at 20 Mpx/s. Only the file's size bounds how much a real
/// drawing holds, so a large file gets more time, but the drawing part follows the pixels: a
/// 1 MiB file whose page is a few thousand pixels (the fuzz target renders at 8 dpi) is refused
/// within about a second, a 4 kB A4 page that draws forever at 150 dpi in 0.4 s, while real pages
/// keep at least 3.9x their processor time at 150 and 300 dpi, a synthetic worst case 2x.
/// The file's share (its MiB times interpreting and drawing) is the document's, not each page's:
/// only the file's size bounds what all its pages draw, so what one page used of it beyond its own
/// quarter second and pixels is gone for the next (a 1 MiB file of a thousand pages that each draw
/// forever had a thousand times 6 s at 150 dpi; now 6 s once and a few tenths a page).
/// CCLABEL_PDF_RENDER_SECONDS overrides it (0: no limit).
constexpr double kRenderBaseSeconds = 0.25;
constexpr double kRenderParseSecondsPerMiB = 0.6;
constexpr double kRenderDrawSecondsPerMiB = 5.0;
constexpr double kRenderDrawReferencePixels = 1241.0 * 1754.0;  // A4 at 150 dpi
constexpr double kRenderDrawExponent = 0.75;
constexpr double kRenderPixelsPerSecond = 20e6;
/// The budget is processor time; a child that has not used it after this many times as long on
/// the clock (a machine so loaded that it gets a tenth of a core, or a child that waits) is
/// stopped all the same. 5x was too few: with builds and a fuzzer beside it on the 2-core machine
/// a renderer got 19% of a core.
constexpr double kRenderWallFactor = 10.0;
/// What the child may map beyond the page (7 bytes a pixel) and the address space it inherits:
/// Poppler's own needs (fonts, parsed objects, an embedded image decoded whole). pdftoppm needs
/// 20 MB for a text page at 150 dpi; a scanned A4 page at 600 dpi, decoded whole, 105 MB.
constexpr std::uint64_t kRenderMemoryMargin = std::uint64_t(2) << 30;
constexpr const char* kRenderSecondsVariable = "CCLABEL_PDF_RENDER_SECONDS";

/// A page's own part of the budget: the fork and fonts, and its pixels.
double page_seconds(double pixels) { return kRenderBaseSeconds + pixels / kRenderPixelsPerSecond; }

/// The budget of a page of @p pixels from a file of @p file_bytes whose earlier pages have used
/// @p spent seconds of the file's share.
double render_seconds(const std::string& path, double pixels, double file_bytes, double spent) {
    const char* env = std::getenv(kRenderSecondsVariable);
    if (env == nullptr || *env == '\0') {
        const double mib = file_bytes / double(1 << 20);
        const double draw = kRenderDrawSecondsPerMiB * std::pow(pixels / kRenderDrawReferencePixels, kRenderDrawExponent);
        return page_seconds(pixels) + std::max(0.0, mib * (kRenderParseSecondsPerMiB + draw) - spent);
    }
    char* end = nullptr;
    const double s = std::strtod(env, &end);
    if (end == env || *end != '\0' || !(s >= 0) || !std::isfinite(s)) {
        fail(path, std::string(kRenderSecondsVariable) + "=" + env + " is not a number of seconds (0 for no limit)");
    }
    return s;
}

std::string one_decimal(double x) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f", x);
    return buf;
}

/// The rows of a rendered page, in a shared anonymous mapping that the child writes and the page
/// then owns (the deleter unmaps it).
std::shared_ptr<std::uint8_t> map_shared_rows(const std::string& path, std::size_t bytes) {
    void* at = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (at == MAP_FAILED) fail(path, "cannot map " + std::to_string(bytes) + " bytes for the page: " + std::strerror(errno));
    return std::shared_ptr<std::uint8_t>(static_cast<std::uint8_t*>(at), [bytes](std::uint8_t* p) { ::munmap(p, bytes); });
}

/// The child's address space now, in bytes (0 when /proc cannot say): the memory limit is set
/// above what it inherited. Plain system calls only.
std::uint64_t address_space_bytes() {
    const int fd = ::open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    char buf[64] = {};
    const ssize_t n = ::read(fd, buf, sizeof buf - 1);
    ::close(fd);
    if (n <= 0) return 0;
    return std::strtoull(buf, nullptr, 10) * std::uint64_t(::sysconf(_SC_PAGESIZE));
}

// The child's Poppler messages: a child-local copy, since another thread of the parent may have
// held g_poppler_mutex when the child was forked.
std::string g_child_message;
void on_child_message(const std::string& msg, void*) { g_child_message = msg; }

/// What the child reports through the pipe: a status byte (0: rows written), a 2-byte length,
/// then a message; one write of at most PIPE_BUF bytes, so it arrives whole.
constexpr std::size_t kReportHeader = 3;
constexpr std::size_t kReportMessage = 400;

[[noreturn]] void child_report(int fd, bool ok, std::string msg) {
    if (msg.size() > kReportMessage) msg.resize(kReportMessage);
    char buf[kReportHeader + kReportMessage];
    buf[0] = ok ? 0 : 1;
    buf[1] = char(msg.size() & 0xFF);
    buf[2] = char(msg.size() >> 8);
    std::memcpy(buf + kReportHeader, msg.data(), msg.size());
    const std::size_t n = kReportHeader + msg.size();
    for (std::size_t done = 0; done < n;) {
        const ssize_t k = ::write(fd, buf + done, n - done);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) break;
        done += std::size_t(k);
    }
    ::_exit(0);
}

struct ChildLimits {
    double seconds = 0;        ///< CPU seconds (0: none)
    std::uint64_t memory = 0;  ///< beyond what the child inherits
};

/// The child: only Poppler and plain system calls, then _exit (fork copied only this thread).
[[noreturn]] void render_in_child(int fd, const ChildLimits& limits, poppler::page_renderer& renderer, poppler::page* page,
                                  double dpi, int w, int h, std::uint8_t* rows, std::size_t stride) {
    // The parent's handlers (an interpreter's fault handler, its Ctrl-C flag) are not the child's.
    for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGXCPU, SIGINT, SIGTERM}) ::signal(sig, SIG_DFL);
    sigset_t all;
    sigfillset(&all);
    ::sigprocmask(SIG_UNBLOCK, &all, nullptr);
    if (limits.seconds > 0) {
        rlimit cpu{};
        cpu.rlim_cur = rlim_t(std::ceil(limits.seconds)) + 1;
        cpu.rlim_max = cpu.rlim_cur + 1;  // SIGXCPU at the soft limit, SIGKILL a second later
        ::setrlimit(RLIMIT_CPU, &cpu);
    }
    // A renderer that crashes is reported; a core dump of what it copied of the caller is not wanted.
    const rlimit no_core{0, 0};
    ::setrlimit(RLIMIT_CORE, &no_core);
    if (const std::uint64_t now = address_space_bytes(); now != 0) {
        rlimit as{};
        as.rlim_cur = as.rlim_max = rlim_t(now + limits.memory);
        ::setrlimit(RLIMIT_AS, &as);
    }
    poppler::set_debug_error_function(&on_child_message, nullptr);
    try {
        if (pdf_render_child_hook != nullptr) pdf_render_child_hook();
        const poppler::image img = renderer.render_page(page, dpi, dpi, 0, 0, w, h);
        if (!rendered_as_asked(img, w, h)) {
            child_report(fd, false, "the page could not be rendered" + (g_child_message.empty() ? "" : " (" + g_child_message + ")"));
        }
        for (int y = 0; y < h; ++y) std::memcpy(rows + std::size_t(y) * stride, img.const_data() + std::size_t(y) * img.bytes_per_row(), std::size_t(w) * 3);
        child_report(fd, true, "");
    } catch (const std::bad_alloc&) {
        child_report(fd, false, "out of memory while rendering the page (the limit is " +
                                    std::to_string(limits.memory >> 20) + " MiB beyond the caller's own)");
    } catch (...) {
        child_report(fd, false, "the page could not be rendered");
    }
}

/// Kills and reaps the child unless it was reaped already (any early exit of the parent's wait).
struct ChildProcess {
    pid_t pid = -1;
    int status = 0;
    bool reaped = false;
    void kill() {
        if (pid > 0 && !reaped) ::kill(pid, SIGKILL);
    }
    double cpu_seconds = 0;  ///< the processor time it used, once reaped
    void reap() {
        if (pid <= 0 || reaped) return;
        rusage use{};
        while (::wait4(pid, &status, 0, &use) < 0 && errno == EINTR) {
        }
        reaped = true;
        cpu_seconds = double(use.ru_utime.tv_sec + use.ru_stime.tv_sec) + double(use.ru_utime.tv_usec + use.ru_stime.tv_usec) * 1e-6;
    }
    /// Whether it has ended by itself (reaped then, its status kept).
    bool ended() {
        if (pid <= 0 || reaped) return reaped;
        pid_t got;
        rusage use{};
        while ((got = ::wait4(pid, &status, WNOHANG, &use)) < 0 && errno == EINTR) {
        }
        reaped = got == pid;
        if (reaped)
            cpu_seconds = double(use.ru_utime.tv_sec + use.ru_stime.tv_sec) +
                          double(use.ru_utime.tv_usec + use.ru_stime.tv_usec) * 1e-6;
        return reaped;
    }
    ~ChildProcess() {
        kill();
        reap();
    }
};

struct FdPair {
    int fd[2] = {-1, -1};
    void close(int i) {
        if (fd[i] >= 0) ::close(fd[i]);
        fd[i] = -1;
    }
    ~FdPair() {
        close(0);
        close(1);
    }
};

/// Why the child stopped without reporting, from its wait status.
std::string child_death(int status, const ChildLimits& limits) {
    if (WIFSIGNALED(status)) {
        const int sig = WTERMSIG(status);
        std::string m = "the PDF renderer stopped on signal " + std::to_string(sig) + " (" + ::strsignal(sig) + ")";
        if (sig == SIGXCPU) m += ": it used more than its CPU time limit of " + one_decimal(std::ceil(limits.seconds) + 1) + " s";
        if (sig == SIGABRT || sig == SIGKILL) m += ", perhaps out of memory";
        return m + "; the page was not rendered";
    }
    return "the PDF renderer exited with status " + std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) +
           " without rendering the page";
}

#endif  // CCLABEL_PDF_RENDER_CHILD

class PdfPages : public PageReader::Source {
public:
    PdfPages(const std::string& path, double dpi) : path_(path), dpi_(dpi) {
        const std::lock_guard<std::mutex> calls(g_poppler_calls);
        static std::once_flag once;
        std::call_once(once, [] { poppler::set_debug_error_function(&on_poppler_message, nullptr); });
        take_poppler_message();
        std::error_code ec;
        file_size_ = std::filesystem::file_size(path, ec);
        if (ec) fail(path, "cannot read the file size: " + ec.message());
        doc_.reset(poppler::document::load_from_file(path));
        if (!doc_) fail(path, "cannot open the PDF" + take_poppler_message());
        if (doc_->is_locked()) fail(path, "the PDF is password-protected");
        count_ = doc_->pages();
        if (count_ < 1) fail(path, "PDF without pages");
        if (!poppler::page_renderer::can_render()) fail(path, "this Poppler build cannot render pages");
        renderer_.set_render_hint(poppler::page_renderer::antialiasing, true);
        renderer_.set_render_hint(poppler::page_renderer::text_antialiasing, true);
        renderer_.set_image_format(poppler::image::format_rgb24);
    }

    ~PdfPages() override {
        const std::lock_guard<std::mutex> calls(g_poppler_calls);
        doc_.reset();
    }

    int pages() const override { return count_; }

    Page read(int index) override {
        std::unique_lock<std::mutex> calls(g_poppler_calls);
        std::unique_ptr<poppler::page> page(doc_->create_page(index));
        // The page is Poppler's too: freed under the lock however this returns (render lets go
        // of the lock while its child draws).
        struct PageUnderLock {
            std::unique_lock<std::mutex>& calls;
            std::unique_ptr<poppler::page>& page;
            ~PageUnderLock() {
                if (!calls.owns_lock()) calls.lock();
                page.reset();
            }
        } const page_under_lock{calls, page};
        if (!page) fail(path_, "cannot read the page" + take_poppler_message());
        // The page box in points (1/72 inch) at the resolution, rounded up as pdftoppm does; refuse
        // before rendering what could not be labelled (or allocated).
        const poppler::rectf box = page->page_rect(poppler::crop_box);
        const bool turned = page->orientation() == poppler::page::landscape || page->orientation() == poppler::page::seascape;
        const double w = std::ceil((turned ? box.height() : box.width()) * dpi_ / 72.0);
        const double h = std::ceil((turned ? box.width() : box.height()) * dpi_ / 72.0);
        if (!(w * h <= double(kMaxPixels)) || w >= 1 << 29 || h >= 1 << 29) {
            fail(path_, "the page is " + px_text(w, h) + " pixels at " + std::to_string(std::lround(dpi_)) +
                            " dpi, over the limit of 2^32 - 1 pixels");
        }
        // How big a page may be is judged at the default resolution, where it costs the same for
        // every caller: a page box that a small file cannot plausibly fill (a 500-byte PDF of a
        // 3.5 m square page took seconds to render) is refused as check_decode_work refuses a
        // bomb; at a finer resolution the work grows as the caller asked.
        const double w0 = std::ceil((turned ? box.height() : box.width()) * PageOptions{}.dpi / 72.0);
        const double h0 = std::ceil((turned ? box.width() : box.height()) * PageOptions{}.dpi / 72.0);
        if (w0 > 0 && h0 > 0) {
            check_decode_work(path_, std::uint64_t(w0) * 3, std::uint64_t(h0), file_size_,
                              "the page is " + px_text(w0, h0) + " pixels at " + std::to_string(std::lround(PageOptions{}.dpi)) + " dpi");
        }
        // Poppler renders into its own 4-byte-a-pixel bitmap and copies that into the rgb24 image
        // (7 bytes a pixel); rendered in a child, the rows are copied once more, into the page.
        check_memory(path_, std::uint64_t(w) * std::uint64_t(h) * (CCLABEL_PDF_RENDER_CHILD ? 10 : 7),
                     "the page, " + px_text(w, h) + " pixels at " + std::to_string(std::lround(dpi_)) + " dpi,");
        // The whole page as a slice of exactly that size: left to itself Poppler rounds the size
        // to nearest, pdftoppm rounds up; this way both give the same raster.
        Page p;
        p.index = index;
        p.count = count_;
        p.image.width = std::int64_t(w);
        p.image.height = std::int64_t(h);
        p.image.format = PixelFormat::RGB8;
        p.image.description = "pdf page rendered at " + std::to_string(std::lround(dpi_)) + " dpi";
        render(page.get(), int(w), int(h), p, calls);
        return p;
    }

private:
#if CCLABEL_PDF_RENDER_CHILD
    /// Renders in a forked child under a deadline and rlimits; the rows land in a shared mapping.
    void render(poppler::page* page, int w, int h, Page& p, std::unique_lock<std::mutex>& calls) {
        const std::size_t stride = (std::size_t(w) * 3 + 3) & ~std::size_t(3);  // rgb24 rows, as Poppler pads them
        const std::size_t bytes = stride * std::size_t(h);
        if (bytes == 0) fail(path_, "the page could not be rendered (it is " + px_text(w, h) + " pixels)");
        const double pixels = double(w) * double(h);
        const double spent = spent_.load();
        const double seconds = render_seconds(path_, pixels, double(file_size_), spent);
        const ChildLimits limits{seconds, std::uint64_t(pixels) * 7 + kRenderMemoryMargin};
        std::shared_ptr<std::uint8_t> rows = map_shared_rows(path_, bytes);
        FdPair fds;
        if (::pipe(fds.fd) != 0) fail(path_, std::string("cannot create a pipe for the PDF renderer: ") + std::strerror(errno));
        for (int fd : fds.fd) ::fcntl(fd, F_SETFD, FD_CLOEXEC);
        ChildProcess child;
        child.pid = ::fork();
        if (child.pid < 0) fail(path_, std::string("cannot start the PDF renderer: ") + std::strerror(errno));
        if (child.pid == 0) {
            ::close(fds.fd[0]);
            render_in_child(fds.fd[1], limits, renderer_, page, dpi_, w, h, rows.get(), stride);
        }
        calls.unlock();  // the child has its copy of Poppler; other threads may use this one
        fds.close(1);
        // The limit is on the child's processor time where this system can read it.
        clockid_t cpu_clock{};
#if defined(__linux__)
        const bool has_cpu_clock = seconds > 0 && ::clock_getcpuclockid(child.pid, &cpu_clock) == 0;
#else
        const bool has_cpu_clock = false;
#endif
        Late late = Late::no;
        const std::string report = wait_for_report(fds.fd[0], seconds, has_cpu_clock ? &cpu_clock : nullptr, late);
        // A child that died before the deadline was seen (its CPU limit while this process was
        // stopped, a crash) is reported as what it was, not as late.
        if (late != Late::no && child.ended() && WIFSIGNALED(child.status)) late = Late::no;
        timespec used{};
        if (late == Late::wall && has_cpu_clock) ::clock_gettime(cpu_clock, &used);
        child.kill();  // done, dead or late: either way it has nothing more to say
        child.reap();
        spent_.fetch_add(std::max(0.0, child.cpu_seconds - page_seconds(pixels)));
        if (late != Late::no) {
            const std::string limit = "the limit for a page of " + one_decimal(pixels / 1e6) + " Mpx at " + std::to_string(std::lround(dpi_)) +
                                      " dpi from a file of " + std::to_string(file_size_) + " bytes" +
                                      (spent > 0 ? ", whose earlier pages used " + one_decimal(spent) + " s of its share" : "") +
                                      "; " + kRenderSecondsVariable + " overrides it";
            if (late == Late::processor) {
                fail(path_, "refused: rendering took more than " + one_decimal(seconds) + " s of processor time (" + limit + ")");
            }
            if (!has_cpu_clock) fail(path_, "refused: rendering took longer than " + one_decimal(seconds) + " s (" + limit + ")");
            // How much it ran tells a starved renderer (a busy machine) from a stuck one.
            fail(path_, "refused: rendering did not finish in " + one_decimal(seconds * kRenderWallFactor) + " s, having used " +
                            one_decimal(double(used.tv_sec) + double(used.tv_nsec) * 1e-9) + " s of its " + one_decimal(seconds) +
                            " s of processor time (" + limit + ")");
        }
        if (report.empty()) fail(path_, child_death(child.status, limits));
        if (report[0] != 0) fail(path_, report.substr(kReportHeader));
        p.rendered_view = make_view(rows.get(), w, h, PixelFormat::RGB8, std::int64_t(stride));
        p.rendered = std::move(rows);
    }

    enum class Late { no, processor, wall };

    /// The child's whole report, or "" when the child died first or did not report in time (then
    /// @p late; 0 seconds: no limit). The limit is on the child's processor time (@p cpu_clock),
    /// so that a busy machine, which gives the child less of a core, does not make a page too
    /// expensive; the wall clock only stops a child that runs too little to reach it (stopped, or
    /// waiting). Without @p cpu_clock the limit is on the wall clock.
    static std::string wait_for_report(int fd, double seconds, const clockid_t* cpu_clock, Late& late) {
        using Clock = std::chrono::steady_clock;
        const bool timed = seconds > 0;
        const double wall = cpu_clock != nullptr ? seconds * kRenderWallFactor : seconds;
        const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(wall));
        std::string got;
        for (;;) {
            if (got.size() >= kReportHeader &&
                got.size() >= kReportHeader + (std::uint8_t(got[1]) | std::size_t(std::uint8_t(got[2])) << 8)) {
                return got;
            }
            int timeout_ms = -1;
            if (timed) {
                double left = std::chrono::duration<double>(deadline - Clock::now()).count();
                if (left <= 0) {
                    late = Late::wall;
                    return "";
                }
                timespec used{};
                if (cpu_clock != nullptr && ::clock_gettime(*cpu_clock, &used) == 0) {
                    const double cpu_left = seconds - (double(used.tv_sec) + double(used.tv_nsec) * 1e-9);
                    if (cpu_left <= 0) {
                        late = Late::processor;
                        return "";
                    }
                    // One thread's processor time grows no faster than the clock: nothing to
                    // check before cpu_left has passed.
                    left = std::min(left, cpu_left);
                }
                timeout_ms = int(std::clamp(std::ceil(left * 1000), 1.0, double(1 << 30)));
            }
            pollfd pfd{fd, POLLIN, 0};
            const int n = ::poll(&pfd, 1, timeout_ms);
            if (n < 0 && errno != EINTR) return "";
            if (n <= 0) continue;
            char buf[512];
            const ssize_t k = ::read(fd, buf, sizeof buf);
            if (k < 0 && (errno == EINTR || errno == EAGAIN)) continue;
            if (k <= 0) return "";  // the child closed the pipe without a whole report
            got.append(buf, std::size_t(k));
        }
    }
#else
    /// Renders in this process: no fork where the platform has none.
    void render(poppler::page* page, int w, int h, Page& p, std::unique_lock<std::mutex>& /*calls, held throughout*/) {
        auto img = std::make_shared<poppler::image>(renderer_.render_page(page, dpi_, dpi_, 0, 0, w, h));
        if (!rendered_as_asked(*img, w, h)) fail(path_, "the page could not be rendered" + take_poppler_message());
        p.rendered_view = make_view(img->const_data(), w, h, PixelFormat::RGB8, img->bytes_per_row());
        p.rendered = std::move(img);
    }
#endif

    std::string path_;
    double dpi_;
    std::uint64_t file_size_ = 0;
#if CCLABEL_PDF_RENDER_CHILD
    /// What the pages rendered so far used of the file's share of the budget (render_seconds).
    std::atomic<double> spent_{0.0};
#endif
    std::unique_ptr<poppler::document> doc_;
    poppler::page_renderer renderer_;
    int count_ = 0;
};

}  // namespace

bool pdf_supported() { return true; }

std::unique_ptr<PageReader::Source> open_pdf_pages(const std::string& path, double dpi) {
    return std::make_unique<PdfPages>(path, dpi);
}

#else

bool pdf_supported() { return false; }

std::unique_ptr<PageReader::Source> open_pdf_pages(const std::string& path, double) {
    fail(path, "PDF input needs Poppler: this cclabel was built without libpoppler-cpp (install libpoppler-cpp-dev "
               "and rebuild)");
}

#endif

}  // namespace cclabel::io::detail
