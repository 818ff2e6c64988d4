"""A com.microsoft conformance case: one node of the contrib domain (or of the default domain at
an older opset) with any of its optional inputs and outputs left out.

Builds on tests/onnx_opset18_23/gen (Case, dtypes, the seeded random values of mk); only the
node layout differs: absent optional inputs and outputs are "" in the node and are not graph
inputs or outputs.
"""
import numpy as np

import case as case_mod
import dtypes as D
from case import Case, node
from mk import rand  # noqa: F401  (re-exported for the case tables)

# ONNX pairs these opsets with these IR versions (the contrib cases run at opset 14 to 17).
case_mod.IR_FOR_OPSET.update({14: 7, 15: 8, 16: 8, 17: 8})

MS = "com.microsoft"


class ContribCase(Case):
    def model(self, out_shapes=None, wide=False, promote=False):
        m = super().model(out_shapes=out_shapes, wide=wide, promote=promote)
        m.producer_name = "vtensor-contrib-ops-gen"
        return m


def ms_case(name, op, inputs, outputs, attrs=None, ref=None, opset=17, domain=MS, **kw):
    """inputs: [(name, elem type, array) or None for an absent optional input]; outputs:
    [(name, elem type) or None]. ref(dict name -> array) returns the arrays of every output
    slot (None allowed for absent ones); only the present ones are kept."""
    present_in = [i for i in inputs if i is not None]
    node_in = [i[0] if i is not None else "" for i in inputs]
    while node_in and node_in[-1] == "":
        node_in.pop()
    node_out = [o[0] if o is not None else "" for o in outputs]
    while node_out and node_out[-1] == "":
        node_out.pop()
    slots = [k for k, o in enumerate(outputs) if o is not None]
    ref_fn = None
    if ref is not None:
        names = [i[0] for i in present_in]

        def ref_fn(*arrays):
            full = ref(dict(zip(names, arrays)))
            return [full[k] for k in slots]
    nodes = [node(op, node_in, node_out, domain=domain if domain else "", **(attrs or {}))]
    return ContribCase(name, op, 1 if domain == MS else opset, present_in,
                       [o for o in outputs if o is not None], nodes=nodes, ref=ref_fn,
                       opset=opset, extra_opsets={MS: 1} if domain == MS else {}, **kw)


def f64(x):
    return np.asarray(x, dtype=np.float64)
