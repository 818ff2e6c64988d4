#!/usr/bin/env python3
"""clang-tidy-14 with the checked-in .clang-tidy over the translation units of src/, tests/ and
python/src/ (the Python extension module, in the build when pybind11 is found).

Headers of src/, include/, tests/ and python/src/ are checked through the units that include
them; a header's finding is printed once. Exit status: 0 clean, 1 findings, 2 clang-tidy could not run.

Each unit's result is kept in a cache (default ~/.cache/vtensor/tidy) under a key made of the
clang-tidy version, .clang-tidy, the unit's compile command and the contents of every file it
includes that lives in the checkout (the dependency list of the build's last compile, read
from `ninja -t deps`), so a run after a small change re-checks only the units it reaches. A
unit the build has not compiled has no dependency list and is always checked.

usage: scripts/tidy.py [REGEX]      only the units whose path (relative to the checkout)
                                    matches REGEX; default: all of src/, tests/ and python/src/
env:   VTENSOR_BUILD_DIR   configured build directory (default build; configured if missing)
       VTENSOR_TIDY_JOBS   clang-tidy processes at a time (default: the number of cores)
       VTENSOR_TIDY_CACHE  cache directory; 'off' disables the cache
"""
import concurrent.futures as futures
import hashlib
import json
import os
import re
import resource
import shlex
import shutil
import subprocess
import sys
import time

TIDY = "clang-tidy-14"
ROOT = os.path.realpath(os.path.join(os.path.dirname(__file__), ".."))
BUILD = os.path.realpath(os.environ.get("VTENSOR_BUILD_DIR", os.path.join(ROOT, "build")))
JOBS = int(os.environ.get("VTENSOR_TIDY_JOBS", os.cpu_count() or 2))
CACHE = os.environ.get("VTENSOR_TIDY_CACHE",
                       os.path.join(os.path.expanduser("~"), ".cache", "vtensor", "tidy"))
SOURCE_DIRS = ("src/", "tests/", "python/src/")
FINDING = re.compile(r"^(/[^:]+):(\d+):(\d+): (warning|error): ")


def run(cmd, **kw):
    return subprocess.run(cmd, check=False, text=True, capture_output=True, **kw)


def units(pattern):
    """(source path, object path relative to the build, command) of each matching unit."""
    with open(os.path.join(BUILD, "compile_commands.json")) as f:
        db = json.load(f)
    seen, out = set(), []
    for entry in db:
        path = os.path.realpath(os.path.join(entry["directory"], entry["file"]))
        rel = os.path.relpath(path, ROOT)
        if not rel.startswith(SOURCE_DIRS) or not pattern.search(rel) or path in seen:
            continue
        seen.add(path)
        args = shlex.split(entry["command"])
        obj = args[args.index("-o") + 1] if "-o" in args else ""
        out.append((path, obj, entry["command"]))
    return out


def ninja_deps():
    """Object path -> the files its last compile read (ninja's deps log)."""
    text = run(["ninja", "-C", BUILD, "-t", "deps"]).stdout
    deps, current = {}, None
    for line in text.splitlines():
        if line and not line.startswith(" "):
            current = line.split(":", 1)[0]
            deps[current] = [] if "(VALID)" in line else None
        elif current is not None and deps.get(current) is not None and line.strip():
            deps[current].append(os.path.realpath(os.path.join(BUILD, line.strip())))
    return deps


def file_digest(path, memo):
    if path not in memo:
        try:
            with open(path, "rb") as f:
                memo[path] = hashlib.sha256(f.read()).hexdigest()
        except OSError:
            memo[path] = "missing"
    return memo[path]


def unit_key(unit, deps, base, memo):
    """The cache key of one unit, or None when the build has no dependency list for it."""
    source, obj, command = unit
    files = deps.get(obj)
    if not files:
        return None
    h = hashlib.sha256(base)
    # Paths are taken relative to the checkout, so a clone elsewhere shares the cache.
    h.update(command.replace(ROOT, "<root>").encode())
    for path in sorted(p for p in files if p.startswith(ROOT + "/")):
        h.update(os.path.relpath(path, ROOT).encode())
        h.update(file_digest(path, memo).encode())
    return h.hexdigest()


def tidy_unit(source):
    """clang-tidy's findings for one unit (lines relative to the checkout), or None on failure."""
    r = run([TIDY, "-p", BUILD, "--quiet",
             f"--header-filter=^{ROOT}/(src|include|tests|python/src)/", "--extra-arg=-Wno-unknown-warning-option", source])
    text = r.stdout + r.stderr
    lines = [l.replace(ROOT + "/", "") for l in text.splitlines() if FINDING.match(l)]
    if r.returncode != 0 and not lines:
        sys.stderr.write(f"tidy: clang-tidy failed on {source}:\n{text}\n")
        return None
    return lines


def main():
    if not shutil.which(TIDY):
        print(f"tidy: {TIDY} not found", file=sys.stderr)
        return 2
    if not os.path.exists(os.path.join(BUILD, "compile_commands.json")):
        subprocess.run(["cmake", "-S", ROOT, "-B", BUILD, "-G", "Ninja",
                        "-DCMAKE_BUILD_TYPE=Release"], check=True, stdout=subprocess.DEVNULL)
    # Sources include the protoc-generated extension header.
    subprocess.run(["ninja", "-C", BUILD, "proto/vtensor/format/vtensor_ext.pb.h"], check=True,
                   stdout=subprocess.DEVNULL)
    todo = units(re.compile(sys.argv[1] if len(sys.argv) > 1 else "."))
    if not todo:
        print("tidy: no sources match", file=sys.stderr)
        return 2
    use_cache = CACHE != "off"
    deps = ninja_deps() if use_cache else {}
    with open(os.path.join(ROOT, ".clang-tidy"), "rb") as f:
        base = run([TIDY, "--version"]).stdout.encode() + f.read()
    memo, keys, findings, failed = {}, {}, set(), []
    misses = []
    for unit in todo:
        key = unit_key(unit, deps, base, memo) if use_cache else None
        cached = os.path.join(CACHE, key[:2], key) if key else None
        if cached and os.path.exists(cached):
            with open(cached) as f:
                findings.update(l for l in f.read().splitlines() if l)
        else:
            misses.append((unit[0], cached))
    print(f"tidy: {len(todo)} translation units, {len(todo) - len(misses)} cached, "
          f"{len(misses)} to check, {JOBS} at a time", flush=True)
    started = time.monotonic()
    with futures.ThreadPoolExecutor(JOBS) as pool:
        for (source, cached), lines in zip(misses, pool.map(lambda m: tidy_unit(m[0]), misses)):
            if lines is None:
                failed.append(source)
                continue
            findings.update(lines)
            if cached:
                store(cached, lines)
    if misses:
        # CPU time of the clang-tidy processes: with VTENSOR_TIDY_CACHE=off, a cold run's cost.
        cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
        print(f"tidy: checked {len(misses)} units in {time.monotonic() - started:.0f} s, "
              f"{(cpu.ru_utime + cpu.ru_stime) / 60:.1f} CPU-minutes", flush=True)
    for line in sorted(findings):
        print(line)
    if findings:
        print(f"tidy: {len(findings)} findings")
        return 1
    if failed:
        return 2
    print("tidy: clean")
    return 0


def store(path, lines):
    """Atomic: a reader sees the whole result or none."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = f"{path}.tmp.{os.getpid()}"
    with open(tmp, "w") as f:
        f.write("".join(l + "\n" for l in lines))
    os.replace(tmp, path)


if __name__ == "__main__":
    sys.exit(main())
