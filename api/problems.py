"""RFC 9457 problem details: one table maps the library's errors (by ``code``) to HTTP statuses.

Every error the API returns is ``application/problem+json`` with ``type``, ``title``,
``status``, ``detail`` (for domain errors the library's message, which names the field and the
allowed values), ``instance`` (the request path) and ``code``; validation errors add ``field``
and ``errors``.
"""

from __future__ import annotations

import enum
import logging
import re
import types
from collections.abc import Mapping
from typing import Any, Literal, Union, get_args, get_origin

import msgspec
from litestar import Request, Response
from litestar.exceptions import HTTPException, ValidationException
from litestar.openapi.datastructures import ResponseSpec
from litestar.status_codes import HTTP_500_INTERNAL_SERVER_ERROR

from skillcheck.cards import DECKS
from skillcheck.engine import GAMES
from skillcheck.errors import (
    QUOTE_LIMIT,
    IdempotencyConflictError,
    IdempotencyKeyExistsError,
    ParameterError,
    SkillcheckError,
    UnknownCardError,
    VersionConflictError,
    quoted,
)

__all__ = [
    "PROBLEM_JSON",
    "STATUS_BY_CODE",
    "ApiProblem",
    "Problem",
    "game_names",
    "missing_game_handler",
    "problem_description",
    "problem_response",
    "problem_responses",
    "problem_type",
    "refuse_unknown_cards",
    "request_path",
    "root_path",
    "status_for",
    "title_for",
]

logger = logging.getLogger(__name__)

PROBLEM_JSON = "application/problem+json"
PROBLEM_BASE = "https://skillcheck.invalid/problems/"

#: The one table: a library error's ``code`` → (HTTP status, title). An error whose code is not
#: here takes its nearest base class's entry (``unknown-card`` → ``parse-error``).
STATUS_BY_CODE: dict[str, tuple[int, str]] = {
    "check-not-found": (404, "Check not found"),
    "version-conflict": (409, "Version conflict"),
    "check-ended": (409, "Check has ended"),
    "game-over": (409, "Game is over"),
    "record-not-available": (409, "Record not available yet"),
    "idempotency-conflict": (422, "Idempotency key reused for another request"),
    "idempotency-key-exists": (409, "Idempotency key already stored"),
    "invalid-parameter": (422, "Invalid parameter"),
    "parse-error": (422, "Unreadable input"),
    "unknown-game": (422, "Unknown game"),
    "unknown-deck": (404, "Unknown deck"),
    "unknown-card": (422, "Unknown card"),
    "unknown-suit": (422, "Unknown suit"),
    "illegal-move": (422, "Illegal move"),
    "undo-not-allowed": (422, "Undo not allowed"),
    "hints-off": (422, "Hints not allowed"),
    "no-hint": (422, "No hint to give"),
    "cannot-finish": (422, "Cannot finish this check"),
    "rule-violation": (422, "Forbidden by the rules"),
    "record-mismatch": (500, "Stored record does not replay"),
    "commitment-mismatch": (500, "Commitment mismatch"),
    "skillcheck-error": (400, "Bad request"),
}

#: The role prefix routes put on idempotency keys (``player:<key>``), hidden from messages.
_ROLE_SCOPE = re.compile(r"^(?:gm|player|spectator):")

#: HTTP errors raised by the API itself or by Litestar (no library error behind them).
_HTTP_CODES: dict[int, tuple[str, str]] = {
    400: ("bad-request", "Bad request"),
    401: ("unauthorized", "Authentication required"),
    403: ("forbidden", "Not allowed for this role"),
    404: ("not-found", "Not found"),
    405: ("method-not-allowed", "Method not allowed"),
    409: ("conflict", "Conflict"),
    412: ("precondition-failed", "Precondition failed"),
    413: ("request-too-large", "Request body too large"),
    415: ("unsupported-media-type", "Unsupported media type"),
    422: ("unprocessable", "Unprocessable request"),
    428: ("precondition-required", "Precondition required"),
    429: ("rate-limited", "Too many requests"),
    503: ("unavailable", "Service unavailable"),
    500: ("internal-error", "Internal server error"),
}


