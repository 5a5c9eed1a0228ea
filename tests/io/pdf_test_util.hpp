#pragma once
// Small PDFs written byte by byte for the PDF tests (not through Poppler): a correct
// cross-reference table over numbered objects, a two-page drawing, and a page that is cheap to
// store and very expensive to draw.
#include <cstdio>
#include <string>
#include <vector>

namespace cclabel::iotest {

/// A PDF of @p objects, numbered from 1 (object 1 is the catalog), with a correct xref table.
inline std::string pdf_file(const std::vector<std::string>& objects) {
    std::string out = "%PDF-1.4\n";
    std::vector<std::size_t> at;
    for (std::size_t i = 0; i < objects.size(); ++i) {
        at.push_back(out.size());
        out += std::to_string(i + 1) + " 0 obj\n" + objects[i] + "\nendobj\n";
    }
    const std::size_t xref = out.size();
    out += "xref\n0 " + std::to_string(objects.size() + 1) + "\n0000000000 65535 f \n";
    for (std::size_t a : at) {
        char line[32];
        std::snprintf(line, sizeof line, "%010zu 00000 n \n", a);
        out += line;
    }
    out += "trailer\n<< /Size " + std::to_string(objects.size() + 1) + " /Root 1 0 R >>\nstartxref\n" +
           std::to_string(xref) + "\n%%EOF\n";
    return out;
}

/// A stream object holding @p data.
inline std::string pdf_stream(const std::string& dict_entries, const std::string& data) {
    return "<< " + dict_entries + "/Length " + std::to_string(data.size()) + " >>\nstream\n" + data + "\nendstream";
}

/// A valid PDF of two pages (72 x 36 pt and 36 x 72 pt), each with one filled rectangle.
inline std::string two_page_pdf() {
    return pdf_file({"<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R 5 0 R] /Count 2 >>",
                     "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 72 36] /Contents 4 0 R >>",
                     pdf_stream("", "1 0 0 rg 9 9 18 9 re f"),
                     "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 36 72] /Contents 6 0 R >>",
                     pdf_stream("", "0 0 1 rg 0 0 18 36 re f")});
}

/// One page that uses most of what a drawing does, uncompressed so that a fuzzer's byte mutations
/// reach each part: text in a standard font, a 2 x 2 RGB image, a form drawn twice under a clip, a
/// dashed Bézier curve, a filled even-odd path and a gray fill.
inline std::string features_pdf() {
    const std::string image = std::string("\xff\x00\x00\x00\xff\x00\x00\x00\xff\xff\xff\x00", 12);
    return pdf_file({"<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
                     "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 144 108] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> "
                     "/XObject << /Im 6 0 R /Fm 7 0 R >> >> >>",
                     pdf_stream("", "q 0.5 g 0 0 144 108 re f Q\n"
                                    "BT /F1 12 Tf 1 0 0 rg 10 90 Td (cclabel 24) Tj ET\n"
                                    "q 40 0 0 30 10 50 cm /Im Do Q\n"
                                    "q 60 10 70 70 re W n /Fm Do 1 0 0 1 60 20 cm /Fm Do Q\n"
                                    "[3 2] 0 d 0 0 1 RG 2 w 10 10 m 40 60 80 -20 130 40 c S\n"
                                    "0 1 0 rg 70 5 m 110 45 l 70 45 l 110 5 l h f*\n"),
                     "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
                     pdf_stream("/Type /XObject /Subtype /Image /Width 2 /Height 2 /ColorSpace /DeviceRGB /BitsPerComponent 8 ", image),
                     pdf_stream("/Type /XObject /Subtype /Form /BBox [0 0 50 50] ", "0 0 1 rg 5 5 30 30 re f 1 0 1 RG 0 0 m 50 50 l S")});
}

/// One A4 page whose drawing is a form that draws the next form @p fanout times, @p levels deep,
/// the last one stroking @p strokes page-wide diagonals: fanout^levels x strokes operators from a
/// file of a few kilobytes, fine by every size check, that Poppler would draw for days.
/// With @p pages > 1, that many pages draw the same form; @p padding bytes of white space in the
/// first page's content make the file as large as a real drawing's (its share of the render
/// budget grows with the file).
inline std::string nested_forms_pdf(int levels = 8, int fanout = 10, int strokes = 100, int pages = 1,
                                    std::size_t padding = 0) {
    std::string kids;
    for (int i = 0; i < pages; ++i) kids += std::to_string(3 + 2 * i) + " 0 R ";
    const int form_at = 3 + 2 * pages;
    std::vector<std::string> objs = {"<< /Type /Catalog /Pages 2 0 R >>",
                                     "<< /Type /Pages /Kids [" + kids + "] /Count " + std::to_string(pages) + " >>"};
    for (int i = 0; i < pages; ++i) {
        objs.push_back("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /XObject << /F " +
                       std::to_string(form_at) + " 0 R >> >> /Contents " + std::to_string(4 + 2 * i) + " 0 R >>");
        objs.push_back(pdf_stream("", "/F Do" + std::string(i == 0 ? padding : 0, ' ')));
    }
    const std::string form = "/Type /XObject /Subtype /Form /BBox [0 0 595 842] ";
    for (int level = 0; level < levels; ++level) {
        std::string draw;
        for (int i = 0; i < fanout; ++i) draw += "/F Do\n";
        objs.push_back(pdf_stream(form + "/Resources << /XObject << /F " + std::to_string(objs.size() + 2) + " 0 R >> >> ", draw));
    }
    std::string draw;
    for (int i = 0; i < strokes; ++i) draw += std::to_string(i % 7) + " 0 m 595 842 l S\n";
    objs.push_back(pdf_stream(form, draw));
    return pdf_file(objs);
}

/// A report of @p pages A4 pages as a word processor writes one: on each, 60 lines of 9 pt text in
/// a standard font under a heading, a ruled table of 12 x 8 cells with a gray header, a chart of
/// bars and a line, and a heat map of 30 x 30 coloured cells (one form that every page draws).
/// Cheap to draw, a few hundredths of a second a page at 150 dpi, as real pages of text are.
inline std::string report_pdf(int pages) {
    std::string kids;
    for (int i = 0; i < pages; ++i) kids += std::to_string(5 + 2 * i) + " 0 R ";
    std::string map;
    for (int y = 0; y < 30; ++y) {
        for (int x = 0; x < 30; ++x) {
            map += "0." + std::to_string(x * y % 10) + " 0.5 0." + std::to_string((x + y) % 10) + " rg " + std::to_string(5 * x) + " " +
                   std::to_string(5 * y) + " 5 5 re f\n";
        }
    }
    std::vector<std::string> objs = {"<< /Type /Catalog /Pages 2 0 R >>",
                                     "<< /Type /Pages /Kids [" + kids + "] /Count " + std::to_string(pages) + " >>",
                                     "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
                                     pdf_stream("/Type /XObject /Subtype /Form /BBox [0 0 150 150] ", map)};
    const char* words[] = {"region", "label", "pixel", "sheet", "wall", "door", "plan", "scale", "colour", "room"};
    for (int i = 0; i < pages; ++i) {
        objs.push_back("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 3 0 R >> /XObject << /Hm 4 0 R >> >> "
                       "/Contents " + std::to_string(6 + 2 * i) + " 0 R >>");
        std::string c = "BT /F1 14 Tf 50 800 Td (Section " + std::to_string(i + 1) + ") Tj ET\nBT /F1 9 Tf 50 780 Td 11 TL\n";
        for (int line = 0; line < 60; ++line) {
            c += "(";
            for (int w = 0; w < 14; ++w) c += std::string(words[(i * 7 + line * 3 + w * w) % 10]) + " ";
            c += ") '\n";
        }
        c += "ET\n0.85 g 50 90 480 12 re f 0 G 0.5 w\n";
        for (int r = 0; r <= 12; ++r) c += "50 " + std::to_string(102 - 6 * r) + " m 530 " + std::to_string(102 - 6 * r) + " l S\n";
        for (int col = 0; col <= 8; ++col) c += std::to_string(50 + 60 * col) + " 30 m " + std::to_string(50 + 60 * col) + " 102 l S\n";
        for (int b = 0; b < 40; ++b)
            c += "0.2 0.4 0.8 rg " + std::to_string(380 + 4 * b) + " 130 3 " + std::to_string(20 + (i * 13 + b * 37) % 160) + " re f\n";
        c += "1 0 0 RG 380 130 m";
        for (int k = 1; k <= 200; ++k) c += " " + std::to_string(380 + k * 160 / 200) + " " + std::to_string(130 + (i * 31 + k * k * 7) % 170) + " l";
        c += " S 0 G\nq 1 0 0 1 380 320 cm /Hm Do Q\n";
        objs.push_back(pdf_stream("", c));
    }
    return pdf_file(objs);
}

}  // namespace cclabel::iotest
