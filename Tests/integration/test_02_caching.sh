# Revalidation, compression, HEAD and keep-alive.

url="$BASE_URL/v1/templates/pageNotAvailable?locale=es"
fetch "$url"
etag=$(header ETag)
fetch -H "If-None-Match: $etag" "$url"
expect_eq "304: If-None-Match with the current ETag" 304 "$STATUS"
expect_eq "304: no body" 0 "$(wc -c <"$BODY" | tr -d ' ')"
expect_eq "304: repeats the ETag" "$etag" "$(header ETag)"
fetch -H "If-None-Match: W/$etag" "$url"
expect_eq "304: weak comparison" 304 "$STATUS"
fetch -H 'If-None-Match: "0000000000000000", '"$etag" "$url"
expect_eq "304: one of a list" 304 "$STATUS"
fetch -H 'If-None-Match: "0000000000000000"' "$url"
expect_eq "200: a stale ETag gets the body" 200 "$STATUS"
fetch "$BASE_URL/v1/templates/pageNotAvailable?locale=fr"
if [ "$(header ETag)" != "$etag" ]; then pass "ETag differs between locales"; else fail "ETag differs between locales"; fi

bundle="$BASE_URL/v1/templates?locale=fr&platform=web"
fetch "$bundle"
plain_size=$(wc -c <"$BODY" | tr -d ' ')
plain=$(jq -c . "$BODY")
fetch -H 'Accept-Encoding: gzip' "$bundle"
expect_eq "gzip: Content-Encoding" gzip "$(header Content-Encoding)"
gz_size=$(wc -c <"$BODY" | tr -d ' ')
if [ "$gz_size" -lt "$plain_size" ]; then pass "gzip: smaller ($gz_size < $plain_size bytes)"; else fail "gzip: smaller" "$gz_size vs $plain_size"; fi
expect_eq "gzip: decompresses to the same document" "$plain" "$(gzip -dc <"$BODY" | jq -c .)"
gz_etag=$(header ETag)
fetch -H 'Accept-Encoding: gzip' -H "If-None-Match: $gz_etag" "$bundle"
expect_eq "gzip: 304 on the gzip ETag" 304 "$STATUS"
fetch -H 'Accept-Encoding: gzip;q=0, identity' "$bundle"
expect_eq "gzip: q=0 refuses it" "" "$(header Content-Encoding)"

fetch -I "$url"
expect_eq "HEAD: 200" 200 "$STATUS"
expect_match "HEAD: same ETag as GET" "^$etag\$" "$(header ETag)"
# curl -I cannot show whether bytes follow the headers; a raw socket can.
head_tail=$(python3 - "${BASE_URL#http://}" <<'PY'
import socket, sys
host, port = sys.argv[1].split(":")
with socket.create_connection((host, int(port)), timeout=5) as s:
    s.sendall(b"HEAD /v1/templates/pageNotAvailable HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
    data = b""
    while chunk := s.recv(65536):
        data += chunk
head, _, rest = data.partition(b"\r\n\r\n")
print(f"{len(rest)} bytes after headers, content-length present: {b'content-length' in head.lower()}")
PY
)
expect_eq "HEAD: no body on the wire" "0 bytes after headers, content-length present: True" "$head_tail"
for path in /v1/templates /healthz /readyz /openapi.yaml; do
    fetch -I "$BASE_URL$path"
    expect_eq "HEAD $path: 200" 200 "$STATUS"
done

reuse=$(curl -sv -o /dev/null -o /dev/null "$url" "$BASE_URL/v1/templates/loading" 2>&1)
expect_match "keep-alive: curl reuses the connection" 'Re-using existing connection' "$reuse"
if printf '%s' "$reuse" | grep -qi '^< connection: close'; then fail "keep-alive: no Connection: close"; else pass "keep-alive: no Connection: close"; fi