class Problem(msgspec.Struct, omit_defaults=True):
    """An RFC 9457 problem detail as the API sends it (``application/problem+json``)."""

    type: str
    title: str
    status: int
    detail: str
    instance: str
    code: str
    #: The request field (body member, query parameter or header) that was wrong.
    field: str | None = None
    #: Every validation message, when a body or query did not fit its schema.
    errors: list[dict[str, str]] | None = None
    #: A version conflict: the version the request expected and the check's.
    expected_version: int | None = None
    actual_version: int | None = None
    #: 403: the role of the token that may not do this.
    role: str | None = None
    #: 422 ``wrong-type``: the JSON type the field takes, in words ("a whole number or null").
    expected: str | None = None
    #: 422 ``beyond-last-event``: the sequence of the check's last event.
    last_sequence: int | None = None


_WHEN: dict[int, str] = {
    400: "A malformed request: a body that is not JSON or nests too deep, an unknown or missing "
    "field, a parameter out of range, or a bad header (the problem's field names it)",
    401: "No bearer token, or a token that is nobody's (no GM key, no check's token)",
    403: "The token's role may not do this (a spectator moving, a player cancelling)",
    404: "No such check for this token: a GM key or another check's token gets 404 whether "
    "or not the check exists, so a token learns nothing about other checks",
    409: "A version conflict (expected_version), or the check has ended, or no record yet",
    412: "If-Match names another version: nothing changed",
    413: "The request body is over the size limit",
    415: "The body is not sent as JSON: its Content-Type must be application/json",
    422: "Refused by the rules or the parameters (illegal move, undo not allowed, bad parameter), "
    "or a value of the wrong JSON type (wrong-type: a string for a number, a number for a "
    "boolean; nothing is converted), or an event sequence beyond the check's last "
    "(beyond-last-event, with last_sequence)",
    429: "Too many requests from this address, or too many live streams open at once "
    "(too-many-streams); Retry-After says when to try again",
    503: "The database does not answer",
}


def problem_responses(*statuses: int) -> dict[int, ResponseSpec]:
    """OpenAPI entries for the problems a route can answer with (and 429, which any can)."""
    return {
        status: ResponseSpec(
            data_container=Problem,
            media_type=PROBLEM_JSON,
            description=_WHEN[status],
            generate_examples=False,
        )
        for status in sorted({*statuses, 429})
    }


def problem_description(status: int) -> str:
    """When the API answers ``status`` with a problem, in words (the OpenAPI description)."""
    return _WHEN[status]


def problem_type(code: str) -> str:
    return PROBLEM_BASE + code


def title_for(code: str, status: int) -> str:
    """A problem's ``title``: one per ``code`` wherever it is raised (RFC 9457: the title does
    not change from occurrence to occurrence). A code of the table takes the table's title,
    whether the library raised it or the API itself (``invalid-parameter``, ``unknown-game``);
    the API's own codes take their status's."""
    if code in STATUS_BY_CODE:
        return STATUS_BY_CODE[code][1]
    if code == "validation-error":
        return "Invalid request"
    return _HTTP_CODES.get(status, ("http-error", "HTTP error"))[1]


def status_for(error: SkillcheckError) -> tuple[int, str]:
    for cls in type(error).__mro__:
        code = getattr(cls, "code", None)
        if isinstance(code, str) and code in STATUS_BY_CODE:
            return STATUS_BY_CODE[code]
    return STATUS_BY_CODE["skillcheck-error"]


class ApiProblem(HTTPException):
    """An HTTP error of the API's own (auth, preconditions) with a stable ``code``."""

    def __init__(
        self, status: int, code: str, detail: str, headers: dict[str, str] | None = None,
        **extra: Any,
    ) -> None:  # fmt: skip
        if status == 401:  # RFC 9110: a 401 names the scheme it wants
            headers = {"WWW-Authenticate": 'Bearer realm="skillcheck"', **(headers or {})}
        super().__init__(status_code=status, detail=detail, headers=headers)
        self.code = code
        self.extra_members = extra


def root_path(request: Request[Any, Any, Any]) -> str:
    """The path prefix the server is mounted under (``--root-path``; ``""`` without one)."""
    return str(request.scope.get("root_path") or "").rstrip("/")


