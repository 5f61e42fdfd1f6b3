# Start-up behaviour: --help, catalogue validation, bad settings. Sourced by run.sh after shutdown.
echo "== start-up"

help=$("$BIN" --help 2>&1)
for setting in --host --port --data-dir --config-dir --log-level EMPTY_STATE_PORT EMPTY_STATE_DATA_DIR; do
    expect_match "--help documents $setting" "$setting" "$help"
done

broken="$WORK/broken-config"
mkdir -p "$broken/templates"
cp "$ROOT/config/templates/connectionRefused.json" "$ROOT/config/templates/loading.json" "$broken/templates/"
jq '.actions[1].role = "primary"' "$ROOT/config/templates/connectionRefused.json" >"$broken/templates/connectionRefused.json"
"$BIN" --port 0 --config-dir "$broken" --openapi-path "$ROOT/openapi.yaml" --data-dir "$WORK/data" \
    >"$WORK/broken.log" 2>&1
expect_eq "invalid catalogue: refuses to start (exit 78)" 78 "$?"
expect_match "invalid catalogue: names the file" 'connectionRefused\.json' "$(cat "$WORK/broken.log")"
expect_match "invalid catalogue: names the field and the rule" '/actions: exactly one action must have role primary' \
    "$(cat "$WORK/broken.log")"

jq '.visual.icon.web = "wifi-of"' "$ROOT/config/templates/connectionRefused.json" >"$broken/templates/connectionRefused.json"
"$BIN" --port 0 --config-dir "$broken" --openapi-path "$ROOT/openapi.yaml" --data-dir "$WORK/data" \
    >"$WORK/broken.log" 2>&1
expect_eq "a built-in web icon outside the set: refuses to start (exit 78)" 78 "$?"
expect_match "a built-in web icon outside the set: names the file and pointer" \
    'connectionRefused\.json: /visual/icon/web: "wifi-of" is not in the web icon set' "$(cat "$WORK/broken.log")"

printf '{"id": "loading", "style": "loud",}' >"$broken/templates/loading.json"
"$BIN" --port 0 --config-dir "$broken" --openapi-path "$ROOT/openapi.yaml" --data-dir "$WORK/data" \
    >"$WORK/broken.log" 2>&1
expect_match "invalid JSON: the byte offset is reported" 'loading\.json.*invalid JSON at byte' "$(cat "$WORK/broken.log")"

"$BIN" --port 70000 >"$WORK/bad-port.log" 2>&1
expect_eq "bad --port: usage error (exit 64)" 64 "$?"
expect_match "bad --port: says the range" '0 and 65535' "$(cat "$WORK/bad-port.log")"
# A negative number is a value out of range, not a missing one (it is not taken for a flag).
for flag in "--port -1" "--threads -2" "--idle-timeout -5"; do
    # shellcheck disable=SC2086 # the flag and its value split on the space
    "$BIN" $flag >"$WORK/negative.log" 2>&1
    status=$?
    expect_eq "$flag: usage error (exit 64) saying out of range, not a missing value" "64 out of range" \
        "$status $(grep -o 'out of range' "$WORK/negative.log" | head -n 1)$(grep -io 'missing value' "$WORK/negative.log")"
done
EMPTY_STATE_LOG_LEVEL=loud "$BIN" >"$WORK/bad-level.log" 2>&1
expect_eq "bad EMPTY_STATE_LOG_LEVEL: usage error" 64 "$?"
"$BIN" --memo-entries -1 >"$WORK/bad-memo.log" 2>&1
expect_eq "bad --memo-entries: usage error" 64 "$?"
"$BIN" --host localhost >"$WORK/bad-host.log" 2>&1
expect_eq "--host localhost: usage error (names are not resolved)" 64 "$?"
expect_match "--host localhost: says what it takes" 'IPv4 or IPv6 address' "$(cat "$WORK/bad-host.log")"
expect_match "--help documents --memo-entries" 'EMPTY_STATE_MEMO_ENTRIES' "$help"
expect_match "--help documents --public-url" 'EMPTY_STATE_PUBLIC_URL' "$help"
for url in "https://console.example.com/admin" "ftp://console.example.com" "console.example.com"; do
    "$BIN" --public-url "$url" >"$WORK/bad-public-url.log" 2>&1
    expect_eq "--public-url $url: usage error (exit 64)" 64 "$?"
done
expect_match "bad --public-url: says what it takes" 'http:// or https://, a host and an optional port' \
    "$(cat "$WORK/bad-public-url.log")"

