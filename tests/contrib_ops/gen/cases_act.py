"""Gelu, BiasGelu, FastGelu, QuickGelu, BiasSplitGelu, BiasAdd, GatedAdd, FusedMatMul and
TransposeMatMul: cases and their numpy references (float64, rounded to the output types)."""
import math

import numpy as np

import dtypes as D
from contrib_case import ms_case, rand, f64

F, H, BF, DB = D.FLOAT, D.FLOAT16, D.BFLOAT16, D.DOUBLE
_erfc = np.vectorize(math.erfc)


def gelu_erf(v):
    return v * 0.5 * _erfc(-v / math.sqrt(2))


def gelu_tanh(v):
    return 0.5 * v * (1 + np.tanh(math.sqrt(2 / math.pi) * (v + 0.044715 * v ** 3)))


def quick(v, alpha):
    return v / (1 + np.exp(-alpha * v))


def gelus():
    out = []
    shapes = {"n1": (1,), "n7": (7,), "h33": (3, 33), "h257": (2, 257)}
    for tag, shape in shapes.items():
        n = "gelu_" + tag
        out.append(ms_case(n, "Gelu", [("X", F, rand(n, F, shape, -6, 6))], [("Y", F)],
                           ref=lambda a: [gelu_erf(f64(a["X"]))]))
    for t in (H, BF, DB):
        n = "gelu_" + D.NAMES[t]
        out.append(ms_case(n, "Gelu", [("X", t, rand(n, t, (4, 9), -6, 6))], [("Y", t)],
                           ref=lambda a: [gelu_erf(f64(a["X"]))], promote=t in (H, BF)))
    for tag, shape in [("h1", (3, 1)), ("h7", (2, 7)), ("h33", (4, 33)), ("h257", (2, 257)), ("3d", (2, 3, 5))]:
        n = "bias_gelu_" + tag
        out.append(ms_case(n, "BiasGelu", [("A", F, rand(n, F, shape, -6, 6)), ("B", F, rand(n, F, shape[-1:], -1, 1, salt="b"))],
                           [("C", F)], ref=lambda a: [gelu_erf(f64(a["A"]) + f64(a["B"]))]))
    n = "bias_gelu_float16"
    out.append(ms_case(n, "BiasGelu", [("A", H, rand(n, H, (3, 16), -6, 6)), ("B", H, rand(n, H, (16,), -1, 1, salt="b"))],
                       [("C", H)], ref=lambda a: [gelu_erf(f64(a["A"]) + f64(a["B"]))], promote=True))
    for tag, shape, bias, t in [("no_bias_n7", (7,), False, F), ("no_bias_h257", (2, 257), False, F),
                                ("bias_h1", (3, 1), True, F), ("bias_h33", (4, 33), True, F),
                                ("bias_3d", (2, 3, 17), True, F), ("float16", (3, 16), True, H),
                                ("bfloat16", (3, 16), True, BF), ("double", (3, 8), True, DB)]:
        n = "fast_gelu_" + tag
        ins = [("X", t, rand(n, t, shape, -6, 6))] + ([("bias", t, rand(n, t, shape[-1:], -1, 1, salt="b"))] if bias else [])
        note = ("ORT runs float64 through the schema's function body, written with the formula's "
                "6-digit constants 0.797885 and 0.035677; the reference (and ORT's float kernel) use "
                "sqrt(2/pi) and 0.044715 sqrt(2/pi)") if t == DB else ""
        out.append(ms_case(n, "FastGelu", ins, [("Y", t)],
                           ref=lambda a: [gelu_tanh(f64(a["X"]) + (f64(a["bias"]) if "bias" in a else 0))],
                           promote=t in (H, BF), note=note))
    for tag, alpha, t, shape in [("default_alpha", None, F, (4, 33)), ("alpha1", 1.0, F, (257,)),
                                 ("alpha_negative", -0.5, F, (3, 7)), ("float16", None, H, (3, 16))]:
        n = "quick_gelu_" + tag
        out.append(ms_case(n, "QuickGelu", [("X", t, rand(n, t, shape, -8, 8))], [("Y", t)],
                           {} if alpha is None else {"alpha": alpha},
                           ref=lambda a, al=(1.702 if alpha is None else alpha): [quick(f64(a["X"]), al)],
                           promote=t == H))
    return out


def bias_split_gelu_ref(a):
    x, b = f64(a["X"]), f64(a["bias"])
    v = x + b
    d = v.shape[-1] // 2
    return [v[..., :d] * gelu_erf(v[..., d:])]


