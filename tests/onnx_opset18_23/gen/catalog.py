"""Every case of the suite, by the opset that added or changed the operator version."""
import numpy as np

import dtypes as D
import cases_18 as c18
import cases_18b as c18b
import cases_19 as c19
import cases_20 as c20
import cases_image as ci
import cases_22 as c22
import cases_23 as c23
import cases_quant as cq
from mk import Case, rand, tname
from refs22 import pool_ref

F8 = [D.F8E4M3FN, D.F8E4M3FNUZ, D.F8E5M2, D.F8E5M2FNUZ]


def opset19_misc():
    out = []
    for tag, shape, attrs in [("dilations", (1, 1, 7, 8), {"kernel_shape": [2, 3],
                                                           "dilations": [2, 2]}),
                              ("dilations_strides_pads", (1, 2, 9, 7),
                               {"kernel_shape": [3, 2], "dilations": [2, 1], "strides": [2, 2],
                                "pads": [1, 1, 2, 0], "count_include_pad": 1}),
                              ("dilations_ceil", (1, 1, 8, 8), {"kernel_shape": [2, 2],
                                                                "dilations": [3, 2],
                                                                "strides": [2, 3],
                                                                "ceil_mode": 1}),
                              ("1d_dilations", (2, 2, 11), {"kernel_shape": [3], "dilations": [3]})]:
        n = "averagepool_19_" + tag
        out.append(Case(n, "AveragePool", 19, [("x", D.FLOAT, rand(n, D.FLOAT, shape))],
                        [("y", D.FLOAT)], attrs=attrs,
                        ref=lambda x, a=attrs: [pool_ref(x.astype(np.float64), "avg", **a)]))
    n = "averagepool_19_float16"
    out.append(Case(n, "AveragePool", 19, [("x", D.FLOAT16, rand(n, D.FLOAT16, (1, 1, 5, 5)))],
                    [("y", D.FLOAT16)], attrs={"kernel_shape": [2, 2], "dilations": [2, 2]},
                    promote=True))
    S = lambda *v: np.array(v, dtype=object)  # noqa: E731
    out.append(Case("equal_19_string", "Equal", 19, [("x", D.STRING, S("a", "bc", "", "d")),
                                                     ("y", D.STRING, S("a", "b", "", "D"))],
                    [("z", D.BOOL)], ref=lambda a, b: [a == b]))
    out.append(Case("equal_19_string_broadcast", "Equal", 19,
                    [("x", D.STRING, S("x", "y", "x", "z", "", "x").reshape(2, 3)),
                     ("y", D.STRING, S("x"))], [("z", D.BOOL)], ref=lambda a, b: [a == b]))
    for t in (D.BFLOAT16, D.INT8, D.UINT64):
        n = "equal_19_" + tname(t)
        a = rand(n, t, (3, 4), -3, 3)
        b = rand(n, t, (4,), -3, 3, salt="b")
        out.append(Case(n, "Equal", 19, [("x", t, a), ("y", t, b)], [("z", D.BOOL)],
                        ref=lambda a, b: [a == b]))
    return out


def all_cases():
    cases = []
    # opset 18
    cases += c18.bitwise() + c18.center_crop_pad() + c18.col2im() + c18.group_norm_18()
    cases += c18.lp_pool() + c18.mish(18, (D.FLOAT, D.DOUBLE, D.FLOAT16)) + c18.optional_ops()
    cases += c18.pad_cases(18, ("constant", "reflect", "edge"), [])
    cases += c18b.reductions() + c18b.resize(18) + c18b.scatter() + c18b.split()
    # opset 19
    cases += c19.cast_cases(19, F8) + c19.new_type_cases(19, F8 + [D.BFLOAT16])
    cases += cq.deform_conv(19, (D.FLOAT, D.DOUBLE, D.FLOAT16))
    cases += c18.pad_cases(19, ("constant", "wrap"), [])[-2:] + c18b.resize(19) + opset19_misc()
    # opset 20
    cases += c20.affine_grid() + c20.constant_of_shape_20() + c20.dft() + c20.gelu()
    cases += c20.grid_sample(20, (D.FLOAT, D.DOUBLE, D.FLOAT16, D.UINT8))
    cases += c20.image_decoder() + ci.image_decoder_formats() + c20.isinf_isnan() + c20.strings()
    # opset 21
    cases += c19.cast_cases(21, [D.INT4, D.UINT4])
    cases += c19.new_type_cases(21, [D.INT4, D.UINT4, D.F8E4M3FN, D.F8E5M2FNUZ])
    # opset 22
    cases += c22.all_22()
    # opset 23
    cases += c19.cast_cases(23, [D.FLOAT4E2M1])
    cases += c19.new_type_cases(23, [D.FLOAT4E2M1, D.INT4, D.F8E4M3FNUZ])
    cases += c23.all_23()
    # QuantizeLinear/DequantizeLinear 19/21/23, QLinearMatMul-21
    cases += cq.quant_cases()
    return cases
