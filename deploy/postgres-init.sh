#!/usr/bin/env bash
# Run once by the postgres image on a new data directory (/docker-entrypoint-initdb.d): creates
# the service's role and database with deploy/postgres-role.sql, the password from
# EMPTY_STATE_DB_PASSWORD. Used by deploy/compose.yaml.
set -euo pipefail
psql -v ON_ERROR_STOP=1 -v password="$EMPTY_STATE_DB_PASSWORD" --username "$POSTGRES_USER" \
    --dbname postgres -f /etc/empty-state/postgres-role.sql
