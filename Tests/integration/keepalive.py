"""Idle keep-alive connections and request heads that arrive too slowly (test_13_keepalive.sh).

usage: keepalive.py MAIN_HOST:PORT SHORT_HOST:PORT
MAIN runs the default timeouts (--header-timeout 10, --idle-timeout 75); SHORT runs
--header-timeout 1 --idle-timeout 3. The checks run in parallel threads (about 13 s in all) and
print one line each: "ok NAME" or "FAIL NAME — DETAIL".
"""

import socket
import sys
import threading
import time

REQUEST = b"GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n"
HALF_HEAD = b"GET /healthz HTTP/1.1\r\nHo"


def connect(address):
    host, port = address.rsplit(":", 1)
    return socket.create_connection((host, int(port)), timeout=20)


def answered(sock):
    """Sends one request and reads its answer (a small one, with Content-Length)."""
    sock.sendall(REQUEST)
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            return f"closed after {len(data)} bytes"
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = next(
        (int(line.split(b":", 1)[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length:")),
        0,
    )
    while len(body) < length:
        chunk = sock.recv(65536)
        if not chunk:
            break
        body += chunk
    return head.split(b"\r\n", 1)[0].decode(errors="replace")


def seconds_until_closed(sock):
    """Waits for the server to close the connection; the seconds it took."""
    start = time.monotonic()
    try:
        while sock.recv(65536):
            pass
    except ConnectionResetError:
        pass
    except socket.timeout:
        return float("inf")
    return time.monotonic() - start


def idle_then_request(main):
    with connect(main) as sock:
        first = answered(sock)
        time.sleep(12)
        second = answered(sock)
    ok = first.startswith("HTTP/1.1 200") and second.startswith("HTTP/1.1 200")
    return ok, f"first {first!r}, after 12 s idle {second!r}"


def half_head_after_answer(main):
    with connect(main) as sock:
        first = answered(sock)
        # A pause first, longer than a sweep (0.2 s; bytes sent sooner count as idle time, see
        # pastDeadline in connection_guard.c) and long enough that a deadline counted from the
        # answer (7 s after the half head) cannot pass for one counted from the head (10 s).
        time.sleep(3)
        sock.sendall(HALF_HEAD)
        took = seconds_until_closed(sock)
    return first.startswith("HTTP/1.1 200") and 9 <= took <= 12, f"closed {took:.1f} s after half a head"


def half_head_first_request(main):
    with connect(main) as sock:
        sock.sendall(HALF_HEAD)
        took = seconds_until_closed(sock)
    return 9 <= took <= 12, f"closed {took:.1f} s after half a head"


def short_idle_timeout(short):
    with connect(short) as sock:
        first = answered(sock)
        time.sleep(2)  # past --header-timeout 1, within --idle-timeout 3
        second = answered(sock)
        took = seconds_until_closed(sock)
    ok = first.startswith("HTTP/1.1 200") and second.startswith("HTTP/1.1 200") and 2.5 <= took <= 5
    return ok, f"after 2 s idle {second!r}; then closed after {took:.1f} s idle"


CHECKS = [
    ("keep-alive: a connection idle 12 s after an answer takes its next request", idle_then_request, 0),
    ("keep-alive: half a head after an answer is closed after --header-timeout", half_head_after_answer, 0),
    ("keep-alive: half a first head is closed after --header-timeout", half_head_first_request, 0),
    ("keep-alive: --idle-timeout 3 outlasts --header-timeout 1 and then closes the connection", short_idle_timeout, 1),
]


def main():
    addresses = sys.argv[1:3]
    results = {}

    def run(name, check, which):
        try:
            results[name] = check(addresses[which])
        except OSError as error:
            results[name] = (False, repr(error))

    threads = [threading.Thread(target=run, args=check) for check in CHECKS]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for name, _, _ in CHECKS:
        ok, detail = results[name]
        print(f"ok {name}" if ok else f"FAIL {name} — {detail}")


if __name__ == "__main__":
    main()