def diffusion_ops():
    out = []
    for tag, t, shape in [("d8", F, (2, 3, 8)), ("d66", F, (1, 4, 66)), ("float16", H, (2, 2, 16))]:
        n = "bias_split_gelu_" + tag
        out.append(ms_case(n, "BiasSplitGelu", [("X", t, rand(n, t, shape, -4, 4)),
                                                ("bias", t, rand(n, t, shape[-1:], -1, 1, salt="b"))],
                           [("Y", t)], ref=bias_split_gelu_ref, ort=False,
                           note="ONNX Runtime implements BiasSplitGelu on CUDA only"))
    for tag, t, shape in [("c7", F, (2, 3, 7)), ("c33", F, (1, 5, 33)), ("float16", H, (2, 2, 16))]:
        n = "bias_add_" + tag
        out.append(ms_case(n, "BiasAdd", [("X", t, rand(n, t, shape)), ("bias", t, rand(n, t, shape[-1:], salt="b")),
                                          ("skip", t, rand(n, t, shape, salt="s"))],
                           [("Y", t)], ref=lambda a: [f64(a["X"]) + f64(a["bias"]) + f64(a["skip"])], ort=False,
                           note="ONNX Runtime implements BiasAdd on CUDA only"))
    for tag, t, shape in [("3d", F, (2, 3, 7)), ("2d", F, (5, 33)), ("h257", F, (1, 257)), ("1d", F, (9,)),
                          ("float16", H, (2, 3, 16)), ("bfloat16", BF, (2, 3, 16))]:
        n = "gated_add_" + tag
        gshape = shape[:-1] + (1,)

        def ref(a, t=t):
            p = D.round_to(t, f64(a["Y"]) * f64(a["gate"])) if t != F else f64(a["Y"]) * f64(a["gate"])
            return [f64(a["X"]) + f64(p)]
        out.append(ms_case(n, "GatedAdd", [("X", t, rand(n, t, shape)), ("Y", t, rand(n, t, shape, salt="y")),
                                           ("gate", t, rand(n, t, gshape, -2, 2, salt="g"))],
                           [("output", t)], ref=ref, promote=t in (H, BF)))
    return out


def trans_batch(x, on):
    if not on or x.ndim < 3:
        return x
    r = x.ndim
    return x.transpose(list(range(1, r - 1)) + [0, r - 1])


def fused_ref(alpha, ta, tb, tba, tbb):
    def ref(a):
        A, B = trans_batch(f64(a["A"]), tba), trans_batch(f64(a["B"]), tbb)
        if ta and A.ndim > 1:
            A = np.swapaxes(A, -1, -2)
        if tb and B.ndim > 1:
            B = np.swapaxes(B, -1, -2)
        return [alpha * np.matmul(A, B)]
    return ref


def fused_matmuls():
    out = []
    cases = [("2d", (3, 4), (4, 5), {}), ("trans_a", (4, 3), (4, 5), {"transA": 1}),
             ("trans_b_alpha", (3, 4), (5, 4), {"transB": 1, "alpha": 0.125}),
             ("trans_ab", (33, 7), (17, 33), {"transA": 1, "transB": 1}),
             ("batch_2d_b", (2, 7, 33), (33, 17), {"alpha": 2.0}),
             ("broadcast", (2, 1, 4, 3), (3, 3, 5), {}),
             ("trans_batch_a", (4, 2, 3), (2, 3, 5), {"transBatchA": 1}),
             ("trans_batch_a_trans_a", (3, 2, 4), (2, 3, 5), {"transBatchA": 1, "transA": 1}),
             ("trans_batch_b", (2, 4, 3), (3, 2, 5), {"transBatchB": 1}),
             ("trans_batch_b_trans_b", (2, 4, 3), (5, 2, 3), {"transBatchB": 1, "transB": 1}),
             ("trans_batch_4d", (4, 2, 6, 3), (2, 6, 3, 5), {"transBatchA": 1, "alpha": 0.5}),
             ("trans_batch_both_4d", (3, 2, 6, 4), (5, 2, 6, 3), {"transBatchA": 1, "transBatchB": 1,
                                                                  "transA": 1, "transB": 1}),
             ("a_1d", (3,), (3, 5), {"transA": 1}), ("b_1d", (4, 3), (3,), {"transB": 1}),
             ("k257", (2, 257), (257, 7), {})]
    for tag, sa, sb, attrs in cases:
        n = "fused_matmul_" + tag
        out.append(ms_case(n, "FusedMatMul", [("A", F, rand(n, F, sa, -1, 1)), ("B", F, rand(n, F, sb, -1, 1, salt="b"))],
                           [("Y", F)], attrs, ref=fused_ref(attrs.get("alpha", 1.0), attrs.get("transA", 0),
                                                            attrs.get("transB", 0), attrs.get("transBatchA", 0),
                                                            attrs.get("transBatchB", 0))))
    for t in (H, DB):
        n = "fused_matmul_" + D.NAMES[t]
        out.append(ms_case(n, "FusedMatMul", [("A", t, rand(n, t, (4, 3), -1, 1)), ("B", t, rand(n, t, (5, 4), -1, 1, salt="b"))],
                           [("Y", t)], {"transA": 1, "transB": 1, "alpha": 0.5}, ref=fused_ref(0.5, 1, 1, 0, 0)))
    # A constant B (initializer, prepacked once as Gemm's B) with transB.
    n = "fused_matmul_constant_b_trans_b"
    c = ms_case(n, "FusedMatMul", [("A", F, rand(n, F, (2, 6, 40), -1, 1))], [("Y", F)],
                {"transB": 1, "alpha": 0.25}, ref=None)
    b = rand(n, F, (24, 40), -1, 1, salt="b")
    c.initializers = [("B", F, b)]
    c.nodes[0].input[:] = ["A", "B"]
    c.ref = lambda A, b=b: [0.25 * np.matmul(f64(A), f64(b).T)]
    out.append(c)
    n = "transpose_matmul_trans_a"
    out.append(ms_case(n, "TransposeMatMul", [("A", F, rand(n, F, (4, 3), -1, 1)), ("B", F, rand(n, F, (4, 5), -1, 1, salt="b"))],
                       [("Y", F)], {"transA": 1}, ref=fused_ref(1.0, 1, 0, 0, 0)))
    return out


def all_cases():
    return gelus() + diffusion_ops() + fused_matmuls()
