"""The five real models (tests/data/refcases, fetched by scripts/fetch_models.sh): outputs
bit-identical to `vtensor run --save-outputs` and within the real-model tolerance (atol 2e-3,
rtol 1e-3, as tests/realmodels/run_realmodel.sh) of ONNX Runtime's reference outputs."""
import glob
import json
import os
import subprocess
import tempfile
import unittest

import numpy as np
import onnx
from onnx import numpy_helper

import vtensor

SOURCE_DIR = os.environ.get("VTENSOR_SOURCE_DIR",
                            os.path.join(os.path.dirname(__file__), "..", ".."))
VTENSOR_BIN = os.environ.get("VTENSOR_BIN", os.path.join(SOURCE_DIR, "build", "vtensor"))
REFCASES = os.path.join(SOURCE_DIR, "tests", "data", "refcases")


def model_cache():
    return subprocess.run([os.path.join(SOURCE_DIR, "scripts", "fetch_models.sh"),
                           "--print-cache"], check=True, capture_output=True,
                          text=True).stdout.strip()


def read_tensors(directory, prefix):
    files = sorted(glob.glob(os.path.join(directory, f"{prefix}_*.pb")),
                   key=lambda p: int(p.rsplit("_", 1)[1].split(".")[0]))
    out = []
    for path in files:
        t = onnx.TensorProto()
        with open(path, "rb") as f:
            t.ParseFromString(f.read())
        out.append(numpy_helper.to_array(t))
    return out


class RealModelTest(unittest.TestCase):
    def check_case(self, case):
        model = os.path.join(model_cache(), case, "model.onnx")
        self.assertTrue(os.path.exists(model),
                        f"model not in the cache: {model} (scripts/fetch_models.sh fetches it)")
        data = os.path.join(REFCASES, case, "test_data_set_0")
        sess = vtensor.InferenceSession(model)
        inputs = read_tensors(data, "input")
        feed = {i.name: x for i, x in zip(sess.get_inputs(), inputs)}
        outputs = sess.run(None, feed)
        with tempfile.TemporaryDirectory() as saved:
            subprocess.run([VTENSOR_BIN, "run", model, "--data", data, "--atol", "2e-3",
                            "--rtol", "1e-3", "--save-outputs", saved],
                           check=True, capture_output=True)
            cli = read_tensors(saved, "output")
        self.assertEqual(len(cli), len(outputs))
        for name, got, want in zip([o.name for o in sess.get_outputs()], outputs, cli):
            self.assertEqual(got.dtype, want.dtype, name)
            self.assertEqual(got.shape, want.shape, name)
            self.assertEqual(got.tobytes(), want.tobytes(), f"{case} {name}: differs from the CLI")
        for got, ref in zip(outputs, read_tensors(data, "output")):
            np.testing.assert_allclose(got, ref, rtol=1e-3, atol=2e-3, err_msg=case)


def _add_cases():
    with open(os.path.join(REFCASES, "index.json")) as f:
        cases = json.load(f)["models"]
    for case in cases:
        name = "test_" + case.replace(".", "_").replace("-", "_")
        setattr(RealModelTest, name, lambda self, c=case: self.check_case(c))


_add_cases()

if __name__ == "__main__":
    unittest.main()
