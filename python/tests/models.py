"""Small ONNX models built with onnx.helper for the Python package's tests."""
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17


def _model(nodes, inputs, outputs, initializers=(), **fields):
    graph = helper.make_graph(nodes, fields.pop("graph_name", "g"), inputs, outputs,
                              initializer=list(initializers),
                              doc_string=fields.pop("graph_doc", ""))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], **fields)
    model.ir_version = 8
    return model


def add_model():
    """Z = X + Y, X and Y float[N, 3]; also W = X (Identity: an output aliasing an input)."""
    m = _model(
        [helper.make_node("Add", ["X", "Y"], ["Z"]), helper.make_node("Identity", ["X"], ["W"])],
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, ["N", 3]),
         helper.make_tensor_value_info("Y", TensorProto.FLOAT, ["N", 3])],
        [helper.make_tensor_value_info("Z", TensorProto.FLOAT, ["N", 3]),
         helper.make_tensor_value_info("W", TensorProto.FLOAT, ["N", 3])],
        graph_name="add_graph", graph_doc="adds two tensors", producer_name="vtensor-tests",
        producer_version="1.0", domain="org.vtensor.test", model_version=7,
        doc_string="a test model")
    helper.set_model_props(m, {"author": "tests", "purpose": "metadata"})
    return m


def reduce_model():
    """S = ReduceSum(X) over all axes, X float[?, ?] (unknown dims): a one-element output."""
    return _model(
        [helper.make_node("ReduceSum", ["X"], ["S"], keepdims=0)],
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, [None, None])],
        [helper.make_tensor_value_info("S", TensorProto.FLOAT, [])])


ECHO_TYPES = {
    "bool": (TensorProto.BOOL, np.bool_), "int8": (TensorProto.INT8, np.int8),
    "uint8": (TensorProto.UINT8, np.uint8), "int16": (TensorProto.INT16, np.int16),
    "uint16": (TensorProto.UINT16, np.uint16), "int32": (TensorProto.INT32, np.int32),
    "uint32": (TensorProto.UINT32, np.uint32), "int64": (TensorProto.INT64, np.int64),
    "uint64": (TensorProto.UINT64, np.uint64), "float16": (TensorProto.FLOAT16, np.float16),
    "float": (TensorProto.FLOAT, np.float32), "double": (TensorProto.DOUBLE, np.float64),
    "string": (TensorProto.STRING, np.object_),
}


def echo_model():
    """One Identity per element type: in_<type> -> out_<type>, rank 1 of unknown length."""
    nodes, inputs, outputs = [], [], []
    for name, (elem, _) in ECHO_TYPES.items():
        nodes.append(helper.make_node("Identity", [f"in_{name}"], [f"out_{name}"]))
        inputs.append(helper.make_tensor_value_info(f"in_{name}", elem, ["L"]))
        outputs.append(helper.make_tensor_value_info(f"out_{name}", elem, ["L"]))
    return _model(nodes, inputs, outputs)


def constant_output_model():
    """C = the initializer K (float[2,2]) returned as is; Y = X * K."""
    k = numpy_helper.from_array(np.array([[1, 2], [3, 4]], np.float32), "K")
    return _model(
        [helper.make_node("Identity", ["K"], ["C"]), helper.make_node("Mul", ["X", "K"], ["Y"])],
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, [2, 2])],
        [helper.make_tensor_value_info("C", TensorProto.FLOAT, [2, 2]),
         helper.make_tensor_value_info("Y", TensorProto.FLOAT, [2, 2])],
        initializers=[k])


def matmul_model(k=64, n=48, seed=0):
    """Y = X @ W + B with a constant W float[k, n] (a weight the cache can hold)."""
    rng = np.random.default_rng(seed)
    w = numpy_helper.from_array(rng.standard_normal((k, n)).astype(np.float32), "W")
    b = numpy_helper.from_array(rng.standard_normal(n).astype(np.float32), "B")
    return _model(
        [helper.make_node("MatMul", ["X", "W"], ["T"]), helper.make_node("Add", ["T", "B"], ["Y"])],
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, ["M", k])],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, ["M", n])],
        initializers=[w, b])


