// The ONNX operator definitions plugin (format/onnx_defs.h): libonnx's shape inference,
// checker and operator schemas behind the plugin's table, its one exported symbol.
#include <onnx/checker.h>
#include <onnx/defs/function.h>
#include <onnx/defs/schema.h>
#include <onnx/shape_inference/implementation.h>

#include <exception>

#include "format/onnx_defs.h"

namespace vt::onnxdefs {
namespace {

bool InferShapes(onnx::ModelProto* model, std::string* error) {
  try {
    onnx::ShapeInferenceOptions options{false, 0, false};
    onnx::shape_inference::InferShapes(*model, onnx::OpSchemaRegistry::Instance(), options);
    return true;
  } catch (const std::exception& e) {
    *error = e.what();
    return false;
  }
}

bool CheckModel(const onnx::ModelProto& model, std::string* error) {
  try {
    onnx::checker::check_model(model);
    return true;
  } catch (const std::exception& e) {
    *error = e.what();
    return false;
  }
}

std::map<std::string, int> LastOpsets() {
  std::map<std::string, int> last;
  for (const auto& [domain, range] : onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map())
    last[domain] = range.second;
  return last;
}

const void* FindFunctionSchema(const std::string& op_type, int opset, const std::string& domain) {
  const onnx::OpSchema* schema = nullptr;
  try {
    schema = onnx::OpSchemaRegistry::Schema(op_type, opset, domain);
  } catch (...) {
    return nullptr;
  }
  if (schema == nullptr || (!schema->HasFunction() && !schema->HasContextDependentFunction()))
    return nullptr;
  return schema;
}

bool ContextDependent(const void* schema) {
  return static_cast<const onnx::OpSchema*>(schema)->HasContextDependentFunction();
}

std::vector<onnx::AttributeProto> AttributeDefaults(const void* schema) {
  std::vector<onnx::AttributeProto> out;
  for (const auto& [name, attr] : static_cast<const onnx::OpSchema*>(schema)->attributes()) {
    if (!attr.default_value.has_type()) continue;
    out.push_back(attr.default_value);
    out.back().set_name(name);
  }
  return out;
}

bool FunctionBody(const void* schema_ptr, const onnx::NodeProto& node,
                  const std::vector<onnx::TypeProto>& input_types, onnx::FunctionProto* body,
                  std::string* error) {
  const auto* schema = static_cast<const onnx::OpSchema*>(schema_ptr);
  if (schema->HasFunction()) {
    *body = *schema->GetFunction();
    return true;
  }
  onnx::FunctionBodyBuildContextImpl context(node, input_types);
  try {
    if (schema->BuildContextDependentFunction(context, *body)) return true;
    *error = "cannot build context-dependent function body";
  } catch (const std::exception& e) {
    *error = std::string("cannot build function body: ") + e.what();
  }
  return false;
}

// The op type of a body node with a graph attribute (a Loop or If body), or "". The expansion
// renames the body's values in its top-level nodes only: a nested graph would keep reading the
// function's own names, which no longer exist.
std::string NodeWithGraphAttribute(const onnx::FunctionProto& body) {
  for (const onnx::NodeProto& n : body.node())
    for (const onnx::AttributeProto& a : n.attribute())
      if (a.has_g() || a.graphs_size() > 0) return n.op_type();
  return "";
}

// FunctionExpandHelper looks the node's schema up again, at the opset the body imports for the
// node's domain, and uses it unchecked. A built body may import an older opset than the
// operator itself (LayerNormalization 17's imports 16): the lookup found nothing and the helper
// crashed. *lookup is the body importing the schema's own version there (the opset_import is
// not part of what the helper writes). False, with the reason, when no schema is found still.
bool WithSchemaOpset(const onnx::OpSchema& schema, const onnx::NodeProto& node,
                     const onnx::FunctionProto& body, onnx::FunctionProto* lookup,
                     std::string* error) {
  const auto found = [&](int64_t version) {
    return onnx::OpSchemaRegistry::Schema(node.op_type(), static_cast<int>(version),
                                          node.domain()) != nullptr;
  };
  *lookup = body;
  for (onnx::OperatorSetIdProto& os : *lookup->mutable_opset_import()) {
    if (os.domain() != node.domain() || found(os.version())) continue;
    os.set_version(schema.SinceVersion());
    if (!found(os.version())) {
      *error = "cannot expand function body: no schema of '" + node.op_type() + "' in domain '" +
               node.domain() + "' at opset " + std::to_string(os.version());
      return false;
    }
  }
  return true;
}

bool ExpandFunction(const void* schema, const onnx::NodeProto& node,
                    const onnx::FunctionProto& body, const std::string& prefix,
                    onnx::GraphProto* graph, std::string* error) {
  if (const std::string op = NodeWithGraphAttribute(body); !op.empty()) {
    *error = "cannot expand function body: its node '" + op +
             "' has a graph attribute, whose names the expansion would not rename";
    return false;
  }
  onnx::FunctionProto lookup;
  if (!WithSchemaOpset(*static_cast<const onnx::OpSchema*>(schema), node, body, &lookup, error))
    return false;
  try {
    onnx::FunctionExpandHelper(node, lookup, *graph, prefix);
    return true;
  } catch (const std::exception& e) {
    *error = std::string("cannot expand function body: ") + e.what();
    return false;
  }
}

}  // namespace
}  // namespace vt::onnxdefs

extern "C" __attribute__((visibility("default"))) const void* vt_onnxdefs_table(
    int abi, size_t table_bytes) {
  namespace d = vt::onnxdefs;
  static const vt::OnnxDefs table{&d::InferShapes,       &d::CheckModel,
                                  &d::LastOpsets,        &d::FindFunctionSchema,
                                  &d::ContextDependent,  &d::AttributeDefaults, &d::FunctionBody,
                                  &d::ExpandFunction};
  return abi == vt::kOnnxDefsAbi && table_bytes == sizeof(vt::OnnxDefs) ? &table : nullptr;
}
