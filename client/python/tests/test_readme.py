"""README.md's "Use from Python" and "Use with Scrapy" code, run as written against SIMDEX_TARGET."""
import contextlib
import io
import os
import textwrap
import uuid

import pytest

README = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "README.md")


def code_block(section, first_line):
    """The indented code block of README section ``## section`` that starts with ``first_line``."""
    with open(README) as f:
        lines = f.read().split("\n## " + section + "\n", 1)[1].split("\n## ", 1)[0].splitlines()
    block = lines[lines.index("    " + first_line):]
    end = next((i for i, line in enumerate(block) if line and not line.startswith("    ")), len(block))
    return textwrap.dedent("\n".join(block[:end]))


def test_useFromPython_asWritten_printsWhatTheReadmeSays(target):
    code = code_block("Use from Python", "import simdex").replace('"localhost:7411"', repr(target))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "README.md", "exec"), {})

    printed = out.getvalue().splitlines()
    assert printed[:2] == ["https://a.cn/1 kept", "https://a.cn/2 duplicate of https://a.cn/1"]
    assert printed[2] in ("[True, False]", "[False, False]")


def test_useWithScrapy_settingsAsWritten_dropCopiesOfTheLocalSite(target, collection, tmp_path):
    pytest.importorskip("scrapy")
    import crawl
    from local_site import ORIGINALS, LocalSite
    settings = {}
    exec(code_block("Use with Scrapy", 'DUPEFILTER_CLASS = "simdex.scrapy.SimdexDupeFilter"'), {}, settings)
    assert settings["SIMDEX_TARGET"] == "localhost:7411"
    settings.update(SIMDEX_TARGET=target, SIMDEX_COLLECTION=collection, SIMDEX_JOB="py_" + uuid.uuid4().hex[:12])

    with LocalSite() as site:
        report = crawl.run(tmp_path, [site.url + "/"], settings)

    assert sorted(report["kept"]) == sorted(site.url + p for p in ORIGINALS)
