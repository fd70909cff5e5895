# Copyright neardup authors. Licensed under Apache-2.0.
"""Builds and installs the neardup Python module: pip install --no-build-isolation .

Everything comes from Debian packages (scripts/install-deps.sh): setuptools
and wheel run this script, and its build_ext runs CMake and Ninja to build
only the module's target (neardup_python, python/CMakeLists.txt) and copies
the module into the package. Use a virtual environment made with
/usr/bin/python3 -m venv --system-site-packages, so that numpy comes from
Debian too and nothing is downloaded.

NEARDUP_CMAKE_BUILD_DIR=DIR builds in an existing CMake build folder (say
build/, made by scripts/build.sh): the library is not compiled again, only
the module. Without it, the build goes to build-python/ (tests and
benchmarks off). CMAKE_BUILD_PARALLEL_LEVEL sets the build's jobs.
"""
import os
import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent


def project_version():
    text = (ROOT / "CMakeLists.txt").read_text(encoding="utf-8")
    return re.search(r"project\(neardup VERSION ([0-9.]+)", text).group(1)


def cached_python(build_dir):
    """The Python_EXECUTABLE the build folder was configured with, or None."""
    cache = build_dir / "CMakeCache.txt"
    if not cache.is_file():
        return None
    for line in cache.read_text(encoding="utf-8", errors="replace").splitlines():
        if line.startswith("Python_EXECUTABLE:"):
            return line.split("=", 1)[1]
    return None


class CMakeExtension(Extension):
    """An extension that CMake builds (no sources of its own here)."""

    def __init__(self, name, target):
        super().__init__(name, sources=[])
        self.target = target


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        given = os.environ.get("NEARDUP_CMAKE_BUILD_DIR")
        build_dir = (ROOT / given).resolve() if given else ROOT / "build-python"
        fresh = not (build_dir / "CMakeCache.txt").is_file()
        # The interpreter the module is built for: this one, resolved out of
        # a virtual environment (so that the build folder outlives it).
        python = os.path.realpath(sys.executable)
        configure = ["cmake", "-S", str(ROOT), "-B", str(build_dir), "-DNEARDUP_BUILD_PYTHON=ON"]
        if fresh:
            configure += ["-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release", "-DNEARDUP_BUILD_TESTS=OFF",
                          "-DNEARDUP_BUILD_BENCHMARKS=OFF", "-DNEARDUP_INSTALL=OFF", "-DNEARDUP_BUILD_SERVICE=OFF"]
        cached = cached_python(build_dir)
        if cached is None or os.path.realpath(cached) != python:
            configure.append(f"-DPython_EXECUTABLE={python}")
        build = ["cmake", "--build", str(build_dir), "--target", ext.target]
        if "CMAKE_BUILD_PARALLEL_LEVEL" not in os.environ:
            build += ["-j", str(os.cpu_count() or 2)]
        for command in (configure, build):
            print("neardup setup.py:", " ".join(command), file=sys.stderr, flush=True)
            subprocess.run(command, check=True)

        suffix = sysconfig.get_config_var("EXT_SUFFIX")
        built = build_dir / "python" / "neardup" / ("_neardup" + suffix)
        if not built.is_file():
            raise RuntimeError(f"CMake built no {built.name} in {built.parent} (is {build_dir} configured "
                               f"for another Python than {python}?)")
        target = Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built, target)


setup(
    name="neardup",
    version=project_version(),
    description="Find exact and near-duplicate web documents (Python binding of the neardup engine)",
    long_description=(ROOT / "README.md").read_text(encoding="utf-8"),
    long_description_content_type="text/markdown",
    license="Apache-2.0",
    python_requires=">=3.9",
    install_requires=["numpy"],
    packages=["neardup"],
    package_dir={"": "python"},
    package_data={"neardup": ["__init__.pyi", "py.typed"]},
    ext_modules=[CMakeExtension("neardup._neardup", target="neardup_python")],
    cmdclass={"build_ext": CMakeBuild},
    zip_safe=False,
    # setuptools' own build folder, away from CMake's build/.
    options={"build": {"build_base": "build-python/setuptools"}},
)
