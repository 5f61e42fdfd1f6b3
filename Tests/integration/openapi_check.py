#!/usr/bin/env python3
"""Check a running empty-state-service against its OpenAPI document.

    python3 Tests/integration/openapi_check.py --base-url http://127.0.0.1:8080 [--spec openapi.yaml]

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
import select
import socket
import sys
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import jsonschema
import yaml
from openapi_schema_validator import OAS31Validator, validate

DEFAULT_SPEC = Path(__file__).resolve().parents[2] / "openapi.yaml"
METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
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
        try:
            text = body.decode("utf-8")
            parsed = json.loads(text) if is_json(media) else text
        except (UnicodeDecodeError, ValueError) as error:
            check(f"{label}: body parses as {media}", False, str(error))
            return None
        schema = content[media].get("schema")
        if schema is not None:
            error = schema_error(parsed, schema)
            check(f"{label}: body matches the {media} schema", error is None, error or "")
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

    served, text = run(Case("document", "GET", "/openapi.yaml", 200))
    if served.status == 200 and isinstance(text, str):
        try:
            same = yaml.safe_load(text) == checker.spec.doc
            detail = "differs from the --spec file"
        except yaml.YAMLError as error:
            same, detail = False, f"not YAML: {error}"
        check(f"document [GET /openapi.yaml]: equals {checker.spec.path.name}", same, detail)
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base-url", required=True, help="the running server, e.g. http://127.0.0.1:8080")
    parser.add_argument("--spec", type=Path, default=DEFAULT_SPEC, help=f"the OpenAPI document (default {DEFAULT_SPEC})")
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds per request (default 10)")
    parser.add_argument("--body-limit", type=int, default=1 << 20, help="the server's request body limit in bytes; 0 skips the 413 check (default 1048576)")
    args = parser.parse_args(argv)

    spec = Spec(args.spec)
    report = Report()
    checker = Checker(spec, Client(args.base_url, args.timeout), report)
    checker.check_examples()
    run_all(checker, args.body_limit)
    print(f"{report.passed} passed, {report.failed} failed")
    return 1 if report.failed else 0


if __name__ == "__main__":
    sys.exit(main())
