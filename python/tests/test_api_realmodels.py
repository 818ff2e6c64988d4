"""The five real models (tests/data/refcases, fetched by scripts/fetch_models.sh) through the
three APIs: Python (InferenceSession from the path and from the model's bytes), C (the example
program examples/c/run_model.c, compiled as C, writing its outputs with --save-outputs) and
the command line (`vtensor run --save-outputs`). Every output is bit-identical across them
(dtype, shape and bytes) and within the real-model tolerance (atol 2e-3, rtol 1e-3, as
tests/realmodels/run_realmodel.sh) of ONNX Runtime's reference outputs.

Run as a script (ctest api_realmodels): exit 77 when a model is not in the model cache."""
import glob
import json
import os
import subprocess
import sys
import tempfile
import unittest

import numpy as np
import onnx
from onnx import numpy_helper

import vtensor

SOURCE_DIR = os.environ.get("VTENSOR_SOURCE_DIR",
                            os.path.join(os.path.dirname(__file__), "..", ".."))
VTENSOR_BIN = os.environ.get("VTENSOR_BIN", os.path.join(SOURCE_DIR, "build", "vtensor"))
RUN_MODEL_C = os.environ.get("VTENSOR_RUN_MODEL_C",
                             os.path.join(SOURCE_DIR, "build", "vtensor-run-model-c"))
REFCASES = os.path.join(SOURCE_DIR, "tests", "data", "refcases")


def model_cache():
    return subprocess.run([os.path.join(SOURCE_DIR, "scripts", "fetch_models.sh"),
                           "--print-cache"], check=True, capture_output=True,
                          text=True).stdout.strip()


def cases():
    with open(os.path.join(REFCASES, "index.json")) as f:
        return json.load(f)["models"]


def model_path(case):
    return os.path.join(model_cache(), case, "model.onnx")


def read_tensors(directory, prefix, ext="pb"):
    files = sorted(glob.glob(os.path.join(directory, f"{prefix}_*.{ext}")),
                   key=lambda p: int(p.rsplit("_", 1)[1].split(".")[0]))
    out = []
    for path in files:
        if ext == "npy":
            out.append(np.load(path))
            continue
        t = onnx.TensorProto()
        with open(path, "rb") as f:
            t.ParseFromString(f.read())
        out.append(numpy_helper.to_array(t))
    return out


def run_tool(args):
    done = subprocess.run(args, capture_output=True, text=True)
    if done.returncode != 0:
        raise AssertionError(f"{' '.join(args)} exited {done.returncode}:\n{done.stdout}"
                             f"{done.stderr}")


class CrossApiTest(unittest.TestCase):
    def assert_same(self, case, api, names, got, want):
        self.assertEqual(len(got), len(want), f"{case}: {api} gave another number of outputs")
        for name, g, w in zip(names, got, want):
            self.assertEqual(g.dtype, w.dtype, f"{case} {name}: {api} dtype")
            self.assertEqual(g.shape, w.shape, f"{case} {name}: {api} shape")
            self.assertEqual(g.tobytes(), w.tobytes(),
                             f"{case} {name}: {api} differs from Python's bytes")

    def check_case(self, case):
        model = model_path(case)
        data = os.path.join(REFCASES, case, "test_data_set_0")
        sess = vtensor.InferenceSession(model)
        names = [o.name for o in sess.get_outputs()]
        feed = {i.name: x for i, x in zip(sess.get_inputs(), read_tensors(data, "input"))}
        outputs = sess.run(None, feed)

        with open(model, "rb") as f:
            from_bytes = vtensor.InferenceSession(f.read())
        self.assert_same(case, "Python from bytes", names, from_bytes.run(None, feed), outputs)

        with tempfile.TemporaryDirectory() as saved:
            run_tool([VTENSOR_BIN, "run", model, "--data", data, "--atol", "2e-3",
                      "--rtol", "1e-3", "--save-outputs", saved])
            self.assert_same(case, "the command line", names, read_tensors(saved, "output"),
                             outputs)
        with tempfile.TemporaryDirectory() as saved:
            # run_model compares with the references itself at 1e-4 + 1e-3 |want| (exit 1 when
            # an output is outside); the tolerance here is the looser real-model one below.
            done = subprocess.run([RUN_MODEL_C, model, data, "--save-outputs", saved],
                                  capture_output=True, text=True)
            self.assertIn(done.returncode, (0, 1), f"{case}: run_model:\n{done.stderr}")
            self.assert_same(case, "the C API", names, read_tensors(saved, "output", "npy"),
                             outputs)

        for name, got, ref in zip(names, outputs, read_tensors(data, "output")):
            np.testing.assert_allclose(got, ref, rtol=1e-3, atol=2e-3, err_msg=f"{case} {name}")


for _case in cases():
    setattr(CrossApiTest, "test_" + _case.replace(".", "_").replace("-", "_"),
            lambda self, c=_case: self.check_case(c))


if __name__ == "__main__":
    missing = [c for c in cases() if not os.path.exists(model_path(c))]
    if missing:
        print(f"skipped: not in the model cache {model_cache()}: {', '.join(missing)} "
              "(scripts/fetch_models.sh fetches them)")
        sys.exit(77)
    unittest.main(verbosity=2)