def request_path(request: Request[Any, Any, Any]) -> str:
    """The path the client asked for, root path included (a problem's ``instance``).

    A routed request's ``scope["path"]`` is the route's path without the root path (Litestar
    strips it); one that matched no route or method keeps the server's path, which under
    uvicorn already starts with the root path. ``request.url`` adds the root path to both, so
    an unknown route read ``/sc/sc/nope``: strip it once here, as Litestar's router does."""
    root = root_path(request)
    path = str(request.scope.get("path") or "/")
    if (
        root
        and "route_handler" not in request.scope
        and (path == root or path.startswith(root + "/"))
    ):
        path = path[len(root) :] or "/"
    return root + path


def problem_response(
    request: Request[Any, Any, Any],
    status: int,
    code: str,
    title: str,
    detail: str,
    headers: dict[str, str] | None = None,
    **extra: Any,
) -> Response[dict[str, Any]]:
    if isinstance(extra.get("field"), str):
        extra["field"] = _field_name(extra["field"])
    body: dict[str, Any] = {
        "type": problem_type(code),
        "title": title,
        "status": status,
        "detail": detail,
        "instance": request_path(request),
        "code": code,
        **extra,
    }
    return Response(body, status_code=status, media_type=PROBLEM_JSON, headers=headers)


def domain_error_handler(
    request: Request[Any, Any, Any], exc: Exception
) -> Response[dict[str, Any]]:
    assert isinstance(exc, SkillcheckError)
    status, title = status_for(exc)
    extra: dict[str, Any] = {}
    if isinstance(exc, ParameterError):
        extra["field"] = exc.parameter
    detail = exc.message
    # the API scopes idempotency keys by role (player:<key>): say the key the client sent
    if isinstance(exc, IdempotencyConflictError):
        detail = IdempotencyConflictError(_ROLE_SCOPE.sub("", exc.key)).message
    elif isinstance(exc, IdempotencyKeyExistsError):
        detail = IdempotencyKeyExistsError(exc.scope, _ROLE_SCOPE.sub("", exc.key)).message
    if isinstance(exc, VersionConflictError):
        extra.update(expected_version=exc.expected, actual_version=exc.actual)
        if request.headers.get("if-match") is not None:
            status = 412  # the same problem (and title), answered as a failed precondition
    if status >= 500:
        logger.error("domain error %s on %s: %s", exc.code, request.url.path, exc.message)
    return problem_response(request, status, exc.code, title, detail, **extra)


def http_error_handler(request: Request[Any, Any, Any], exc: Exception) -> Response[dict[str, Any]]:
    assert isinstance(exc, HTTPException)
    status = exc.status_code
    code = _HTTP_CODES.get(status, ("http-error", "HTTP error"))[0]
    extra: dict[str, Any] = {}
    detail = exc.detail
    if isinstance(exc, ApiProblem):
        code = exc.code
        extra.update(exc.extra_members)
    elif isinstance(exc, ValidationException):
        code = "validation-error"
        read = [
            (_field_name(_field_of(e)), *_message_of(request, e))
            for e in (exc.extra if isinstance(exc.extra, list) else [])
            if isinstance(e, dict)
        ]
        if read:
            extra["errors"] = [{"field": field, "message": text} for field, text, _ in read]
            extra["field"] = read[0][0]
            detail = "; ".join(
                f"{field}: {text}" if field and not named else text for field, text, named in read
            )
        missing = _MISSING_QUERY.fullmatch(str(exc.detail))
        if not read and missing is not None:
            extra["field"] = missing["name"]
            detail = f"the query parameter {missing['name']} is required"
    headers = dict(exc.headers or {})
    routed = "route_handler" in request.scope
    if not isinstance(exc, ApiProblem) and not routed and status in (404, 405):
        detail = _no_route(request, status, headers)
    if status == 413:
        most = request.app.request_max_body_size
        if isinstance(most, int):
            detail = f"request bodies are limited to {most} bytes ({most // 1024} KiB)"
    if status == 429:
        reset = headers.get("RateLimit-Reset") or headers.get("ratelimit-reset")
        policy = headers.get("RateLimit-Policy") or headers.get("ratelimit-policy") or ""
        if reset is not None:
            headers["Retry-After"] = reset  # what generic HTTP clients honour
        limit, _, window = policy.partition("; w=")
        if limit and window:
            detail = (
                f"at most {limit} requests per {window} s from one address; "
                f"retry in {reset or window} s"
            )
    title = title_for(code, status)
    return problem_response(request, status, code, title, detail, headers=headers, **extra)


