"""Models of the opset 18-23 operators that must be refused: wrong shapes, wrong counts,
invalid attributes. Each is bad/<name>/model.onnx with test_data_set_0/input_N.pb and expect.txt,
the lines `vtensor run` must print (tests/contrib_ops/bad_inputs.sh checks exit 2 and each
line)."""
import numpy as np
from onnx import helper

import dtypes as D
from case import IR_FOR_OPSET, vinfo

F = D.FLOAT


def one(name, op, opset, inputs, outputs, expect, attrs=None):
    n = helper.make_node(op, [i[0] for i in inputs], [o[0] for o in outputs], name=name, **(attrs or {}))
    g = helper.make_graph([n], name, [vinfo(i, t, a.shape) for i, t, a in inputs],
                          [vinfo(o, t) for o, t in outputs])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = IR_FOR_OPSET[opset]
    m.producer_name = "vtensor-opset18-23-gen"
    return name, m, inputs, ["node '%s'" % name] + expect


def z(*shape):
    return np.linspace(-1, 1, int(np.prod(shape))).astype(np.float32).reshape(shape)


def i64(*v):
    return np.array(v, np.int64)


def s(*v):
    return np.array(v, dtype=object)


def all_bad():
    return [
        one("regex_invalid_pattern", "RegexFullMatch", 20, [("x", D.STRING, s("ab", "a"))], [("y", D.BOOL)],
            ["attribute 'pattern' \"(ab\" is not valid RE2 syntax: missing ): (ab"], {"pattern": "(ab"}),
        one("regex_lookahead", "RegexFullMatch", 20, [("x", D.STRING, s("ab"))], [("y", D.BOOL)],
            ["attribute 'pattern' \"a(?=b)\" is not valid RE2 syntax"], {"pattern": "a(?=b)"}),
        one("string_concat_shapes", "StringConcat", 20, [("x", D.STRING, s("a", "b", "c")),
                                                          ("y", D.STRING, s("d", "e"))], [("z", D.STRING)],
            ["inputs 'X' (0) [3] and 'Y' (1) [2] do not broadcast"]),
        one("center_crop_pad_shape_count", "CenterCropPad", 18, [("x", F, z(3, 5)), ("shape", D.INT64, i64(2, 2))],
            [("y", F)], ["input 'shape' (1) has 2 values for 1 axes"], {"axes": [1]}),
        one("col2im_columns", "Col2Im", 18, [("x", F, z(1, 4, 15)), ("image", D.INT64, i64(5, 5)),
                                             ("block", D.INT64, i64(2, 2))], [("y", F)],
            ["input 'input' (0) has L = 15 columns", "give 16 block positions"]),
        one("col2im_block_size", "Col2Im", 18, [("x", F, z(1, 6, 16)), ("image", D.INT64, i64(5, 5)),
                                                ("block", D.INT64, i64(2, 2))], [("y", F)],
            ["input 'input' (0) dim 1 = 6 is not a multiple of prod(block_shape) = 4"]),
        one("affine_grid_theta_shape", "AffineGrid", 20, [("theta", F, z(2, 2, 3)), ("size", D.INT64, i64(2, 1, 3, 4, 5))],
            [("grid", F)], ["input 'theta' (0): expected shape [2,3,4] for size [2,1,3,4,5], got [2,2,3]"]),
        one("deform_conv_offset_shape", "DeformConv", 19, [("x", F, z(1, 2, 5, 5)), ("w", F, z(1, 2, 3, 3)),
                                                           ("offset", F, z(1, 18, 3, 4))], [("y", F)],
            ["input 'offset' (2): expected shape [1,18,3,3]", "got [1,18,3,4]"]),
        one("deform_conv_mask_shape", "DeformConv", 22, [("x", F, z(1, 2, 5, 5)), ("w", F, z(1, 2, 3, 3)),
                                                         ("offset", F, z(1, 18, 3, 3)), ("b", F, z(1)),
                                                         ("mask", F, z(1, 18, 3, 3))], [("y", F)],
            ["input 'mask' (4): expected shape [1,9,3,3], got [1,18,3,3]"]),
        one("max_roi_pool_batch_id", "MaxRoiPool", 22, [("x", F, z(1, 2, 4, 4)),
                                                         ("rois", F, np.array([[3, 0, 0, 2, 2]], np.float32))],
            [("y", F)], ["input 'rois' (1) row 0: batch_id 3 outside [0, 1)"], {"pooled_shape": [2, 2]}),
        one("quantize_output_dtype_zero_point", "QuantizeLinear", 23,
            [("x", F, z(2, 3)), ("s", F, np.array(0.5, np.float32)), ("zp", D.UINT8, np.array(3, np.uint8))],
            [("y", D.UINT8)], ["output_dtype 3 differs from the y_zero_point type uint8"],
            {"output_dtype": D.INT8}),
        one("quantize_precision_int8", "QuantizeLinear", 23,
            [("x", F, z(2, 3)), ("s", F, np.array(0.5, np.float32))], [("y", D.UINT8)],
            ["precision 3 is not a float type"], {"precision": D.INT8}),
        one("dequantize_output_dtype_int8", "DequantizeLinear", 23,
            [("x", D.INT8, np.array([1, -2], np.int8)), ("s", F, np.array(0.5, np.float32))],
            [("y", F)], ["output_dtype 3 is not float (1), float16 (10) or bfloat16 (16)"],
            {"output_dtype": D.INT8}),
    ]
