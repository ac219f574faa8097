"""Strict decoding of every request body and query parameter: the one path every route takes.

Litestar converts leniently (``"7"`` → 7, ``"false"`` → False, ``6.0`` → 6, ``"1e3"`` → 1000).
The API does not: :func:`strict_request` runs before every handler (the app's
``before_request``, so before any token is looked at) and refuses, changing nothing,

- a body not sent as JSON: its ``Content-Type`` must be ``application/json`` (parameters such
  as ``; charset=utf-8`` allowed), else **415** ``unsupported-media-type``, before the body is
  read as anything;
- a body that is not JSON, that names a member twice in one object (JSON parsers disagree on
  which one counts), or that nests deeper than :data:`MAX_DEPTH` (**400** ``invalid-json``);
- a body member of the wrong JSON type for the handler's ``data`` type: a boolean only from
  ``true``/``false``, an integer never from a float (not even ``2.0``) or a string, a string
  never from a number (**422** ``wrong-type`` naming the field path and the type expected);
- a member outside its declared bounds, length or pattern (``msgspec.Meta``): **422**
  ``invalid-parameter`` naming it, as the library says of a bad parameter;
- a query parameter the handler declares as a whole number or a boolean whose text is not one
  (``-?[0-9]+`` in ASCII digits; ``true``/``false``): **422** ``wrong-type``.

An unknown or missing member is left to Litestar's own check of the same type, which refuses it
(**400** ``validation-error``). The handler's declared types are the single source: a route
gets all of this by declaring ``data: SomeStruct`` (a ``msgspec.Struct`` with
``forbid_unknown_fields=True``; :mod:`api.openapi` writes msgspec's schema of it into the
document) and typed query parameters. A body that passes decodes to the same value under
Litestar's lenient conversion (strict acceptance implies it), so the handler receives exactly
what was checked here.
"""

from __future__ import annotations

import json
import re
import types
from typing import Any, Union, get_args, get_origin

import msgspec
from litestar import Request

from api.problems import ApiProblem
from skillcheck.errors import quoted

__all__ = [
    "JSON_MEDIA_TYPE",
    "MAX_DEPTH",
    "TEXT_PATTERN",
    "json_depth",
    "strict_request",
    "words_for_type",
]

#: The one media type a request body is read as.
JSON_MEDIA_TYPE = "application/json"

#: The deepest nesting of arrays and objects a request body may have (a check's metadata is
#: the deepest legitimate body; a few levels are plenty).
MAX_DEPTH = 32
#: The special handler parameters Litestar fills in (not query parameters).
_RESERVED = {"request", "data", "scope", "state", "headers", "cookies", "query", "body", "socket"}
_INTEGER = re.compile(r"-?[0-9]+")
_BOOLEAN = {"true", "false"}

#: msgspec's type names in its messages → words for people.
_WORDS = {
    "int": "a whole number",
    "str": "a string",
    "bool": "true or false",
    "float": "a number",
    "null": "null",
    "object": "a JSON object",
    "array": "a list",
}


def words_for_type(spec: str) -> str:
    """``"int | null"`` → ``"a whole number or null"``."""
    return " or ".join(_WORDS.get(part.strip(), part.strip()) for part in spec.split("|"))


def json_depth(value: Any) -> int:
    """How deeply arrays and objects nest in decoded JSON (a scalar is 0), without recursion."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        depth += 1
        deepest = max(deepest, depth)
        if depth > MAX_DEPTH:
            return depth
        stack.extend((child, depth) for child in children)
    return deepest


def _invalid_json(detail: str) -> ApiProblem:
    return ApiProblem(400, "invalid-json", detail, field="body")


class _DuplicateMember(Exception):
    def __init__(self, name: str) -> None:
        self.name = name


def _no_duplicates(pairs: list[tuple[str, Any]]) -> None:
    """``json``'s ``object_pairs_hook``, called for every object at every level: refuse a name
    given twice. Nothing is built (the value was decoded already)."""
    seen: set[str] = set()
    for name, _ in pairs:
        if name in seen:
            raise _DuplicateMember(name)
        seen.add(name)


def _ignore(_text: str) -> None:
    return None


def _check_duplicates(raw: bytes) -> None:
    """Refuse an object that names a member twice (``{"game": "a", "game": "b"}``): msgspec,
    like most parsers, keeps the last one silently, and another reader could keep the first.
    Run after msgspec accepted the body (valid JSON, at most :data:`MAX_DEPTH` deep), so this
    second reading meets nothing but well-formed JSON; numbers are not even converted."""
    try:
        json.loads(raw, object_pairs_hook=_no_duplicates, parse_int=_ignore, parse_float=_ignore)
    except _DuplicateMember as exc:
        raise _invalid_json(
            f"the body names the member {quoted(exc.name)} twice in one object: give each "
            "member once"
        ) from None
    except ValueError as exc:  # never expected after msgspec; refused all the same, not a 500
        raise _invalid_json(f"the body is not valid JSON: {exc}") from None


#: JSON numbers are read as 64-bit floats (whole numbers of any size as integers): beyond this
#: a number cannot be read at all.
_LARGEST_FLOAT = "1.8e308"
#: A ``\\u`` escape of half a UTF-16 surrogate pair (``\\ud83d``), which needs its other half.
_SURROGATE = re.compile(r"[\ud800-\udfff]")


def _where(path: list[str | int]) -> str:
    """A member's path as problems name fields: ``params.variant.suit``, ``metadata.tags[2]``."""
    text = ""
    for step in path:
        text += f"[{step}]" if isinstance(step, int) else (f".{step}" if text else step)
    return text or "the body"


