# Copyright neardup authors. Licensed under Apache-2.0.
"""Shared fixtures of the Python module's tests.

The tests import the installed neardup (pip install --no-build-isolation .;
scripts/test.sh installs it into a virtual environment first). Tests that
compare with the `neardup` command run the binary named by $NEARDUP_CLI, or
build/neardup of this checkout, and skip with a message when neither exists.
"""
import collections
import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "tests" / "data" / "sample" / "sample-crawl.warc.gz"


@pytest.fixture(scope="session")
def sample():
    """The sample crawl kept in the repository (README's first command)."""
    assert SAMPLE.is_file(), f"{SAMPLE} is missing"
    return str(SAMPLE)


@pytest.fixture(scope="session")
def cli():
    """Path of the `neardup` command, or a skip."""
    path = os.environ.get("NEARDUP_CLI") or str(REPO / "build" / "neardup")
    if not os.access(path, os.X_OK):
        pytest.skip(f"no neardup command at {path}: build it (scripts/build.sh) or set NEARDUP_CLI")
    return path


def read_clusters_tsv(path):
    """clusters.tsv's rows (url, cluster, role, method, similarity, source,
    offset, reason) as dicts, in input order."""
    with open(path, encoding="utf-8") as f:
        header = f.readline().rstrip("\n").split("\t")
        assert header[:2] == ["url", "cluster"], header
        return [dict(zip(header, line.rstrip("\n").split("\t"))) for line in f]


def partition(labels):
    """The partition of positions 0..n-1 that `labels` describes: a set of
    frozensets of positions (labels equal: same cluster)."""
    groups = collections.defaultdict(set)
    for position, label in enumerate(labels):
        groups[label].add(position)
    return {frozenset(g) for g in groups.values()}
