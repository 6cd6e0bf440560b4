# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""Validate schedhist JSON reports against docs/report.schema.json.

    check-reports.py [--not-reports LIST] PATH...

Every line that starts with "{" in every file under each PATH (files, or
directories walked recursively) must be one JSON object that the schema
accepts. tests/lib.sh runs this on a test's whole scratch directory when
the test ends, and the unit tests on each JSON line they render, so no
test produces a report that is not checked. Files that hold other JSON
(Prometheus' API answers, a browser profile) are named, one path a line,
in LIST (tests/lib.sh: not_reports); a directory there covers its tree.
Binary files (a NUL byte: PNG pictures, Prometheus' TSDB) are skipped; a
report never holds a NUL. Prints how many reports it checked; on a
problem, one line per bad line (file:line: why) and exit 1.

Run with Debian's python3 (/usr/bin/python3), where python3-jsonschema
installs; scripts/install-deps.sh --test installs it.
"""
import json
import os
import sys

try:
    import jsonschema
except ImportError:
    sys.exit("check-reports: no jsonschema module: install the Debian package python3-jsonschema")

HERE = os.path.dirname(os.path.abspath(__file__))
SCHEMA = os.path.join(HERE, "..", "docs", "report.schema.json")


def strict_object(pairs):
    keys = [k for k, _ in pairs]
    dup = {k for k in keys if keys.count(k) > 1}
    if dup:
        raise ValueError(f"duplicate field(s) {sorted(dup)}")
    return dict(pairs)


def no_constant(name):
    raise ValueError(f"{name} is not JSON")


def main(argv):
    skip = set()
    if len(argv) > 2 and argv[1] == "--not-reports":
        if os.path.exists(argv[2]):
            skip = {os.path.realpath(p) for p in open(argv[2]).read().splitlines() if p}
        argv = argv[2:]
    paths = argv[1:]
    if not paths:
        sys.exit("usage: check-reports.py [--not-reports LIST] PATH...")
    with open(SCHEMA) as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    files, problems, reports = [], [], 0

    def skipped(p):
        p = os.path.realpath(p)
        return any(p == s or p.startswith(s + os.sep) for s in skip)

    for path in paths:
        if os.path.isdir(path):
            for root, dirs, names in os.walk(path):
                dirs.sort()
                files += [os.path.join(root, n) for n in sorted(names)]
        else:
            files.append(path)
    for path in files:
        if skipped(path) or not os.path.isfile(path) or os.path.islink(path):
            continue
        with open(path, "rb") as f:
            data = f.read()
        if b"\0" in data:
            continue
        for n, raw in enumerate(data.split(b"\n"), 1):
            if not raw.startswith(b"{"):
                continue
            where = f"{path}:{n}"
            try:
                doc = json.loads(raw.decode("utf-8"), object_pairs_hook=strict_object,
                                 parse_constant=no_constant)
            except ValueError as e:
                problems.append(f"{where}: not one JSON object: {e}")
                continue
            errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.path))
            for e in errors[:3]:
                at = "/".join(str(p) for p in e.absolute_path) or "(top)"
                problems.append(f"{where}: {at}: {e.message[:200]}")
            reports += 1
    for p in problems:
        print(f"check-reports: {p}")
    print(f"check-reports: {reports} JSON report(s) checked against docs/report.schema.json")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
