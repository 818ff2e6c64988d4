#include "vtensor/graph/plan_graph.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstdlib>
#include <vector>

namespace vt {
namespace {

// The bit patterns of `xs`: a round trip must keep each float exactly (-0.0 included).
std::vector<uint32_t> Bits(const std::vector<float>& xs) {
  std::vector<uint32_t> out;
  out.reserve(xs.size());
  for (float x : xs) out.push_back(std::bit_cast<uint32_t>(x));
  return out;
}

Tensor Named(Tensor t, const std::string& name) {
  t.set_name(name);
  return t;
}

Attribute Attr(const std::string& name, Attribute::Type type) {
  Attribute a;
  a.name = name;
  a.type = type;
  return a;
}

// A main graph with an initializer, a Constant node, a node with one attribute of every kind
// (a subgraph among them, with its own initializer), symbolic dims and typed metadata.
std::shared_ptr<Graph> SampleGraph() {
  auto g = std::make_shared<Graph>();
  g->name = "main";
  g->SetInitializer("w", Tensor::FromF32(std::vector<float>(2048, 0.5f), {32, 64}));
  TensorSpec x(TypeInfo::Tensor(DType::kFloat32, SymShape{Dim{-1, "batch"}, Dim{64, ""}}));
  x.SetMeta("vt.count", int64_t{3});
  x.SetMeta("vt.scale", 0.25);
  x.SetMeta("vt.dims", std::vector<int64_t>{1, 2});
  g->inputs.push_back({"x", x});
  g->values["x"] = x;
  g->outputs.push_back({"y", TensorSpec(TypeInfo::Tensor(DType::kFloat32, std::nullopt))});
  Node c;
  c.name = "c";
  c.op_type = "Constant";
  c.opset = 13;
  c.outputs = {"k"};
  c.attrs["value"] = Attr("value", Attribute::Type::kTensor);
  c.attrs["value"].t = Named(Tensor::FromF32(std::vector<float>(1500, 1.5f), {1500}), "k");
  g->nodes.push_back(c);
  Node n;
  n.name = "n";
  n.op_type = "Gelu";
  n.opset = 20;  // a fused node's own opset
  n.inputs = {"x", "w", "", "k"};
  n.outputs = {"y"};
  auto add = [&n](Attribute a) { n.attrs[a.name] = std::move(a); };
  Attribute f = Attr("f", Attribute::Type::kFloat);
  f.f = 0.1f;
  add(f);
  Attribute i = Attr("i", Attribute::Type::kInt);
  i.i = -7;
  add(i);
  Attribute s = Attr("s", Attribute::Type::kString);
  s.s = std::string("a\0b", 3);
  add(s);
  Attribute fs = Attr("fs", Attribute::Type::kFloats);
  fs.floats = {1e-30f, -0.0f};
  add(fs);
  Attribute is = Attr("is", Attribute::Type::kInts);
  is.ints = {1, -2};
  add(is);
  Attribute ss = Attr("ss", Attribute::Type::kStrings);
  ss.strings = {"p", ""};
  add(ss);
  Attribute t = Attr("t", Attribute::Type::kTensor);
  t.t = Named(Tensor::FromI64({4, 5}), "t");
  add(t);
  Attribute tp = Attr("tp", Attribute::Type::kTypeProto);
  tp.tp = TypeInfo::Tensor(DType::kInt64, SymShape{Dim{2, ""}});
  add(tp);
  auto sub = std::make_shared<Graph>();
  sub->name = "body";
  sub->parent = g.get();
  sub->SetInitializer("b", Tensor::FromF32({1, 2, 3}, {3}));
  Node sn;
  sn.name = "sn";
  sn.op_type = "Identity";
  sn.opset = 13;
  sn.inputs = {"b"};
  sn.outputs = {"o"};
  sub->nodes.push_back(sn);
  sub->outputs.push_back({"o", TensorSpec()});
  Attribute gr = Attr("g", Attribute::Type::kGraph);
  gr.g = sub;
  add(gr);
  g->nodes.push_back(n);
  return g;
}

std::string Bytes(const Tensor& t) {
  const Tensor c = t.Contiguous();
  return std::string(static_cast<const char*>(c.raw_data()), c.nbytes());
}

// GraphFromPlan of the serialized message.
Expected<std::shared_ptr<Graph>> FromPlan(const vtensor::PlanGraphProto& p,
                                          const std::map<std::string, Tensor>& source,
                                          const PlanBlobs& blobs, const Graph* parent,
                                          const TensorContext& ctx) {
  const std::string bytes = p.SerializeAsString();
  return GraphFromPlan(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), source, blobs,
                       parent, ctx);
}

const vtensor::PlanAttributeProto& PlanAttr(const vtensor::PlanNodeProto& n, const std::string& name) {
  for (const auto& a : n.attribute())
    if (a.name() == name) return a;
  return vtensor::PlanAttributeProto::default_instance();
}

TEST(PlanGraphTest, RoundTripKeepsEveryFieldAndRefersToSourceTensors) {
  auto g = SampleGraph();
  const auto sources = SourceTensors(*g);
  ASSERT_EQ(sources.size(), 2u);  // the initializer and the Constant's value
  vtensor::PlanGraphProto p;
  // Without a blob buffer the stored tensors are serialized TensorProtos (as in the plans
  // written before every stored tensor became a blob, which stay readable).
  GraphToPlan(*g, &sources, &p);
  EXPECT_TRUE(p.initializer(0).has_source()) << "source tensors are referred to, not stored";
  EXPECT_TRUE(PlanAttr(p.node(1), "t").t().has_tensor());
  TensorContext ctx;
  ctx.file = "m.onnx";
  auto back = FromPlan(p, sources, PlanBlobs{}, nullptr, ctx);
  ASSERT_TRUE(back.ok()) << back.status().message();
  const Graph& b = **back;
  EXPECT_EQ(GraphStructureDigest(b), GraphStructureDigest(*g));
  EXPECT_EQ(InitializerDigest(b), InitializerDigest(*g));
  ASSERT_EQ(b.nodes.size(), 2u);
  const Node& n = b.nodes[1];
  EXPECT_EQ(n.opset, 20);
  EXPECT_EQ(n.inputs, (std::vector<std::string>{"x", "w", "", "k"}));
  EXPECT_EQ(n.FindAttr("s")->s, std::string("a\0b", 3));
  EXPECT_EQ(Bits(n.FindAttr("fs")->floats), Bits(g->nodes[1].FindAttr("fs")->floats));
  EXPECT_EQ(n.FindAttr("g")->g->parent, &b);
  EXPECT_EQ(Bytes(n.FindAttr("g")->g->initializers.at("b")), Bytes(Tensor::FromF32({1, 2, 3}, {3})));
  EXPECT_EQ(b.values.at("x").metadata(), g->values.at("x").metadata());
  EXPECT_EQ(b.inputs[0].spec.type().ToString(), g->inputs[0].spec.type().ToString());
  // The referred tensors are the source's own (no copy).
  EXPECT_EQ(b.initializers.at("w").raw_data(), g->initializers.at("w").raw_data());
}

TEST(PlanGraphTest, StoredTensorsGoToAlignedBlobs) {
  auto g = SampleGraph();
  vtensor::PlanGraphProto p;
  std::string blobs;
  GraphToPlan(*g, nullptr, &p, &blobs);  // no source: every tensor is stored
  ASSERT_TRUE(p.initializer(0).has_blob());
  EXPECT_EQ(p.initializer(0).blob().offset() % static_cast<int64_t>(kPlanBlobAlign), 0);
  // In an aligned buffer the blobs are used in place.
  auto* aligned = static_cast<uint8_t*>(std::aligned_alloc(kPlanBlobAlign, blobs.size() + 64));
  std::copy(blobs.begin(), blobs.end(), aligned);
  std::shared_ptr<const void> keep(aligned, [](const void* q) { std::free(const_cast<void*>(q)); });
  TensorContext ctx;
  ctx.file = "m.onnx";
  auto back = FromPlan(p, {}, PlanBlobs{aligned, blobs.size(), keep}, nullptr, ctx);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(Bytes((*back)->initializers.at("w")), Bytes(g->initializers.at("w")));
  EXPECT_EQ((*back)->initializers.at("w").raw_data(), aligned + p.initializer(0).blob().offset());
  EXPECT_EQ(GraphStructureDigest(**back), GraphStructureDigest(*g));
  // Small tensors too (an attribute's 16 bytes, a subgraph initializer's 12), read in place.
  const Node& n = (*back)->nodes[1];
  EXPECT_TRUE(PlanAttr(p.node(1), "t").t().has_blob());
  EXPECT_EQ(Bytes(n.FindAttr("t")->t), Bytes(g->nodes[1].FindAttr("t")->t));
  const Tensor& b = n.FindAttr("g")->g->initializers.at("b");
  EXPECT_EQ(Bytes(b), Bytes(Tensor::FromF32({1, 2, 3}, {3})));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(b.raw_data()) % kPlanBlobAlign, 0u);
}

