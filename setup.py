"""pip install of the Python package `vtensor` (docs/python.md), offline:

    /usr/bin/python3 -m venv --system-site-packages /tmp/venv
    /tmp/venv/bin/pip install --no-build-isolation .

builds the extension module vtensor._vtensor with CMake from this repository's sources (target
_vtensor, tests off) in build-python/ (VTENSOR_PIP_BUILD_DIR overrides it; VTENSOR_JOBS sets the
compile jobs) and installs it with the Python files of python/vtensor. Needs the Debian packages
of the README's first command (they include pybind11-dev, python3-dev and python3-numpy).
"""
import os
import pathlib
import re
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = pathlib.Path(__file__).parent.resolve()


def project_version():
    text = (ROOT / "CMakeLists.txt").read_text(encoding="utf-8")
    return re.search(r"project\(vtensor VERSION ([0-9.]+)", text).group(1)


class CMakeExtension(Extension):
    def __init__(self, name):
        super().__init__(name, sources=[])


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build_dir = pathlib.Path(os.environ.get("VTENSOR_PIP_BUILD_DIR", ROOT / "build-python"))
        configure = ["cmake", "-S", str(ROOT), "-B", str(build_dir),
                     "-DCMAKE_BUILD_TYPE=Release", "-DVTENSOR_BUILD_TESTS=OFF",
                     "-DVTENSOR_BUILD_PYTHON=ON", f"-DPython3_EXECUTABLE={sys.executable}"]
        if shutil.which("ninja"):
            configure += ["-G", "Ninja"]
        subprocess.check_call(configure)
        jobs = os.environ.get("VTENSOR_JOBS") or str(os.cpu_count() or 1)
        subprocess.check_call(["cmake", "--build", str(build_dir), "--target", "_vtensor",
                               "-j", jobs])
        suffix = pathlib.Path(self.get_ext_filename(ext.name)).name.split(".", 1)[1]
        built = build_dir / "python" / "vtensor" / f"_vtensor.{suffix}"
        if not built.exists():
            sys.exit(f"setup.py: CMake did not produce {built}")
        dest = pathlib.Path(self.get_ext_fullpath(ext.name))
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built, dest)
        # The plugins, which the extension loads from its own directory on demand: the
        # operator libraries (ImageDecoder, RegexFullMatch) and ONNX's operator definitions
        # (function bodies, shape inference, the checker).
        for plugin in ("libvtensor-oplibs.so", "libvtensor-onnxdefs.so"):
            shutil.copyfile(built.parent / plugin, dest.parent / plugin)


setup(
    name="vtensor",
    version=project_version(),
    description="ONNX inference runtime for the CPU with ONNX Runtime's Python API",
    package_dir={"": "python"},
    packages=["vtensor"],
    ext_modules=[CMakeExtension("vtensor._vtensor")],
    cmdclass={"build_ext": CMakeBuild},
    python_requires=">=3.9",
    install_requires=["numpy"],
    zip_safe=False,
)
