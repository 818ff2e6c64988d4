#include "exec/unsupported_ops.h"

namespace vt {

void UnsupportedOps::Add(const Node& node, const Status& why) {
  ++nodes_;
  if (details_.size() < kDetailedNodes) details_.push_back(why.message());
  for (Group& g : groups_)
    if (g.domain == node.domain && g.op_type == node.op_type && g.opset == node.opset) {
      ++g.count;
      return;
    }
  groups_.push_back({node.domain, node.op_type, node.opset, 1});
}

std::string UnsupportedOps::Message() const {
  auto plural = [](size_t n, const char* what) {
    return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
  };
  std::string msg = "no kernel for " + plural(groups_.size(), "operator") + " (" +
                    plural(nodes_, "node") + "): ";
  for (size_t i = 0; i < groups_.size(); ++i) {
    const Group& g = groups_[i];
    msg += (i ? ", " : "") + (g.domain.empty() ? "" : g.domain + ".") + g.op_type + " opset " +
           std::to_string(g.opset) + " (" + plural(g.count, "node") + ")";
  }
  for (const std::string& d : details_) msg += "; " + d;
  if (nodes_ > details_.size()) msg += "; and " + plural(nodes_ - details_.size(), "more node");
  return msg;
}

}  // namespace vt
