"""The page every HTML report is written in (``check``/``diff --format html``, ``explain --memory
--format html``): one self-contained file -- inline style sheet and SVG, no script, nothing
fetched -- readable without colour (each status is a word and a mark, each bar segment a
pattern), in light and dark schemes and on paper.

It sits in the model, beside ``words``, because the formatters and the views, which both write
HTML, may not import each other.

Every figure a report shows is written with ``figure``: the element carries the JSON path of the
value in the same command's ``--format json`` document (``data-json``) and, when its text is not
the value itself (a size, a share, an escaped name), the exact value (``data-value``, JSON), so a
reader -- the browser test -- can check what the page shows against the JSON report.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterable, Sequence

from tpuemb_cli.model.memory import size
from tpuemb_cli.model.words import printable

# The statuses a verdict can have, each as a word and a mark: the page must read the same in
# grey, printed, or to a screen reader (the mark is hidden from it; the word says it all).
STATUS_MARKS = {
    "fits": "\u2713",  # check mark
    "near": "\u25b2",  # triangle: fits, with too little room
    "does-not-fit": "\u2717",  # ballot x
    "cannot-run": "\u2298",  # circled slash
    "unknown": "?",
    "not-sized": "?",
    "no-chip": "\u2013",  # en dash: nothing to compare with
    "error": "\u2717",
    "warning": "\u25b2",
    "info": "i",
}

# The fills of a stacked bar's segments, one pattern each (colour is a second cue, never the
# only one); the last is the headroom, left empty.
PATTERNS = 6

# Each status's mark, drawn before its word (not part of the text: the word is the figure).
_MARKS = "".join(
    f'.status.st-{name}::before{{content:"{mark} "}}' for name, mark in STATUS_MARKS.items()
)
STYLE = (
    _MARKS
    + """
