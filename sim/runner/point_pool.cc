#include "sim/runner/point_pool.h"

#include <algorithm>
#include <cassert>

namespace kvroute::sim {

PointPool::PointPool(const Scenario& scenario, std::vector<PointSpec> specs,
                     std::vector<size_t> tags, unsigned threads)
    : scenario_(scenario),
      specs_(std::move(specs)),
      tags_(std::move(tags)),
      pending_(specs_.size()) {
  assert(specs_.size() == tags_.size());
  unsigned n = std::max(1u, std::min<unsigned>(threads, static_cast<unsigned>(specs_.size())));
  if (specs_.empty()) return;
  for (unsigned t = 0; t < n; ++t) threads_.emplace_back([this] { Work(); });
}

PointPool::~PointPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  for (std::thread& t : threads_) t.join();
}

void PointPool::Work() {
  for (;;) {
    size_t i;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (stop_ || next_ == specs_.size()) return;
      i = next_++;
    }
    Finished finished{.tag = tags_[i], .result = {}, .error = nullptr};
    try {
      finished.result = RunPoint(scenario_, specs_[i]);
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
