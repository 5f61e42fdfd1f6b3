#!/usr/bin/env python3
"""Check a running empty-state-service against its OpenAPI document.

    python3 Tests/integration/openapi_check.py --base-url http://127.0.0.1:8080 [--spec openapi.yaml]
        [--admin-token TOKEN | --admin-token-file PATH]

Sends a fixed list of real requests that covers every operation and every status the service can
answer without being shut down (200, 304, 400, 404, 405, 413, HEAD variants, gzip), and for each
response:

* finds the operation and the status in the document (an undocumented status fails); a path that
  matches no documented path, and a documented path requested with an undocumented method, are
  judged against the shared responses under components/responses (NotFound, MalformedPath,
  MethodNotAllowed, PayloadTooLarge, InternalError);
* checks the Content-Type against the documented media types (and that bodiless responses have no
  body);
* validates the body (gunzipped when Content-Encoding says so) against the documented schema;
* checks that every header the document marks `required: true` is present, and that every
  documented header that is present matches its schema;
* checks a few behaviours the document states in prose (problem `status` and `requestId` agree
  with the response, ETag revalidation, Vary, X-Request-ID echo, gzip).

With --admin-token TOKEN (or --admin-token-file PATH, e.g. <data-dir>/admin-token) it also
exercises the admin API under /v1/admin with that (editor) token: it creates a scratch template
with a unique id (If-None-Match: *), reads, revalidates, updates one locale's strings and replaces
it (If-Match), provokes 400, 401, 404, 405, 412, 413, 415, 422 and 428, reads the revisions, one
revision, the audit log, the locales and pages of the listing, deletes it, restores it with a
rollback and deletes it again; every response is judged against the document as above.

It also posts analytics events (POST /v1/events, no token): a batch with good, duplicate and bad
events (fresh random UUIDs, `occurredAt` now, a unique `appVersion`), the same batch again, single
events (one with a device clock an hour ahead and `sentAt`), and provokes 400, 405, 413 and 415.
With an admin token it then reads the analytics summary (every `groupBy`, a `from`/`to` window,
bad parameters, 401) and pages through the NDJSON export with `after`/`limit` and X-Next-Cursor
until this run's events are found; every NDJSON line is validated against the media type's
`x-itemSchema` (the line schema).

With an admin token it also writes the web platform's app policy (creating or replacing it),
asks GET /v1/app-status in each state (304s, HEAD, 400s, 405), reads the policy's revisions, rolls
it back, filters the audit by it, and reads the summary with include=updateStates. And it reads and
rewrites the review rules, and takes a change request through its life (open, comment, a refused
own approval, edit, rebase, schedule and cancel, publish, roll back).

With an admin token it also creates a scratch experiment with a plan, starts it, reads its
results (whole and per segment, after a few installs report displays) and their CSV export, stops
it, and asks the planning calculator both questions.

It also validates every example in the document against its schema. One line per check; the last
line is `N passed, M failed`; the exit status is 1 when anything failed.

Needs only the standard library plus PyYAML, jsonschema and openapi-schema-validator.
"""

from __future__ import annotations

import argparse
import copy
import gzip
import http.client
import json
import re
import secrets
import select
import socket
import sys
import urllib.parse
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Callable

import jsonschema
import yaml
from openapi_schema_validator import OAS31Validator, validate

DEFAULT_SPEC = Path(__file__).resolve().parents[2] / "openapi.yaml"
METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
# Series GET /metrics has from the start (docs/observability.md, "Metrics", lists them).
METRIC_SERIES = (
    "http_requests_total",
    "http_open_connections",
    "http_memo_entries",
    "catalogue_revision",
    "catalogue_templates",
    "store_commit_duration_seconds",
    "events_total",
)
# The schema of each line of a sequential media type such as application/x-ndjson (OpenAPI 3.2's
# `itemSchema`, as an extension in 3.1).
ITEM_SCHEMA = "x-itemSchema"
# The schema of the YAML document once parsed (its `schema` is empty: see openapi.yaml).
PARSED_SCHEMA = "x-parsedSchema"
ANNOTATIONS = {"description", "summary", "title", "default", "example", "examples", "deprecated", "$comment"}


# ---------------------------------------------------------------------------------------------
# The document


class Spec:
    """An OpenAPI 3.1 document with local `$ref`s resolved on demand."""

    def __init__(self, path: Path) -> None:
        self.path = path
        with path.open(encoding="utf-8") as handle:
            self.doc: dict[str, Any] = yaml.safe_load(handle)
        self.paths = [(template, self._path_regex(template), item) for template, item in self.doc.get("paths", {}).items()]
        # Literal paths before templated ones, as OpenAPI requires.
        self.paths.sort(key=lambda entry: entry[0].count("{"))

    @staticmethod
    def _path_regex(template: str) -> re.Pattern[str]:
        parts = re.split(r"(\{[^}]+\})", template)
        pattern = "".join("[^/]+" if part.startswith("{") else re.escape(part) for part in parts)
        return re.compile(f"^{pattern}$")

    def pointer(self, ref: str) -> Any:
        if not ref.startswith("#/"):
            raise ValueError(f"only local references are supported, not {ref!r}")
        node: Any = self.doc
        for token in ref[2:].split("/"):
            token = urllib.parse.unquote(token).replace("~1", "/").replace("~0", "~")
            node = node[int(token)] if isinstance(node, list) else node[token]
        return node

    def resolve(self, node: Any, stack: tuple[str, ...] = ()) -> Any:
        """A deep copy of `node` with every local `$ref` replaced by what it points at."""
        if isinstance(node, list):
            return [self.resolve(item, stack) for item in node]
        if not isinstance(node, dict):
            return node
        if isinstance(node.get("$ref"), str):
            ref = node["$ref"]
            if ref in stack:
                raise ValueError(f"cyclic reference {' -> '.join(stack + (ref,))}")
            target = self.resolve(self.pointer(ref), stack + (ref,))
            siblings = {key: self.resolve(value, stack) for key, value in node.items() if key != "$ref"}
            if not siblings:
                return target
            if set(siblings) <= ANNOTATIONS and isinstance(target, dict):
                merged = copy.deepcopy(target)
                merged.update(siblings)
                return merged
            return {"allOf": [target], **siblings}
        return {key: self.resolve(value, stack) for key, value in node.items()}

    def match_path(self, raw_path: str) -> tuple[str, dict[str, Any]] | None:
        for template, regex, item in self.paths:
            if regex.match(raw_path):
                return template, item
        return None

    def component_response(self, name: str) -> dict[str, Any]:
        return self.resolve(self.doc["components"]["responses"][name])


# ---------------------------------------------------------------------------------------------
# HTTP


@dataclass
class Response:
    method: str
    target: str
    status: int
    headers: http.client.HTTPMessage
    raw_body: bytes
    error: str | None = None

    def header(self, name: str) -> str | None:
        values = self.headers.get_all(name) if self.headers is not None else None
        return ", ".join(values) if values else None

    def body(self) -> bytes:
        """The body with any gzip content coding removed."""
        if (self.header("Content-Encoding") or "").strip().lower() == "gzip":
            return gzip.decompress(self.raw_body)
        return self.raw_body


class Client:
    def __init__(self, base_url: str, timeout: float) -> None:
        parsed = urllib.parse.urlsplit(base_url)
        if parsed.scheme != "http" or not parsed.hostname:
            raise SystemExit(f"--base-url must be http://HOST:PORT, not {base_url!r}")
        self.host = parsed.hostname
        self.port = parsed.port or 80
        self.prefix = parsed.path.rstrip("/")
        self.timeout = timeout

    def send(self, method: str, target: str, headers: dict[str, str] | None = None, body: bytes | None = None) -> Response:
        """Sends `target` exactly as given (no re-encoding), with no header added but Host and Content-Length."""
        connection = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
        try:
            connection.putrequest(method, self.prefix + target, skip_accept_encoding=True)
            for name, value in (headers or {}).items():
                connection.putheader(name, value)
            if body is not None:
                connection.putheader("Content-Length", str(len(body)))
            connection.endheaders(body)
            response = connection.getresponse()
            raw = response.read()
            return Response(method, target, response.status, response.msg, raw)
        except (OSError, http.client.HTTPException) as error:
            return Response(method, target, 0, http.client.HTTPMessage(), b"", error=f"{type(error).__name__}: {error}")
        finally:
            connection.close()

    def send_oversized(self, method: str, target: str, size: int) -> Response:
        """Declares and starts sending a `size`-byte body, stopping as soon as the server answers."""
        try:
            sock = socket.create_connection((self.host, self.port), timeout=self.timeout)
        except OSError as error:
            return Response(method, target, 0, http.client.HTTPMessage(), b"", error=f"{type(error).__name__}: {error}")
        try:
            head = (
                f"{method} {self.prefix + target} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n"
                f"Content-Type: application/octet-stream\r\nContent-Length: {size}\r\nConnection: close\r\n\r\n"
            )
            sock.sendall(head.encode("ascii"))
            chunk = b"x" * 65536
            sent = 0
            while sent < size:
                readable, writable, _ = select.select([sock], [sock], [], self.timeout)
                if readable or not writable:
                    break  # the server has answered (or stalled): stop sending and read
                try:
                    sent += sock.send(chunk[: min(len(chunk), size - sent)])
                except (BrokenPipeError, ConnectionResetError):
                    break
            response = http.client.HTTPResponse(sock, method=method)
            response.begin()
            raw = response.read()
            return Response(method, target, response.status, response.msg, raw)
        except (OSError, http.client.HTTPException) as error:
            return Response(method, target, 0, http.client.HTTPMessage(), b"", error=f"{type(error).__name__}: {error}")
        finally:
            sock.close()


# ---------------------------------------------------------------------------------------------
# Checks


class Report:
    def __init__(self) -> None:
        self.passed = 0
        self.failed = 0

    def check(self, label: str, ok: bool, detail: str = "") -> bool:
        if ok:
            self.passed += 1
            print(f"PASS  {label}")
        else:
            self.failed += 1
            print(f"FAIL  {label}" + (f": {detail}" if detail else ""))
        sys.stdout.flush()
        return ok


def schema_error(instance: Any, schema: dict[str, Any]) -> str | None:
    try:
        validate(instance, schema, cls=OAS31Validator)
    except jsonschema.ValidationError as error:
        where = "/".join(str(part) for part in error.absolute_path) or "(root)"
        return f"at {where}: {error.message}"
    except jsonschema.SchemaError as error:
        return f"the schema itself is invalid: {error.message}"
    return None


def parse_lines(text: str, item_schema: dict[str, Any]) -> tuple[list[Any], list[str]]:
    """The JSON values of an NDJSON text, and what is wrong with any line (not JSON, not the schema)."""
    values: list[Any] = []
    problems: list[str] = []
    for number, line in enumerate(text.split("\n"), start=1):
        if line == "":
            continue
        try:
            value = json.loads(line)
        except ValueError as error:
            problems.append(f"line {number} is not JSON: {error}")
            continue
        values.append(value)
        error = schema_error(value, item_schema)
        if error:
            problems.append(f"line {number} {error}")
    return values, problems


def parse_media_type(value: str) -> tuple[str, dict[str, str]]:
    essence, _, rest = value.partition(";")
    params: dict[str, str] = {}
    for part in rest.split(";"):
        name, eq, param_value = part.strip().partition("=")
        if eq:
            params[name.strip().lower()] = param_value.strip().strip('"').lower()
    return essence.strip().lower(), params


def media_type_matches(documented: str, actual: str) -> bool:
    doc_essence, doc_params = parse_media_type(documented)
    act_essence, act_params = parse_media_type(actual)
    doc_type, _, doc_sub = doc_essence.partition("/")
    act_type, _, act_sub = act_essence.partition("/")
    if doc_type not in ("*", act_type) or doc_sub not in ("*", act_sub):
        return False
    return all(act_params.get(name) == value for name, value in doc_params.items())


def is_json(media_type: str) -> bool:
    essence, _ = parse_media_type(media_type)
    return essence == "application/json" or essence.endswith("+json")


@dataclass
class Case:
    label: str
    method: str
    target: str
    expect: int | tuple[int, ...]
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes | None = None
    oversized: int = 0
    extra: list[Callable[[Response, Any], tuple[str, bool, str]]] = field(default_factory=list)


