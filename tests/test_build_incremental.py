"""An incremental `opgen build` renders only the shared files (indexes, errata, registries, the guide,
the C runtime headers) whose inputs changed, and its result is byte-identical to a clean build after
each kind of change: an op edited, added or removed, a shared file edited by hand or deleted."""
from __future__ import annotations

from pathlib import Path

import pytest

from opgen.build import run

from conftest import empty_spec_tree, write
from test_spec_errors import DOMAIN, GOOD_OP

ALL_UNITS = {"c-runtime", "docs-guide", "docs-root", "docs-domain-demo", "docs-domain-other", "python-domain-demo",
             "python-domain-other", "python-package"}


def tree_bytes(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def op_text(name: str, domain: str = "demo") -> str:
    return GOOD_OP.replace("name: Scale", f"name: {name}").replace("domain: demo", f"domain: {domain}")


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.setenv("OPGEN_CACHE_DIR", str(tmp_path / "cache"))
    specs = empty_spec_tree(tmp_path / "specs")
    write(specs / "demo" / "domain.yaml", DOMAIN)
    write(specs / "other" / "domain.yaml", DOMAIN.replace("name: demo", "name: other"))
    for name in ("Scale", "Twice"):
        write(specs / "demo" / f"{name}.yaml", op_text(name))
    write(specs / "other" / "Scale.yaml", op_text("Scale", "other"))
    return specs, tmp_path / "out"


def build(specs: Path, out: Path):
    result = run(specs, out)
    assert result.outcome is not None, [str(e) for e in result.errors]
    return result


def assert_same_as_clean(specs: Path, out: Path, tmp_path: Path, monkeypatch, label: str) -> None:
    clean = tmp_path / f"clean-{label}"
    with monkeypatch.context() as m:
        m.setenv("OPGEN_CACHE_DIR", "")  # no cache: everything rendered from the specs
        build(specs, clean)
    assert tree_bytes(out) == tree_bytes(clean), label


def test_only_the_shared_files_an_edit_touches_are_rendered(project, tmp_path, monkeypatch):
    specs, out = project
    first = build(specs, out)
    assert set(first.rendered_units) == ALL_UNITS and first.rendered_ops == 3
    assert build(specs, out).noop

    # A summary edited: its domain's index lists it; nothing else shared depends on it.
    write(specs / "demo" / "Scale.yaml", op_text("Scale").replace("Scales X.", "Scales X by alpha."))
    edited = build(specs, out)
    assert (edited.rendered_ops, edited.reused_ops) == (1, 2)
    assert edited.rendered_units == ["docs-domain-demo"]
    assert "Scales X by alpha." in (out / "docs" / "en" / "demo" / "index.md").read_text(encoding="utf-8")
    assert_same_as_clean(specs, out, tmp_path, monkeypatch, "edit")

    # An op added: its domain's pages and registry, the root index (op counts) and the package registry.
    write(specs / "demo" / "Triple.yaml", op_text("Triple"))
    added = build(specs, out)
    assert added.rendered_ops == 1
    assert set(added.rendered_units) == {"docs-domain-demo", "docs-root", "python-domain-demo", "python-package"}
    assert_same_as_clean(specs, out, tmp_path, monkeypatch, "add")

    # Shared files changed by hand or deleted are rendered again, and only they.
    (out / "docs" / "zh" / "other" / "errata.md").write_text("hand edit\n", encoding="utf-8")
    (out / "docs" / "en" / "guide.md").unlink()
    repaired = build(specs, out)
    assert set(repaired.rendered_units) == {"docs-domain-other", "docs-guide"} and repaired.rendered_ops == 0
    assert_same_as_clean(specs, out, tmp_path, monkeypatch, "hand")

    # An op removed; then a whole domain.
    (specs / "demo" / "Triple.yaml").unlink()
    build(specs, out)
    assert_same_as_clean(specs, out, tmp_path, monkeypatch, "remove")
    for path in (specs / "other").iterdir():
        path.unlink()
    (specs / "other").rmdir()
    gone = build(specs, out)
    assert not {u for u in gone.rendered_units if "other" in u}
    assert not (out / "docs" / "en" / "other").exists()
    assert_same_as_clean(specs, out, tmp_path, monkeypatch, "domain")


def test_kernel_coverage_is_the_same_from_the_cache(project, tmp_path, monkeypatch):
    """The coverage summary an edit's build prints (rows remembered per op) equals a fresh computation."""
    specs, out = project
    build(specs, out)
    write(specs / "demo" / "Twice.yaml", op_text("Twice").replace("Scales X.", "Twice X."))
    remembered = build(specs, out).coverage
    with monkeypatch.context() as m:
        m.setenv("OPGEN_CACHE_DIR", "")
        fresh = build(specs, tmp_path / "fresh").coverage
    assert remembered == fresh and "op versions have a NumPy kernel" in fresh


_SPREAD = """
import os, json
from opgen.build_parallel import MIN_ITEMS, ordered_map
items = list(range(MIN_ITEMS + 5))
print(json.dumps([ordered_map(lambda k: (k * k, os.getpid()), items), os.getpid()]))
"""


def _spread_in_a_fresh_process() -> tuple[list[list[int]], int]:
    """ordered_map run by a new interpreter (a test process has other threads, so it would not fork)."""
    import json
    import os
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", _SPREAD], capture_output=True, text=True, check=True,
                          env={**os.environ, "OPGEN_JOBS": "2"})
    results, parent = json.loads(done.stdout)
    return results, parent


