"""ONNX's backend test runner (onnx.backend.test.BackendTest, python3-onnx) over
vtensor.backend: the node, simple and pytorch-* cases shipped with the onnx package (Debian keeps
them in /usr/share/libonnx-testdata/data). The "real" cases are left out: each downloads a zoo
model from the network.

Expected failures are listed in onnx_backend_expected_failures.txt, one per line:
"suite/test_name reason". The run fails when a case outside the list fails and when a listed
case passes (unittest's unexpected success), so the list only shrinks. It also fails when fewer
than MIN_PASSED cases pass. Exit 77 (skipped) without python3-onnx or its test data.

usage: onnx_backend_test.py [-v] [-k SUBSTRING]
"""
import argparse
import functools
import os
import sys
import unittest

try:
    import onnx.backend.test
    from onnx.backend.test import loader
    from onnx.backend.test import runner as onnx_runner
except ImportError:
    print("python3-onnx is not installed: skipped", file=sys.stderr)
    sys.exit(77)

import numpy as np

import vtensor.backend

# onnx 1.12's runner compares dtypes with np.object, an alias numpy 1.24 removed.
if not hasattr(np, "object"):
    np.object = object

HERE = os.path.dirname(os.path.abspath(__file__))
EXPECTED = os.path.join(HERE, "onnx_backend_expected_failures.txt")
DEBIAN_DATA = "/usr/share/libonnx-testdata/data"
SUITES = ("node", "simple", "pytorch-converted", "pytorch-operator")
MIN_PASSED = 1000


def data_dir():
    """The onnx package's own test data, or Debian's copy when the package was stripped."""
    for d in (loader.DATA_DIR, DEBIAN_DATA):
        if os.path.isdir(os.path.join(d, "node")):
            return d
    return None


def read_expected():
    """{test_name: (suite, reason)} from the expected-failure list."""
    expected = {}
    with open(EXPECTED, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            case, _, reason = line.partition(" ")
            suite, _, name = case.partition("/")
            if suite not in SUITES or not name or not reason.strip():
                sys.exit(f"{EXPECTED}:{n}: expected 'suite/test_name reason'")
            expected[name] = (suite, reason.strip())
    return expected


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("-v", "--verbose", action="store_true")
    parser.add_argument("-k", dest="substring", help="only cases whose name contains this")
    args = parser.parse_args()

    root = data_dir()
    if root is None:
        print(f"ONNX backend test data not found ({loader.DATA_DIR}, {DEBIAN_DATA}): skipped",
              file=sys.stderr)
        return 77
    # The runner reads the data through the loader's default directory.
    onnx_runner.load_model_tests = functools.partial(loader.load_model_tests, data_dir=root)

    backend_test = onnx.backend.test.BackendTest(vtensor.backend, __name__)
    expected = read_expected()
    for name, (_, reason) in expected.items():
        # An unseeded random operator matches numpy's draw only by chance: not run.
        if reason.startswith("random output"):
            backend_test.exclude(f"^{name}_cpu$")
        else:
            backend_test.xfail(f"^{name}_cpu$")
    # The runner adds a CPU and a CUDA test per case; only the CPU ones of the cases that need
    # no download are run. (BackendTest.test_suite would sort its test classes, which Python 3
    # cannot compare.)
    downloads = {case.name for case in loader.load_model_tests(data_dir=root, kind="real")}
    suite = unittest.TestSuite()
    for _, case in sorted(backend_test.test_cases.items()):
        for test in unittest.defaultTestLoader.loadTestsFromTestCase(case):
            name = test.id().rsplit(".", 1)[1]
            if not name.endswith("_cpu") or name[:-len("_cpu")] in downloads:
                continue
            if args.substring and args.substring not in name:
                continue
            suite.addTest(test)
    result = unittest.TextTestRunner(verbosity=2 if args.verbose else 1, stream=sys.stdout) \
        .run(suite)
    passed = (result.testsRun - len(result.failures) - len(result.errors) - len(result.skipped)
              - len(result.expectedFailures) - len(result.unexpectedSuccesses))
    print(f"onnx backend: {result.testsRun} cases, {passed} passed, "
          f"{len(result.expectedFailures)} expected failures, {len(result.skipped)} skipped, "
          f"{len(result.failures) + len(result.errors)} unexpected failures, "
          f"{len(result.unexpectedSuccesses)} listed as failing but passed")
    for test in result.unexpectedSuccesses:
        print(f"passes now, remove it from {os.path.basename(EXPECTED)}: {test.id()}")
    if not result.wasSuccessful():
        return 1
    if not args.substring and passed < MIN_PASSED:
        print(f"only {passed} cases passed (at least {MIN_PASSED} expected)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
