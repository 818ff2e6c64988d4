#!/usr/bin/env python3
"""What the Python API adds to a run: InferenceSession.run (dict of numpy arrays in, list of
numpy arrays out) against Session::Run in C++ on the same session and the same inputs,
measured in one process, alternating blocks of calls. Not a test.

usage: PYTHONPATH=build/python bench/python_overhead.py [--case silero_vad_16k_op15]
           [--rounds 30] [--block 200]

The model comes from the model cache (scripts/fetch_models.sh), its inputs from
tests/data/refcases/CASE/test_data_set_0. Prints the median time per call of each side, the
median of the per-round differences (the overhead) and its spread. One intra-op thread.
ONNX Runtime's Python package is not compared: it is not installable here (no PyPI).
"""
import argparse
import glob
import os
import statistics
import subprocess
import sys
import time

import numpy as np
import onnx
from onnx import numpy_helper

import vtensor

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))


def load_inputs(directory):
    files = sorted(glob.glob(os.path.join(directory, "input_*.pb")),
                   key=lambda p: int(p.rsplit("_", 1)[1].split(".")[0]))
    out = []
    for path in files:
        t = onnx.TensorProto()
        with open(path, "rb") as f:
            t.ParseFromString(f.read())
        out.append(numpy_helper.to_array(t).copy())
    return out


def python_block(sess, feed, n):
    times = []
    run = sess.run
    clock = time.perf_counter
    for _ in range(n):
        t0 = clock()
        run(None, feed)
        times.append(clock() - t0)
    return times


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--case", default="silero_vad_16k_op15")
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--block", type=int, default=200)
    args = parser.parse_args()

    cache = subprocess.run([os.path.join(ROOT, "scripts", "fetch_models.sh"), "--print-cache"],
                           check=True, capture_output=True, text=True).stdout.strip()
    model = os.path.join(cache, args.case, "model.onnx")
    if not os.path.exists(model):
        sys.exit(f"model not in the cache: {model} (run scripts/fetch_models.sh)")
    sess = vtensor.InferenceSession(model)
    inputs = load_inputs(os.path.join(ROOT, "tests", "data", "refcases", args.case,
                                      "test_data_set_0"))
    feed = {i.name: x for i, x in zip(sess.get_inputs(), inputs)}

    # Warm up both paths (buffer pool, caches).
    python_block(sess, feed, args.block)
    sess._sess.time_runs(feed, args.block)
    py_medians, cxx_medians, diffs = [], [], []
    for r in range(args.rounds):
        # Alternate which side goes first so drift favours neither.
        if r % 2 == 0:
            py = statistics.median(python_block(sess, feed, args.block))
            cxx = statistics.median(sess._sess.time_runs(feed, args.block))
        else:
            cxx = statistics.median(sess._sess.time_runs(feed, args.block))
            py = statistics.median(python_block(sess, feed, args.block))
        py_medians.append(py)
        cxx_medians.append(cxx)
        diffs.append(py - cxx)
    us = 1e6
    q = statistics.quantiles(diffs, n=4)
    print(f"model: {model}")
    print(f"rounds: {args.rounds} x {args.block} calls per side, 1 thread")
    print(f"C++ Session::Run        median {statistics.median(cxx_medians) * us:8.2f} us")
    print(f"Python session.run      median {statistics.median(py_medians) * us:8.2f} us")
    print(f"Python overhead         median {statistics.median(diffs) * us:8.2f} us "
          f"(quartiles {q[0] * us:.2f} .. {q[2] * us:.2f} us)")


if __name__ == "__main__":
    main()
