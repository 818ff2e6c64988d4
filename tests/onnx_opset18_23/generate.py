#!/usr/bin/python3
"""Regenerates the opset 18-23 conformance cases under tests/onnx_opset18_23/cases.

usage: /usr/bin/python3 tests/onnx_opset18_23/generate.py [--ort-module DIR] [--only SUBSTR]

Each case is test_<name>/model.onnx + test_data_set_0/{input,output}_N.pb, the layout of ONNX's
node tests. Reference outputs come from ONNX Runtime 1.30 (Node binding, installed into
~/.cache/vtensor/ort as scripts/compare_ort.sh does) and, where ORT cannot run a case or
disagrees with the operator text, from the numpy reference written beside the case; which one
was used, and why, goes to references.tsv. Inputs come from numpy generators seeded by the case
name, so a rerun writes byte-identical files.
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
sys.path.insert(0, os.path.join(HERE, "gen"))
import dtypes as D  # noqa: E402
import catalog  # noqa: E402
from changelog import OPERATOR_VERSIONS  # noqa: E402

ORT_VERSION = "1.30.0"


def ort_module_dir(arg):
    if arg:
        return arg
    home = os.environ.get("HOME") or os.path.expanduser("~")
    cache = os.environ.get("VTENSOR_ORT_CACHE", os.path.join(home, ".cache/vtensor/ort"))
    d = os.path.join(cache, "onnxruntime-node-" + ORT_VERSION)
    mod = os.path.join(d, "node_modules/onnxruntime-node")
    if not os.path.exists(os.path.join(mod, "package.json")):
        os.makedirs(d, exist_ok=True)
        pj = os.path.join(d, "package.json")
        if not os.path.exists(pj):
            with open(pj, "w") as f:
                f.write('{"name":"vtensor-ort-ref","private":true}\n')
        env = dict(os.environ, ONNXRUNTIME_NODE_INSTALL="skip")
        subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--loglevel=error",
                        "onnxruntime-node@" + ORT_VERSION], cwd=d, env=env, check=True)
    return mod


def default_tol(t):
    return {D.FLOAT: (1e-4, 1e-5), D.DOUBLE: (1e-6, 1e-8), D.FLOAT16: (2e-3, 1e-3),
            D.BFLOAT16: (1.6e-2, 1e-2)}.get(t, (0.0, 0.0))


def agree(t, got, want, tol):
    if t == D.STRING or t not in D.FLOAT_TYPES and t not in (D.COMPLEX64, D.COMPLEX128):
        return got.shape == want.shape and np.array_equal(got, want)
    if got.shape != want.shape:
        return False
    rtol, atol = tol or default_tol(t)
    return bool(np.allclose(got.astype(np.float64), want.astype(np.float64), rtol=rtol, atol=atol,
                            equal_nan=True))


def write_pb(path, proto):
    with open(path, "wb") as f:
        f.write(proto.SerializeToString())


def read_outputs(d, case, wide_ok):
    outs = []
    for i, (name, t) in enumerate(case.outputs):
        p = onnx.TensorProto()
        with open(os.path.join(d, "output_%d.pb" % i), "rb") as f:
            p.ParseFromString(f.read())
        _, arr = D.decode(p)
        if t in D.FLOAT_TYPES and t not in (D.FLOAT, D.DOUBLE):
            arr = D.round_to(t, arr, saturate=False)  # exact: came through Cast to t (e5m2 Inf kept)
        elif t in (D.INT4, D.UINT4):
            arr = arr.astype(D.LOGICAL[t])
        outs.append(arr)
    return outs


def describe_diff(t, got, want):
    if got.shape != want.shape:
        return "shape %s vs %s" % (list(got.shape), list(want.shape))
    if t == D.STRING or t in D.INT_TYPES or t == D.BOOL:
        bad = np.argwhere(got != want)
        return "%d elements differ (first at %s)" % (len(bad), bad[0].tolist() if len(bad) else "-")
    d = np.abs(got.astype(np.float64) - want.astype(np.float64))
    d = np.where(np.isnan(got) & np.isnan(want), 0, d)
    return "max |ORT - numpy| = %.3g" % np.nanmax(np.where(np.isnan(d), np.inf, d))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ort-module")
    ap.add_argument("--only", default="")
    ap.add_argument("--out", default=os.path.join(HERE, "cases"))
    args = ap.parse_args()
    cases = [c for c in catalog.all_cases() if args.only in c.name]
    names = [c.name for c in cases]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        sys.exit("duplicate case names: %s" % sorted(dup))
    mod = ort_module_dir(args.ort_module)
    work = tempfile.mkdtemp(prefix="opset18_23_ort_")
    try:
        for c in cases:
            variants = ([("wide", dict(wide=True))] if c.ort else []) + \
                       ([("promote", dict(promote=True))] if c.ort and c.promote else [])
            for tag, kw in variants:
                d = os.path.join(work, c.name + "__" + tag)
                os.makedirs(d)
                write_pb(os.path.join(d, "model.onnx"), c.model(**kw))
                for i, p in enumerate(c.input_protos(**kw)):
                    write_pb(os.path.join(d, "input_%d.pb" % i), p)
        subprocess.run(["node", os.path.join(HERE, "gen/ort_run.js"), mod, work], check=True)
        if not args.only and os.path.isdir(args.out):
            shutil.rmtree(args.out)
        os.makedirs(args.out, exist_ok=True)
        rows = []
        for c in cases:
            rows.append(finish(c, work, args.out))
    finally:
        shutil.rmtree(work)
    if not args.only:
        with open(os.path.join(HERE, "references.tsv"), "w") as f:
            f.write("# case\top\treference\treason (generated by generate.py)\n")
            for r in rows:
                if r[2] == "dropped":
                    continue
                f.write("\t".join(r) + "\n")
        write_readme(rows)
    print("generate: %d cases, %d ORT, %d numpy" % (
        len(rows), sum(r[2].startswith("ort") for r in rows),
        sum(r[2] == "numpy" for r in rows)))


def finish(c, work, out_root):
    ins = [arr for _, _, arr in c.inputs]
    want = c.ref(*ins) if c.ref else None
    if want is not None:
        # saturate=False: a reference already rounded to t (Cast saturate=0 to e5m2 gives Inf)
        # must keep its values
        want = [D.round_to(t, w, saturate=False) if t in D.FLOAT_TYPES and t not in (D.FLOAT, D.DOUBLE)
                else np.asarray(w, dtype=D.LOGICAL[t]) for w, (_, t) in zip(want, c.outputs)]
    source, reason, got = None, "", None
    wide_dir = os.path.join(work, c.name + "__wide")
    prom_dir = os.path.join(work, c.name + "__promote")

    def err(d):
        with open(os.path.join(d, "error.txt")) as f:
            return f.read().strip().splitlines()[0][:200]

    if c.ort and not os.path.exists(os.path.join(wide_dir, "error.txt")):
        got, source = read_outputs(wide_dir, c, True), "ort"
    elif c.ort and c.promote and not os.path.exists(os.path.join(prom_dir, "error.txt")):
        got = read_outputs(prom_dir, c, True)
        got = [D.round_to(t, g) if t in (D.BFLOAT16, D.FLOAT16) else g
               for g, (_, t) in zip(got, c.outputs)]
        source = "ort-float32"
        reason = "ORT cannot run the %s case (%s); ORT's float32 result rounded" % (
            "/".join(sorted({D.NAMES[t] for _, t, _ in c.inputs})), err(wide_dir))
    elif c.ort:
        reason = "ORT: " + err(wide_dir)
    else:
        reason = c.note or "not run in ORT"
    if got is not None and want is not None:
        bad = [i for i, ((_, t), g, w) in enumerate(zip(c.outputs, got, want))
               if not agree(t, g, w, c.tol)]
        if bad:
            i = bad[0]
            reason = "ORT disagrees with the spec on output %d (%s); %s" % (
                i, describe_diff(c.outputs[i][1], got[i], want[i]), c.note or "spec followed")
            got, source = None, None
        elif c.prefer_ref:
            reason = "ORT agrees; " + c.note
            got, source = None, None
    if got is None:
        if want is None:
            print("generate: dropped %s: ORT failed (%s) and there is no numpy reference" % (
                c.name, reason))
            return ["test_" + c.name, "%s-%d" % (c.op, c.version), "dropped", reason]
        got, source = want, "numpy"
    d = os.path.join(out_root, "test_" + c.name)
    if os.path.isdir(d):
        shutil.rmtree(d)
    os.makedirs(os.path.join(d, "test_data_set_0"))
    write_pb(os.path.join(d, "model.onnx"), c.model(out_shapes=[g.shape for g in got]))
    for i, p in enumerate(c.input_protos()):
        write_pb(os.path.join(d, "test_data_set_0", "input_%d.pb" % i), p)
    for i, ((name, t), g) in enumerate(zip(c.outputs, got)):
        write_pb(os.path.join(d, "test_data_set_0", "output_%d.pb" % i), D.encode(name, t, g))
    return ["test_" + c.name, "%s-%d" % (c.op, c.version), source, reason]


README_HEAD = """# ONNX conformance cases for opsets 18-23

