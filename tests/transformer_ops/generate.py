#!/usr/bin/python3
"""Regenerates the transformer operator cases under tests/transformer_ops/cases.

usage: /usr/bin/python3 tests/transformer_ops/generate.py [--ort-module DIR] [--only SUBSTR]

Operators: com.microsoft GroupQueryAttention, MultiHeadAttention, Attention and
RotaryEmbedding; ONNX Attention (opsets 23 and 24) and RotaryEmbedding-23. Each case is
test_<name>/model.onnx + test_data_set_0/{input,output}_N.pb, the layout of ONNX's node tests.
Reference outputs come from ONNX Runtime 1.30 (Node binding, one thread; installed into
~/.cache/vtensor/ort like tests/onnx_opset18_23/generate.py does). Every case also has a numpy
reference written from the operator text (gen/refs.py); where ORT cannot run a case, or
disagrees with the text, the numpy result is the reference and references.tsv says why. Inputs
come from numpy generators seeded by the case name, so a rerun writes the same files.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import onnx

HERE = os.path.dirname(os.path.abspath(__file__))
GEN18 = os.path.join(HERE, "..", "onnx_opset18_23", "gen")
sys.path.insert(0, os.path.join(HERE, "gen"))
sys.path.insert(0, GEN18)
sys.path.insert(0, os.path.join(HERE, "..", "onnx_opset18_23"))
import dtypes as D  # noqa: E402
import generate as gen18  # noqa: E402  (ORT install and ORT-vs-reference comparison)
import cases_gqa  # noqa: E402

TOL = {D.FLOAT: (2e-4, 2e-5), D.FLOAT16: (4e-3, 2e-3), D.BFLOAT16: (2e-2, 1e-2),
       D.DOUBLE: (1e-6, 1e-8)}


def all_cases():
    return cases_gqa.cases()


def write_pb(path, proto):
    with open(path, "wb") as f:
        f.write(proto.SerializeToString())


def finish(c, work, out_root):
    ins = [arr for _, _, arr in c.inputs]
    want = c.ref(*ins) if c.ref else None
    if want is not None:
        want = [D.round_to(t, w) if t in (D.FLOAT16, D.BFLOAT16) else
                np.asarray(w, dtype=D.LOGICAL[t]) for w, (_, t) in zip(want, c.outputs)]
    d = os.path.join(work, c.name)
    got, source, reason = None, "numpy", c.note or "not run in ORT"
    if c.ort:
        if os.path.exists(os.path.join(d, "error.txt")):
            with open(os.path.join(d, "error.txt")) as f:
                reason = "ORT: " + f.read().strip().splitlines()[0][:200]
        else:
            got, source, reason = gen18.read_outputs(d, c, True), "ort", ""
    if got is not None and want is not None:
        for i, ((name, t), g, w) in enumerate(zip(c.outputs, got, want)):
            if not gen18.agree(t, g, w, TOL.get(t)):
                reason = "ORT disagrees with the operator text on output %d %s (%s); %s" % (
                    i, name, gen18.describe_diff(t, g, w), c.note or "text followed")
                got, source = None, "numpy"
                break
        else:
            if c.prefer_ref:
                got, source, reason = None, "numpy", "ORT agrees; " + c.note
    if got is None:
        if want is None:
            raise SystemExit("generate: %s has neither an ORT result nor a reference (%s)" % (
                c.name, reason))
        got = want
    dst = os.path.join(out_root, "test_" + c.name)
    if os.path.isdir(dst):
        shutil.rmtree(dst)
    os.makedirs(os.path.join(dst, "test_data_set_0"))
    write_pb(os.path.join(dst, "model.onnx"), c.model(out_shapes=[g.shape for g in got]))
    for i, p in enumerate(c.input_protos()):
        write_pb(os.path.join(dst, "test_data_set_0", "input_%d.pb" % i), p)
    for i, ((name, t), g) in enumerate(zip(c.outputs, got)):
        write_pb(os.path.join(dst, "test_data_set_0", "output_%d.pb" % i), D.encode(name, t, g))
    return ["test_" + c.name, "%s-%d" % (c.op, c.version), source, reason]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ort-module")
    ap.add_argument("--only", default="")
    ap.add_argument("--out", default=os.path.join(HERE, "cases"))
    args = ap.parse_args()
    cases = [c for c in all_cases() if args.only in c.name]
    names = [c.name for c in cases]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        sys.exit("duplicate case names: %s" % sorted(dup))
    mod = gen18.ort_module_dir(args.ort_module)
    work = tempfile.mkdtemp(prefix="transformer_ops_ort_")
    try:
        for c in cases:
            if not c.ort:
                continue
            d = os.path.join(work, c.name)
            os.makedirs(d)
            write_pb(os.path.join(d, "model.onnx"), c.model(wide=True))
            for i, p in enumerate(c.input_protos(wide=True)):
                write_pb(os.path.join(d, "input_%d.pb" % i), p)
        subprocess.run(["node", os.path.join(GEN18, "ort_run.js"), mod, work], check=True)
        if not args.only and os.path.isdir(args.out):
            shutil.rmtree(args.out)
        os.makedirs(args.out, exist_ok=True)
        rows = [finish(c, work, args.out) for c in cases]
    finally:
        shutil.rmtree(work)
    if not args.only:
        with open(os.path.join(HERE, "references.tsv"), "w") as f:
            f.write("# case\top\treference\treason (generated by generate.py)\n")
            for r in rows:
                f.write("\t".join(r) + "\n")
    for r in rows:
        if r[2] != "ort":
            print("generate: %s: %s: %s" % (r[0], r[2], r[3]))
    print("generate: %d cases, %d ORT, %d numpy" % (
        len(rows), sum(r[2] == "ort" for r in rows), sum(r[2] == "numpy" for r in rows)))


if __name__ == "__main__":
    main()