def _unreadable(value: Any) -> tuple[str, str] | None:
    """The first member of ``value`` (decoded leniently by Python's ``json``) that msgspec
    refuses to read, and why, in words: a number beyond a float's range (``1e400`` reads as
    infinity), or text holding half of a UTF-16 surrogate pair (``"\\ud800"``)."""
    stack: list[tuple[Any, list[str | int]]] = [(value, [])]
    while stack:
        item, path = stack.pop()
        if isinstance(item, float) and item in (float("inf"), float("-inf")):
            return _where(path), (
                f"is a number too large to read (numbers are at most about {_LARGEST_FLOAT} "
                "in size)"
            )
        texts = [item] if isinstance(item, str) else []
        if isinstance(item, dict):
            texts = list(item)
            stack.extend((child, [*path, key]) for key, child in reversed(item.items()))
        elif isinstance(item, list):
            stack.extend((child, [*path, n]) for n, child in reversed(list(enumerate(item))))
        for text in texts:
            half = _SURROGATE.search(text)
            if half is not None:
                where = _where(path)
                if not isinstance(item, str):
                    where = f"a member name in {where}"
                return where, (
                    f"holds \\u{ord(half.group()):04x}, half of a UTF-16 surrogate pair without "
                    "its other half: JSON text must be Unicode, so write the character itself "
                    "(UTF-8) or both halves of its pair (\\ud83d\\ude00 for 😀)"
                )
    return None


def _not_json(raw: bytes, exc: Exception) -> ApiProblem:
    """Why a body msgspec could not read is not JSON, in words: the member at fault when
    Python's more lenient reader can find it, else msgspec's account without its jargon."""
    try:
        found = _unreadable(json.loads(raw))
    except (ValueError, RecursionError):
        found = None
    if found is not None:
        where, why = found
        return _invalid_json(f"the body is not valid JSON: {where} {why}")
    text = str(exc)
    if text == "Input data was truncated":
        text = "it ends too early (a closing quote, bracket or brace is missing)"
    elif text.startswith("Invalid UTF-8"):
        text = "it is not UTF-8 text"
    else:
        text = re.sub(r" - at `\$[^`]*`$", "", text).removeprefix("JSON is malformed: ")
    return _invalid_json(f"the body is not valid JSON: {text}")


def _decode(raw: bytes) -> Any:
    try:
        value = msgspec.json.decode(raw)
    except RecursionError:
        raise _invalid_json(f"the body nests deeper than {MAX_DEPTH} levels") from None
    except (msgspec.DecodeError, ValueError) as exc:
        raise _not_json(raw, exc) from None
    if json_depth(value) > MAX_DEPTH:
        raise _invalid_json(f"the body nests deeper than {MAX_DEPTH} levels")
    _check_duplicates(raw)
    return value


def _check_media_type(request: Request[Any, Any, Any]) -> None:
    """A body is read only as JSON: its ``Content-Type`` must say ``application/json``
    (parameters such as ``; charset=utf-8`` allowed; JSON is UTF-8 whatever they say). Anything
    else, or none, is **415**: the server never guesses what a body is."""
    header = request.headers.get("content-type")
    media = (header or "").split(";", 1)[0].strip().lower()
    if media == JSON_MEDIA_TYPE:
        return
    sent = (
        f"Content-Type {quoted(header.strip())}" if header and header.strip() else "no Content-Type"
    )
    raise ApiProblem(
        415,
        "unsupported-media-type",
        f"the body must be JSON sent with Content-Type: {JSON_MEDIA_TYPE}; this request has {sent}",
        field="Content-Type",
        headers={"Accept-Post": JSON_MEDIA_TYPE},
    )


