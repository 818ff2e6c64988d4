#include "vtensor/exec/op_profile.h"

namespace vt {

size_t OpProfile::Mark() const {
  std::lock_guard<std::mutex> lock(mu_);
  return events_.size();
}

void OpProfile::Add(OpEvent e, size_t mark) {
  std::lock_guard<std::mutex> lock(mu_);
  double child = 0;
  for (size_t i = mark; i < events_.size(); ++i)
    if (events_[i].depth == e.depth + 1 && events_[i].thread == e.thread) child += events_[i].span_us;
  e.self_us = e.dur_us > child ? e.dur_us - child : 0;
  events_.push_back(std::move(e));
}

std::vector<OpEvent> OpProfile::events() const {
  std::lock_guard<std::mutex> lock(mu_);
  return events_;
}

std::string OpProfile::OpType(const Node& n) {
  return n.domain.empty() ? n.op_type : n.domain + "." + n.op_type;
}

void OpProfile::Clear() {
  std::lock_guard<std::mutex> lock(mu_);
  events_.clear();
}

}  // namespace vt