#: A path a refusal repeats whole (longer ones are cut, as a value is: the client wrote them).
_LONGEST_PATH = 200


def _no_route(request: Request[Any, Any, Any], status: int, headers: dict[str, str]) -> str:
    """What a request that matched no route (404) or no method of its route (405) asked for,
    and what there is instead."""
    path = request_path(request)
    if len(path) > _LONGEST_PATH or not path.isprintable():
        path = quoted(path)
    if status == 404:
        return (
            f"there is no route {path} on this server: GET {root_path(request)}/v1 lists the "
            f"API's routes, and {root_path(request)}/schema documents every operation"
        )
    allow = headers.get("allow") or headers.get("Allow") or ""
    methods = sorted({m.strip().upper() for m in allow.split(",") if m.strip()})
    takes = f"it takes {', '.join(methods)}" if methods else "it takes no method here"
    method = request.method if request.method.isalpha() else quoted(request.method)
    return f"{method} is not allowed on {path}: {takes}"


def refuse_unknown_cards(game: type[Any], flat: Mapping[str, Any]) -> None:
    """422 ``unknown-card`` naming the parameter (``field``) whose list holds a card its deck
    does not have, and how cards are written, where the library's own error names neither the
    parameter nor anything shorter than every card of the deck. ``flat`` holds the game's
    options by parameter name (``skillcheck.schema.flat_params`` of a check's ``params``)."""
    for spec in game.parameters():
        items = flat.get(spec.name)
        deck = DECKS.get(spec.deck or "") if spec.kind == "cards" else None
        if deck is None or not isinstance(items, list | tuple):
            continue
        for item in items:
            if not isinstance(item, str):
                continue  # a type the parameter schema refuses by itself
            try:
                deck.parse(item)
            except UnknownCardError:
                raise ApiProblem(
                    422,
                    "unknown-card",
                    f"{spec.name}: unknown card {quoted(item)}: give each card by its code "
                    f"({deck.code_help}) or its name; GET /v1/decks/{deck.name} lists its "
                    f"{len(deck.cards)} cards",
                    field=spec.name,
                ) from None


def game_names() -> str:
    """The registered games' names, for messages."""
    return ", ".join(GAMES) or "none (no game is installed)"


def missing_game_handler(
    request: Request[Any, Any, Any], exc: Exception
) -> Response[dict[str, Any]]:
    """For routes that take a ``game`` (a body member or a query parameter): leaving it out is
    422 ``invalid-parameter`` naming the games, since no game is the default; any other
    validation error is answered as everywhere (400)."""
    assert isinstance(exc, HTTPException)
    errors = (
        exc.extra if isinstance(exc, ValidationException) and isinstance(exc.extra, list) else []
    )
    missing = "parameter 'game'" in str(exc.detail) or any(
        isinstance(e, dict) and "missing required field `game`" in str(e.get("message"))
        for e in errors
    )
    if not missing:
        return http_error_handler(request, exc)
    return problem_response(
        request,
        422,
        "invalid-parameter",
        title_for("invalid-parameter", 422),
        f"game is required: give the name of a game ({game_names()}; GET /v1/games lists them)",
        field="game",
    )


#: What Litestar and msgspec say of a value or member they refuse, in their own spelling.
_ENUM_VALUE = re.compile(r"Invalid enum value (?P<q>['\"])(?P<value>.*)(?P=q)", re.DOTALL)
_UNKNOWN_FIELD = re.compile(
    r"Object contains unknown field `(?P<name>.*?)`(?: - at `\$\.?(?P<at>[^`]*)`)?", re.DOTALL
)
_MISSING_FIELD = re.compile(
    r"Object missing required field `(?P<name>[^`]*)`(?: - at `\$\.?(?P<at>[^`]*)`)?"
)
_QUERY_RULE = re.compile(
    r"Expected `(?P<want>[^`]+)`(?:, got `[^`]+`)?(?: (?P<rule>(?:of length )?[<>]= -?[\d.]+))?"
)
_MISSING_QUERY = re.compile(r"Missing required query parameter '(?P<name>[^']+)' for path .*")


