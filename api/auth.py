"""Roles from the Authorization header.

- **GM**: ``Bearer <one of SKILLCHECK_GM_KEYS>``; creates checks and reaches the checks it created.
- **player**: the check's player token (stored only as its SHA-256); plays that check only.
- **spectator**: the check's read-only token.

A real token (a GM key, or some check's token) that does not reach the check named in the path
gets the same 404 whether or not the check exists, so a foreign token learns nothing. A missing
token, or one that is nobody's (a made-up or mistyped token), gets 401.
"""

from __future__ import annotations

import enum
import hashlib
import hmac
import secrets
from typing import Any

from litestar import Request

from api.problems import ApiProblem
from api.settings import Settings
from api.store import SqlCheckStore
from skillcheck.errors import quoted

__all__ = ["Role", "check_role", "gm_key_digest", "new_token", "require", "sha256_hex"]


class Role(enum.Enum):
    GM = "gm"
    PLAYER = "player"
    SPECTATOR = "spectator"


def sha256_hex(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def new_token(prefix: str) -> str:
    """A bearer token: a readable prefix and 256 random bits."""
    return f"{prefix}_{secrets.token_urlsafe(32)}"


def _bearer(request: Request[Any, Any, Any]) -> str:
    header = request.headers.get("authorization")
    if not header:
        raise ApiProblem(
            401,
            "unauthorized",
            "this endpoint needs 'Authorization: Bearer <token>' (a GM key, or a check's player "
            "or spectator token)",
        )
    scheme, _, token = header.partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token:
        raise ApiProblem(401, "unauthorized", "the Authorization header must read 'Bearer <token>'")
    return token


def _gm_digest(token: str, settings: Settings) -> str | None:
    digest = sha256_hex(token)
    found = None
    for key in settings.gm_keys:  # compare every key, in constant time each
        if hmac.compare_digest(digest, sha256_hex(key)):
            found = digest
    return found


def _nobodys_token(more: str = "") -> ApiProblem:
    """401 for a token that is no GM key and no check's token (made up, mistyped, re-issued)."""
    return ApiProblem(
        401,
        "unauthorized",
        f"this token is not valid: it is no GM key and no check's player or spectator token{more}",
    )


def gm_key_digest(request: Request[Any, Any, Any], settings: Settings, store: SqlCheckStore) -> str:
    """The SHA-256 of the GM key in the request: 401 without a token or with one that is
    nobody's, 403 for a check's player or spectator token."""
    token = _bearer(request)
    digest = _gm_digest(token, settings)
    if digest is not None:
        return digest
    role = store.token_role(sha256_hex(token))
    if role is None:
        raise _nobodys_token("; this endpoint needs a GM key (SKILLCHECK_GM_KEYS)")
    words = {"player": "a check's player token", "spectator": "a check's spectator token"}
    raise ApiProblem(
        403,
        "forbidden",
        f"this endpoint needs a GM key (SKILLCHECK_GM_KEYS), not {words[role]}",
        role=role,
    )


def check_role(
    request: Request[Any, Any, Any],
    settings: Settings,
    store: SqlCheckStore,
    check_id: str,
    *,
    fresh: bool | None = None,
) -> Role:
    """The role of the request's token on ``check_id``; 404 if it reaches no such check.
    ``fresh`` reads the credentials from the database, not the cache (an open stream asking
    whether a re-issue locked its token out). By default a request that acts (any method but
    GET and HEAD) reads them fresh: a re-issued token can then act nowhere, not even on another
    process whose cached copy the re-issue has not evicted yet (a primary-key read is cheap
    beside the action it guards). Reads use the cache: they show only the view."""
    if fresh is None:
        fresh = request.method not in ("GET", "HEAD")
    token = _bearer(request)
    gm = _gm_digest(token, settings)
    access = store.access(check_id, fresh=fresh)
    if access is not None:
        digest = sha256_hex(token)
        if gm is not None and hmac.compare_digest(gm, access.gm_key_sha256):
            return Role.GM
        if hmac.compare_digest(digest, access.player_token_sha256):
            return Role.PLAYER
        if hmac.compare_digest(digest, access.spectator_token_sha256):
            return Role.SPECTATOR
    if gm is None and not store.token_known(sha256_hex(token)):
        # No GM key and no check's token: saying so tells nothing about which checks exist.
        raise _nobodys_token()
    raise ApiProblem(
        404,
        "check-not-found",
        f"there is no check {quoted(check_id)} that this token can reach",
    )


def require(role: Role, *allowed: Role, action: str) -> None:
    if role not in allowed:
        words = {Role.GM: "the GM's key", Role.PLAYER: "the player's token",
                 Role.SPECTATOR: "a spectator's token"}  # fmt: skip
        names = " or ".join(words[r] for r in allowed)
        raise ApiProblem(
            403,
            "forbidden",
            f"{action} needs {names}; this is {words[role]}",
            role=role.value,
        )
