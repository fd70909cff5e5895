// Copyright neardup authors. Licensed under Apache-2.0.
//
// RenderSvg and HtmlReport (apps/analysis/analysis.h): hand-written SVG in
// a fixed 760x440 coordinate system scaled by viewBox.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "analysis/analysis.h"

namespace neardup {
namespace {

constexpr double kWidth = 760, kHeight = 440;
constexpr double kLeft = 78, kRight = 24, kTop = 48;
const char* const kPalette[] = {"#2b6cb0", "#d9480f", "#2f9e44", "#ae3ec9",
                                "#e8590c", "#1098ad", "#c2255c", "#5c940d"};

std::string Num(double v) {  // data values in attributes: round-trippable enough
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}
std::string Px(double v) {  // pixel coordinates
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

// A short label for a tick value: integers without decimals, large and tiny
// magnitudes in e-notation.
std::string TickLabel(double v) {
  if (v == 0) return "0";
  const double a = std::fabs(v);
  char buf[40];
  if (a >= 1e6 || a < 1e-3) {
    std::snprintf(buf, sizeof buf, "%.3g", v);
  } else if (std::fabs(v - std::round(v)) < 1e-9 * std::max(1.0, a)) {
    std::snprintf(buf, sizeof buf, "%.0f", v);
  } else {
    std::snprintf(buf, sizeof buf, "%.4g", v);
  }
  return buf;
}

// "Nice" step (1, 2 or 5 times a power of ten) for about `target` ticks.
double NiceStep(double span, int target) {
  if (!(span > 0)) return 1;
  const double raw = span / target;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  const double f = raw / mag;
  const double nice = f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10;
  return nice * mag;
}

// One axis: maps data values to pixels, and lists the ticks.
struct Axis {
  bool log = false;
  double lo = 0, hi = 1;  // in data units (log: exponents of 10)
  double pix_lo = 0, pix_hi = 1;
  std::vector<double> ticks;  // data values
  std::vector<double> minor;  // log axes: minor grid lines, unlabelled

  void Fit(double min_v, double max_v, bool is_log, bool include_zero) {
    log = is_log;
    if (log) {
      // A little room around the data (points are not drawn on the frame),
      // at least one decade shown, ticks at the powers of ten inside.
      const double a = std::log10(min_v), b = std::log10(max_v);
      const double pad = 0.06 * std::max(1.0, b - a);
      lo = a - pad;
      hi = b + pad;
      if (hi - lo < 1) {
        const double mid = (a + b) / 2;
        lo = mid - 0.5;
        hi = mid + 0.5;
      }
      const int first = static_cast<int>(std::ceil(lo)), last = static_cast<int>(std::floor(hi));
      const int every = std::max(1, (last - first + 8) / 8);
      for (int e = first; e <= last; e += every) ticks.push_back(std::pow(10.0, e));
      if (every == 1 && last - first <= 4) {  // minor grid: 2..9 x 10^e
        for (int e = first - 1; e <= last; ++e) {
          for (int m = 2; m <= 9; ++m) {
            const double v = m * std::pow(10.0, e);
            if (std::log10(v) > lo && std::log10(v) < hi) minor.push_back(v);
          }
        }
      }
      // Under about two decades, fewer than 3 powers of ten are too few
      // labels: label 2 and 5 (or every minor value when under 1.2 decades).
      if (ticks.size() < 3) {
        const bool all = hi - lo < 1.2;
        std::vector<double> kept_minor;
        for (double v : minor) {
          const double mantissa = v / std::pow(10.0, std::floor(std::log10(v) + 1e-9));
          const bool label = all || std::fabs(mantissa - 2) < 1e-6 || std::fabs(mantissa - 5) < 1e-6;
          (label ? ticks : kept_minor).push_back(v);
        }
        minor = std::move(kept_minor);
        std::sort(ticks.begin(), ticks.end());
      }
      return;
    }
    if (include_zero) {
      min_v = std::min(min_v, 0.0);
      max_v = std::max(max_v, 0.0);
    }
    if (max_v <= min_v) {
      min_v -= 1;
      max_v += 1;
    }
    const double step = NiceStep(max_v - min_v, 6);
    lo = std::floor(min_v / step) * step;
    hi = std::ceil(max_v / step) * step;
    for (double t = lo; t <= hi + step * 1e-6; t += step) ticks.push_back(std::fabs(t) < step * 1e-9 ? 0 : t);
  }
  double Map(double v) const {
    const double u = log ? std::log10(v) : v;
    return pix_lo + (u - lo) / (hi - lo) * (pix_hi - pix_lo);
  }
};

void AppendText(std::string* out, double x, double y, const std::string& anchor,
                const std::string& cls, const std::string& text,
                const std::string& extra = "") {
  *out += "<text x=\"" + Px(x) + "\" y=\"" + Px(y) + "\" text-anchor=\"" + anchor +
          "\" class=\"" + cls + "\"" + extra + ">" + HtmlEscape(text) + "</text>";
}

bool IsNumberCell(const std::string& s) {
  if (s.empty()) return false;
  size_t digits = 0;
  for (char c : s) {
    if (c >= '0' && c <= '9') {
      ++digits;
    } else if (c != '.' && c != ',' && c != '-' && c != '+' && c != '%' && c != 'e') {
      return false;
    }
  }
  return digits > 0;
}

}  // namespace

std::string HtmlEscape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out.push_back(c);
    }
  }
  return out;
}

