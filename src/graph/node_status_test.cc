#include "vtensor/graph/node_status.h"

#include <gtest/gtest.h>

namespace vt {
namespace {

Node MakeNode(const std::string& name) {
  Node n;
  n.name = name;
  n.op_type = "Relu";
  n.opset = 14;
  return n;
}

TEST(NodeStatusTest, AnnotatesOnceAndKeepsTheCode) {
  Node relu = MakeNode("r1");
  Status st = AnnotateNode(OutOfRange("axis 3 outside rank 2"), relu);
  EXPECT_EQ(st.code(), StatusCode::kOutOfRange);
  EXPECT_EQ(st.message(), "node 'r1' (Relu, opset 14): axis 3 outside rank 2");
  EXPECT_TRUE(NamesNode(st, relu));
  st = AnnotateNode(std::move(st), relu);
  EXPECT_EQ(st.message(), "node 'r1' (Relu, opset 14): axis 3 outside rank 2");
  EXPECT_EQ(st.context().size(), 1u);
}

TEST(NodeStatusTest, NestedNodesAreEachNamed) {
  Node inner = MakeNode("inner");
  Node outer = MakeNode("outer");
  Status st = AnnotateNode(AnnotateNode(InvalidArgument("bad"), inner).WithContext("iteration 2"),
                           outer);
  EXPECT_EQ(st.message(),
            "node 'outer' (Relu, opset 14): iteration 2: node 'inner' (Relu, opset 14): bad");
  EXPECT_EQ(st.original_message(), "bad");
}

TEST(NodeStatusTest, EntryWithADetailAfterTheNodeNamesIt) {
  Node n = MakeNode("mm");
  Status st = InvalidArgument("short payload").WithContext(n.Describe() + ": weight 'W'");
  EXPECT_TRUE(NamesNode(st, n));
  EXPECT_EQ(AnnotateNode(st, n).message(), st.message());
  // A node whose name only starts like another's is a different node.
  Status other = InvalidArgument("x").WithContext("node 'mm2' (Relu, opset 14)");
  EXPECT_FALSE(NamesNode(other, n));
}

TEST(NodeStatusTest, OkStaysOk) {
  EXPECT_TRUE(AnnotateNode(Status::Ok(), MakeNode("a")).ok());
}

}  // namespace
}  // namespace vt
