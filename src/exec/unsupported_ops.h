// The error a graph gets when some of its nodes have no kernel: every distinct operator
// (domain, op type, opset) is named with its node count, however many there are, so that one
// error shows all the work a model needs; the nodes' own messages follow for the first few only.
#pragma once

#include <string>
#include <vector>

#include "vtensor/base/status.h"
#include "vtensor/graph/graph.h"

namespace vt {

class UnsupportedOps {
 public:
  // Nodes whose own message is repeated in Message(); the rest are only counted.
  static constexpr size_t kDetailedNodes = 8;

  // Records `node`, which could not be given a kernel for reason `why`.
  void Add(const Node& node, const Status& why);
  bool empty() const { return nodes_ == 0; }

  // One line, e.g. "no kernel for 2 operators (5 nodes): com.microsoft.Foo opset 1 (3 nodes),
  // Bar opset 17 (2 nodes); node 'a' (...): ...; ...; and 2 more nodes". Operators appear in
  // the order their first node was added.
  std::string Message() const;

 private:
  struct Group {
    std::string domain, op_type;
    int64_t opset = 0;
    size_t count = 0;
  };
  std::vector<Group> groups_;
  std::vector<std::string> details_;  // the first kDetailedNodes messages
  size_t nodes_ = 0;
};

}  // namespace vt
