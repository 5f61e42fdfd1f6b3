#!/usr/bin/env python3
"""Writes docs/api-reference.md, the HTTP API reference, from openapi.yaml; never edit it by hand.

    python3 Tools/docs/api_reference.py           # rewrite docs/api-reference.md
    python3 Tools/docs/api_reference.py --check   # exit 1 when it is not what openapi.yaml makes

Markdown rather than HTML or a page the binary serves: it is read where the rest of the docs
are (a repository browser renders it, with its anchors), a change of the contract shows in
review as a readable diff of this page, and it needs no script, no network and no build step.
The contract itself stays the source; `make lint` regenerates the page in memory and fails when
the committed one differs (`Tools/docs/check.py` calls `check`).

Per operation, grouped by tag in the document's order: method and path, summary, description,
parameters (with where they go and their schema), request body, and each response with its
headers and schema. Then every schema, with its members. `$ref`s become links to the schema's
section. Needs PyYAML (installed by `make deps-test`).
"""

import argparse
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
SOURCE = ROOT / "openapi.yaml"
TARGET = ROOT / "docs" / "api-reference.md"
METHODS = ("get", "head", "post", "put", "patch", "delete", "options")


def slug(heading):
    """GitHub's anchor for a heading (as Tools/docs/check.py computes it)."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    text = text.replace("`", "").strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


class Anchors:
    """Headings of the page and the anchors GitHub gives them, duplicates numbered."""

    def __init__(self):
        self.seen = {}

    def add(self, heading):
        base = slug(heading)
        count = self.seen.get(base, 0)
        self.seen[base] = count + 1
        return base if count == 0 else f"{base}-{count}"


def one_line(text):
    """A description for a table cell: paragraphs joined, pipes escaped."""
    text = " ".join(part.strip() for part in (text or "").strip().splitlines())
    return text.replace("|", "\\|")


def resolve(document, node):
    """The object a `$ref` names (local references only), or the node itself."""
    while isinstance(node, dict) and "$ref" in node:
        path = node["$ref"].lstrip("#/").split("/")
        target = document
        for part in path:
            target = target[part.replace("~1", "/").replace("~0", "~")]
        node = target
    return node


class Writer:
    def __init__(self, document):
        self.document = document
        self.lines = []
        self.anchors = Anchors()
        # Schema anchors are known before any operation links to them.
        schema_anchors = Anchors()
        schema_anchors.seen = {}
        self.schema_anchor = {}

    def out(self, text=""):
        self.lines.append(text)

    def heading(self, level, text):
        anchor = self.anchors.add(text)
        self.out("#" * level + " " + text)
        self.out()
        return anchor

    def type_of(self, schema, depth=0):
        """A short, linked description of a schema's type."""
        if schema is None:
            return ""
        if "$ref" in schema:
            name = schema["$ref"].split("/")[-1]
            if schema["$ref"].startswith("#/components/schemas/"):
                return f"[`{name}`](#{self.schema_anchor[name]})"
            return f"`{name}`"
        if "oneOf" in schema or "anyOf" in schema:
            options = schema.get("oneOf") or schema.get("anyOf")
            return "one of " + ", ".join(self.type_of(option, depth + 1) for option in options)
        if "allOf" in schema:
            return " and ".join(self.type_of(option, depth + 1) for option in schema["allOf"])
        kind = schema.get("type", "")
        kinds = kind if isinstance(kind, list) else [kind] if kind else []
        parts = []
        for name in kinds:
            if name == "array":
                parts.append("array of " + (self.type_of(schema.get("items"), depth + 1) or "any"))
            elif name == "object" and isinstance(schema.get("additionalProperties"), dict):
                parts.append("map of " + self.type_of(schema["additionalProperties"], depth + 1))
            else:
                parts.append(f"`{name}`")
        text = " or ".join(parts) if parts else "any"
        if "enum" in schema:
            text += ": " + ", ".join(f"`{value}`" for value in schema["enum"])
        if "format" in schema:
            text += f" ({schema['format']})"
        bounds = []
        for key, label in (
            ("minLength", "length ≥"),
            ("maxLength", "length ≤"),
            ("minimum", "≥"),
            ("maximum", "≤"),
            ("minItems", "items ≥"),
            ("maxItems", "items ≤"),
        ):
            if key in schema:
                bounds.append(f"{label} {schema[key]}")
        if bounds:
            text += " (" + ", ".join(bounds) + ")"
        return text

    def parameters(self, parameters):
        if not parameters:
            return
        self.out("| parameter | in | required | type | description |")
        self.out("| --- | --- | --- | --- | --- |")
        for parameter in parameters:
            parameter = resolve(self.document, parameter)
            self.out(
                f"| `{parameter['name']}` | {parameter['in']} | {'yes' if parameter.get('required') else 'no'} | "
                f"{self.type_of(parameter.get('schema'))} | {one_line(parameter.get('description'))} |"
            )
        self.out()

    def responses(self, responses):
        self.out("| status | description | body | headers |")
        self.out("| --- | --- | --- | --- |")
        for status, response in responses.items():
            name = response.get("$ref", "").split("/")[-1]
            response = resolve(self.document, response)
            bodies = [
                f"`{media}`: {self.type_of(content.get('schema'))}"
                for media, content in (response.get("content") or {}).items()
            ]
            headers = ", ".join(f"`{header}`" for header in (response.get("headers") or {}))
            description = one_line(response.get("description"))
            if name:
                description = f"{description} (`{name}`)"
            self.out(f"| `{status}` | {description} | {'<br>'.join(bodies) or '—'} | {headers or '—'} |")
        self.out()

    def write(self):
        document = self.document
        info = document["info"]
        schemas = document["components"]["schemas"]
        # Anchors: the page's fixed headings first, in page order, so the numbering of duplicates
        # is the one GitHub gives.
        operations = []
        for path, item in document["paths"].items():
            for method in METHODS:
                if method in item:
                    operations.append((path, method, item, item[method]))
        tags = [tag["name"] for tag in document.get("tags", [])]
        for _, _, _, operation in operations:
            for tag in operation.get("tags", ["other"]):
                if tag not in tags:
                    tags.append(tag)

        planned = Anchors()
        planned.add("HTTP API reference")
        planned.add("Contents")
        planned.add("Conventions")
        planned.add("Authentication")
        operation_anchor = {}
        for tag in tags:
            planned.add(f"Tag {tag}")
            for path, method, _, operation in operations:
                if operation.get("tags", ["other"])[0] == tag:
                    operation_anchor[(path, method)] = planned.add(f"{method.upper()} {path}")
        planned.add("Schemas")
        for name in schemas:
            self.schema_anchor[name] = planned.add(name)

        self.heading(1, "HTTP API reference")
        self.out(
            "<!-- Generated from openapi.yaml by Tools/docs/api_reference.py: do not edit. "
            "`make lint` fails when it is not current. -->"
        )
        self.out()
        self.out(
            f"{one_line(info.get('summary'))} Contract version `{info['version']}` (`info.version`; the "
            "server's own version is what `empty-state-server --version` prints)."
        )
        self.out()
        self.out(
            "Every endpoint of `openapi.yaml`, the contract the server is tested against (it is also served at "
            "`/openapi.yaml`). The guides explain how to use them: [Client API](client-api.md), "
            "[Admin guide](admin-guide.md), [Analytics](analytics.md), [App status](app-status.md), "
            "[Copy experiments](experiments.md), [Translation files](translations.md), [Web](web.md), "
            "[Console](console.md)."
        )
        self.out()
        self.heading(2, "Contents")
        for tag in tags:
            self.out(f"- **{tag}**: " + ", ".join(
                f"[{method.upper()} `{path}`](#{operation_anchor[(path, method)]})"
                for path, method, _, operation in operations
                if operation.get("tags", ["other"])[0] == tag
            ))
        self.out(f"- [Schemas](#schemas): " + ", ".join(f"[`{name}`](#{self.schema_anchor[name]})" for name in schemas))
        self.out()
        self.heading(2, "Conventions")
        self.out(info.get("description", "").strip())
        self.out()
        self.heading(2, "Authentication")
        for name, scheme in document["components"].get("securitySchemes", {}).items():
            self.out(f"- **`{name}`** ({scheme['type']}): {one_line(scheme.get('description'))}")
        self.out()

        descriptions = {tag["name"]: tag.get("description", "") for tag in document.get("tags", [])}
        for tag in tags:
            self.heading(2, f"Tag {tag}")
            if descriptions.get(tag):
                self.out(one_line(descriptions[tag]))
                self.out()
            for path, method, item, operation in operations:
                if operation.get("tags", ["other"])[0] != tag:
                    continue
                self.heading(3, f"{method.upper()} {path}")
                self.out(f"`{operation.get('operationId', '')}`: {one_line(operation.get('summary'))}")
                self.out()
                if operation.get("description"):
                    self.out(operation["description"].strip())
                    self.out()
                if operation.get("security") is not None:
                    names = sorted({name for requirement in operation["security"] for name in requirement})
                    self.out("Authentication: " + (", ".join(f"`{name}`" for name in names) or "none") + ".")
                    self.out()
                self.parameters(list(item.get("parameters", [])) + list(operation.get("parameters", [])))
                body = operation.get("requestBody")
                if body:
                    body = resolve(self.document, body)
                    media = ", ".join(
                        f"`{kind}`: {self.type_of(content.get('schema'))}"
                        for kind, content in (body.get("content") or {}).items()
                    )
                    required = "required" if body.get("required") else "optional"
                    self.out(f"Request body ({required}): {media}. {one_line(body.get('description'))}".rstrip())
                    self.out()
                self.responses(operation.get("responses", {}))

        self.heading(2, "Schemas")
        for name, schema in schemas.items():
            self.heading(3, name)
            if schema.get("description"):
                self.out(schema["description"].strip())
                self.out()
            self.out(f"Type: {self.type_of({key: value for key, value in schema.items() if key != 'description'})}.")
            self.out()
            properties = schema.get("properties")
            if properties:
                required = set(schema.get("required", []))
                self.out("| member | type | required | description |")
                self.out("| --- | --- | --- | --- |")
                for member, definition in properties.items():
                    description = one_line(definition.get("description"))
                    self.out(
                        f"| `{member}` | {self.type_of(definition)} | {'yes' if member in required else 'no'} | "
                        f"{description} |"
                    )
                self.out()
        return "\n".join(self.lines).rstrip() + "\n"


def render():
    import yaml  # from `make deps-test`; imported here so that `check` can say when it is missing

    document = yaml.safe_load(SOURCE.read_text(encoding="utf-8"))
    return Writer(document).write()


def check():
    """Problems with the committed reference (none when it is what openapi.yaml makes)."""
    try:
        expected = render()
    except ImportError:
        return ["docs/api-reference.md: cannot be checked without PyYAML (make deps-test installs it)"]
    if not TARGET.exists():
        return ["docs/api-reference.md is missing: python3 Tools/docs/api_reference.py writes it"]
    if TARGET.read_text(encoding="utf-8") != expected:
        return [
            "docs/api-reference.md is not what openapi.yaml makes: run python3 Tools/docs/api_reference.py "
            "and commit it"
        ]
    return []


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail when docs/api-reference.md is not current")
    arguments = parser.parse_args()
    if arguments.check:
        problems = check()
        for problem in problems:
            print(problem)
        return 1 if problems else 0
    TARGET.write_text(render(), encoding="utf-8")
    print(f"wrote {TARGET.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
