"""`make bench`: how long `opgen build` takes as a whole process (full, no-op, one spec edited,
--check), beside the floor every run pays (Python start-up, and start-up plus the console command's
imports) and a peer (loading the same YAML files with plain `yaml.safe_load`). Medians of several
runs; ratios are what to compare (the machine may be shared).

A full build writes 3 000 files, each into a folder no earlier run used and none deleted between runs:
on an ext4 without a journal (as on the machine these figures come from) creating a file costs ~0.7 ms, not ~10 us,
for a few minutes after many files were deleted (the allocator checks each freed inode's deletion
time), and emptying the output before each run measured that instead of the build. The peer beside
it writes the same files with plain Python into a new folder: the floor of any full build here.

The builds run as a user runs them: the `opgen` console command in a project folder (specs/ and
generated/ side by side), with Python writing its bytecode cache (a PYTHONDONTWRITEBYTECODE of the
calling shell would have every run compile opgen again, which no installed opgen does)."""
from __future__ import annotations

import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
RUNS = 5
FULL_RUNS = 3  # a full build takes seconds: fewer samples
RACY_S = 2.1  # opgen.build_stamp.RACY_NS, and a little


def timed(cmd: list[str], env: dict[str, str], setup=None, runs: int = RUNS,
          cwd: Path | None = None) -> tuple[float, float]:
    """Median wall time of the whole process, and its median CPU time (user + system of it and its
    worker processes: waiting for a busy machine's cores does not count there)."""
    samples, cpu = [], []
    for k in range(runs):
        if setup:
            setup(k)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=cwd)
        samples.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return statistics.median(samples), statistics.median(cpu)


def timed_fresh(cmd: list[str], out_prefix: Path, env: dict[str, str]) -> tuple[float, float]:
    """timed(), run k building into a folder of its own (out_prefix-k; see above)."""
    command = [*cmd, ""]

    def setup(k: int) -> None:
        command[-1] = f"{out_prefix}-{k}"

    return timed(command, env, setup=setup, runs=FULL_RUNS)


def write_peer(built: Path, prefix: Path) -> float:
    """Median time plain Python takes to write the files of `built` (paths and bytes read beforehand)
    into a new folder tree: open, write, close, with the folders made as needed."""
    files = [(str(p.relative_to(built)), p.read_bytes()) for p in sorted(built.rglob("*")) if p.is_file()]
    samples = []
    for k in range(FULL_RUNS):
        root = f"{prefix}-{k}"
        start = time.perf_counter()
        made: set[str] = set()
        for rel, data in files:
            path = os.path.join(root, rel)
            folder = os.path.dirname(path)
            if folder not in made:
                os.makedirs(folder, exist_ok=True)
                made.add(folder)
            with open(path, "wb") as handle:
                handle.write(data)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def main() -> None:
    files = sorted((ROOT / "specs").rglob("*.yaml"))
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    samples = []
    for _ in range(5):
        start = time.perf_counter()
        for f in files:
            yaml.load(f.read_text(encoding="utf-8"), Loader=loader)
        samples.append(time.perf_counter() - start)
    plain_load = statistics.median(samples)

    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        project = tmp / "project"
        specs = project / "specs"
        shutil.copytree(ROOT / "specs", specs)
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["OPGEN_CACHE_DIR"] = str(tmp / "cache")
        no_cache = {**env, "OPGEN_CACHE_DIR": ""}
        py = sys.executable
        opgen = str(Path(py).with_name("opgen"))
        build = [opgen, "build"] if Path(opgen).is_file() else [py, "-m", "opgen.cli", "build"]
        subprocess.run([py, "-c", "import opgen.cli, opgen.build, opgen.parse, opgen.render.guide"], env=env,
                       check=True)  # bytecode written once, as after any first run
        floor = timed([py, "-c", "pass"], env)
        imports = timed([py, "-c", "import opgen.entry"], env)
        full = timed_fresh(build + ["--specs", str(specs), "--out"], tmp / "full", no_cache)
        full_one_process = timed_fresh(build + ["--specs", str(specs), "--out"], tmp / "one-process",
                                       {**no_cache, "OPGEN_JOBS": "1"})
        writing = write_peer(tmp / "full-0", tmp / "peer")

        out = project / "generated"
        subprocess.run(build, env=env, check=True, stdout=subprocess.DEVNULL, cwd=project)
        # A no-op trusts file statuses only for files older than the racy window (opgen.build_stamp):
        # measured as a user meets it, some time after the build that wrote them.
        time.sleep(RACY_S)
        subprocess.run(build, env=env, check=True, stdout=subprocess.DEVNULL, cwd=project)  # verifies, stamps
        noop = timed(build, env, cwd=project)
        noop_full = timed(build, env, cwd=project,  # no stamp: every status checked against the manifest's digests
                          setup=lambda k: [p.unlink() for p in (tmp / "cache").glob("noop-*")])
        target = specs / "hlir" / "Abs.yaml"
        original = target.read_text(encoding="utf-8")

        def edit(k: int) -> None:  # a real change of one op's output: its English summary
            target.write_text(original.replace("Computes", f"Computes ({k})", 1), encoding="utf-8")

        one_edit = timed(build, env, setup=edit, cwd=project)
        check = timed(build + ["--check"], env, runs=FULL_RUNS, cwd=project)
        n_files = sum(1 for p in out.rglob("*") if p.is_file())
    load = os.getloadavg()
    print(f"specs: {len(files)} YAML files; output: {n_files} files; load average {load[0]:.2f} {load[1]:.2f}")
    print(f"{'whole process':<40}{'median s':>10}{'x floor':>9}{'x YAML load':>13}{'CPU s':>8}{'CPU x floor':>13}")
    for name, value in [("python -c pass (floor)", floor), ("python -c 'import opgen.entry'", imports),
                        ("plain YAML load of the specs (peer)", plain_load),
                        ("its files written by plain Python (peer)", writing),
                        ("opgen build, full (empty out, no cache)", full),
                        ("  the same in one process (OPGEN_JOBS=1)", full_one_process), ("opgen build, no-op", noop),
                        ("  without its stamp (digests checked)", noop_full),
                        ("opgen build, one spec edited", one_edit), ("opgen build --check", check)]:
        if isinstance(value, tuple):
            wall, cpu = value
            cpu_text = f"{cpu:>8.3f}{cpu / floor[1]:>13.1f}"
        else:  # measured in this process: wall time only
            wall, cpu_text = value, ""
        print(f"{name:<40}{wall:>10.3f}{wall / floor[0]:>9.1f}{wall / plain_load:>13.1f}{cpu_text}")
    print(f"no-op beyond the import floor: {noop[0] - imports[0]:+.3f} s; "
          f"one edit beyond it: {one_edit[0] - imports[0]:+.3f} s (wall)")


if __name__ == "__main__":
    main()