class Checker:
    def __init__(self, spec: Spec, client: Client, report: Report) -> None:
        self.spec = spec
        self.client = client
        self.report = report

    # -- locating the documented response ----------------------------------------------------

    def documented_responses(self, method: str, raw_path: str) -> tuple[str, dict[str, Any]]:
        """(where, {status: resolved response}) for a request, including the shared fallbacks."""
        fallback = {"413": self.spec.component_response("PayloadTooLarge")}
        matched = self.spec.match_path(raw_path)
        if matched is None:
            fallback.update(
                {
                    "400": self.spec.component_response("MalformedPath"),
                    "404": self.spec.component_response("NotFound"),
                    "500": self.spec.component_response("InternalError"),
                }
            )
            return "no documented path (components/responses)", fallback
        template, item = matched
        operation = item.get(method.lower())
        if operation is None:
            for name in METHODS:
                other = item.get(name)
                if other is not None and "405" in other.get("responses", {}):
                    fallback["405"] = self.spec.resolve(other["responses"]["405"])
                    break
            fallback["500"] = self.spec.component_response("InternalError")
            return f"{method} {template} (undocumented method)", fallback
        responses = {str(key): self.spec.resolve(value) for key, value in operation.get("responses", {}).items()}
        return operation.get("operationId", f"{method} {template}"), {**fallback, **responses}

    # -- one response ------------------------------------------------------------------------

    def conform(self, case: Case, response: Response) -> Any:
        """Runs the contract checks on one response; returns the parsed body (or None)."""
        label = f"{case.label} [{case.method} {case.target}]"
        check = self.report.check
        if response.error is not None:
            check(f"{label}: got a response", False, response.error)
            return None
        expected = case.expect if isinstance(case.expect, tuple) else (case.expect,)
        check(f"{label}: status {response.status}", response.status in expected, f"expected {' or '.join(map(str, expected))}")

        raw_path = urllib.parse.urlsplit(case.target).path
        where, responses = self.documented_responses(case.method, raw_path)
        documented = responses.get(str(response.status)) or responses.get(f"{str(response.status)[0]}XX") or responses.get("default")
        if not check(f"{label}: status {response.status} documented for {where}", documented is not None, f"documented: {', '.join(sorted(responses))}"):
            return None

        # Headers.
        for name, header in (documented.get("headers") or {}).items():
            if name.lower() in ("content-type", "content-length"):
                continue  # OpenAPI ignores these
            value = response.header(name)
            if header.get("required"):
                check(f"{label}: required header {name}", value is not None, "missing")
            if value is not None and "schema" in header:
                error = schema_error(value, header["schema"])
                check(f"{label}: header {name} matches its schema", error is None, f"{value!r} {error}")

        # Body and Content-Type.
        content = documented.get("content") or {}
        parsed: Any = None
        if case.method == "HEAD" or not content:
            check(f"{label}: no body", response.raw_body == b"", f"{len(response.raw_body)} bytes")
            return None
        content_type = response.header("Content-Type")
        media = next((key for key in content if content_type and media_type_matches(key, content_type)), None)
        if not check(f"{label}: Content-Type documented", media is not None, f"{content_type!r} not in {list(content)}"):
            return None
        try:
            body = response.body()
        except (OSError, EOFError) as error:
            check(f"{label}: body decodes", False, f"Content-Encoding {response.header('Content-Encoding')!r}: {error}")
            return None
        if (content[media].get("schema") or {}).get("format") == "binary":
            # An archive or another binary body: its bytes are what they are (ZIP is checked by
            # its own magic number where a case expects it).
            check(f"{label}: binary body", len(body) > 0, "empty")
            return body
        try:
            text = body.decode("utf-8")
            if is_json(media):
                parsed = json.loads(text)
            elif parse_media_type(media)[0] == "application/yaml":
                parsed = yaml.safe_load(text)  # validated against x-parsedSchema below
            else:
                parsed = text
        except (UnicodeDecodeError, ValueError, yaml.YAMLError) as error:
            check(f"{label}: body parses as {media}", False, str(error))
            return None
        schema = content[media].get("schema")
        if schema is not None:
            error = schema_error(parsed, schema)
            check(f"{label}: body matches the {media} schema", error is None, error or "")
        # The YAML body's `schema` says nothing (generated clients read the text; schemathesis
        # validates the parsed document against it): `x-parsedSchema` describes the document.
        parsed_schema = content[media].get(PARSED_SCHEMA)
        if parsed_schema is not None:
            error = schema_error(parsed, parsed_schema)
            check(f"{label}: parsed body matches {PARSED_SCHEMA}", error is None, error or "")
        item_schema = content[media].get(ITEM_SCHEMA)
        if item_schema is not None and isinstance(parsed, str):
            # A sequential media type (NDJSON): every line is one JSON value of the line schema.
            lines, problems = parse_lines(parsed, item_schema)
            check(f"{label}: every line ends with a newline", parsed == "" or parsed.endswith("\n"), f"{parsed[-40:]!r}")
            check(f"{label}: all {len(lines)} lines match the {ITEM_SCHEMA}", not problems, "; ".join(problems[:3]))
            return lines
        if is_json(media) and isinstance(parsed, dict) and parse_media_type(media)[0] == "application/problem+json":
            check(f"{label}: problem status equals the HTTP status", parsed.get("status") == response.status, f"{parsed.get('status')!r}")
            check(
                f"{label}: problem requestId equals X-Request-ID",
                parsed.get("requestId") == response.header("X-Request-ID"),
                f"{parsed.get('requestId')!r} vs {response.header('X-Request-ID')!r}",
            )
        return parsed

    def run(self, case: Case) -> tuple[Response, Any]:
        if case.oversized:
            response = self.client.send_oversized(case.method, case.target, case.oversized)
        else:
            response = self.client.send(case.method, case.target, case.headers, case.body)
        parsed = self.conform(case, response)
        if response.error is None:
            for extra in case.extra:
                try:
                    name, ok, detail = extra(response, parsed)
                except Exception as error:  # a broken expectation is a failed check, not a crash
                    name, ok, detail = "expectation", False, f"{type(error).__name__}: {error}"
                self.report.check(f"{case.label} [{case.method} {case.target}]: {name}", ok, detail)
        return response, parsed

    # -- the examples in the document ----------------------------------------------------------

    def check_examples(self) -> None:
        def visit(node: Any, where: str) -> None:
            if isinstance(node, dict):
                if isinstance(node.get("schema"), dict) and ("example" in node or "examples" in node):
                    schema = self.spec.resolve(node["schema"])
                    examples = {}
                    if "example" in node:
                        examples["example"] = node["example"]
                    for name, example in (node.get("examples") or {}).items():
                        example = self.spec.resolve(example)
                        if "value" in example:
                            examples[name] = example["value"]
                    for name, value in examples.items():
                        error = schema_error(value, schema)
                        self.report.check(f"example {where}/{name} matches its schema", error is None, error or "")
                        if isinstance(node.get(ITEM_SCHEMA), dict) and isinstance(value, str):
                            lines, problems = parse_lines(value, self.spec.resolve(node[ITEM_SCHEMA]))
                            self.report.check(
                                f"example {where}/{name}: its {len(lines)} lines match the {ITEM_SCHEMA}",
                                bool(lines) and not problems,
                                "; ".join(problems[:3]) or "no lines",
                            )
                for key, value in node.items():
                    visit(value, f"{where}/{key}")
            elif isinstance(node, list):
                for index, value in enumerate(node):
                    visit(value, f"{where}/{index}")

        visit(self.spec.doc.get("components", {}), "#/components")
        visit(self.spec.doc.get("paths", {}), "#/paths")


# ---------------------------------------------------------------------------------------------
# The requests


def header_is(name: str, want: str | Callable[[str | None], bool], describe: str = ""):
    def expectation(response: Response, _: Any) -> tuple[str, bool, str]:
        value = response.header(name)
        ok = want(value) if callable(want) else value == want
        return f"{name} {describe or 'is ' + repr(want)}", ok, f"got {value!r}"

    return expectation


def body_field(label: str, predicate: Callable[[Any], bool]):
    def expectation(_: Response, parsed: Any) -> tuple[str, bool, str]:
        try:
            ok = bool(predicate(parsed))
        except (KeyError, IndexError, TypeError) as error:
            return label, False, f"{type(error).__name__}: {error}"
        return label, ok, f"body {json.dumps(parsed, ensure_ascii=False)[:300]}"

    return expectation


def vary_lists(*names: str):
    def expectation(response: Response, _: Any) -> tuple[str, bool, str]:
        value = response.header("Vary") or ""
        listed = {part.strip().lower() for part in value.split(",")}
        return f"Vary lists {', '.join(names)}", all(name.lower() in listed for name in names), f"got {value!r}"

    return expectation


def problem_type(slug: str):
    return body_field(f"problem type is {slug}", lambda body: body["type"] == f"urn:empty-state:problem:{slug}")


def first_error_parameter(name: str):
    return body_field(f"errors[0].parameter is {name}", lambda body: body["errors"][0]["parameter"] == name)


def run_all(checker: Checker, body_limit: int) -> None:
    run = checker.run
    check = checker.report.check

    # Operations.
    run(Case("liveness", "GET", "/healthz", 200))
    run(Case("liveness", "HEAD", "/healthz", 200))
    run(Case("readiness", "GET", "/readyz", 200))
    run(Case("readiness", "HEAD", "/readyz", 200))
    run(
        Case(
            "metrics",
            "GET",
            "/metrics",
            200,
            extra=[
                header_is("Cache-Control", "no-store"),
                body_field(
                    "counts requests by route pattern",
                    lambda text: 'http_requests_total{route="/healthz",method="GET",status="200"} ' in text,
                ),
                body_field("has every fixed series", lambda text: all(f"# TYPE {name} " in text for name in METRIC_SERIES)),
            ],
        )
    )
    run(Case("metrics", "HEAD", "/metrics", 200))
    run(Case("method not allowed", "POST", "/metrics", 405, headers={"Content-Type": "text/plain"}, body=b"x", extra=[problem_type("method-not-allowed")]))

    served, document = run(Case("document", "GET", "/openapi.yaml", 200))
    if served.status == 200:
        # The body was parsed as YAML to be checked against its schema.
        same = document == checker.spec.doc
        check(f"document [GET /openapi.yaml]: equals {checker.spec.path.name}", same, "differs from the --spec file")
    run(Case("document", "HEAD", "/openapi.yaml", 200))

    # The catalogue, and an id, an alias and a placeholder to use below.
    bundle_target = "/v1/templates?locale=fr&platform=ios"
    bundle_response, bundle = run(
        Case(
            "bundle",
            "GET",
            bundle_target,
            200,
            extra=[
                header_is("Vary", "Accept-Encoding"),
                body_field("platform is ios", lambda body: body["platform"] == "ios"),
                body_field("every template is for ios", lambda body: all(t["platform"] == "ios" for t in body["templates"])),
                body_field("aliases point at templates", lambda body: set(body["aliases"].values()) <= {t["id"] for t in body["templates"]}),
            ],
        )
    )
    templates = bundle.get("templates", []) if isinstance(bundle, dict) else []
    template_id = templates[0]["id"] if templates else "connectionRefused"
    aliases = bundle.get("aliases", {}) if isinstance(bundle, dict) else {}
    with_placeholder = next((t for t in templates if t.get("placeholders")), None)
    check("bundle: has at least one template to test with", bool(templates), "falling back to 'connectionRefused'")

    bundle_etag = bundle_response.header("ETag")
    if bundle_etag:
        run(
            Case(
                "bundle revalidation",
                "GET",
                bundle_target,
                304,
                headers={"If-None-Match": bundle_etag},
                extra=[header_is("ETag", bundle_etag)],
            )
        )
        run(Case("bundle", "HEAD", bundle_target, 200, extra=[header_is("ETag", bundle_etag, "equals the GET's")]))
    run(
        Case(
            "bundle gzip",
            "GET",
            "/v1/templates?locale=fr&platform=web",
            200,
            headers={"Accept-Encoding": "gzip"},
            extra=[header_is("Content-Encoding", "gzip"), vary_lists("Accept-Encoding")],
        )
    )
    run(
        Case(
            "bundle negotiated",
            "GET",
            "/v1/templates",
            200,
            headers={"Accept-Language": "fr-CA, fr;q=0.9, en;q=0.5"},
            extra=[vary_lists("Accept-Language", "Accept-Encoding"), body_field("platform defaults to web", lambda body: body["platform"] == "web")],
        )
    )
    run(Case("bundle bad locale", "GET", "/v1/templates?locale=not_a_tag!", 400, extra=[problem_type("invalid-parameter"), first_error_parameter("locale")]))

    # The web platform: HTML fragment and page, the stylesheet, the SVG in platform=web JSON.
    run(
        Case(
            "web JSON carries the SVG",
            "GET",
            "/v1/templates/connectionRefused?locale=en&platform=web",
            200,
            extra=[
                body_field("visual.svg is inline SVG", lambda body: body["visual"]["svg"].startswith("<svg") and 'aria-hidden="true"' in body["visual"]["svg"]),
                header_is("Access-Control-Allow-Origin", "*"),
            ],
        )
    )
    run(Case("ios JSON carries no SVG", "GET", "/v1/templates/connectionRefused?platform=ios", 200, extra=[body_field("no visual.svg", lambda body: "svg" not in body["visual"])]))
    for path in ("/v1/web/templates/connectionRefused?locale=ar", "/v1/web/templates/connectionRefused/page?locale=de&level=2"):
        run(Case(f"web HTML {path}", "GET", path, 200, extra=[header_is("Content-Type", "text/html; charset=utf-8"), vary_lists("Accept-Encoding")]))
    run(Case("web HTML negotiated", "GET", "/v1/web/templates/noNetwork", 200, headers={"Accept-Language": "fr"}, extra=[header_is("Content-Language", "fr"), vary_lists("Accept-Language", "Accept-Encoding")]))
    run(Case("web HTML bad level", "GET", "/v1/web/templates/connectionRefused?level=7", 400, extra=[problem_type("invalid-parameter"), first_error_parameter("level")]))
    run(Case("web HTML unknown template", "GET", "/v1/web/templates/nope", 404, extra=[problem_type("unknown-template")]))
    run(Case("web stylesheet", "GET", "/v1/web/assets/empty-state.css", 200, headers={"Accept-Encoding": "gzip"}, extra=[header_is("Content-Encoding", "gzip")]))
    run(Case("web component", "HEAD", "/v1/web/assets/empty-state.js", 200, extra=[header_is("Content-Type", "text/javascript; charset=utf-8")]))
    run(Case("web asset unknown", "GET", "/v1/web/assets/empty-state.0000000000000000.css", 404, extra=[problem_type("not-found")]))
    run(Case("gallery", "GET", "/preview?locale=ar&size=200x150&style=subtle&platform=android", 200))
    run(Case("gallery bad size", "GET", "/preview?size=1x1", 400, extra=[problem_type("invalid-parameter"), first_error_parameter("size")]))

    # One template.
    one = f"/v1/templates/{template_id}"
    french = f"{one}?locale=fr&platform=android"
    single_response, _ = run(
        Case(
            "template",
            "GET",
            french,
            200,
            extra=[
                header_is("Vary", "Accept-Encoding"),
                body_field(f"id is {template_id}", lambda body: body["id"] == template_id),
                body_field("platform is android", lambda body: body["platform"] == "android"),
            ],
        )
    )
    etag = single_response.header("ETag")
    if etag:
        run(Case("template revalidation", "GET", french, 304, headers={"If-None-Match": etag}, extra=[header_is("ETag", etag)]))
        run(Case("template revalidation", "HEAD", french, 304, headers={"If-None-Match": etag}))
        run(Case("template", "HEAD", french, 200, extra=[header_is("ETag", etag, "equals the GET's")]))
    run(
        Case(
            "template negotiated",
            "GET",
            one,
            200,
            headers={"Accept-Language": "de-CH;q=0.4, fr;q=0.9, *;q=0.1, ;;bogus"},
            extra=[vary_lists("Accept-Language", "Accept-Encoding")],
        )
    )
    run(
        Case(
            "template gzip",
            "GET",
            f"{one}?locale=fr",
            200,
            headers={"Accept-Encoding": "gzip;q=1.0, identity;q=0.5"},
        )
    )
    run(Case("pseudo-locale en-XA", "GET", f"{one}?locale=en-XA", 200, extra=[body_field("direction is ltr", lambda body: body["direction"] == "ltr")]))
    run(Case("pseudo-locale ar-XB", "GET", f"{one}?locale=ar-XB", 200, extra=[body_field("direction is rtl", lambda body: body["direction"] == "rtl")]))
    if aliases:
        alias, target = next(iter(aliases.items()))
        run(Case("template by alias", "GET", f"/v1/templates/{alias}?locale=fr", 200, extra=[body_field(f"id is {target}", lambda body: body["id"] == target)]))
    if with_placeholder:
        name = with_placeholder["placeholders"][0]
        value = "Zoë & Co"
        run(
            Case(
                "template placeholder",
                "GET",
                f"/v1/templates/{with_placeholder['id']}?locale=fr&param.{name}={urllib.parse.quote(value)}",
                200,
                extra=[
                    body_field(f"{{{name}}} no longer unfilled", lambda body: name not in body["placeholders"]),
                    body_field(f"{value!r} in the copy", lambda body: value in json.dumps(body, ensure_ascii=False)),
                ],
            )
        )

    # Errors.
    run(Case("bad locale", "GET", f"{one}?locale=fr_FR!", 400, extra=[problem_type("invalid-parameter"), first_error_parameter("locale")]))
    # A query that is not parsed: more than 64 arguments, or arguments too long to parse beside the
    # headers. The one error has no location; the connection is closed.
    unparsed = [
        body_field("one error, with a detail only", lambda b: len(b["errors"]) == 1 and set(b["errors"][0]) == {"detail"}),
        header_is("Connection", "close"),
    ]
    many = "&".join(f"param.a{i}=x" for i in range(65))
    run(Case("65 query arguments", "GET", f"{one}?{many}", 400, extra=[problem_type("invalid-parameter"), *unparsed]))
    run(Case("65 query arguments", "HEAD", f"/v1/templates?{many}", 400, extra=[header_is("Connection", "close")]))
    run(Case("64 query arguments", "GET", f"{one}?" + "&".join(f"param.a{i}=x" for i in range(64)), 200))
    long_args = "&".join(f"p{i}=" + "v" * 200 for i in range(64))
    run(Case("query arguments too long to parse", "GET", f"/v1/templates?{long_args}", 400, extra=[problem_type("invalid-parameter"), *unparsed]))
    run(Case("bad platform", "GET", f"{one}?platform=windows", 400, extra=[problem_type("invalid-parameter"), first_error_parameter("platform")]))
    run(Case("bad platform", "HEAD", f"{one}?platform=windows", 400))
    run(Case("placeholder value too long", "GET", f"{one}?param.name={'x' * 201}", 400, extra=[problem_type("invalid-parameter")]))
    run(Case("unknown template", "GET", "/v1/templates/noSuchTemplateHere", 404, extra=[problem_type("unknown-template")]))
    run(Case("unknown template", "HEAD", "/v1/templates/noSuchTemplateHere", 404))
    run(Case("unknown path", "GET", "/v2/nothing-here", 404, extra=[problem_type("not-found")]))
    run(Case("unknown path", "HEAD", "/v2/nothing-here", 404))
    run(Case("malformed path", "GET", "/v1/templates/%ZZ", 400, extra=[problem_type("malformed-path")]))
    for target in ("/healthz", "/v1/templates", one):
        run(
            Case(
                "method not allowed",
                "POST",
                target,
                405,
                headers={"Content-Type": "application/json"},
                body=b"{}",
                extra=[problem_type("method-not-allowed"), header_is("Allow", lambda value: bool(value) and {"GET", "HEAD"} <= {m.strip() for m in value.split(",")}, "lists GET and HEAD")],
            )
        )
    run(Case("method not allowed", "DELETE", "/readyz", 405, extra=[problem_type("method-not-allowed")]))
    if body_limit > 0:
        run(Case("body over the limit", "GET", "/healthz", 413, oversized=body_limit + 1, extra=[problem_type("payload-too-large")]))

    # Request ids.
    run(Case("request id echo", "GET", "/healthz", 200, headers={"X-Request-ID": "openapi-check:1.a_b-c"}, extra=[header_is("X-Request-ID", "openapi-check:1.a_b-c")]))
    run(
        Case(
            "request id replaced",
            "GET",
            "/healthz",
            200,
            headers={"X-Request-ID": "not sane/" + "y" * 130},
            extra=[header_is("X-Request-ID", lambda value: bool(value) and not value.startswith("not sane"), "is generated")],
        )
    )
    run(
        Case(
            "request id in problems",
            "GET",
            "/v1/templates/noSuchTemplateHere",
            404,
            headers={"X-Request-ID": "trace-404"},
            extra=[header_is("X-Request-ID", "trace-404"), body_field("requestId is trace-404", lambda body: body["requestId"] == "trace-404")],
        )
    )


