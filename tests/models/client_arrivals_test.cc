// Per-client arrivals (models/client_arrivals.h) and the clients file
// (models/clients_file.h): counts per window follow the rates, gaps the
// window's shape, idle windows send nothing, a rate change at a window edge
// is a time change, and each client's arrivals are its own.
#include "models/client_arrivals.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <vector>

#include "models/clients_file.h"
#include "models/workload.h"

namespace kvroute::models {
namespace {

using Pattern = ClientWindow::Pattern;

// A client listed in every window: rate[w] with one pattern and shape
// (rate 0: idle).
ClientSeries Client(uint64_t id, const std::vector<double>& rates, Pattern pattern, double shape) {
  ClientSeries s{id, {}};
  for (uint32_t w = 0; w < rates.size(); ++w) {
    if (rates[w] > 0) s.windows.push_back({w, rates[w], 0, pattern, shape, 1});
  }
  return s;
}

ClientsConfig Config(std::vector<ClientSeries> clients, double window_s, uint32_t windows,
                     ClientsConfig::Aggregate aggregate = ClientsConfig::Aggregate::kTraced) {
  auto table = std::make_shared<ClientsTable>();
  table->source = "test.csv";
  table->window_s = window_s;
  table->windows = windows;
  table->clients = std::move(clients);
  ClientsConfig c;
  c.aggregate = aggregate;
  c.table = table;
  return c;
}

// Requests per second over the whole file: traced at this load, the file's
// own rates are kept.
double NativeQps(const ClientsConfig& c) {
  double requests = 0;
  for (const ClientSeries& s : c.table->clients) {
    for (const ClientWindow& w : s.windows) requests += w.rate * c.table->window_s;
  }
  return requests / (c.table->window_s * c.table->windows);
}

// Every arrival of client 0 of `c`, at its native rates, over the file.
std::vector<double> Arrivals(const ClientsConfig& c, uint64_t seed = 1) {
  const double duration = c.table->window_s * c.table->windows;
  const ClientRates rates(c, NativeQps(c), duration);
  ClientArrivals client(rates, c.table->clients[0], 0, 1.0, 0, duration,
                        sim::RandomStream(seed, "test"));
  std::vector<double> times;
  for (double t = client.Next(); std::isfinite(t); t = client.Next()) times.push_back(t);
  return times;
}

double Cv(const std::vector<double>& x) {
  double mean = 0, square = 0;
  for (double v : x) mean += v;
  mean /= static_cast<double>(x.size());
  for (double v : x) square += (v - mean) * (v - mean);
  return std::sqrt(square / static_cast<double>(x.size())) / mean;
}

std::vector<double> Gaps(const std::vector<double>& times) {
  std::vector<double> gaps;
  for (size_t i = 1; i < times.size(); ++i) gaps.push_back(times[i] - times[i - 1]);
  return gaps;
}

// A renewal process's count over a span of n expected arrivals has standard
// deviation about cv × sqrt(n) (Cox 1962); five of them bound a fixed seed's
// draw with room.
double CountTolerance(double expected, double cv) { return 5 * cv * std::sqrt(expected); }

TEST(ClientArrivalsTest, CountsPerWindowFollowTheRates) {
  // 40 windows of 100 s alternating 2 and 5 requests/s; Gamma(0.5) gaps, CV sqrt(2).
  std::vector<double> rates;
  for (int w = 0; w < 40; ++w) rates.push_back(w % 2 == 0 ? 2 : 5);
  const std::vector<double> times =
      Arrivals(Config({Client(1, rates, Pattern::kGamma, 0.5)}, 100, 40));
  double slow = 0, fast = 0;
  for (double t : times) (static_cast<int>(t / 100) % 2 == 0 ? slow : fast) += 1;
  EXPECT_NEAR(slow, 20 * 2 * 100, CountTolerance(4000, std::sqrt(2)));
  EXPECT_NEAR(fast, 20 * 5 * 100, CountTolerance(10000, std::sqrt(2)));
}

TEST(ClientArrivalsTest, GapsHaveTheShapesCv) {
  // Gamma(a): CV 1/sqrt(a). Weibull(k = 0.5): CV sqrt(Γ(5)/Γ(3)² − 1) = sqrt(5).
  const std::vector<double> gamma =
      Gaps(Arrivals(Config({Client(1, {50}, Pattern::kGamma, 0.25)}, 4000, 1)));
  EXPECT_NEAR(Cv(gamma), 2.0, 0.1);
  const std::vector<double> weibull =
      Gaps(Arrivals(Config({Client(1, {50}, Pattern::kWeibull, 0.5)}, 4000, 1)));
  EXPECT_NEAR(Cv(weibull), std::sqrt(5.0), 0.15);
  // And the window's mean rate: 50 requests/s, a mean gap of 0.02 s.
  EXPECT_NEAR(static_cast<double>(weibull.size() + 1), 200000, CountTolerance(2e5, std::sqrt(5.0)));
  EXPECT_NEAR(static_cast<double>(gamma.size() + 1), 200000, CountTolerance(2e5, 2));
}

TEST(ClientArrivalsTest, IdleWindowsSendNothing) {
  const std::vector<double> times =
      Arrivals(Config({Client(1, {3, 0, 0, 3}, Pattern::kGamma, 0.3)}, 50, 4));
  ASSERT_GT(times.size(), 200u);
  for (double t : times) EXPECT_TRUE(t < 50 || t >= 150) << t;
}

// Gamma(10^8) gaps are 1 within 10^-4: the times are those of the time change.
TEST(ClientArrivalsTest, AGapCrossingAWindowEdgeFinishesAtTheNewRate) {
  // 0.35/s over [0, 10): 1/0.35 apart, the third at 8.571; the fourth gap has
  // 0.5 of its unit left at 10 s, spent at 2/s: 10.25, then every 0.5 s.
  const std::vector<double> times =
      Arrivals(Config({Client(1, {0.35, 2}, Pattern::kGamma, 1e8)}, 10, 2));
  const std::vector<double> expected = {1 / 0.35, 2 / 0.35, 3 / 0.35, 10.25, 10.75, 11.25};
  ASSERT_GE(times.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) EXPECT_NEAR(times[i], expected[i], 1e-3) << i;
  EXPECT_EQ(times.size(), 3u + 20u);  // 10.25 + 19 × 0.5 = 19.75 is the last before 20
  // An idle window between them is skipped: the rest of the gap is spent at 20 s.
  const std::vector<double> skipped =
      Arrivals(Config({Client(1, {0.35, 0, 2}, Pattern::kGamma, 1e8)}, 10, 3));
  ASSERT_GE(skipped.size(), 4u);
  EXPECT_NEAR(skipped[2], 3 / 0.35, 1e-3);
  EXPECT_NEAR(skipped[3], 20.25, 1e-3);
}

TEST(ClientRatesTest, ConstantAndTracedScaling) {
  // Client 0 sends 1 then 2 requests/s, client 1 nothing then 1: totals 1 and 3.
  const std::vector<ClientSeries> clients = {Client(1, {1, 2}, Pattern::kGamma, 1),
                                             Client(2, {0, 1}, Pattern::kGamma, 1)};
  const ClientRates constant(Config(clients, 100, 2, ClientsConfig::Aggregate::kConstant), 10, 200);
  EXPECT_DOUBLE_EQ(constant.Rate(0, 0), 10);
  EXPECT_DOUBLE_EQ(constant.Rate(1, 0), 0);
  EXPECT_DOUBLE_EQ(constant.Rate(0, 1), 20.0 / 3);
  EXPECT_DOUBLE_EQ(constant.Rate(1, 1), 10.0 / 3);
  EXPECT_NEAR(constant.client_shares()[0], (10 + 20.0 / 3) / 20, 1e-12);
  // Traced: the mean total is 2, so one factor of 5.
  const ClientRates traced(Config(clients, 100, 2, ClientsConfig::Aggregate::kTraced), 10, 200);
  EXPECT_DOUBLE_EQ(traced.Rate(0, 0), 5);
  EXPECT_DOUBLE_EQ(traced.Rate(0, 1), 10);
  EXPECT_DOUBLE_EQ(traced.Rate(1, 1), 5);
  EXPECT_NEAR(traced.client_shares()[0], 0.75, 1e-12);
  // Over the first window only, the traced mean is that window's total, 1.
  const ClientRates first(Config(clients, 100, 2, ClientsConfig::Aggregate::kTraced), 10, 100);
  EXPECT_DOUBLE_EQ(first.Rate(0, 0), 10);
  EXPECT_DOUBLE_EQ(first.client_shares()[0], 1);
}

TEST(ClientRatesTest, RefusesAFileTooShortOrSilent) {
  const ClientsConfig c = Config({Client(1, {1, 0}, Pattern::kGamma, 1)}, 100, 2);
  EXPECT_EQ(ClientsCoverageError(*c.table, 0, 200), "");
  EXPECT_EQ(ClientsCoverageError(*c.table, 50, 200),
            "test.csv: the run needs the clients' windows over [50, 250) s (start_s + "
            "duration_s), but the file covers only [0, 200) s");
  EXPECT_THROW(ClientRates(c, 1, 300), std::invalid_argument);
  ClientsConfig late = c;
  late.start_s = 100;
  try {
    ClientRates(late, 1, 100);
    ADD_FAILURE() << "an idle span was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "test.csv: no client sends a request over [100, 200) s");
  }
}

// Client 7's arrivals with clients 7 and 3, then with 5 listed before them:
// at the file's own rates (traced at its native load) client 7's times do
// not move, since each client draws from a stream named by its number.
TEST(ClientsProcessTest, AddingAClientMovesNoOtherClientsArrivals) {
  const ClientSeries seven = Client(7, {2, 1, 3}, Pattern::kWeibull, 0.6);
  const ClientSeries three = Client(3, {1, 1, 0}, Pattern::kGamma, 0.4);
  const ClientSeries five = Client(5, {0, 4, 1}, Pattern::kGamma, 2);
  auto times_of = [](const ClientsConfig& c, uint32_t index) {
    ClientsProcess p(c, KeyRateConfig{}, 9, NativeQps(c), 300, 1.0, 0);
    std::vector<double> times;
    double t = 0;
    uint32_t key = 0;
    while (p.Next(&t, &key)) {
      if (p.TenantOf(key) == index) times.push_back(t);
    }
    return times;
  };
  const std::vector<double> before = times_of(Config({seven, three}, 100, 3), 0);
  const std::vector<double> after = times_of(Config({five, seven, three}, 100, 3), 1);
  ASSERT_GT(before.size(), 400u);
  EXPECT_EQ(before, after);
  const std::vector<double> reseeded = [&] {
    ClientsConfig c = Config({seven, three}, 100, 3);
    ClientsProcess p(c, KeyRateConfig{}, 10, NativeQps(c), 300, 1.0, 0);
    std::vector<double> times;
    double t = 0;
    uint32_t key = 0;
    while (p.Next(&t, &key)) {
      if (p.TenantOf(key) == 0) times.push_back(t);
    }
    return times;
  }();
  EXPECT_NE(before, reseeded);
}

TEST(ClientsFileTest, ReadsWindowsOnOneGrid) {
  const auto path = std::filesystem::path(::testing::TempDir()) / "clients_file_test.csv";
  std::ofstream(path) << "# provenance\n"
                         "client,window_start_s,rate,cv,pattern,shape,scale\n"
                         "\n"
                         "12,600,1.5,1.2,Gamma,0.7,0.9\n"
                         "12,1800,0.5,2,Weibull,0.4,3\n"
                         "4,600,0,0,,0,0\n"
                         "4,1200,2,1,Gamma,1,0.5\n";
  const ClientsTable t = ReadClientsFile(path.string());
  EXPECT_EQ(t.first_start_s, 600);
  EXPECT_EQ(t.window_s, 600);
  EXPECT_EQ(t.windows, 3u);
  EXPECT_EQ(t.end_s(), 2400);
  ASSERT_EQ(t.clients.size(), 2u);
  EXPECT_EQ(t.clients[0].id, 12u);
  ASSERT_EQ(t.clients[0].windows.size(), 2u);
  EXPECT_EQ(t.clients[0].windows[1].index, 2u);  // 1200 s is idle for client 12
  EXPECT_EQ(t.clients[0].windows[1].pattern, Pattern::kWeibull);
  EXPECT_EQ(t.clients[0].windows[1].shape, 0.4);
  EXPECT_EQ(t.clients[0].windows[0].rate, 1.5);
  EXPECT_EQ(t.clients[1].windows[0].pattern, Pattern::kIdle);
  EXPECT_EQ(t.clients[1].windows[1].index, 1u);

  std::ofstream(path) << "client,window_start_s,rate,cv,pattern,shape,scale\n"
                         "1,0,1,1,Gamma,1,1\n"
                         "1,600,x,1,Gamma,1,1\n";
  try {
    ReadClientsFile(path.string());
    ADD_FAILURE() << "a bad rate was read";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()),
              path.string() + ":3: column 'rate': expected a finite number, got 'x'");
  }
}

