#!/usr/bin/python3
"""Writes tests/onnx_opset18_23/bad/: models of opset 18-23 operators that vtensor must refuse
(exit 2, the node and input named; gen/bad_cases.py lists them with the expected error lines).
ctest opset18_23_bad_inputs runs them. Needs neither ONNX Runtime nor node.

usage: /usr/bin/python3 tests/onnx_opset18_23/generate_bad.py
"""
import os
import shutil
import sys

from onnx import TensorProto

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "gen"))
import bad_cases  # noqa: E402
import dtypes as D  # noqa: E402


def write_pb(path, proto):
    with open(path, "wb") as f:
        f.write(proto.SerializeToString())


def main():
    root = os.path.join(HERE, "bad")
    if os.path.isdir(root):
        shutil.rmtree(root)
    cases = bad_cases.all_bad()
    for name, model, inputs, expect in cases:
        d = os.path.join(root, name)
        os.makedirs(os.path.join(d, "test_data_set_0"))
        write_pb(os.path.join(d, "model.onnx"), model)
        for i, (n, t, a) in enumerate(inputs):
            pb = a if isinstance(a, TensorProto) else D.encode(n, t, a)  # malformed on purpose
            write_pb(os.path.join(d, "test_data_set_0", "input_%d.pb" % i), pb)
        with open(os.path.join(d, "expect.txt"), "w") as f:
            f.write("\n".join(expect) + "\n")
    print("generate_bad: %d models" % len(cases))


if __name__ == "__main__":
    main()