# ---------------------------------------------------------------------------------------------
# The admin API (only with --admin-token / --admin-token-file)


def problem_pointers(*pointers: str):
    def expectation(_: Response, parsed: Any) -> tuple[str, bool, str]:
        found = {error.get("pointer") for error in (parsed or {}).get("errors", [])} if isinstance(parsed, dict) else set()
        named = ", ".join(pointer or '""' for pointer in pointers)
        return f"errors point at {named}", set(pointers) <= found, f"pointers {sorted(p for p in found if p is not None)}"

    return expectation


def allow_is(*methods: str):
    return header_is(
        "Allow",
        lambda value: bool(value) and {m.strip() for m in value.split(",")} == set(methods),
        f"is {', '.join(methods)}",
    )


def run_admin(checker: Checker, token: str, body_limit: int) -> None:
    """Exercises every admin operation on a scratch template with a unique id, then deletes it."""
    run = checker.run
    check = checker.report.check
    auth = {"Authorization": f"Bearer {token}"}
    as_json = {**auth, "Content-Type": "application/json"}

    def body(value: Any) -> bytes:
        return json.dumps(value, ensure_ascii=False).encode("utf-8")

    def etag(value: str):
        return header_is("ETag", value)

    tid = f"openapiCheck{secrets.token_hex(4)}"
    alias = f"{tid}Alias"
    one = f"/v1/admin/templates/{tid}"
    document = {
        "id": tid,
        "aliases": [alias],
        "category": "error",
        "style": "default",
        "defaultLocale": "en",
        "visual": {"icon": {"ios": "exclamationmark.triangle", "android": "error", "web": "triangle-alert"}},
        "actions": [
            {"id": "retry", "role": "primary", "type": "retry"},
            {"id": "help", "role": "secondary", "type": "openURL", "target": "https://example.com/help"},
            {"id": "back", "role": "secondary", "type": "navigateBack"},
        ],
        "strings": {
            "en": {
                "title": "Something went wrong",
                "message": "Try again in a moment, {name}.",
                "actions.retry": "Try again",
                "actions.help": "Get help",
                "actions.back": "Go back",
            },
            "fr": {
                "title": "Un problème est survenu",
                "message": "Réessayez dans un instant, {name}.",
                "actions.retry": "Réessayer",
                "actions.help": "Obtenir de l’aide",
                "actions.back": "Retour",
            },
        },
    }
    french = {
        "title": "Une erreur est survenue",
        "message": "Réessayez dans un moment, {name}.",
        "actions.retry": "Réessayer",
        "actions.help": "Obtenir de l’aide",
        "actions.back": "Retour",
    }
    updated = copy.deepcopy(document)
    updated["strings"]["fr"] = french
    replaced = copy.deepcopy(updated)
    replaced["style"] = "subtle"
    print(f"admin: scratch template {tid}")

    # Authentication: no token, a wrong token (both 401 with the challenge), also on HEAD.
    challenge = header_is("WWW-Authenticate", 'Bearer realm="empty-state-admin"')
    run(Case("admin no token", "GET", "/v1/admin/templates", 401, extra=[problem_type("unauthorized"), challenge]))
    run(Case("admin wrong token", "GET", "/v1/admin/audit", 401, headers={"Authorization": "Bearer " + "0" * 64}, extra=[problem_type("unauthorized"), challenge]))
    run(Case("admin no token", "HEAD", "/v1/admin/locales", 401, extra=[challenge]))
    run(Case("admin no token", "PUT", one, 401, headers={"Content-Type": "application/json", "If-None-Match": "*"}, body=body(document), extra=[problem_type("unauthorized")]))

    # Validate only: 200, nothing written.
    run(
        Case(
            "admin validateOnly",
            "PUT",
            f"{one}?validateOnly=true",
            200,
            headers=as_json,
            body=body(document),
            extra=[
                header_is("ETag", None, "is absent"),
                body_field("valid is true", lambda b: b["valid"] is True),
                body_field("template round-trips", lambda b: b["template"] == document),
            ],
        )
    )
    run(Case("admin validateOnly wrote nothing", "GET", one, 404, headers=auth, extra=[problem_type("unknown-template")]))

    # Create, then create again.
    run(
        Case(
            "admin create",
            "PUT",
            one,
            201,
            headers={**as_json, "If-None-Match": "*"},
            body=body(document),
            extra=[
                etag('"r1"'),
                header_is("Location", one),
                body_field("revision is 1", lambda b: b["revision"] == 1),
                body_field("template round-trips", lambda b: b["template"] == document),
                body_field("no stringUpdates", lambda b: "stringUpdates" not in b),
            ],
        )
    )
    run(Case("admin create existing", "PUT", one, 412, headers={**as_json, "If-None-Match": "*"}, body=body(document), extra=[problem_type("precondition-failed"), etag('"r1"')]))

    # Read, revalidate, HEAD; clients see it (also by alias).
    run(
        Case(
            "admin get",
            "GET",
            one,
            200,
            headers=auth,
            extra=[
                etag('"r1"'),
                header_is("Cache-Control", "no-store"),
                body_field("template round-trips", lambda b: b["template"] == document),
                body_field("a stringUpdate per string", lambda b: len(b["stringUpdates"]) == 10),
            ],
        )
    )
    run(Case("admin get revalidation", "GET", one, 304, headers={**auth, "If-None-Match": '"r1"'}, extra=[etag('"r1"')]))
    run(Case("admin get", "HEAD", one, 200, headers=auth, extra=[etag('"r1"')]))
    run(Case("admin get unknown", "HEAD", "/v1/admin/templates/noSuchTemplateHere", 404, headers=auth))
    run(Case("admin published", "GET", f"/v1/templates/{tid}?locale=fr", 200, extra=[body_field("title is the French one", lambda b: b["title"] == document["strings"]["fr"]["title"])]))
    run(Case("admin published alias", "GET", f"/v1/templates/{alias}?locale=en", 200, extra=[body_field(f"id is {tid}", lambda b: b["id"] == tid)]))

    # One locale's strings.
    strings = f"{one}/strings/fr"
    run(
        Case(
            "admin strings",
            "PUT",
            strings,
            200,
            headers={**as_json, "If-Match": '"r1"'},
            body=body(french),
            extra=[
                etag('"r2"'),
                body_field("revision is 2", lambda b: b["revision"] == 2),
                body_field("French strings replaced", lambda b: b["template"]["strings"]["fr"] == french),
            ],
        )
    )
    run(Case("admin strings stale", "PUT", strings, 412, headers={**as_json, "If-Match": '"r1"'}, body=body(french), extra=[problem_type("precondition-failed"), etag('"r2"')]))
    run(Case("admin strings no If-Match", "PUT", strings, 428, headers=as_json, body=body(french), extra=[problem_type("precondition-required")]))
    run(Case("admin strings not JSON type", "PUT", strings, 415, headers={**auth, "Content-Type": "text/plain", "If-Match": '"r2"'}, body=body(french), extra=[problem_type("unsupported-media-type")]))
    run(Case("admin strings malformed JSON", "PUT", strings, 400, headers={**as_json, "If-Match": '"r2"'}, body=b'{"title": ', extra=[problem_type("invalid-json")]))
    run(Case("admin strings not an object", "PUT", strings, 400, headers={**as_json, "If-Match": '"r2"'}, body=b'["title"]', extra=[problem_type("invalid-json")]))
    run(
        Case(
            "admin strings pseudo-locale",
            "PUT",
            f"{one}/strings/en-XA",
            400,
            headers={**as_json, "If-Match": '"r2"'},
            body=body(french),
            extra=[problem_type("invalid-parameter"), first_error_parameter("locale")],
        )
    )
    run(Case("admin strings non-string value", "PUT", strings, 422, headers={**as_json, "If-Match": '"r2"'}, body=body({**french, "title": 3}), extra=[problem_type("validation-failed"), problem_pointers("/title")]))
    missing_label = {key: value for key, value in french.items() if key != "actions.help"}
    run(Case("admin strings breaks a rule", "PUT", strings, 422, headers={**as_json, "If-Match": '"r2"'}, body=body(missing_label), extra=[problem_type("validation-failed"), problem_pointers("/actions.help")]))

    # Replace the whole document, and what stops it.
    broken = copy.deepcopy(replaced)
    broken["category"] = "bogus"
    broken["actions"] += [{"id": "a", "role": "secondary", "type": "dismiss"}, {"id": "b", "role": "secondary", "type": "dismiss"}]
    run(Case("admin replace invalid", "PUT", one, 422, headers={**as_json, "If-Match": '"r2"'}, body=body(broken), extra=[problem_type("validation-failed"), problem_pointers("/category", "/actions")]))
    run(Case("admin replace id mismatch", "PUT", one, 422, headers={**as_json, "If-Match": '"r2"'}, body=body({**replaced, "id": tid + "X"}), extra=[problem_pointers("/id")]))
    run(Case("admin replace If-Match not an ETag", "PUT", one, 412, headers={**as_json, "If-Match": "*"}, body=body(replaced), extra=[problem_type("precondition-failed")]))
    run(Case("admin replace If-None-Match not *", "PUT", one, 400, headers={**as_json, "If-None-Match": '"r2"'}, body=body(replaced), extra=[problem_type("invalid-header")]))
    run(Case("admin replace no precondition", "PUT", one, 428, headers=as_json, body=body(replaced), extra=[problem_type("precondition-required")]))
    run(Case("admin replace not JSON type", "PUT", one, 415, headers={**auth, "Content-Type": "application/x-www-form-urlencoded", "If-Match": '"r2"'}, body=b"id=x", extra=[problem_type("unsupported-media-type")]))
    run(Case("admin replace unknown template", "PUT", "/v1/admin/templates/noSuchTemplateHere", 404, headers={**as_json, "If-Match": '"r1"'}, body=body({**replaced, "id": "noSuchTemplateHere", "aliases": []}), extra=[problem_type("unknown-template")]))
    run(Case("admin replace", "PUT", one, 200, headers={**as_json, "If-Match": '"r2"'}, body=body(replaced), extra=[etag('"r3"'), body_field("style is subtle", lambda b: b["template"]["style"] == "subtle")]))

    # History.
    revisions = f"{one}/revisions"
    run(
        Case(
            "admin revisions",
            "GET",
            revisions,
            200,
            headers=auth,
            extra=[
                body_field("3 revisions, newest first", lambda b: [i["revision"] for i in b["items"]] == [3, 2, 1] and b["total"] == 3),
                body_field("actions replace, strings, create", lambda b: [i["action"] for i in b["items"]] == ["replace", "strings", "create"]),
                body_field("strings revision names the changed fields", lambda b: "/strings/fr/title" in b["items"][1]["changedFields"]),
            ],
        )
    )
    run(Case("admin revisions paging", "GET", f"{revisions}?page=2&pageSize=1", 200, headers=auth, extra=[body_field("item is revision 2", lambda b: [i["revision"] for i in b["items"]] == [2])]))
    run(Case("admin revisions", "HEAD", revisions, 200, headers=auth))
    run(Case("admin revisions unknown template", "GET", "/v1/admin/templates/noSuchTemplateHere/revisions", 404, headers=auth, extra=[problem_type("unknown-template")]))
    run(Case("admin revisions bad paging", "GET", f"{revisions}?pageSize=abc", 400, headers=auth, extra=[problem_type("invalid-parameter"), first_error_parameter("pageSize")]))
    run(Case("admin revision", "GET", f"{revisions}/1", 200, headers=auth, extra=[body_field("revision 1 is the created document", lambda b: b["action"] == "create" and b["template"] == document)]))
    run(Case("admin revision", "HEAD", f"{revisions}/1", 200, headers=auth))
    run(Case("admin revision unknown", "GET", f"{revisions}/99", 404, headers=auth, extra=[problem_type("unknown-revision")]))
    run(Case("admin revision not a number", "GET", f"{revisions}/abc", 400, headers=auth, extra=[problem_type("invalid-parameter"), first_error_parameter("revision")]))
    run(Case("admin revision zero", "GET", f"{revisions}/0", 400, headers=auth, extra=[problem_type("invalid-parameter")]))
    run(Case("admin revision unknown template", "GET", "/v1/admin/templates/noSuchTemplateHere/revisions/1", 404, headers=auth, extra=[problem_type("unknown-template")]))

    # Audit.
    run(Case("admin audit", "GET", f"/v1/admin/audit?templateId={tid}", 200, headers=auth, extra=[body_field("3 changes of the scratch template", lambda b: b["total"] == 3 and {i["templateId"] for i in b["items"]} == {tid})]))
    run(Case("admin audit paging", "GET", "/v1/admin/audit?page=1&pageSize=2", 200, headers=auth, extra=[body_field("2 items", lambda b: len(b["items"]) == 2 and b["pageSize"] == 2)]))
    run(Case("admin audit unknown template", "GET", "/v1/admin/audit?templateId=noSuchTemplateHere", 200, headers=auth, extra=[body_field("empty", lambda b: b["items"] == [] and b["total"] == 0)]))
    run(Case("admin audit bad paging", "GET", "/v1/admin/audit?pageSize=0", 400, headers=auth, extra=[problem_type("invalid-parameter"), first_error_parameter("pageSize")]))
    run(Case("admin audit", "HEAD", "/v1/admin/audit", 200, headers=auth))

    # Locales.
    run(Case("admin locales", "GET", "/v1/admin/locales", 200, headers=auth, extra=[body_field("lists en and fr", lambda b: {"en", "fr"} <= {entry["locale"] for entry in b["locales"]})]))
    run(Case("admin locales", "HEAD", "/v1/admin/locales", 200, headers=auth))
    run(Case("admin icons", "GET", "/v1/admin/icons?q=wifi&svg=true&limit=2", 200, headers=auth, extra=[body_field("wifi first, with SVG", lambda b: b["icons"][0]["name"] == "wifi" and b["icons"][0]["svg"].startswith("<svg") and len(b["icons"]) == 2)]))
    run(Case("admin icons", "HEAD", "/v1/admin/icons", 200, headers=auth))
    run(Case("admin icons bad limit", "GET", "/v1/admin/icons?limit=0", 400, headers=auth, extra=[first_error_parameter("limit")]))

    # Listing and paging.
    run(Case("admin list", "GET", "/v1/admin/templates", 200, headers=auth, extra=[body_field("lists the scratch template", lambda b: tid in {i["id"] for i in b["items"]} or b["total"] > b["pageSize"])]))
    run(Case("admin list paging", "GET", "/v1/admin/templates?page=2&pageSize=1", 200, headers=auth, extra=[body_field("one item, page 2", lambda b: len(b["items"]) == 1 and b["page"] == 2 and b["pageSize"] == 1)]))
    run(Case("admin list past the end", "GET", "/v1/admin/templates?page=100000&pageSize=200", 200, headers=auth, extra=[body_field("no items", lambda b: b["items"] == [])]))
    run(Case("admin list bad page", "GET", "/v1/admin/templates?page=0", 400, headers=auth, extra=[problem_type("invalid-parameter"), first_error_parameter("page")]))
    run(Case("admin list page size too big", "GET", "/v1/admin/templates?pageSize=201", 400, headers=auth, extra=[problem_type("invalid-parameter"), first_error_parameter("pageSize")]))
    run(Case("admin list", "HEAD", "/v1/admin/templates?pageSize=1", 200, headers=auth))

    # Methods, paths, sizes.
    run(Case("admin method not allowed", "POST", one, 405, headers=as_json, body=b"{}", extra=[problem_type("method-not-allowed"), allow_is("GET", "HEAD", "PUT", "DELETE")]))
    run(Case("admin method not allowed", "GET", strings, 405, headers=auth, extra=[problem_type("method-not-allowed"), allow_is("PUT")]))
    run(Case("admin method not allowed", "GET", f"{one}/rollback", 405, headers=auth, extra=[allow_is("POST")]))
    run(Case("admin method not allowed", "DELETE", "/v1/admin/locales", 405, headers=auth, extra=[allow_is("GET", "HEAD")]))
    run(Case("admin method not allowed", "PUT", "/v1/admin/templates", 405, headers=as_json, body=b"{}", extra=[allow_is("GET", "HEAD")]))
    run(Case("admin unknown path", "GET", "/v1/admin/nothing-here", 404, headers=auth, extra=[problem_type("not-found")]))
    if body_limit > 0:
        run(Case("admin body over the limit", "PUT", one, 413, oversized=body_limit + 1, extra=[problem_type("payload-too-large")]))

    # Delete.
    run(Case("admin delete no If-Match", "DELETE", one, 428, headers=auth, extra=[problem_type("precondition-required")]))
    run(Case("admin delete stale", "DELETE", one, 412, headers={**auth, "If-Match": '"r1"'}, extra=[problem_type("precondition-failed"), etag('"r3"')]))
    run(Case("admin delete unknown", "DELETE", "/v1/admin/templates/noSuchTemplateHere", 404, headers={**auth, "If-Match": '"r1"'}, extra=[problem_type("unknown-template")]))
    run(Case("admin delete", "DELETE", one, 204, headers={**auth, "If-Match": '"r3"'}, extra=[etag('"r4"')]))
    run(Case("admin deleted", "GET", one, 404, headers=auth, extra=[problem_type("template-deleted"), etag('"r4"')]))
    run(Case("admin deleted for clients", "GET", f"/v1/templates/{tid}", 404, extra=[problem_type("unknown-template")]))
    run(Case("admin delete deleted", "DELETE", one, 404, headers={**auth, "If-Match": '"r4"'}, extra=[problem_type("template-deleted"), etag('"r4"')]))
    run(Case("admin strings deleted", "PUT", strings, 404, headers={**as_json, "If-Match": '"r4"'}, body=body(french), extra=[problem_type("template-deleted")]))
    run(Case("admin revision of a deletion", "GET", f"{revisions}/4", 200, headers=auth, extra=[body_field("a delete without a document", lambda b: b["action"] == "delete" and "template" not in b)]))

    # Rollback restores it.
    rollback = f"{one}/rollback"
    run(Case("admin rollback not JSON type", "POST", rollback, 415, headers={**auth, "Content-Type": "text/plain"}, body=b'{"revision": 3}', extra=[problem_type("unsupported-media-type")]))
    run(Case("admin rollback malformed JSON", "POST", rollback, 400, headers=as_json, body=b"{revision: 3}", extra=[problem_type("invalid-json")]))
    run(Case("admin rollback bad revision", "POST", rollback, 422, headers=as_json, body=body({"revision": 0}), extra=[problem_type("validation-failed"), problem_pointers("/revision")]))
    run(Case("admin rollback to a deletion", "POST", rollback, 422, headers=as_json, body=body({"revision": 4}), extra=[problem_type("validation-failed")]))
    run(Case("admin rollback unknown revision", "POST", rollback, 404, headers=as_json, body=body({"revision": 99}), extra=[problem_type("unknown-revision")]))
    run(Case("admin rollback unknown template", "POST", "/v1/admin/templates/noSuchTemplateHere/rollback", 404, headers=as_json, body=body({"revision": 1}), extra=[problem_type("unknown-template")]))
    run(Case("admin rollback stale", "POST", rollback, 412, headers={**as_json, "If-Match": '"r1"'}, body=body({"revision": 3}), extra=[problem_type("precondition-failed"), etag('"r4"')]))
    run(
        Case(
            "admin rollback restores",
            "POST",
            rollback,
            200,
            headers={**as_json, "If-Match": '"r4"'},
            body=body({"revision": 3}),
            extra=[etag('"r5"'), body_field("template is revision 3's", lambda b: b["revision"] == 5 and b["template"] == replaced)],
        )
    )
    run(Case("admin restored", "GET", one, 200, headers=auth, extra=[etag('"r5"')]))
    run(Case("admin restored for clients", "GET", f"/v1/templates/{tid}?locale=fr", 200, extra=[body_field("French title of revision 3", lambda b: b["title"] == french["title"])]))

    # Clean up: delete again.
    run(Case("admin clean up", "DELETE", one, 204, headers={**auth, "If-Match": '"r5"'}, extra=[etag('"r6"')]))
    current = checker.client.send("GET", one, auth)
    if current.status == 200 and current.header("ETag"):
        # An earlier step went wrong and left the template live: delete whatever revision it is at.
        checker.client.send("DELETE", one, {**auth, "If-Match": current.header("ETag") or ""})
        current = checker.client.send("GET", one, auth)
    check(f"admin clean up: {tid} is deleted", current.status == 404, f"GET {one} answers {current.status}")


