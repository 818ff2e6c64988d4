"""One conformance case: a single-node (or small) ONNX graph, its inputs, and how its reference
outputs are obtained.

Models are built with onnx.helper's make_* functions, which do not validate against operator
schemas, so operators and element types newer than python3-onnx 1.12 can be written. The IR
version follows the opset (18: 8, 19-20: 9, 21-23: 10); ONNX pairs opset 23 with IR 11, but
exporters write opset 23 with IR 10 and ONNX Runtime 1.30 accepts both.
"""
import numpy as np
from onnx import helper, ModelProto

import dtypes as D

IR_FOR_OPSET = {18: 8, 19: 9, 20: 9, 21: 10, 22: 10, 23: 10}

# Harness element types: ONNX Runtime's Node binding cannot hold these tensors, so the
# reference model takes/returns the wide type and Casts at its boundary (exact for values that
# the narrow type represents).
WIDE = {D.BFLOAT16: D.FLOAT, D.F8E4M3FN: D.FLOAT, D.F8E4M3FNUZ: D.FLOAT, D.F8E5M2: D.FLOAT,
        D.F8E5M2FNUZ: D.FLOAT, D.FLOAT4E2M1: D.FLOAT, D.INT4: D.INT8, D.UINT4: D.UINT8}


def node(op, inputs, outputs, domain="", **attrs):
    return helper.make_node(op, inputs, outputs, domain=domain or None, **attrs)


def vinfo(name, t, shape=None):
    vi = helper.make_tensor_value_info(name, t, None)
    if shape is not None:
        tt = vi.type.tensor_type
        tt.shape.Clear()
        for d in shape:
            tt.shape.dim.add().dim_value = int(d)
    return vi


class Case:
    """name: test_<name> directory; op/version: the operator version it covers.

    inputs: [(name, elem type, logical array)]; outputs: [(name, elem type)];
    initializers: [(name, elem type, logical array)]; nodes: NodeProtos (default: one node
    op(inputs) -> outputs with attrs).
    ref: numpy reference (list of logical input arrays -> list of logical output arrays), used
    when ORT cannot run the case, and checked against ORT where it can (spec wins).
    promote: when ORT has no kernel for a bfloat16/float16 case, run it in float32 and round.
    ort: False skips ORT (random-free ops ORT does not implement at all, decided up front).
    """

    def __init__(self, name, op, version, inputs, outputs, attrs=None, nodes=None,
                 initializers=None, ref=None, promote=False, ort=True, tol=None, note="",
                 domain="", opset=None, extra_opsets=None, node_inputs=None, prefer_ref=False):
        self.name, self.op, self.version = name, op, version
        self.opset = opset or version
        self.inputs, self.outputs = inputs, outputs
        self.initializers = initializers or []
        names = node_inputs if node_inputs is not None else [n for n, _, _ in inputs] + \
            [n for n, _, _ in self.initializers]
        self.nodes = nodes or [node(op, names, [n for n, _ in outputs], domain=domain,
                                    **(attrs or {}))]
        self.ref, self.promote, self.ort, self.tol, self.note = ref, promote, ort, tol, note
        self.extra_opsets = extra_opsets or {}
        self.prefer_ref = prefer_ref  # numpy reference even where ORT agrees (note says why)

    def model(self, out_shapes=None, wide=False, promote=False):
        """ModelProto of the case; wide/promote build the ORT reference variant."""
        nodes = list(self.nodes)
        ins, outs, pre, post = [], [], [], []
        float_types = (D.BFLOAT16, D.FLOAT16)
        for name, t, arr in self.inputs:
            wt = t
            if promote and t in float_types:
                wt = D.FLOAT
            elif wide and t in WIDE:
                wt = WIDE[t]
            if wt != t and not promote:
                pre.append(node("Cast", [name + "__wide"], [name], to=t))
                ins.append(vinfo(name + "__wide", wt, arr.shape))
            else:
                ins.append(vinfo(name, wt, np.shape(arr)))
        for i, (name, t) in enumerate(self.outputs):
            shape = out_shapes[i] if out_shapes else None
            wt = t
            if promote and t in float_types:
                wt = D.FLOAT
            elif wide and t in WIDE:
                wt = WIDE[t]
            if wt != t and not promote:
                post.append(node("Cast", [name], [name + "__wide"], to=wt))
                outs.append(vinfo(name + "__wide", wt, shape))
            else:
                outs.append(vinfo(name, wt, shape))
        inits = []
        for name, t, arr in self.initializers:
            if promote and t in float_types:
                inits.append(D.encode(name, D.FLOAT, arr))
            else:
                inits.append(D.encode(name, t, arr))
        g = helper.make_graph(pre + nodes + post, "test_" + self.name, ins, outs, inits)
        m = ModelProto()
        m.ir_version = IR_FOR_OPSET[self.opset]
        m.producer_name = "vtensor-opset18-23-gen"
        m.graph.CopyFrom(g)
        op = m.opset_import.add()
        op.domain, op.version = "", self.opset
        for dom, ver in sorted(self.extra_opsets.items()):
            o = m.opset_import.add()
            o.domain, o.version = dom, ver
        return m

    def input_protos(self, wide=False, promote=False):
        out = []
        for name, t, arr in self.inputs:
            if promote and t in (D.BFLOAT16, D.FLOAT16):
                out.append(D.encode(name, D.FLOAT, arr))
            elif wide and t in WIDE:
                out.append(D.encode(name + "__wide", WIDE[t], arr))
            else:
                out.append(D.encode(name, t, arr))
        return out
