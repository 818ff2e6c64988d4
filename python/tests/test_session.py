"""InferenceSession, SessionOptions, metadata, providers, compile/check and the cache report."""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

import numpy as np

import models
import vtensor


class SessionTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.add_path = models.save(models.add_model(), cls.tmp.name, "add")

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def feed(self, n=2):
        x = np.arange(n * 3, dtype=np.float32).reshape(n, 3)
        return x, np.full((n, 3), 0.5, np.float32)

    def test_inputs_and_outputs_describe_the_model(self):
        sess = vtensor.InferenceSession(self.add_path)
        self.assertEqual([(i.name, i.type, i.shape) for i in sess.get_inputs()],
                         [("X", "tensor(float)", ["N", 3]), ("Y", "tensor(float)", ["N", 3])])
        self.assertEqual([o.name for o in sess.get_outputs()], ["Z", "W"])
        self.assertIn("tensor(float)", repr(sess.get_inputs()[0]))

    def test_unknown_dims_are_none(self):
        with tempfile.TemporaryDirectory() as d:
            sess = vtensor.InferenceSession(models.save(models.reduce_model(), d, "r"))
        self.assertEqual(sess.get_inputs()[0].shape, [None, None])
        self.assertEqual(sess.get_outputs()[0].shape, [])

    def test_type_names_follow_onnx_runtime(self):
        with tempfile.TemporaryDirectory() as d:
            sess = vtensor.InferenceSession(models.save(models.echo_model(), d, "e"))
        types = {i.name[3:]: i.type for i in sess.get_inputs()}
        self.assertEqual(types, {name: f"tensor({name})" for name in models.ECHO_TYPES})
        with tempfile.TemporaryDirectory() as d:
            seq = vtensor.InferenceSession(models.save(models.sequence_model(), d, "s"))
        self.assertEqual([i.type for i in seq.get_inputs()],
                         ["tensor(float)", "tensor(float)", "seq(tensor(float))",
                          "optional(tensor(float))"])

    def test_run_all_outputs_and_selected_outputs(self):
        sess = vtensor.InferenceSession(self.add_path)
        x, y = self.feed()
        z, w = sess.run(None, {"X": x, "Y": y})
        np.testing.assert_array_equal(z, x + y)
        np.testing.assert_array_equal(w, x)
        self.assertEqual(z.dtype, np.float32)
        (w2, z2) = sess.run(["W", "Z"], {"X": x, "Y": y})
        np.testing.assert_array_equal(w2, x)
        np.testing.assert_array_equal(z2, x + y)
        self.assertEqual(len(sess.run([], {"X": x, "Y": y})), 0)

    def test_bytes_and_path_give_the_same_session(self):
        x, y = self.feed(5)
        with open(self.add_path, "rb") as f:
            data = f.read()
        for source in (data, bytearray(data), memoryview(data)):
            from_bytes = vtensor.InferenceSession(source)
            self.assertIsNone(from_bytes.model_path)
            np.testing.assert_array_equal(from_bytes.run(["Z"], {"X": x, "Y": y})[0], x + y)
        import pathlib
        from_path = vtensor.InferenceSession(pathlib.Path(self.add_path))
        self.assertEqual(from_path.model_path, self.add_path)

    def test_malformed_compiled_fields_load_from_bytes_as_from_a_path(self):
        # Session::Load and Session::LoadFromBytes agree: malformed fields 27-29 (compiled
        # tensors) are no entries, not an error.
        x, y = self.feed(3)
        with open(self.add_path, "rb") as f:
            data = f.read() + bytes([0xEA, 0x01, 3, 0xFF, 0xFF, 0xFF])  # field 29, not a message
        path = os.path.join(self.tmp.name, "malformed_ext.onnx")
        with open(path, "wb") as f:
            f.write(data)
        for source in (path, data):
            sess = vtensor.InferenceSession(source)
            self.assertEqual(sess.cache_report(), [])
            np.testing.assert_array_equal(sess.run(["Z"], {"X": x, "Y": y})[0], x + y)

    def test_modelmeta(self):
        meta = vtensor.InferenceSession(self.add_path).get_modelmeta()
        self.assertEqual(meta.producer_name, "vtensor-tests")
        self.assertEqual(meta.graph_name, "add_graph")
        self.assertEqual(meta.graph_description, "adds two tensors")
        self.assertEqual(meta.domain, "org.vtensor.test")
        self.assertEqual(meta.description, "a test model")
        self.assertEqual(meta.version, 7)
        self.assertEqual(meta.custom_metadata_map, {"author": "tests", "purpose": "metadata"})

    def test_providers(self):
        self.assertEqual(vtensor.get_available_providers(), ["CPUExecutionProvider"])
        self.assertEqual(vtensor.get_device(), "CPU")
        for providers in (None, ["CPUExecutionProvider"], [("CPUExecutionProvider", {})]):
            sess = vtensor.InferenceSession(self.add_path, providers=providers)
            self.assertEqual(sess.get_providers(), ["CPUExecutionProvider"])
        vtensor.InferenceSession(self.add_path, providers=["CPUExecutionProvider"],
                                 provider_options=[{}])

    def test_options_change_nothing_in_the_results(self):
        x, y = self.feed(7)
        want = vtensor.InferenceSession(self.add_path).run(["Z"], {"X": x, "Y": y})[0]
        for level in (vtensor.GraphOptimizationLevel.ORT_DISABLE_ALL,
                      vtensor.GraphOptimizationLevel.ORT_ENABLE_BASIC,
                      vtensor.GraphOptimizationLevel.ORT_ENABLE_EXTENDED,
                      vtensor.GraphOptimizationLevel.ORT_ENABLE_ALL):
            so = vtensor.SessionOptions()
            so.graph_optimization_level = level
            so.intra_op_num_threads = 2
            so.architecture = "x86_64-baseline"
            so.verify_policy = "never"
            so.weight_profile = "exact"
            sess = vtensor.InferenceSession(self.add_path, so)
            np.testing.assert_array_equal(sess.run(["Z"], {"X": x, "Y": y})[0], want)
            got = sess.get_session_options()
            self.assertEqual(got.graph_optimization_level, level)
            self.assertEqual(got.architecture, "x86_64-baseline")

    def test_session_keeps_its_own_copy_of_the_options(self):
        so = vtensor.SessionOptions()
        sess = vtensor.InferenceSession(self.add_path, so)
        so.intra_op_num_threads = 3
        self.assertEqual(sess.get_session_options().intra_op_num_threads, 0)
        self.assertIn("intra_op_num_threads=3", repr(so))

    def test_context_manager_closes(self):
        with vtensor.InferenceSession(self.add_path) as sess:
            x, y = self.feed()
            sess.run(None, {"X": x, "Y": y})
        with self.assertRaisesRegex(vtensor.Error, "closed"):
            sess.run(None, {"X": x, "Y": y})


