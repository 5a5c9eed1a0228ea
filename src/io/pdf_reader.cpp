// PDF pages through Poppler's C++ library (libpoppler-cpp), rendered to RGB8 on white paper with
// anti-aliasing, as pdftoppm renders them. The library rather than a pdftoppm pipe: no PPM
// encode/decode of what can be 3 GB a page at 800 dpi, errors as messages instead of exit codes.
// Built only where CMake found poppler-cpp (CCLABEL_HAVE_POPPLER); otherwise opening a PDF says so.
//
// Every Poppler call on the file's bytes runs in a forked child bounded in processor time, wall
// time and memory (pdf_child.hpp, where the platform has fork): Poppler may loop or crash on
// crafted input, a small file can hold a page that is very expensive to draw (millions of
// operators, forms drawing forms, a huge image scaled down), and even opening a file (its
// cross-reference table, object streams, the page tree) is work that a crafted file can make
// endless. So this process never parses the file: a first child opens it and hands back the
// number of pages and each page's size; the pages' sizes are checked here (pixels, memory, work
// at 150 dpi); then each page is drawn by a child of its own, which opens the file again and
// writes the rows into a shared anonymous mapping that the page then owns. A child past its
// budget is killed, and a crashed child is an Error, never the caller's crash.
// docs/decode_limits.md gives the budget's figures.
#include <memory>
#include <string>

#include "cclabel/error.hpp"
#include "cclabel/label.hpp"
#include "io/io_common.hpp"
#include "io/page_source.hpp"
#include "io/pdf_child.hpp"

#if CCLABEL_HAVE_POPPLER
#include <poppler-document.h>
#include <poppler-global.h>
#include <poppler-image.h>
#include <poppler-page-renderer.h>
#include <poppler-page.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <vector>

#if CCLABEL_PDF_CHILD
#include <sys/mman.h>

#include <cerrno>
#endif
#endif

