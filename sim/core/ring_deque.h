// A double-ended queue in one growable ring buffer. Unlike std::deque it keeps
// its storage when it empties, so a queue that reaches its working size stops
// allocating: the replica's waiting queue in steady state allocates nothing.
#ifndef KVROUTE_SIM_CORE_RING_DEQUE_H_
#define KVROUTE_SIM_CORE_RING_DEQUE_H_

#include <cassert>
#include <cstddef>
#include <vector>

namespace kvroute::sim {

template <typename T>
class RingDeque {
 public:
  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }

  // REQUIRES: !empty().
  const T& front() const {
    assert(size_ > 0);
    return items_[head_];
  }
  // The i-th element from the front. REQUIRES: i < size().
  const T& operator[](size_t i) const { return items_[(head_ + i) & (items_.size() - 1)]; }

  void push_back(const T& value) {
    Grow();
    items_[(head_ + size_) & (items_.size() - 1)] = value;
    ++size_;
  }

  void push_front(const T& value) {
    Grow();
    head_ = (head_ + items_.size() - 1) & (items_.size() - 1);
    items_[head_] = value;
    ++size_;
  }

  // REQUIRES: !empty().
  void pop_front() {
    assert(size_ > 0);
    head_ = (head_ + 1) & (items_.size() - 1);
    --size_;
  }

  // Removes the i-th element, keeping the order of the rest. O(size()).
  // REQUIRES: i < size().
  void erase(size_t i) {
    assert(i < size_);
    const size_t mask = items_.size() - 1;
    for (; i + 1 < size_; ++i) items_[(head_ + i) & mask] = items_[(head_ + i + 1) & mask];
    --size_;
  }

  void clear() {
    head_ = 0;
    size_ = 0;
  }

 private:
  // Capacity stays a power of two so wrapping is a mask.
  // Starts at two items, doubling: Preble's TTFT detector keeps one deque
  // per (node, replica) pair, most of which only ever hold a point or two.
  void Grow() {
    if (size_ < items_.size()) return;
    std::vector<T> bigger(items_.empty() ? 2 : 2 * items_.size());
    for (size_t i = 0; i < size_; ++i) bigger[i] = (*this)[i];
    items_.swap(bigger);
    head_ = 0;
  }

  std::vector<T> items_;
  size_t head_ = 0;
  size_t size_ = 0;
};

}  // namespace kvroute::sim

#endif  // KVROUTE_SIM_CORE_RING_DEQUE_H_
