"""The reports as dicts that Jupyter shows as HTML. Every advisor's is a ``Report``: the dict equal to
``kgadvise <command> --json`` with ``text``, what ``kgadvise <command>`` prints (its tables included: the
quota's reservations, the plan's, the matrix), shown as such. The diagnose report lays out its verdicts,
per-GPU table, wasted quota hours and findings from the parts of its text ``_native.diagnose`` gives. Layout
only: every number, sentence and column name is the core's."""

from __future__ import annotations

import html
from typing import Any, Dict, List, Optional


class Report(dict):  # type: ignore[type-arg]
    """An advisor's report: a plain dict equal to ``kgadvise <command> --json``; ``text`` is what
    ``kgadvise <command>`` prints, which Jupyter shows."""

    def __init__(self, report: Dict[str, Any], text: str = "") -> None:
        super().__init__(report)
        self._text = text

    @property
    def text(self) -> str:
        """The report as the CLI prints it (the core's text)."""
        return self._text

    def _repr_html_(self) -> str:
        return f'<pre class="kgadvise-report">{html.escape(self._text)}</pre>'


class DiagnoseReport(dict):  # type: ignore[type-arg]
    """The diagnose report: a plain dict equal to ``kgadvise diagnose --json``, shown as HTML in Jupyter.
    ``words`` holds the core's text of it (``words["text"]`` is what ``kgadvise diagnose`` prints)."""

    def __init__(self, report: Dict[str, Any], words: Optional[Dict[str, Any]] = None) -> None:
        super().__init__(report)
        self.words: Dict[str, Any] = words or {}

    def _repr_html_(self) -> str:
        return to_html(self)

    @property
    def verdicts(self) -> List[str]:
        """The verdicts, fix first."""
        return list(self.get("verdicts") or [])

    @property
    def text(self) -> str:
        """The report as the CLI prints it (the core's text)."""
        return str(self.words.get("text", ""))


def to_html(report: DiagnoseReport) -> str:
    """The report as an HTML fragment (``_repr_html_``)."""
    e = html.escape
    words = report.words
    verdicts = report.verdicts
    parts = ['<div class="kgadvise-diagnose">']
    label = f"<strong>{e(str(words.get('verdict_label', '')))}</strong>"
    if verdicts:
        shown = ", ".join(f"<code>{e(v)}</code>" for v in verdicts)
        parts.append(f"<p>{label} {shown}</p>")
    else:
        parts.append(f"<p>{label}</p>")
    facts = words.get("facts") or []
    if facts:
        parts.append("<p>" + "; ".join(e(str(f)) for f in facts) + "</p>")
    table = words.get("gpu_table") or {}
    rows = table.get("rows") or []
    if rows:
        parts.append('<table class="kgadvise-gpus">')
        head = "".join(f"<th>{e(str(h))}</th>" for h in table.get("header") or [])
        parts.append(f"<thead><tr>{head}</tr></thead><tbody>")
        for row in rows:
            parts.append("<tr>" + "".join(f"<td>{e(str(c))}</td>" for c in row) + "</tr>")
        parts.append("</tbody></table>")
    parts.extend(_findings(report.get("findings") or []))
    parts.append("</div>")
    return "\n".join(parts)


def _findings(findings: List[Dict[str, Any]]) -> List[str]:
    """The findings as a list: each one's severity, rule, title, evidence (where nvidia-smi's own errors
    are quoted) and fix, labelled as the core's text labels them."""
    if not findings:
        return []
    e = html.escape
    items = ['<ul class="kgadvise-findings">']
    for f in findings:
        evidence, fix = f.get("evidence"), f.get("fix")
        items.append(
            f"<li><strong>{e(str(f.get('severity', '')))} {e(str(f.get('rule', '')))}</strong>: "
            f"{e(str(f.get('title', '')))}"
            + (f"<br>evidence: {e(str(evidence))}" if evidence else "")
            + (f"<br>fix: {e(str(fix))}" if fix else "")
            + "</li>"
        )
    items.append("</ul>")
    return items
