#!/usr/bin/env python3
"""html_browser.py: statbench's HTML page in a real browser, headless
Chromium driven by chromedriver through the W3C WebDriver HTTP API, from
python3's standard library alone (urllib: no selenium, no npm).

    html_browser.py CHROMIUM CHROMEDRIVER DIR

DIR holds tests/html_fixture's pages and their JSON (measured.*,
imported.*).  Prints TAP, one line per check; exits 0 when every check
passed, 1 otherwise.  For each page: it loads by file:// URL with no
SEVERE entry in the browser's log (a console error or a violation of the
page's Content-Security-Policy), no request in the performance log but
the page's own, no script element (the kernel named <script>...</script>
made none), no sideways overflow of the page at a phone's width (its
tables scroll in their own box), screenshots at phone and desktop width
whose PNG is that wide and not blank, and the table cells' text as the
DOM holds it equal to the JSON's figures (html_check.compare_cells).
Then a page with a planted image from the network, which must be caught:
a check that cannot fail proves nothing.
"""
import base64
import json
import os
import re
import socket
import struct
import subprocess
import sys
import time
import urllib.error
import urllib.request
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import html_check  # noqa: E402

n = 0
failed = 0


def tap(ok, what, diag=None):
    global n, failed
    n += 1
    if not ok:
        failed += 1
    print(f"{'ok' if ok else 'not ok'} {n} - {what}")
    if not ok and diag:
        for line in str(diag).splitlines()[:20]:
            print(f"# {line}")


class Driver:
    def __init__(self, base):
        self.base = base
        self.sid = None

    def call(self, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(
            self.base + path, data=data, method=method,
            headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=120) as r:
                return json.loads(r.read())["value"]
        except urllib.error.HTTPError as e:
            raise RuntimeError(f"{method} {path}: {e.read()[:400]!r}")

    def s(self, method, path, body=None):
        return self.call(method, f"/session/{self.sid}{path}", body)

    def start(self, chromium):
        caps = {"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": chromium,
                "args": ["--headless=new", "--no-sandbox", "--disable-gpu",
                         "--hide-scrollbars", "--no-first-run",
                         "--disable-background-networking",
                         "--disable-component-update",
                         "--disable-default-apps", "--disable-sync",
                         "--force-device-scale-factor=1"]},
            "goog:loggingPrefs": {"browser": "ALL", "performance": "ALL"},
        }}}
        self.sid = self.call("POST", "/session", caps)["sessionId"]

    def logs(self, kind):
        return self.s("POST", "/se/log", {"type": kind})

    def js(self, script):
        return self.s("POST", "/execute/sync", {"script": script, "args": []})

    def size(self, w, h):
        self.s("POST", "/window/rect", {"width": w, "height": h})

    def screenshot(self):
        return base64.b64decode(self.s("GET", "/screenshot"))


