# Helpers for the curl integration tests; sourced by run.sh. Every check counts once.
PASSED=${PASSED:-0}
FAILED=${FAILED:-0}

pass() { PASSED=$((PASSED + 1)); echo "ok    $1"; }
fail() { FAILED=$((FAILED + 1)); echo "FAIL  $1${2:+ — $2}"; }

# expect_eq NAME EXPECTED ACTUAL
expect_eq() {
    if [ "$2" = "$3" ]; then pass "$1"; else fail "$1" "expected '$2', got '$3'"; fi
}

# expect_match NAME REGEX ACTUAL
# A here-string, not `printf | grep -q`: grep -q exits at the first match, and a printf still
# writing more than a pipe holds (a long server log) then dies of SIGPIPE, failing the pipeline.
expect_match() {
    if grep -Eq -- "$2" <<<"$3"; then pass "$1"; else fail "$1" "'$3' does not match /$2/"; fi
}

# wait_for_log FILE REGEX: waits (up to 3 s) for a line matching REGEX (grep -E, bytes) in FILE,
# and prints the matching lines. The access log is written in the background, within about
# 100 ms of the answer.
wait_for_log() {
    local _
    for _ in $(seq 30); do
        LC_ALL=C grep -a -E -- "$2" "$1" 2>/dev/null && return 0
        sleep 0.1
    done
    return 1
}

# fetch [curl args…] URL: runs curl; sets STATUS, HEADERS (file) and BODY (file).
HEADERS=$(mktemp)
BODY=$(mktemp)
fetch() {
    : >"$BODY" # curl leaves the file untouched when there is no body
    STATUS=$(curl -s -o "$BODY" -D "$HEADERS" -w '%{http_code}' "$@") || STATUS="curl-error-$?"
}

# header NAME: the value of a response header of the last fetch (case-insensitive, CR stripped).
header() {
    grep -i "^$1:" "$HEADERS" | head -n 1 | cut -d: -f2- | sed 's/^ *//' | tr -d '\r'
}

# json FILTER: jq over the last body.
json() { jq -r "$1" "$BODY" 2>/dev/null; }