std::string RenderSvg(const Plot& plot) {
  const bool bars = plot.kind == Plot::Kind::kBars;
  const bool log_x = plot.log_x && !bars;
  const bool log_y = plot.log_y;
  // Points that can be drawn, per series; the rest are counted.
  uint64_t skipped = 0;
  std::vector<std::vector<std::pair<double, double>>> drawable(plot.series.size());
  double min_x = std::numeric_limits<double>::infinity(), max_x = -min_x;
  double min_y = min_x, max_y = -min_x;
  for (size_t s = 0; s < plot.series.size(); ++s) {
    for (const auto& [x, y] : plot.series[s].points) {
      if (!std::isfinite(x) || !std::isfinite(y) || (log_x && x <= 0) || (log_y && y <= 0)) {
        ++skipped;
        continue;
      }
      drawable[s].push_back({x, y});
      min_x = std::min(min_x, x);
      max_x = std::max(max_x, x);
      min_y = std::min(min_y, y);
      max_y = std::max(max_y, y);
    }
  }
  const bool empty = !(min_x <= max_x);
  if (empty) {
    min_x = log_x ? 1 : 0;
    max_x = log_x ? 10 : 1;
    min_y = log_y ? 1 : 0;
    max_y = log_y ? 10 : 1;
  }

  // Bar labels are rotated when many or long, which needs a deeper margin.
  size_t longest_category = 0;
  for (const auto& c : plot.x_categories) longest_category = std::max(longest_category, c.size());
  const bool rotate_labels = bars && (plot.x_categories.size() > 8 || longest_category * plot.x_categories.size() > 70);
  const double kBottom = rotate_labels ? 62 + 5.5 * static_cast<double>(std::min<size_t>(longest_category, 18)) : 62;
  Axis xa, ya;
  xa.pix_lo = kLeft;
  xa.pix_hi = kWidth - kRight;
  ya.pix_lo = kHeight - kBottom;
  ya.pix_hi = kTop;
  const size_t categories =
      bars ? std::max<size_t>(plot.x_categories.size(),
                              empty ? 1 : static_cast<size_t>(std::max(0.0, max_x)) + 1)
           : 0;
  if (bars) {
    xa.lo = -0.5;
    xa.hi = static_cast<double>(categories) - 0.5;
  } else {
    xa.Fit(min_x, max_x, log_x, false);
    if (!log_x && xa.lo == min_x && xa.hi == max_x && plot.kind == Plot::Kind::kScatter) {
      // Leave a little room so points on the edge are not cut.
    }
  }
  ya.Fit(min_y, max_y, log_y, bars || !log_y);

  std::string o;
  o += "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"plot\" viewBox=\"0 0 " + Px(kWidth) +
       " " + Px(kHeight) + "\" role=\"img\" aria-label=\"" + HtmlEscape(plot.title) + "\">";
  o += "<rect x=\"0\" y=\"0\" width=\"" + Px(kWidth) + "\" height=\"" + Px(kHeight) +
       "\" fill=\"#ffffff\"/>";
  AppendText(&o, kWidth / 2, 26, "middle", "title", plot.title);
  // Plot area background, grid and ticks.
  o += "<rect x=\"" + Px(kLeft) + "\" y=\"" + Px(kTop) + "\" width=\"" +
       Px(kWidth - kLeft - kRight) + "\" height=\"" + Px(kHeight - kTop - kBottom) +
       "\" fill=\"#fbfcfe\" stroke=\"#c9d1dc\"/>";
  o += "<g class=\"grid\">";
  for (double t : ya.minor) {
    o += "<line x1=\"" + Px(kLeft) + "\" y1=\"" + Px(ya.Map(t)) + "\" x2=\"" + Px(kWidth - kRight) + "\" y2=\"" +
         Px(ya.Map(t)) + "\" stroke=\"#f0f3f7\"/>";
  }
  for (double t : xa.minor) {
    o += "<line x1=\"" + Px(xa.Map(t)) + "\" y1=\"" + Px(kTop) + "\" x2=\"" + Px(xa.Map(t)) + "\" y2=\"" +
         Px(kHeight - kBottom) + "\" stroke=\"#f0f3f7\"/>";
  }
  for (double t : ya.ticks) {
    const double y = ya.Map(t);
    o += "<line x1=\"" + Px(kLeft) + "\" y1=\"" + Px(y) + "\" x2=\"" + Px(kWidth - kRight) +
         "\" y2=\"" + Px(y) + "\" stroke=\"#e3e8ef\"/>";
    AppendText(&o, kLeft - 8, y + 4, "end", "tick", TickLabel(t));
  }
  if (!bars) {
    for (double t : xa.ticks) {
      const double x = xa.Map(t);
      o += "<line x1=\"" + Px(x) + "\" y1=\"" + Px(kTop) + "\" x2=\"" + Px(x) + "\" y2=\"" +
           Px(kHeight - kBottom) + "\" stroke=\"#e3e8ef\"/>";
      AppendText(&o, x, kHeight - kBottom + 18, "middle", "tick", TickLabel(t));
    }
  } else {
    // Label every category when they fit, else about 20 of them.
    const size_t every = std::max<size_t>(1, (categories + 19) / 20);
    for (size_t c = 0; c < categories; c += every) {
      const std::string label =
          c < plot.x_categories.size() ? plot.x_categories[c] : std::to_string(c);
      const double x = xa.Map(static_cast<double>(c)), y = kHeight - kBottom + 16;
      if (rotate_labels) {
        AppendText(&o, x, y, "end", "tick", label,
                   " transform=\"rotate(-40 " + Px(x) + " " + Px(y) + ")\"");
      } else {
        AppendText(&o, x, y + 2, "middle", "tick", label);
      }
    }
  }
  o += "</g>";
  // Axes and their labels.
  o += "<line x1=\"" + Px(kLeft) + "\" y1=\"" + Px(kHeight - kBottom) + "\" x2=\"" +
       Px(kWidth - kRight) + "\" y2=\"" + Px(kHeight - kBottom) + "\" stroke=\"#4a5568\"/>";
  o += "<line x1=\"" + Px(kLeft) + "\" y1=\"" + Px(kTop) + "\" x2=\"" + Px(kLeft) + "\" y2=\"" +
       Px(kHeight - kBottom) + "\" stroke=\"#4a5568\"/>";
  AppendText(&o, (kLeft + kWidth - kRight) / 2, kHeight - 16, "middle", "axis-label",
             plot.x_label + (log_x ? " (log scale)" : ""));
  AppendText(&o, 18, (kTop + kHeight - kBottom) / 2, "middle", "axis-label",
             plot.y_label + (log_y ? " (log scale)" : ""),
             " transform=\"rotate(-90 18 " + Px((kTop + kHeight - kBottom) / 2) + ")\"");

  // Data.
  const size_t n_series = std::max<size_t>(1, plot.series.size());
  for (size_t s = 0; s < plot.series.size(); ++s) {
    const std::string colour = kPalette[s % (sizeof kPalette / sizeof kPalette[0])];
    o += "<g class=\"series\" data-name=\"" + HtmlEscape(plot.series[s].name) + "\" fill=\"" +
         colour + "\">";
    if (plot.kind == Plot::Kind::kLine && drawable[s].size() > 1) {
      o += "<polyline fill=\"none\" stroke=\"" + colour + "\" stroke-width=\"2\" points=\"";
      for (const auto& [x, y] : drawable[s]) o += Px(xa.Map(x)) + "," + Px(ya.Map(y)) + " ";
      o += "\"/>";
    }
    for (const auto& [x, y] : drawable[s]) {
      const std::string tip = "<title>" + HtmlEscape(plot.series[s].name) + ": " + TickLabel(x) +
                              ", " + TickLabel(y) + "</title>";
      const std::string data = " data-x=\"" + Num(x) + "\" data-y=\"" + Num(y) + "\"";
      if (bars) {
        const double band = (xa.pix_hi - xa.pix_lo) / static_cast<double>(categories);
        const double bar_w = band * 0.8 / static_cast<double>(n_series);
        const double left = xa.Map(x) - band * 0.4 + bar_w * static_cast<double>(s);
        const double y0 = ya.Map(log_y ? std::pow(10.0, ya.lo) : 0.0);
        const double y1 = ya.Map(y);
        o += "<rect class=\"point\"" + data + " x=\"" + Px(left) + "\" y=\"" +
             Px(std::min(y0, y1)) + "\" width=\"" + Px(std::max(bar_w - 1, 1.0)) +
             "\" height=\"" + Px(std::max(std::fabs(y0 - y1), 0.5)) + "\">" + tip + "</rect>";
      } else {
        o += "<circle class=\"point\"" + data + " cx=\"" + Px(xa.Map(x)) + "\" cy=\"" +
             Px(ya.Map(y)) + "\" r=\"" + (plot.kind == Plot::Kind::kLine ? "3" : "4") +
             "\" fill-opacity=\"0.8\">" + tip + "</circle>";
      }
    }
    o += "</g>";
  }
  // Fitted power law on log-log axes.
  if (plot.fit_line && log_x && log_y && !empty) {
    const auto [slope, intercept] = *plot.fit_line;
    const double x0 = std::pow(10.0, xa.lo), x1 = std::pow(10.0, xa.hi);
    std::string pts;
    constexpr int kSteps = 40;
    for (int i = 0; i <= kSteps; ++i) {
      const double x = x0 * std::pow(x1 / x0, static_cast<double>(i) / kSteps);
      const double y = std::exp(intercept) * std::pow(x, slope);
      const double ly = std::log10(y);
      if (!std::isfinite(ly) || ly < ya.lo || ly > ya.hi) continue;
      pts += Px(xa.Map(x)) + "," + Px(ya.Map(y)) + " ";
    }
    if (!pts.empty()) {
      o += "<polyline class=\"fit\" fill=\"none\" stroke=\"#1a202c\" stroke-width=\"1.5\" "
           "stroke-dasharray=\"6 4\" points=\"" + pts + "\"/>";
    }
  }
  // Legend (top right, inside the plot area).
  {
    std::vector<std::pair<std::string, std::string>> entries;
    for (size_t s = 0; s < plot.series.size(); ++s) {
      entries.push_back({plot.series[s].name, kPalette[s % (sizeof kPalette / sizeof kPalette[0])]});
    }
    if (plot.fit_line && log_x && log_y && !empty) {
      char buf[80];
      std::snprintf(buf, sizeof buf, "fit: slope %.3g", plot.fit_line->first);
      entries.push_back({buf, ""});
    }
    if (!entries.empty()) {
      size_t longest = 0;
      for (const auto& e : entries) longest = std::max(longest, e.first.size());
      const double w = 34 + 6.6 * static_cast<double>(std::min<size_t>(longest, 48));
      const double h = 8 + 18 * static_cast<double>(entries.size());
      const double x = kWidth - kRight - w - 8, y = kTop + 8;
      o += "<g class=\"legend\"><rect x=\"" + Px(x) + "\" y=\"" + Px(y) + "\" width=\"" + Px(w) +
           "\" height=\"" + Px(h) +
           "\" fill=\"#ffffff\" fill-opacity=\"0.9\" stroke=\"#c9d1dc\" rx=\"4\"/>";
      for (size_t i = 0; i < entries.size(); ++i) {
        const double ey = y + 16 + 18 * static_cast<double>(i);
        if (entries[i].second.empty()) {
          o += "<line x1=\"" + Px(x + 8) + "\" y1=\"" + Px(ey - 4) + "\" x2=\"" + Px(x + 24) +
               "\" y2=\"" + Px(ey - 4) + "\" stroke=\"#1a202c\" stroke-dasharray=\"4 3\"/>";
        } else {
          o += "<rect x=\"" + Px(x + 10) + "\" y=\"" + Px(ey - 9) +
               "\" width=\"10\" height=\"10\" rx=\"2\" fill=\"" + entries[i].second + "\"/>";
        }
        AppendText(&o, x + 30, ey, "start", "legend-text", entries[i].first.substr(0, 48));
      }
      o += "</g>";
    }
  }
  if (empty) {
    AppendText(&o, (kLeft + kWidth - kRight) / 2, (kTop + kHeight - kBottom) / 2, "middle", "note",
               "no data");
  }
  if (skipped > 0) {
    AppendText(&o, kWidth - kRight, kHeight - 4, "end", "note",
               std::to_string(skipped) + " non-positive value(s) not shown on the log scale");
  }
  o += "</svg>";
  return o;
}

