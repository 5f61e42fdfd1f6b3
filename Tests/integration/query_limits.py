"""Queries with many or long arguments, sent raw (test_03_errors.sh).

usage: query_limits.py HOST:PORT
Against a server at the default --header-memory-limit (16 KiB). libmicrohttpd parses a query's
arguments into the connection's memory; the server counts them first (its URI callback) and
- serves a query with at most 64 arguments,
- refuses one with more that fits in that memory with 400 (problem+json, Connection: close),
- answers 400 at once, itself, with Connection: close, a query whose arguments would not fit with
  room for an answer (libmicrohttpd 0.9.75 to 0.9.77 would wait for the header deadline without
  answering; 1.0 answers 431 or closes the connection),
and keeps serving other connections all the while. Prints one line per check: "ok NAME" or
"FAIL NAME — DETAIL".
"""

import json
import socket
import sys
import time

TEMPLATE = "/v1/templates/connectionRefused"


def exchange(address, target, timeout=5.0):
    """Sends one GET for `target` on a new connection: (status line or None when closed without an
    answer, headers, body, seconds until the answer or the close)."""
    host, port = address.rsplit(":", 1)
    start = time.monotonic()
    with socket.create_connection((host, int(port)), timeout=timeout) as sock:
        sock.sendall(f"GET {target} HTTP/1.1\r\nHost: t\r\nAccept: */*\r\n\r\n".encode())
        data = b""
        try:
            while True:
                chunk = sock.recv(65536)
                if not chunk:
                    break
                data += chunk
                head, separator, body = data.partition(b"\r\n\r\n")
                if separator:
                    length = next(
                        (int(line.split(b":", 1)[1]) for line in head.split(b"\r\n")[1:]
                         if line.lower().startswith(b"content-length:")),
                        0,
                    )
                    if len(body) >= length:
                        break
        except ConnectionResetError:
            pass
        except socket.timeout:
            return "timeout", {}, b"", time.monotonic() - start
    elapsed = time.monotonic() - start
    if not data:
        return None, {}, b"", elapsed
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode(errors="replace").split("\r\n")
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return lines[0], headers, body, elapsed


def report(ok, name, detail=""):
    print(f"ok {name}" if ok else f"FAIL {name} — {detail}", flush=True)


def main():
    address = sys.argv[1]

    def arguments(count, value=""):
        return "&".join(f"p{index}={value}" for index in range(count))

    status, headers, _, _ = exchange(address, f"{TEMPLATE}?{arguments(64, 'x')}")
    report(status == "HTTP/1.1 200 OK", "64 query arguments: served", status)

    # 150 arguments of 30 bytes (a 5 KB query, as schemathesis's negative cases send) still fit.
    for count, value in ((65, "x"), (90, "x"), (150, "v" * 24)):
        status, headers, body, _ = exchange(address, f"{TEMPLATE}?{arguments(count, value)}")
        report(
            status == "HTTP/1.1 400 Bad Request"
            and headers.get("content-type") == "application/problem+json"
            and headers.get("connection", "").lower() == "close"
            and b"more than 64 arguments" in body,
            f"{count} query arguments of {len(value)} bytes: 400 problem+json naming the limit, Connection: close",
            f"{status} {headers.get('content-type')} {headers.get('connection')} {body[:120]!r}",
        )

    # Too many records for the connection's memory with room for an answer: short arguments (250,
    # 2000) and long ones (64 of 200 bytes, 13 KB of query). The server answers before
    # libmicrohttpd parses them: the same 400, at once (a stall would last the 10 s header
    # deadline), and the connection ends.
    for name, query in (
        ("250 short query arguments", arguments(250)),
        ("2,000 short query arguments", arguments(2000)),
        ("64 query arguments of 200 bytes", arguments(64, "v" * 200)),
    ):
        status, headers, body, elapsed = exchange(address, f"{TEMPLATE}?{query}")
        try:
            problem = json.loads(body)
        except ValueError:
            problem = {}
        report(
            status == "HTTP/1.1 400 Bad Request"
            and headers.get("content-type") == "application/problem+json"
            and headers.get("connection", "").lower() == "close"
            and problem.get("requestId") == headers.get("x-request-id")
            and problem.get("errors") == [{"detail": "the query's arguments need more than the header memory limit leaves"}]
            and "date" in headers
            and elapsed < 2,
            f"{name}: 400 problem+json at once, its requestId the X-Request-ID, Connection: close",
            f"{status} {headers} {body[:160]!r} after {elapsed:.2f} s",
        )

    # A long query of few arguments is the library's to judge, like any long request line: served
    # (the server's memory estimate leaves it alone).
    status, _, _, _ = exchange(address, f"{TEMPLATE}?locale=fr&param.x={'v' * 8000}")
    report(status is not None and status != "timeout", "a long query of two arguments: answered", status)

    status, _, _, _ = exchange(address, "/healthz")
    report(status == "HTTP/1.1 200 OK", "the server still answers after them", status)


if __name__ == "__main__":
    main()