def plain_matmul_model(k=64, n=48, seed=0):
    """Y = X @ W with a constant W float[k, n]: a MatMul node of its own (no bias to fuse)."""
    rng = np.random.default_rng(seed)
    w = numpy_helper.from_array(rng.standard_normal((k, n)).astype(np.float32), "W")
    return _model(
        [helper.make_node("MatMul", ["X", "W"], ["Y"])],
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, ["M", k])],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, ["M", n])],
        initializers=[w])


def sequence_model():
    """S = SequenceConstruct(A, B); L = SequenceLength(Q) of an input sequence Q;
    H = OptionalHasElement(P) of an optional input P."""
    seq_f = helper.make_sequence_type_proto(helper.make_tensor_type_proto(TensorProto.FLOAT, ["n"]))
    opt_f = helper.make_optional_type_proto(helper.make_tensor_type_proto(TensorProto.FLOAT, ["n"]))
    return _model(
        [helper.make_node("SequenceConstruct", ["A", "B"], ["S"]),
         helper.make_node("SequenceLength", ["Q"], ["L"]),
         helper.make_node("OptionalHasElement", ["P"], ["H"])],
        [helper.make_tensor_value_info("A", TensorProto.FLOAT, ["n"]),
         helper.make_tensor_value_info("B", TensorProto.FLOAT, ["n"]),
         helper.make_value_info("Q", seq_f), helper.make_value_info("P", opt_f)],
        [helper.make_value_info("S", seq_f),
         helper.make_tensor_value_info("L", TensorProto.INT64, []),
         helper.make_tensor_value_info("H", TensorProto.BOOL, [])])


def bfloat16_model():
    """Y = Cast(X, to=bfloat16), Z = Cast(Y, to=float)."""
    return _model(
        [helper.make_node("Cast", ["X"], ["Y"], to=TensorProto.BFLOAT16),
         helper.make_node("Cast", ["Y"], ["Z"], to=TensorProto.FLOAT)],
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, ["N"])],
        [helper.make_tensor_value_info("Y", TensorProto.BFLOAT16, ["N"]),
         helper.make_tensor_value_info("Z", TensorProto.FLOAT, ["N"])])


def small_types_model():
    """Opset 21: Y8 = Cast(X8: float8e4m3fn, to=float), Y4 = Cast(X4: int4, to=float),
    F8 = Cast(F, to=float8e5m2), F4 = Cast(F, to=uint4) (TensorProto numbers: python3-onnx 1.12
    predates these types)."""
    f8e4m3fn, f8e5m2, uint4, int4 = 17, 19, 21, 22
    model = _model(
        [helper.make_node("Cast", ["X8"], ["Y8"], to=TensorProto.FLOAT),
         helper.make_node("Cast", ["X4"], ["Y4"], to=TensorProto.FLOAT),
         helper.make_node("Cast", ["F"], ["F8"], to=f8e5m2),
         helper.make_node("Cast", ["F"], ["F4"], to=uint4)],
        [helper.make_tensor_value_info("X8", f8e4m3fn, ["N"]),
         helper.make_tensor_value_info("X4", int4, ["N"]),
         helper.make_tensor_value_info("F", TensorProto.FLOAT, ["M"])],
        [helper.make_tensor_value_info("Y8", TensorProto.FLOAT, ["N"]),
         helper.make_tensor_value_info("Y4", TensorProto.FLOAT, ["N"]),
         helper.make_tensor_value_info("F8", f8e5m2, ["M"]),
         helper.make_tensor_value_info("F4", uint4, ["M"])])
    model.opset_import[0].version = 21
    model.ir_version = 10
    return model


def reshape_model():
    """Y = Reshape(X, S): a shape the caller feeds, so a bad one fails inside the run."""
    return _model(
        [helper.make_node("Reshape", ["X", "S"], ["Y"])],
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, [2, 3]),
         helper.make_tensor_value_info("S", TensorProto.INT64, [2])],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [None, None])])


def unknown_op_model():
    """One node of an operator nobody implements."""
    m = _model(
        [helper.make_node("NoSuchOp", ["X"], ["Y"], domain="org.vtensor.none")],
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, [1])],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [1])])
    m.opset_import.append(helper.make_opsetid("org.vtensor.none", 1))
    return m


def save(model, directory, name):
    path = f"{directory}/{name}.onnx"
    onnx.save(model, path)
    return path
