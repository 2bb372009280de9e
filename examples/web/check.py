#!/usr/bin/env python3
"""Headless check of the web example: serves the page, loads it in headless Chromium through
ChromeDriver (the W3C WebDriver HTTP API, Python's standard library only), waits for the page's
verdict, checks the outputs it shows against values written here, and saves a screenshot.

Usage: python3 examples/web/check.py [--screenshot PATH] [--timeout SECONDS]

Run it after `bash examples/web/build.sh` (`bash examples/web/check.sh` does both). Prints one
line, `web example: ok ...` or `web example: FAILED ...`, and exits non-zero on failure.
"""

import argparse
import base64
import functools
import http.server
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))

# What the page must show as the GPU's output of each case (`data-case` -> the shape and the
# values of its `tr.gpu` row), written out here independently of the page's own CPU check.
EXPECTED = {
    "bit_xor-u8": ("[2, 2]", "[[255, 127], [213, 0]]"),
    "bit_xor-f16": ("[4]", "[-0 (0x8000), inf (0x7c00), inf (0x7c00), 0 (0x0000)]"),
    "bit_xor-i64": (
        "[4]", "[9223372036854775807, -9223372036854775808, -9223372036854775808, 0]"),
    "logical_xor-u32": ("[4]", "[0, 1, 0, 1]"),
    "bitwise_xor-u8": ("[2]", "[22, 93]"),
    "bitwise_xor-bool": ("[3]", "[false, true, false]"),
    "bitwise_xor-i32": ("[2, 2, 3]", "[[[1, 2, 3], [-2, -3, -4]], [[4, 5, 6], [-5, -6, -7]]]"),
}

CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    # WebGPU on Linux is behind this flag; without a GPU Chromium's adapter is SwiftShader.
    "--enable-unsafe-webgpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-default-apps",
    "--disable-extensions",
    "--disable-sync",
    "--no-first-run",
    "--no-default-browser-check",
    "--window-size=1000,1200",
]

# Runs in the page: the verdict, the title, and what each case shows.
READ_PAGE = """
const status = document.getElementById('status');
return {
  status: status ? status.dataset.status : null,
  message: status ? status.textContent : null,
  title: document.title,
  adapter: Object.fromEntries(Array.from(document.querySelectorAll('#adapter tr'))
    .map(tr => [tr.cells[0].textContent, tr.cells[1].textContent])),
  height: document.documentElement.scrollHeight,
  cases: Array.from(document.querySelectorAll('[data-case]')).map(c => ({
    id: c.dataset.case,
    passed: c.dataset.passed,
    gpu: [c.querySelector('tr.gpu td.shape'), c.querySelector('tr.gpu td.values')]
      .map(td => td ? td.textContent : null),
  })),
};
"""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".wasm": "application/wasm",
        ".js": "text/javascript",
    }

    def log_message(self, *args):
        pass


def serve(directory):
    handler = functools.partial(QuietHandler, directory=directory)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


class WebDriver:
    def __init__(self, port):
        self.base = f"http://127.0.0.1:{port}"

    def call(self, method, path, body=None, timeout=60):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(
            self.base + path,
            data=data,
            method=method,
            headers={"Content-Type": "application/json; charset=utf-8"},
        )
        try:
            with urllib.request.urlopen(req, timeout=timeout) as resp:
                return json.load(resp)["value"]
        except urllib.error.HTTPError as e:
            detail = e.read().decode(errors="replace")
            try:
                value = json.loads(detail)["value"]
                detail = f"{value.get('error')}: {value.get('message', '').splitlines()[0]}"
            except (ValueError, KeyError, AttributeError, IndexError):
                pass
            raise RuntimeError(f"webdriver {method} {path}: {detail}") from None

    def wait_ready(self, deadline):
        while True:
            try:
                if self.call("GET", "/status", timeout=2).get("ready"):
                    return
            except (OSError, RuntimeError):
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("chromedriver did not become ready")
            time.sleep(0.1)


