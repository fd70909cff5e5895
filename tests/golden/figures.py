#!/usr/bin/env python3
"""Prints the figures of a summary.json that do not depend on the machine,
the time or the output folder (the same filter as tests/golden_test.cc's
FiguresOf): what a redesign must leave unchanged."""
import json
import sys

VOLATILE = {"seconds", "peak_rss_bytes", "stages", "outputs", "inputs", "threads", "kernel",
            "table_budget_bytes", "sort_seconds", "overlap_seconds", "peak_buffer_bytes",
            "buffer_budget_bytes", "neardup_version"}


def figures(node):
    if isinstance(node, dict):
        return {k: figures(v) for k, v in node.items() if k not in VOLATILE}
    if isinstance(node, list):
        return [figures(v) for v in node]
    return node


with open(sys.argv[1], encoding="utf-8") as f:
    print(json.dumps(figures(json.load(f)), indent=1, sort_keys=True))