def test_work_spread_over_processes_comes_back_in_order():
    from opgen.build_parallel import MIN_ITEMS

    results, parent = _spread_in_a_fresh_process()
    assert [square for square, _ in results] == [k * k for k in range(MIN_ITEMS + 5)]
    assert parent not in {pid for _, pid in results}  # done by the forked workers


def test_a_process_with_other_threads_does_not_fork(monkeypatch):
    """A forked child would inherit the locks of threads it does not have (torch's, onnxruntime's pools)."""
    import os
    import threading

    from opgen.build_parallel import MIN_ITEMS, ordered_map

    monkeypatch.setenv("OPGEN_JOBS", "2")
    release = threading.Event()
    other = threading.Thread(target=release.wait)
    other.start()
    try:
        results = ordered_map(lambda k: os.getpid(), list(range(MIN_ITEMS + 5)))
    finally:
        release.set()
        other.join()
    assert set(results) == {os.getpid()}


def test_a_load_average_left_by_earlier_builds_does_not_keep_a_core_idle():
    """The 1-minute average lags: just after a build ended it still reads ~1 on an idle machine."""
    from opgen.build_parallel import busy_from

    assert busy_from(1.4, "1.40 0.90 0.50 1/80 11950") == 0  # only this process runnable now
    assert busy_from(7.8, "7.80 7.10 5.00 9/95 11950") == 7.8  # eight others: the average stands
    assert busy_from(3.0, "3.00 2.00 1.00 3/80 11950") == 2  # two others right now
    assert busy_from(2.5, "not the Linux format") == 2.5


_SPIED_BUILD = """
import json, os, sys
import opgen.build_parallel as parallel
from opgen.cli import main

calls = []
real = parallel.ordered_map

def spy(fn, items):
    import numpy  # as the checks do in some builds before a pool forks: its BLAS may then start threads
    numpy_loaded = "numpy" in sys.modules
    out = real(lambda item: (os.getpid(), fn(item)), items)
    if len(items) >= parallel.MIN_ITEMS:  # fewer run in this process by design
        calls.append([numpy_loaded, sorted({pid for pid, _ in out} - {os.getpid()})])
    return [result for _, result in out]

parallel.ordered_map = spy
sys.argv = ["opgen", "build", "--specs", sys.argv[1], "--out", sys.argv[2]]
try:
    main()
except SystemExit:
    pass
print(json.dumps(calls))
"""


def test_the_build_command_still_forks_its_workers_after_importing_numpy(tmp_path):
    """NumPy's BLAS starts a thread pool on import, and a process with other threads never forks
    (above): the render phase, after the checks imported NumPy, ran in one process. The build command
    asks the BLAS for no threads (opgen.build_parallel.single_threaded_blas). NumPy is imported here
    just before each pool forks, as the checks of some builds import it before the render phase."""
    import json
    import os
    import subprocess
    import sys

    from opgen.build_parallel import BLAS_THREAD_VARIABLES

    specs = empty_spec_tree(tmp_path / "specs")
    write(specs / "demo" / "domain.yaml", DOMAIN)
    for k in range(30):
        write(specs / "demo" / f"Op{k}.yaml", op_text(f"Op{k}"))
    env = {k: v for k, v in os.environ.items() if k not in BLAS_THREAD_VARIABLES}
    done = subprocess.run([sys.executable, "-c", _SPIED_BUILD, str(specs), str(tmp_path / "out")], check=True,
                          capture_output=True, text=True, env={**env, "OPGEN_JOBS": "2", "OPGEN_CACHE_DIR": ""})
    calls = json.loads(done.stdout.splitlines()[-1])
    after_numpy = [workers for numpy_loaded, workers in calls if numpy_loaded]
    assert after_numpy, calls  # the render phase comes after NumPy's import
    assert all(workers for workers in after_numpy), calls  # and was spread over worker processes


