// The no-kernel error names every distinct operator with its count and bounds the per-node part.
#include "exec/unsupported_ops.h"

#include <gtest/gtest.h>

namespace vt {
namespace {

Node MakeNode(const std::string& name, const std::string& domain, const std::string& op, int64_t opset) {
  Node n;
  n.name = name;
  n.domain = domain;
  n.op_type = op;
  n.opset = opset;
  return n;
}

TEST(UnsupportedOps, NamesEveryOperatorWithItsCount) {
  UnsupportedOps u;
  EXPECT_TRUE(u.empty());
  // 12 nodes of one operator first: the old error (first 8 nodes) never reached the others.
  for (int i = 0; i < 12; ++i) {
    const Node n = MakeNode("a" + std::to_string(i), "com.microsoft", "Foo", 1);
    u.Add(n, Unimplemented(n.Describe() + ": no kernel"));
  }
  const Node bar = MakeNode("b", "", "Bar", 17), baz = MakeNode("c", "com.microsoft", "Foo", 2);
  u.Add(bar, Unimplemented(bar.Describe() + ": no kernel"));
  u.Add(baz, Unimplemented(baz.Describe() + ": no kernel"));
  EXPECT_FALSE(u.empty());
  const std::string m = u.Message();
  EXPECT_NE(m.find("no kernel for 3 operators (14 nodes): com.microsoft.Foo opset 1 (12 nodes), "
                   "Bar opset 17 (1 node), com.microsoft.Foo opset 2 (1 node)"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("node 'a0'"), std::string::npos) << m;
  EXPECT_NE(m.find("node 'a7'"), std::string::npos) << m;
  EXPECT_EQ(m.find("node 'a8'"), std::string::npos) << m;
  EXPECT_NE(m.find("; and 6 more nodes"), std::string::npos) << m;
}

TEST(UnsupportedOps, OneNode) {
  UnsupportedOps u;
  const Node n = MakeNode("x", "", "Foo", 13);
  u.Add(n, Unimplemented("why"));
  EXPECT_EQ(u.Message(), "no kernel for 1 operator (1 node): Foo opset 13 (1 node); why");
}

}  // namespace
}  // namespace vt
