"""InferenceSession: ONNX Runtime's session API over vtensor's runtime (docs/python.md)."""
import os

from . import _vtensor

CPU_PROVIDER = "CPUExecutionProvider"


def get_available_providers():
    """Execution providers this build can use: vtensor runs on the CPU only."""
    return [CPU_PROVIDER]


def get_all_providers():
    """Every provider vtensor knows (the same list as get_available_providers)."""
    return [CPU_PROVIDER]


def get_device():
    """The device sessions run on."""
    return "CPU"


def _provider_name_and_options(entry):
    if isinstance(entry, str):
        return entry, {}
    if isinstance(entry, tuple) and len(entry) == 2 and isinstance(entry[0], str) \
            and isinstance(entry[1], dict):
        return entry
    raise _vtensor.InvalidArgument(
        f"providers: expected a provider name or a (name, options dict) pair, got {entry!r}")


def _check_providers(providers, provider_options):
    """Accepts only the CPU provider, without options (vtensor's options are SessionOptions)."""
    if providers is None:
        if provider_options is not None:
            raise _vtensor.InvalidArgument("provider_options given without providers")
        return
    if isinstance(providers, str) or not hasattr(providers, "__iter__"):
        raise _vtensor.InvalidArgument(
            f"providers must be a list of provider names, got {type(providers).__name__}")
    entries = [_provider_name_and_options(p) for p in providers]
    if provider_options is not None:
        if len(provider_options) != len(entries):
            raise _vtensor.InvalidArgument(
                f"provider_options has {len(provider_options)} entries for "
                f"{len(entries)} providers")
        entries = [(name, {**opts, **extra})
                   for (name, opts), extra in zip(entries, provider_options)]
    for name, opts in entries:
        if name != CPU_PROVIDER:
            raise _vtensor.InvalidArgument(
                f"provider '{name}' is not available: vtensor runs on the CPU only "
                f"(available providers: {CPU_PROVIDER})")
        if opts:
            raise _vtensor.InvalidArgument(
                f"{CPU_PROVIDER} options {sorted(opts)}: vtensor's CPU provider takes no "
                "options (use vtensor.SessionOptions)")


def _copy_options(options):
    copy = _vtensor.SessionOptions()
    for name in ("intra_op_num_threads", "graph_optimization_level", "verify_policy",
                 "weight_profile", "architecture", "enable_compiled_cache",
                 "warn_cache_misses"):
        setattr(copy, name, getattr(options, name))
    return copy


class InferenceSession:
    """A loaded model, ready to run (ONNX Runtime's onnxruntime.InferenceSession).

    path_or_bytes: a model file path (str or os.PathLike) or the model's bytes.
    sess_options: vtensor.SessionOptions (None: defaults).
    providers: None or a list holding only "CPUExecutionProvider"; provider_options: None or
    one empty dict per provider. Anything else raises vtensor.InvalidArgument.
    Loading errors raise vtensor.NoSuchFile, vtensor.InvalidArgument or
    vtensor.NotImplemented with the message the command line prints. The GIL is released while
    the model loads and while it runs.
    """

    def __init__(self, path_or_bytes, sess_options=None, providers=None, provider_options=None,
                 **kwargs):
        if kwargs:
            raise TypeError(f"InferenceSession: unexpected keyword arguments {sorted(kwargs)}")
        _check_providers(providers, provider_options)
        if sess_options is None:
            sess_options = _vtensor.SessionOptions()
        elif not isinstance(sess_options, _vtensor.SessionOptions):
            raise TypeError("sess_options must be a vtensor.SessionOptions, got "
                            f"{type(sess_options).__name__}")
        self._sess_options = _copy_options(sess_options)
        if isinstance(path_or_bytes, (bytes, bytearray, memoryview)):
            self._model_path = None
            self._sess = _vtensor._Session.from_bytes(bytes(path_or_bytes), self._sess_options)
        elif isinstance(path_or_bytes, (str, os.PathLike)):
            self._model_path = os.fspath(path_or_bytes)
            self._sess = _vtensor._Session.load(self._model_path, self._sess_options)
        else:
            raise TypeError(f"Unable to load from type '{type(path_or_bytes).__name__}': "
                            "expected a path or bytes")

    def run(self, output_names, input_feed, run_options=None):
        """Runs the model once.

        output_names: the outputs to return, in this order (None: all, in model order).
        input_feed: {input name: numpy array (a list of arrays for a sequence input, None for
        an empty optional)}. Returns a list of numpy arrays (lists for sequences, None for
        empty optionals). run_options must be None.
        Errors: vtensor.InvalidArgument for a missing, unknown or mistyped input, an unknown
        output name, a wrong shape; vtensor.Error once the session is closed.
        """
        return self._sess.run(output_names, input_feed, run_options)

    def get_inputs(self):
        """The inputs a caller feeds (initializer-backed graph inputs excluded): NodeArgs."""
        return list(self._sess.inputs)

    def get_outputs(self):
        """The model's outputs: NodeArgs."""
        return list(self._sess.outputs)

    def get_overridable_initializers(self):
        """Always empty: vtensor does not override initializers from the feed."""
        return []

    def get_modelmeta(self):
        """producer_name, graph_name, graph_description, domain, description, version,
        custom_metadata_map."""
        return self._sess.metadata()

    def get_providers(self):
        return [CPU_PROVIDER]

    def get_provider_options(self):
        return {CPU_PROVIDER: {}}

    def get_session_options(self):
        """A copy of the options this session was created with."""
        return _copy_options(self._sess_options)

    def cache_report(self):
        """What happened to each compiled tensor of the model, in file order: dicts with
        index, source_name, device (architecture), type_name, status ("HIT" or "MISS"),
        reason (MISS reason code, "" for a hit), detail, verified, compared (verified by comparing
        with a fresh pack of the source, the first load under memo), memo."""
        return self._sess.cache_report()

    def close(self):
        """Releases the model; later run() calls raise vtensor.Error. Runs in flight finish."""
        self._sess.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    @property
    def model_path(self):
        """The file the model was loaded from (None for bytes)."""
        return self._model_path
