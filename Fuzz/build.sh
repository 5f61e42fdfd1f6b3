#!/usr/bin/env bash
# Builds the libFuzzer targets into .build-fuzz/bin/fuzz-<target>.
#
# The package's modules are compiled once by SwiftPM, in a scratch path of their own
# (.build-fuzz/spm: the main .build is untouched), optimized (FUZZ_CONFIGURATION=release, the
# default: several times the executions per second of debug) with coverage and AddressSanitizer
# (`-sanitize=fuzzer,address`) and `-enable-testing`. Each harness in Fuzz/Targets is then
# compiled with swiftc against those modules (as a member of the same package, so `package`
# declarations are visible) and linked with their objects and libFuzzer's main.
# The C harness (httpkey) is compiled with clang together with Sources/CMicroHTTPD/*.c.
#
# Usage: Fuzz/build.sh [target...]   (default: every target)
set -euo pipefail

cd "$(dirname "$0")/.."
SWIFT=${SWIFT:-swift}
SWIFTC=${SWIFTC:-swiftc}
CLANG=${CLANG:-clang}
SCRATCH=.build-fuzz/spm
CONFIGURATION=${FUZZ_CONFIGURATION:-release}
case "$CONFIGURATION" in
    release) OPTIMIZE=-O ;;
    debug) OPTIMIZE=-Onone ;;
    *) echo "FUZZ_CONFIGURATION must be release or debug" >&2; exit 2 ;;
esac
BIN=.build-fuzz/bin
TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=(json template locale percent events httpkey xml)

# Modules (in link order) each target needs.
modules_for() {
    case "$1" in
        json) echo JSONCoding ;;
        template | locale) echo EmptyStateCore CLDRPlurals JSONCoding ;;
        xml) echo EmptyStateTranslation EmptyStateCore CLDRPlurals JSONCoding ;;
        percent) echo HTTPServer CMicroHTTPD JSONCoding Logging ;;
        events)
            echo EmptyStateService EmptyStateTranslation EmptyStateWeb CAssets EmptyStateSQLite EmptyStateStoreSQL EmptyStateStore EmptyStateCore CLDRPlurals JSONCoding HTTPServer ZlibCompression \
                Crypto CryptoBoringWrapper CCryptoBoringSSLShims CCryptoBoringSSL CXKCPShims CXKCP \
                WebhookClient NIOHTTP1 NIOSSL NIOTLS NIOPosix NIOCore NIOConcurrencyHelpers _NIODataStructures _NIOBase64 \
                CNIOLLHTTP CNIOBoringSSLShims CNIOBoringSSL CNIOPosix CNIOLinux CNIOAtomics CNIODarwin CNIOWindows CNIOWASI \
                CNIOOpenBSD CNIOFreeBSD \
                CMicroHTTPD GRDB Logging Metrics \
                CoreMetrics Prometheus Atomics _AtomicsShims ServiceLifecycle UnixSignals ConcurrencyHelpers AsyncAlgorithms \
                DequeModule OrderedCollections InternalCollectionsUtilities
            ;;
        *) echo "unknown target $1" >&2; exit 2 ;;
    esac
}

needs_swift=0
for target in "${TARGETS[@]}"; do [ "$target" = httpkey ] || needs_swift=1; done

mkdir -p "$BIN"
if [ "$needs_swift" = 1 ]; then
    echo "== SwiftPM: the package's modules, instrumented ($SCRATCH, $CONFIGURATION)"
    # The service depends on the store contract only; the events harness opens SQLite itself.
    for module in EmptyStateService EmptyStateSQLite; do
        "$SWIFT" build -c "$CONFIGURATION" --scratch-path "$SCRATCH" --target "$module" \
            -Xswiftc -sanitize=fuzzer,address -Xswiftc -enable-testing
    done
    PRODUCTS="$SCRATCH/$CONFIGURATION"
    # SwiftPM names the package after its folder (`-package-name`): read the name it used, so the
    # harnesses may use `package` declarations whatever the checkout is called.
    PACKAGE_NAME=$(grep -o '"-module-name","JSONCoding"[^]]*"-package-name","[^"]*"' "$SCRATCH/$CONFIGURATION.yaml" \
        | head -1 | sed 's/.*"-package-name","\([^"]*\)"/\1/')
    [ -n "$PACKAGE_NAME" ] || { echo "cannot find the package name in $SCRATCH/$CONFIGURATION.yaml" >&2; exit 1; }
    CHECKOUTS="$SCRATCH/checkouts"
fi

for target in "${TARGETS[@]}"; do
    echo "== fuzz-$target"
    if [ "$target" = httpkey ]; then
        # The module's C files are compiled into the harness; their MHD calls are unused here, and
        # libmicrohttpd only satisfies the link.
        "$CLANG" -g -O1 -fuse-ld=lld -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
            -I Sources/CMicroHTTPD/include Fuzz/Targets/httpkey.c Sources/CMicroHTTPD/*.c \
            -lmicrohttpd -lpthread -o "$BIN/fuzz-httpkey"
        continue
    fi
    objects=()
    for module in $(modules_for "$target"); do
        while IFS= read -r -d '' object; do objects+=("$object"); done \
            < <(find "$PRODUCTS/$module.build" -name '*.o' -print0)
    done
    # The C modules' maps: those SwiftPM wrote (a C target without one of its own) and those the
    # packages ship (`Sources/<target>/include/module.modulemap`), so that a Swift module built
    # against any of them (the service's webhooks reach SwiftNIO's) loads in the harness.
    module_maps=()
    while IFS= read -r -d '' map; do module_maps+=(-Xcc "-fmodule-map-file=$map"); done \
        < <(find -L "$PRODUCTS" -maxdepth 2 -path '*.build/module.modulemap' -print0;
            find "$CHECKOUTS" -path '*/Sources/*/include/module.modulemap' -print0)
    # ld.gold warns about every ASan helper symbol; lld does not.
    "$SWIFTC" -sanitize=fuzzer,address -parse-as-library -swift-version 6 "$OPTIMIZE" -g -use-ld=lld \
        -package-name "$PACKAGE_NAME" -enable-upcoming-feature ExistentialAny \
        -I "$PRODUCTS/Modules" -I Sources/CZlib \
        "${module_maps[@]}" -Xcc -fmodule-map-file="$CHECKOUTS/GRDB.swift/Sources/GRDBSQLite/module.modulemap" \
        "Fuzz/Targets/$target.swift" "${objects[@]}" -lsqlite3 -lmicrohttpd -lz \
        -o "$BIN/fuzz-$target"
done
