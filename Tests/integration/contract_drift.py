#!/usr/bin/env python3
"""Check that openapi.yaml and a running server agree on what they accept, value by value.

    python3 Tests/integration/contract_drift.py --base-url URL --spec openapi.yaml --admin-token-file PATH

For each input the contract constrains with a pattern, sends values on both sides of it to the
server and checks that the server refuses exactly the values the contract's schema refuses:

* `param.<name>` names (`PlaceholderValues`' propertyNames) on GET /v1/templates/verifyIdentity;
* locale tags: `?locale=` (`Locale`) on GET /v1/templates/connectionRefused, and the path's
  `{locale}` of PUT /v1/admin/templates/{id}/strings/{locale} (`AdminLocale`), sent with a body
  that is refused later (422), so nothing is written;
* `templateId` of GET /v1/admin/audit (`AuditTemplateId`), percent-encoded control characters
  included.

One line per value; the last line is `N passed, M failed`; exit status 1 when anything failed.
Needs the standard library, PyYAML and jsonschema.
"""

from __future__ import annotations

import argparse
import json
import sys
import urllib.error
import urllib.parse
import urllib.request

import jsonschema
import yaml

PARAM_NAMES = [
    "provider", "_private", "a", "A1_b", "x" * 32,  # accepted
    "1abc", "9", "x" * 33, "a-b", "a.b", "é", "",  # refused
]

LOCALES = [
    # well formed
    "fr", "pt-BR", "pt_BR", "zh-Hant-TW", "es-419", "de-CH-1901", "sl-rozaj-biske", "zh-yue-HK",
    "en-US-u-ca-gregory", "en-x-a", "en-US-x-twain", "qaa", "abcde", "en-1234", "en-12345",
    "en-a-bb-x-c", "ar-XB", "EN-xa",
    # matched the old pattern, refused by the server
    "abcd", "en-12", "en-US-US", "en-Latn-Latn", "en-abc-abc-abc-abc", "en-a", "en-u-x", "en-x",
    "en-US-a", "abcdefghi", "en-123456789",
    # refused by both
    "e", "x-private", "en--US", "en-", "1en", "en-US!", "a" * 70,
]

AUDIT_TEMPLATE_IDS = [
    "connectionRefused", "no such template", "caf%C3%A9", "a%C2%85b", "a%E2%80%A8b",  # accepted
    "a%00b", "a%01b", "a%0Ab", "a%1Fb", "a%7Fb", "%09",  # refused
]


def request(method: str, url: str, headers: dict[str, str] | None = None, body: bytes | None = None):
    """Sends one request; returns (status, parsed JSON body or None)."""
    req = urllib.request.Request(url, data=body, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=10) as response:
            status, raw = response.status, response.read()
    except urllib.error.HTTPError as error:
        status, raw = error.code, error.read()
    try:
        return status, json.loads(raw)
    except ValueError:
        return status, None


def refused_parameter(status: int, body, parameter: str) -> bool:
    """Whether the answer is a 400 naming `parameter`."""
    if status != 400 or not isinstance(body, dict):
        return False
    return any(error.get("parameter") == parameter for error in body.get("errors", []))


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--spec", required=True)
    parser.add_argument("--admin-token-file", required=True)
    arguments = parser.parse_args()
    base = arguments.base_url.rstrip("/")
    with open(arguments.spec, encoding="utf-8") as file:
        spec = yaml.safe_load(file)
    with open(arguments.admin_token_file, encoding="utf-8") as file:
        auth = {"Authorization": "Bearer " + file.read().strip()}
    components = spec["components"]
    passed = failed = 0

    def schema_accepts(schema: dict, value: str) -> bool:
        root = {"components": components, **schema}
        validator = jsonschema.Draft202012Validator(root)
        return validator.is_valid(value)

    def check(name: str, contract: bool, server: bool, detail: str) -> None:
        nonlocal passed, failed
        if contract == server:
            passed += 1
            print(f"ok    {name}: both {'accept' if server else 'refuse'}")
        else:
            failed += 1
            print(f"FAIL  {name}: the contract {'accepts' if contract else 'refuses'}, "
                  f"the server {'accepts' if server else 'refuses'} ({detail})")

    names = components["parameters"]["PlaceholderValues"]["schema"]["propertyNames"]
    for name in PARAM_NAMES:
        argument = "param." + name
        status, body = request("GET", f"{base}/v1/templates/verifyIdentity?{urllib.parse.quote(argument)}=v")
        check(f"param name {argument!r}", schema_accepts(names, argument),
              not refused_parameter(status, body, argument), f"status {status}")

    query_locale = components["parameters"]["Locale"]["schema"]
    path_locale = components["parameters"]["AdminLocale"]["schema"]
    for tag in LOCALES:
        status, body = request("GET", f"{base}/v1/templates/connectionRefused?locale={urllib.parse.quote(tag)}")
        check(f"?locale={tag}", schema_accepts(query_locale, tag), not refused_parameter(status, body, "locale"),
              f"status {status}")
        # A body the server refuses after the locale (a title that is not a string): never written.
        status, body = request(
            "PUT", f"{base}/v1/admin/templates/connectionRefused/strings/{urllib.parse.quote(tag)}",
            {**auth, "Content-Type": "application/json", "If-Match": '"r999999"'}, b'{"title": 5}')
        check(f"strings/{{locale}} {tag}", schema_accepts(path_locale, tag),
              not refused_parameter(status, body, "locale"), f"status {status}")

    audit = components["parameters"]["AuditTemplateId"]["schema"]
    for encoded in AUDIT_TEMPLATE_IDS:
        value = urllib.parse.unquote(encoded.replace(" ", "%20"))
        status, body = request("GET", f"{base}/v1/admin/audit?templateId={encoded.replace(' ', '%20')}", auth)
        check(f"audit templateId={encoded}", schema_accepts(audit, value),
              not refused_parameter(status, body, "templateId"), f"status {status}")

    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
