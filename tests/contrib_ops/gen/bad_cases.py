"""Models that must be refused: wrong shapes, missing required inputs, ids out of range, and
operators without a kernel. Each is bad/<name>/model.onnx with test_data_set_0/input_N.pb and
expect.txt, the lines `vtensor run` must print (tests/contrib_ops/bad_inputs.sh checks exit 2
and every line)."""
import numpy as np
from onnx import helper

import dtypes as D
from case import vinfo

F = D.FLOAT


def model(name, nodes, inputs, outputs, opset=17):
    g = helper.make_graph(nodes, name, [vinfo(n, t, a.shape) for n, t, a in inputs],
                          [vinfo(n, t) for n, t in outputs])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset), helper.make_opsetid("com.microsoft", 1)])
    m.ir_version = 8
    m.producer_name = "vtensor-contrib-ops-gen"
    return m


def one(name, op, inputs, outputs, expect, attrs=None, node_inputs=None):
    n = helper.make_node(op, node_inputs if node_inputs is not None else [i[0] for i in inputs],
                         [o[0] for o in outputs], name=name, domain="com.microsoft", **(attrs or {}))
    return name, model(name, [n], inputs, outputs), inputs, ["node '%s'" % name] + expect


def z(*shape, t=np.float32):
    return np.linspace(-1, 1, int(np.prod(shape))).astype(t).reshape(shape)


def all_bad():
    x = ("x", F, z(2, 3, 8))
    out = [("y", F)]
    cases = [
        one("sln_gamma_size", "SkipLayerNormalization", [x, ("skip", F, z(2, 3, 8)), ("gamma", F, z(9))], out,
            ["input 'gamma' (2): expected shape [8], got [9]"]),
        one("sln_skip_shape", "SkipLayerNormalization", [x, ("skip", F, z(2, 3, 7)), ("gamma", F, z(8))], out,
            ["input 'skip' (1): shape [2,3,7] does not match input [2,3,8]"]),
        one("sln_beta_size", "SkipLayerNormalization",
            [x, ("skip", F, z(2, 3, 8)), ("gamma", F, z(8)), ("beta", F, z(2, 8))], out,
            ["input 'beta' (3): expected shape [8], got [2,8]"]),
        one("sln_missing_gamma", "SkipLayerNormalization", [x, ("skip", F, z(2, 3, 8))], out,
            ["input 'gamma' (2) is required but missing"]),
        one("ssln_bias_size", "SkipSimplifiedLayerNormalization",
            [x, ("skip", F, z(2, 3, 8)), ("gamma", F, z(8)), ("bias", F, z(5))], out,
            ["input 'bias' (3): expected shape [8], got [5]"]),
        one("eln_word_rank", "EmbedLayerNormalization",
            [("ids", D.INT32, np.array([[1, 2]], np.int32)), ("word", F, z(4, 2, 8)), ("pos", F, z(4, 8)),
             ("gamma", F, z(8)), ("beta", F, z(8))], out,
            ["input 'word_embedding' (2): expected rank 2"], attrs={"mask_index_type": 0},
            node_inputs=["ids", "", "word", "pos", "", "gamma", "beta"]),
        one("eln_id_range", "EmbedLayerNormalization",
            [("ids", D.INT32, np.array([[1, 7]], np.int32)), ("word", F, z(4, 8)), ("pos", F, z(4, 8)),
             ("gamma", F, z(8)), ("beta", F, z(8))], out,
            ["input 'input_ids' (0): value 7 at [0, 1] is outside word_embedding's 4 rows"],
            attrs={"mask_index_type": 0}, node_inputs=["ids", "", "word", "pos", "", "gamma", "beta"]),
        one("bias_gelu_bias_2d", "BiasGelu", [x, ("b", F, z(3, 8))], out,
            ["input 'B' (1): expected shape [8], got [3,8]"]),
        one("fused_matmul_inner", "FusedMatMul", [("a", F, z(3, 4)), ("b", F, z(5, 6))], out,
            ["inner dimensions differ: A [3,4], B [5,6]"]),
        one("gated_rms_norm_scale", "GatedRMSNorm", [x, ("s", F, z(3)), ("g", F, z(2, 3, 8))], out,
            ["input 'scale' (1): expected a 1-D tensor whose length divides X's last dim 8"]),
    ]
    # 10 nodes of one operator without a kernel and 1 of another, between known ones: the error
    # names both operators (the old one stopped at the first 8 nodes).
    nodes, prev = [], "x"
    for i in range(10):
        nodes.append(helper.make_node("NoSuchOp", [prev], ["t%d" % i], name="missing_%d" % i, domain="com.microsoft"))
        prev = "t%d" % i
    nodes.append(helper.make_node("Relu", [prev], ["r"], name="relu"))
    nodes.append(helper.make_node("AnotherMissingOp", ["r"], ["y"], name="other", domain="com.microsoft"))
    cases.append(("missing_kernels", model("missing_kernels", nodes, [x], out), [x],
                  ["no kernel for 2 operators (11 nodes): com.microsoft.NoSuchOp opset 1 (10 nodes), "
                   "com.microsoft.AnotherMissingOp opset 1 (1 node)", "and 3 more nodes"]))
    return cases
