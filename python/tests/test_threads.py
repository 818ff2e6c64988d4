"""Eight Python threads running one session at once get what one thread gets."""
import tempfile
import threading
import unittest

import numpy as np

import models
import vtensor

THREADS = 8
RUNS = 25


class ThreadTest(unittest.TestCase):
    def test_eight_threads_share_one_session(self):
        with tempfile.TemporaryDirectory() as d:
            sess = vtensor.InferenceSession(models.save(models.matmul_model(256, 192), d, "mm"))
        rng = np.random.default_rng(3)
        feeds = [rng.standard_normal((17 + t, 256)).astype(np.float32) for t in range(THREADS)]
        want = [sess.run(None, {"X": x})[0] for x in feeds]
        errors = []
        start = threading.Barrier(THREADS)

        def worker(t):
            try:
                start.wait()
                for _ in range(RUNS):
                    (y,) = sess.run(None, {"X": feeds[t]})
                    if y.tobytes() != want[t].tobytes():
                        errors.append(f"thread {t}: result differs from the serial run")
                        return
            except Exception as e:  # noqa: BLE001 (reported below)
                errors.append(f"thread {t}: {e!r}")

        threads = [threading.Thread(target=worker, args=(t,)) for t in range(THREADS)]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        self.assertEqual(errors, [])


if __name__ == "__main__":
    unittest.main()
