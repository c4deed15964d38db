#include "sim/runner/point_pool.h"

#include <algorithm>

#include "sim/runner/request_csv_files.h"

namespace kvroute::sim {

PointPool::PointPool(const Scenario& scenario, unsigned threads) : scenario_(scenario) {
  for (unsigned t = 0; t < std::max(1u, threads); ++t) threads_.emplace_back([this] { Work(); });
}

PointPool::~PointPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
    queued_.clear();
  }
  submitted_.notify_all();
  for (std::thread& t : threads_) t.join();
}

void PointPool::Submit(size_t tag, const PointSpec& spec) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    queued_.emplace_back(tag, spec);
  }
  ++pending_;
  submitted_.notify_one();
}

void PointPool::Work() {
  for (;;) {
    std::pair<size_t, PointSpec> point;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      submitted_.wait(lock, [this] { return stop_ || !queued_.empty(); });
      if (stop_) return;
      point = queued_.front();
      queued_.pop_front();
    }
    Finished finished{.tag = point.first, .result = {}, .error = nullptr};
    try {
      finished.result = RunPointWithRequestFile(scenario_, point.second);
    } catch (...) {
      finished.error = std::current_exception();
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      finished_.push_back(std::move(finished));
    }
    ready_.notify_one();
  }
}

bool PointPool::Next(Finished* finished, std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (!ready_.wait_for(lock, timeout, [this] { return !finished_.empty(); })) return false;
  *finished = std::move(finished_.front());
  finished_.pop_front();
  --pending_;
  return true;
}

}  // namespace kvroute::sim