:root{color-scheme:light dark;--bg:#fff;--fg:#1b1b1b;--muted:#5a5a5a;--line:#c8c8c8;
--panel:#f5f5f5;--ok:#1b6e34;--near:#8a5a00;--bad:#b3261e;--na:#5a5a5a;
--s0:#3a6ea5;--s1:#c0722a;--s2:#5b8c3a;--s3:#8a4f9e;--s4:#b04a5a;--s5:#4a8f8f}
@media (prefers-color-scheme:dark){:root{--bg:#141414;--fg:#e6e6e6;--muted:#a8a8a8;
--line:#444;--panel:#1f1f1f;--ok:#6fcf8a;--near:#f0b54a;--bad:#ff8a80;--na:#a8a8a8;
--s0:#7fb0e6;--s1:#f0a35e;--s2:#97c774;--s3:#c69ad6;--s4:#e88a98;--s5:#7fcaca}}
*{box-sizing:border-box}
body{margin:0 auto;max-width:1200px;padding:1rem 1.5rem;background:var(--bg);color:var(--fg);
font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;overflow-wrap:break-word}
h1{font-size:1.4rem;margin:.2rem 0 .6rem}h2{font-size:1.15rem;margin:1.6rem 0 .5rem;
border-bottom:1px solid var(--line);padding-bottom:.2rem}h3{font-size:1rem;margin:1.2rem 0 .4rem}
code,pre,.mono{font-family:ui-monospace,"SFMono-Regular",Menlo,Consolas,monospace;font-size:.92em}
pre{background:var(--panel);padding:.5rem .7rem;overflow-x:auto;white-space:pre-wrap}
table{border-collapse:collapse;margin:.4rem 0 1rem;width:100%}
th,td{border:1px solid var(--line);padding:.2rem .45rem;text-align:left;vertical-align:top}
th{background:var(--panel)}tr.group th{background:none;font-size:1.05em;padding-top:.8rem}
td.num,th.num{text-align:right;white-space:nowrap}
.muted{color:var(--muted)}.lines p{margin:.15rem 0}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.15rem 1rem;margin:.4rem 0}
dl.facts dt{color:var(--muted)}dl.facts dd{margin:0}
.status{display:inline-block;padding:0 .4rem;border:2px solid currentColor;border-radius:3px;
font-weight:600;white-space:nowrap}
.st-fits,.st-info{color:var(--ok)}.st-near,.st-warning{color:var(--near)}
.st-does-not-fit,.st-error,.st-cannot-run{color:var(--bad)}
.st-unknown,.st-no-chip,.st-not-sized{color:var(--na)}
.status.st-near,.status.st-warning{border-style:dashed}.status.st-cannot-run{border-style:dotted}
.status.st-does-not-fit,.status.st-error{border-style:double;border-width:3px}
.mono,.file,td>span[data-json]{overflow-wrap:anywhere}
table.changes td[data-json]:nth-child(1),table.changes td:nth-child(n+4):nth-child(-n+6){
font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.92em}
.field,.help{display:block}.field{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.92em}
.field::before{content:"field ";color:var(--muted);font-family:system-ui,sans-serif}
.help::before{content:"help ";color:var(--muted)}
.above::before{content:"as above";color:var(--muted)}.help.above::before{content:"help as above"}
table.findings td:empty:not([data-json])::before,table.changes td:empty:not([data-json])::before{
content:"\\2033";content:"\\2033" / "as above";color:var(--muted)}
td[data-json]:empty::before{content:"(empty)";color:var(--muted)}
th{white-space:nowrap}.nowrap{white-space:nowrap}
svg.bar{width:100%;height:44px;display:block;margin:.5rem 0 .2rem}
svg.bar rect.frame{fill:none;stroke:var(--fg);stroke-width:1}
svg.bar line.hbm{stroke:var(--fg);stroke-width:3;stroke-dasharray:6 3}
.swatch{display:inline-block;width:1.4em;height:1em;vertical-align:middle;margin-right:.3em}
.swatch svg{width:100%;height:100%;display:block;border:1px solid var(--fg)}
.c0{fill:var(--s0);stroke:var(--s0)}.c1{fill:var(--s1);stroke:var(--s1)}
.c2{fill:var(--s2);stroke:var(--s2)}.c3{fill:var(--s3);stroke:var(--s3)}
.c4{fill:var(--s4);stroke:var(--s4)}.c5{fill:var(--s5);stroke:var(--s5)}
.pbg{fill:var(--bg)}
table.legend{width:auto;min-width:24rem}table.grid td{min-width:8rem}
table.grid th{white-space:normal;width:16rem;font-weight:normal}
td.smallest{outline:3px solid var(--fg);outline-offset:-3px}
.badge{font-weight:700}
details>summary{cursor:pointer}
.chunk{content-visibility:auto;contain-intrinsic-size:auto 60rem}
table.long{table-layout:fixed;margin:0}
.file{font-family:ui-monospace,Menlo,Consolas,monospace}
@media print{.chunk{content-visibility:visible}
:root{--bg:#fff;--fg:#000;--muted:#333;--line:#999;--panel:#f0f0f0;
--ok:#1b6e34;--near:#8a5a00;--bad:#b3261e;--na:#5a5a5a;--s0:#3a6ea5;--s1:#c0722a;--s2:#5b8c3a;
--s3:#8a4f9e;--s4:#b04a5a;--s5:#4a8f8f}
body{max-width:none;padding:0;font-size:10pt}*{print-color-adjust:exact;-webkit-print-color-adjust:exact}
details::details-content{content-visibility:visible;display:block}
tr,.keep{break-inside:avoid}h2,h3{break-after:avoid}a{color:inherit;text-decoration:none}}
"""
)

# Nothing but the inline style: no script runs and nothing is fetched, whatever a name holds.
POLICY = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"


def text(value: str) -> str:
    """Text from the input, as HTML: control characters escaped as the terminal reports show
    them (``\\x1b``), then markup escaped."""
    return html.escape(printable(value), quote=False)


def attr(value: str) -> str:
    """An attribute's value (quoted with ``"``)."""
    return html.escape(value, quote=True)


# A value HTML reads without quotes, and that needs no escaping: a JSON path, a class, a number.
_BARE = re.compile(r"[A-Za-z0-9_.:#\[\]/-]+")


def attribute(name: str, value: str) -> str:
    """`` name=value``, quoted (and escaped) only where it must be: a page of 10,000 rows
    carries ten figures a row, and their quotes are a tenth of its attributes."""
    if _BARE.fullmatch(value):
        return f" {name}={value}"
    return f' {name}="{attr(value)}"'


def figure(
    path: str,
    value: object,
    shown: str | None = None,
    kind: str = "",
    tag: str = "span",
    css: str = "",
    extra: str = "",
    end: bool = True,
) -> str:
    """One figure of the report: its value shown, with the JSON path it is at (``.line``: under
    the ``data-at`` path of the nearest element around it that has one, a finding's row) and,
    when the text is not the value as JSON would give it, the exact value. ``kind`` (``bytes``,
    ``share``, ``count``) says how the text renders the value; ``shown`` overrides the text
    (escaped); ``extra``: more attributes (a derived figure's ``data-minus`` or ``data-per``);
    ``end=False`` leaves out an end tag HTML lets a table's cell leave out (``</td>``)."""
    if shown is None:
        shown = _shown(value, kind)
    # The text is the value when a string is shown as it is (nothing in it escaped), or an
    # integer as JSON writes it.
    if isinstance(value, str):
        plain = not kind and shown == value == printable(value)
    else:
        plain = type(value) is int and not kind and shown == str(value)
    data = attribute("data-json", path)
    if not plain:
        # ASCII: no control or bidi character in the page, even in an attribute.
        data += attribute("data-value", json.dumps(value))
    if kind:
        data += attribute("data-format", kind)
    if css:
        data += attribute("class", css)
    data += extra
    if kind == "bytes" and isinstance(value, int):
        data += f' title="{value:,} bytes"'
    return f"<{tag}{data}>{text(shown)}" + (f"</{tag}>" if end else "")


def _shown(value: object, kind: str) -> str:
    if value is None:
        return "\u2014"  # em dash: nothing
    if kind == "bytes" and isinstance(value, int):
        return size(value)
    if kind == "share" and isinstance(value, (int, float)):
        return f"{value:.1%}"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int) and kind in ("count", "length"):
        return f"{value:,}"
    return str(value)


def status(path: str, value: str) -> str:
    """A verdict: its word, the figure, with its mark before it (the style sheet's)."""
    return figure(path, value, css=f"status st-{attr(value)}")


def pattern_defs() -> str:
    """The patterns bars and swatches fill with (solid, stripes, dots, cross-hatch, ...)."""
    shapes = (
        '<rect width="8" height="8" class="c0"/>',
        '<rect width="8" height="8" class="pbg"/><path d="M-2,2 l4,-4 M0,8 l8,-8 M6,10 l4,-4"'
        ' class="c1" stroke-width="2.2"/>',
        '<rect width="8" height="8" class="pbg"/><circle cx="4" cy="4" r="2.3" class="c2"/>',
        '<rect width="8" height="8" class="pbg"/><path d="M0,0 l8,8 M8,0 l-8,8" class="c3"'
        ' stroke-width="1.6"/>',
        '<rect width="8" height="8" class="pbg"/><path d="M0,2 h8 M0,6 h8" class="c4"'
        ' stroke-width="2"/>',
        '<rect width="8" height="8" class="pbg"/><path d="M2,0 v8 M6,0 v8" class="c5"'
        ' stroke-width="2"/>',
    )
    patterns = "".join(
        f'<pattern id="p{n}" width="8" height="8" patternUnits="userSpaceOnUse">{shape}</pattern>'
        for n, shape in enumerate(shapes)
    )
    # Not display:none: a pattern in an undisplayed SVG fills nothing in Chromium.
    return (
        '<svg aria-hidden="true" width="0" height="0" style="position:absolute">'
        f"<defs>{patterns}</defs></svg>"
    )


def swatch(index: int) -> str:
    """A legend's sample of the pattern ``index`` (``None``-like -1: the empty headroom)."""
    fill = "var(--bg)" if index < 0 else f"url(#p{index % PATTERNS})"
    return (
        '<span class="swatch" aria-hidden="true"><svg viewBox="0 0 14 10" '
        f'preserveAspectRatio="none"><rect width="14" height="10" fill="{fill}"/></svg></span>'
    )


def stacked_bar(segments: Sequence[tuple[str, int]], limit: int | None, label: str) -> str:
    """An SVG bar of ``segments`` (label, bytes), each its pattern, against ``limit`` (the HBM,
    drawn as a dashed line; what is left of it is the empty headroom). The figures are in the
    legend the caller writes; the bar only draws them."""
    total = sum(max(n, 0) for _, n in segments)
    scale = max(total, limit or 0, 1)
    parts, at = [], 0.0
    for index, (name, n) in enumerate(segments):
        # At least a sliver: 200 KiB of 95 GiB is still drawn, or the bar would look empty.
        width = max(1000 * max(n, 0) / scale, 3.0 if n > 0 else 0.0)
        parts.append(
            f'<rect x="{at:.2f}" y="4" width="{width:.2f}" height="36" '
            f'fill="url(#p{index % PATTERNS})"><title>{text(name)}: {size(n)}</title></rect>'
        )
        at += width
    if limit is not None:
        x = 1000 * limit / scale
        parts.append(f'<line class="hbm" x1="{x:.2f}" x2="{x:.2f}" y1="0" y2="44"/>')
    frame = '<rect class="frame" x="0.5" y="4" width="999" height="36"/>'
    return (
        f'<svg class="bar" role="img" aria-label="{attr(label)}" viewBox="0 0 1000 44" '
        f'preserveAspectRatio="none">{"".join(parts)}{frame}</svg>'
    )


def rows(cells: Iterable[Iterable[str]]) -> str:
    """Table rows of cells that are HTML already."""
    return "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in cells)


# Rows a table holds before it is written as consecutive tables of this many rows each.
CHUNK = 200


def long_table(
    css: str, head: Sequence[str], widths: Sequence[str], body: Sequence[str], attrs: str = ""
) -> str:
    """A table of ``body``'s rows (HTML) under the header cells ``head``. Past ``CHUNK`` rows,
    consecutive tables of ``CHUNK`` rows with the same fixed column ``widths`` (CSS lengths;
    "" leaves a column its share of the rest), each in a block the browser neither lays out
    nor paints until it is scrolled to (``content-visibility``): a page of 10,000 findings then
    loads in a second where one table of them took five, laid out again and again as it was
    read. ``attrs``: more attributes of each table."""
    th = "<thead><tr>" + "".join(f"<th>{h}</th>" for h in head) + "</tr></thead>"
    if len(body) <= CHUNK:
        return f'<table class="{css}"{attrs}>{th}<tbody>{"".join(body)}</tbody></table>'
    cols = "".join(f'<col style="width:{w}">' if w else "<col>" for w in widths)
    chunks = []
    for start in range(0, len(body), CHUNK):
        rows = "".join(body[start : start + CHUNK])
        head_row = th if start == 0 else ""
        chunks.append(
            f'<div class="chunk"><table class="{css} long"{attrs}><colgroup>{cols}</colgroup>'
            f"{head_row}<tbody>{rows}</tbody></table></div>"
        )
    return "".join(chunks)


def page(title: str, body: Iterable[str]) -> str:
    """The whole document: ``title`` (escaped here) and ``body`` (HTML)."""
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{POLICY}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta name="color-scheme" content="light dark">\n'
        f"<title>{text(title)}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n"
        f"{pattern_defs()}\n{''.join(body)}\n</body>\n</html>\n"
    )
