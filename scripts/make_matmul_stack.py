#!/usr/bin/python3
"""Writes the load-path benchmark model: a chain of L MatMul nodes y = x W1 W2 ... WL with
random f32 weights [H, H] in one external-data file (1 GiB at the defaults: 16 x 4096^2), as a
case directory that scripts/compare_ort.sh --cases-dir reads:

    OUT/matmul_stack/model.onnx, model.onnx.data, test_data_set_0/input_0.pb (x [1, H])

usage: scripts/make_matmul_stack.py OUT [--layers L] [--width H] [--seed S]
Uses Debian's python3-onnx and numpy (run with /usr/bin/python3)."""
import argparse
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out")
    ap.add_argument("--layers", type=int, default=16)
    ap.add_argument("--width", type=int, default=4096)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    case = os.path.join(a.out, "matmul_stack")
    os.makedirs(os.path.join(case, "test_data_set_0"), exist_ok=True)
    rng = np.random.default_rng(a.seed)
    h = a.width
    inits, nodes, prev = [], [], "x"
    for i in range(a.layers):
        # Scaled so that activations keep unit variance through the chain.
        w = (rng.standard_normal((h, h), dtype=np.float32) / np.sqrt(h)).astype(np.float32)
        inits.append(numpy_helper.from_array(w, name=f"w{i}"))
        out = "y" if i == a.layers - 1 else f"h{i}"
        nodes.append(helper.make_node("MatMul", [prev, f"w{i}"], [out]))
        prev = out
    graph = helper.make_graph(
        nodes, "matmul_stack", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, h])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, h])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.save_model(model, os.path.join(case, "model.onnx"), save_as_external_data=True,
                    all_tensors_to_one_file=True, location="model.onnx.data", size_threshold=1024)
    x = rng.standard_normal((1, h), dtype=np.float32)
    with open(os.path.join(case, "test_data_set_0", "input_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(x, "x").SerializeToString())
    print(case)


if __name__ == "__main__":
    main()
