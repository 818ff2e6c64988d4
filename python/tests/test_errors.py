"""Bad input raises an exception naming the cause, never crashes: one test per case."""
import gc
import os
import tempfile
import unittest

import numpy as np

import models
import vtensor


class ErrorTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.add_path = models.save(models.add_model(), cls.tmp.name, "add")
        cls.sess = vtensor.InferenceSession(cls.add_path)
        cls.x = np.ones((2, 3), np.float32)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_exception_classes(self):
        self.assertTrue(issubclass(vtensor.Error, RuntimeError))
        self.assertTrue(issubclass(vtensor.InvalidArgument, vtensor.Error))
        self.assertTrue(issubclass(vtensor.InvalidArgument, ValueError))
        self.assertTrue(issubclass(vtensor.NotImplemented, NotImplementedError))
        self.assertTrue(issubclass(vtensor.NoSuchFile, vtensor.Error))
        self.assertTrue(issubclass(vtensor.Fail, vtensor.Error))

    def test_wrong_dtype(self):
        with self.assertRaises(vtensor.InvalidArgument) as cm:
            self.sess.run(None, {"X": self.x.astype(np.float64), "Y": self.x})
        # The command line's message: file, input, both types.
        self.assertIn(f"{self.add_path}: input 'X': dtype float64 does not match declared float32",
                      str(cm.exception))

    def test_strings_for_a_float_input(self):
        with self.assertRaisesRegex(vtensor.InvalidArgument,
                                    "input 'Y': dtype <U1 does not match declared float32"):
            self.sess.run(None, {"X": self.x, "Y": np.array([["a", "b", "c"]])})

    def test_dtype_onnx_lacks(self):
        with self.assertRaisesRegex(vtensor.InvalidArgument,
                                    "input 'X': numpy dtype datetime64.* has no ONNX element"):
            self.sess.run(None, {"X": np.zeros((2, 3), "datetime64[s]"), "Y": self.x})

    def test_wrong_rank(self):
        with self.assertRaisesRegex(vtensor.InvalidArgument,
                                    r"input 'X': shape \[6\] has rank 1, declared \[N,3\]"):
            self.sess.run(None, {"X": np.ones(6, np.float32), "Y": self.x})

    def test_wrong_fixed_dim(self):
        with self.assertRaisesRegex(vtensor.InvalidArgument,
                                    r"input 'Y': shape \[2,4\] does not match declared \[N,3\]"):
            self.sess.run(None, {"X": self.x, "Y": np.ones((2, 4), np.float32)})

    def test_shapes_that_do_not_broadcast(self):
        with self.assertRaisesRegex(vtensor.InvalidArgument, "Add"):
            self.sess.run(None, {"X": self.x, "Y": np.ones((3, 3), np.float32)})

    def test_missing_input(self):
        with self.assertRaisesRegex(vtensor.InvalidArgument,
                                    r"input 'Y' is missing from input_feed \(the model's inputs: "
                                    r"X, Y\)"):
            self.sess.run(None, {"X": self.x})

    def test_unknown_input_name(self):
        with self.assertRaisesRegex(vtensor.InvalidArgument, "unknown input name 'Q'"):
            self.sess.run(None, {"X": self.x, "Y": self.x, "Q": self.x})

    def test_unknown_output_name(self):
        with self.assertRaisesRegex(vtensor.InvalidArgument,
                                    r"unknown output name 'V' \(the model's outputs: Z, W\)"):
            self.sess.run(["Z", "V"], {"X": self.x, "Y": self.x})

    def test_output_names_as_a_string(self):
        with self.assertRaisesRegex(vtensor.InvalidArgument, "not a str"):
            self.sess.run("Z", {"X": self.x, "Y": self.x})

    def test_feed_that_is_not_a_dict(self):
        with self.assertRaisesRegex(vtensor.InvalidArgument, "input_feed must be a dict"):
            self.sess.run(None, [self.x, self.x])

    def test_none_for_a_tensor(self):
        with self.assertRaisesRegex(vtensor.InvalidArgument, "input 'X': None where a tensor"):
            self.sess.run(None, {"X": None, "Y": self.x})

    def test_array_for_a_sequence(self):
        with tempfile.TemporaryDirectory() as d:
            sess = vtensor.InferenceSession(models.save(models.sequence_model(), d, "s"))
        a = np.zeros(2, np.float32)
        with self.assertRaisesRegex(vtensor.InvalidArgument,
                                    r"input 'Q': expected a list of arrays"):
            sess.run(None, {"A": a, "B": a, "Q": a, "P": None})

    def test_run_options(self):
        with self.assertRaisesRegex(vtensor.InvalidArgument, "run_options"):
            self.sess.run(None, {"X": self.x, "Y": self.x}, object())

    def test_error_inside_a_kernel(self):
        with tempfile.TemporaryDirectory() as d:
            sess = vtensor.InferenceSession(models.save(models.reshape_model(), d, "r"))
        with self.assertRaisesRegex(vtensor.InvalidArgument, "Reshape"):
            sess.run(None, {"X": np.ones((2, 3), np.float32), "S": np.array([4, 4], np.int64)})

    def test_closed_session(self):
        sess = vtensor.InferenceSession(self.add_path)
        sess.close()
        for call in (lambda: sess.run(None, {"X": self.x, "Y": self.x}),
                     sess.get_modelmeta, sess.cache_report):
            with self.assertRaisesRegex(vtensor.Error, "InferenceSession is closed"):
                call()
        sess.close()  # closing twice is harmless
        self.assertEqual([i.name for i in sess.get_inputs()], ["X", "Y"])

    def test_deleted_session(self):
        sess = vtensor.InferenceSession(self.add_path)
        run = sess.run  # a bound method keeps the session alive
        inputs = sess.get_inputs()
        (z,) = sess.run(["Z"], {"X": self.x, "Y": self.x})
        del sess
        gc.collect()
        np.testing.assert_array_equal(run(["Z"], {"X": self.x, "Y": self.x})[0], z)
        self.assertEqual(inputs[0].name, "X")

    def test_missing_file(self):
        path = os.path.join(self.tmp.name, "nope.onnx")
        with self.assertRaisesRegex(vtensor.NoSuchFile, "nope.onnx"):
            vtensor.InferenceSession(path)

    def test_garbage_bytes(self):
        # Session::LoadFromBytes's messages (runtime/session.h), naming the model "<model bytes>".
        with self.assertRaisesRegex(vtensor.InvalidArgument,
                                    "<model bytes>: not a valid ONNX ModelProto"):
            vtensor.InferenceSession(b"\xff\xff\xff not a model")
        with self.assertRaisesRegex(vtensor.InvalidArgument, "<model bytes>: empty"):
            vtensor.InferenceSession(b"")
        with self.assertRaisesRegex(vtensor.InvalidArgument, "<model bytes>: empty"):
            vtensor.InferenceSession(bytearray())

    def test_garbage_file(self):
        path = os.path.join(self.tmp.name, "garbage.onnx")
        with open(path, "wb") as f:
            f.write(b"\x0a\xff\xff\xff\xff")
        with self.assertRaisesRegex(vtensor.InvalidArgument, "garbage.onnx"):
            vtensor.InferenceSession(path)

    def test_unknown_operator(self):
        with tempfile.TemporaryDirectory() as d:
            path = models.save(models.unknown_op_model(), d, "u")
            with self.assertRaisesRegex(vtensor.NotImplemented, "NoSuchOp"):
                vtensor.InferenceSession(path)

    def test_wrong_model_argument_type(self):
        with self.assertRaisesRegex(TypeError, "Unable to load from type 'int'"):
            vtensor.InferenceSession(42)
        with self.assertRaisesRegex(TypeError, "sess_options"):
            vtensor.InferenceSession(self.add_path, sess_options={"threads": 2})
        with self.assertRaisesRegex(TypeError, "unexpected keyword"):
            vtensor.InferenceSession(self.add_path, disabled_optimizers=["x"])

    def test_unavailable_provider(self):
        with self.assertRaisesRegex(vtensor.InvalidArgument,
                                    "provider 'CUDAExecutionProvider' is not available"):
            vtensor.InferenceSession(self.add_path, providers=["CUDAExecutionProvider"])
        with self.assertRaisesRegex(vtensor.InvalidArgument, "takes no options"):
            vtensor.InferenceSession(self.add_path,
                                     providers=[("CPUExecutionProvider", {"arena": "1"})])
        with self.assertRaisesRegex(vtensor.InvalidArgument, "list of provider names"):
            vtensor.InferenceSession(self.add_path, providers="CPUExecutionProvider")

    def test_bad_option_values(self):
        so = vtensor.SessionOptions()
        cases = [("verify_policy", "sometimes", "expected always, memo or never"),
                 ("weight_profile", "tiny", "expected exact or compact"),
                 ("architecture", "riscv", "expected native, x86_64-avx512"),
                 ("intra_op_num_threads", -1, "expected >= 0")]
        for attr, value, message in cases:
            with self.assertRaisesRegex(vtensor.InvalidArgument, f"SessionOptions.{attr}.*{message}"):
                setattr(so, attr, value)
        with self.assertRaises(TypeError):
            so.graph_optimization_level = 5
        with self.assertRaises(AttributeError):
            so.no_such_option = 1


if __name__ == "__main__":
    unittest.main()
