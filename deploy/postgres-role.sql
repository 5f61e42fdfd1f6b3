-- The PostgreSQL role and database empty-state-server needs, with no more privilege than that.
--
--   psql -v ON_ERROR_STOP=1 -v password='a long random secret' -d postgres -f deploy/postgres-role.sql
--
-- `-v role=NAME` and `-v database=NAME` change the names (default: empty_state for both).
-- Run it once, as a superuser (or a role with CREATEROLE and CREATEDB), then give the replicas
--   EMPTY_STATE_DATABASE_URL=postgres://empty_state:<password, percent-encoded>@<host>:5432/empty_state?sslmode=verify-full
-- (sslmode as in libpq: verify-full checks the server's certificate and name, against
-- &sslrootcert=<CA file> or the system's trust store; require only encrypts.)
--
-- What the service does with it, and so what it needs (docs/deployment.md, "Replicas on
-- PostgreSQL"): at start it creates and migrates its tables under an advisory lock; it creates
-- a partition of the events table per day and drops whole partitions for retention; it uses
-- LISTEN/NOTIFY and advisory locks (which need no grant). So it owns one schema, named after the
-- role (the default search_path, "$user", finds it first), and nothing else: it is not a
-- superuser, cannot create databases or roles, and cannot write to the public schema.

\if :{?role} \else \set role empty_state \endif
\if :{?database} \else \set database empty_state \endif

CREATE ROLE :"role"
    LOGIN PASSWORD :'password'
    NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS NOINHERIT
    -- A pool of up to 10 connections per replica (its change listener included): 3 replicas and
    -- one more during a rolling update, so 40. Raise it with the replicas; PostgreSQL's
    -- max_connections must leave room for it and for your own tools.
    CONNECTION LIMIT 40;

-- The database belongs to the administrator, not to the service: the service cannot drop it or
-- change who may connect.
CREATE DATABASE :"database" ENCODING 'UTF8' TEMPLATE template0;
REVOKE ALL ON DATABASE :"database" FROM PUBLIC;
GRANT CONNECT ON DATABASE :"database" TO :"role";

\connect :"database"

-- Nobody but the owner creates objects in public (the default since PostgreSQL 15; said here for
-- older servers).
REVOKE CREATE ON SCHEMA public FROM PUBLIC;

-- The service's own schema: it creates, migrates and drops its tables and partitions there.
CREATE SCHEMA :"role" AUTHORIZATION :"role";
ALTER ROLE :"role" IN DATABASE :"database" SET search_path = :"role";
