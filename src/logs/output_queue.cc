#include "logs/output_queue.h"

#include <cassert>

namespace muster::logs {

void OutputQueue::consumed(size_t n) {
  assert(n <= size());
  head_ += n;
  if (retractable_ && head_ > mark_) retractable_ = false;
  if (head_ == buf_.size()) {
    buf_.clear();
    head_ = 0;
    retractable_ = false;
  } else if (head_ >= 64 * 1024 && head_ >= buf_.size() / 2) {
    buf_.erase(0, head_);
    mark_ -= retractable_ ? head_ : 0;
    head_ = 0;
  }
}

void OutputQueue::append(std::string_view bytes) {
  buf_.append(bytes);
  if (!bytes.empty()) retractable_ = false;
}

void OutputQueue::append_retractable(std::string_view bytes) {
  mark_ = buf_.size();
  buf_.append(bytes);
  retractable_ = true;
}

bool OutputQueue::retract() {
  if (!retractable_) return false;
  buf_.resize(mark_);
  retractable_ = false;
  return true;
}

}  // namespace muster::logs
