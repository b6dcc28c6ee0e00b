#include "report/site_report.h"

#include "base/json_fields.h"
#include "base/text_format.h"
#include "report/figures.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

namespace wl {

namespace {

using nlohmann::json;

constexpr double kMaxFigure = std::numeric_limits<double>::max();

std::string signed_percent(double fraction) { return format("%+.1f %%", 100 * fraction); }

} // namespace

namespace {

// A run-time kernel's pass: a row per line of its file that ran an instruction.
std::string line_counts_text(const SiteCounts& c) {
  std::string text = format("\nmeasured per line (SASS metrics pass, %.0f ms; lines of %s)\n",
                            1e3 * c.seconds, c.file.c_str());
  text += format("%5s %14s %14s %14s %8s %14s %14s %8s\n", "line", "instructions", "global req",
                 "sectors", "sect/req", "shared req", "wavefronts", "wf/req");
  const auto per = [](double amount, double requests) {
    return requests > 0 ? format("%.2f", amount / requests) : std::string("-");
  };
  for (const LineMeasurement& l : measured_lines(c))
    text += format("%5d %14.0f %14.0f %14.0f %8s %14.0f %14.0f %8s\n", l.line, l.issued,
                   l.global_requests, l.sectors, per(l.access_sectors, l.global_requests).c_str(),
                   l.shared_requests, l.wavefronts,
                   per(l.access_wavefronts, l.shared_requests).c_str());
  text += "sectors and wavefronts: every instruction of the line, atomics included; requests and "
          "per request: its loads and stores\n";
  if (!c.unclaimed.empty())
    text += format("%zu memory instructions sit on lines of other files (headers)\n",
                   c.unclaimed.size());
  return text;
}

} // namespace

namespace {

// Each site's predicted requests and sectors or wavefronts beside the measured ones, with why
// they differ where they do.
std::string site_comparison_text(const RunResult& r) {
  const SiteCounts& c = *r.site_counts;
  std::string text =
      format("%-28s %5s %6s %14s %14s %8s %14s %14s %8s\n", "site", "line", "instr",
             "requests pred", "measured", "diff", "sectors/wf pred", "measured", "diff");
  for (std::size_t s = 0; s < c.sites.size() && s < r.prediction.sites.size(); ++s) {
    const SitePrediction& p = r.prediction.sites[s];
    const SiteMeasurement& m = c.sites[s];
    text += format("%-28s %5d %6zu %14lld %14.0f %8s %14lld %14.0f %8s\n", p.name.c_str(), m.line,
                   m.instructions.size(), static_cast<long long>(p.requests), m.executed,
                   signed_percent(m.request_difference).c_str(),
                   static_cast<long long>(traffic(p, p.space)), traffic(m, p.space),
                   signed_percent(m.difference).c_str());
    if (!m.measured_with.empty()) {
      std::string others;
      for (const std::size_t o : m.measured_with)
        others += (others.empty() ? "" : ", ") + r.prediction.sites[o].name;
      text += "    measured together with " + others + " (one line, one kind of access)\n";
    }
    if (m.flagged)
      text += "    differs: " + m.reason + "\n";
  }
  return text;
}

} // namespace

std::string site_counts_text(const RunResult& r) {
  if (!r.site_counts)
    return "";
  const SiteCounts& c = *r.site_counts;
  if (!c.available)
    return "\nmeasured per site: none (" + c.reason + ")\n";
  if (!c.line_issues.empty()) {
    std::string text = line_counts_text(c);
    if (!c.sites.empty()) // the sites the model found in the file's code
      text +=
          "\npredicted per line (from the PTX) beside measured (SASS)\n" + site_comparison_text(r);
    for (const std::string& line : site_sums_lines(r))
      text += line + "\n";
    return text;
  }
  std::string text = format("\nmeasured per site (SASS metrics pass, %.0f ms; lines of %s)\n",
                            1e3 * c.seconds, c.file.c_str()) +
                     site_comparison_text(r);
  if (!c.unclaimed.empty())
    text += format("%zu memory instructions sit on no site's line\n", c.unclaimed.size());
  for (const std::string& line : site_sums_lines(r))
    text += line + "\n";
  return text;
}

namespace {

// The launch counters' load and store figures, summed; none when either was not counted.
std::optional<double> launch_total(const RunResult& r, const std::string& load,
                                   const std::string& store) {
  const CounterValue* l = r.counters ? r.counters->find(load) : nullptr;
  const CounterValue* s = r.counters ? r.counters->find(store) : nullptr;
  if (!l || !s)
    return std::nullopt;
  return l->value + s->value;
}

// "Shared wavefronts summed over the per-site pass: 3,489,660,928; the launch counters hold
// 17,554,902 more (+0.5 %): ...": the sum, and the launch counters' difference with what it means.
std::string sum_line(const char* what, double instructions, double launch, bool shared) {
  const std::string line =
      std::string(what) + " summed over the per-site pass: " + whole_number(instructions);
  const double difference = launch - instructions;
  if (std::fabs(difference) <= 0.001 * std::max(launch, 1.0))
    return line + ", equal to the launch counters";
  const std::string counters = "; the launch counters hold " + whole_number(std::fabs(difference)) +
                               (difference > 0 ? " more (" : " fewer (") +
                               signed_percent(difference / std::max(instructions, 1.0)) + ")";
  if (shared && difference > 0)
    return line + counters +
           ": bank conflicts the hardware charges to shared accesses from other L1 traffic (the "
           "launch's global accesses), made by no instruction of the kernel";
  return line + counters + ": the SASS pass and the launch counters disagree";
}

} // namespace

std::vector<std::string> site_sums_lines(const RunResult& r) {
  if (!r.site_counts || !r.site_counts->available || !r.counters || !r.counters->available)
    return {};
  const SiteCounts& c = *r.site_counts;
  std::vector<std::string> lines;
  const auto sectors = launch_total(r, "global_load_sectors", "global_store_sectors");
  if (sectors && (*sectors > 0 || c.global_sectors > 0))
    lines.push_back(sum_line("Global sectors", c.global_sectors, *sectors, false));
  const auto wavefronts = launch_total(r, "shared_load_wavefronts", "shared_store_wavefronts");
  if (wavefronts && (*wavefronts > 0 || c.shared_wavefronts > 0))
    lines.push_back(sum_line("Shared wavefronts", c.shared_wavefronts, *wavefronts, true));
  return lines;
}

std::string site_counts_summary(const RunResult& r) {
  if (!r.site_counts)
    return "";
  const SiteCounts& c = *r.site_counts;
  if (!c.available)
    return "sites: not measured (" + c.reason + ")";
  if (!c.line_issues.empty())
    return format("lines: %zu measured, %zu memory instructions", c.line_issues.size(),
                  c.instructions.size());
  std::size_t flagged = 0;
  std::string differ;
  for (std::size_t s = 0; s < c.sites.size() && s < r.prediction.sites.size(); ++s)
    if (c.sites[s].flagged) {
      ++flagged;
      differ += (differ.empty() ? "" : ", ") + r.prediction.sites[s].name;
    }
  return format("sites: %zu of %zu within %.0f %%", c.sites.size() - flagged, c.sites.size(),
                100 * kSiteTolerance) +
         (flagged ? " (" + differ + (flagged == 1 ? " differs)" : " differ)") : "");
}

namespace {

// The site figures the per-site pass measures (requests, sectors, wavefronts and their ratio),
// in table order: each the "measured_KEY" column or the measured object's KEY.
const std::vector<const Figure*>& measured_site_figures() {
  static const std::vector<const Figure*> rows = [] {
    std::vector<const Figure*> measured;
    for (const Figure* f : site_figures())
      if (f->site_measured)
        measured.push_back(f);
    return measured;
  }();
  return rows;
}

// The pass's value of one of them for a site (its line's, for sites measured together); none
// where the site's space has no such figure or nothing of it was executed.
std::optional<double> measured_of(const Figure& f, const SitePrediction& site,
                                  const SiteMeasurement& m) {
  if (!site_has(f, site.space) || m.executed <= 0)
    return std::nullopt;
  return f.site_measured(m);
}

std::string csv_cell(const Figure& f, std::optional<double> value) {
  return value ? figure_csv(f, *value) : "";
}

} // namespace

std::vector<std::string> site_measured_csv_headers() {
  std::vector<std::string> headers = {"measured_line", "measured_instructions_executed",
                                      "measured_lanes"};
  for (const Figure* f : measured_site_figures())
    headers.push_back("measured_" + std::string(f->key));
  headers.insert(headers.end(), {"measured_flagged", "measured_reason"});
  return headers;
}

std::vector<std::string> site_measured_csv_cells(const RunResult& r, std::size_t site) {
  const std::size_t columns = site_measured_csv_headers().size();
  if (!r.site_counts || !r.site_counts->available || site >= r.site_counts->sites.size())
    return std::vector<std::string>(columns);
  const SiteMeasurement& m = r.site_counts->sites[site];
  std::vector<std::string> cells = {std::to_string(m.line), format("%.0f", m.issued),
                                    format("%.0f", m.lanes)};
  for (const Figure* f : measured_site_figures())
    cells.push_back(csv_cell(*f, measured_of(*f, r.prediction.sites[site], m)));
  cells.insert(cells.end(), {m.flagged ? "yes" : "no", csv_quoted(m.reason)});
  return cells;
}

std::vector<std::string> site_csv_headers(const RunResult& r) {
  std::vector<std::string> headers;
  for (const SitePrediction& s : r.prediction.sites) {
    for (const Figure* f : measured_site_figures())
      if (site_has(*f, s.space))
        headers.push_back(s.name + ": " + std::string(f->key));
    for (const Figure* f : measured_site_figures())
      if (site_has(*f, s.space))
        headers.push_back(s.name + ": measured_" + std::string(f->key));
    headers.push_back(s.name + ": measured_flagged");
  }
  return headers;
}

std::vector<std::string> site_csv_cells(const RunResult& r) {
  std::vector<std::string> cells;
  const bool measured = r.site_counts && r.site_counts->available;
  for (std::size_t i = 0; i < r.prediction.sites.size(); ++i) {
    const SitePrediction& p = r.prediction.sites[i];
    const SiteMeasurement* m =
        measured && i < r.site_counts->sites.size() ? &r.site_counts->sites[i] : nullptr;
    for (const Figure* f : measured_site_figures())
      if (site_has(*f, p.space))
        cells.push_back(csv_cell(*f, f->site_predicted(p)));
    for (const Figure* f : measured_site_figures())
      if (site_has(*f, p.space))
        cells.push_back(m ? csv_cell(*f, measured_of(*f, p, *m)) : "");
    cells.push_back(m ? (m->flagged ? "yes" : "no") : "");
  }
  return cells;
}

json site_measured_json(const SiteCounts& c, const SitePrediction& site, std::size_t index) {
  if (!c.available || index >= c.sites.size())
    return json();
  const SiteMeasurement& m = c.sites[index];
  json out = {{"line", m.line},
              {"instructions", m.instructions.size()},
              {"instructions_executed", m.issued},
              {"lanes", m.lanes}};
  for (const Figure* f : measured_site_figures())
    if (const std::optional<double> value = measured_of(*f, site, m))
      out[std::string(f->key)] = *value;
  out.update({{"difference", m.difference},
              {"request_difference", m.request_difference},
              {"flagged", m.flagged},
              {"reason", m.reason}});
  return out;
}

namespace {

// The figures an instruction and a site both carry, under the same keys.
template <typename Counts> json counts_json(const Counts& c) {
  return {{"executed", c.executed},
          {"issued", c.issued},
          {"lanes", c.lanes},
          {"sectors", c.sectors},
          {"wavefronts", c.wavefronts}};
}

// Their reader; a result made before `issued` existed counts each execution as one issue.
template <typename Counts> void read_counts(const Fields& f, Counts& c) {
  c.executed = f.number("executed", 0, kMaxFigure);
  c.issued = f.number_or("issued", c.executed, 0, kMaxFigure);
  c.lanes = f.number("lanes", 0, kMaxFigure);
  c.sectors = f.number("sectors", 0, kMaxFigure);
  c.wavefronts = f.number("wavefronts", 0, kMaxFigure);
}

} // namespace

json site_counts_json(const SiteCounts& c) {
  json instructions = json::array();
  for (const MeasuredInstruction& i : c.instructions) {
    json instruction = counts_json(i);
    instruction.update({{"pc", i.pc},
                        {"sass", i.sass},
                        {"file", i.file},
                        {"line", i.line},
                        {"space", space_name(i.space)},
                        {"op", op_name(i.op)},
                        {"async_copy", i.async_copy},
                        {"width", i.width}});
    instructions.push_back(std::move(instruction));
  }
  json sites = json::array();
  for (const SiteMeasurement& m : c.sites) {
    json site = counts_json(m);
    site.update({{"line", m.line},
                 {"instructions", m.instructions},
                 {"measured_with", m.measured_with},
                 {"difference", m.difference},
                 {"request_difference", m.request_difference},
                 {"flagged", m.flagged},
                 {"reason", m.reason}});
    sites.push_back(std::move(site));
  }
  json out = {{"available", c.available},
              {"reason", c.reason},
              {"file", c.file},
              {"function", c.function},
              {"seconds", c.seconds},
              {"instructions", instructions},
              {"sites", sites},
              {"unclaimed", c.unclaimed},
              {"global_sectors", c.global_sectors},
              {"shared_wavefronts", c.shared_wavefronts}};
  if (!c.line_issues.empty()) { // a kernel file's lines; a bundled kernel's figures are its sites'
    out["line_issues"] = json::array();
    for (const LineIssues& l : c.line_issues)
      out["line_issues"].push_back({{"line", l.line},
                                    {"issued", l.issued},
                                    {"sectors", l.sectors},
                                    {"wavefronts", l.wavefronts}});
  }
  return out;
}

namespace {

std::vector<std::size_t> indices(const Fields& f, const char* key, std::size_t below) {
  std::vector<std::size_t> out;
  if (below == 0) {
    if (!f.list(key).empty())
      f.fail(key, f.list(key).dump(), "an empty list");
    return out;
  }
  for (const std::int64_t i : f.integers(key, 0, below, 0, static_cast<std::int64_t>(below) - 1))
    out.push_back(static_cast<std::size_t>(i));
  return out;
}

MeasuredInstruction instruction_from(const Fields& f) {
  MeasuredInstruction i;
  i.pc = static_cast<std::uint32_t>(f.integer("pc", 0, std::numeric_limits<std::uint32_t>::max()));
  i.sass = f.text_or("sass", "");
  i.file = f.text("file");
  i.line = static_cast<int>(f.integer("line", 0, std::numeric_limits<int>::max()));
  i.space = f.choice("space", {"global", "shared"}) == "shared" ? MemorySpace::shared
                                                                : MemorySpace::global;
  i.op = op_from(f.choice("op", {"load", "store", "atomic"}));
  i.async_copy = f.boolean_or("async_copy", false);
  i.width = static_cast<int>(f.integer("width", 0, 1024));
  read_counts(f, i);
  return i;
}

} // namespace

namespace {

// A count of warp-level events over a launch: whole, and at most 2^53, where a double still holds
// every whole number (a panel writes it as a 64-bit integer).
double whole_count(const Fields& f, const char* key) {
  constexpr double kMostCount = 9007199254740992.0;
  const double value = f.number(key, 0, kMostCount);
  if (value != std::floor(value))
    f.fail(key, format("%g", value), "a whole number of at least 0");
  return value;
}

// A kernel file's lines, each once and in order; a bundled kernel with sites has none.
std::vector<LineIssues> line_issues_from(const Fields& f, std::size_t sites, bool kernel_file) {
  if (sites > 0 && !kernel_file)
    f.fail(
        "line_issues", "lines",
        "none for a bundled kernel with access sites (only a kernel file's figures are by line)");
  std::vector<LineIssues> lines;
  for (const Fields& l : f.objects("line_issues")) {
    l.only({"line", "issued", "sectors", "wavefronts"}, "a line's figures");
    LineIssues line{.line = static_cast<int>(l.integer("line", 1, std::numeric_limits<int>::max())),
                    .issued = whole_count(l, "issued"),
                    .sectors = whole_count(l, "sectors"),
                    .wavefronts = whole_count(l, "wavefronts")};
    if (!lines.empty() && line.line <= lines.back().line)
      l.fail("line", std::to_string(line.line),
             "each line once, in increasing order (after line " +
                 std::to_string(lines.back().line) + ")");
    lines.push_back(line);
  }
  return lines;
}

} // namespace

SiteCounts site_counts_from_json(const json& j, const std::string& where, std::size_t sites,
                                 bool kernel_file) {
  const Fields f(j, where, "site_counts.");
  SiteCounts c;
  c.available = f.boolean("available");
  c.reason = f.text("reason");
  c.file = f.text("file");
  c.function = f.text("function");
  c.seconds = f.number("seconds", 0, kMaxFigure);
  for (const Fields& i : f.objects("instructions"))
    c.instructions.push_back(instruction_from(i));
  const std::size_t count = c.instructions.size();
  const std::vector<Fields> site_fields = f.objects("sites");
  if (c.available && site_fields.size() != sites)
    f.fail("sites", std::to_string(site_fields.size()) + " sites",
           "one per site of the kernel (" + std::to_string(sites) + ")");
  for (const Fields& s : site_fields) {
    SiteMeasurement m;
    m.line = static_cast<int>(s.integer("line", 0, std::numeric_limits<int>::max()));
    m.instructions = indices(s, "instructions", count);
    m.measured_with = indices(s, "measured_with", sites);
    read_counts(s, m);
    m.difference = s.number("difference", -1, kMaxFigure);
    m.request_difference = s.number("request_difference", -1, kMaxFigure);
    m.flagged = s.boolean("flagged");
    m.reason = s.text("reason");
    c.sites.push_back(std::move(m));
  }
  c.unclaimed = indices(f, "unclaimed", count);
  if (f.has("line_issues")) // a run-time kernel's; none before they existed
    c.line_issues = line_issues_from(f, sites, kernel_file);
  c.global_sectors = f.number("global_sectors", 0, kMaxFigure);
  c.shared_wavefronts = f.number("shared_wavefronts", 0, kMaxFigure);
  return c;
}

} // namespace wl
