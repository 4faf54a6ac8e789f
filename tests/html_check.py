#!/usr/bin/env python3
"""html_check.py: checks of statbench's HTML page (SB_FORMAT_HTML) read
with python3's own html.parser, no browser.  tests/html.sh runs it;
tests/html_browser.py imports its comparison of the cells with the JSON.

    html_check.py safe PAGE          the page is self-contained and inert
    html_check.py cells PAGE JSON    its tables' cells are the JSON's figures
    html_check.py text PAGE NEEDLE   NEEDLE is in the page's text (decoded)

Each prints what it found wrong on stderr and exits 1, or exits 0.
"""
import json
import math
import re
import sys
from html.parser import HTMLParser

# Elements without an end tag (HTML's void elements).
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link",
        "meta", "source", "track", "wbr"}
# Elements that run code or load something: none may appear.
FORBIDDEN = {"script", "iframe", "frame", "object", "embed", "link", "img",
             "base", "form", "audio", "video", "source", "image", "use",
             "foreignobject", "applet", "portal", "noscript"}
# Attributes that name a resource.
URL_ATTRS = {"src", "href", "xlink:href", "action", "formaction", "srcset",
             "poster", "data", "background", "codebase", "cite", "ping",
             "manifest", "longdesc", "usemap"}


class Page(HTMLParser):
    """The page's structure: tags balanced, what is forbidden, the text,
    and every table as rows of cell texts."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.errors, self.text = [], [], []
        self.doctype = None
        self.first = None
        self.tables = {}     # id -> list of rows (lists of texts)
        self.heads = {}      # id -> the head row's texts
        self.metas = []
        self.table_in_scroll = []
        self._table = None
        self._cell = None
        self._row = None
        self._in_head = False

    def error(self, message):
        self.errors.append(message)

    def handle_decl(self, decl):
        if self.first is None:
            self.first = "decl"
        self.doctype = decl

    def _attrs(self, tag, attrs):
        for name, value in attrs:
            name = name.lower()
            value = value or ""
            if name.startswith("on"):
                self.errors.append(f"<{tag}> has an event handler {name}")
            if name in URL_ATTRS and not value.startswith("#"):
                self.errors.append(f"<{tag} {name}={value!r}>: a reference "
                                   "outside the page")
            low = value.lower()
            if ("javascript:" in low or "//" in low or "url(" in low or
                    "@import" in low):
                if not (tag == "meta" and name == "content"):
                    self.errors.append(f"<{tag} {name}={value!r}>: a URL")

    def _element(self, tag, attrs):
        """What every element is checked for, with or without content."""
        if self.first is None:
            self.first = "tag"
        self._attrs(tag, attrs)
        if tag in FORBIDDEN:
            self.errors.append(f"a <{tag}> element")
        if tag == "meta":
            self.metas.append(dict(attrs))

    def handle_starttag(self, tag, attrs):
        self._element(tag, attrs)
        if tag == "table":
            tid = dict(attrs).get("id", f"table{len(self.tables)}")
            self._table = tid
            self.tables[tid] = []
            parent = self.stack[-1] if self.stack else ("", {})
            self.table_in_scroll.append(
                parent[0] == "div" and parent[1].get("class") == "scroll")
        if tag == "thead":
            self._in_head = True
        if tag == "tr":
            self._row = []
        if tag in ("td", "th"):
            self._cell = []
        if tag not in VOID:
            self.stack.append((tag, dict(attrs)))

    def handle_startendtag(self, tag, attrs):
        # <line .../> in SVG, <meta ...> written as <meta .../>.
        self._element(tag, attrs)

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self.stack or self.stack[-1][0] != tag:
            self.errors.append(f"</{tag}> closes "
                               f"<{self.stack[-1][0] if self.stack else ''}>")
            # Recover: pop to the matching tag if there is one.
            for k in range(len(self.stack) - 1, -1, -1):
                if self.stack[k][0] == tag:
                    del self.stack[k:]
                    break
            return
        self.stack.pop()
        if tag in ("td", "th") and self._row is not None:
            self._row.append("".join(self._cell).strip())
            self._cell = None
        elif tag == "tr" and self._table is not None:
            if self._in_head:
                self.heads[self._table] = self._row
            else:
                self.tables[self._table].append(self._row)
            self._row = None
        elif tag == "thead":
            self._in_head = False
        elif tag == "table":
            self._table = None

    def handle_data(self, data):
        self.text.append(data)
        if self._cell is not None:
            self._cell.append(data)


def parse(path):
    with open(path, "rb") as f:
        raw = f.read()
    page = Page()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        page.errors.append(f"not UTF-8: {e}")
        text = raw.decode("utf-8", "replace")
    page.feed(text)
    page.close()
    return raw, text, page


def safe(path):
    raw, text, page = parse(path)
    errs = list(page.errors)
    if page.first != "decl" or (page.doctype or "").lower() != "doctype html":
        errs.append("the page does not open with <!doctype html>")
    if page.stack:
        errs.append("unclosed: " + " ".join(t for t, _ in page.stack))
    if re.search(rb"<\s*script", raw, re.I):
        errs.append("a raw <script in the page")
    for bad in (b"http://", b"https://", b"ftp://", b"file:"):
        if bad in raw.lower():
            errs.append(f"{bad.decode()} in the page")
    if re.search(rb"[\x00-\x08\x0b-\x1f\x7f]", raw):
        errs.append("a control character in the page")
    if not re.search(r"<html lang=\"[a-z]+\"", text):
        errs.append("no <html lang=...>")
    csp = [m.get("content", "") for m in page.metas
           if (m.get("http-equiv") or "").lower() ==
           "content-security-policy"]
    if not csp or "default-src 'none'" not in csp[0]:
        errs.append("no Content-Security-Policy with default-src 'none'")
    elif "script-src" in csp[0] or "unsafe-eval" in csp[0]:
        errs.append("the policy allows a script")
    if not any(m.get("charset", "").lower() == "utf-8" for m in page.metas):
        errs.append("no <meta charset=\"utf-8\">")
    if not any(m.get("name") == "viewport" and
               "width=device-width" in m.get("content", "")
               for m in page.metas):
        errs.append("no viewport meta for phones")
    if not page.tables:
        errs.append("no table")
    if not all(page.table_in_scroll):
        errs.append("a table outside a <div class=\"scroll\">")
    if "<svg" not in text:
        errs.append("no inline SVG figure")
    return errs


# ---- The cells against the JSON ------------------------------------------

def rounding_unit(t):
    """The unit of the last digit a number's text shows: 0.01 for "1.23",
    10 for "120" (its zeros may be rounding's), 1e-6 for "1.2e-5"."""
    m = re.fullmatch(r"-?(\d+)(?:\.(\d+))?(?:e([-+]?\d+))?", t)
    if not m:
        return None
    whole, frac, exp = m.group(1), m.group(2) or "", m.group(3)
    if exp is not None:
        return 10.0 ** (int(exp) - len(frac))
    if frac:
        return 10.0 ** -len(frac)
    zeros = len(whole) - len(whole.rstrip("0"))
    return 10.0 ** zeros if whole.strip("0") else 1.0


def same_number(text, want, scale=1.0):
    """text (as the page shows it) is want (from the JSON) rounded."""
    text = text.rstrip("*")
    if text == "--":
        return want is None or not math.isfinite(want)
    if want is None:
        return False
    if text in ("inf", "-inf"):
        return math.isinf(want)
    unit = rounding_unit(text)
    if unit is None:
        return False
    got = float(text)
    want = want * scale
    return abs(got - want) <= 0.5 * unit * (1 + 1e-9) + 1e-12 * abs(want)


def same_interval(text, iv):
    if text == "--":
        return iv is None or iv.get("lo") is None
    m = re.fullmatch(r"\[(\S+), (\S+)\]", text)
    return bool(m) and same_number(m.group(1), iv.get("lo")) and \
        same_number(m.group(2), iv.get("hi"))


def cells(path, json_path):
    _, _, page = parse(path)
    with open(json_path) as f:
        run = json.load(f)
    cl = run["cells"]
    errs = []
    errs += compare_cells(page.heads.get("cells-table"),
                          page.tables.get("cells-table"), cl)
    if "rejects-table" in page.tables:
        errs += compare_rejects(page.heads["rejects-table"],
                                page.tables["rejects-table"], cl)
    return errs


def cmp_of(c):
    return c.get("comparison") or {}


def compare_cells(head, rows, cl):
    """Every cell of the cells table against the JSON cell of its row.
    Returns a list of what differs (empty: all equal)."""
    errs, checked = [], 0
    if not head or rows is None:
        return ["no cells table"]
    if len(rows) != len(cl):
        return [f"{len(rows)} rows, {len(cl)} cells in the JSON"]
    based = {cmp_of(c).get("base") for c in cl if cmp_of(c)}
    for i, (row, c) in enumerate(zip(rows, cl)):
        if len(row) != len(head):
            errs.append(f"row {i}: {len(row)} cells, {len(head)} heads")
            continue
        prev = None
        for h, t in zip(head, row):
            ok = True
            cm = cmp_of(c)
            if h in ("kernel", "data"):
                ok = t == c["kernel"]
            elif h in ("size", "src", "dst", "samples"):
                key = {"src": "src_align", "dst": "dst_align"}.get(h, h)
                ok = t == str(c[key])
            elif h in ("MB/s", "median", "core cyc/call", "core cyc/B",
                       "ratio"):
                iv = {"MB/s": c["mbps"], "median": c["interval"],
                      "core cyc/call": c["core_cycles"],
                      "core cyc/B": c["core_cycles_per_byte"],
                      "ratio": cm.get("ratio")}[h]
                prev = iv
                ok = same_number(t, (iv or {}).get("estimate"))
            elif h.endswith("% CI"):
                ok = same_interval(t, prev)
            elif h == "+-%":
                ok = same_number(t, c["rel_halfwidth"], 100)
            elif h == "metric":
                ok = t == c["metric"]
            elif h == "p (Holm)":
                ok = same_number(t, cm.get("p_adjusted"))
            elif h == "verdict":
                want = cm.get("verdict") or (
                    "baseline" if i in based else "--")
                ok = t == want
            elif h == "test":
                ok = t == (cm.get("test") or "--")
            else:
                errs.append(f"unknown column {h!r}")
                continue
            checked += 1
            if not ok:
                errs.append(f"row {i} ({c['kernel']!r}) column {h!r}: "
                            f"page {t!r}, JSON disagrees")
    if not checked:
        errs.append("no cell compared")
    return errs


def compare_rejects(head, rows, cl):
    errs = []
    if len(rows) != len(cl):
        return [f"rejects: {len(rows)} rows, {len(cl)} cells"]
    for i, (row, c) in enumerate(zip(rows, cl)):
        for h, t in zip(head, row):
            if h == "kernel":
                ok = t == c["kernel"]
            elif h in ("size", "src", "dst"):
                key = {"src": "src_align", "dst": "dst_align"}.get(h, h)
                ok = t == str(c[key])
            else:
                r = c["rejected"][h]
                d = r if h == "outlier" else c["disturbed"][h]
                ok = t == f"{r} ({d})"
            if not ok:
                errs.append(f"rejects row {i} column {h!r}: page {t!r}")
    return errs


def main(argv):
    if len(argv) >= 3 and argv[1] == "safe":
        errs = safe(argv[2])
    elif len(argv) == 4 and argv[1] == "cells":
        errs = cells(argv[2], argv[3])
    elif len(argv) == 4 and argv[1] == "text":
        _, _, page = parse(argv[2])
        errs = [] if argv[3] in "".join(page.text) else \
            [f"{argv[3]!r} not in the page's text"]
    else:
        print(__doc__, file=sys.stderr)
        return 2
    for e in errs:
        print(e, file=sys.stderr)
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
