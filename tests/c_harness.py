"""Build the generated C into one shared library and call its element-wise kernels through ctypes."""
from __future__ import annotations

import ctypes
import os
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from opgen.dtypes import ELEM_TYPES, elem_of_numpy
from opgen.model import OpVersion
from opgen.render.c_code import OPTIMISATION_FLAGS

from conftest import ROOT

C_DIR = ROOT / "generated" / "c"
# The build flags generated/c/README.md documents (-O2 and GCC's vectoriser settings), as a user builds.
CFLAGS = ["-std=c11", "-Wall", "-Wextra", "-Werror", *OPTIMISATION_FLAGS, "-fPIC"]
OPGEN_OK, OPGEN_ERR_SHAPE, OPGEN_ERR_ARGUMENT, OPGEN_ERR_NOT_IMPLEMENTED = 0, 1, 2, 3


def build_library(out: Path) -> ctypes.CDLL:
    """Compile every generated C source with -Werror and link them into one shared library."""
    cc = shutil.which("cc") or shutil.which("gcc")
    assert cc, "a C compiler is needed"
    sources = sorted((C_DIR / "src").rglob("*.c"))
    objects = [str(out / f"{source.parent.name}_{source.stem}.o") for source in sources]

    def compile_one(source: Path, obj: str) -> None:
        done = subprocess.run([cc, *CFLAGS, "-I", str(C_DIR / "include"), "-c", str(source), "-o", obj],
                              capture_output=True, text=True)
        assert done.returncode == 0, f"{source}:\n{done.stderr}"

    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:  # one compiler process per core
        list(pool.map(compile_one, sources, objects))
    lib = out / "libopgen_test.so"
    subprocess.run([cc, "-shared", "-o", str(lib), *objects, "-lm"], check=True)
    return ctypes.CDLL(str(lib))


def shared_library(root: Path) -> ctypes.CDLL:
    """build_library into a folder of `root` named by a digest of what the library is made of (the compiler,
    the flags, every generated C file): the test processes of one run (pytest-xdist workers) share one
    build, the first to come compiling it while the others wait on a lock, instead of each compiling the
    whole C tree again. A library with another digest is never reused."""
    import fcntl
    import hashlib

    cc = shutil.which("cc") or shutil.which("gcc") or ""
    digest = hashlib.sha256(repr((cc, CFLAGS)).encode())
    for path in sorted(C_DIR.rglob("*")):
        if path.is_file() and path.suffix in (".c", ".h"):
            digest.update(path.relative_to(C_DIR).as_posix().encode() + b"\0" + path.read_bytes())
    folder = root / f"opgen-c-{digest.hexdigest()[:20]}"
    with open(root / f"{folder.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        lib = folder / "libopgen_test.so"
        if not lib.is_file():
            building = root / f"{folder.name}.building-{os.getpid()}"
            building.mkdir()
            build_library(building)
            building.rename(folder)  # complete, then visible under its final name
        return ctypes.CDLL(str(lib))


_SCALAR_ATTR = {"float": ctypes.c_double, "int": ctypes.c_int64, "bool": ctypes.c_bool}


def _storage(elem: str) -> np.dtype:
    return np.dtype(np.uint16) if ELEM_TYPES[elem].c_type == "uint16_t" else ELEM_TYPES[elem].numpy


def _variadic_args(arrays: list[np.ndarray], elem: str) -> tuple[list, list]:
    """A fold's variadic input as its kernel takes it: data pointers, shape pointers, ranks and the count."""
    datas = [np.ascontiguousarray(a).view(_storage(elem)) for a in arrays]
    shapes = [np.asarray(a.shape, np.int64) for a in arrays]
    n = len(arrays)
    data_ptrs = (ctypes.c_void_p * n)(*[d.ctypes.data for d in datas])
    shape_ptrs = (ctypes.c_void_p * n)(*[s.ctypes.data for s in shapes])
    ranks = (ctypes.c_size_t * n)(*[a.ndim for a in arrays])
    return [data_ptrs, shape_ptrs, ranks, ctypes.c_size_t(n)], [datas, shapes, data_ptrs, shape_ptrs, ranks]


def prepare_c(lib: ctypes.CDLL, v: OpVersion, elem: str, inputs: list[np.ndarray], attrs: dict,
              out_shape: tuple[int, ...], out_elem: str | None = None, variadic: bool = False,
              shape_parameter: bool = False):
    """The function opgen_<domain>_<Op>_v<N>_<elem>, its ctypes arguments, the output array, and the
    arrays the arguments point into (keep them alive while calling). `variadic`: the inputs are the tensors
    of the first (variadic) input, passed as arrays of pointers (as a fold's; Concatenate); `shape_parameter`:
    the kernel takes the output's shape and rank before the output (BroadcastInDim)."""
    fn = getattr(lib, f"opgen_{v.domain}_{v.op}_v{v.since_version}_{elem}")
    fn.restype = ctypes.c_int
    args, keep = [], []
    if variadic or (v.elementwise is not None and v.elementwise.fold is not None):  # arrays of pointers
        args, keep = _variadic_args(inputs, elem)
        inputs = []
    for array in inputs:
        if array is None:  # an optional input not given: a NULL array of rank 0
            args += [None, None, ctypes.c_size_t(0)]
            continue
        data = np.ascontiguousarray(array).view(_storage(elem_of_numpy(array.dtype)))  # Where's condition: bool
        shape = np.asarray(array.shape, np.int64)
        keep += [data, shape]
        args += [data.ctypes.data_as(ctypes.c_void_p), shape.ctypes.data_as(ctypes.c_void_p),
                 ctypes.c_size_t(array.ndim)]
    for a in v.attributes:
        value = attrs.get(a.name, a.default if a.has_default else None)
        if a.type in _SCALAR_ATTR:
            args.append(_SCALAR_ATTR[a.type](0 if value is None else value))
            if v.elementwise is not None and a.name in dict(v.elementwise.absent):  # no default: has_<name>
                args.append(ctypes.c_bool(value is not None))
        elif a.type in ("string", "enum"):
            args.append(ctypes.c_char_p(None if value is None else str(value).encode()))
        elif a.type == "ints":
            if value is None:
                args += [None, ctypes.c_size_t(0)]
            else:
                array = np.asarray(value, np.int64)
                keep.append(array)
                args += [array.ctypes.data_as(ctypes.c_void_p), ctypes.c_size_t(array.size)]
    out_elem = out_elem or elem
    out = np.zeros(out_shape, ELEM_TYPES[out_elem].numpy)
    if shape_parameter:
        shape = np.asarray(out_shape, np.int64)
        keep.append(shape)
        args += [shape.ctypes.data_as(ctypes.c_void_p), ctypes.c_size_t(len(out_shape))]
    args.append(out.view(_storage(out_elem)).ctypes.data_as(ctypes.c_void_p))
    return fn, args, out, keep


def call_c(lib: ctypes.CDLL, v: OpVersion, elem: str, inputs: list[np.ndarray], attrs: dict,
           out_shape: tuple[int, ...], out_elem: str | None = None, variadic: bool = False,
           shape_parameter: bool = False) -> tuple[int, np.ndarray]:
    """Call opgen_<domain>_<Op>_v<N>_<elem>; returns (status, output array)."""
    fn, args, out, keep = prepare_c(lib, v, elem, inputs, attrs, out_shape, out_elem, variadic, shape_parameter)
    status = fn(*args)
    del keep
    return status, out
