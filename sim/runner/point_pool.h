// Runs a list of points on worker threads in the background; the owning
// thread takes the results one at a time as they finish, so everything that
// follows a point (writing it to a file, sending it to another rank, printing
// progress) happens on one thread.
#ifndef KVROUTE_SIM_RUNNER_POINT_POOL_H_
#define KVROUTE_SIM_RUNNER_POINT_POOL_H_

#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>
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

  // Starts `threads` workers on `specs`, tagged `tags` (same length).
  // `scenario` must outlive the pool.
  PointPool(const Scenario& scenario, std::vector<PointSpec> specs, std::vector<size_t> tags,
            unsigned threads);
  // Lets the points already running finish, starts no more, and joins.
  ~PointPool();
  PointPool(const PointPool&) = delete;
  PointPool& operator=(const PointPool&) = delete;

  // Waits up to `timeout` for the next finished point; false if none came.
  bool Next(Finished* finished, std::chrono::milliseconds timeout);
  // Points not yet taken with Next.
  size_t pending() const { return pending_; }

 private:
  void Work();

  const Scenario& scenario_;
  std::vector<PointSpec> specs_;
  std::vector<size_t> tags_;
  size_t pending_;
  std::mutex mutex_;
  std::condition_variable ready_;
  size_t next_ = 0;  // under mutex_
  bool stop_ = false;
  std::deque<Finished> finished_;
  std::vector<std::thread> threads_;
};

}  // namespace kvroute::sim

#endif  // KVROUTE_SIM_RUNNER_POINT_POOL_H_
