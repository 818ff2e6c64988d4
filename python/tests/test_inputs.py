"""How arrays cross into and out of a session: borrowed inputs, strided views, read-only and
big-endian arrays, element types, strings, sequences, optionals, and outputs that own their
memory."""
import gc
import sys
import tempfile
import tracemalloc
import unittest

import numpy as np

import models
import vtensor


def session(model):
    with tempfile.TemporaryDirectory() as d:
        return vtensor.InferenceSession(models.save(model, d, "m"))


class InputTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.add = session(models.add_model())
        cls.reduce = session(models.reduce_model())

    def test_non_contiguous_views_are_copied_correctly(self):
        base = np.arange(60, dtype=np.float32).reshape(6, 10)
        views = [base[:, ::3][:, :3], base[::2, 1:4], base[:3, :3].T, base[::-1, -3:]]
        for x in views:
            self.assertFalse(x.flags.c_contiguous)
            y = np.ones_like(np.ascontiguousarray(x))
            z, w = self.add.run(None, {"X": x, "Y": y})
            np.testing.assert_array_equal(z, np.ascontiguousarray(x) + 1)
            np.testing.assert_array_equal(w, x)

    def test_read_only_arrays(self):
        x = np.arange(6, dtype=np.float32).reshape(2, 3)
        x.setflags(write=False)
        y = np.frombuffer(bytes(np.ones(6, np.float32).tobytes()), np.float32).reshape(2, 3)
        self.assertFalse(y.flags.writeable)
        z, w = self.add.run(None, {"X": x, "Y": y})
        np.testing.assert_array_equal(z, x + 1)
        self.assertTrue(z.flags.writeable)

    def test_other_byte_order_and_unaligned(self):
        x = np.arange(6, dtype=">f4").reshape(2, 3)
        raw = np.zeros(6 * 4 + 1, np.uint8)
        unaligned = raw[1:].view(np.float32).reshape(2, 3)
        unaligned[...] = 2
        z, _ = self.add.run(None, {"X": x, "Y": unaligned})
        np.testing.assert_array_equal(z, np.arange(6, dtype=np.float32).reshape(2, 3) + 2)
        self.assertEqual(z.dtype, np.dtype("float32"))

    def test_contiguous_input_is_borrowed_strided_input_is_copied(self):
        # numpy reports its allocations to tracemalloc; the runtime's own buffers are not.
        x = np.ones((1024, 1024), np.float32)  # 4 MiB
        refs = sys.getrefcount(x)
        tracemalloc.start()
        try:
            self.reduce.run(None, {"X": x})
            borrowed_peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.reset_peak()
            self.reduce.run(None, {"X": x[:, ::2]})
            copied_peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        self.assertLess(borrowed_peak, 256 << 10)
        self.assertGreaterEqual(copied_peak, 2 << 20)
        self.assertEqual(sys.getrefcount(x), refs)  # the borrow was released

    def test_lists_and_scalars_take_the_declared_type(self):
        z, _ = self.add.run(None, {"X": [[1, 2, 3]], "Y": [[0.5, 0.5, 0.5]]})
        np.testing.assert_array_equal(z, np.array([[1.5, 2.5, 3.5]], np.float32))

    def test_every_element_type_round_trips(self):
        echo = session(models.echo_model())
        feed = {}
        for name, (_, dtype) in models.ECHO_TYPES.items():
            if name == "string":
                feed[f"in_{name}"] = np.array(["a", "", "päivää ✓"], dtype=object)
            elif name == "bool":
                feed[f"in_{name}"] = np.array([True, False, True])
            else:
                info = np.finfo(dtype) if np.dtype(dtype).kind == "f" else np.iinfo(dtype)
                feed[f"in_{name}"] = np.array([info.min, 0, info.max], dtype)
        outputs = echo.run(None, feed)
        for out, (name, (_, dtype)) in zip(outputs, models.ECHO_TYPES.items()):
            want = feed[f"in_{name}"]
            self.assertEqual(out.dtype, np.dtype(dtype), name)
            np.testing.assert_array_equal(out, want, name)

    def test_string_arrays_of_str_and_bytes(self):
        echo = session(models.echo_model())
        feed = {f"in_{n}": np.zeros(0, d) for n, (_, d) in models.ECHO_TYPES.items()}
        for strings in (np.array(["x", "yz"]), np.array([b"x", b"yz"]),
                        np.array(["x", b"yz"], dtype=object)):
            feed["in_string"] = strings
            (out,) = echo.run(["out_string"], feed)
            self.assertEqual(out.tolist(), ["x", "yz"])
            self.assertEqual(out.dtype, np.dtype(object))

    def test_bfloat16_is_uint16_bit_patterns(self):
        sess = session(models.bfloat16_model())
        x = np.array([1.0, 1.00390625, 3.14159, -2.5e-3], np.float32)
        y, z = sess.run(None, {"X": x})
        self.assertEqual(y.dtype, np.uint16)
        np.testing.assert_array_equal((y.astype(np.uint32) << 16).view(np.float32), z)
        np.testing.assert_array_equal(z, [1.0, 1.0, 3.140625, -0.00250244140625])

    def test_bfloat16_inputs_from_bits_or_float32(self):
        with tempfile.TemporaryDirectory() as d:
            model = models.bfloat16_model()
            # Y = Cast(X) with X bfloat16: feed the bits, or float32 values to round.
            model.graph.input[0].type.tensor_type.elem_type = 16
            model.graph.node[0].attribute[0].i = 16
            sess = vtensor.InferenceSession(models.save(model, d, "b"))
        bits = np.array([0x3F80, 0xC040, 0x7F80], np.uint16)  # 1, -3, inf
        _, z = sess.run(None, {"X": bits})
        np.testing.assert_array_equal(z, [1.0, -3.0, np.inf])
        _, z = sess.run(None, {"X": np.array([1.00390625, 2.0], np.float32)})
        np.testing.assert_array_equal(z, [1.0, 2.0])

    def test_float8_and_int4_are_8_bit_codes_and_values(self):
        sess = session(models.small_types_model())
        # float8e4m3fn codes 0x38 = 1, 0xC4 = -3, 0x7E = 448; int4 values -8, 7, 0.
        x8 = np.array([0x38, 0xC4, 0x7E], np.uint8)
        x4 = np.array([-8, 7, 0], np.int8)
        f = np.array([1.0, -0.75, 1e6, 3.0], np.float32)
        y8, y4, f8, f4 = sess.run(None, {"X8": x8, "X4": x4, "F": f})
        np.testing.assert_array_equal(y8, [1.0, -3.0, 448.0])
        np.testing.assert_array_equal(y4, [-8.0, 7.0, 0.0])
        self.assertEqual(f8.dtype, np.uint8)  # float8e5m2 codes: 1, -0.75, 57344 (saturated)
        np.testing.assert_array_equal(f8, [0x3C, 0xBA, 0x7B, 0x42])
        self.assertEqual(f4.dtype, np.uint8)  # uint4 values
        np.testing.assert_array_equal(f4, [1, 0, 0, 3])
        with self.assertRaisesRegex(vtensor.InvalidArgument, "outside int4's range -8..7"):
            sess.run(None, {"X8": x8, "X4": np.array([0, 8, 0], np.int8), "F": f})
        with self.assertRaisesRegex(vtensor.InvalidArgument, "takes a uint8 array"):
            sess.run(None, {"X8": x8.astype(np.float32), "X4": x4, "F": f})

    def test_sequences_and_optionals(self):
        sess = session(models.sequence_model())
        a, b = np.arange(3, dtype=np.float32), np.arange(2, dtype=np.float32)
        s, n, has = sess.run(None, {"A": a, "B": b, "Q": [a, b, a], "P": None})
        self.assertIsInstance(s, list)
        np.testing.assert_array_equal(s[0], a)
        np.testing.assert_array_equal(s[1], b)
        self.assertEqual(int(n), 3)
        self.assertFalse(bool(has))
        _, n, has = sess.run(None, {"A": a, "B": b, "Q": [], "P": a})
        self.assertEqual(int(n), 0)
        self.assertTrue(bool(has))