# --database-url: a wrong sslmode is a usage error (64); a root certificate file that cannot be used
# is a file to fix (78), named, before any connection is tried (nothing listens on port 1).
"$BIN" --database-url 'postgres://u:pw@127.0.0.1:1/db?sslmode=verify_full' >"$WORK/bad-sslmode.log" 2>&1
expect_eq "--database-url with an unknown sslmode: usage error (exit 64)" 64 "$?"
expect_match "unknown sslmode: names the parameter and its values" 'sslmode .*disable, allow, prefer, require, verify-ca or verify-full' \
    "$(cat "$WORK/bad-sslmode.log")"
EMPTY_STATE_DATABASE_URL="postgres://u:pw@127.0.0.1:1/db?sslmode=verify-full&sslrootcert=$WORK/no-such-ca.pem" \
    "$BIN" --data-dir "$WORK/data" >"$WORK/bad-rootcert.log" 2>&1
expect_eq "sslrootcert naming a missing file: refused (exit 78)" 78 "$?"
expect_match "missing sslrootcert: names the file" "sslrootcert $WORK/no-such-ca.pem does not exist or cannot be read" \
    "$(cat "$WORK/bad-rootcert.log")"

# --memo-entries 0: no answer is remembered; a repeated request is answered all the same.
EMPTY_STATE_MEMO_ENTRIES=0 "$BIN" --port 0 --config-dir "$ROOT/config" --openapi-path "$ROOT/openapi.yaml" \
    --data-dir "$WORK/no-memo-data" >"$WORK/no-memo.log" 2>&1 &
no_memo=$!
no_memo_port=""
for _ in $(seq 100); do
    no_memo_port=$(grep -oE 'http\.port=[0-9]+' "$WORK/no-memo.log" | head -n 1 | cut -d= -f2)
    [ -n "$no_memo_port" ] && break
    sleep 0.1
done
for lang in de fr de; do
    fetch -H "Accept-Language: $lang" "http://127.0.0.1:$no_memo_port/v1/templates/loading?platform=web"
    expect_eq "memo off: Accept-Language $lang answered" "200 $lang" "$STATUS $(header Content-Language)"
done

# A second server on a port in use must not start (no SO_REUSEPORT: it would take a share of
# the first one's connections). It says so once, naming the address it was given, and leaves no
# admin token behind: nothing is written before the server listens.
"$BIN" --host 127.0.0.1 --port "$no_memo_port" --config-dir "$ROOT/config" --openapi-path "$ROOT/openapi.yaml" \
    --data-dir "$WORK/second-data" >"$WORK/second.log" 2>&1 &
second=$!
for _ in $(seq 100); do kill -0 "$second" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$second" 2>/dev/null; then
    kill -9 "$second"
    fail "port in use: a second server refuses to start" "it is still running"
else
    wait "$second"
    expect_eq "port in use: a second server refuses to start (exit 71)" 71 "$?"
    expect_match "port in use: says why, naming the address asked for" \
        "cannot listen on 127\.0\.0\.1:$no_memo_port: address already in use" "$(cat "$WORK/second.log")"
    expect_eq "port in use: the error is printed once" 1 "$(grep -c 'in use' "$WORK/second.log")"
    expect_eq "port in use: libmicrohttpd's own message stays out of the default log" 0 \
        "$(grep -ci 'failed to bind' "$WORK/second.log")"
    if [ -e "$WORK/second-data/admin-token" ]; then
        fail "port in use: no admin token file is written" "$(ls -l "$WORK/second-data/admin-token")"
    else
        pass "port in use: no admin token file is written"
    fi
fi
# An address that is not this machine's (TEST-NET-1, RFC 5737), with port 0: named as asked.
"$BIN" --host 192.0.2.1 --port 0 --config-dir "$ROOT/config" --openapi-path "$ROOT/openapi.yaml" \
    --data-dir "$WORK/foreign-data" >"$WORK/foreign.log" 2>&1
expect_eq "an address of another machine: exit 71" 71 "$?"
expect_match "an address of another machine: names it and the port asked for" \
    'cannot listen on 192\.0\.2\.1:0: cannot assign requested address' "$(cat "$WORK/foreign.log")"
expect_eq "an address of another machine: said once, without libmicrohttpd's \"port 0\"" "1 0" \
    "$(grep -c 'cannot listen' "$WORK/foreign.log") $(grep -ci 'failed to bind' "$WORK/foreign.log")"

# PostgreSQL that refuses the connection (nothing listens on port 1): reported as refused, at
# once, not after the start-up wait as a database that did not answer.
started_at=$(date +%s)
"$BIN" --database-url 'postgres://u:pw@127.0.0.1:1/db?sslmode=disable' --data-dir "$WORK/refused-data" \
    >"$WORK/refused.log" 2>&1
