"""The OpenAPI document says what the server does: one pass over it, from the routes themselves.

Litestar builds the document from the handlers; :func:`tell_the_truth` then corrects, for every
route (those of other modules too, so an endpoint added later is covered by declaring it the
usual way), what Litestar cannot infer:

- **security**: a handler declared with ``security=[]`` is public, and its operation says
  ``security: []`` (Litestar drops the empty list, so the document's default, a bearer token,
  would wrongly apply);
- **request bodies**: the schema of a body ``msgspec.Struct`` (and of every Struct inside it)
  is msgspec's own JSON Schema of it, the schema of exactly what the strict decoder accepts
  (``additionalProperties: false`` from ``forbid_unknown_fields=True``, bounds, lengths and
  patterns from ``msgspec.Meta``); a ``data`` parameter with a default makes the body optional
  (``required: false``);
- **game names**: a body member or query parameter called ``game`` is an ``enum`` of the
  registered games (``skillcheck.engine.GAMES``, read when the app is built);
- **streams**: a ``text/event-stream`` answer's schema is one event (``id``, ``event``,
  ``data``), its ``data`` the JSON body the handler names in ``opt={"event_data": ...}``;
- **links**: an answer that creates something (201) and whose body has members named like the
  path parameters of other operations links to them (``check_id`` of ``POST /v1/checks`` to
  every ``/v1/checks/{check_id}...``), so stateful clients and testers can follow them.

Strict decoding (:mod:`api.strict`) makes the server as strict as these schemas; the rules for
adding an endpoint are in docs/api.md ("Adding an endpoint").
"""

from __future__ import annotations

import types
from typing import Any, Union, get_args, get_origin, get_type_hints

import msgspec
from litestar import Litestar
from litestar.handlers import HTTPRouteHandler
from litestar.openapi.spec import (
    Link,
    OpenAPI,
    OpenAPIMediaType,
    OpenAPIResponse,
    Operation,
    Parameter,
    Reference,
    RequestBody,
    Schema,
)
from litestar.openapi.spec.enums import OpenAPIType
from litestar.routes import HTTPRoute

from api.problems import PROBLEM_JSON, problem_description
from skillcheck.engine import GAMES

__all__ = ["tell_the_truth"]

_METHODS = ("get", "put", "post", "delete", "patch")
_PROBLEM = Reference(ref="#/components/schemas/Problem")


def _struct_types(annotation: Any) -> list[type[msgspec.Struct]]:
    """The Struct types in an annotation (``X | None`` → ``[X]``), and those nested in them."""
    found: list[type[msgspec.Struct]] = []
    pending = [annotation]
    while pending:
        item = pending.pop()
        if get_origin(item) in (Union, types.UnionType, list, dict, tuple):
            pending.extend(get_args(item))
        elif isinstance(item, type) and issubclass(item, msgspec.Struct) and item not in found:
            found.append(item)
            pending.extend(get_type_hints(item).values())
    return found


def _operations(document: OpenAPI, path: str) -> dict[str, Operation]:
    item = (document.paths or {}).get(path)
    if item is None:
        return {}
    found = {m: getattr(item, m) for m in _METHODS}
    return {m: op for m, op in found.items() if isinstance(op, Operation)}


def _schema(document: OpenAPI, value: Any) -> Schema | None:
    if isinstance(value, Reference):
        name = value.ref.rsplit("/", 1)[-1]
        found = (document.components.schemas or {}).get(name)
        return found if isinstance(found, Schema) else None
    return value if isinstance(value, Schema) else None


def _games_enum(schema: Schema) -> None:
    schema.enum = list(GAMES)
    schema.description = (
        f"{schema.description + ' ' if schema.description else ''}"
        "A registered game (GET /v1/games lists them)."
    ).strip()


#: A parameter's declared bounds and the schema keyword each one is.
_BOUNDS = (("ge", "minimum"), ("le", "maximum"), ("gt", "exclusive_minimum"),
           ("lt", "exclusive_maximum"))  # fmt: skip


def _parameter_bounds(document: OpenAPI, parameter: Parameter, handler: HTTPRouteHandler) -> None:
    """A query parameter's ``ge``/``le``/``gt``/``lt`` as its schema's bounds: Litestar drops a
    bound of 0 (``ge=0``), so ``after=-1`` looked valid to a client and got a 400."""
    field = handler.parsed_fn_signature.parameters.get(parameter.name)
    declared = getattr(field, "kwarg_definition", None)
    schema = _schema(document, parameter.schema)
    if declared is None or schema is None:
        return
    numbers = [schema] if schema.type == OpenAPIType.INTEGER else []
    numbers += [
        branch
        for branch in (_schema(document, b) for b in schema.one_of or ())
        if branch is not None and branch.type == OpenAPIType.INTEGER
    ]
    for attribute, keyword in _BOUNDS:
        value = getattr(declared, attribute, None)
        if value is None:
            continue
        if numbers and schema not in numbers:  # the bound sits on the branch, not the union
            for key in ("minimum", "maximum", "exclusive_minimum", "exclusive_maximum"):
                if getattr(schema, key) is not None:
                    setattr(schema, key, None)
        for target in numbers:
            setattr(target, keyword, value)


