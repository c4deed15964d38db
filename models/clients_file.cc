#include "models/clients_file.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <stdexcept>
#include <unordered_map>

namespace kvroute::models {
namespace {

constexpr const char* kHeader = "client,window_start_s,rate,cv,pattern,shape,scale";
constexpr const char* kColumns[] = {"client",  "window_start_s", "rate", "cv",
                                    "pattern", "shape",          "scale"};
constexpr size_t kColumnCount = std::size(kColumns);
// ServeGen's 14 days are 2,016 windows; this bounds the per-window tables.
constexpr double kMaxWindows = 10'000'000;

std::string Trim(const std::string& s) {
  const size_t first = s.find_first_not_of(" \t\r");
  if (first == std::string::npos) return "";
  return s.substr(first, s.find_last_not_of(" \t\r") - first + 1);
}

std::vector<std::string> SplitFields(const std::string& line) {
  std::vector<std::string> fields;
  size_t start = 0;
  for (size_t comma; (comma = line.find(',', start)) != std::string::npos; start = comma + 1) {
    fields.push_back(Trim(line.substr(start, comma - start)));
  }
  fields.push_back(Trim(line.substr(start)));
  return fields;
}

// A row being read: its place for messages.
struct RowReader {
  const std::string& path;
  int line;
  const std::vector<std::string>& fields;

  [[noreturn]] void Fail(size_t column, const std::string& what) const {
    throw std::runtime_error(path + ":" + std::to_string(line) + ": column '" + kColumns[column] +
                             "': " + what);
  }

  double Number(size_t column) const {
    const std::string& text = fields[column];
    size_t used = 0;
    double value = NAN;
    try {
      value = std::stod(text, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (text.empty() || used != text.size() || !std::isfinite(value)) {
      Fail(column, "expected a finite number, got '" + text + "'");
    }
    return value;
  }

  double NonNegative(size_t column) const {
    const double value = Number(column);
    if (value < 0) Fail(column, "must not be negative, got '" + fields[column] + "'");
    return value;
  }
};

struct RowPlace {
  int line;
  double start_s;
};

ClientWindow::Pattern ParsePattern(const RowReader& row) {
  const std::string& name = row.fields[4];
  if (name.empty()) return ClientWindow::Pattern::kIdle;
  if (name == "Gamma") return ClientWindow::Pattern::kGamma;
  if (name == "Weibull") return ClientWindow::Pattern::kWeibull;
  row.Fail(4, "unknown pattern '" + name + "' (Gamma, Weibull, or empty for an idle window)");
}

}  // namespace

ClientsTable ReadClientsFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot open clients file");
  ClientsTable table;
  table.source = path;
  std::vector<std::vector<RowPlace>> places;  // per client, per listed window
  std::unordered_map<uint64_t, size_t> seen;  // client id -> index in table.clients
  bool header = false;
  std::string text;
  for (int number = 1; std::getline(in, text); ++number) {
    const std::string line = Trim(text);
    if (line.empty() || line[0] == '#') continue;
    if (!header) {
      if (line != kHeader) {
        throw std::runtime_error(path + ":" + std::to_string(number) + ": expected the header '" +
                                 kHeader + "', got '" + line + "'");
      }
      header = true;
      continue;
    }
    const std::vector<std::string> fields = SplitFields(line);
    if (fields.size() != kColumnCount) {
      throw std::runtime_error(path + ":" + std::to_string(number) + ": expected " +
                               std::to_string(kColumnCount) + " columns, found " +
                               std::to_string(fields.size()));
    }
    const RowReader row{path, number, fields};
    const double id = row.NonNegative(0);
    if (id != std::floor(id) || id > 1e15) row.Fail(0, "expected a client number");
    const uint64_t client = static_cast<uint64_t>(id);
    auto [at, fresh] = seen.try_emplace(client, table.clients.size());
    if (fresh) {
      table.clients.push_back({client, {}});
      places.emplace_back();
    } else if (at->second + 1 != table.clients.size()) {
      row.Fail(0, "client " + std::to_string(client) +
                      "'s rows must be together (it began at line " +
                      std::to_string(places[at->second].front().line) + ")");
    }
    std::vector<RowPlace>& rows = places.back();
    const double start = row.Number(1);
    if (!rows.empty() && !(start > rows.back().start_s)) {
      row.Fail(1, "window " + fields[1] + " s does not follow the client's previous window (" +
                      std::to_string(rows.back().start_s) + " s, line " +
                      std::to_string(rows.back().line) +
                      "): windows must be in time order, once each");
    }
    ClientWindow w;
    w.rate = row.NonNegative(2);
    w.cv = row.NonNegative(3);
    w.pattern = ParsePattern(row);
    w.shape = row.NonNegative(5);
    w.scale = row.NonNegative(6);
    if (w.pattern == ClientWindow::Pattern::kIdle && w.rate > 0) {
      row.Fail(4, "a window with requests (rate " + fields[2] + ") needs a pattern");
    }
    if (w.pattern != ClientWindow::Pattern::kIdle && w.rate > 0) {
      if (!(w.shape > 0)) row.Fail(5, "a " + fields[4] + " window needs a positive shape");
    }
    if (w.rate == 0) w.pattern = ClientWindow::Pattern::kIdle;
    rows.push_back({number, start});
    table.clients.back().windows.push_back(w);
  }
  if (table.clients.empty()) {
    throw std::runtime_error(path + ": no client windows (expected the header '" +
                             std::string(kHeader) + "' and one row per client window)");
  }
  // The grid: the earliest start and the smallest step between a client's windows.
  table.first_start_s = INFINITY;
  table.window_s = INFINITY;
  double last_start = -INFINITY;
  for (const std::vector<RowPlace>& rows : places) {
    table.first_start_s = std::min(table.first_start_s, rows.front().start_s);
    last_start = std::max(last_start, rows.back().start_s);
    for (size_t i = 1; i < rows.size(); ++i) {
      table.window_s = std::min(table.window_s, rows[i].start_s - rows[i - 1].start_s);
    }
  }
  if (!std::isfinite(table.window_s)) {
    throw std::runtime_error(path + ": no client lists two windows, so their length is unknown");
  }
  for (size_t c = 0; c < places.size(); ++c) {
    for (size_t i = 0; i < places[c].size(); ++i) {
      const double steps = (places[c][i].start_s - table.first_start_s) / table.window_s;
      const double whole = std::round(steps);
      if (std::abs(steps - whole) > 1e-6) {
        throw std::runtime_error(
            path + ":" + std::to_string(places[c][i].line) +
            ": column 'window_start_s': " + std::to_string(places[c][i].start_s) +
            " s is not on the grid of " + std::to_string(table.window_s) + " s windows from " +
            std::to_string(table.first_start_s) + " s (every window has the same length)");
      }
      table.clients[c].windows[i].index = static_cast<uint32_t>(whole);
    }
  }
  const double windows = std::round((last_start - table.first_start_s) / table.window_s) + 1;
  if (windows > kMaxWindows) {
    throw std::runtime_error(path + ": " + std::to_string(windows) + " windows of " +
                             std::to_string(table.window_s) + " s; at most " +
                             std::to_string(kMaxWindows) + " are read");
  }
  table.windows = static_cast<uint32_t>(windows);
  return table;
}

}  // namespace kvroute::models
