#!/usr/bin/env bash
# Debian 13's libmicrohttpd (1.0.x), beside the system's, for building and testing against it:
#
#   scripts/libmicrohttpd.sh root      fetch it when missing; print the directory it is unpacked in
#                                      (ROOT: ROOT/usr/include/microhttpd.h, ROOT/usr/lib/<triplet>/)
#   scripts/libmicrohttpd.sh version   print the version of the fetched library (e.g. 1.0.1)
#   scripts/libmicrohttpd.sh swift-flags
#                                      print the `swift build` flags that build against it (its
#                                      headers first, its library to link), one per line
#
# The packages `libmicrohttpd12t64` (the library) and `libmicrohttpd-dev` (its header) come from
# Debian's `trixie` suite through `apt-get download`, with a sources list, package lists and a
# cache of their own under .libmicrohttpd/ (ignored by git): the system's sources and packages
# are neither read nor changed, and nothing is installed. The mirror is the system's own (the
# first URIs: of /etc/apt/sources.list.d/debian.sources, or of /etc/apt/sources.list), else
# deb.debian.org. The packages are unpacked with `dpkg-deb -x`; a second call reuses them, so
# only the first `make test` on a machine fetches them (about 0.5 MB, and 10 MB of lists).
#
# Programs built against the system's library load this one with
# LD_LIBRARY_PATH=ROOT/usr/lib/<triplet>: both have the soname libmicrohttpd.so.12.
set -euo pipefail

ROOT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
STATE=${LIBMICROHTTPD_DIR:-$ROOT_DIR/.libmicrohttpd}
SUITE=trixie
PACKAGES=(libmicrohttpd12t64 libmicrohttpd-dev)
UNPACKED=$STATE/$SUITE/root
TRIPLET=$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)

log() { printf 'libmicrohttpd.sh: %s\n' "$*" >&2; }

mirror() {
    local uri=""
    if [ -r /etc/apt/sources.list.d/debian.sources ]; then
        uri=$(awk '/^URIs:/ { print $2; exit }' /etc/apt/sources.list.d/debian.sources)
    fi
    if [ -z "$uri" ] && [ -r /etc/apt/sources.list ]; then
        uri=$(awk '$1 == "deb" && $2 !~ /^\[/ { print $2; exit }' /etc/apt/sources.list)
    fi
    echo "${uri:-http://deb.debian.org/debian}"
}

# apt-get with this script's own sources list, package lists and cache.
apt_private() {
    apt-get -q -o Dir::Etc::sourcelist="$STATE/$SUITE/sources.list" -o Dir::Etc::sourceparts=- \
        -o Dir::State::Lists="$STATE/$SUITE/lists" -o Dir::Cache="$STATE/$SUITE/cache" \
        -o APT::Sandbox::User="$(id -un)" "$@"
}

fetch() {
    [ -e "$UNPACKED/usr/include/microhttpd.h" ] && [ -e "$UNPACKED/usr/lib/$TRIPLET/libmicrohttpd.so.12" ] && return 0
    command -v apt-get >/dev/null && command -v dpkg-deb >/dev/null \
        || { log "needs apt-get and dpkg-deb (a Debian or Ubuntu machine)"; exit 1; }
    log "fetching ${PACKAGES[*]} from Debian's $SUITE into ${STATE#"$ROOT_DIR"/}"
    rm -rf "${STATE:?}/$SUITE"
    mkdir -p "$STATE/$SUITE/lists/partial" "$STATE/$SUITE/cache/archives/partial" "$STATE/$SUITE/debs"
    echo "deb $(mirror) $SUITE main" >"$STATE/$SUITE/sources.list"
    apt_private update >"$STATE/$SUITE/update.log" 2>&1 || { cat "$STATE/$SUITE/update.log" >&2; exit 1; }
    (cd "$STATE/$SUITE/debs" && apt_private download "${PACKAGES[@]}") >"$STATE/$SUITE/download.log" 2>&1 \
        || { cat "$STATE/$SUITE/download.log" >&2; exit 1; }
    local deb
    for deb in "$STATE/$SUITE/debs"/*.deb; do
        dpkg-deb -x "$deb" "$STATE/$SUITE/unpacking"
    done
    mv "$STATE/$SUITE/unpacking" "$UNPACKED"
    # The lists are only needed to download: 10 MB that a later call does not read.
    rm -rf "$STATE/$SUITE/lists" "$STATE/$SUITE/cache"
    log "$(version) in ${UNPACKED#"$ROOT_DIR"/}"
}

version() {
    sed -n 's/^Version: *//p' "$UNPACKED/usr/lib/$TRIPLET/pkgconfig/libmicrohttpd.pc"
}

case ${1:-} in
root)
    fetch
    echo "$UNPACKED"
    ;;
version)
    fetch
    version
    ;;
swift-flags)
    fetch
    printf '%s\n' -Xcc -I"$UNPACKED/usr/include" -Xlinker -L"$UNPACKED/usr/lib/$TRIPLET"
    ;;
*)
    sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
    exit 64
    ;;
esac