class OutputTest(unittest.TestCase):
    def test_outputs_own_their_memory_and_outlive_the_session(self):
        sess = session(models.add_model())
        x = np.arange(6, dtype=np.float32).reshape(2, 3)
        z, w = sess.run(None, {"X": x, "Y": x})
        # Z is the runtime's buffer handed over without a copy; W aliases input X, so it is
        # a copy that does not share X's memory.
        self.assertEqual(type(z.base).__name__, "PyCapsule")
        self.assertFalse(np.shares_memory(w, x))
        w[0, 0] = 100
        self.assertEqual(x[0, 0], 0)
        del sess
        gc.collect()
        z += 1
        np.testing.assert_array_equal(z, 2 * x + 1)

    def test_constant_outputs_are_copies(self):
        sess = session(models.constant_output_model())
        x = np.ones((2, 2), np.float32)
        c, y = sess.run(None, {"X": x})
        c[...] = -1
        c2, y2 = sess.run(None, {"X": x})
        np.testing.assert_array_equal(c2, [[1, 2], [3, 4]])
        np.testing.assert_array_equal(y2, y)

    def test_repeated_output_name(self):
        sess = session(models.add_model())
        x = np.ones((1, 3), np.float32)
        a, b = sess.run(["Z", "Z"], {"X": x, "Y": x})
        np.testing.assert_array_equal(a, b)


if __name__ == "__main__":
    unittest.main()