namespace cclabel::io::detail {

void (*pdf_load_child_hook)() = nullptr;
void (*pdf_render_child_hook)() = nullptr;

#if CCLABEL_HAVE_POPPLER
namespace {

// Poppler reports problems through one process-wide function (by default onto stderr); the work
// below keeps the latest message so that its error can carry it. It runs in a child of its own
// (which copied no lock that another thread of the caller might hold) or, without fork, under
// g_poppler_calls.
std::string g_poppler_message;
void on_poppler_message(const std::string& msg, void*) { g_poppler_message = msg; }

void listen_to_poppler() {
    poppler::set_debug_error_function(&on_poppler_message, nullptr);
    g_poppler_message.clear();
}

std::string poppler_message() { return g_poppler_message.empty() ? "" : " (" + g_poppler_message + ")"; }

std::string px_text(double w, double h) { return std::to_string(std::llround(w)) + " x " + std::to_string(std::llround(h)); }

/// A page's size in points (1/72 inch) as it is displayed: a turned page's sides swapped. NaN
/// for a page that Poppler cannot read (the other pages may still be read).
struct PageBox {
    double width = 0;
    double height = 0;
};

/// More pages than any real document has; the loader refuses a file that claims more, so that its
/// answer stays within what pdf_child's report carries (16 bytes a page).
constexpr int kMaxPages = 1 << 20;

/// The loader's work: open the file, count its pages, read each page's box. Its answer is the
/// PageBoxes' bytes.
ChildWork load_page_boxes(const std::string& path) {
    if (pdf_load_child_hook != nullptr) pdf_load_child_hook();
    listen_to_poppler();
    const std::unique_ptr<poppler::document> doc(poppler::document::load_from_file(path));
    if (!doc) return {false, "cannot open the PDF" + poppler_message()};
    if (doc->is_locked()) return {false, "the PDF is password-protected"};
    const int n = doc->pages();
    if (n < 1) return {false, "PDF without pages" + poppler_message()};
    if (n > kMaxPages) return {false, "the PDF claims " + std::to_string(n) + " pages, more than cclabel reads (" + std::to_string(kMaxPages) + ")"};
    if (!poppler::page_renderer::can_render()) return {false, "this Poppler build cannot render pages"};
    std::vector<PageBox> boxes(std::size_t(n), PageBox{std::nan(""), std::nan("")});
    for (int i = 0; i < n; ++i) {
        const std::unique_ptr<poppler::page> page(doc->create_page(i));
        if (!page) continue;
        const poppler::rectf box = page->page_rect(poppler::crop_box);
        const bool turned = page->orientation() == poppler::page::landscape || page->orientation() == poppler::page::seascape;
        boxes[std::size_t(i)] = turned ? PageBox{box.height(), box.width()} : PageBox{box.width(), box.height()};
    }
    return {true, std::string(reinterpret_cast<const char*>(boxes.data()), boxes.size() * sizeof(PageBox))};
}

/// A renderer's work: open the file again, render page @p index as the w x h slice at @p dpi (left
/// to itself Poppler rounds the size to nearest, pdftoppm rounds up; this way both give the same
/// raster) and copy its rgb24 rows (R, G, B bytes padded to 4) into @p rows.
ChildWork render_page_rows(const std::string& path, int index, double dpi, int w, int h, std::uint8_t* rows, std::size_t stride) {
    if (pdf_render_child_hook != nullptr) pdf_render_child_hook();
    listen_to_poppler();
    const std::unique_ptr<poppler::document> doc(poppler::document::load_from_file(path));
    if (!doc || doc->is_locked()) return {false, "cannot open the PDF again to render the page" + poppler_message()};
    const std::unique_ptr<poppler::page> page(doc->create_page(index));
    if (!page) return {false, "cannot read the page" + poppler_message()};
    poppler::page_renderer renderer;
    renderer.set_render_hint(poppler::page_renderer::antialiasing, true);
    renderer.set_render_hint(poppler::page_renderer::text_antialiasing, true);
    renderer.set_image_format(poppler::image::format_rgb24);
    const poppler::image img = renderer.render_page(page.get(), dpi, dpi, 0, 0, w, h);
    if (!img.is_valid() || img.format() != poppler::image::format_rgb24 || img.width() != w || img.height() != h ||
        img.bytes_per_row() < w * 3) {
        return {false, "the page could not be rendered" + poppler_message()};
    }
    for (int y = 0; y < h; ++y) std::memcpy(rows + std::size_t(y) * stride, img.const_data() + std::size_t(y) * img.bytes_per_row(), std::size_t(w) * 3);
    return {true, ""};
}

/// How long the loader and each page's renderer may take, in processor seconds, from what Poppler
/// needed for legitimate PDFs here (docs/decode_limits.md has the figures).
///
/// A page: a quarter second (the fork, opening the file again, fonts), plus the pixels at
/// 20 Mpx/s, plus what is left of the document's share. The share is, for each MiB of file, 0.6 s
/// of interpreting whatever the resolution (a matplotlib scatter of 36,000 coloured markers needs
/// 1 s of it at 8 dpi) and 5 s of drawing at A4 150 dpi, growing as the pixels^0.75 (strokes grow
/// with the page's side, fills with its area: 4x the pixels took 1.8x to 2.8x as long). Only the
/// file's size bounds what a real drawing holds, and what all its pages draw, so the share is the
/// document's, not each page's: whatever the loader used and a page used beyond its own quarter
/// second and pixels is gone for the next page.
///
/// A file of up to 1 MiB is held besides to issue 24's goal, read or refused within about 1 s: its
/// loader and all its pages together get kSmallFileSeconds at the default resolution (times the
/// pixels' ratio at a finer one, where the caller asked for more work) beyond what each page is
/// given for itself, kSmallPageSeconds and its pixels at 20 Mpx/s. The hold is the document's, as
/// the share is: held per page, a crafted file of many pages that each draw for 0.8 s cost the
/// caller 0.8 s a page when it read them all, as the CLI does. A page's pixels are the caller's
/// asking, so they are given to every page and to any page size that check_decode_work lets a small
/// file have: without them the hold refused an A1 floor plan at 150 dpi (17 Mpx, 1.1-1.2 s), the
/// very drawings this library reads. It still refuses a few real plots that the share would have
/// drawn (a scatter of 36,000 markers, 1.0-1.5 s on A4); the refusal says how to allow them.
///
/// CCLABEL_PDF_RENDER_SECONDS overrides all of it: the seconds each child may take (0: no limit).
constexpr double kRenderBaseSeconds = 0.25;
constexpr double kRenderParseSecondsPerMiB = 0.6;
constexpr double kRenderDrawSecondsPerMiB = 5.0;
constexpr double kRenderDrawReferencePixels = 1241.0 * 1754.0;  // A4 at 150 dpi
constexpr double kRenderDrawExponent = 0.75;
constexpr double kRenderPixelsPerSecond = 20e6;
/// Issue 24's second less what a page costs on the clock beyond the renderer's processor time
/// (the fork, the loader, mapping and handing back the rows: 0.03 s for A4 at 150 dpi here).
constexpr double kSmallFileSeconds = 0.85;
/// What a page of a small file may use besides its pixels without touching the document's hold:
/// the fork, Poppler opening the file again, the page's fonts. A blank page took 3 ms here at
/// 8 dpi; pages of real reports and drawings (pdfTeX, reportlab, matplotlib) 7 to 25 ms.
constexpr double kSmallPageSeconds = 0.03;
/// The loader: opening a real file and finding its pages takes milliseconds (a 400-page report
/// 0.01 s); a quarter second, and a quarter second for each MiB, for the files whose object
/// structure is large.
constexpr double kLoadBaseSeconds = 0.25;
constexpr double kLoadSecondsPerMiB = 0.25;
/// What a child may map beyond what it inherits (and, a renderer, beyond the page's 7 bytes a
/// pixel): Poppler's own needs (fonts, parsed objects, an embedded image decoded whole). pdftoppm
/// needs 20 MB for a text page at 150 dpi; a scanned A4 page at 600 dpi, decoded whole, 105 MB.
constexpr std::uint64_t kChildMemoryMargin = std::uint64_t(2) << 30;
constexpr const char* kSecondsVariable = "CCLABEL_PDF_RENDER_SECONDS";
/// How to allow more, in every refusal for time.
const std::string kHowToAllowMore = std::string("set ") + kSecondsVariable + " to the seconds to allow, 0 for no limit";

double mib(double bytes) { return bytes / double(1 << 20); }

/// A small file's hold in its messages: two decimals (0.85 s at one decimal is "0.8").
std::string hold_text(double s) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f", s);
    return buf;
}

/// A page's own part of the budget: the fork and fonts, and its pixels.
double page_seconds(double pixels) { return kRenderBaseSeconds + pixels / kRenderPixelsPerSecond; }

/// CCLABEL_PDF_RENDER_SECONDS, or a negative number where it is not set.
double seconds_from_environment(const std::string& path) {
    const char* env = std::getenv(kSecondsVariable);
    if (env == nullptr || *env == '\0') return -1;
    char* end = nullptr;
    const double s = std::strtod(env, &end);
    if (end == env || *end != '\0' || !(s >= 0) || !std::isfinite(s)) {
        fail(path, std::string(kSecondsVariable) + "=" + env + " is not a number of seconds (0 for no limit)");
    }
    return s;
}

double load_seconds(const std::string& path, double file_bytes) {
    const double env = seconds_from_environment(path);
    return env >= 0 ? env : kLoadBaseSeconds + kLoadSecondsPerMiB * mib(file_bytes);
}

/// What a page of a small file may use before it draws on the document's hold.
double small_page_seconds(double pixels) { return kSmallPageSeconds + pixels / kRenderPixelsPerSecond; }

/// The hold on a small file's loader and pages together, for pages of @p pixels (@p default_pixels
/// at the default resolution).
double small_file_seconds(double pixels, double default_pixels) { return kSmallFileSeconds * std::max(1.0, pixels / default_pixels); }

/// The budget of a page of @p pixels (@p default_pixels at the default resolution) from a file of
/// @p file_bytes, whose loader and earlier pages have used @p spent seconds of the file's share and,
/// a small file's, @p held seconds of its hold.
double render_seconds(const std::string& path, double pixels, double default_pixels, double file_bytes, double spent, double held) {
    const double env = seconds_from_environment(path);
    if (env >= 0) return env;
    const double draw = kRenderDrawSecondsPerMiB * std::pow(pixels / kRenderDrawReferencePixels, kRenderDrawExponent);
    double s = page_seconds(pixels) + std::max(0.0, mib(file_bytes) * (kRenderParseSecondsPerMiB + draw) - spent);
    if (file_bytes <= double(kSmallFileBytes))
        s = std::min(s, small_page_seconds(pixels) + std::max(0.0, small_file_seconds(pixels, default_pixels) - held));
    return std::max(s, 0.01);
}

#if CCLABEL_PDF_CHILD
/// The rows of a rendered page, in a shared anonymous mapping that the child writes and the page
/// then owns (the deleter unmaps it).
std::shared_ptr<std::uint8_t> map_shared_rows(const std::string& path, std::size_t bytes) {
    void* at = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (at == MAP_FAILED) fail(path, "cannot map " + std::to_string(bytes) + " bytes for the page: " + std::strerror(errno));
    return std::shared_ptr<std::uint8_t>(static_cast<std::uint8_t*>(at), [bytes](std::uint8_t* p) { ::munmap(p, bytes); });
}

/// Throws the Error for a child that did not hand back a result: @p who ("the PDF renderer"),
/// @p doing ("rendering"), @p limit (what the limit was for), @p not_done (what did not happen).
[[noreturn]] void fail_child(const std::string& path, const ChildOutcome& out, const ChildLimits& limits, const std::string& who,
                             const std::string& doing, const std::string& limit, const std::string& not_done) {
    using End = ChildOutcome::End;
    const std::string why = " (" + limit + "; " + kHowToAllowMore + ")";
    if (out.end == End::late_processor) fail(path, "refused: " + doing + " took more than " + seconds_text(limits.seconds) + " s of processor time" + why);
    if (out.end == End::late_wall && !out.processor_clock) fail(path, "refused: " + doing + " took longer than " + seconds_text(limits.seconds) + " s" + why);
    // How much it ran tells a starved child (a busy machine) from a stuck one.
    if (out.end == End::late_wall) {
        fail(path, "refused: " + doing + " did not finish in " + one_decimal(limits.seconds * kChildWallFactor) + " s, having used " +
                       one_decimal(out.cpu_at_deadline) + " s of its " + seconds_text(limits.seconds) + " s of processor time" + why);
    }
    fail(path, who + " " + child_death(out, limits) + "; " + not_done);
}
#else
/// Without fork, Poppler runs in this process: one call at a time, since its process-wide state
/// (GlobalParams, fonts, the message function) is shared.
std::mutex g_poppler_calls;
#endif

class PdfPages : public PageReader::Source {
public:
    PdfPages(const std::string& path, double dpi) : path_(path), dpi_(dpi) {
        std::error_code ec;
        file_size_ = std::filesystem::file_size(path, ec);
        if (ec) fail(path, "cannot read the file size: " + ec.message());
        ChildWork opened;
#if CCLABEL_PDF_CHILD
        const ChildLimits limits{load_seconds(path, double(file_size_)), kChildMemoryMargin};
        const ChildOutcome out = run_in_child(path, limits, "opening the PDF", [&] { return load_page_boxes(path); });
        if (out.end != ChildOutcome::End::reported) {
            fail_child(path, out, limits, "the PDF loader", "opening the PDF", "the limit for a file of " + std::to_string(file_size_) + " bytes",
                       "the file was not opened");
        }
        spent_ = out.cpu_seconds;
        held_ = out.cpu_seconds;
        opened = {out.ok, out.result};
#else
        {
            const std::lock_guard<std::mutex> calls(g_poppler_calls);
            opened = load_page_boxes(path);
        }
#endif
        if (!opened.ok) fail(path, opened.result);
        if (opened.result.empty() || opened.result.size() % sizeof(PageBox) != 0) fail(path, "the PDF loader's answer is garbled");
        boxes_.resize(opened.result.size() / sizeof(PageBox));
        std::memcpy(boxes_.data(), opened.result.data(), opened.result.size());
    }

