"""The API's reference page (``/api/docs``), read from the OpenAPI schema the API serves:
each operation with its parameters, its body's fields and its answers, as plain data for
a page of the site's own layout. Drawn on the server from the schema, it shows at once,
with no script, in the site's language, colours and landmarks."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString
from django.utils.text import slugify

DocumentedJson = dict[str, Any]
ERROR_STATUSES = range(400, 500)
MANY_ERRORS = 8  # more documented 4xx statuses than this are shown as "4xx"


@dataclass(frozen=True)
class FieldDoc:
    """A parameter or a body's field: where it goes, its type and bounds in the
    schema's words, whether it must be sent, and its default."""

    name: str
    type: str
    required: bool
    default: str = ""
    where: str = ""


@dataclass(frozen=True)
class OperationDoc:
    method: str
    path: str
    anchor: str
    description: SafeString
    parameters: list[FieldDoc]
    body: list[FieldDoc]
    body_rule: str
    answers: list[tuple[str, str]]


@dataclass
class SectionDoc:
    tag: str
    operations: list[OperationDoc] = field(default_factory=list)


def text_with_code(text: str) -> SafeString:
    """``text`` escaped, with its `backticked` parts as ``<code>``."""
    parts = re.split(r"``?([^`]+)``?", " ".join(text.split()))
    return format_html_join(
        "",
        "{}",
        (
            (format_html("<code>{}</code>", part) if i % 2 else part,)
            for i, part in enumerate(parts)
        ),
    )


def _resolve(schema: DocumentedJson, spec: DocumentedJson) -> DocumentedJson:
    reference = spec.get("$ref", "")
    if not reference.startswith("#/"):
        return spec
    found: Any = schema
    for key in reference[2:].split("/"):
        found = found[key]
    return found


def type_text(schema: DocumentedJson, spec: DocumentedJson) -> str:
    """A property's type in a few words: ``integer 2–4``, ``one of a, b``, ``string[] (1–4
    items)``."""
    spec = _resolve(schema, spec)
    choices = spec.get("anyOf") or spec.get("oneOf")
    if choices:
        return " | ".join(type_text(schema, choice) for choice in choices)
    if "const" in spec:
        return str(spec["const"]).lower() if isinstance(spec["const"], bool) else str(spec["const"])
    if "enum" in spec:
        return "one of " + ", ".join(str(value) for value in spec["enum"])
    kind = spec.get("type", "object")
    if kind == "array":
        text = f"{type_text(schema, spec.get('items', {}))}[]"
        if "minItems" in spec or "maxItems" in spec:
            text += f" ({spec.get('minItems', 0)}–{spec.get('maxItems', '…')} items)"
        return text
    if kind == "object" and "properties" in spec:
        return spec.get("title", "object")
    bounds = _bounds(spec)
    return f"{kind} {bounds}".strip()


def _bounds(spec: DocumentedJson) -> str:
    if "minimum" in spec or "maximum" in spec:
        return f"{spec.get('minimum', '…')}–{spec.get('maximum', '…')}"
    if "minLength" in spec or "maxLength" in spec:
        return f"({spec.get('minLength', 0)}–{spec.get('maxLength', '…')} characters)"
    if "pattern" in spec:
        return f"/{spec['pattern']}/"
    return ""


def _default(spec: DocumentedJson) -> str:
    if "default" not in spec or spec["default"] is None:
        return ""
    value = spec["default"]
    return str(value).lower() if isinstance(value, bool) else str(value)


def _object(schema: DocumentedJson, spec: DocumentedJson) -> DocumentedJson:
    """The object a body's schema describes, also when the body may be left out (an
    ``anyOf`` of the object and null)."""
    spec = _resolve(schema, spec)
    for choice in spec.get("anyOf", ()):
        if choice.get("type") != "null":
            return _resolve(schema, choice)
    return spec


def _fields(schema: DocumentedJson, spec: DocumentedJson) -> list[FieldDoc]:
    spec = _object(schema, spec)
    required = set(spec.get("required", ()))
    return [
        FieldDoc(name, type_text(schema, prop), name in required, _default(prop))
        for name, prop in spec.get("properties", {}).items()
    ]


def _one_of_rule(schema: DocumentedJson, spec: DocumentedJson) -> str:
    """``cards | pickup`` for a body that takes exactly one of some fields."""
    spec = _object(schema, spec)
    names = [name for choice in spec.get("oneOf", ()) for name in choice.get("required", ())]
    return " | ".join(names)


def _answers(schema: DocumentedJson, responses: DocumentedJson) -> list[tuple[str, str]]:
    answers = []
    errors = []
    for status, answer in responses.items():
        code = int(status)
        if code in ERROR_STATUSES:
            errors.append(code)
            continue
        kinds = []
        for media, content in answer.get("content", {}).items():
            shown = _resolve(schema, content.get("schema", {})).get("title")
            kinds.append(f"{media} ({shown})" if shown else media)
        answers.append((str(code), ", ".join(kinds) or answer.get("description", "")))
    if errors:
        label = "4xx" if len(errors) > MANY_ERRORS else ", ".join(map(str, sorted(errors)))
        answers.append((label, 'application/json {"error": {"code", "message"}}'))
    return answers


def api_reference(schema: DocumentedJson) -> list[SectionDoc]:
    """The schema's operations grouped by their first tag, in the schema's order."""
    sections: dict[str, SectionDoc] = {}
    for path, operations in schema.get("paths", {}).items():
        for method, operation in operations.items():
            tag = (operation.get("tags") or ["api"])[0]
            body_spec = (
                operation.get("requestBody", {})
                .get("content", {})
                .get("application/json", {})
                .get("schema", {})
            )
            parameters = [
                FieldDoc(
                    parameter["name"],
                    type_text(schema, parameter.get("schema", {})),
                    parameter.get("required", False),
                    _default(parameter.get("schema", {})),
                    parameter.get("in", ""),
                )
                for parameter in operation.get("parameters", ())
            ]
            sections.setdefault(tag, SectionDoc(tag)).operations.append(
                OperationDoc(
                    method=method.upper(),
                    path=path,
                    anchor=slugify(f"{method} {path.replace('/', ' ')}"),
                    description=text_with_code(operation.get("description", "")),
                    parameters=parameters,
                    body=_fields(schema, body_spec) if body_spec else [],
                    body_rule=_one_of_rule(schema, body_spec) if body_spec else "",
                    answers=_answers(schema, operation.get("responses", {})),
                )
            )
    return list(sections.values())