TEST(PlanGraphTest, BadReferencesAndBlobsAreErrorsNamingTheTensor) {
  auto g = SampleGraph();
  const auto sources = SourceTensors(*g);
  vtensor::PlanGraphProto p;
  GraphToPlan(*g, &sources, &p);
  TensorContext ctx;
  ctx.file = "m.onnx";
  auto missing = FromPlan(p, {}, PlanBlobs{}, nullptr, ctx);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("no source initializer 'w'"), std::string::npos)
      << missing.status().message();
  auto other = sources;
  other["w"] = Tensor::FromF32({1}, {1});
  auto wrong = FromPlan(p, other, PlanBlobs{}, nullptr, ctx);
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.status().message().find("initializer 'w'"), std::string::npos);
  vtensor::PlanGraphProto q;
  std::string blobs;
  GraphToPlan(*g, nullptr, &q, &blobs);
  auto cut = FromPlan(q, {}, PlanBlobs{reinterpret_cast<const uint8_t*>(blobs.data()), 64, nullptr},
                           nullptr, ctx);
  ASSERT_FALSE(cut.ok());
  EXPECT_NE(cut.status().message().find("tensor 'w': blob"), std::string::npos)
      << cut.status().message();
}

TEST(PlanGraphTest, DigestsFollowStructureAndBytes) {
  auto g = SampleGraph();
  const std::string structure = GraphStructureDigest(*g), bytes = InitializerDigest(*g);
  EXPECT_EQ(structure.rfind("xxh3-128:", 0), 0u);
  g->initializers["w"] = Tensor::FromF32(std::vector<float>(2048, 0.75f), {32, 64});
  EXPECT_EQ(GraphStructureDigest(*g), structure) << "bytes are not structure";
  EXPECT_NE(InitializerDigest(*g), bytes);
  g->nodes[1].attrs["i"].i = 8;
  EXPECT_NE(GraphStructureDigest(*g), structure);
}