def run_translations(checker: Checker, token: str) -> None:
    """Exports a built-in template in every format, imports the XLIFF back as a dry run, and
    provokes the import's 400s, 401 and 415; every response is judged against the document."""
    run = checker.run
    auth = {"Authorization": f"Bearer {token}"}
    export = "/v1/admin/translations/export"
    imported = "/v1/admin/translations/import"
    one = "ids=connectionRefused,verifyIdentity"

    def is_zip(response: Response, parsed: Any) -> tuple[str, bool, str]:
        return "a ZIP archive", isinstance(parsed, bytes) and parsed[:4] == b"PK\x03\x04", repr(parsed[:8])

    response, xliff = run(Case("export XLIFF 2.0", "GET", f"{export}?format=xliff2&locale=fr&{one}", 200, headers=auth, extra=[header_is("Content-Disposition", 'attachment; filename="fr.xlf"')]))
    run(Case("export HEAD", "HEAD", f"{export}?format=xliff2&locale=fr&{one}", 200, headers=auth))
    run(Case("export XLIFF 1.2", "GET", f"{export}?format=xliff12&locale=de&category=offline", 200, headers=auth))
    run(Case("export String Catalog", "GET", f"{export}?format=xcstrings&{one}", 200, headers=auth, extra=[body_field("sourceLanguage en", lambda b: b["sourceLanguage"] == "en")]))
    run(Case("export Android", "GET", f"{export}?format=android&locale=fr&{one}&onlyMissingOrStale=false", 200, headers=auth, extra=[is_zip]))
    run(Case("export XLIFF, every locale", "GET", f"{export}?{one}", 200, headers=auth, extra=[is_zip]))
    run(Case("export bad parameters", "GET", f"{export}?format=po&locale=en-XA&ids=noSuchTemplate&category=x&onlyMissingOrStale=yes", 400, headers=auth, extra=[problem_type("invalid-parameter")]))
    run(Case("export no token", "GET", export, 401))
    as_file = {**auth, "Content-Type": "application/xliff+xml"}
    if isinstance(xliff, str):
        run(
            Case(
                "import dry run",
                "POST",
                f"{imported}?fileName=fr.xlf",
                200,
                headers=as_file,
                body=xliff.encode("utf-8"),
                extra=[body_field("all unchanged, nothing written", lambda b: b["dryRun"] and b["summary"]["unchanged"] > 0 and b["summary"]["unchanged"] == b["documents"][0]["units"] and b["summary"]["revisionsWritten"] == 0)],
            )
        )
        # Locale resolution, and strict mode (issue 36).
        regional = xliff.replace('trgLang="fr"', 'trgLang="fr-FR"').encode("utf-8")
        run(Case("import fr-FR into fr", "POST", f"{imported}?fileName=fr-FR.xlf", 200, headers=as_file, body=regional, extra=[body_field("nearest fr", lambda b: b["documents"][0]["locale"]["locale"] == "fr" and b["documents"][0]["locale"]["match"] == "nearest")]))
        unknown = xliff.replace('trgLang="fr"', 'trgLang="qq"').encode("utf-8")
        run(Case("import unknown locale", "POST", f"{imported}?fileName=qq.xlf", 422, headers=as_file, body=unknown, extra=[problem_type("unknown-locale")]))
        run(Case("import createLocales", "POST", f"{imported}?fileName=qq.xlf&createLocales=true", 200, headers=as_file, body=unknown, extra=[body_field("created qq", lambda b: b["documents"][0]["locale"]["match"] == "created")]))
        refused = xliff.replace("verifyIdentity", "noSuchTemplateX").encode("utf-8")
        run(Case("import strict with refusals", "POST", f"{imported}?fileName=fr.xlf&strict=true&dryRun=false", 422, headers=as_file, body=refused, extra=[problem_type("translation-strings-rejected"), body_field("the report", lambda b: b["report"]["strict"] and b["report"]["summary"]["rejected"] > 0)]))
        run(Case("import strict dry run, clean", "POST", f"{imported}?fileName=fr.xlf&strict=true", 200, headers=as_file, body=xliff.encode("utf-8"), extra=[body_field("strict", lambda b: b["strict"] and b["summary"]["rejected"] == 0)]))
        run(Case("import bad strict", "POST", f"{imported}?strict=maybe&createLocales=1", 400, headers=as_file, body=xliff.encode("utf-8"), extra=[problem_type("invalid-parameter")]))
    bad = b'<?xml version="1.0"?>\n<xliff version="2.0" xmlns="urn:oasis:names:tc:xliff:document:2.0" srcLang="en" trgLang="fr"><file id="f">\n</xliff>\n'
    run(Case("import unreadable file", "POST", imported, 400, headers=as_file, body=bad, extra=[problem_type("invalid-translation-file"), body_field("line and column", lambda b: b["errors"][0]["line"] == 3 and b["errors"][0]["column"] == 1)]))
    run(Case("import unknown format", "POST", f"{imported}?dryRun=maybe", 400, headers=as_file, body=b"hello", extra=[problem_type("invalid-parameter")]))
    run(Case("import a form", "POST", imported, 415, headers={**auth, "Content-Type": "application/x-www-form-urlencoded"}, body=b"a=b", extra=[problem_type("unsupported-media-type")]))
    run(Case("import no token", "POST", imported, 401, headers={"Content-Type": "application/xliff+xml"}, body=bad, extra=[problem_type("unauthorized")]))


