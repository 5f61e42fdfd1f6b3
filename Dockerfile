# syntax=docker/dockerfile:1
#
# empty-state-service: a two-stage image.
#   build:   the Swift toolchain runs `make release`: the self-contained build, the Swift runtime
#            and Foundation linked statically, so the runtime image needs no Swift toolchain.
#   runtime: Debian 13 slim with exactly what docs/deployment.md lists for a host (libmicrohttpd,
#            zlib, SQLite, the CA bundle; libc and libstdc++ are in every Debian image), curl for
#            the health check, and an unprivileged user. `.ci/run` checks the same binary in a
#            Debian 13 root with those packages only (Tools/release/check-debian13.sh).
#
#   docker build -t empty-state-service .
#   docker run --rm -p 8080:8080 empty-state-service
#
# Replicas on PostgreSQL (docs/deployment.md, "Replicas on PostgreSQL"): give every container the
# same database URL at run time, e.g.
#   docker run --rm -p 8080:8080 \
#     -e EMPTY_STATE_DATABASE_URL='postgres://empty_state:secret@db:5432/empty_state?sslmode=verify-full' \
#     empty-state-service
# (better from a secret store or an --env-file than on the command line). sslmode has libpq's
# meanings (docs/configuration.md): verify-full checks the server's certificate against the CA
# bundle installed below; for a private CA mount its certificate and add
# &sslrootcert=/path/in/the/container.pem (or mount it as /app/.postgresql/root.crt, libpq's
# default for the user's home, /app).

ARG SWIFT_IMAGE=swift:6.3-bookworm
ARG RUNTIME_IMAGE=debian:trixie-slim

# ---------------------------------------------------------------------------------------------
FROM ${SWIFT_IMAGE} AS build

# What `make release` needs (the Makefile's BUILD_APT_PACKAGES and RELEASE_APT_PACKAGES, so that
# it installs nothing itself): headers and pkg-config files for the C targets, libcurl's for the
# static Foundation, make, and binutils for its symbol check.
RUN apt-get update \
    && apt-get install -y --no-install-recommends make binutils pkg-config libmicrohttpd-dev zlib1g-dev \
        libsqlite3-dev libcurl4-openssl-dev \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /src

# Resolve dependencies in their own layer so that editing sources does not fetch them again.
# (Package.resolved is optional: the glob matches Package.swift alone when it is absent.)
COPY Package.* ./
RUN swift package resolve

# Tests/ is copied because SwiftPM checks every target's directory, test targets included,
# even when building one product; the tests themselves are not compiled. config/ and
# openapi.yaml are compiled into the binary (Sources/CAssets, #embed).
COPY Makefile ./
COPY Tools/libmicrohttpd ./Tools/libmicrohttpd
COPY Sources ./Sources
COPY Tests ./Tests
COPY config ./config
COPY openapi.yaml ./
RUN make release \
    && install -D -m 0755 "$(swift build -c release --show-bin-path)/empty-state-server" /out/empty-state-server

# ---------------------------------------------------------------------------------------------
FROM ${RUNTIME_IMAGE} AS runtime

# libmicrohttpd12t64 (1.0.1; the server runs on any libmicrohttpd from 0.9.75), zlib1g and
# libsqlite3-0: the C libraries the server links. libstdc++6: the statically linked Swift runtime
# still links libstdc++ dynamically (already in the slim image; named so the list is the whole
# need). ca-certificates: the system trust store (/etc/ssl/certs/ca-certificates.crt, where
# swift-nio-ssl looks) that sslmode=verify-ca and verify-full use without sslrootcert;
# --no-install-recommends would otherwise leave it out. curl: the HEALTHCHECK below.
RUN apt-get update \
    && apt-get install -y --no-install-recommends libmicrohttpd12t64 zlib1g libsqlite3-0 libstdc++6 ca-certificates curl \
    && rm -rf /var/lib/apt/lists/*

RUN groupadd --system --gid 10001 app \
    && useradd --system --uid 10001 --gid app --home-dir /app --no-create-home --shell /usr/sbin/nologin app

WORKDIR /app

# The program (with the built-in catalogue and the contract compiled in) is owned by root and
# read-only to the service; only the data directory is writable by it.
COPY --from=build /out/empty-state-server /app/empty-state-server
COPY LICENSE NOTICE /app/
RUN mkdir -p /app/data && chown app:app /app/data

# EMPTY_STATE_DATABASE_URL (postgres://user:password@host:5432/database[?sslmode=…&sslrootcert=…]) is read too,
# and deliberately not set here: an ENV would bake a password into the image and its history.
# Without it the state is SQLite in /app/data; with it, templates, events and admin tokens live
# in PostgreSQL and /app/data only receives the first generated admin token (when no token is
# configured and this replica is the first to start). No extra library is needed: the
# PostgreSQL client is Swift, linked into the binary.
ENV EMPTY_STATE_HOST=0.0.0.0 \
    EMPTY_STATE_PORT=8080 \
    EMPTY_STATE_DATA_DIR=/app/data

VOLUME ["/app/data"]
# Numeric, so that runtimes enforcing runAsNonRoot can verify it without reading /etc/passwd.
USER 10001:10001
EXPOSE 8080

# Through sh so that the port follows EMPTY_STATE_PORT when it is overridden at `docker run`.
HEALTHCHECK --interval=30s --timeout=3s --start-period=10s --retries=3 \
    CMD ["sh", "-c", "curl -fsS \"http://127.0.0.1:${EMPTY_STATE_PORT}/healthz\" || exit 1"]

ENTRYPOINT ["/app/empty-state-server"]