// Attributes of the kinds SampleGraph leaves out (tensors, graphs, type lists, nested types)
// read back as written.
TEST(PlanGraphTest, RoundTripOfTensorListsGraphListsAndNestedTypes) {
  auto g = SampleGraph();
  Node& n = g->nodes[1];
  Attribute ts = Attr("ts", Attribute::Type::kTensors);
  ts.tensors = {Named(Tensor::FromI64({1, 2, 3}), "a"), Named(Tensor::FromF32({}, {0}), "e")};
  n.attrs["ts"] = ts;
  Attribute gs = Attr("gs", Attribute::Type::kGraphs);
  gs.graphs = {n.attrs["g"].g, n.attrs["g"].g};
  n.attrs["gs"] = gs;
  Attribute tps = Attr("tps", Attribute::Type::kTypeProtos);
  TypeInfo seq;
  seq.kind = TypeInfo::Kind::kSequence;
  seq.inner = std::make_shared<TypeInfo>(TypeInfo::Tensor(DType::kFloat16, std::nullopt));
  tps.tps = {seq, TypeInfo::Tensor(DType::kInt8, SymShape{})};
  n.attrs["tps"] = tps;
  const auto sources = SourceTensors(*g);
  for (bool with_blobs : {false, true}) {
    vtensor::PlanGraphProto p;
    std::string blobs;
    GraphToPlan(*g, &sources, &p, with_blobs ? &blobs : nullptr);
    TensorContext ctx;
    ctx.file = "m.onnx";
    // Blobs copied out of an unaligned buffer.
    auto back = FromPlan(p, sources,
                         PlanBlobs{reinterpret_cast<const uint8_t*>(blobs.data()), blobs.size(), nullptr},
                         nullptr, ctx);
    ASSERT_TRUE(back.ok()) << back.status().message();
    EXPECT_EQ(GraphStructureDigest(**back), GraphStructureDigest(*g)) << with_blobs;
    const Node& b = (*back)->nodes[1];
    ASSERT_EQ(b.FindAttr("ts")->tensors.size(), 2u);
    EXPECT_EQ(Bytes(b.FindAttr("ts")->tensors[0]), Bytes(Tensor::FromI64({1, 2, 3})));
    EXPECT_EQ(b.FindAttr("gs")->graphs[1]->parent, back->get());
    EXPECT_EQ(b.FindAttr("tps")->tps[0].ToString(), seq.ToString());
  }
}