def test_a_parallel_build_equals_a_sequential_one(tmp_path):
    """Enough ops that parsing and rendering go to worker processes (opgen.build_parallel): the console
    command, in fresh processes, with two workers and with one."""
    import os
    import subprocess
    import sys

    specs = empty_spec_tree(tmp_path / "specs")
    write(specs / "demo" / "domain.yaml", DOMAIN)
    for k in range(30):
        write(specs / "demo" / f"Op{k}.yaml", op_text(f"Op{k}").replace("Scales X.", f"Scales X ({k})."))
    for jobs, out in (("2", "parallel"), ("1", "sequential")):
        subprocess.run([sys.executable, "-m", "opgen", "build", "--specs", str(specs), "--out", str(tmp_path / out)],
                       check=True, capture_output=True, env={**os.environ, "OPGEN_JOBS": jobs, "OPGEN_CACHE_DIR": ""})
    assert tree_bytes(tmp_path / "parallel") == tree_bytes(tmp_path / "sequential")


def test_workers_render_an_op_right_after_checking_it_only_when_its_files_changed(tmp_path, monkeypatch):
    """With no model cache, every op file is parsed again over the workers, which also render the ops whose
    inputs changed (opgen.build_cache.ModelCache.prefetch's render_ahead): an edit then renders one op, not
    thirty, and the result is the clean build's. An op whose renderer fails in a worker is rendered again
    by the build, which reports the failure as it always did."""
    monkeypatch.setenv("OPGEN_CACHE_DIR", "")
    specs = empty_spec_tree(tmp_path / "specs")
    write(specs / "demo" / "domain.yaml", DOMAIN)
    for k in range(30):
        write(specs / "demo" / f"Op{k}.yaml", op_text(f"Op{k}"))
    out = tmp_path / "out"
    assert build(specs, out).rendered_ops == 30
    write(specs / "demo" / "Op7.yaml", op_text("Op7").replace("Scales X.", "Scales X by alpha."))
    edited = build(specs, out)
    assert (edited.rendered_ops, edited.reused_ops) == (1, 29)
    assert_same_as_clean(specs, out, tmp_path, monkeypatch, "edited")

    import opgen.render.docs as docs

    real = docs.op_files

    def failing(op, domain):
        if op.name == "Op3":
            raise KeyError("broken view")
        return real(op, domain)

    monkeypatch.setattr(docs, "op_files", failing)
    monkeypatch.setenv("OPGEN_JOBS", "1")  # the patched renderer is this process's
    write(specs / "demo" / "Op3.yaml", op_text("Op3").replace("Scales X.", "Scales X twice."))
    for k in range(30):  # every op's inputs change: all of them are rendered ahead
        write(specs / "demo" / f"Op{k}.yaml", op_text(f"Op{k}").replace("Scales X.", f"Scales X ({k})."))
    with pytest.raises(Exception, match=r"demo\.Op3: rendering docs failed: KeyError: 'broken view'"):
        run(specs, out)


def test_an_edit_unpickles_only_the_ops_whose_files_it_renders(project, tmp_path, monkeypatch):
    """Ops answered from the cache are summaries (opgen.build_cache.LazyOp) until something else is
    asked of them: an edit re-renders its domain's pages from the other ops' summaries (their rows,
    opgen.render.docs.op_listing) and loads no op, and the result is still the clean build's."""
    from opgen import build_cache

    specs, out = project
    build(specs, out)
    loaded: list[str] = []
    full = build_cache.LazyOp.full

    def counting(self):
        if object.__getattribute__(self, "_op") is None:
            loaded.append(self.key)
        return full(self)

    monkeypatch.setattr(build_cache.LazyOp, "full", counting)
    write(specs / "demo" / "Scale.yaml", op_text("Scale").replace("Scales X.", "Scales X twice."))
    edited = build(specs, out)
    assert (edited.rendered_ops, edited.rendered_units) == (1, ["docs-domain-demo"])
    assert loaded == []
    assert_same_as_clean(specs, out, tmp_path, monkeypatch, "lazy")

    from opgen.parse import load_op, load_specs

    cache = build_cache.ModelCache(specs, *_inputs(specs))
    lazy, errors = cache.load_op(specs / "other" / "Scale.yaml", specs, load_specs(specs)[0].domains[1])
    real, real_errors = load_op(specs / "other" / "Scale.yaml", specs, load_specs(specs)[0].domains[1])
    assert isinstance(lazy, build_cache.LazyOp) and real is not None and errors == real_errors
    for name in ("key", "name", "location", "stablehlo", "onnx_domain", "versions", "category", "notes"):
        assert getattr(lazy, name) == getattr(real, name), name
    assert lazy.version_kernels == tuple((v.since_version, v.has_kernel) for v in real.versions)
    from opgen.render.docs import op_listing

    assert lazy.listing == op_listing(real)


def _inputs(specs: Path) -> tuple[str, dict[str, str]]:
    from opgen.build import gather_inputs

    inputs = gather_inputs(specs)
    return inputs.environment, inputs.specs
