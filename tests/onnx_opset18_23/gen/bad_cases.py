"""Models of the opset 18-23 operators that must be refused: wrong shapes, wrong counts,
invalid attributes. Each is bad/<name>/model.onnx with test_data_set_0/input_N.pb and expect.txt,
the lines `vtensor run` must print (tests/contrib_ops/bad_inputs.sh checks exit 2 and each
line)."""
import numpy as np
from onnx import TensorProto, helper

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


def bad_input(name, t, proto, expect):
    """Identity of one input whose input_0.pb is `proto` (a malformed TensorProto): refused while
    loading, the file, tensor and field named."""
    n = helper.make_node("Identity", ["x"], ["y"], name=name)
    g = helper.make_graph([n], name, [vinfo("x", t, tuple(proto.dims))], [vinfo("y", t)])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 21)])
    m.ir_version = IR_FOR_OPSET[21]
    m.producer_name = "vtensor-opset18-23-gen"
    return name, m, [("x", t, proto)], ["input_0.pb"] + expect


def raw_proto(t, dims, raw=None, int32=None):
    p = TensorProto()
    p.name, p.data_type = "x", t
    p.dims.extend(dims)
    if raw is not None:
        p.raw_data = raw
    else:
        p.int32_data.extend(int32)
    return p


def z(*shape):
    return np.linspace(-1, 1, int(np.prod(shape))).astype(np.float32).reshape(shape)


def i64(*v):
    return np.array(v, np.int64)


def s(*v):
    return np.array(v, dtype=object)


def all_bad():
    return [
        one("image_decoder_pixel_format", "ImageDecoder", 20, [("data", D.UINT8, np.array([80, 53], np.uint8))],
            [("image", D.UINT8)], ["attribute 'pixel_format' is \"rgb\", expected \"RGB\", \"BGR\" or \"Grayscale\""],
            {"pixel_format": "rgb"}),
        one("image_decoder_stream_rank", "ImageDecoder", 20, [("data", D.UINT8, np.zeros((2, 3), np.uint8))],
            [("image", D.UINT8)], ["input 'encoded_stream' (0) has rank 2, expected a 1-D byte stream"]),
        one("image_decoder_stream_type", "ImageDecoder", 20, [("data", F, z(4))], [("image", D.UINT8)],
            ["input 'encoded_stream' (0) has element type float32, expected uint8"]),
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
        one("quantize_blocked_scale_shape", "QuantizeLinear", 21,
            [("x", F, z(4, 6)), ("s", F, np.ones((4, 2), np.float32)),
             ("zp", D.INT4, np.zeros((4, 2), np.int8))], [("y", D.INT4)],
            ["blocked scale must have shape [4,3], got [4,2]"], {"axis": 1, "block_size": 2}),
        one("dequantize_int4_block_size", "DequantizeLinear", 21,
            [("x", D.INT4, np.array([[1, -2, 3, 4, -8], [0, 7, 1, 1, 2]], np.int8)),
             ("s", F, np.ones((2, 1), np.float32))], [("y", F)],
            ["blocked scale must have shape [2,3], got [2,1]"], {"axis": 1, "block_size": 2}),
        bad_input("int4_raw_data_bytes", D.INT4, raw_proto(D.INT4, [5], raw=bytes(5)),
                  ["tensor 'x': field raw_data: 5 bytes, expected 3 for int4[5]"]),
        bad_input("uint4_int32_data_count", D.UINT4, raw_proto(D.UINT4, [4], int32=[1, 2, 3, 4]),
                  ["tensor 'x': field int32_data: 4 values, expected 2 for uint4[4]"]),
        bad_input("float8_int32_data_range", D.F8E4M3FN,
                  raw_proto(D.F8E4M3FN, [2], int32=[0x38, 300]),
                  ["tensor 'x': field int32_data: value 300 at index 1 is not a float8e4m3fn code"]),
    ]
