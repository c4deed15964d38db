// Runs points on worker threads in the background: the owning thread submits
// points one at a time and takes the results as they finish, so everything
// that follows a point (writing it to a file, sending it to another rank,
// printing progress) happens on one thread. Points can be submitted while
// others run, which lets an MPI rank take a new point whenever a thread frees.
#ifndef KVROUTE_SIM_RUNNER_POINT_POOL_H_
#define KVROUTE_SIM_RUNNER_POINT_POOL_H_

#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "sim/runner/cluster_simulation.h"

namespace kvroute::sim {

class PointPool {
 public:
  // A finished point: `tag` is the tag it was submitted with.
  struct Finished {
    size_t tag = 0;
    analysis::PointResult result;
    std::exception_ptr error;  // set if RunPoint threw; `result` is then empty
  };

  // Starts `threads` (at least 1) idle workers. `scenario` must outlive the pool.
  PointPool(const Scenario& scenario, unsigned threads);
  // Drops the points not yet started, lets the running ones finish, and joins.
  ~PointPool();
  PointPool(const PointPool&) = delete;
  PointPool& operator=(const PointPool&) = delete;

  // Queues `spec`; a free thread runs it.
  void Submit(size_t tag, const PointSpec& spec);
  // Waits up to `timeout` for the next finished point; false if none came
  // (with nothing pending it simply waits `timeout`).
  bool Next(Finished* finished, std::chrono::milliseconds timeout);
  // Points submitted and not yet taken with Next.
  size_t pending() const { return pending_; }
  unsigned threads() const { return static_cast<unsigned>(threads_.size()); }

 private:
  void Work();

  const Scenario& scenario_;
  size_t pending_ = 0;  // owner thread only
  std::mutex mutex_;
  std::condition_variable submitted_;  // a point was queued, or stop_
  std::condition_variable ready_;      // a point finished
  std::deque<std::pair<size_t, PointSpec>> queued_;
  bool stop_ = false;
  std::deque<Finished> finished_;
  std::vector<std::thread> threads_;
};

}  // namespace kvroute::sim

#endif  // KVROUTE_SIM_RUNNER_POINT_POOL_H_
