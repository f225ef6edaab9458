"""The diagnose report as a dict that Jupyter shows as HTML: the verdicts, the per-GPU table, the wasted
quota hours and the findings. Rendering only: every number and verdict is the core's."""

from __future__ import annotations

import html
from typing import Any, Iterable, List, Optional

_BARS = "▁▂▃▄▅▆▇█"


def _num(value: Optional[float], digits: int = 1) -> str:
    if value is None:
        return "-"
    if float(value).is_integer():
        return f"{value:.0f}"
    return f"{value:.{digits}f}"


def _pair(a: Optional[float], b: Optional[float], unit: str) -> str:
    if a is None and b is None:
        return "-"
    return f"{_num(a, 0)} / {_num(b, 0)} {unit}"


def sparkline(points: Iterable[float], width: int = 40) -> str:
    """A utilisation timeline (0-100 %) as at most ``width`` bar characters, as the CLI draws it."""
    values: List[float] = list(points)
    if not values or width <= 0:
        return ""
    group = -(-len(values) // width)
    out = []
    for i in range(0, len(values), group):
        chunk = values[i : i + group]
        mean = sum(chunk) / len(chunk)
        out.append(_BARS[min(7, round(max(0.0, min(100.0, mean)) / 100.0 * 7))])
    return "".join(out)


def verdict_line(report: Any) -> str:
    """The report's verdicts in one line, as the CLI's first line says them."""
    verdicts = report.get("verdicts") or []
    if not verdicts:
        return "Verdict: nothing to fix from these numbers (busy, not input- or compute-limited by the thresholds)."
    return "Verdicts (fix first): " + ", ".join(verdicts)


def _span(report: Any) -> str:
    span = report.get("span_s")
    source = report.get("span_source")
    if span is None:
        return "unknown (no timestamps)"
    if source == "snapshot":
        return "a snapshot (one sample per GPU)"
    if span < 120:
        text = f"{span:.0f} s"
    elif span < 7200:
        text = f"{span / 60:.1f} min"
    else:
        text = f"{span / 3600:.2f} h"
    return f"{text} ({source})"


def summary(report: Any) -> str:
    """A few lines for the end of a ``watch`` block: verdicts, span, wasted quota, findings' titles."""
    lines = [verdict_line(report)]
    gpus = report.get("gpus") or []
    detail = f"{len(gpus)} GPU{'s' if len(gpus) != 1 else ''}, span {_span(report)}"
    wasted = report.get("wasted_quota_hours")
    if wasted is not None:
        detail += f", wasted quota {wasted:.2f} h"
    lines.append(detail)
    for error in report.get("errors") or []:
        lines.append(f"nvidia-smi: {error}")
    for finding in report.get("findings") or []:
        lines.append(f"  {finding.get('severity', '')} {finding.get('rule', '')}: {finding.get('title', '')}")
    return "\n".join(lines)


def to_html(report: Any) -> str:
    """The report as an HTML fragment (``_repr_html_``)."""
    e = html.escape
    verdicts = report.get("verdicts") or []
    parts = ['<div class="kgadvise-diagnose">']
    if verdicts:
        shown = ", ".join(f"<code>{e(v)}</code>" for v in verdicts)
        parts.append(f"<p><strong>Verdicts (fix first):</strong> {shown}</p>")
    else:
        parts.append(f"<p><strong>{e(verdict_line(report))}</strong></p>")
    wasted = report.get("wasted_quota_hours")
    facts = [f"Span: {e(_span(report))}"]
    facts.append(
        f"Wasted quota: <strong>{wasted:.2f} h</strong>" if wasted is not None else "Wasted quota: unknown"
    )
    parts.append("<p>" + "; ".join(facts) + "</p>")
    for error in report.get("errors") or []:
        parts.append(f"<p>nvidia-smi: {e(str(error))}</p>")
    gpus = report.get("gpus") or []
    if gpus:
        head = [
            "GPU",
            "name",
            "samples",
            "util %",
            "p10",
            "p90",
            "memory peak / total",
            "power mean / limit",
            "utilisation over time",
        ]
        parts.append('<table class="kgadvise-gpus">')
        parts.append("<thead><tr>" + "".join(f"<th>{h}</th>" for h in head) + "</tr></thead><tbody>")
        for g in gpus:
            cells = [
                str(g.get("index")),
                g.get("name") or "-",
                str(g.get("samples")),
                _num(g.get("util_mean")),
                _num(g.get("util_p10")),
                _num(g.get("util_p90")),
                _pair(g.get("mem_peak_mib"), g.get("mem_total_mib"), "MiB"),
                _pair(g.get("power_mean_w"), g.get("power_limit_w"), "W"),
                sparkline(g.get("timeline") or []),
            ]
            parts.append("<tr>" + "".join(f"<td>{e(c)}</td>" for c in cells) + "</tr>")
        parts.append("</tbody></table>")
    findings = report.get("findings") or []
    if findings:
        parts.append('<ul class="kgadvise-findings">')
        for f in findings:
            fix = f.get("fix")
            parts.append(
                f"<li><strong>{e(str(f.get('severity', '')))} {e(str(f.get('rule', '')))}</strong>: "
                f"{e(str(f.get('title', '')))}"
                + (f"<br>Fix: {e(str(fix))}" if fix else "")
                + "</li>"
            )
        parts.append("</ul>")
    parts.append("</div>")
    return "\n".join(parts)


class DiagnoseReport(dict):  # type: ignore[type-arg]
    """The diagnose report: a plain dict equal to ``kgadvise diagnose --json``, shown as HTML in Jupyter."""

    def _repr_html_(self) -> str:
        return to_html(self)

    @property
    def verdicts(self) -> List[str]:
        """The verdicts, fix first."""
        return list(self.get("verdicts") or [])
