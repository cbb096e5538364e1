"""``ewc report``: the auditors' report of the main job. It verifies every known-answer vector
file through the public API and runs the end-to-end demo, printing both as ``ewc vectors verify``
and ``ewc demo`` do, and writes them to ``report.json`` (for machines) and ``report.html`` (a
self-contained page a person reads: no script, no network)."""

from __future__ import annotations

import argparse
import html
import json
import platform
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import embedded_wallet_crypto as ewc

from .. import vectors
from . import demo
from ._io import EXIT_FAILED, EXIT_OK, UsageError

__all__ = ["add_report_command", "render_html"]

_STYLE = """
body { font: 15px/1.45 system-ui, sans-serif; margin: 2rem auto; max-width: 60rem; padding: 0 1rem;
       color: #1d1d1f; }
h1 { font-size: 1.6rem; } h2 { margin-top: 2rem; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; } td, th { padding: .2rem .8rem; text-align: right; }
td:first-child, th:first-child { text-align: left; } tr.total { font-weight: bold; }
.ok { color: #176b2c; } .failed { color: #b3261e; font-weight: bold; }
details { margin: .3rem 0; } summary { cursor: pointer; }
pre { background: #f5f5f7; padding: .5rem; overflow-x: auto; font-size: 13px; margin: .2rem 0; }
"""


def render_html(document: dict[str, Any]) -> str:
    """The report page of ``document`` (the content of ``report.json``)."""
    out: list[str] = []
    add = out.append
    vectors_part, steps = document["vectors"], document["demo"]["steps"]
    totals = vectors_part["totals"]
    verdict = "ok" if document["ok"] else "failed"
    add("<!doctype html><html lang='en'><head><meta charset='utf-8'>")
    add("<title>embedded-wallet-crypto report</title>")
    add(f"<style>{_STYLE}</style></head><body>")
    add("<h1>embedded-wallet-crypto: known-answer vectors and end-to-end demo</h1>")
    add(
        f"<p class='{verdict}'>{'Every check passed.' if document['ok'] else 'FAILED.'}</p>"
        f"<p>Version {html.escape(document['version'])}, {html.escape(document['created'])}, "
        f"Python {html.escape(document['python'])}.</p>"
    )
    add("<h2>Known-answer vectors</h2>")
    add(f"<p>Directory <code>{html.escape(vectors_part['directory'])}</code>.</p>")
    add("<table><tr><th>file</th><th>cases</th><th>passed</th><th>failed</th></tr>")
    for row in vectors_part["files"]:
        mark = " class='failed'" if row["failed"] else ""
        add(
            f"<tr{mark}><td>{html.escape(row['file'])}</td><td>{row['cases']}</td>"
            f"<td>{row['passed']}</td><td>{row['failed']}</td></tr>"
        )
    add(
        f"<tr class='total'><td>total</td><td>{totals['cases']}</td>"
        f"<td>{totals['passed']}</td><td>{totals['failed']}</td></tr></table>"
    )
    for failure in vectors_part["failures"]:
        add(
            f"<p class='failed'>{html.escape(failure['file'])} {html.escape(failure['case'])}:"
            f" {html.escape(failure['message'])}</p>"
        )
    passed = sum(step["ok"] for step in steps)
    add(f"<h2>End-to-end demo: {passed} of {len(steps)} steps OK</h2>")
    add("<p>Each step shows what crosses the wire between client and server.</p>")
    for step in steps:
        state = "ok" if step["ok"] else "failed"
        label = "OK" if step["ok"] else "FAILED"
        add(
            f"<details{' open' if not step['ok'] else ''}><summary><span class='{state}'>"
            f"{label}</span> {html.escape(step['name'])}</summary>"
        )
        if step["error"]:
            add(f"<p class='failed'>{html.escape(step['error'])}</p>")
        if step["shown"]:
            add(f"<pre>{html.escape(chr(10).join(step['shown']))}</pre>")
        add("</details>")
    add("</body></html>")
    return "\n".join(out) + "\n"


def _cmd_report(args: argparse.Namespace) -> int:
    from . import _default_vectors_dir, _print_report  # the command module imports this one

    directory = Path(args.vectors) if args.vectors is not None else _default_vectors_dir()
    out = Path(args.out)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as problem:
        raise UsageError(f"cannot create {out}: {problem.strerror or problem}") from None
    print(f"== Known-answer vectors ({directory})", flush=True)
    report = vectors.verify(directory)
    _print_report(report)
    print("\n== End-to-end demo", flush=True)
    results = demo.run_steps(progress=lambda line: print(line, flush=True))
    passed = sum(result.ok for result in results)
    print(f"\n{passed} of {len(results)} steps OK")
    ok = report.ok and passed == len(results)
    document = {
        "ok": ok,
        "version": ewc.__version__,
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "python": platform.python_version(),
        "vectors": report.to_dict(),
        "demo": {"passed": passed, "steps": [result.to_dict() for result in results]},
    }
    (out / "report.json").write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    (out / "report.html").write_text(render_html(document), encoding="utf-8")
    print(f"\nreport written to {out / 'report.html'} and {out / 'report.json'}")
    return EXIT_OK if ok else EXIT_FAILED


def add_report_command(commands: Any) -> None:
    """``ewc report [--vectors DIR] [--out DIR]``."""
    parser = commands.add_parser(
        "report",
        help="verify the vectors and run the demo; write report.html and report.json",
    )
    parser.add_argument(
        "--vectors", metavar="DIR", default=None, help="vector files (default: ./vectors)"
    )
    parser.add_argument(
        "--out", metavar="DIR", default="report", help="where to write the report (default: report)"
    )
    parser.set_defaults(handler=_cmd_report)
