#!/usr/bin/env bash
# Generates Sources/EmptyStateClient/Generated from openapi.yaml with swift-openapi-generator
# (the version pinned in Tools/openapi-generator/Package.swift), or checks that the committed
# files are what it generates:
#   bash Tools/openapi-generator/generate.sh          # rewrite the generated sources
#   bash Tools/openapi-generator/generate.sh --check  # fail if they differ, or on any warning
# The generated code is committed (not made by the build plugin) so that apps depending on
# EmptyStateClient build neither the generator nor OpenAPIKit and Yams, and need no plugin trust.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
SWIFT=${SWIFT:-swift}
DEST="$ROOT/Sources/EmptyStateClient/Generated"

$SWIFT build --package-path "$HERE" --product swift-openapi-generator -q >&2
GENERATOR="$($SWIFT build --package-path "$HERE" --show-bin-path)/swift-openapi-generator"

OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
"$GENERATOR" generate "$ROOT/openapi.yaml" --config "$HERE/config.yaml" --output-directory "$OUT/Generated" \
    >"$OUT/log" 2>&1 || { cat "$OUT/log" >&2; exit 1; }
# Everything the generator says about the document is a warning: any is a failure.
if grep -E '(warning|error):' "$OUT/log" >&2; then
    echo "swift-openapi-generator warned about openapi.yaml (above)" >&2
    exit 1
fi

if [ "${1:-}" = "--check" ]; then
    if ! diff -r -q "$DEST" "$OUT/Generated" >&2; then
        echo "Sources/EmptyStateClient/Generated is stale: run bash Tools/openapi-generator/generate.sh" >&2
        exit 1
    fi
    echo "Sources/EmptyStateClient/Generated matches openapi.yaml; the generator gave no warning"
else
    rm -rf "$DEST"
    mkdir -p "$(dirname "$DEST")"
    cp -R "$OUT/Generated" "$DEST"
    echo "wrote $DEST"
fi