status=$?
elapsed=$(($(date +%s) - started_at))
expect_eq "PostgreSQL refusing the connection: exit 69" 69 "$status"
expect_match "PostgreSQL refusing the connection: says refused, and where" \
    'connection refused: nothing listens on 127\.0\.0\.1:1' "$(cat "$WORK/refused.log")"
if [ "$elapsed" -le 5 ]; then
    pass "PostgreSQL refusing the connection: reported at once (${elapsed} s)"
else
    fail "PostgreSQL refusing the connection: reported at once" "after ${elapsed} s"
fi
expect_eq "PostgreSQL refusing the connection: said once" 1 "$(grep -c 'refused' "$WORK/refused.log")"

# A libmicrohttpd older than 0.9.75 (its MHD_get_version interposed with LD_PRELOAD): refused at
# start, saying what to install (exit 78: an installation to fix).
old_mhd="$WORK/old-mhd"
mkdir -p "$old_mhd"
printf 'const char *MHD_get_version(void) { return "0.9.73"; }\n' >"$old_mhd/version.c"
cc_for_test=$(command -v cc || command -v gcc || command -v clang || true)
if [ -n "$cc_for_test" ] && "$cc_for_test" -shared -fPIC -o "$old_mhd/libold.so" "$old_mhd/version.c" 2>"$old_mhd/cc.log"; then
    LD_PRELOAD="$old_mhd/libold.so" "$BIN" --port 0 --config-dir "$ROOT/config" --openapi-path "$ROOT/openapi.yaml" \
        --data-dir "$WORK/old-mhd-data" >"$WORK/old-mhd.log" 2>&1
    expect_eq "libmicrohttpd 0.9.73: refuses to start (exit 78)" 78 "$?"
    expect_match "libmicrohttpd 0.9.73: says which version it found and what to install" \
        'libmicrohttpd 0\.9\.73 is older than 0\.9\.75.*install libmicrohttpd 0\.9\.75 or newer' \
        "$(cat "$WORK/old-mhd.log")"
    expect_eq "libmicrohttpd 0.9.73: said once, and no admin token written" "1 absent" \
        "$(grep -c 'older than' "$WORK/old-mhd.log") $([ -e "$WORK/old-mhd-data/admin-token" ] && echo present || echo absent)"
else
    fail "libmicrohttpd 0.9.73: a C compiler builds the interposed library" "$(cat "$old_mhd/cc.log" 2>/dev/null)"
fi

# Shutdown: once SIGTERM arrives, a new connection is refused at once (a load balancer moves on)
# while an open keep-alive connection is still answered, with Connection: close.
drain_check=$(python3 - "$no_memo_port" "$no_memo" <<'PY'
import os, signal, socket, sys, time
port, pid = int(sys.argv[1]), int(sys.argv[2])
held = socket.create_connection(("127.0.0.1", port), timeout=5)
request = b"GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n"
held.sendall(request)
held.recv(65536)
os.kill(pid, signal.SIGTERM)
time.sleep(0.5)
try:
    socket.create_connection(("127.0.0.1", port), timeout=2).close()
    print("a new connection was accepted during the drain")
    sys.exit()
except ConnectionRefusedError:
    pass
except OSError as error:
    print(f"a new connection failed with {error!r}, not refused")
    sys.exit()
held.sendall(request)
answer = held.recv(65536).decode(errors="replace").lower()
print("refused; held answered with close" if answer.startswith("http/1.1 200") and "connection: close" in answer
      else f"held connection got {answer[:60]!r}")
PY
)
expect_eq "shutdown: new connections refused, open ones answered" "refused; held answered with close" "$drain_check"
wait "$no_memo"
expect_eq "memo off: SIGTERM exits 0" 0 "$?"
# Every answer, the one sent during the drain included, has its access-log line once the process is gone.
expect_eq "shutdown: every answer is in the access log" "3 2" \
    "$(grep -c 'access .*http\.path="/v1/templates/loading"' "$WORK/no-memo.log") $(grep -c 'access .*http\.path="/healthz"' "$WORK/no-memo.log")"

# --log-format json: every line is one JSON object, the access log's included.
EMPTY_STATE_LOG_FORMAT=json "$BIN" --port 0 --config-dir "$ROOT/config" --openapi-path "$ROOT/openapi.yaml" \
    --data-dir "$WORK/json-data" >"$WORK/json.log" 2>&1 &
