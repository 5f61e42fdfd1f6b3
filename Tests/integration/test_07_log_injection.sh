# A request path holding raw control characters and bytes that are not UTF-8 must reach the
# log escaped: one line per request, nothing a terminal would act on.

# raw_request PATH_BYTES: sends `GET <bytes> HTTP/1.1` exactly as given (curl would refuse or
# encode them), prints the status code.
raw_request() {
    python3 - "$BASE_URL" "$1" <<'EOF'
import socket, sys, urllib.parse
url = urllib.parse.urlsplit(sys.argv[1])
target = sys.argv[2].encode("latin-1").decode("unicode_escape").encode("latin-1")
with socket.create_connection((url.hostname, url.port), timeout=10) as s:
    s.sendall(b"GET " + target + b" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    reply = b""
    while chunk := s.recv(4096):
        reply += chunk
print(reply.split(b" ", 2)[1].decode())
EOF
}

marker="loginjection$$"
# libmicrohttpd 1.0 refuses a bare CR (400) and a vertical tab (a 301 to the target with it
# encoded) in the request line itself, so the server never sees nor logs them; 0.9.75 passes them
# on. Every other byte below reaches the server on both, and must reach the log escaped.
if [[ "${LIBMICROHTTPD:-}" == 0.9.* ]]; then
    status=$(raw_request "/v1/templates/$marker\\x1b[31mred\\rforged\\x08\\x0bline\\x7f\\xc2\\x85\\xff?locale=fr")
    readable='\\u\{1B\}\[31mred\\r'
else
    expect_eq "a bare CR in the request line: refused by libmicrohttpd $LIBMICROHTTPD" 400 \
        "$(raw_request "/v1/templates/bare\\rcr")"
    status=$(raw_request "/v1/templates/$marker\\x1b[31mred\\x08forged\\x7f\\xc2\\x85\\xff?locale=fr")
    readable='\\u\{1B\}\[31mred\\u\{8\}'
fi
expect_eq "raw control characters in the path: refused" 400 "$status"
wait_for_log "$SERVER_LOG" "$marker" >/dev/null # the access log is written in the background
lines=$(grep -a -c "$marker" "$SERVER_LOG")
expect_eq "raw control characters in the path: one log line" 1 "$lines"
line=$(grep -a "$marker" "$SERVER_LOG")
# LC_ALL=C: grep by byte. ESC, CR, NUL, DEL, C1 (C2 80–9F) and U+FFFD (EF BF BD) must not be there.
if LC_ALL=C grep -a -q -P '[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]|\xef\xbf\xbd' <<<"$line"; then
    fail "raw control characters in the path: logged escaped" "$(printf '%s' "$line" | cat -v)"
else
    pass "raw control characters in the path: logged escaped"
fi
expect_match "raw control characters in the path: escapes are readable" \
    'http\.path="/v1/templates/'"$marker$readable" "$line"
expect_match "invalid UTF-8 in the path: shown as an escaped replacement character" '\\u\{85\}\\u\{FFFD\}' "$line"

# The query and the User-Agent are logged too, escaped the same way.
ua_marker="uainjection$$"
curl -s -o /dev/null -A "$ua_marker"$'\x1b[2J"quoted"\\' "$BASE_URL/healthz?$ua_marker=%0A"
line=$(wait_for_log "$SERVER_LOG" "$ua_marker")
expect_match "user agent: logged escaped, quotes and backslash included" \
    'http\.query="'"$ua_marker"'=%0A".*http\.user_agent="'"$ua_marker"'\\u\{1B\}\[2J\\"quoted\\"\\\\"$' "$line"