def _message_of(request: Request[Any, Any, Any], error: dict[str, Any]) -> tuple[str, bool]:
    """A validation message for people, and whether it names its field itself: the value or
    member refused quoted as JSON and cut short (:func:`skillcheck.errors.quoted`), with what
    is allowed there when the handler's declared types say it (a query parameter's choices, a
    body's members)."""
    message = str(error.get("message") or "")
    key = str(error.get("key") or "")
    if key == "data" and message.strip("'\"") == "data":
        return "the request has no body: send a JSON object (Content-Type: application/json)", True
    found = _ENUM_VALUE.fullmatch(message)
    if found is not None:
        choices = _declared_choices(request, key)
        allowed = f": {key} is one of {', '.join(choices)}" if choices else ""
        sent = request.query_params.get(key, found["value"])  # as sent, not as Python wrote it
        return f"{key} {quoted(sent)} is not allowed{allowed}", True
    for pattern in (_UNKNOWN_FIELD, _MISSING_FIELD):
        found = pattern.fullmatch(message)
        if found is None:
            continue
        members = _declared_members(request) if not found["at"] else []
        allowed = f": the body's members are {', '.join(members)}" if members else ""
        where = f" in {found['at']}" if found["at"] else ""
        if pattern is _UNKNOWN_FIELD:
            return f"unknown member {quoted(found['name'])}{where}{allowed}", True
        return f"{found['name']} is missing{where}{allowed}", True
    found = _MISSING_QUERY.fullmatch(message) or _MISSING_QUERY.fullmatch(key)
    if found is not None:
        return f"the query parameter {found['name']} is required", True
    found = _QUERY_RULE.fullmatch(message)
    if found is not None and key in request.query_params:
        from api.strict import rule_words, words_for_type  # (api.strict imports this module)

        want = words_for_type(found["want"])
        if found["rule"] and found["rule"].startswith("of length"):
            want = rule_words(found["rule"])  # a query parameter is text: say only its length
        elif found["rule"]:
            want += f" {rule_words(found['rule'])}"
        sent = request.query_params.get(key)
        return f"{key} must be {want}, not {quoted(sent)}", True
    return message, False


def _declared(request: Request[Any, Any, Any], name: str) -> Any:
    """The annotation the handler declares for its parameter ``name`` (``X | None`` → ``X``)."""
    parameter = request.route_handler.parsed_fn_signature.parameters.get(name)
    annotation = getattr(parameter, "annotation", None)
    if get_origin(annotation) in (Union, types.UnionType):
        rest = [a for a in get_args(annotation) if a is not type(None)]
        annotation = rest[0] if len(rest) == 1 else annotation
    return annotation


def _declared_choices(request: Request[Any, Any, Any], name: str) -> list[str]:
    annotation = _declared(request, name)
    if get_origin(annotation) is Literal:
        return [str(choice) for choice in get_args(annotation)]
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return [str(member.value) for member in annotation]
    return []


def _declared_members(request: Request[Any, Any, Any]) -> list[str]:
    annotation = _declared(request, "data")
    if isinstance(annotation, type) and issubclass(annotation, msgspec.Struct):
        return list(annotation.__struct_fields__)
    return []


def _field_name(name: str) -> str:
    """A ``field`` as a problem names it: a name the client made up (an unknown member or
    option) is cut as :func:`skillcheck.errors.quoted` cuts values, not echoed whole."""
    return name if len(name) <= QUOTE_LIMIT else f"{name[:QUOTE_LIMIT]}…"


def _field_of(error: dict[str, Any]) -> str:
    """The body field a validation message is about: msgspec says ``... - at `$.move```."""
    message = str(error.get("message") or "")
    found = _UNKNOWN_FIELD.fullmatch(message)
    if found is not None:
        return found["name"] if not found["at"] else f"{found['at']}.{found['name']}"
    found = re.search(r"at `\$\.([^`]+)`", message)
    if found:
        return found.group(1)
    found = re.search(r"required field `([^`]+)`", message)
    if found:
        return found.group(1)
    return str(error.get("key") or "")


def internal_error_handler(
    request: Request[Any, Any, Any], exc: Exception
) -> Response[dict[str, Any]]:
    logger.exception("unhandled error on %s", request.url.path, exc_info=exc)
    return problem_response(
        request,
        HTTP_500_INTERNAL_SERVER_ERROR,
        "internal-error",
        "Internal server error",
        "the server failed to answer this request; it has been logged",
    )
