# Copyright neardup authors. Licensed under Apache-2.0.
"""The README's Python example runs as written."""
import contextlib
import io
import os
import re

from conftest import REPO


def test_readme_python_example_runs(tmp_path, monkeypatch):
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme.split("\n## Python\n", 1)[1].split("\n## ", 1)[0]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    # Run from a folder that holds the repository's test data, so that the
    # example's out/ goes to the temporary folder.
    os.symlink(REPO / "tests", tmp_path / "tests")
    monkeypatch.chdir(tmp_path)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "README.md", "exec"), {})
    lines = out.getvalue().splitlines()
    assert lines[1].startswith("[-1 ")  # the removed id 0 holds -1
    assert "'duplicate'" in lines[-1]
    assert (tmp_path / "out" / "python" / "clusters.tsv").is_file()
