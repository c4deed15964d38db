// The Azure LLM inference trace, 2023 (Splitwise, ISCA'24;
// ../shared/traces/azure2023/AzureLLMInferenceDataset2023.md): a CSV with the
// exact header TIMESTAMP,ContextTokens,GeneratedTokens and no prefix
// information, so each request is its own key.
#include <charconv>

#include "models/trace_reader_internal.h"

namespace kvroute::models::trace_internal {
namespace {

constexpr char kHeader[] = "TIMESTAMP,ContextTokens,GeneratedTokens";
// Years whose every instant fits int64 nanoseconds since 1970 (1677-09-21 to 2262-04-11).
constexpr int kFirstYear = 1678, kLastYear = 2261;

// Days since 1970-01-01 of a civil date (H. Hinnant's days_from_civil).
int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

int DaysInMonth(int y, int m) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  return m == 2 && leap ? 29 : kDays[m - 1];
}

}  // namespace

std::string ParseTimestamp(std::string_view s, int64_t* ns) {
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, sec = 0;
  auto field = [&](size_t at, size_t len, int* out) {
    if (at + len > s.size()) return false;
    auto [p, ec] = std::from_chars(s.data() + at, s.data() + at + len, *out);
    return ec == std::errc() && p == s.data() + at + len;
  };
  if (s.size() < 19 || s[4] != '-' || s[7] != '-' || s[10] != ' ' || s[13] != ':' || s[16] != ':' ||
      !field(0, 4, &y) || !field(5, 2, &mo) || !field(8, 2, &d) || !field(11, 2, &h) ||
      !field(14, 2, &mi) || !field(17, 2, &sec)) {
    return "expected YYYY-MM-DD HH:MM:SS.fraction";
  }
  if (mo < 1 || mo > 12) return "month " + std::to_string(mo) + " does not exist";
  if (d < 1 || d > DaysInMonth(y, mo)) {
    return "day " + std::to_string(d) + " does not exist in month " + std::to_string(mo) + " of " +
           std::to_string(y);
  }
  if (h > 23 || mi > 59 || sec > 59) return "the time of day is out of range";
  if (y < kFirstYear || y > kLastYear) {
    return "year " + std::to_string(y) +
           " is outside what kvroute's clock (int64 nanoseconds since 1970) holds, " +
           std::to_string(kFirstYear) + " to " + std::to_string(kLastYear);
  }
  int64_t fraction = 0, scale = 1'000'000'000;
  if (s.size() > 19) {
    if (s[19] != '.' || s.size() == 20) return "expected YYYY-MM-DD HH:MM:SS.fraction";
    for (size_t i = 20; i < s.size(); ++i) {
      if (s[i] < '0' || s[i] > '9') return "expected digits after the decimal point";
      if (scale > 1) fraction += (s[i] - '0') * (scale /= 10);
    }
  }
  *ns =
      ((DaysFromCivil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d)) * 24 + h) * 60 + mi) *
          60 * 1'000'000'000LL +
      sec * 1'000'000'000LL + fraction;
  return "";
}

void ReadAzure(std::istream& in, const TraceConfig& config, Trace* trace) {
  std::string line;
  if (std::getline(in, line) && !line.empty() && line.back() == '\r') line.pop_back();
  if (line != kHeader) {
    Where{config.file, 1}.Fail(
        "", std::string("expected the header ") + kHeader + ", got '" + line.substr(0, 80) + "'");
  }
  uint64_t index = 0;
  int64_t first_ns = 0, previous_ns = 0;
  for (uint64_t number = 2; std::getline(in, line); ++number) {
    const Where where{config.file, number};
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    const size_t c1 = line.find(','), c2 = line.find(',', c1 + 1);
    if (c1 == std::string::npos || c2 == std::string::npos ||
        line.find(',', c2 + 1) != std::string::npos) {
      where.Fail("", "expected three comma-separated fields");
    }
    int64_t ns = 0;
    if (std::string problem = ParseTimestamp(std::string_view(line).substr(0, c1), &ns);
        !problem.empty()) {
      where.Fail("TIMESTAMP", problem + ", got '" + line.substr(0, c1) + "'");
    }
    uint32_t tokens[2];
    const char* names[2] = {"ContextTokens", "GeneratedTokens"};
    const size_t starts[2] = {c1 + 1, c2 + 1}, ends[2] = {c2, line.size()};
    for (int f = 0; f < 2; ++f) {
      auto [p, ec] = std::from_chars(line.data() + starts[f], line.data() + ends[f], tokens[f]);
      if (ec != std::errc() || p != line.data() + ends[f] || starts[f] == ends[f]) {
        where.Fail(names[f], "expected a whole number below 2^32, got '" +
                                 line.substr(starts[f], ends[f] - starts[f]) + "'");
      }
      if (tokens[f] == 0) where.Fail(names[f], "must be at least 1 token");
    }
    if (index++ < config.skip) continue;
    if (config.limit > 0 && trace->records.size() >= config.limit) break;
    if (trace->records.empty()) first_ns = previous_ns = ns;
    if (ns < previous_ns) where.Fail("TIMESTAMP", "earlier than the previous request's");
    previous_ns = ns;
    TraceRecord r;
    if (__builtin_sub_overflow(ns, first_ns, &r.time_ns)) {
      where.Fail("TIMESTAMP",
                 "more than 292 years after the first request: beyond kvroute's clock (int64 "
                 "nanoseconds)");
    }
    r.input_tokens = tokens[0];
    r.output_tokens = tokens[1];
    r.key = trace->keys++;
    trace->records.push_back(r);
  }
}

}  // namespace kvroute::models::trace_internal
