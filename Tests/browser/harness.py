"""What the browser checks share: the real server started on a free port, the admin API, a
second origin for the web component, and Debian's Chromium driven by Playwright.

Never Playwright's own browser download: it fetches a browser build, which cannot work here. Playwright
drives the `chromium` package (`CHROMIUM` overrides the path).
"""

import argparse
import http.server
import json
import os
import re
import shutil
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ADMIN_TOKEN = "browser-checks-editor-token-0123456789"


def chromium_path():
    path = os.environ.get("CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    if not os.path.exists(path):
        raise SystemExit("Debian's chromium is missing: make deps installs it (apt-get install chromium)")
    return path


class Server:
    """The server binary on 127.0.0.1, a free port, a throwaway data directory."""

    def __init__(self, binary, extra_args=(), log_level="notice", start_timeout=30):
        self.data = tempfile.mkdtemp(prefix="browser-checks-")
        self.log_path = os.path.join(self.data, "server.log")
        self.log = open(self.log_path, "wb")
        self.process = subprocess.Popen(
            [
                binary,
                "--host", "127.0.0.1",
                "--port", "0",
                "--data-dir", os.path.join(self.data, "data"),
                "--config-dir", os.path.join(ROOT, "config"),
                "--openapi-path", os.path.join(ROOT, "openapi.yaml"),
                "--admin-token", f"browser:editor:{ADMIN_TOKEN}",
                "--log-level", log_level,
                *extra_args,
            ],
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        deadline = time.time() + start_timeout
        self.port = None
        while time.time() < deadline and self.port is None:
            if self.process.poll() is not None:
                raise SystemExit(f"the server exited ({self.process.returncode}):\n{open(self.log_path).read()}")
            match = re.search(r"http\.port=(\d+)", open(self.log_path, errors="replace").read())
            if match:
                self.port = int(match.group(1))
            else:
                time.sleep(0.05)
        if self.port is None:
            self.stop()
            raise SystemExit(f"the server did not report its port within {start_timeout} s")
        self.url = f"http://127.0.0.1:{self.port}"
        # `make test-libmicrohttpd-debian13` runs the checks on another libmicrohttpd (LD_LIBRARY_PATH):
        # they must run on that one, not on whatever the dynamic linker found first.
        expected = os.environ.get("EMPTY_STATE_EXPECT_LIBMICROHTTPD")
        if expected:
            found = re.search(r"http\.libmicrohttpd=(\S+)", open(self.log_path, errors="replace").read())
            if not found or found.group(1) != expected:
                self.stop()
                raise SystemExit(f"the server runs on libmicrohttpd {found and found.group(1)}, not {expected}")

    def request(self, method, path, body=None, headers=None):
        """(status, headers, body bytes) of one request."""
        data = json.dumps(body).encode() if body is not None and not isinstance(body, bytes) else body
        request = urllib.request.Request(self.url + path, data=data, method=method, headers=headers or {})
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return response.status, response.headers, response.read()
        except urllib.error.HTTPError as error:
            return error.code, error.headers, error.read()

    def admin(self, method, path, body=None, headers=None):
        all_headers = {"Authorization": f"Bearer {ADMIN_TOKEN}", **(headers or {})}
        if body is not None:
            all_headers["Content-Type"] = "application/json"
        return self.request(method, "/v1/admin" + path, body, all_headers)

    def put_template(self, document):
        status, _, body = self.admin(
            "PUT", f"/templates/{document['id']}", document, {"If-None-Match": "*"}
        )
        if status not in (200, 201):
            raise SystemExit(f"PUT {document['id']}: {status} {body.decode(errors='replace')}")

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
        self.log.close()
        shutil.rmtree(self.data, ignore_errors=True)


class OtherOrigin:
    """A second origin (another port) serving pages that load the component from the server, so
    the component's requests are cross-origin as on a real site."""

    def __init__(self):
        self.pages = {}
        pages = self.pages

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                body = pages.get(self.path.split("?")[0])
                if body is None:
                    self.send_response(404)
                    self.end_headers()
                    return
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def add(self, path, html):
        self.pages[path] = html.encode()
        return self.url + path

    def stop(self):
        self.httpd.shutdown()


class Results:
    """Every check counts once; the run ends with `N passed, N failed`."""

    def __init__(self):
        self.passed = 0
        self.failed = 0
        self.failures = []

    def check(self, name, ok, detail=""):
        if ok:
            self.passed += 1
        else:
            self.failed += 1
            self.failures.append(f"{name}: {detail}")
            print(f"FAIL  {name}{' — ' + str(detail) if detail else ''}", flush=True)
        return ok


def check_parser():
    """The command line every console check takes: the server binary, and `--database-url-env` to run it on
    PostgreSQL. A check adds its own options to the parser before parsing."""
    parser = argparse.ArgumentParser()
    parser.add_argument("binary", help="the empty-state-server binary to start")
    parser.add_argument("--database-url-env", help="the environment variable holding a PostgreSQL URL")
    return parser


def store_backend(args):
    """The server arguments and the name of the store a check runs on: SQLite, or PostgreSQL when
    `--database-url-env` names a variable. A named variable that is unset ends the run: silently testing SQLite
    instead would pass a PostgreSQL run that never happened."""
    if not args.database_url_env:
        return [], "sqlite"
    url = os.environ.get(args.database_url_env)
    if not url:
        raise SystemExit(f"{args.database_url_env} is not set")
    return ["--database-url", url], "postgres"


def axe_source():
    """axe-core's script, as the axe-playwright-python package ships it; the checks inject it into each screen."""
    import axe_playwright_python

    with open(os.path.join(os.path.dirname(axe_playwright_python.__file__), "axe.min.js"), encoding="utf-8") as f:
        return f.read()


def run_flows(flows, results, backend, timings=None):
    """Runs each flow in turn. A flow that raises is one failed check, and the flows after it still run, so one
    broken screen does not hide the state of the others. With `timings`, appends each flow's duration to it."""
    for flow in flows:
        name = getattr(flow, "__name__", "flow")
        started = time.time()
        try:
            flow()
        except Exception as error:
            results.check(f"[{backend}] {name} ran to the end", False, repr(error)[:600])
        if timings is not None:
            timings.append(f"{name} {time.time() - started:.1f} s")


def builtin_ids():
    return sorted(name[:-5] for name in os.listdir(os.path.join(ROOT, "config", "templates")) if name.endswith(".json"))


def builtin_document(template_id):
    with open(os.path.join(ROOT, "config", "templates", template_id + ".json"), encoding="utf-8") as f:
        return json.load(f)