json_server=$!
json_port=""
for _ in $(seq 100); do
    json_port=$(grep -oE '"http\.port":"[0-9]+"' "$WORK/json.log" | head -n 1 | tr -dc '0-9')
    [ -n "$json_port" ] && break
    sleep 0.1
done
curl -s -o /dev/null -H 'X-Request-ID: json-check' "http://127.0.0.1:$json_port/v1/templates/loading?locale=fr"
kill -TERM "$json_server" && wait "$json_server"
expect_eq "--log-format json: every line is a JSON object; the access line has its fields" \
    "json-check GET /v1/templates/loading locale=fr 200" \
    "$(python3 -c '
import json, sys
lines = [json.loads(line) for line in open(sys.argv[1])]
access = [line for line in lines if line.get("log") == "access"]
assert all("message" in line for line in lines if line.get("log") != "access"), "a swift-log line without message"
print(" ".join(str(access[0][key]) for key in ("request.id", "http.method", "http.path", "http.query", "http.status")))
' "$WORK/json.log" 2>&1)"

# --threads 0 (the default) is one thread per core the process may use, not per core of the
# machine: pinned to one CPU, the server runs one thread.
if command -v taskset >/dev/null 2>&1; then
    taskset -c 0 "$BIN" --port 0 --config-dir "$ROOT/config" --openapi-path "$ROOT/openapi.yaml" \
        --data-dir "$WORK/pinned-data" >"$WORK/pinned.log" 2>&1 &
    pinned=$!
    for _ in $(seq 100); do grep -q 'http.port=' "$WORK/pinned.log" && break; sleep 0.1; done
    expect_match "pinned to one CPU: one HTTP thread" 'http\.threads=1 ' "$(grep 'http.port=' "$WORK/pinned.log")"
    kill -TERM "$pinned" && wait "$pinned"
    expect_eq "pinned to one CPU: SIGTERM exits 0" 0 "$?"
fi

# --version: the version CHANGELOG.md's newest release names while [Unreleased] is empty, the
# next version with -dev while it lists changes (ServiceVersion.current, docs/releases.md).
changelog_version=$(grep -oE '^## \[[0-9]+\.[0-9]+\.[0-9]+\]' "$ROOT/CHANGELOG.md" | head -n 1 | tr -d '#[] ')
unreleased=$(awk '/^## \[Unreleased\]/ { inside = 1; next } /^## \[/ { inside = 0 } inside && NF' "$ROOT/CHANGELOG.md")
printed_version=$("$BIN" --version 2>&1)
if [ -z "$unreleased" ]; then
    expect_eq "--version prints the version of CHANGELOG.md's newest release" "$changelog_version" "$printed_version"
else
    # A later X.Y.Z, with -dev (make lint's rule: Tools/docs/binary_checks.py).
    later=$(printf '%s\n%s\n' "$changelog_version" "${printed_version%-dev}" | sort -V | tail -n 1)
    expect_eq "--version prints a later version with -dev while [Unreleased] lists changes" \
        "${printed_version%-dev}-dev later" \
        "$printed_version $([ "$later" != "$changelog_version" ] && echo later)"
fi

# Freshness is a setting: --cache-max-age and EMPTY_STATE_CACHE_STALE_WHILE_REVALIDATE reach the
# Cache-Control of template answers, the memoized repeat included; out-of-range values are refused.
EMPTY_STATE_CACHE_STALE_WHILE_REVALIDATE=120 "$BIN" --port 0 --cache-max-age 30 --config-dir "$ROOT/config" \
    --openapi-path "$ROOT/openapi.yaml" --data-dir "$WORK/fresh-data" >"$WORK/fresh.log" 2>&1 &
fresh=$!
fresh_port=""
for _ in $(seq 100); do
    fresh_port=$(grep -oE 'http\.port=[0-9]+' "$WORK/fresh.log" | head -n 1 | cut -d= -f2)
    [ -n "$fresh_port" ] && break
    sleep 0.1
done
for attempt in first memoized; do
    fetch "http://127.0.0.1:$fresh_port/v1/templates/loading?locale=de"
    expect_eq "cache settings: Cache-Control of the $attempt answer" \
        "public, max-age=30, stale-while-revalidate=120, stale-if-error=604800" "$(header Cache-Control)"