// Through the workload: key shares, tenant shares and the load at t.
WorkloadConfig TwoClientWorkload() {
  WorkloadConfig c;
  c.clients =
      Config({Client(1, {4, 1}, Pattern::kGamma, 0.5), Client(2, {0, 3}, Pattern::kWeibull, 0.7)},
             200, 2, ClientsConfig::Aggregate::kConstant);
  c.clients.keys_per_client = 2;
  c.rates.zipf_s = 1;  // a client's keys take 2/3 and 1/3
  c.system_tokens = 32;
  c.new_tokens = LengthDistribution::Fixed(16);
  c.output_tokens = LengthDistribution::Fixed(4);
  return c;
}

TEST(ClientsWorkloadTest, KeySharesMatchTheCountsAndTheLoadFollowsTheWindows) {
  WorkloadGenerator g(TwoClientWorkload(), 3, 20, sim::FromSeconds(400));
  // Constant at 20 QPS: window 0 all client 0, window 1 a quarter and three quarters.
  const std::vector<double>& shares = g.key_shares();
  ASSERT_EQ(shares.size(), 4u);
  EXPECT_NEAR(shares[0], (1 + 0.25) / 2 * 2 / 3, 1e-12);
  EXPECT_NEAR(shares[3], 0.75 / 2 / 3, 1e-12);
  EXPECT_NEAR(shares[0] + shares[1] + shares[2] + shares[3], 1, 1e-12);
  const std::vector<double> tenants = g.tenant_shares();
  ASSERT_EQ(tenants.size(), 2u);
  EXPECT_NEAR(tenants[0], 0.625, 1e-12);
  std::vector<double> load;
  g.KeyLoadAt(sim::FromSeconds(50), &load);
  EXPECT_EQ(load, (std::vector<double>{2.0 / 3, 1.0 / 3, 0, 0}));
  g.KeyLoadAt(sim::FromSeconds(250), &load);
  ASSERT_EQ(load.size(), 4u);
  EXPECT_NEAR(load[0], 0.25 * 2 / 3, 1e-12);
  EXPECT_NEAR(load[2], 0.75 * 2 / 3, 1e-12);

  std::map<uint32_t, double> counts;
  double requests = 0;
  Request r;
  while (g.Next(&r)) {
    counts[r.key] += 1;
    requests += 1;
    EXPECT_EQ(r.tenant, r.key / 2);
    if (r.key >= 2) {
      EXPECT_GE(sim::ToSeconds(r.arrival), 200);
    }
  }
  EXPECT_NEAR(requests, 8000, CountTolerance(8000, 1.5));
  for (uint32_t k = 0; k < 4; ++k) {
    EXPECT_NEAR(counts[k] / requests, shares[k], 5 * std::sqrt(shares[k] / requests) + 0.02) << k;
  }
}

TEST(ClientsWorkloadTest, SameSeedSameRequests) {
  WorkloadGenerator a(TwoClientWorkload(), 5, 20, sim::FromSeconds(400));
  WorkloadGenerator b(TwoClientWorkload(), 5, 20, sim::FromSeconds(400));
  WorkloadGenerator other(TwoClientWorkload(), 6, 20, sim::FromSeconds(400));
  Request x, y, z;
  bool differs = false;
  while (a.Next(&x)) {
    ASSERT_TRUE(b.Next(&y));
    EXPECT_EQ(x.arrival, y.arrival);
    EXPECT_EQ(x.key, y.key);
    EXPECT_EQ(x.hashes.prompt(), y.hashes.prompt());
    if (other.Next(&z) && (z.arrival != x.arrival || z.key != x.key)) differs = true;
  }
  EXPECT_FALSE(b.Next(&y));
  EXPECT_TRUE(differs);
}

}  // namespace
}  // namespace kvroute::models
