#include "sim/runner/mpi_executor.h"

#include <mpi.h>

#include <bit>
#include <cstdint>
#include <exception>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "analysis/point_codec.h"
#include "sim/runner/point_pool.h"

namespace kvroute::sim {
namespace {

constexpr int kResultTag = 1;
constexpr int kBatchTag = 2;

// Waits for a message without spinning: MPI's blocking calls busy-poll, which
// on a machine with more ranks and threads than cores takes the CPU from the
// simulations.
MPI_Status AwaitMessage(int source, int tag) {
  MPI_Status status;
  for (int arrived = 0;;) {
    MPI_Iprobe(source, tag, MPI_COMM_WORLD, &arrived, &status);
    if (arrived) return status;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

// A batch travels from rank 0 to each other rank as (policy index, qps bits,
// seed) per spec; an empty batch ends the sweep.
void SendBatch(const std::vector<PointSpec>& specs, MpiWorld world) {
  std::vector<uint64_t> words;
  for (const PointSpec& spec : specs) {
    words.push_back(spec.policy_index);
    words.push_back(std::bit_cast<uint64_t>(spec.qps));
    words.push_back(spec.seed);
  }
  for (int rank = 1; rank < world.size; ++rank) {
    MPI_Send(words.data(), static_cast<int>(words.size()), MPI_UINT64_T, rank, kBatchTag,
             MPI_COMM_WORLD);
  }
}

std::vector<PointSpec> ReceiveBatch() {
  MPI_Status status = AwaitMessage(0, kBatchTag);
  int count = 0;
  MPI_Get_count(&status, MPI_UINT64_T, &count);
  std::vector<uint64_t> words(static_cast<size_t>(count));
  MPI_Recv(words.data(), count, MPI_UINT64_T, 0, kBatchTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  std::vector<PointSpec> specs(words.size() / 3);
  for (size_t i = 0; i < specs.size(); ++i) {
    specs[i] = PointSpec{static_cast<size_t>(words[3 * i]), std::bit_cast<double>(words[3 * i + 1]),
                         words[3 * i + 2]};
  }
  return specs;
}

// This rank's share of a batch: every size-th point from its rank.
PointPool StartShare(const Scenario& scenario, const std::vector<PointSpec>& specs, MpiWorld world,
                     unsigned jobs) {
  std::vector<PointSpec> mine;
  std::vector<size_t> tags;
  for (size_t i = static_cast<size_t>(world.rank); i < specs.size();
       i += static_cast<size_t>(world.size)) {
    mine.push_back(specs[i]);
    tags.push_back(i);
  }
  return PointPool(scenario, std::move(mine), std::move(tags), jobs);
}

// A result message: the point's index, 'R' and the encoded point, or 'E' and
// the error message.
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

MpiExecutor::~MpiExecutor() {
  if (std::uncaught_exceptions() > 0) return;
  SendBatch({}, world_);
}

void MpiExecutor::Run(const Scenario& scenario, std::span<const PointSpec> batch,
                      const PointResultFn& on_result) {
  if (batch.empty()) return;
  std::vector<PointSpec> specs(batch.begin(), batch.end());
  SendBatch(specs, world_);
  size_t remote = 0;
  for (size_t i = 0; i < specs.size(); ++i) {
    if (i % static_cast<size_t>(world_.size) != 0) ++remote;
  }
  PointPool pool = StartShare(scenario, specs, world_, jobs_);
  PointPool::Finished finished;
  std::string buffer;
  while (pool.pending() > 0 || remote > 0) {
    if (pool.pending() > 0 && pool.Next(&finished, std::chrono::milliseconds(2))) {
      if (finished.error) std::rethrow_exception(finished.error);
      on_result(finished.tag, std::move(finished.result));
    }
    int arrived = 0;
    MPI_Status status;
    MPI_Iprobe(MPI_ANY_SOURCE, kResultTag, MPI_COMM_WORLD, &arrived, &status);
    if (!arrived) {
      if (pool.pending() == 0)
        MPI_Probe(MPI_ANY_SOURCE, kResultTag, MPI_COMM_WORLD, &status);
      else
        continue;
    }
    int size = 0;
    MPI_Get_count(&status, MPI_CHAR, &size);
    buffer.resize(static_cast<size_t>(size));
    MPI_Recv(buffer.data(), size, MPI_CHAR, status.MPI_SOURCE, kResultTag, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
    --remote;
    size_t space = buffer.find(' ');
    size_t index = space == std::string::npos ? specs.size() : std::stoull(buffer.substr(0, space));
    if (index >= specs.size() || space + 1 >= buffer.size()) {
      throw std::runtime_error("malformed result from MPI rank " +
                               std::to_string(status.MPI_SOURCE));
    }
    std::string_view body(buffer.data() + space + 2, buffer.size() - space - 2);
    if (buffer[space + 1] == 'E') {
      throw std::runtime_error("MPI rank " + std::to_string(status.MPI_SOURCE) + ": " +
                               std::string(body));
    }
    on_result(index, analysis::DecodePoint(body));
  }
}

void ServeMpiWorker(const Scenario& scenario, MpiWorld world, unsigned jobs) {
  for (;;) {
    std::vector<PointSpec> specs = ReceiveBatch();
    if (specs.empty()) return;
    PointPool pool = StartShare(scenario, specs, world, jobs);
    PointPool::Finished finished;
    while (pool.pending() > 0) {
      if (!pool.Next(&finished, std::chrono::milliseconds(100))) continue;
      std::string message = ResultMessage(finished);
      MPI_Send(message.data(), static_cast<int>(message.size()), MPI_CHAR, 0, kResultTag,
               MPI_COMM_WORLD);
      if (finished.error) std::rethrow_exception(finished.error);
    }
  }
}

}  // namespace kvroute::sim