def run_plurals(checker: Checker, token: str) -> None:
    """A scratch template with a plural message (issue 36): its admin document, one locale's
    plural strings, the client JSON with `plurals` and with `param.count`, the bundle and the HTML
    fragment, each judged against the document; deleted at the end."""
    run = checker.run
    auth = {"Authorization": f"Bearer {token}"}
    as_json = {**auth, "Content-Type": "application/json"}
    tid = f"openapiPlural{secrets.token_hex(4)}"
    one = f"/v1/admin/templates/{tid}"
    document = {
        "id": tid,
        "category": "noResults",
        "style": "default",
        "defaultLocale": "en",
        "visual": {"icon": {"ios": "magnifyingglass", "android": "search_off", "web": "search-x"}},
        "actions": [],
        "strings": {
            "en": {"title": "Nothing matches", "message": {"plural": "count", "one": "One result is hidden.", "other": "{count} results are hidden."}},
            "ar": {"title": "لا توجد نتائج", "message": {"plural": "count", "zero": "لا توجد نتائج مخفية.", "one": "نتيجة واحدة مخفية.", "two": "نتيجتان مخفيتان.", "few": "{count} نتائج مخفية.", "many": "{count} نتيجة مخفية.", "other": "{count} نتيجة مخفية."}},
        },
    }
    body = json.dumps(document, ensure_ascii=False).encode("utf-8")
    run(Case("plural create", "PUT", one, 201, headers={**as_json, "If-None-Match": "*"}, body=body, extra=[body_field("template round-trips", lambda b: b["template"] == document)]))
    run(Case("plural read", "GET", one, 200, headers=auth))
    french = {"title": "Aucun résultat", "message": {"plural": "count", "one": "{count} résultat masqué.", "many": "{count} de résultats masqués.", "other": "{count} résultats masqués."}}
    run(Case("plural strings", "PUT", f"{one}/strings/fr", 200, headers={**as_json, "If-Match": '"r1"'}, body=json.dumps(french, ensure_ascii=False).encode("utf-8")))
    wrong = {"title": "Aucun résultat", "message": {"plural": "count", "two": "{count} résultats", "other": "{count} résultats masqués."}}
    run(Case("plural strings, a category fr lacks", "PUT", f"{one}/strings/fr", 422, headers={**as_json, "If-Match": '"r2"'}, body=json.dumps(wrong).encode("utf-8"), extra=[problem_pointers("/message/two")]))
    run(Case("plural forms served", "GET", f"/v1/templates/{tid}?locale=fr", 200, extra=[body_field("the forms", lambda b: list(b["plurals"]["message"]) == ["plural", "one", "many", "other"])]))
    run(Case("plural chosen", "GET", f"/v1/templates/{tid}?locale=ar&param.count=2", 200, extra=[body_field("dual", lambda b: b["message"] == "نتيجتان مخفيتان." and "plurals" not in b)]))
    run(Case("plural bundle", "GET", "/v1/templates?locale=fr&platform=android", 200))
    run(Case("plural HTML", "GET", f"/v1/web/templates/{tid}?locale=fr&param.count=1000000", 200))
    run(Case("plural delete", "DELETE", one, 204, headers={**auth, "If-Match": '"r2"'}))


# ---------------------------------------------------------------------------------------------
# The admin console: its files, its session, and the admin routes only it uses


def run_console(checker: Checker, token: str) -> None:
    run = checker.run
    check = checker.report.check
    auth = {"Authorization": f"Bearer {token}"}
    as_json = {**auth, "Content-Type": "application/json"}
    own = f"http://{checker.client.host}:{checker.client.port}"

    def body(value: Any) -> bytes:
        return json.dumps(value).encode()

    csp = header_is("Content-Security-Policy", lambda v: bool(v) and "frame-ancestors 'none'" in v, "forbids framing")
    # The page and its files.
    run(Case("console redirect", "GET", "/admin", 308, extra=[header_is("Location", "/admin/"), csp]))
    run(Case("console redirect", "HEAD", "/admin", 308))
    page, _ = run(Case("console page", "GET", "/admin/", 200, extra=[header_is("Content-Type", "text/html; charset=utf-8"), csp]))
    if page.header("ETag"):
        run(Case("console page revalidation", "GET", "/admin/", 304, headers={"If-None-Match": page.header("ETag") or ""}))
        run(Case("console page revalidation", "HEAD", "/admin/", 304, headers={"If-None-Match": page.header("ETag") or ""}))
    run(Case("console page", "HEAD", "/admin/", 200))
    run(Case("console module", "GET", "/admin/app.js", 200, extra=[header_is("Content-Type", "text/javascript; charset=utf-8")]))
    run(Case("console stylesheet", "HEAD", "/admin/console.css", 200, extra=[header_is("Content-Type", "text/css; charset=utf-8")]))
    run(Case("console unknown file", "GET", "/admin/nothing-here.js", 404, extra=[problem_type("not-found"), csp]))
    run(Case("console unknown file", "HEAD", "/admin/nothing-here.js", 404))

    # Signing in: a token in the body, a cookie back.
    session = "/v1/admin/session"
    signed, created = run(Case("console sign-in", "POST", session, 201, headers={"Content-Type": "application/json"}, body=body({"token": token}),
                               extra=[body_field("a session", lambda b: b["authenticatedBy"] == "session")]))
    cookie = (signed.header("Set-Cookie") or "").split(";")[0]
    check("console sign-in: the cookie is not the token", bool(cookie) and token not in cookie, cookie)
    run(Case("console sign-in not a token", "POST", session, 401, headers={"Content-Type": "application/json"}, body=body({"token": "x" * 40}),
             extra=[problem_type("unauthorized"), problem_pointers("/token"), header_is("WWW-Authenticate", None)]))
    run(Case("console sign-in without a token", "POST", session, 422, headers={"Content-Type": "application/json"}, body=body({"secret": token}),
             extra=[problem_type("validation-failed"), problem_pointers("/token")]))
    run(Case("console sign-in not JSON", "POST", session, 400, headers={"Content-Type": "application/json"}, body=b"token", extra=[problem_type("invalid-json")]))
    run(Case("console sign-in not an object", "POST", session, 400, headers={"Content-Type": "application/json"}, body=b"[]", extra=[problem_type("invalid-json")]))
    run(Case("console sign-in as text", "POST", session, 415, headers={"Content-Type": "text/plain"}, body=body({"token": token}), extra=[problem_type("unsupported-media-type")]))
    run(Case("console sign-in from elsewhere", "POST", session, 403, headers={"Content-Type": "application/json", "Origin": "http://elsewhere.example"},
             body=body({"token": token}), extra=[problem_type("cross-origin-request")]))
    with_cookie = {"Cookie": cookie}
    run(Case("console session", "GET", session, 200, headers=with_cookie, extra=[body_field("the session", lambda b: b["authenticatedBy"] == "session" and b["expiresAt"] > b["createdAt"])]))
    run(Case("console session", "HEAD", session, 200, headers=with_cookie))
    run(Case("console session by token", "GET", session, 200, headers=auth, extra=[body_field("the token", lambda b: b["authenticatedBy"] == "token")]))
    run(Case("console session without credentials: nobody signed in", "GET", session, 204))
    run(Case("console session without credentials: nobody signed in", "HEAD", session, 204))
    run(Case("console session with an ended cookie", "GET", session, 401, headers={"Cookie": cookie.split("=")[0] + "=" + "A" * 43}, extra=[problem_type("unauthorized")]))
    run(Case("console session with a wrong token", "GET", session, 401, headers={"Authorization": "Bearer " + "x" * 40}, extra=[problem_type("unauthorized")]))
    # The cookie from elsewhere: refused.
    run(Case("console cookie from another site", "GET", "/v1/admin/catalogue", 403, headers={**with_cookie, "Sec-Fetch-Site": "cross-site"}, extra=[problem_type("cross-origin-request")]))
    run(Case("console cookie from another site", "HEAD", "/v1/admin/catalogue", 403, headers={**with_cookie, "Sec-Fetch-Site": "same-site"}))
    run(Case("console cookie change without Origin", "POST", "/v1/admin/preview", 403, headers={**with_cookie, "Content-Type": "application/json"},
             body=body({}), extra=[problem_type("cross-origin-request")]))

    # The catalogue.
    run(Case("console catalogue", "GET", "/v1/admin/catalogue?q=OFFLINE&pageSize=5", 200, headers=with_cookie,
             extra=[body_field("connectionRefused matches, with where", lambda b: any(i["id"] == "connectionRefused" and "match" in i for i in b["items"]))]))
    run(Case("console catalogue filters", "GET", "/v1/admin/catalogue?category=offline&missingLocale=it&lint=false&page=1", 200, headers=auth,
             extra=[body_field("offline templates without Italian", lambda b: all(i["category"] == "offline" and "it" not in i["locales"] for i in b["items"]))]))
    run(Case("console catalogue", "HEAD", "/v1/admin/catalogue?q=wifi", 200, headers=auth))
    run(Case("console catalogue bad category", "GET", "/v1/admin/catalogue?category=nope", 400, headers=auth, extra=[first_error_parameter("category")]))
    run(Case("console catalogue bad lint", "GET", "/v1/admin/catalogue?lint=yes", 400, headers=auth, extra=[first_error_parameter("lint")]))
    run(Case("console catalogue pseudo-locale", "GET", "/v1/admin/catalogue?missingLocale=en-XA", 400, headers=auth, extra=[first_error_parameter("missingLocale")]))

    # The preview.
    got = checker.client.send("GET", "/v1/admin/templates/connectionRefused", auth)
    document = json.loads(got.raw_body)["template"] if got.status == 200 else {}
    document["strings"]["fr"]["title"] = "Vous êtes hors ligne, et ce titre est bien trop long pour tenir sur deux lignes"
    run(Case("console preview", "POST", "/v1/admin/preview?locale=fr", 200, headers={**with_cookie, "Content-Type": "application/json", "Origin": own},
             body=body(document), extra=[body_field("drawn in French, the long title listed", lambda b: b["locale"] == "fr" and "<section" in b["html"]
                                                    and any(i["pointer"] == "/strings/fr/title" for i in b["issues"]))]))
    run(Case("console preview pseudo-locale", "POST", "/v1/admin/preview?locale=ar-XB&level=2&platform=ios", 200, headers=as_json, body=body(document),
             extra=[body_field("right to left", lambda b: b["direction"] == "rtl" and "<h2" in b["html"])]))
    run(Case("console preview too broken", "POST", "/v1/admin/preview", 422, headers=as_json, body=body({"id": "x"}), extra=[problem_type("validation-failed")]))
    run(Case("console preview bad locale", "POST", "/v1/admin/preview?locale=fr_FR!", 400, headers=as_json, body=body(document), extra=[first_error_parameter("locale")]))
    run(Case("console preview not an object", "POST", "/v1/admin/preview", 400, headers=as_json, body=b"[1]", extra=[problem_type("invalid-json")]))

    # Decisions.
    policy = {"minimumVersion": "5.0", "latestVersion": "5.3.0", "minimumOSVersion": "16.0", "blockedVersions": ["5.1.2"],
              "storeUrl": "https://apps.apple.com/app/id1", "rolloutPercentage": 25}
    run(Case("console decisions", "POST", "/v1/admin/app-policies/ios/decisions", 200, headers=as_json, body=body({"policy": policy}),
             extra=[body_field("5.1.2 must update", lambda b: any(r["appVersion"] == "5.1.2" and r["inRollout"] == "updateRequired" for r in b["rows"]))]))
    run(Case("console decisions samples", "POST", "/v1/admin/app-policies/android/decisions", 200, headers=as_json,
             body=body({"policy": {**policy, "rolloutPercentage": 100}, "samples": [{"appVersion": "5.2", "osVersion": "17"}]}),
             extra=[body_field("one row, no one outside the rollout", lambda b: len(b["rows"]) == 1 and b["rows"][0]["outsideRollout"] is None)]))
    run(Case("console decisions broken policy", "POST", "/v1/admin/app-policies/ios/decisions", 422, headers=as_json,
             body=body({"policy": {**policy, "minimumVersion": "9.0"}}), extra=[problem_type("validation-failed")]))
    run(Case("console decisions unknown platform", "POST", "/v1/admin/app-policies/windows/decisions", 404, headers=as_json,
             body=body({"policy": policy}), extra=[problem_type("unknown-app-policy")]))

    # The audit's filters and export.
    run(Case("console audit filters", "GET", "/v1/admin/audit?kind=template&action=import&actor=built-in&field=/strings/fr&from=2000-01-01T00:00:00Z&to=2999-01-01T00:00:00Z", 200,
             headers=auth, extra=[body_field("imports by built-in", lambda b: all(i["action"] == "import" and i["createdBy"] == "built-in" for i in b["items"]))]))
    run(Case("console audit bad action", "GET", "/v1/admin/audit?action=frobnicate", 400, headers=auth, extra=[first_error_parameter("action")]))
    run(Case("console audit from after to", "GET", "/v1/admin/audit?from=2030-01-01T00:00:00Z&to=2020-01-01T00:00:00Z", 400, headers=auth, extra=[first_error_parameter("from")]))
    run(Case("console audit export", "GET", "/v1/admin/audit/export?action=import", 200, headers=with_cookie, extra=[header_is("Content-Type", "application/x-ndjson")]))
    run(Case("console audit export CSV", "GET", "/v1/admin/audit/export?format=csv&kind=template", 200, headers=auth,
             extra=[body_field("a header line", lambda b: b.startswith("createdAt,createdBy,kind,id,revision,action,changedFields\r\n"))]))
    run(Case("console audit export", "HEAD", "/v1/admin/audit/export?format=csv", 200, headers=auth))
    run(Case("console audit export bad format", "GET", "/v1/admin/audit/export?format=xml", 400, headers=auth, extra=[first_error_parameter("format")]))

    # Signing out ends the session.
    run(Case("console sign-out from elsewhere", "DELETE", session, 403, headers={**with_cookie, "Origin": "http://elsewhere.example"}, extra=[problem_type("cross-origin-request")]))
    run(Case("console sign-out", "DELETE", session, 204, headers={**with_cookie, "Origin": own}, extra=[header_is("Set-Cookie", lambda v: bool(v) and "Max-Age=0" in v, "clears the cookie")]))
    run(Case("console after sign-out", "GET", session, 401, headers=with_cookie, extra=[problem_type("unauthorized"), header_is("Set-Cookie", lambda v: bool(v) and "Max-Age=0" in v, "clears the cookie")]))
    run(Case("console sign-out by token", "DELETE", session, 204, headers=auth))
    run(Case("console sign-out without credentials", "DELETE", session, 401, extra=[problem_type("unauthorized")]))
    run(Case("console session method not allowed", "PUT", session, 405, headers=as_json, body=b"{}", extra=[allow_is("GET", "HEAD", "POST", "DELETE")]))


# ---------------------------------------------------------------------------------------------
# Analytics events: POST /v1/events (no token), and with a token the admin summary and export


EVENT_TEMPLATE = "connectionRefused"  # a built-in template…
EVENT_ACTION = "retry"  # …and one of its actions