def find(names):
    for name in names:
        path = shutil.which(name)
        if path:
            return path
    return None


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--screenshot", default=os.path.join(HERE, "screenshot.png"),
                   help="where to save the page's screenshot (default: %(default)s)")
    p.add_argument("--timeout", type=float, default=60, help="seconds to wait for the verdict")
    p.add_argument("--dir", default=HERE, help="the folder to serve (default: %(default)s)")
    p.add_argument("--chromedriver", default=os.environ.get("CHROMEDRIVER"))
    p.add_argument("--chromium", default=os.environ.get("CHROMIUM"))
    p.add_argument("--no-outputs", action="store_true",
                   help="check only the page's verdict, not the outputs listed in this script")
    args = p.parse_args()

    chromedriver = args.chromedriver or find(["chromedriver"])
    if not chromedriver:
        return fail("no chromedriver (set CHROMEDRIVER or install chromium-driver)")
    if not os.path.exists(os.path.join(args.dir, "pkg", "gpu_xor_web_example.js")) \
            and not args.no_outputs:
        return fail(f"{args.dir}/pkg is missing: run `bash examples/web/build.sh` first")

    # A terminated check still stops chromedriver, the browser and the server (`finally`).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    started = time.monotonic()
    server = serve(args.dir)
    profile = tempfile.mkdtemp(prefix="gpu-xor-web-check-")
    port = free_port()
    log = open(os.path.join(profile, "chromedriver.log"), "w+")
    driver_proc = subprocess.Popen(
        [chromedriver, f"--port={port}"], stdout=log, stderr=subprocess.STDOUT)
    wd = WebDriver(port)
    session = None
    try:
        wd.wait_ready(time.monotonic() + 30)
        options = {"args": CHROMIUM_ARGS + [f"--user-data-dir={profile}/chromium"]}
        if args.chromium:
            options["binary"] = args.chromium
        session = wd.call("POST", "/session", {
            "capabilities": {"alwaysMatch": {
                "browserName": "chrome",
                "goog:chromeOptions": options,
                "goog:loggingPrefs": {"browser": "ALL"},
            }}
        })["sessionId"]
        url = f"http://127.0.0.1:{server.server_address[1]}/index.html"
        wd.call("POST", f"/session/{session}/url", {"url": url})

        deadline = time.monotonic() + args.timeout
        while True:
            page = wd.call("POST", f"/session/{session}/execute/sync",
                           {"script": READ_PAGE, "args": []})
            if page["status"] in ("ok", "failed") or time.monotonic() > deadline:
                break
            time.sleep(0.2)

        # ChromeDriver screenshots the viewport only: make the window as tall as the page.
        rect = wd.call("GET", f"/session/{session}/window/rect")
        wd.call("POST", f"/session/{session}/window/rect",
                {"width": rect["width"], "height": max(rect["height"], page["height"] + 140)})
        os.makedirs(os.path.dirname(os.path.abspath(args.screenshot)), exist_ok=True)
        png = base64.b64decode(wd.call("GET", f"/session/{session}/screenshot"))
        with open(args.screenshot, "wb") as f:
            f.write(png)

        problems = []
        if page["status"] != "ok":
            problems.append(f"status {page['status']!r}: {' '.join((page['message'] or '').split())}")
        if page["status"] == "ok" and page["title"] != "gpu-xor: ok":
            problems.append(f"title {page['title']!r}")
        if not args.no_outputs and (page["cases"] or page["status"] == "ok"):
            shown = {c["id"]: c for c in page["cases"]}
            for case, want in EXPECTED.items():
                c = shown.get(case)
                if c is None:
                    problems.append(f"{case}: not on the page")
                elif tuple(c["gpu"]) != want:
                    problems.append(f"{case}: shows {tuple(c['gpu'])}, expected {want}")
                elif c["passed"] != "true":
                    problems.append(f"{case}: marked as failed")
            extra = sorted(set(shown) - set(EXPECTED))
            if extra:
                problems.append(f"unexpected cases {extra}")
        a = page["adapter"]
        adapter = " ".join(a[k] for k in ("name", "vendor", "architecture") if k in a) or "?"
        adapter += f" ({a.get('backend', '?')}, {a.get('device type', '?')})"
        took = time.monotonic() - started
        if problems:
            fail("; ".join(problems) + f" (adapter: {adapter}; screenshot {args.screenshot})")
            for line in browser_log(wd, session):
                print(f"  console: {line}")
            return 1
        print(f"web example: ok, {len(page['cases'])} cases match in headless Chromium "
              f"({adapter}) in {took:.1f} s; screenshot {os.path.relpath(args.screenshot)}")
        return 0
    except (RuntimeError, OSError) as e:
        log.seek(0)
        tail = log.read().strip().splitlines()[-5:]
        return fail(str(e) + "".join(f"\n  chromedriver: {t}" for t in tail))
    finally:
        if session:
            try:
                wd.call("DELETE", f"/session/{session}", timeout=10)
            except (OSError, RuntimeError):
                pass
        driver_proc.terminate()
        try:
            driver_proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            driver_proc.kill()
        server.shutdown()
        log.close()
        shutil.rmtree(profile, ignore_errors=True)


def browser_log(wd, session):
    try:
        entries = wd.call("POST", f"/session/{session}/se/log", {"type": "browser"}, timeout=10)
        return [e.get("message", "") for e in entries][-20:]
    except (OSError, RuntimeError):
        return []


def fail(message):
    print(f"web example: FAILED: {message}")
    return 1


if __name__ == "__main__":
    sys.exit(main())