done
kill -TERM "$fresh" && wait "$fresh"
"$BIN" --cache-max-age 31536001 >"$WORK/bad-max-age.log" 2>&1
expect_eq "bad --cache-max-age: usage error (exit 64)" 64 "$?"
expect_match "bad --cache-max-age: says the range" '0 and 31536000' "$(cat "$WORK/bad-max-age.log")"
EMPTY_STATE_CACHE_STALE_WHILE_REVALIDATE=-1 "$BIN" >"$WORK/bad-swr.log" 2>&1
expect_eq "bad EMPTY_STATE_CACHE_STALE_WHILE_REVALIDATE: usage error (exit 64)" 64 "$?"
expect_match "bad EMPTY_STATE_CACHE_STALE_WHILE_REVALIDATE: names the flag and the range" \
    'cache-stale-while-revalidate must be between 0 and 31536000' "$(cat "$WORK/bad-swr.log")"
# --help wraps its lines: compare with the line breaks and indentation squeezed out.
expect_match "--help says apps keep the old copy for up to max-age" 'old copy for up to this long' \
    "$(tr -s ' \n' ' ' <<<"$help")"

# Runs anywhere: started from an empty directory with no --config-dir or --openapi-path, the
# server serves the catalogue and the contract compiled into it; /openapi.yaml is the
# repository's file byte for byte.
elsewhere="$WORK/elsewhere"
mkdir -p "$elsewhere"
(cd "$elsewhere" && exec env -u EMPTY_STATE_CONFIG_DIR -u EMPTY_STATE_OPENAPI_PATH "$BIN" --port 0 \
    --data-dir "$elsewhere/data" >"$WORK/elsewhere.log" 2>&1) &
anywhere=$!
anywhere_port=""
for _ in $(seq 100); do
    anywhere_port=$(grep -oE 'http\.port=[0-9]+' "$WORK/elsewhere.log" | head -n 1 | cut -d= -f2)
    [ -n "$anywhere_port" ] && break
    kill -0 "$anywhere" 2>/dev/null || break
    sleep 0.1
done
if [ -z "$anywhere_port" ]; then
    fail "started outside the repository: serves" "$(tail -n 3 "$WORK/elsewhere.log")"
else
    fetch "http://127.0.0.1:$anywhere_port/v1/templates/connectionRefused?locale=fr&platform=ios"
    expect_eq "started outside the repository: a built-in template" "200 connectionRefused" \
        "$STATUS $(jq -r .id "$BODY")"
    curl -s -o "$WORK/served-openapi.yaml" "http://127.0.0.1:$anywhere_port/openapi.yaml"
    if cmp -s "$WORK/served-openapi.yaml" "$ROOT/openapi.yaml"; then
        pass "started outside the repository: /openapi.yaml is the repository's file, byte for byte"
    else
        fail "started outside the repository: /openapi.yaml is the repository's file, byte for byte" \
            "$(wc -c <"$WORK/served-openapi.yaml") bytes served, $(wc -c <"$ROOT/openapi.yaml") in the file"
    fi
    expect_eq "started outside the repository: nothing written beside the data directory" "data" \
        "$(ls "$elsewhere")"
    kill -TERM "$anywhere" && wait "$anywhere"
    expect_eq "started outside the repository: SIGTERM exits 0" 0 "$?"
fi

# translation_stale_strings is counted from start-up, on a thread of its own: it is on /metrics
# once that count ends (milliseconds here), with no scrape or catalogue change needed first, for
# every locale of the catalogue but the default ones (issue 36; it used to appear only after a
# scrape had started a count).
"$BIN" --host 127.0.0.1 --port 0 --config-dir "$ROOT/config" --openapi-path "$ROOT/openapi.yaml" \
    --data-dir "$WORK/metrics-start" --log-level info 2>"$WORK/metrics-start.log" &
metrics_start=$!
metrics_port=""
for _ in $(seq 1 100); do
    metrics_port=$(grep -o 'http.port=[0-9]*' "$WORK/metrics-start.log" | head -n 1 | cut -d= -f2)
    [ -n "$metrics_port" ] && break
    sleep 0.1
done
if [ -z "$metrics_port" ]; then
    fail "start-up: translation_stale_strings on the first scrape" "$(tail -n 3 "$WORK/metrics-start.log")"
else
    # The log says when the first count ended; the first scrape after it has the gauge.
    for _ in $(seq 1 100); do
        grep -q "stale translations counted" "$WORK/metrics-start.log" && break
        sleep 0.1
    done
    expect_match "start-up: the first count ends by itself, its time logged" "translations.count_ms=[0-9]" \
        "$(cat "$WORK/metrics-start.log")"
    first_scrape=$(curl -s "http://127.0.0.1:$metrics_port/metrics")
    expect_eq "start-up: translation_stale_strings on the first scrape, fr at 0" 0 \
        "$(awk '$1 == "translation_stale_strings{locale=\"fr\"}" {print int($2)}' <<<"$first_scrape")"
    kill -TERM "$metrics_start" && wait "$metrics_start"
fi