HtmlReport::HtmlReport(std::string title) : title_(std::move(title)) {}

void HtmlReport::AddSection(std::string heading, std::string intro_text) {
  body_ += "<h2>" + HtmlEscape(heading) + "</h2>\n";
  if (!intro_text.empty()) body_ += "<p>" + HtmlEscape(intro_text) + "</p>\n";
}

void HtmlReport::AddParagraph(std::string text) { body_ += "<p>" + HtmlEscape(text) + "</p>\n"; }

void HtmlReport::AddTable(std::vector<std::string> header,
                          std::vector<std::vector<std::string>> rows, std::string caption) {
  body_ += "<div class=\"table-wrap\"><table>";
  if (!caption.empty()) body_ += "<caption>" + HtmlEscape(caption) + "</caption>";
  body_ += "<thead><tr>";
  for (const auto& h : header) body_ += "<th>" + HtmlEscape(h) + "</th>";
  body_ += "</tr></thead><tbody>";
  for (const auto& row : rows) {
    body_ += "<tr>";
    const size_t n = std::max(row.size(), header.size());
    for (size_t i = 0; i < n; ++i) {
      const std::string cell = i < row.size() ? row[i] : "";
      // Long cells (URLs) may break anywhere; short ones keep their words.
      body_ += IsNumberCell(cell) ? "<td class=\"num\">" : cell.size() > 40 ? "<td class=\"long\">" : "<td>";
      body_ += HtmlEscape(cell) + "</td>";
    }
    body_ += "</tr>";
  }
  if (rows.empty()) {
    body_ += "<tr><td class=\"empty\" colspan=\"" + std::to_string(std::max<size_t>(1, header.size())) +
             "\">(none)</td></tr>";
  }
  body_ += "</tbody></table></div>\n";
}

