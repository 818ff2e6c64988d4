"""Python threads sharing one InferenceSession (docs/python.md "Threads"): the GIL is released
during a run and runs of one session are not serialised, so results are what one thread gets
and runs overlap. Throughput figures are bench/python_threads.py's (speed is not tested here)."""
import tempfile
import threading
import unittest

import numpy as np

import models
import vtensor

THREADS = 8
RUNS = 25


def run_threads(count, worker):
    """Starts `count` threads on worker(t) together; returns the errors they reported."""
    errors = []
    start = threading.Barrier(count)

    def body(t):
        try:
            start.wait()
            worker(t)
        except Exception as e:  # noqa: BLE001 (reported to the test)
            errors.append(f"thread {t}: {e!r}")

    threads = [threading.Thread(target=body, args=(t,)) for t in range(count)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    return errors


class ThreadTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        with tempfile.TemporaryDirectory() as d:
            cls.sess = vtensor.InferenceSession(
                models.save(models.matmul_model(256, 192), d, "mm"))
            cls.add = vtensor.InferenceSession(models.save(models.add_model(), d, "add"))

    def test_eight_threads_share_one_session(self):
        sess = self.sess
        rng = np.random.default_rng(3)
        feeds = [rng.standard_normal((17 + t, 256)).astype(np.float32) for t in range(THREADS)]
        want = [sess.run(None, {"X": x})[0] for x in feeds]
        failures = []

        def worker(t):
            for r in range(RUNS):
                (y,) = sess.run(None, {"X": feeds[t]})
                if y.tobytes() != want[t].tobytes():
                    failures.append(f"thread {t} run {r}: result differs from the serial run")
                    return

        self.assertEqual(run_threads(THREADS, worker) + failures, [])

    def test_threads_mix_inputs_and_output_selections(self):
        # Each run takes another input size and output list, so a run that read another run's
        # sizes, buffers or output order would give a wrong shape or value.
        sess = self.add
        rng = np.random.default_rng(5)
        feeds = [(rng.standard_normal((1 + t, 3)).astype(np.float32),
                  rng.standard_normal((1 + t, 3)).astype(np.float32)) for t in range(THREADS)]
        selections = [None, ["Z"], ["Z", "Z"]]
        want = [[sess.run(s, {"X": x, "Y": y}) for s in selections] for x, y in feeds]
        failures = []

        def worker(t):
            x, y = feeds[t]
            for r in range(RUNS):
                k = (t + r) % len(selections)
                got = sess.run(selections[k], {"X": x, "Y": y})
                if [g.tobytes() for g in got] != [w.tobytes() for w in want[t][k]]:
                    failures.append(f"thread {t} run {r}: outputs {selections[k]} differ")
                    return

        self.assertEqual(run_threads(THREADS, worker) + failures, [])

    def test_runs_of_one_session_overlap(self):
        # One long run (a 2048 x 1024 x 1024 MatMul, some 4 GFLOP) and, from a second thread,
        # short runs (1 x 1024 x 1024) of the same session. Were runs serialised, no short run
        # could end while the long run computes: only the few that take the session just
        # before it starts or just after it ends would count. Concurrent runs let hundreds
        # finish meanwhile. This counts what overlaps and times nothing: a loaded machine slows
        # both sides alike.
        with tempfile.TemporaryDirectory() as d:
            sess = vtensor.InferenceSession(models.save(models.matmul_model(1024, 1024), d, "big"))
        rng = np.random.default_rng(7)
        big = rng.standard_normal((2048, 1024)).astype(np.float32)
        small = rng.standard_normal((1, 1024)).astype(np.float32)
        sess.run(None, {"X": small})  # first-run work (buffer pools) out of the way
        long_started = threading.Event()
        long_done = threading.Event()
        short_runs_inside = []

        def long_run():
            long_started.set()
            try:
                sess.run(None, {"X": big})
            finally:
                long_done.set()

        def short_runs():
            long_started.wait()
            while not long_done.is_set():
                sess.run(None, {"X": small})
                if not long_done.is_set():
                    short_runs_inside.append(1)

        errors = run_threads(2, lambda t: long_run() if t == 0 else short_runs())
        self.assertEqual(errors, [])
        self.assertGreaterEqual(
            len(short_runs_inside), 20,
            "short runs did not proceed while a long run of the same session was in flight: "
            "are runs of one session serialised?")

    def test_close_while_other_threads_run(self):
        # close() from one thread while others run: runs in flight finish with their result,
        # later ones raise vtensor.Error; nothing else happens.
        with tempfile.TemporaryDirectory() as d:
            sess = vtensor.InferenceSession(models.save(models.matmul_model(256, 192), d, "mm"))
        x = np.ones((64, 256), np.float32)
        (want,) = sess.run(None, {"X": x})
        outcomes = []

        def worker(t):
            if t == 0:
                sess.close()
                return
            for _ in range(RUNS):
                try:
                    (y,) = sess.run(None, {"X": x})
                    outcomes.append("ok" if y.tobytes() == want.tobytes() else "wrong result")
                except vtensor.Error as e:
                    outcomes.append("closed" if "closed" in str(e) else repr(e))

        self.assertEqual(run_threads(4, worker), [])
        self.assertEqual(set(outcomes) - {"ok", "closed"}, set())
        self.assertIn("closed", outcomes)

    def test_shared_descriptions_cannot_be_changed_by_a_caller(self):
        # get_inputs() returns the NodeArgs every thread shares: a caller editing what it got
        # must not change what another caller sees.
        sess = self.sess
        shape = sess.get_inputs()[0].shape
        shape.append(99)
        sess.get_inputs().clear()
        self.assertEqual(sess.get_inputs()[0].shape, ["M", 256])
        with self.assertRaises(AttributeError):
            sess.get_inputs()[0].name = "other"
        with self.assertRaises(TypeError):
            sess._sess.inputs[0] = None


if __name__ == "__main__":
    unittest.main()