Generated by `generate.py` (do not edit the cases by hand). Each case is
`cases/test_<name>/model.onnx` with `test_data_set_0/input_N.pb` and `output_N.pb`, the layout of
ONNX's node tests. ctest runs them as `conformance_opset18_23` (tests/conformance_main.cc); the
cases vtensor is known to fail are listed, each with its reason, in `expected_failures.txt`;
`MISSING.md` sums up what the spec requires for those operators and element types.
`bad/` (written by `generate_bad.py`) holds models that must be refused, exit 2 with the node
and input named; ctest runs them as `opset18_23_bad_inputs`.

Regenerate (byte-identical output; inputs come from numpy generators seeded by the case name):

    /usr/bin/python3 tests/onnx_opset18_23/generate.py

Models are written with onnx.helper (python3-onnx 1.12 does not know these operators; no
checker or shape inference runs on them). IR version: 8 for opset 18, 9 for 19-20, 10 for
21-23 (ONNX pairs opset 23 with IR 11; exporters write IR 10, which vtensor and ORT load).

References: ONNX Runtime 1.30 (onnxruntime-node, CPU, one thread; `gen/ort_run.js`) where it
runs the case. ORT's Node binding cannot hold bfloat16, float8, int4 or float4 tensors, so the
reference model ORT runs takes and returns float32/int8/uint8 and Casts at its boundary (exact
for the values these types hold). Where ORT has no kernel for a bfloat16/float16 case, the
reference is ORT's float32 result rounded to the type (`ort-float32`). Where ORT cannot run a
case at all, or disagrees with the operator text, the reference is the numpy implementation
beside the case in `gen/` (`numpy`). `references.tsv` gives the source and reason per case.