class CompileTest(unittest.TestCase):
    def test_compact_reports_its_lossy_forms(self):
        x = np.random.default_rng(2).standard_normal((5, 64)).astype(np.float32)
        opts = vtensor.SessionOptions()
        opts.weight_profile = "compact"
        with tempfile.TemporaryDirectory() as d:
            # A lone MatMul takes int4 blocks: its results change.
            src = models.save(models.plain_matmul_model(), d, "mm")
            out = os.path.join(d, "mm.vt.onnx")
            summary = vtensor.compile(src, out, profile="compact")
            self.assertEqual(summary["lossy"], {"vt.q4_0_gemm_b": 1})
            want = vtensor.InferenceSession(src).run(None, {"X": x})[0]
            got = vtensor.InferenceSession(out, opts).run(None, {"X": x})[0]
            self.assertGreater(np.abs(got - want).max(), 0.0)
            # MatMul + Add runs as one Dense node, which computes in f32 only: nothing lossy.
            src = models.save(models.matmul_model(), d, "dense")
            out = os.path.join(d, "dense.vt.onnx")
            self.assertEqual(vtensor.compile(src, out, profile="compact")["lossy"], {})
            want = vtensor.InferenceSession(src).run(None, {"X": x})[0]
            got = vtensor.InferenceSession(out, opts).run(None, {"X": x})[0]
            np.testing.assert_array_equal(got, want)

    def test_compiled_model_hits_and_matches(self):
        with tempfile.TemporaryDirectory() as d:
            src = models.save(models.matmul_model(), d, "mm")
            out = os.path.join(d, "mm.vt.onnx")
            summary = vtensor.compile(src, out)
            self.assertGreaterEqual(summary["entries"], 1)
            self.assertEqual(summary["payload_file"], out + ".vtpack")
            self.assertTrue(os.path.exists(out + ".vtpack"))
            x = np.random.default_rng(1).standard_normal((5, 64)).astype(np.float32)
            plain = vtensor.InferenceSession(src)
            self.assertEqual(plain.cache_report(), [])
            compiled = vtensor.InferenceSession(out)
            report = compiled.cache_report()
            self.assertEqual(len(report), summary["entries"])
            for entry in report:
                self.assertEqual(entry["status"], "HIT", entry)
                self.assertEqual(entry["reason"], "")
                self.assertEqual(entry["source_name"], "W")
                self.assertTrue(entry["device"].startswith("x86_64"))
            np.testing.assert_array_equal(compiled.run(None, {"X": x})[0],
                                          plain.run(None, {"X": x})[0])
            so = vtensor.SessionOptions()
            so.enable_compiled_cache = False
            off = vtensor.InferenceSession(out, so)
            self.assertTrue(all(e["status"] == "MISS" for e in off.cache_report()))
            # The checker's findings, as `vtensor check --json` prints them.
            report = vtensor.check(out)
            self.assertTrue(report["readable"])
            self.assertEqual(report["errors"], 0, report["findings"])
            self.assertEqual(report["compiled_tensors"], summary["entries"])
            decoded = vtensor.check(out, decode=True)
            self.assertEqual(decoded["errors"], 0, decoded["findings"])

    def test_unused_cache_warns_on_stderr_unless_silenced(self):
        # A compiled model copied without its .vtpack: every weight is packed at load.
        with tempfile.TemporaryDirectory() as d:
            src = models.save(models.matmul_model(), d, "mm")
            out = os.path.join(d, "mm.vt.onnx")
            vtensor.compile(src, out)
            moved = os.path.join(d, "moved")
            os.mkdir(moved)
            shutil.copy(out, moved)
            path = os.path.join(moved, "mm.vt.onnx")
            script = ("import sys, vtensor\n"
                      "so = vtensor.SessionOptions()\n"
                      "so.warn_cache_misses = sys.argv[2] == 'warn'\n"
                      "report = vtensor.InferenceSession(sys.argv[1], so).cache_report()\n"
                      "assert report and all(e['reason'] == 'payload-missing' for e in report)\n")
            for mode in ("warn", "quiet"):
                r = subprocess.run([sys.executable, "-c", script, path, mode],
                                   capture_output=True, text=True, timeout=120)
                self.assertEqual(r.returncode, 0, r.stderr)
                if mode == "warn":
                    self.assertIn("compiled tensors not used (payload-missing", r.stderr)
                    self.assertIn(f"vtensor inspect {path} --cache", r.stderr)
                else:
                    self.assertEqual(r.stderr, "")

    def test_compile_for_several_devices_and_inline(self):
        with tempfile.TemporaryDirectory() as d:
            src = models.save(models.matmul_model(), d, "mm")
            out = os.path.join(d, "mm2.vt.onnx")
            one = vtensor.compile(src, out, devices=["x86_64-baseline"])
            two = vtensor.compile(src, out, devices=["x86_64-baseline", "x86_64-avx2"],
                                  profile="compact", payload="inline", digest="sha256")
            self.assertEqual(two["payload_file"], "")
            self.assertEqual(two["entries"], 2 * one["entries"])
            so = vtensor.SessionOptions()
            so.architecture = "x86_64-baseline"
            so.weight_profile = "compact"
            statuses = {(e["device"], e["status"])
                        for e in vtensor.InferenceSession(out, so).cache_report()}
            self.assertIn(("x86_64-baseline", "HIT"), statuses)
            self.assertIn(("x86_64-avx2", "MISS"), statuses)

    def test_compile_rejects_bad_names_like_the_command_line(self):
        with tempfile.TemporaryDirectory() as d:
            src = models.save(models.matmul_model(), d, "mm")
            out = os.path.join(d, "o.onnx")
            with self.assertRaisesRegex(vtensor.InvalidArgument, "--device 'gpu'"):
                vtensor.compile(src, out, devices=["gpu"])
            with self.assertRaisesRegex(vtensor.InvalidArgument, "--profile 'tiny'"):
                vtensor.compile(src, out, profile="tiny")
            with self.assertRaisesRegex(vtensor.InvalidArgument, "--payload 'cloud'"):
                vtensor.compile(src, out, payload="cloud")
            with self.assertRaisesRegex(vtensor.NoSuchFile, "missing.onnx"):
                vtensor.compile(os.path.join(d, "missing.onnx"), out)
            self.assertFalse(os.path.exists(out))
            with self.assertRaisesRegex(vtensor.NoSuchFile, "missing.onnx"):
                vtensor.check(os.path.join(d, "missing.onnx"))


if __name__ == "__main__":
    unittest.main()
