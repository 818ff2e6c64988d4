#include "vtensor/graph/graph.h"

#include <gtest/gtest.h>

namespace vt {
namespace {

Node MakeNode(const std::string& op, std::vector<std::string> in, std::vector<std::string> out) {
  Node n;
  n.op_type = op;
  n.name = op + "_" + out[0];
  n.opset = 13;
  n.inputs = std::move(in);
  n.outputs = std::move(out);
  return n;
}

TEST(GraphTest, TopologicalOrderSortsProducersFirst) {
  Graph g;
  g.inputs.push_back({"x", {}});
  g.nodes.push_back(MakeNode("Relu", {"b"}, {"c"}));
  g.nodes.push_back(MakeNode("Relu", {"x"}, {"a"}));
  g.nodes.push_back(MakeNode("Add", {"a", "a"}, {"b"}));
  auto order = g.TopologicalOrder();
  ASSERT_TRUE(order.ok()) << order.status().ToString();
  EXPECT_EQ(*order, (std::vector<size_t>{1, 2, 0}));
}

TEST(GraphTest, CycleIsAnErrorNamingTheNode) {
  Graph g;
  g.inputs.push_back({"x", {}});
  g.nodes.push_back(MakeNode("Add", {"x", "b"}, {"a"}));
  g.nodes.push_back(MakeNode("Relu", {"a"}, {"b"}));
  auto order = g.TopologicalOrder();
  ASSERT_FALSE(order.ok());
  EXPECT_NE(order.status().message().find("cycle"), std::string::npos);
}

TEST(GraphTest, SelfLoopIsACycle) {
  Graph g;
  g.nodes.push_back(MakeNode("Relu", {"a"}, {"a"}));
  auto order = g.TopologicalOrder();
  ASSERT_FALSE(order.ok());
  EXPECT_NE(order.status().message().find("cycle"), std::string::npos);
}

TEST(GraphTest, UndefinedInputIsAnError) {
  Graph g;
  g.nodes.push_back(MakeNode("Relu", {"nope"}, {"a"}));
  auto order = g.TopologicalOrder();
  ASSERT_FALSE(order.ok());
  EXPECT_NE(order.status().message().find("undefined value 'nope'"), std::string::npos);
}

TEST(GraphTest, DuplicateProducerIsAnError) {
  Graph g;
  g.inputs.push_back({"x", {}});
  g.nodes.push_back(MakeNode("Relu", {"x"}, {"a"}));
  g.nodes.push_back(MakeNode("Neg", {"x"}, {"a"}));
  EXPECT_FALSE(g.TopologicalOrder().ok());
}

TEST(GraphTest, SubgraphOuterReferencesOrderTheParent) {
  // The If node's branch reads 'a', produced later in file order.
  auto branch = std::make_shared<Graph>();
  branch->nodes.push_back(MakeNode("Identity", {"a"}, {"y"}));
  branch->outputs.push_back({"y", {}});
  Graph g;
  g.inputs.push_back({"cond", {}});
  g.inputs.push_back({"x", {}});
  Node iff = MakeNode("If", {"cond"}, {"out"});
  Attribute then_attr;
  then_attr.type = Attribute::Type::kGraph;
  then_attr.g = branch;
  iff.attrs["then_branch"] = then_attr;
  branch->parent = &g;
  g.nodes.push_back(iff);
  g.nodes.push_back(MakeNode("Relu", {"x"}, {"a"}));
  auto order = g.TopologicalOrder();
  ASSERT_TRUE(order.ok()) << order.status().ToString();
  EXPECT_EQ(*order, (std::vector<size_t>{1, 0}));
  auto refs = OuterReferences(*branch);
  ASSERT_EQ(refs.size(), 1u);
  EXPECT_EQ(refs[0], "a");
}

}  // namespace
}  // namespace vt