#: Text a person wrote (a label, a reason): no control characters but tab and newline. Body
#: members declared ``Annotated[str, msgspec.Meta(pattern=TEXT_PATTERN, ...)]`` say so in the
#: document, and a refusal says so in words.
TEXT_PATTERN = "^[^\\x00-\\x08\\x0b-\\x1f\\x7f]*$"
_RULE = re.compile(r"Expected `[^`]+` (?P<rule>.+?)(?: - at `\$\.?(?P<at>[^`]*)`)?$")
_RULE_WORDS = (
    (re.compile(r"of length <= (\d+)"), r"at most \1 characters long"),
    (re.compile(r"of length >= (\d+)"), r"at least \1 characters long"),
    (re.compile(r"<= (-?\d+(?:\.\d+)?)"), r"at most \1"),
    (re.compile(r">= (-?\d+(?:\.\d+)?)"), r"at least \1"),
)


def rule_words(rule: str) -> str:
    """msgspec's rule (``>= 0``, ``of length <= 200``) in words (``at least 0``, ``at most 200
    characters long``; ``at least 1 character long``)."""
    if rule.startswith("matching regex") and TEXT_PATTERN in rule.replace("\\\\", "\\"):
        return "text without control characters (tab and newline are allowed)"
    for pattern, words in _RULE_WORDS:
        if pattern.fullmatch(rule):
            return pattern.sub(words, rule).replace(" 1 characters", " 1 character")
    return rule


_MESSAGE = re.compile(
    r"Expected `(?P<want>[^`]+)`, got `(?P<got>[^`]+)`(?: - at `\$\.?(?P<at>[^`]*)`)?$"
)


def _unwrap(annotation: Any) -> Any:
    """``int | None`` → ``int``; anything else unchanged."""
    if get_origin(annotation) in (Union, types.UnionType):
        rest = [a for a in get_args(annotation) if a is not type(None)]
        if len(rest) == 1:
            return rest[0]
    return annotation


def _check_body(raw: bytes, annotation: Any, optional: bool) -> None:
    if not raw.strip():
        if optional:
            return
        raise ApiProblem(
            400,
            "validation-error",
            "the request has no body: send a JSON object (Content-Type: application/json)",
            field="body",
        )
    value = _decode(raw)
    try:
        msgspec.convert(value, type=annotation, strict=True)
    except msgspec.ValidationError as exc:
        found = _MESSAGE.match(str(exc))
        if found is None:
            rule = _RULE.match(str(exc))
            if rule is None:
                return  # an unknown or missing field: Litestar's own check refuses it (400)
            at = rule["at"] or "body"
            raise ApiProblem(
                422,
                "invalid-parameter",
                f"{at} must be {rule_words(rule['rule'])}",
                field=at,
            ) from None
        at = found["at"] or "body"
        want = words_for_type(found["want"])
        raise ApiProblem(
            422,
            "wrong-type",
            f"{at} must be {want}, not {words_for_type(found['got'])} "
            "(JSON types are not converted)",
            field=at,
            expected=want,
        ) from None


def _check_query(request: Request[Any, Any, Any]) -> None:
    signature = request.route_handler.parsed_fn_signature
    path = set(request.path_params)
    for name, parameter in signature.parameters.items():
        if name in _RESERVED or name in path:
            continue
        kwarg = parameter.kwarg_definition
        key = getattr(kwarg, "query", None) or name
        texts = request.query_params.getall(key, [])
        if not texts:
            continue
        kind = _unwrap(parameter.annotation)
        if get_origin(kind) is list and get_args(kind):
            kind = get_args(kind)[0]
        if kind is bool and any(t not in _BOOLEAN for t in texts):
            bad = next(t for t in texts if t not in _BOOLEAN)
            _refuse_query(key, bad, "true or false")
        if kind is int and any(not _INTEGER.fullmatch(t) for t in texts):
            bad = next(t for t in texts if not _INTEGER.fullmatch(t))
            _refuse_query(key, bad, "a whole number (ASCII digits, e.g. 3)")


def _refuse_query(key: str, text: str, expected: str) -> None:
    raise ApiProblem(
        422,
        "wrong-type",
        f"{key} must be {expected}, not {quoted(text)}",
        field=key,
        expected=expected,
    )


async def strict_request(request: Request[Any, Any, Any]) -> None:
    """The app's ``before_request``: check the body and the query strictly (see the module)."""
    _check_query(request)
    data = request.route_handler.parsed_fn_signature.parameters.get("data")
    if data is None or request.method in ("GET", "HEAD", "OPTIONS"):
        return
    raw = await request.body()
    if raw.strip():
        _check_media_type(request)
    _check_body(raw, data.annotation, optional=data.has_default or data.is_optional)