void HtmlReport::AddPlot(const Plot& plot, std::string caption) {
  body_ += "<figure>" + RenderSvg(plot);
  if (!caption.empty()) body_ += "<figcaption>" + HtmlEscape(caption) + "</figcaption>";
  body_ += "</figure>\n";
}

void HtmlReport::AddKeyValues(std::vector<std::pair<std::string, std::string>> rows) {
  body_ += "<dl class=\"kv\">";
  for (const auto& [k, v] : rows) body_ += "<dt>" + HtmlEscape(k) + "</dt><dd>" + HtmlEscape(v) + "</dd>";
  body_ += "</dl>\n";
}

std::string HtmlReport::Render() const {
  std::string o;
  o += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
       "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>";
  o += HtmlEscape(title_);
  o += "</title>\n<style>\n"
       "body{font-family:system-ui,-apple-system,\"Segoe UI\",Roboto,\"DejaVu Sans\",sans-serif;"
       "margin:0;background:#f4f6f9;color:#1a202c;line-height:1.45}\n"
       "main{max-width:980px;margin:0 auto;padding:24px 28px 48px;background:#fff;"
       "box-shadow:0 0 12px rgba(0,0,0,.06);min-height:100vh}\n"
       "h1{font-size:1.7em;margin:.2em 0 .6em;border-bottom:3px solid #2b6cb0;padding-bottom:.2em}\n"
       "h2{font-size:1.25em;margin:1.8em 0 .4em;color:#2a4365}\n"
       "p{margin:.4em 0 .8em;color:#2d3748}\n"
       "figure{margin:1em 0 1.4em}\n"
       "svg.plot{width:100%;height:auto;max-width:900px;display:block;border:1px solid #e2e8f0;"
       "border-radius:6px}\n"
       "svg .title{font-size:16px;font-weight:600;fill:#1a202c}\n"
       "svg .tick{font-size:12px;fill:#4a5568}\n"
       "svg .axis-label{font-size:13px;fill:#2d3748}\n"
       "svg .legend-text{font-size:12px;fill:#2d3748}\n"
       "svg .note{font-size:12px;fill:#718096;font-style:italic}\n"
       "figcaption{font-size:.9em;color:#4a5568;margin-top:.3em}\n"
       ".table-wrap{overflow-x:auto}\n"
       "table{border-collapse:collapse;margin:.6em 0 1.2em;font-size:.92em;min-width:40%}\n"
       "caption{text-align:left;color:#4a5568;padding:.2em 0;font-size:.95em}\n"
       "th,td{border-bottom:1px solid #e2e8f0;padding:.3em .7em;text-align:left;"
       "vertical-align:top}\n"
       "th{background:#edf2f7;font-weight:600}\n"
       "td.num{text-align:right;font-variant-numeric:tabular-nums}\n"
       "td.empty{color:#a0aec0;font-style:italic}\n"
       "tbody tr:nth-child(even){background:#f8fafc}\n"
       "td.long{word-break:break-all;min-width:16em}\n"
       "dl.kv{display:grid;grid-template-columns:max-content auto;gap:.25em 1.2em;"
       "background:#f7fafc;border:1px solid #e2e8f0;border-radius:6px;padding:.8em 1em}\n"
       "dl.kv dt{font-weight:600;color:#2a4365}\n"
       "dl.kv dd{margin:0;font-variant-numeric:tabular-nums;word-break:break-all}\n"
       "</style>\n</head>\n<body>\n<main>\n<h1>";
  o += HtmlEscape(title_);
  o += "</h1>\n";
  o += body_;
  o += "</main>\n</body>\n</html>\n";
  return o;
}

}  // namespace neardup