def rfc3339(moment: datetime) -> str:
    """RFC 3339 in UTC with milliseconds, as apps send it."""
    moment = moment.astimezone(timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def parse_rfc3339(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


@dataclass
class EventRun:
    """What run_events stored, for run_analytics to find again."""

    app_version: str
    stored: dict[str, dict[str, Any]]  # id → the event as sent
    skewed_id: str
    not_stored: list[str]
    sent_at: datetime


def run_events(checker: Checker, body_limit: int) -> EventRun:
    """POST /v1/events: a batch with good, duplicate and bad events, a single event, and what is refused."""
    run = checker.run
    as_json = {"Content-Type": "application/json"}

    def body(value: Any) -> bytes:
        return json.dumps(value, ensure_ascii=False).encode("utf-8")

    # The copy the "app" shows, and its ETag: the events say which copy was shown.
    shown = checker.client.send("GET", f"/v1/templates/{EVENT_TEMPLATE}?locale=fr&platform=ios")
    etag = shown.header("ETag") if shown.status == 200 else None
    app_version = f"openapi-check-{secrets.token_hex(4)}"
    session = secrets.token_hex(8)
    started = datetime.now(timezone.utc)
    now = rfc3339(started)
    print(f"events: appVersion {app_version}")

    def event(kind: str = "displayed", **members: Any) -> dict[str, Any]:
        value: dict[str, Any] = {
            "id": str(uuid.uuid4()),
            "type": kind,
            "templateId": EVENT_TEMPLATE,
            "revision": 1,
            "locale": "fr",
            "platform": "ios",
            "appVersion": app_version,
            "sessionId": session,
            "occurredAt": now,
        }
        if etag:
            value["etag"] = etag
        if kind == "actionTapped":
            value["actionId"] = EVENT_ACTION
        value.update(members)
        return {key: member for key, member in value.items() if member is not None}

    def counts(accepted: int, duplicates: int, rejected: list[int]):
        return body_field(
            f"accepted {accepted}, duplicates {duplicates}, rejected {rejected}",
            lambda b: b["accepted"] == accepted and b["duplicates"] == duplicates and [r["index"] for r in b["rejected"]] == rejected,
        )

    def reason_starts(index: int, prefix: str):
        return body_field(
            f"rejected[{index}] reason starts with {prefix}",
            lambda b: next((r for r in b["rejected"] if r["index"] == index), {}).get("reason", "").startswith(prefix),
        )

    displayed = event()
    tapped = event("actionTapped")
    bad = event("actionTapped", actionId="noSuchAction")
    batch = {"events": [displayed, tapped, dict(displayed), bad]}
    run(Case("events batch", "POST", "/v1/events", 202, headers=as_json, body=body(batch), extra=[counts(2, 1, [3]), reason_starts(3, "/events/3/actionId"), header_is("Cache-Control", "no-store")]))
    run(Case("events batch retried", "POST", "/v1/events", 202, headers=as_json, body=body(batch), extra=[counts(0, 3, [3])]))

    single = event(sentAt=now)
    run(Case("events single", "POST", "/v1/events", 202, headers={**as_json, "X-Request-ID": "openapi-check-events"}, body=body(single), extra=[counts(1, 0, []), header_is("X-Request-ID", "openapi-check-events")]))
    # A device whose clock is an hour ahead: sentAt corrects occurredAt to the server's time.
    ahead = rfc3339(started + timedelta(hours=1))
    skewed = event(occurredAt=ahead, sentAt=ahead)
    run(Case("events clock skew", "POST", "/v1/events", 202, headers={**as_json, "Content-Type": "application/json; charset=utf-8"}, body=body(skewed), extra=[counts(1, 0, [])]))
    future = event(occurredAt=ahead)
    run(Case("events in the future", "POST", "/v1/events", 202, headers=as_json, body=body(future), extra=[counts(0, 0, [0]), reason_starts(0, "/occurredAt")]))
    unshown = event(revision=None, etag=None)
    run(Case("events no revision or etag", "POST", "/v1/events", 202, headers=as_json, body=body(unshown), extra=[counts(0, 0, [0]), reason_starts(0, "/revision")]))

    # Refused requests store nothing.
    refused = event()
    run(Case("events not JSON type", "POST", "/v1/events", 415, headers={"Content-Type": "text/plain"}, body=body(refused), extra=[problem_type("unsupported-media-type")]))
    run(Case("events malformed JSON", "POST", "/v1/events", 400, headers=as_json, body=b'{"events": [', extra=[problem_type("invalid-json")]))
    run(Case("events not an event shape", "POST", "/v1/events", 400, headers=as_json, body=body([refused]), extra=[problem_type("invalid-body"), problem_pointers("")]))
    run(Case("events not an array", "POST", "/v1/events", 400, headers=as_json, body=body({"events": refused}), extra=[problem_type("invalid-body"), problem_pointers("/events")]))
    run(Case("events over 500", "POST", "/v1/events", 413, headers=as_json, body=body({"events": [{}] * 501}), extra=[problem_type("payload-too-large"), problem_pointers("")]))
    if body_limit > 0:
        run(Case("events body over the server limit", "POST", "/v1/events", 413, oversized=body_limit + 1, extra=[problem_type("payload-too-large")]))
    run(Case("events method not allowed", "GET", "/v1/events", 405, extra=[problem_type("method-not-allowed"), allow_is("POST", "OPTIONS")]))
    run(Case("events method not allowed", "HEAD", "/v1/events", 405, extra=[allow_is("POST", "OPTIONS")]))
    run(
        Case(
            "events CORS preflight",
            "OPTIONS",
            "/v1/events",
            204,
            headers={"Origin": "https://shop.example", "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type"},
            extra=[header_is("Access-Control-Allow-Origin", "*"), header_is("Access-Control-Allow-Headers", "Content-Type, X-Preview-Token")],
        )
    )

    stored = {e["id"]: e for e in (displayed, tapped, single, skewed)}
    not_stored = [bad["id"], future["id"], unshown["id"], refused["id"]]
    return EventRun(app_version, stored, skewed["id"], not_stored, started)


def run_analytics(checker: Checker, token: str, events: EventRun) -> None:
    """The admin summary (every groupBy, a window, bad parameters) and the NDJSON export, paged."""
    run = checker.run
    check = checker.report.check
    auth = {"Authorization": f"Bearer {token}"}
    summary = "/v1/admin/analytics/summary"
    export = "/v1/admin/analytics/events"
    challenge = header_is("WWW-Authenticate", 'Bearer realm="empty-state-admin"')
    mine = events.app_version

    run(Case("analytics no token", "GET", summary, 401, extra=[problem_type("unauthorized"), challenge]))
    run(Case("analytics no token", "HEAD", summary, 401, extra=[challenge]))
    run(Case("analytics no token", "GET", export, 401, extra=[problem_type("unauthorized"), challenge]))
    run(Case("analytics wrong token", "GET", export, 401, headers={"Authorization": "Bearer " + "0" * 64}, extra=[problem_type("unauthorized")]))

    def group(body: Any, key: str) -> dict[str, Any]:
        return next((g for g in body["groups"] if g["key"] == key), {})

    run(
        Case(
            "analytics summary",
            "GET",
            summary,
            200,
            headers=auth,
            extra=[
                header_is("Cache-Control", "no-store"),
                body_field("no groupBy, no groups", lambda b: b["groupBy"] is None and b["groups"] == [] and b["templateId"] is None),
                body_field("totals count this run", lambda b: b["totals"]["displays"] >= 3 and b["totals"]["tapsByAction"].get(EVENT_ACTION, 0) >= 1),
                # 7 days in whole hours: the hour of `now - 7 days` to the end of the current hour.
                body_field("the window is 7 days, in whole hours", lambda b: parse_rfc3339(b["to"]) - parse_rfc3339(b["from"]) in (timedelta(days=7), timedelta(days=7, hours=1)) and parse_rfc3339(b["from"]).minute == 0),
            ],
        )
    )
    run(Case("analytics summary", "HEAD", summary, 200, headers=auth))
    groupings = checker.spec.doc["components"]["schemas"]["AnalyticsGrouping"]["enum"]
    today = events.sent_at.strftime("%Y-%m-%d")
    expected_key = {"template": EVENT_TEMPLATE, "action": EVENT_ACTION, "locale": "fr", "platform": "ios", "appVersion": mine, "day": today}
    for grouping in groupings:
        extra = [body_field(f"groupBy is {grouping}", lambda b, g=grouping: b["groupBy"] == g)]
        if grouping in expected_key:
            key = expected_key[grouping]
            extra.append(body_field(f"a group {key!r}", lambda b, k=key: any(g["key"] == k for g in b["groups"])))
        if grouping == "appVersion":
            extra.append(
                body_field(
                    "this run: 3 displays, 1 tap on retry, rate 0.3333",
                    lambda b: (lambda g: (g["displays"], g["taps"], g["tapsByAction"], g["tapThroughRate"]) == (3, 1, {EVENT_ACTION: 1}, 0.3333))(group(b, mine)),
                )
            )
        if grouping == "action":
            extra.append(body_field("displays count in totals only", lambda b: all(g["displays"] == 0 for g in b["groups"]) and b["totals"]["displays"] > 0))
        run(Case(f"analytics summary by {grouping}", "GET", f"{summary}?groupBy={grouping}", 200, headers=auth, extra=extra))

    def hour_floor(text):
        return rfc3339(parse_rfc3339(text).replace(minute=0, second=0, microsecond=0))

    def hour_ceil(text):
        moment = parse_rfc3339(text)
        floor = moment.replace(minute=0, second=0, microsecond=0)
        return rfc3339(floor if floor == moment else floor + timedelta(hours=1))

    start = rfc3339(events.sent_at - timedelta(minutes=10))
    end = rfc3339(datetime.now(timezone.utc) + timedelta(minutes=10))
    window = f"{summary}?from={start}&to={end}&templateId={EVENT_TEMPLATE}&groupBy=appVersion"
    run(
        Case(
            "analytics summary window",
            "GET",
            window,
            200,
            headers=auth,
            extra=[
                body_field("echoes from and to in whole hours, and templateId", lambda b: (b["from"], b["to"], b["templateId"]) == (hour_floor(start), hour_ceil(end), EVENT_TEMPLATE)),
                body_field("this run: 3 displays, 1 tap", lambda b: (group(b, mine)["displays"], group(b, mine)["taps"]) == (3, 1)),
            ],
        )
    )
    run(
        Case(
            "analytics summary empty window",
            "GET",
            f"{summary}?from=2001-01-01T00:00:00Z&to=2001-01-02T00:00:00%2B01:00&groupBy=locale",
            200,
            headers=auth,
            extra=[body_field("nothing counted", lambda b: b["totals"] == {"displays": 0, "taps": 0, "tapThroughRate": 0, "tapsByAction": {}} and b["groups"] == [])],
        )
    )
    run(Case("analytics summary bad groupBy", "GET", f"{summary}?groupBy=weekday", 400, headers=auth, extra=[problem_type("invalid-parameter"), first_error_parameter("groupBy")]))
    run(Case("analytics summary bad groupBy", "HEAD", f"{summary}?groupBy=weekday", 400, headers=auth))
    run(Case("analytics summary bad from", "GET", f"{summary}?from=yesterday", 400, headers=auth, extra=[problem_type("invalid-parameter"), first_error_parameter("from")]))
    run(Case("analytics summary from after to", "GET", f"{summary}?from={end}&to={start}", 400, headers=auth, extra=[problem_type("invalid-parameter"), first_error_parameter("from")]))
    run(Case("analytics method not allowed", "POST", summary, 405, headers={**auth, "Content-Type": "application/json"}, body=b"{}", extra=[allow_is("GET", "HEAD")]))

    # The export: one line, then page on from its cursor until this run's events are all seen.
    def cursor_follows(after: int, limit: int):
        def expectation(response: Response, lines: Any) -> tuple[str, bool, str]:
            cursors = [line["cursor"] for line in lines or []]
            ok = cursors == sorted(set(cursors)) and all(c > after for c in cursors) and len(cursors) <= limit
            ok = ok and response.header("X-Next-Cursor") == str(cursors[-1] if cursors else after)
            return f"cursors after {after}, increasing, at most {limit}; X-Next-Cursor is the last", ok, f"cursors {cursors[:5]}… X-Next-Cursor {response.header('X-Next-Cursor')!r}"

        return expectation

    first, lines = run(Case("analytics export", "GET", f"{export}?limit=1", 200, headers=auth, extra=[cursor_follows(0, 1), body_field("one line", lambda b: len(b) == 1)]))
    run(Case("analytics export", "HEAD", f"{export}?limit=1", 200, headers=auth, extra=[header_is("X-Next-Cursor", first.header("X-Next-Cursor"), "equals the GET's")]))
    seen: dict[str, dict[str, Any]] = {line["id"]: line for line in lines} if isinstance(lines, list) else {}
    after = int(first.header("X-Next-Cursor") or 0)
    for _ in range(100):
        if set(events.stored) <= set(seen):
            break
        response, page = run(Case("analytics export page", "GET", f"{export}?after={after}&limit=1000", 200, headers=auth, extra=[cursor_follows(after, 1000)]))
        if not isinstance(page, list) or not page:
            break
        seen.update((line["id"], line) for line in page)
        after = int(response.header("X-Next-Cursor") or after)
    check("analytics export: this run's stored events are exported", set(events.stored) <= set(seen), f"missing {sorted(set(events.stored) - set(seen))}")
    check("analytics export: rejected and refused events are not", not set(events.not_stored) & set(seen), f"exported {sorted(set(events.not_stored) & set(seen))}")
    if set(events.stored) <= set(seen):
        for event_id, sent in events.stored.items():
            line = seen[event_id]
            same = all(line.get(name) == sent.get(name) for name in ("type", "templateId", "revision", "etag", "locale", "platform", "appVersion", "actionId", "sessionId"))
            check(f"analytics export: {sent['type']} {event_id} is exported as sent", same, json.dumps(line)[:300])
        skewed = seen[events.skewed_id]
        corrected = abs(parse_rfc3339(skewed["occurredAt"]) - parse_rfc3339(skewed["receivedAt"])) < timedelta(minutes=1)
        check("analytics export: sentAt corrected the clock skew", corrected and -3_660_000 < skewed["clockSkewMs"] < -3_540_000, json.dumps(skewed))
    far = 9_000_000_000_000_000_000
    run(Case("analytics export past the end", "GET", f"{export}?after={far}", 200, headers=auth, extra=[body_field("no lines", lambda b: b == []), header_is("X-Next-Cursor", str(far))]))
    run(Case("analytics export bad limit", "GET", f"{export}?limit=0", 400, headers=auth, extra=[problem_type("invalid-parameter"), first_error_parameter("limit")]))
    run(Case("analytics export limit too big", "GET", f"{export}?limit=10001", 400, headers=auth, extra=[problem_type("invalid-parameter"), first_error_parameter("limit")]))
    run(Case("analytics export bad after", "GET", f"{export}?after=-1", 400, headers=auth, extra=[problem_type("invalid-parameter"), first_error_parameter("after")]))
    run(Case("analytics export bad after", "HEAD", f"{export}?after=x", 400, headers=auth))
    run(Case("analytics method not allowed", "DELETE", export, 405, headers=auth, extra=[allow_is("GET", "HEAD")]))


def run_app_status(checker: Checker, token: str) -> None:
    """App policies (the web platform's: created, or replaced when a policy exists) and every
    answer of GET /v1/app-status, then the policy's revisions, a rollback and the audit filter."""
    run = checker.run
    auth = {"Authorization": f"Bearer {token}"}
    as_json = {**auth, "Content-Type": "application/json"}
    one = "/v1/admin/app-policies/web"
    policy = {
        "minimumVersion": "2.0",
        "latestVersion": "2.3.0",
        "minimumOSVersion": "10",
        "blockedVersions": ["2.1.0"],
        "storeUrl": "https://example.com/store/app",
        "rolloutPercentage": 100,
        "askAgainAfterSeconds": 3600,
    }
    data = json.dumps(policy).encode("utf-8")

    def state_is(state: str):
        return body_field(f"state is {state}", lambda body: body["state"] == state)

    existing, _ = run(Case("app policy", "GET", one, (200, 404), headers=auth))
    if existing.status == 404:
        run(Case("app policy unknown", "GET", one, 404, headers=auth, extra=[problem_type("unknown-app-policy")]))
        written, _ = run(Case("app policy create", "PUT", one, 201, headers={**as_json, "If-None-Match": "*"}, body=data, extra=[header_is("Location", one)]))
    else:
        written, _ = run(Case("app policy replace", "PUT", one, 200, headers={**as_json, "If-Match": existing.header("ETag") or ""}, body=data))
    tag = written.header("ETag") or '"r1"'
    revision = int(tag.strip('"r') or 1)
    run(Case("app policy", "GET", one, 200, headers=auth, extra=[header_is("ETag", tag), body_field("policy as written", lambda body: body["policy"]["latestVersion"] == "2.3.0")]))
    run(Case("app policy", "HEAD", one, 200, headers=auth))
    run(Case("app policy revalidated", "GET", one, 304, headers={**auth, "If-None-Match": tag}))
    run(Case("app policy validateOnly", "PUT", one + "?validateOnly=true", 200, headers=as_json, body=data, extra=[body_field("valid", lambda body: body["valid"] is True)]))
    run(Case("app policy no precondition", "PUT", one, 428, headers=as_json, body=data, extra=[problem_type("precondition-required")]))
    run(Case("app policy stale", "PUT", one, 412, headers={**as_json, "If-Match": '"r999999"'}, body=data, extra=[header_is("ETag", tag)]))
    run(Case("app policy exists", "PUT", one, 412, headers={**as_json, "If-None-Match": "*"}, body=data))
    bad = {**policy, "minimumVersion": "2.4", "storeUrl": "http://example.com", "blockedVersions": ["2.x"]}
    run(
        Case(
            "app policy invalid",
            "PUT",
            one,
            422,
            headers={**as_json, "If-Match": tag},
            body=json.dumps(bad).encode("utf-8"),
            extra=[problem_pointers("/minimumVersion", "/blockedVersions/0", "/storeUrl")],
        )
    )
    run(Case("app policy not JSON", "PUT", one, 400, headers={**as_json, "If-Match": tag}, body=b"{"))
    run(Case("app policy not application/json", "PUT", one, 415, headers={**auth, "Content-Type": "text/plain", "If-Match": tag}, body=data))
    run(Case("app policy unknown platform", "GET", "/v1/admin/app-policies/tvos", 404, headers=auth, extra=[problem_type("unknown-app-policy")]))
    run(Case("app policy no token", "GET", one, 401))

    # The client answers, each state, revalidation.
    base = "/v1/app-status?platform=web"
    required, _ = run(Case("app status required", "GET", base + "&appVersion=1.9&locale=fr", 200, extra=[state_is("updateRequired"), body_field("store URL in the update action", lambda body: body["template"]["actions"][0]["target"] == policy["storeUrl"]), header_is("Vary", "Accept-Encoding")]))
    run(Case("app status revalidated", "GET", base + "&appVersion=1.9&locale=fr", 304, headers={"If-None-Match": required.header("ETag") or ""}))
    run(Case("app status required", "HEAD", base + "&appVersion=1.9&locale=fr", 200))
    run(Case("app status blocked", "GET", base + "&appVersion=2.1", 200, headers={"Accept-Language": "ja"}, extra=[state_is("updateRequired"), vary_lists("Accept-Language")]))
    run(Case("app status available", "GET", base + "&appVersion=2.2.9&locale=de&instanceId=abc", 200, extra=[state_is("updateAvailable"), body_field("askAgainAfterSeconds", lambda body: body["askAgainAfterSeconds"] == 3600)]))
    run(Case("app status os", "GET", base + "&appVersion=2.3&osVersion=9.3&locale=es", 200, extra=[state_is("osUpdateRequired")]))
    current, _ = run(Case("app status ok", "GET", base + "&appVersion=2.10.0", 200, headers={"Accept-Encoding": "gzip"}, extra=[state_is("ok"), header_is("Content-Language", None)]))
    run(Case("app status ok revalidated", "GET", base + "&appVersion=2.10.0", 304, headers={"Accept-Encoding": "gzip", "If-None-Match": current.header("ETag") or ""}))
    run(Case("app status ok", "HEAD", base + "&appVersion=2.10.0", 200))
    run(Case("app status bad version", "GET", base + "&appVersion=1.x", 400, extra=[problem_type("invalid-parameter"), first_error_parameter("appVersion")]))
    run(Case("app status no platform", "GET", "/v1/app-status?appVersion=1", 400, extra=[first_error_parameter("platform")]))
    run(Case("app status bad version", "HEAD", base + "&appVersion=01", 400))
    run(Case("app status method", "POST", base + "&appVersion=1", 405, headers={"Content-Type": "text/plain"}, body=b"x"))

    # History: revisions, one revision, rollback to what was written here, the audit filter.
    revisions = one + "/revisions"
    run(Case("app policy revisions", "GET", revisions + "?pageSize=5", 200, headers=auth, extra=[body_field("newest first", lambda body: body["items"][0]["appPolicy"] == "web")]))
    run(Case("app policy revisions", "HEAD", revisions, 200, headers=auth))
    run(Case("app policy revision", "GET", f"{revisions}/{revision}", 200, headers=auth, extra=[body_field("has the policy", lambda body: body["policy"]["storeUrl"] == policy["storeUrl"])]))
    run(Case("app policy revision", "HEAD", f"{revisions}/{revision}", 200, headers=auth))
    run(Case("app policy no such revision", "GET", f"{revisions}/999999", 404, headers=auth, extra=[problem_type("unknown-revision")]))
    run(Case("app policy bad revision", "GET", f"{revisions}/x", 400, headers=auth))
    rollback = json.dumps({"revision": revision}).encode("utf-8")
    run(Case("app policy rollback", "POST", one + "/rollback", 200, headers=as_json, body=rollback, extra=[body_field("restored", lambda body: body["policy"]["latestVersion"] == "2.3.0")]))
    run(Case("app policy rollback invalid", "POST", one + "/rollback", 422, headers=as_json, body=b'{"revision": 0}'))
    run(Case("app policy rollback stale", "POST", one + "/rollback", 412, headers={**as_json, "If-Match": '"r999999"'}, body=rollback))
    run(Case("audit of a policy", "GET", "/v1/admin/audit?appPolicy=web&pageSize=3", 200, headers=auth, extra=[body_field("policy entries", lambda body: all(item["appPolicy"] == "web" for item in body["items"]))]))
    run(Case("audit of a policy", "GET", "/v1/admin/audit?appPolicy=tvos", 400, headers=auth, extra=[first_error_parameter("appPolicy")]))
    run(Case("update states summary", "GET", "/v1/admin/analytics/summary?include=updateStates", 200, headers=auth, extra=[body_field("has updateStates", lambda body: isinstance(body["updateStates"], list))]))
    run(Case("update states summary", "GET", "/v1/admin/analytics/summary?include=everything", 400, headers=auth, extra=[first_error_parameter("include")]))


def run_change_requests(checker: Checker, token: str) -> None:
    """The review rules (read, refused writes, rewritten as they were) and a change request's
    life with one (admin) token: it creates a scratch template, is read, commented on, refused
    its author's approval, edited, published, rolled back by a second request (which deletes the
    template again); every answer judged against the document."""
    run = checker.run
    auth = {"Authorization": f"Bearer {token}"}
    as_json = {**auth, "Content-Type": "application/json"}

    def body(value: Any) -> bytes:
        return json.dumps(value, ensure_ascii=False).encode("utf-8")

    rules_path = "/v1/admin/review-rules"
    rules, parsed = run(Case("review rules", "GET", rules_path, 200, headers=auth))
    tag = rules.header("ETag") or '"r0"'
    run(Case("review rules", "HEAD", rules_path, 200, headers=auth, extra=[header_is("ETag", tag)]))
    run(Case("review rules revalidated", "GET", rules_path, 304, headers={**auth, "If-None-Match": tag}))
    current = {key: parsed[key] for key in ("requiredApprovals", "categories", "allowEmergencyRollback")} if parsed else {"requiredApprovals": 0}
    run(Case("review rules no precondition", "PUT", rules_path, 428, headers=as_json, body=body(current), extra=[problem_type("precondition-required")]))
    run(Case("review rules stale", "PUT", rules_path, 412, headers={**as_json, "If-Match": '"r999999"'}, body=body(current)))
    run(Case("review rules invalid", "PUT", rules_path, 422, headers={**as_json, "If-Match": tag}, body=body({"requiredApprovals": 11, "categories": {"nope": 1}}), extra=[problem_pointers("/requiredApprovals", "/categories/nope")]))
    run(Case("review rules rewritten", "PUT", rules_path, 200, headers={**as_json, "If-Match": tag}, body=body(current)))

    base = "/v1/admin/change-requests"
    tid = f"crCheck{secrets.token_hex(4)}"
    template = {
        "id": tid,
        "category": "error",
        "style": "default",
        "defaultLocale": "en",
        "visual": {"icon": {"ios": "exclamationmark.triangle", "android": "error", "web": "triangle-alert"}},
        "actions": [{"id": "retry", "role": "primary", "type": "retry"}, {"id": "back", "role": "secondary", "type": "navigateBack"}],
        "strings": {"en": {"title": "Not yet", "message": "Try again soon.", "actions.retry": "Try again", "actions.back": "Go back"}},
    }
    draft = {"title": f"Add {tid}", "description": "openapi_check", "changes": [{"kind": "template", "id": tid, "document": template}]}
    run(Case("change request invalid", "POST", base, 422, headers=as_json, body=body({"title": "x", "changes": [{"kind": "template", "id": tid, "document": {"id": tid}}]}), extra=[problem_type("validation-failed")]))
    run(Case("change request no token", "GET", base, 401))
    created, opened = run(Case("change request open", "POST", base, 201, headers=as_json, body=body(draft)))
    if not opened:
        return
    one = f"{base}/{opened['id']}"
    run(Case("change request", "GET", one, 200, headers=auth, extra=[body_field("open, one change", lambda b: b["state"] in ("open", "approved") and len(b["changes"]) == 1)]))
    run(Case("change request", "HEAD", one, 200, headers=auth))
    run(Case("change request revalidated", "GET", one, 304, headers={**auth, "If-None-Match": created.header("ETag") or ""}))
    run(Case("change request list", "GET", f"{base}?state=open&target=template:{tid}", 200, headers=auth, extra=[body_field("lists it", lambda b: [i["id"] for i in b["items"]] == [opened["id"]])]))
    run(Case("change request list", "HEAD", base, 200, headers=auth))
    run(Case("change request list bad state", "GET", f"{base}?state=approved", 400, headers=auth, extra=[first_error_parameter("state")]))
    run(Case("change request unknown", "GET", f"{base}/999999999", 404, headers=auth, extra=[problem_type("unknown-change-request")]))
    commented, _ = run(Case("change request comment", "POST", one + "/comments", 201, headers=as_json, body=body({"text": "openapi_check was here"})))
    run(Case("change request own approval", "POST", one + "/approve", 403, headers=as_json, body=body({"version": 1}), extra=[problem_type("own-change")]))
    run(Case("change request stale version", "POST", one + "/reject", 409, headers=as_json, body=body({"version": 99}), extra=[problem_type("stale-version")]))
    run(Case("change request edit no precondition", "PATCH", one, 428, headers=as_json, body=body({"title": "y"})))
    edited, _ = run(Case("change request edit", "PATCH", one, 200, headers={**as_json, "If-Match": commented.header("ETag") or ""}, body=body({"description": "openapi_check, edited"}), extra=[body_field("version 2", lambda b: b["version"] == 2)]))
    rebased, _ = run(Case("change request rebase", "POST", one + "/rebase", 200, headers={**auth, "If-Match": edited.header("ETag") or ""}))
    if current.get("requiredApprovals", 0) != 0 or current.get("categories"):
        return  # this server's rules ask for approvals: one token cannot publish
    later = datetime.fromtimestamp(datetime.now(timezone.utc).timestamp() + 3600, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    earlier = datetime.fromtimestamp(datetime.now(timezone.utc).timestamp() - 3600, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    schedule = one + "/schedule"
    run(Case("change request schedule in the past", "PUT", schedule, 422, headers={**as_json, "If-Match": rebased.header("ETag") or ""}, body=body({"at": earlier}), extra=[problem_pointers("/at")]))
    scheduled, _ = run(Case("change request schedule", "PUT", schedule, 200, headers={**as_json, "If-Match": rebased.header("ETag") or ""}, body=body({"at": later}), extra=[body_field("scheduled", lambda b: b["schedule"]["at"].startswith(later[:19]))]))
    unscheduled, _ = run(Case("change request unschedule", "DELETE", schedule, 200, headers={**auth, "If-Match": scheduled.header("ETag") or ""}, extra=[body_field("no schedule", lambda b: "schedule" not in b)]))
    run(Case("change request unschedule twice", "DELETE", schedule, 409, headers={**auth, "If-Match": unscheduled.header("ETag") or ""}, extra=[problem_type("not-scheduled")]))
    published, _ = run(Case("change request publish", "POST", one + "/publish", 200, headers={**auth, "If-Match": unscheduled.header("ETag") or ""}, extra=[body_field("published", lambda b: b["state"] == "published")]))
    run(Case("change request closed", "POST", one + "/withdraw", 409, headers={**auth, "If-Match": published.header("ETag") or ""}, extra=[problem_type("change-request-closed")]))
    run(Case("published template served", "GET", f"/v1/templates/{tid}?locale=en", 200))
    _, undo = run(Case("change request rollback", "POST", one + "/rollback", 201, headers=auth, extra=[body_field("rolls it back", lambda b: b["rollbackOf"] == opened["id"])]))
    if undo:
        undo_one = f"{base}/{undo['id']}"
        read, _ = run(Case("rollback request", "GET", undo_one, 200, headers=auth))
        run(Case("rollback publish", "POST", undo_one + "/publish", 200, headers={**as_json, "If-Match": read.header("ETag") or ""}, body=b"{}"))
        run(Case("rolled back template gone", "GET", f"/v1/templates/{tid}", 404))
    run(Case("change request rollback twice", "POST", one + "/rollback", 409, headers=auth, extra=[problem_type("nothing-to-roll-back")]))
    run(Case("audit of a change request", "GET", f"/v1/admin/audit?templateId=change-request:{opened['id']}", 200, headers=auth, extra=[body_field("its actions", lambda b: all(i["changeRequest"] == opened["id"] for i in b["items"]) and b["total"] >= 5)]))

def run_webhooks(checker: Checker, token: str) -> None:
    """Exercises every webhook operation on a scratch subscription (to a public name under
    .invalid, which never resolves: its deliveries fail at DNS, off the request path), then
    deletes it."""
    run = checker.run
    auth = {"Authorization": f"Bearer {token}"}
    as_json = {**auth, "Content-Type": "application/json"}
    base = "/v1/admin/webhooks"
    subscription = {"url": "https://hooks.openapi-check.invalid/x", "events": ["appPolicy.published"], "description": "openapi check"}
    run(Case("webhooks", "GET", base, 200, auth))
    run(Case("webhooks", "HEAD", base, 200, auth))
    run(Case("webhooks unauthenticated", "GET", base, 401))
    run(Case("webhook bad url", "POST", base, 422, as_json, json.dumps({**subscription, "url": "http://hooks.example.com/x"}).encode(), extra=[problem_pointers("/url")]))
    run(Case("webhook unknown event", "POST", base, 422, as_json, json.dumps({**subscription, "events": ["nope"]}).encode(), extra=[problem_pointers("/events/0")]))
    run(Case("webhook not json", "POST", base, 400, as_json, b"{"))
    run(Case("webhook not an object", "POST", base, 400, as_json, b"[]"))
    run(Case("webhook wrong media type", "POST", base, 415, {**auth, "Content-Type": "text/plain"}, b"x"))
    response, created = run(Case("webhook create", "POST", base, 201, as_json, json.dumps(subscription).encode()))
    if not isinstance(created, dict) or "id" not in created:
        return
    one = f"{base}/{created['id']}"
    run(Case("webhook", "GET", one, 200, auth, extra=[header_is("ETag", '"r1"')]))
    run(Case("webhook", "HEAD", one, 200, auth))
    run(Case("webhook revalidated", "GET", one, 304, {**auth, "If-None-Match": '"r1"'}))
    run(Case("webhook unknown", "GET", f"{base}/wh_00000000000000000000", 404, auth, extra=[problem_type("unknown-webhook")]))
    run(Case("webhook change without If-Match", "PUT", one, 428, as_json, json.dumps(subscription).encode()))
    run(Case("webhook change stale", "PUT", one, 412, {**as_json, "If-Match": '"r9"'}, json.dumps(subscription).encode()))
    run(Case("webhook change invalid", "PUT", one, 422, {**as_json, "If-Match": '"r1"'}, json.dumps({**subscription, "enabled": "yes"}).encode()))
    run(Case("webhook change", "PUT", one, 200, {**as_json, "If-Match": '"r1"'}, json.dumps({**subscription, "enabled": False}).encode()))
    run(Case("webhook rotate invalid", "POST", f"{one}/rotate-secret", 422, {**as_json, "If-Match": '"r2"'}, json.dumps({"previousSecretValidForSeconds": -1}).encode()))
    run(Case("webhook rotate without If-Match", "POST", f"{one}/rotate-secret", 428, auth))
    run(Case("webhook rotate", "POST", f"{one}/rotate-secret", 200, {**auth, "If-Match": '"r2"'}))
    run(Case("audit with webhook revisions", "GET", "/v1/admin/audit?pageSize=5", 200, auth,
             extra=[body_field("the newest is the webhook's rotation", lambda b: b["items"][0].get("webhook") == created["id"] and b["items"][0]["changedFields"] == ["/secret"])]))
    run(Case("audit export with webhook revisions", "GET", "/v1/admin/audit/export?format=csv", 200, auth))
    _, ping = run(Case("webhook ping", "POST", f"{one}/ping", 202, auth))
    run(Case("webhook deliveries", "GET", f"{one}/deliveries", 200, auth))
    run(Case("webhook deliveries", "HEAD", f"{one}/deliveries", 200, auth))
    run(Case("webhook deliveries filtered", "GET", f"{one}/deliveries?status=pending&page=1&pageSize=10", 200, auth))
    run(Case("webhook deliveries bad status", "GET", f"{one}/deliveries?status=done", 400, auth, extra=[first_error_parameter("status")]))
    run(Case("webhook deliveries unknown webhook", "GET", f"{base}/wh_00000000000000000000/deliveries", 404, auth))
    if isinstance(ping, dict) and "id" in ping:
        run(Case("webhook delivery", "GET", f"{one}/deliveries/{ping['id']}", 200, auth))
        run(Case("webhook delivery", "HEAD", f"{one}/deliveries/{ping['id']}", 200, auth))
        run(Case("webhook redeliver", "POST", f"{one}/deliveries/{ping['id']}/redeliver", 202, auth))
    run(Case("webhook delivery unknown", "GET", f"{one}/deliveries/dlv_000000000000000000000000", 404, auth, extra=[problem_type("unknown-delivery")]))
    run(Case("webhook delete without If-Match", "DELETE", one, 428, auth))
    run(Case("webhook delete", "DELETE", one, 204, {**auth, "If-Match": '"r3"'}))
    run(Case("webhook deleted", "GET", one, 404, auth))


def run_tokens(checker: Checker, token: str) -> None:
    """Exercises every admin token operation: the list, a creation with each refusal, the audit
    entry, a revocation (twice) and an unknown id."""
    run = checker.run
    auth = {"Authorization": f"Bearer {token}"}
    as_json = {**auth, "Content-Type": "application/json"}
    base = "/v1/admin/tokens"
    name = f"openapi-check-{secrets.token_hex(4)}"
    run(Case("tokens", "GET", base, 200, auth))
    run(Case("tokens", "HEAD", base, 200, auth))
    run(Case("tokens unauthenticated", "GET", base, 401))
    run(Case("token bad role", "POST", base, 422, as_json, json.dumps({"name": name, "role": "root"}).encode(), extra=[problem_pointers("/role")]))
    run(Case("token not json", "POST", base, 400, as_json, b"{"))
    run(Case("token wrong media type", "POST", base, 415, {**auth, "Content-Type": "text/plain"}, b"x"))
    _, created = run(Case("token create", "POST", base, 201, as_json, json.dumps({"name": name, "role": "viewer", "expiresAt": None}).encode()))
    if not isinstance(created, dict) or "id" not in created:
        return
    run(Case("token name taken", "POST", base, 409, as_json, json.dumps({"name": name, "role": "viewer"}).encode(), extra=[problem_type("token-name-taken")]))
    viewer = {"Authorization": f"Bearer {created['secret']}"}
    run(Case("tokens as a viewer", "GET", base, 403, viewer, extra=[problem_type("forbidden")]))
    run(Case("audit with a token's creation", "GET", "/v1/admin/audit?pageSize=5", 200, auth,
             extra=[body_field("the newest is the token's creation", lambda b: b["items"][0].get("adminToken") == created["id"])]))
    run(Case("token revoke", "DELETE", f"{base}/{created['id']}", 204, auth))
    run(Case("token revoke again", "DELETE", f"{base}/{created['id']}", 204, auth))
    run(Case("token revoked", "GET", base, 401, viewer))
    run(Case("token unknown", "DELETE", f"{base}/tok_0000000000000000", 404, auth, extra=[problem_type("unknown-token")]))


def run_experiments(checker: Checker, token: str) -> None:
    """A scratch experiment with a plan and a guardrail on `noFavorites`: created, started, its results and their
    CSV export (GET and HEAD) read, stopped and read again; then the planning calculator, both
    questions and a 422."""
    run = checker.run
    auth = {"Authorization": f"Bearer {token}"}
    as_json = {**auth, "Content-Type": "application/json"}
    xid = f"openapi-check-{secrets.token_hex(4)}"
    one = f"/v1/admin/experiments/{xid}"

    def document(status: str) -> bytes:
        return json.dumps({
            "id": xid, "templateId": "noFavorites", "status": status, "coverage": 0.5,
            "primaryMetric": {"type": "anyTap"},
            "plan": {"baselineRate": 0.2, "minimumDetectableEffect": {"absolute": 0.02}, "power": 0.9},
            "guardrails": [{"action": "findContacts", "harm": "decrease", "margin": {"absolute": 0.02}}],
            "variants": [
                {"key": "control", "weight": 0.5},
                {"key": "b", "weight": 0.5, "strings": {"en": {"title": "Nothing saved yet"}}},
            ],
        }).encode("utf-8")

    run(Case("experiment create", "PUT", one, 201, headers={**as_json, "If-None-Match": "*"}, body=document("draft")))
    run(Case("experiment results (draft)", "GET", f"{one}/results", 200, headers=auth,
             extra=[body_field("collecting", lambda body: body["verdict"] == "collecting")]))
    run(Case("experiment start", "PUT", one, 200, headers={**as_json, "If-Match": '"r1"'}, body=document("running")))
    run(Case("experiment results (running)", "GET", f"{one}/results", 200, headers=auth, extra=[
        body_field("the plan with its installs", lambda body: len(body["plan"]["sequentialInstalls"]) == 2),
        body_field("one point per day", lambda body: len(body["timeline"]) == 1),
        body_field("the guardrail, inconclusive", lambda body: [g["state"] for g in body["guardrails"]] == ["inconclusive"]),
    ]))
    run(Case("experiment results export", "GET", f"{one}/results/export", 200, headers=auth,
             extra=[header_is("Content-Disposition", f'attachment; filename="{xid}-results.csv"')]))
    run(Case("experiment results export", "HEAD", f"{one}/results/export", 200, headers=auth))
    run(Case("experiment results export unknown", "GET", "/v1/admin/experiments/nope-nope/results/export", 404,
             headers=auth, extra=[problem_type("unknown-experiment")]))
    run(Case("experiment results export no token", "GET", f"{one}/results/export", 401))
    # A few installs on two platforms see it and report a display in the variant they were served
    # (or, outside the coverage, control: excluded as not assigned), so the segments are not empty.
    now = rfc3339(datetime.now(timezone.utc))
    events = []
    for n, platform in enumerate(["ios", "android", "ios", "web", "android", "ios"]):
        install = f"{xid}-{n}"
        served, parsed = run(Case("experiment served", "GET", "/v1/templates/noFavorites?locale=en", 200,
                                  headers={"X-Install-ID": install}))
        variant = (parsed or {}).get("experiment", {}).get("variant", "control") if isinstance(parsed, dict) else "control"
        revision = parsed.get("revision", 1) if isinstance(parsed, dict) else 1
        events.append({"id": str(uuid.uuid4()), "type": "displayed", "templateId": "noFavorites", "revision": revision,
                       "locale": "en",
                       "platform": platform, "appVersion": f"1.{n % 2}.0", "occurredAt": now,
                       "experimentId": xid, "variant": variant, "installId": install})
    run(Case("experiment events", "POST", "/v1/events", 202, headers={"Content-Type": "application/json"},
             body=json.dumps({"events": events}).encode("utf-8"),
             extra=[body_field("all accepted", lambda body: body["accepted"] == len(events))]))
    for segment in ["platform", "locale", "appVersion"]:
        run(Case(f"experiment results by {segment}", "GET", f"{one}/results?segment={segment}", 200, headers=auth,
                 extra=[body_field("segments, each with its results",
                                   lambda body: body["segments"] and all("verdict" in s["results"] for s in body["segments"]))]))
    run(Case("experiment results by platform: three platforms", "GET", f"{one}/results?segment=platform", 200,
             headers=auth, extra=[body_field("android, ios, web", lambda body: [s["value"] for s in body["segments"]]
                                             == ["android", "ios", "web"])]))
    run(Case("experiment results, unknown segment", "GET", f"{one}/results?segment=country", 400, headers=auth,
             extra=[problem_type("invalid-parameter"), first_error_parameter("segment")]))
    run(Case("experiment results, unknown segment", "HEAD", f"{one}/results?segment=country", 400, headers=auth))
    run(Case("experiment stop", "PUT", one, 200, headers={**as_json, "If-Match": '"r2"'}, body=document("stopped")))
    run(Case("experiment results (stopped)", "GET", f"{one}/results", 200, headers=auth))

    plan = "/v1/admin/experiment-plan"
    run(Case("experiment plan installs", "POST", plan, 200, headers=as_json, body=json.dumps({
        "baselineRate": 0.1, "minimumDetectableEffect": {"relative": 0.1}, "templateId": "noFavorites", "coverage": 0.5,
    }).encode("utf-8"), extra=[body_field("14,751 a variant", lambda body: body["fixedHorizonInstalls"] == [14751, 14751])]))
    run(Case("experiment plan effect", "POST", plan, 200, headers=as_json, body=json.dumps({
        "baselineRate": 0.1, "totalInstalls": 20000, "weights": [0.34, 0.33, 0.33],
    }).encode("utf-8")))
    run(Case("experiment plan invalid", "POST", plan, 422, headers=as_json, body=json.dumps({
        "baselineRate": 0, "minimumDetectableEffect": {"relative": 0.1}, "alpha": 0.9,
    }).encode("utf-8"), extra=[problem_pointers("/alpha", "/baselineRate")]))
    run(Case("experiment plan no token", "POST", plan, 401, headers={"Content-Type": "application/json"}, body=b"{}"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base-url", required=True, help="the running server, e.g. http://127.0.0.1:8080")
    parser.add_argument("--spec", type=Path, default=DEFAULT_SPEC, help=f"the OpenAPI document (default {DEFAULT_SPEC})")
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds per request (default 10)")
    parser.add_argument("--body-limit", type=int, default=1 << 20, help="the server's request body limit in bytes; 0 skips the 413 check (default 1048576)")
    admin = parser.add_mutually_exclusive_group()
    admin.add_argument("--admin-token", metavar="TOKEN", help="an editor token: also exercise the admin API (/v1/admin) on a scratch template, deleted at the end")
    admin.add_argument("--admin-token-file", metavar="PATH", type=Path, help="read the editor token from this file (e.g. <data-dir>/admin-token); as --admin-token")
    args = parser.parse_args(argv)
    token = args.admin_token
    if args.admin_token_file is not None:
        try:
            token = args.admin_token_file.read_text(encoding="utf-8").strip()
        except OSError as error:
            parser.error(f"cannot read --admin-token-file: {error}")
        if not token:
            parser.error(f"--admin-token-file {args.admin_token_file} is empty")

    spec = Spec(args.spec)
    report = Report()
    checker = Checker(spec, Client(args.base_url, args.timeout), report)
    checker.check_examples()
    run_all(checker, args.body_limit)
    events = run_events(checker, args.body_limit)
    if token:
        run_admin(checker, token, args.body_limit)
        run_console(checker, token)
        run_translations(checker, token)
        run_plurals(checker, token)
        run_analytics(checker, token, events)
        run_app_status(checker, token)
        run_change_requests(checker, token)
        run_webhooks(checker, token)
        run_tokens(checker, token)
        run_experiments(checker, token)
    print(f"{report.passed} passed, {report.failed} failed")
    return 1 if report.failed else 0


if __name__ == "__main__":
    sys.exit(main())
