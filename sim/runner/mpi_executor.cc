#include "sim/runner/mpi_executor.h"

#include <mpi.h>

#include <array>
#include <bit>
#include <chrono>
#include <cstdint>
#include <exception>
#include <numeric>
#include <stdexcept>
#include <string>
#include <thread>

#include "analysis/point_check.h"
#include "analysis/point_codec.h"
#include "sim/runner/experiment_output.h"
#include "sim/runner/point_pool.h"

namespace kvroute::sim {
namespace {

constexpr int kHelloTag = 1;
constexpr int kResultTag = 2;
constexpr int kPointTag = 3;
constexpr int kStopTag = 4;

// How long a waiting rank sleeps between looks at its messages and threads.
constexpr std::chrono::milliseconds kPollInterval(1);

// The message from `source` with `tag` that has arrived, if any.
bool Arrived(int source, int tag, MPI_Status* status) {
  int arrived = 0;
  MPI_Iprobe(source, tag, MPI_COMM_WORLD, &arrived, status);
  return arrived != 0;
}

std::runtime_error ProtocolError(int rank, const std::string& what) {
  return std::runtime_error("MPI: unexpected message from rank " + std::to_string(rank) + ": " +
                            what);
}

void SendPoint(int rank, size_t index, const PointSpec& spec) {
  std::array<uint64_t, 4> words{index, spec.policy_index, std::bit_cast<uint64_t>(spec.qps),
                                spec.seed};
  MPI_Send(words.data(), static_cast<int>(words.size()), MPI_UINT64_T, rank, kPointTag,
           MPI_COMM_WORLD);
}

// A result message: the point's index, ' ', then 'R' and the encoded point,
// or 'E' and the error message.
std::string ResultMessage(const PointPool::Finished& f) {
  std::string message = std::to_string(f.tag) + ' ';
  if (!f.error) return message + 'R' + analysis::EncodePoint(f.result);
  try {
    std::rethrow_exception(f.error);
  } catch (const std::exception& e) {
    return message + 'E' + e.what();
  } catch (...) {
    return message + 'E' + "unknown error";
  }
}

}  // namespace

MpiExecutor::MpiExecutor(MpiWorld world, unsigned jobs)
    : world_(world), jobs_(jobs), threads_(static_cast<size_t>(world.size), 0) {
  threads_[0] = jobs_;
  // Every rank says hello as soon as it has loaded the scenario; a rank that
  // cannot aborts the whole job instead.
  for (int waiting = world_.size - 1; waiting > 0;) {
    MPI_Status status;
    if (!Arrived(MPI_ANY_SOURCE, kHelloTag, &status)) {
      std::this_thread::sleep_for(kPollInterval);
      continue;
    }
    uint64_t threads = 0;
    MPI_Recv(&threads, 1, MPI_UINT64_T, status.MPI_SOURCE, kHelloTag, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
    unsigned& slot = threads_[static_cast<size_t>(status.MPI_SOURCE)];
    if (slot != 0 || threads == 0) throw ProtocolError(status.MPI_SOURCE, "hello");
    slot = static_cast<unsigned>(threads);
    --waiting;
  }
}

MpiExecutor::~MpiExecutor() {
  if (std::uncaught_exceptions() > 0) return;
  for (int rank = 1; rank < world_.size; ++rank) {
    MPI_Send(nullptr, 0, MPI_UINT64_T, rank, kStopTag, MPI_COMM_WORLD);
  }
}

unsigned MpiExecutor::workers() const {
  return std::accumulate(threads_.begin(), threads_.end(), 0u);
}

void MpiExecutor::Run(const Scenario& scenario, std::span<const PointSpec> specs,
                      const PointResultFn& on_result) {
  if (specs.empty()) return;
  // idle[r]: threads of rank r without a point; owner[i]: the rank running
  // point i, or -1 once its result is in (so a stray result is caught).
  std::vector<unsigned> idle = threads_;
  std::vector<int> owner(specs.size(), -1);
  PointPool local(scenario, jobs_);
  size_t next = 0, outstanding = specs.size();
  auto hand_out = [&] {
    for (int rank = 0; rank < world_.size && next < specs.size(); ++rank) {
      for (unsigned& f = idle[static_cast<size_t>(rank)]; f > 0 && next < specs.size(); --f) {
        if (rank == 0) {
          local.Submit(next, specs[next]);
        } else {
          SendPoint(rank, next, specs[next]);
        }
        owner[next++] = rank;
      }
    }
  };

  PointPool::Finished finished;
  std::string buffer;
  while (outstanding > 0) {
    hand_out();
    // With nothing running here, Next is the poll interval's sleep.
    if (local.Next(&finished, kPollInterval)) {
      if (finished.error) std::rethrow_exception(finished.error);
      owner[finished.tag] = -1;
      ++idle[0];
      --outstanding;
      on_result(finished.tag, std::move(finished.result));
    }
    MPI_Status status;
    while (outstanding > 0 && Arrived(MPI_ANY_SOURCE, kResultTag, &status)) {
      int size = 0;
      MPI_Get_count(&status, MPI_CHAR, &size);
      buffer.resize(static_cast<size_t>(size));
      const int rank = status.MPI_SOURCE;
      MPI_Recv(buffer.data(), size, MPI_CHAR, rank, kResultTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      size_t space = buffer.find(' ');
      if (space == std::string::npos || space == 0 || space + 1 >= buffer.size()) {
        throw ProtocolError(rank, "malformed result");
      }
      size_t index = std::stoull(buffer.substr(0, space));
      if (index >= specs.size() || owner[index] != rank) {
        throw ProtocolError(rank, "result of point " + std::to_string(index) + " it was not given");
      }
      std::string_view body(buffer.data() + space + 2, buffer.size() - space - 2);
      if (buffer[space + 1] == 'E') {
        throw std::runtime_error("MPI rank " + std::to_string(rank) + ": " + std::string(body));
      }
      if (buffer[space + 1] != 'R') throw ProtocolError(rank, "malformed result");
      owner[index] = -1;
      ++idle[static_cast<size_t>(rank)];
      --outstanding;
      analysis::PointResult point;
      try {
        point = analysis::DecodePoint(body);
        analysis::CheckPoint(point, ExpectationsFor(scenario));
      } catch (const std::exception& e) {
        throw ProtocolError(
            rank, "an inconsistent result of point " + std::to_string(index) + ": " + e.what());
      }
      on_result(index, std::move(point));
    }
  }
}

void ServeMpiWorker(const Scenario& scenario, unsigned jobs) {
  const uint64_t threads = jobs;
  MPI_Send(&threads, 1, MPI_UINT64_T, 0, kHelloTag, MPI_COMM_WORLD);
  PointPool pool(scenario, jobs);
  PointPool::Finished finished;
  for (;;) {
    MPI_Status status;
    while (Arrived(0, MPI_ANY_TAG, &status)) {
      int count = 0;
      MPI_Get_count(&status, MPI_UINT64_T, &count);
      std::array<uint64_t, 4> words{};
      if (status.MPI_TAG == kStopTag && count == 0) {
        MPI_Recv(nullptr, 0, MPI_UINT64_T, 0, kStopTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (pool.pending() > 0) throw ProtocolError(0, "stop while points are running");
        return;
      }
      if (status.MPI_TAG != kPointTag || count != static_cast<int>(words.size())) {
        throw ProtocolError(0, "tag " + std::to_string(status.MPI_TAG));
      }
      MPI_Recv(words.data(), count, MPI_UINT64_T, 0, kPointTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      pool.Submit(
          static_cast<size_t>(words[0]),
          PointSpec{static_cast<size_t>(words[1]), std::bit_cast<double>(words[2]), words[3]});
    }
    // With nothing running, Next is the poll interval's sleep.
    if (!pool.Next(&finished, kPollInterval)) continue;
    std::string message = ResultMessage(finished);
    MPI_Send(message.data(), static_cast<int>(message.size()), MPI_CHAR, 0, kResultTag,
             MPI_COMM_WORLD);
    if (finished.error) std::rethrow_exception(finished.error);
  }
}

}  // namespace kvroute::sim
