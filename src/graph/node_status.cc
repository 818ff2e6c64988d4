#include "vtensor/graph/node_status.h"

#include <string>
#include <utility>

namespace vt {

bool NamesNode(const Status& st, const Node& node) {
  const std::string d = node.Describe();
  for (const std::string& entry : st.context()) {
    if (entry == d) return true;
    if (entry.size() > d.size() + 1 && entry.compare(0, d.size(), d) == 0 &&
        entry.compare(d.size(), 2, ": ") == 0)
      return true;
  }
  return false;
}

Status AnnotateNode(Status st, const Node& node) {
  if (st.ok() || NamesNode(st, node)) return st;
  return std::move(st).WithContext(node.Describe());
}

}  // namespace vt