    int pages() const override { return int(boxes_.size()); }

    Page read(int index) override {
        const PageBox box = boxes_[std::size_t(index)];
        if (!(box.width >= 0 && box.height >= 0)) fail(path_, "cannot read the page");
        // The page box at the resolution, rounded up as pdftoppm does; refuse before rendering
        // what could not be labelled (or allocated).
        const double w = std::ceil(box.width * dpi_ / 72.0);
        const double h = std::ceil(box.height * dpi_ / 72.0);
        if (!(w * h <= double(kMaxPixels)) || w >= 1 << 29 || h >= 1 << 29) {
            fail(path_, "the page is " + px_text(w, h) + " pixels at " + std::to_string(std::lround(dpi_)) +
                            " dpi, over the limit of 2^32 - 1 pixels");
        }
        // How big a page may be is judged at the default resolution, where it costs the same for
        // every caller: a page box that a small file cannot plausibly fill (a 500-byte PDF of a
        // 3.5 m square page took seconds to render) is refused as check_decode_work refuses a
        // bomb; at a finer resolution the work grows as the caller asked.
        const double w0 = std::ceil(box.width * PageOptions{}.dpi / 72.0);
        const double h0 = std::ceil(box.height * PageOptions{}.dpi / 72.0);
        if (w0 > 0 && h0 > 0) {
            check_decode_work(path_, std::uint64_t(w0) * 3, std::uint64_t(h0), file_size_,
                              "the page is " + px_text(w0, h0) + " pixels at " + std::to_string(std::lround(PageOptions{}.dpi)) + " dpi");
        }
        // Poppler renders into its own 4-byte-a-pixel bitmap and copies that into the rgb24 image
        // (7 bytes a pixel); the rows are copied once more, into the page.
        check_memory(path_, std::uint64_t(w) * std::uint64_t(h) * 10,
                     "the page, " + px_text(w, h) + " pixels at " + std::to_string(std::lround(dpi_)) + " dpi,");
        if (w < 1 || h < 1) fail(path_, "the page could not be rendered (it is " + px_text(w, h) + " pixels)");
        Page p;
        p.index = index;
        p.count = pages();
        p.image.width = std::int64_t(w);
        p.image.height = std::int64_t(h);
        p.image.format = PixelFormat::RGB8;
        p.image.description = "pdf page rendered at " + std::to_string(std::lround(dpi_)) + " dpi";
        render(index, int(w), int(h), std::max(1.0, w0 * h0), p);
        return p;
    }

private:
    void render(int index, int w, int h, double default_pixels, Page& p) {
        const std::size_t stride = (std::size_t(w) * 3 + 3) & ~std::size_t(3);  // rgb24 rows, as Poppler pads them
        const std::size_t bytes = stride * std::size_t(h);
#if CCLABEL_PDF_CHILD
        const double pixels = double(w) * double(h);
        const double spent = spent_.load();
        const double held = held_.load();
        const ChildLimits limits{render_seconds(path_, pixels, default_pixels, double(file_size_), spent, held),
                                 std::uint64_t(pixels) * 7 + kChildMemoryMargin};
        std::shared_ptr<std::uint8_t> rows = map_shared_rows(path_, bytes);
        std::uint8_t* at = rows.get();
        const ChildOutcome out =
            run_in_child(path_, limits, "rendering the page", [&] { return render_page_rows(path_, index, dpi_, w, h, at, stride); });
        spent_.fetch_add(std::max(0.0, out.cpu_seconds - page_seconds(pixels)));
        held_.fetch_add(std::max(0.0, out.cpu_seconds - small_page_seconds(pixels)));
        if (out.end != ChildOutcome::End::reported) {
            std::string limit = "the limit for a page of " + one_decimal(pixels / 1e6) + " Mpx at " + std::to_string(std::lround(dpi_)) +
                                " dpi from a file of " + std::to_string(file_size_) + " bytes";
            // What the opening and earlier pages used of what bound this page, where it shows: a later
            // page of a small file is held to its own allowance once the document's hold is gone, and
            // a limit of a few hundredths would read as a mistake unsaid.
            // Under CCLABEL_PDF_RENDER_SECONDS neither applies, and nothing is said of them.
            const double hold = small_file_seconds(pixels, default_pixels);
            const bool by_budget = seconds_from_environment(path_) < 0;
            const bool held_here = by_budget && file_size_ <= kSmallFileBytes &&
                                   limits.seconds >= small_page_seconds(pixels) + std::max(0.0, hold - held) - 1e-9;
            if (held_here && held >= hold - 0.005) {
                limit += ", whose opening and earlier pages used up the " + hold_text(hold) + " s that a file of up to 1 MiB has beyond each page's own " +
                         seconds_text(small_page_seconds(pixels)) + " s";
            } else if (held_here && held >= 0.05) {
                limit += ", whose opening and earlier pages used " + one_decimal(held) + " s of the " + hold_text(hold) +
                         " s that a file of up to 1 MiB has beyond each page's own " + seconds_text(small_page_seconds(pixels)) + " s";
            } else if (by_budget && !held_here && spent >= 0.05) {
                // (A loader under a sanitizer used hundredths, and "used 0.0 s" told the reader nothing.)
                limit += ", whose opening and earlier pages used " + one_decimal(spent) + " s";
            }
            fail_child(path_, out, limits, "the PDF renderer", "rendering", limit, "the page was not rendered");
        }
        if (!out.ok) fail(path_, out.result);
#else
        (void)default_pixels;
        std::shared_ptr<std::uint8_t> rows(new std::uint8_t[bytes], std::default_delete<std::uint8_t[]>());
        ChildWork done;
        {
            const std::lock_guard<std::mutex> calls(g_poppler_calls);
            done = render_page_rows(path_, index, dpi_, w, h, rows.get(), stride);
        }
        if (!done.ok) fail(path_, done.result);
#endif
        p.rendered_view = make_view(rows.get(), w, h, PixelFormat::RGB8, std::int64_t(stride));
        p.rendered = std::move(rows);
    }

    std::string path_;
    double dpi_;
    std::uint64_t file_size_ = 0;
    std::vector<PageBox> boxes_;
#if CCLABEL_PDF_CHILD
    /// What the loader and the pages rendered so far used of the file's share of the budget, and of
    /// a small file's hold (render_seconds). Pages read at once from several threads each see them
    /// as they stood when the page began.
    std::atomic<double> spent_{0.0};
    std::atomic<double> held_{0.0};
#endif
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