def png_facts(png):
    """Width, height and the number of distinct pixels (up to 64) of a
    PNG of 8-bit RGB or RGBA, its rows unfiltered."""
    if png[:8] != b"\x89PNG\r\n\x1a\n" or png[12:16] != b"IHDR":
        return None
    w, h, depth, ctype = struct.unpack(">IIBB", png[16:26])
    idat, at = b"", 8
    while at < len(png):
        ln, kind = struct.unpack(">I4s", png[at:at + 8])
        if kind == b"IDAT":
            idat += png[at + 8:at + 8 + ln]
        at += 12 + ln
    bpp = {2: 3, 6: 4}.get(ctype)
    if depth != 8 or not bpp:
        return w, h, None
    raw = zlib.decompress(idat)
    stride, prev, colours = w * bpp, bytearray(w * bpp), set()
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(
            raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b, c = prev[x], prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pr = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[x] = (line[x] + pr) & 255
        if y % 8 == 0 and len(colours) < 64:
            for x in range(0, stride, bpp * 7):
                colours.add(bytes(line[x:x + 3]))
        prev = line
    return w, h, len(colours)


def severe(entries):
    return [e for e in entries if e.get("level") == "SEVERE"]


def requests(entries):
    urls = []
    for e in entries:
        try:
            m = json.loads(e["message"])["message"]
        except (KeyError, ValueError):
            continue
        if m.get("method") == "Network.requestWillBeSent":
            urls.append(m["params"]["request"]["url"])
    return urls


TABLES_JS = """
var out = {};
document.querySelectorAll('table').forEach(function (t) {
  var head = [], rows = [];
  t.querySelectorAll('thead th').forEach(function (c) {
    head.push(c.textContent.trim()); });
  t.querySelectorAll('tbody tr').forEach(function (r) {
    var row = [];
    r.querySelectorAll('td,th').forEach(function (c) {
      row.push(c.textContent.trim()); });
    rows.push(row); });
  out[t.id] = {head: head, rows: rows};
});
return out;
"""


def page(d, path, run):
    name = os.path.basename(path)
    url = "file://" + os.path.abspath(path)
    d.logs("browser")
    d.logs("performance")
    d.size(390, 844)
    d.s("POST", "/url", {"url": url})
    state = d.js("return document.readyState")
    tap(state == "complete", f"{name}: loaded ({state})")
    time.sleep(0.5)
    bad = severe(d.logs("browser"))
    tap(not bad, f"{name}: no console error or policy violation", bad)
    urls = [u for u in requests(d.logs("performance")) if u != url]
    tap(not urls, f"{name}: no network request but the page", urls)
    scripts = d.js("return document.scripts.length + "
                   "document.querySelectorAll('script,iframe,object,embed,"
                   "img').length")
    tap(scripts == 0, f"{name}: no script or loading element in the DOM "
        f"({scripts})")
    geo = d.js("return [document.documentElement.scrollWidth, "
               "window.innerWidth, devicePixelRatio]")
    tap(geo[0] <= geo[1], f"{name}: no sideways overflow at a phone's width "
        f"(scrollWidth {geo[0]}, innerWidth {geo[1]})")
    wide = d.js("var m = 0; document.querySelectorAll('.scroll').forEach("
                "function (s) { m = Math.max(m, s.scrollWidth - "
                "s.clientWidth); }); return m")
    tap(wide > 0, f"{name}: the cells table scrolls in its box on a phone "
        f"({wide} px beyond it)")
    for label, w, h in (("phone", 390, 844), ("desktop", 1280, 900)):
        d.size(w, h)
        inner = d.js("return window.innerWidth")
        png = d.screenshot()
        with open(path[:-5] + f"-{label}.png", "wb") as f:
            f.write(png)
        facts = png_facts(png)
        ok = facts is not None and facts[0] == inner and facts[1] >= 300 \
            and len(png) > 5000 and (facts[2] or 0) > 2
        tap(ok, f"{name}: {label} screenshot {facts and facts[:2]}, "
            f"{len(png)} bytes, {facts and facts[2]} colours sampled "
            f"(window {inner} px wide)")
    tables = d.js(TABLES_JS)
    cells = tables.get("cells-table") or {}
    errs = html_check.compare_cells(cells.get("head"), cells.get("rows"),
                                    run["cells"])
    tap(not errs, f"{name}: the DOM's {len(cells.get('rows') or [])} rows "
        "of cells are the JSON's figures", "\n".join(errs))
    if "rejects-table" in tables:
        t = tables["rejects-table"]
        errs = html_check.compare_rejects(t["head"], t["rows"], run["cells"])
        tap(not errs, f"{name}: the rejects table is the JSON's counts",
            "\n".join(errs))
    return tables


def main(argv):
    chromium, driver, top = argv[1], argv[2], argv[3]
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([driver, f"--port={port}"],
                            stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    d = Driver(f"http://127.0.0.1:{port}")
    try:
        for _ in range(100):
            try:
                if d.call("GET", "/status").get("ready"):
                    break
            except (OSError, RuntimeError):
                pass
            time.sleep(0.1)
        d.start(chromium)
        try:
            for stem in ("measured", "imported"):
                with open(os.path.join(top, stem + ".json")) as f:
                    run = json.load(f)
                tables = page(d, os.path.join(top, stem + ".html"), run)
                kernels = [r[0] for r in tables["cells-table"]["rows"]]
                tap("<script>alert(1)</script>" in kernels,
                    f"{stem}: the <script> kernel shows as text in its cell")
            # The detectors themselves: a page that fetches must fail them.
            with open(os.path.join(top, "measured.html")) as f:
                text = f.read()
            planted = os.path.join(top, "planted.html")
            with open(planted, "w") as f:
                f.write(text.replace(
                    "<main>", "<main><img src=\"http://192.0.2.1/x.png\" "
                    "alt=\"\">", 1))
            d.logs("browser")
            d.s("POST", "/url", {"url": "file://" + planted})
            time.sleep(0.5)
            caught = severe(d.logs("browser"))
            tap(bool(caught), "a planted image from the network is caught "
                "(the page's policy refuses it, the console says so)")
            # Without the policy the request goes out, and the
            # performance log must show it.
            with open(planted, "w") as f:
                f.write(re.sub(r"<meta http-equiv=\"Content-Security-Policy"
                               r"\"[^>]*>", "", text, count=1).replace(
                    "<main>", "<main><img src=\"http://192.0.2.1/x.png\" "
                    "alt=\"\">", 1))
            d.logs("performance")
            d.s("POST", "/url", {"url": "file://" + planted})
            time.sleep(0.5)
            sent = [u for u in requests(d.logs("performance"))
                    if u.startswith("http")]
            tap(bool(sent), "without the page's policy, the planted "
                "request shows in the performance log", sent)
            os.unlink(planted)
        finally:
            d.call("DELETE", f"/session/{d.sid}")
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    print(f"1..{n}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
