#!/usr/bin/env python3
"""Checks that every #include points down (or sideways) in vtensor's module order.

The order is written once, in docs/design.md ("Module map"); this script reads it from there so
the two cannot disagree. A file belongs to the module of its folder (include/vtensor/<m>/,
src/<m>/, src/kernels/... is `kernels`, src/ops/... is `ops`); tests belong to the module they sit
in. Files outside src/ and include/ (tests/, bench/, examples/, fuzz/, python/) sit above every
module. Exit status: 0 when no include points up, 1 otherwise (each offending line is printed as
file:line: module -> module).

usage: scripts/check_layering.py [REPO_ROOT]
"""
import os
import re
import sys

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                       os.path.join(os.path.dirname(__file__), ".."))
INCLUDE_RE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
SOURCE_EXT = (".h", ".cc", ".c", ".cpp", ".inc")


def module_order():
    """Reads the order from the ```text block after '## Module map' in docs/design.md."""
    text = open(os.path.join(ROOT, "docs", "design.md"), encoding="utf-8").read()
    m = re.search(r"## Module map.*?```text\n(.*?)```", text, re.S)
    if not m:
        sys.exit("check_layering: docs/design.md has no '## Module map' text block")
    first_line = m.group(1).strip().splitlines()[0]
    order = [name.strip() for name in first_line.split("<-")]
    return {name: rank for rank, name in enumerate(order)}


def module_of_path(rel, ranks):
    """Module of a repository-relative path, or None for files above every module."""
    parts = rel.split("/")
    if parts[0] == "include" and len(parts) > 2 and parts[1] == "vtensor":
        return parts[2] if parts[2] in ranks else "api"
    if parts[0] == "src" and len(parts) > 2:
        return parts[1] if parts[1] in ranks else None
    return None


def resolve(include, file_rel):
    """Repository-relative path an include names (None when it is not the project's)."""
    here = os.path.dirname(file_rel)
    for cand in (os.path.join(here, include), os.path.join("include", include),
                 os.path.join("src", include)):
        if os.path.isfile(os.path.join(ROOT, cand)):
            return os.path.normpath(cand)
    return None


def main():
    ranks = module_order()
    top = max(ranks.values()) + 1
    bad = []
    checked = 0
    for base in ("include", "src", "tests", "bench", "examples", "fuzz", "python"):
        for dirpath, _, files in os.walk(os.path.join(ROOT, base)):
            for fn in files:
                if not fn.endswith(SOURCE_EXT):
                    continue
                rel = os.path.relpath(os.path.join(dirpath, fn), ROOT)
                mod = module_of_path(rel, ranks)
                rank = ranks[mod] if mod else top
                with open(os.path.join(ROOT, rel), encoding="utf-8", errors="replace") as f:
                    for lineno, line in enumerate(f, 1):
                        m = INCLUDE_RE.match(line)
                        if not m:
                            continue
                        target = resolve(m.group(1), rel)
                        if target is None:
                            continue
                        checked += 1
                        tmod = module_of_path(target, ranks)
                        trank = ranks[tmod] if tmod else top
                        if trank > rank:
                            bad.append(f"{rel}:{lineno}: {mod or 'top'} -> {tmod or 'top'} "
                                       f"({m.group(1)})")
    for b in bad:
        print(b)
    print(f"check_layering: {checked} project includes checked, {len(bad)} point up "
          f"(order: {' <- '.join(sorted(ranks, key=ranks.get))})")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
