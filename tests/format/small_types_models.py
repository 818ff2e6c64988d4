#!/usr/bin/python3
"""Writes the models tests/format/small_types_cli.sh checks (docs/dtypes.md): initializers of
every small element type (float8 x4, uint4, int4, float4e2m1; odd element counts for the 4-bit
types), stored as raw_data (small.onnx) and as int32_data (small_int32.onnx), each passed to a
graph output through Identity; hlo.onnx (the types MLIR 16 has, plus a saturating Cast to
float8e4m3fn and back) and refused_<type>.onnx (float8e4m3fnuz, float8e5m2fnuz, float4e2m1,
which the StableHLO export refuses).

usage: small_types_models.py OUT_DIR
"""
import sys

from onnx import TensorProto, helper

TYPES = [("f8e4m3fn", 17, [0x38, 0xFE, 0x7F, 0x01, 0x80]),     # 1, -448, NaN, 2^-9, -0
         ("f8e4m3fnuz", 18, [0x40, 0xFF, 0x80, 0x01, 0x00]),   # 1, -240, NaN, 2^-10, 0
         ("f8e5m2", 19, [0x3C, 0xFB, 0x7C, 0xFE, 0x01]),       # 1, -57344, Inf, NaN, 2^-16
         ("f8e5m2fnuz", 20, [0x40, 0xFF, 0x80, 0x01, 0x7F]),
         ("u4", 21, [0, 15, 7, 8, 1, 2, 3]),
         ("i4", 22, [-8, 7, -1, 0, 3, -2, 5]),
         ("f4", 23, [0x7, 0xF, 0x1, 0x9, 0x0, 0x8, 0x4])]      # 6, -6, 0.5, -0.5, 0, -0, 2


def packed(vals):
    nib = [v & 0xF for v in vals] + ([0] if len(vals) % 2 else [])
    return [nib[i] | (nib[i + 1] << 4) for i in range(0, len(nib), 2)]


def tensor(name, t, vals, int32):
    p = TensorProto()
    p.name, p.data_type = name, t
    p.dims.append(len(vals))
    b = packed(vals) if t >= 21 else [v & 0xFF for v in vals]
    if int32:
        p.int32_data.extend(b)
    else:
        p.raw_data = bytes(b)
    return p


def model(types, int32=False, extra_nodes=(), extra_io=((), ())):
    inits, nodes, outs = [], list(extra_nodes), list(extra_io[1])
    for name, t, vals in types:
        inits.append(tensor("w_" + name, t, vals, int32))
        nodes.append(helper.make_node("Identity", ["w_" + name], ["y_" + name]))
        outs.append(helper.make_tensor_value_info("y_" + name, t, [len(vals)]))
    g = helper.make_graph(nodes, "small_types", list(extra_io[0]), outs, initializer=inits)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 21)], ir_version=10)


def main():
    out = sys.argv[1]
    with open(out + "/small.onnx", "wb") as f:
        f.write(model(TYPES).SerializeToString())
    with open(out + "/small_int32.onnx", "wb") as f:
        f.write(model(TYPES, int32=True).SerializeToString())
    cast = [helper.make_node("Cast", ["x"], ["x8"], to=17),
            helper.make_node("Cast", ["x8"], ["xr"], to=TensorProto.FLOAT)]
    io = ([helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
          [helper.make_tensor_value_info("xr", TensorProto.FLOAT, [4])])
    mlir16 = [TYPES[i] for i in (0, 2, 4, 5)]  # f8e4m3fn, f8e5m2, u4, i4
    with open(out + "/hlo.onnx", "wb") as f:
        f.write(model(mlir16, extra_nodes=cast, extra_io=io).SerializeToString())
    for i in (1, 3, 6):  # f8e4m3fnuz, f8e5m2fnuz, f4: no MLIR 16 type
        with open(out + "/refused_%s.onnx" % TYPES[i][0], "wb") as f:
            f.write(model([TYPES[i]]).SerializeToString())


if __name__ == "__main__":
    main()
