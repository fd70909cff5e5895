# Copyright neardup authors. Licensed under Apache-2.0.
"""neardup: find exact and near-duplicate web documents.

A layer over the neardup C++ library (the same engine as the `neardup`
command):

    import neardup
    d = neardup.Deduper(method="robust")                  # or any method or spec string
    i = d.add(url="https://a.example/x", html="<p>...</p>")  # ids 0, 1, 2, ...
    ids = d.add_many(neardup.read("crawl.warc.gz"))       # or dicts; on every core
    c = d.cluster()
    c.cluster_of(i), c.keeper_of(i), c.labels, c.keepers

    summary = neardup.dedup(["crawl.warc.gz"], out="out")  # `neardup dedup`
    neardup.keep("out", "kept.jsonl.gz")                    # `neardup keep`
    neardup.compare(html_a, html_b)["verdicts"]["robust"]  # `neardup compare`

Errors are neardup.Error, whose subclasses InvalidArgumentError (also a
ValueError: bad options and arguments), FileError (also an OSError: files,
pages not found, inputs with nothing usable), NotFoundError (also a
LookupError: remove() of an id that is not live) and NotSupportedError say
what went wrong; str(e) is the library's message, e.code its status code.
"""

import json as _json
import os as _os
import warnings as _warnings

from ._neardup import (
    Clustering,
    Deduper,
    Document,
    Error,
    FileError,
    InvalidArgumentError,
    NotFoundError,
    NotSupportedError,
    Reader,
    __version__,
    compare,
    compare_files,
    method_names,
    read,
    set_simd_kernel,
)
from . import _neardup

__all__ = [
    "Clustering",
    "Deduper",
    "Document",
    "Error",
    "FileError",
    "InvalidArgumentError",
    "NotFoundError",
    "NotSupportedError",
    "Reader",
    "__version__",
    "compare",
    "compare_files",
    "dedup",
    "keep",
    "method_names",
    "read",
    "set_simd_kernel",
]


def dedup(inputs, out, *, method="robust", threads=0, progress=None, **options):
    """Runs `neardup dedup INPUTS --out OUT` and returns its summary as a dict.

    inputs: a path or a list of paths, anything neardup.read() takes. out: the
    output folder (created if missing), which receives what the command
    writes: clusters.tsv, summary.json, warnings.tsv and, with
    write_pairs=True, pairs.tsv. method and options as neardup.Deduper takes
    them; threads: 0 for every core (the output never depends on it).
    progress: None, or a callable that receives a dict (documents,
    input_bytes_consumed, input_bytes_total, payload_bytes, seconds) about
    five times a second and may return False to cancel the run (which then
    raises neardup.Error with code "Cancelled").

    Returns the content of out/summary.json. Raises
    neardup.InvalidArgumentError for bad options and neardup.FileError when
    an output cannot be written or no usable document could be read (the
    message names the files and why, as the command's does). Ctrl-C stops
    the run with KeyboardInterrupt.
    """
    options["method"] = method
    summary_path = _neardup._dedup(inputs, _os.fspath(out), threads, progress, options)
    with open(summary_path, encoding="utf-8") as f:
        return _json.load(f)


def keep(run, out, *, duplicates=False, format=None, inputs=None, annotate=False):
    """Runs `neardup keep RUN --out OUT`: writes the pages the dedup run in
    folder RUN kept (one for each cluster and every page in none), or with
    duplicates=True the pages it set aside, to the file OUT.

    format: "jsonl" or "warc"; None chooses by OUT's name (.warc, .warc.gz,
    .warc.zst: WARC; anything else JSON Lines); OUT ending in .gz or .zst is
    compressed. A page read from JSON Lines is written as its line, every
    field kept; any other page as {url, html or text (UTF-8), date, status}
    or, in WARC, as a response record with its payload. The run's inputs
    (summary.json's, or `inputs`: a path or a list, in the run's order) are
    read again and must give clusters.tsv's pages row for row. annotate:
    each page names its cluster ("neardup": {"cluster", "cluster_size"} at
    the end of a JSON object; WARC-Neardup-Cluster and
    WARC-Neardup-Cluster-Size headers in WARC).

    Returns a dict: rows (pages of the run), written, from_json_lines,
    bytes_written and warnings (dicts, as Reader.warnings gives them).
    Raises neardup.FileError when RUN's files or an input are missing or OUT
    cannot be written, neardup.Error with code "FailedPrecondition" when the
    inputs differ from the run's (no file is left behind either way), and
    neardup.InvalidArgumentError for a run that read standard input or
    names no inputs.
    """
    return _neardup._keep(_os.fspath(run), _os.fspath(out), duplicates, format, inputs, annotate)


# As the command does: NEARDUP_SIMD=portable|avx2|avx512 caps the SIMD
# kernels (the library itself reads no environment).
if _os.environ.get("NEARDUP_SIMD"):
    try:
        set_simd_kernel(_os.environ["NEARDUP_SIMD"])
    except InvalidArgumentError as _e:
        _warnings.warn(f"NEARDUP_SIMD ignored: {_e}", RuntimeWarning, stacklevel=2)
