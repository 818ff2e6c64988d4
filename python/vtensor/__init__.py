"""vtensor: an ONNX inference runtime for the CPU, with ONNX Runtime's Python API.

    import numpy as np, vtensor
    sess = vtensor.InferenceSession("model.onnx")
    x = np.zeros(sess.get_inputs()[0].shape, np.float32)
    (y,) = sess.run(None, {sess.get_inputs()[0].name: x})

docs/python.md describes the package: the session and its options, how arrays are passed
(borrowed inputs, outputs without a copy), the errors, compile/check and the ONNX backend.
"""
from ._vtensor import (  # noqa: F401  (re-exported)
    Error,
    Fail,
    GraphOptimizationLevel,
    InvalidArgument,
    ModelMetadata,
    NodeArg,
    NoSuchFile,
    NotImplemented,
    SessionOptions,
    __version__,
    check,
    compile,
)
from .session import InferenceSession, get_all_providers, get_available_providers, get_device

# NotImplemented is importable as vtensor.NotImplemented (ONNX Runtime's name) but kept out of
# `from vtensor import *`, which would hide Python's built-in constant.
__all__ = [
    "Error", "Fail", "GraphOptimizationLevel", "InferenceSession", "InvalidArgument",
    "ModelMetadata", "NodeArg", "NoSuchFile", "SessionOptions", "__version__", "check", "compile",
    "get_all_providers", "get_available_providers", "get_device",
]