ImageDecoder-20 (ORT 1.30 has no kernel): the lossless PNG / BMP / PGM / PPM pictures of
`gen/cases_20.py` decode to the generator's own pixels; the others (`gen/cases_image.py`: JPEG,
JPEG 2000, TIFF, WebP, raw and plain PBM / PGM / PPM with maxval 1 to 1000, 16-bit / palette /
RGBA / grey+alpha PNG, each as RGB, BGR and Grayscale) are encoded with Pillow (Debian
python3-pil) or written by the generator, and their references decoded with Pillow,
following ONNX's reference implementation (onnx/reference/ops/op_image_decoder.py, which
python3-onnx 1.12 lacks, so its logic is written in the generator): Image.open, np.array, BGR
reversed, Grayscale by convert("L"); pictures Pillow opens in another mode than RGB take
convert("RGB") for RGB / BGR (palettes expanded, alpha dropped, grey repeated).

## ORT 1.30 disagreeing with the operator text (the spec is followed)

"""


def write_readme(rows):
    by_ver = {}
    for name, opver, src, reason in rows:
        by_ver.setdefault(opver, []).append((name, src, reason))
    lines = [README_HEAD]
    for name, opver, src, reason in rows:
        if "disagrees" in reason:
            lines.append("- `%s` (%s): %s\n" % (name, opver, reason))
    lines.append("\n## Operator versions (docs/Changelog.md of ONNX, opsets 18-23)\n\n")
    lines.append("| opset | operator | cases | ORT | ORT float32, rounded | numpy |\n")
    lines.append("| --- | --- | --- | --- | --- | --- |\n")
    total = 0
    for ver, ops in sorted(OPERATOR_VERSIONS.items()):
        for op in ops:
            cs = by_ver.get("%s-%d" % (op, ver), [])
            total += len(cs)
            cnt = lambda k: sum(1 for c in cs if c[1] == k)  # noqa: E731
            lines.append("| %d | %s | %d | %d | %d | %d |\n" % (ver, op, len(cs), cnt("ort"),
                                                             cnt("ort-float32"), cnt("numpy")))
    lines.append("\n%d cases in all.\n\n## Cases whose reference is not ORT's own output\n\n"
                 % total)
    for ver, ops in sorted(OPERATOR_VERSIONS.items()):
        for op in ops:
            cs = [c for c in by_ver.get("%s-%d" % (op, ver), []) if c[1] != "ort"]
            if cs:
                lines.append("- %s-%d: %s\n" % (op, ver, ", ".join(
                    "`%s` (%s)" % (c[0][5:], c[1]) for c in cs)))
    with open(os.path.join(HERE, "README.md"), "w") as f:
        f.write("".join(lines))


if __name__ == "__main__":
    main()
