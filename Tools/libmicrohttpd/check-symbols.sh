#!/usr/bin/env bash
# Checks that a server binary needs no libmicrohttpd function that 0.9.75 lacks, whatever headers
# it was built against: a binary built against 1.0's microhttpd.h that called, say,
# MHD_create_response_from_buffer_static would load on Debian 13 and fail to start on Debian 12
# ("undefined symbol"). The list of what 0.9.75 exports is committed beside this script
# (0.9.75.symbols), so the check says the same on a machine with another libmicrohttpd.
#
#   bash Tools/libmicrohttpd/check-symbols.sh path/to/empty-state-server
#
# Prints one line and exits 1 when the binary needs a symbol 0.9.75 lacks (named), or none at
# all (the binary does not link libmicrohttpd: something is wrong with the check or the build).
set -euo pipefail
BIN=${1:?usage: check-symbols.sh path/to/empty-state-server}
HERE=$(cd "$(dirname "$0")" && pwd)
needed=$(nm -D --undefined-only "$BIN" | awk '$2 ~ /^MHD_/ { sub(/@.*/, "", $2); print $2 }' | sort -u)
if [ -z "$needed" ]; then
    echo "FAIL  $BIN needs no libmicrohttpd function at all: not the server binary?"
    exit 1
fi
missing=$(comm -23 <(printf '%s\n' "$needed") <(grep -v '^#' "$HERE/0.9.75.symbols" | sort -u))
if [ -n "$missing" ]; then
    echo "FAIL  $BIN needs libmicrohttpd functions that 0.9.75 lacks:" $missing
    exit 1
fi
echo "ok    $BIN needs only libmicrohttpd functions 0.9.75 has ($(printf '%s\n' "$needed" | wc -l) of them)"