// Bytes that stop being wire format anywhere are an error naming the graph, never a crash or
// a graph read from half a field.
TEST(PlanGraphTest, CutOrDamagedBytesAreErrors) {
  auto g = SampleGraph();
  const auto sources = SourceTensors(*g);
  vtensor::PlanGraphProto p;
  GraphToPlan(*g, &sources, &p);
  const std::string bytes = p.SerializeAsString();
  const auto* data = reinterpret_cast<const uint8_t*>(bytes.data());
  TensorContext ctx;
  ctx.file = "m.onnx";
  ASSERT_TRUE(GraphFromPlan(data, bytes.size(), sources, PlanBlobs{}, nullptr, ctx).ok());
  auto cut = GraphFromPlan(data, bytes.size() - 1, sources, PlanBlobs{}, nullptr, ctx);
  ASSERT_FALSE(cut.ok());
  EXPECT_NE(cut.status().message().find("m.onnx: session plan graph"), std::string::npos);
  EXPECT_NE(cut.status().message().find("malformed bytes"), std::string::npos)
      << cut.status().message();
  for (size_t n = 0; n < bytes.size(); ++n)  // every prefix: an error or a smaller graph
    (void)GraphFromPlan(data, n, sources, PlanBlobs{}, nullptr, ctx);
  std::string flipped = bytes;
  for (size_t i = 0; i < flipped.size(); ++i) {  // every byte damaged in turn
    flipped[i] = static_cast<char>(flipped[i] ^ 0xA5);
    (void)GraphFromPlan(reinterpret_cast<const uint8_t*>(flipped.data()), flipped.size(), sources,
                        PlanBlobs{}, nullptr, ctx);
    flipped[i] = bytes[i];
  }
}

// Repeated numbers read the same whether their field is packed or not (protobuf accepts
// both); fields the reader does not know, or of another wire type, are skipped.
TEST(PlanGraphTest, PackedAndUnpackedRepeatedNumbersAndUnknownFields) {
  auto varint = [](uint64_t v, std::string* out) {
    do {
      out->push_back(static_cast<char>((v & 0x7F) | (v > 0x7F ? 0x80 : 0)));
      v >>= 7;
    } while (v != 0);
  };
  auto field = [&varint](uint32_t number, const std::string& body, std::string* out) {
    varint(number << 3 | 2, out);
    varint(body.size(), out);
    *out += body;
  };
  std::string packed_ints, packed_floats;
  for (uint64_t v : {uint64_t{3}, static_cast<uint64_t>(int64_t{-2})}) varint(v, &packed_ints);
  for (float x : {0.5f, -0.0f}) packed_floats.append(reinterpret_cast<const char*>(&x), 4);
  std::string attr;
  field(1, "is", &attr);
  varint(2 << 3, &attr);
  varint(static_cast<uint64_t>(Attribute::Type::kInts), &attr);
  field(9, packed_ints, &attr);
  varint(9 << 3, &attr);  // one more, unpacked
  varint(7, &attr);
  field(8, packed_floats, &attr);
  varint(99 << 3 | 5, &attr);  // unknown fixed32 field
  attr += std::string(4, '\x01');
  varint(9 << 3 | 5, &attr);  // `ints` as fixed32: another wire type, skipped as protobuf does
  attr += std::string(4, '\x03');
  std::string node;
  field(2, "Foo", &node);
  field(7, attr, &node);
  varint(50 << 3 | 1, &node);  // unknown fixed64 field
  node += std::string(8, '\x02');
  std::string graph;
  field(1, "main", &graph);
  field(2, node, &graph);
  TensorContext ctx;
  ctx.file = "m.onnx";
  auto g = GraphFromPlan(reinterpret_cast<const uint8_t*>(graph.data()), graph.size(), {},
                         PlanBlobs{}, nullptr, ctx);
  ASSERT_TRUE(g.ok()) << g.status().message();
  ASSERT_EQ((*g)->nodes.size(), 1u);
  const Attribute* a = (*g)->nodes[0].FindAttr("is");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->ints, (std::vector<int64_t>{3, -2, 7}));
  EXPECT_EQ(Bits(a->floats), Bits({0.5f, -0.0f}));
}

}  // namespace
}  // namespace vt
