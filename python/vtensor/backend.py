"""ONNX backend (onnx.backend.base) over vtensor's Python API, so that ONNX's backend test
runner (onnx.backend.test.BackendTest) and other code written against that interface can run
models with vtensor:

    import vtensor.backend
    rep = vtensor.backend.prepare(model_proto)        # or a model path
    outputs = rep.run([x, y])                          # positional, in graph-input order

Keyword arguments of prepare() set vtensor.SessionOptions attributes of the same name.
"""
import numpy as np
import onnx
import onnx.mapping
from onnx.backend.base import Backend, BackendRep, Device, DeviceType, namedtupledict

from . import _vtensor
from .session import InferenceSession


class VtensorRep(BackendRep):
    """A prepared model; run() takes inputs in graph-input order (or a dict by name)."""

    def __init__(self, session, input_names):
        self.session = session
        self._input_names = input_names
        self._output_names = [o.name for o in session.get_outputs()]

    def run(self, inputs, **kwargs):
        if kwargs:
            raise _vtensor.InvalidArgument(f"run: unexpected arguments {sorted(kwargs)}")
        if isinstance(inputs, dict):
            feed = dict(inputs)
        else:
            if isinstance(inputs, np.ndarray):
                inputs = [inputs]
            inputs = list(inputs)
            if len(inputs) > len(self._input_names):
                raise _vtensor.InvalidArgument(
                    f"run: {len(inputs)} inputs for a model with {len(self._input_names)} "
                    f"graph inputs ({', '.join(self._input_names)})")
            feed = dict(zip(self._input_names, inputs))
        outputs = self.session.run(None, feed)
        return namedtupledict("Outputs", self._output_names)(*outputs)


class VtensorBackend(Backend):
    """onnx.backend.base.Backend for vtensor (CPU only)."""

    @classmethod
    def supports_device(cls, device):
        return Device(device).type == DeviceType.CPU

    @classmethod
    def is_compatible(cls, model, device="CPU", **kwargs):
        return cls.supports_device(device)

    @classmethod
    def prepare(cls, model, device="CPU", **kwargs):
        """A VtensorRep for `model`: a ModelProto, its bytes or a file path."""
        if not cls.supports_device(device):
            raise _vtensor.InvalidArgument(f"device '{device}': vtensor runs on the CPU only")
        options = _vtensor.SessionOptions()
        for name, value in kwargs.items():
            if not hasattr(options, name):
                raise _vtensor.InvalidArgument(f"prepare: unknown session option '{name}'")
            setattr(options, name, value)
        if isinstance(model, onnx.ModelProto):
            graph_inputs = [i.name for i in model.graph.input]
            session = InferenceSession(model.SerializeToString(), options)
        else:
            session = InferenceSession(model, options)
            proto = onnx.load(model) if not isinstance(model, (bytes, bytearray)) else \
                onnx.load_model_from_string(bytes(model))
            graph_inputs = [i.name for i in proto.graph.input]
        return VtensorRep(session, graph_inputs)

    @classmethod
    def run_model(cls, model, inputs, device="CPU", **kwargs):
        return cls.prepare(model, device, **kwargs).run(inputs)

    @classmethod
    def run_node(cls, node, inputs, device="CPU", outputs_info=None, **kwargs):
        """Runs one node on `inputs` (arrays, in node-input order). kwargs: opset_version."""
        opset = kwargs.pop("opset_version", onnx.defs.onnx_opset_version())
        feeds = [name for name in node.input if name]
        graph_inputs = [
            onnx.helper.make_tensor_value_info(
                name, onnx.mapping.NP_TYPE_TO_TENSOR_TYPE[np.asarray(x).dtype],
                np.asarray(x).shape)
            for name, x in zip(feeds, inputs)]
        graph_outputs = [onnx.helper.make_empty_tensor_value_info(name)
                         for name in node.output if name]
        graph = onnx.helper.make_graph([node], "run_node", graph_inputs, graph_outputs)
        model = onnx.helper.make_model(
            graph, opset_imports=[onnx.helper.make_opsetid(node.domain, opset)])
        return cls.prepare(model, device, **kwargs).run(list(inputs))


prepare = VtensorBackend.prepare
run_model = VtensorBackend.run_model
run_node = VtensorBackend.run_node
supports_device = VtensorBackend.supports_device
is_compatible = VtensorBackend.is_compatible