def _fix_handler(
    document: OpenAPI, path: str, handler: HTTPRouteHandler, bodies: list[type[msgspec.Struct]]
) -> None:
    for method in handler.http_methods:
        operation = _operations(document, path).get(method.lower())
        if operation is None:
            continue
        if handler.security is not None and not handler.security:
            operation.security = []
        for parameter in operation.parameters or ():
            if isinstance(parameter, Parameter) and parameter.name == "game":
                schema = _schema(document, parameter.schema)
                if schema is not None and schema.type == OpenAPIType.STRING:
                    _games_enum(schema)
            if isinstance(parameter, Parameter):
                _parameter_bounds(document, parameter, handler)
        _document_refusals(operation)
        _describe_streams(operation, handler)
        data = handler.parsed_fn_signature.parameters.get("data")
        body = operation.request_body
        if data is None or not isinstance(body, RequestBody):
            continue
        if data.has_default:
            body.required = False
        bodies.extend(t for t in _struct_types(data.annotation) if t not in bodies)


def _body_schemas(document: OpenAPI, bodies: list[type[msgspec.Struct]]) -> None:
    """Replace the bodies' component schemas with msgspec's own: the schema of exactly what the
    strict decoder accepts (bounds, lengths, patterns, ``additionalProperties: false`` for
    ``forbid_unknown_fields``), where Litestar's conversion loses some (``minimum: 0``)."""
    if not bodies:
        return
    _, components = msgspec.json.schema_components(
        bodies, ref_template="#/components/schemas/{name}"
    )
    schemas: dict[str, Any] = dict(document.components.schemas or {})
    for name, schema in components.items():
        for member in schema.get("properties", {}).values():
            if member.get("type") == "object" and not {"properties", "additionalProperties"} & set(
                member
            ):
                member["additionalProperties"] = {}  # an open object (dict[str, Any]), said so
        game = schema.get("properties", {}).get("game")
        if isinstance(game, dict) and game.get("type") == "string":
            game["enum"] = list(GAMES)
            game["description"] = "A registered game (GET /v1/games lists them)."
        schemas[name] = schema  # plain JSON Schema: the document writes dicts as they are
    document.components.schemas = schemas


def _document_refusals(operation: Operation) -> None:
    """An operation that reads a body or query parameters can refuse them: 400 (not JSON, too
    deep, an unknown or missing field, out of range), 415 (a body not sent as
    ``application/json``) and 422 (a wrong JSON type, a value the rules refuse), whatever the
    handler declared."""
    reads_query = any(
        isinstance(p, Parameter) and p.param_in == "query" for p in operation.parameters or ()
    )
    if not reads_query and operation.request_body is None:
        return
    responses = operation.responses if operation.responses is not None else {}
    # a body not sent as application/json is refused before it is read (api/strict.py)
    statuses = (400, 415, 422) if operation.request_body is not None else (400, 422)
    for status in statuses:
        if str(status) not in responses:
            responses[str(status)] = OpenAPIResponse(
                description=problem_description(status),
                content={PROBLEM_JSON: OpenAPIMediaType(schema=_PROBLEM)},
            )
    operation.responses = dict(sorted(responses.items()))


def _describe_streams(operation: Operation, handler: HTTPRouteHandler) -> None:
    """A ``text/event-stream`` answer's schema is one event (OpenAPI 3.1 reads it per event):
    ``id``, ``event`` and ``data`` lines as text; a handler's ``opt={"event_data": <component
    name>}`` says which JSON body ``data`` holds."""
    data: dict[str, Any] = {"type": "string", "contentMediaType": "application/json"}
    body = handler.opt.get("event_data")
    if isinstance(body, str):
        data["contentSchema"] = {"$ref": f"#/components/schemas/{body}"}
    event = {
        "type": "object",
        "description": "One server-sent event (comment lines such as keepalives are no event)",
        "properties": {
            "id": {"type": "string"},
            "event": {"type": "string"},
            "data": data,
            "retry": {"type": "integer"},
        },
        "required": ["data"],
    }
    for response in (operation.responses or {}).values():
        for media, content in (getattr(response, "content", None) or {}).items():
            if media == "text/event-stream":
                content.schema = event  # plain JSON Schema: the document writes dicts as they are


def _link_creations(document: OpenAPI) -> None:
    """Link every 201 answer's members to the operations whose path parameters they fill."""
    targets: list[tuple[str, set[str]]] = []
    for item in (document.paths or {}).values():
        for method in _METHODS:
            operation = getattr(item, method)
            if isinstance(operation, Operation) and operation.operation_id:
                names = {
                    p.name
                    for p in operation.parameters or ()
                    if isinstance(p, Parameter) and p.param_in == "path"
                }
                if names:
                    targets.append((operation.operation_id, names))
    for item in (document.paths or {}).values():
        for method in _METHODS:
            operation = getattr(item, method)
            if not isinstance(operation, Operation):
                continue
            created = (operation.responses or {}).get("201")
            content = getattr(created, "content", None) or {}
            media = content.get("application/json")
            schema = _schema(document, media.schema) if media is not None else None
            members = set((schema.properties or {}) if schema is not None else ())
            links = {
                target: Link(
                    operation_id=target,
                    parameters={name: f"$response.body#/{name}" for name in sorted(names)},
                )
                for target, names in targets
                if names <= members
            }
            if links and created is not None and hasattr(created, "links"):
                created.links = {**(created.links or {}), **links}


def tell_the_truth(app: Litestar) -> None:
    """Correct ``app``'s OpenAPI document in place (see the module); call once, when the app
    is built (every route is registered by then)."""
    document = app.openapi_schema
    bodies: list[type[msgspec.Struct]] = []
    for route in app.routes:
        if isinstance(route, HTTPRoute):
            for handler in route.route_handlers:
                if handler.include_in_schema:
                    _fix_handler(document, route.path_format or "/", handler, bodies)
    _body_schemas(document, bodies)
    _link_creations(document)
