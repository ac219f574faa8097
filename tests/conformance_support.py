"""Helpers of the generic conformance suite (``tests/test_conformance.py``).

Nothing here names a game: everything goes through the registry (:data:`skillcheck.GAMES`), the
:class:`~skillcheck.engine.Game`/:class:`~skillcheck.engine.State` interface, decks by name and
the session service. A new game that registers itself is checked by the suite for every one of its
``examples()``.
"""

from __future__ import annotations

import json
import random
import re
import string
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from skillcheck import GAMES, Game, ParseError, State, Status
from skillcheck.cards import deck_named
from skillcheck.engine import UNDO
from skillcheck.serialization import game_from_params
from skillcheck.sessions import SessionService

# ---- the cases -----------------------------------------------------------------------------------


def cases() -> list[Any]:
    """``pytest.param(name, params, id="<name>-<i>")`` for every example of every game."""
    found = []
    for name, cls in GAMES.items():
        for number, params in enumerate(cls.examples()):
            found.append(pytest.param(name, params, id=f"{name}-{number}"))
    return found


def build(name: str, params: dict[str, Any]) -> Game[Any]:
    plain: dict[str, Any] = json.loads(json.dumps(params))
    game: Game[Any] = game_from_params(name, plain)
    return game


# ---- playing lines -------------------------------------------------------------------------------

#: A pick below zero takes a move back (when the game's undo policy allows it now); any other
#: pick chooses legal move ``pick % len(legal moves)``.
UNDO_PICK = -1


def play(
    state: State[Any],
    picks: Iterable[int],
    each: Callable[[State[Any], str | None], None] | None = None,
) -> list[str]:
    """Play ``picks`` on ``state`` (see :data:`UNDO_PICK`), calling ``each(state, action)`` at
    the start (action None) and after every action; returns the actions taken (codes and
    ``"undo"``), as a record or a session would replay them."""
    actions: list[str] = []
    if each is not None:
        each(state, None)
    for pick in picks:
        if state.is_terminal():
            break
        if pick < 0:
            if not state.can_undo:
                continue
            state.undo()
            actions.append(UNDO)
        else:
            moves = list(state.legal_moves)
            move = moves[pick % len(moves)]
            state.push(move)
            actions.append(move.code)
        if each is not None:
            each(state, actions[-1])
    return actions


def apply_action(state: State[Any], action: str) -> None:
    """Apply one action of a history: a move code, or ``"undo"``."""
    if action == UNDO:
        state.undo()
    else:
        state.push_code(action)


# ---- what the player sees ------------------------------------------------------------------------


def seen_by_player(state: State[Any]) -> dict[str, Any]:
    """Everything a front end shows of ``state``, as plain data."""
    from skillcheck.serialization import converter

    observation = state.observation()
    return {
        "observation": converter.unstructure(observation),
        "observation_code": observation.code(),
        "board": state.game.board(observation).to_dict(),
        "moves": [view.to_dict() for view in state.move_views()],
        "legal_moves": [m.code for m in state.legal_moves],
        "status": state.status.value,
    }


def permute_positions(
    deal: Sequence[Any], positions: Sequence[int], rng: random.Random
) -> tuple[Any, ...]:
    """``deal`` with the cards at ``positions`` permuted among themselves (never the identity
    when there are two or more positions holding different cards)."""
    cards = [deal[i] for i in positions]
    shuffled = list(cards)
    rng.shuffle(shuffled)
    if shuffled == cards and len(cards) > 1:
        shuffled = shuffled[1:] + shuffled[:1]
    result = list(deal)
    for index, card in zip(positions, shuffled, strict=True):
        result[index] = card
    return tuple(result)


# ---- scanning for hidden cards -------------------------------------------------------------------


class CardScanner:
    """Finds the cards of a game's deck named in data a player receives.

    Every string of the data (keys and values, walked recursively) is cut into tokens, runs of
    letters, digits and the other characters card codes use. A token that splits completely into
    card codes (``9MS8WL``, a tower in a position code; ``AS``; ``10H``) names the cards of
    every such split; a token that does not split (``t1``, ``deck``, ``d3``, ``Tower``) names no
    card, so a short code inside a longer word is not taken for a card. Card names
    (``the Ace of Moons``, ``2 of Spades``) are matched as whole words, ignoring case.
    """

    def __init__(self, game: Game[Any]) -> None:
        deck = deck_named(game.deck_name)
        self.deck = deck
        self.codes = frozenset(c.code for c in deck.cards)
        self.longest = max(len(c) for c in self.codes)
        extra = "".join(sorted({ch for c in self.codes for ch in c} - set(string.ascii_letters)))
        self._token = re.compile(f"[A-Za-z0-9{re.escape(extra)}]+")
        names = {c.code: str(deck.card_json(c)["name"]) for c in deck.cards}
        self._names = {
            code: re.compile(r"(?<!\w)" + re.escape(name) + r"(?!\w)", re.IGNORECASE)
            for code, name in names.items()
        }
        # (an ASCII name matches only where its lower-case text is: a cheap test first)
        self._lower = {code: name.lower() for code, name in names.items() if name.isascii()}
        self._splits: dict[str, frozenset[str]] = {}  # a game's data repeats its tokens

    def _split(self, token: str) -> frozenset[str]:
        """The card codes of every way ``token`` splits completely into card codes."""
        found = self._splits.get(token)
        if found is None:
            found = self._splits[token] = frozenset(self._splits_of(token))
        return found

    def _splits_of(self, token: str) -> set[str]:
        n = len(token)
        ahead = [False] * (n + 1)  # token[:i] splits
        ahead[0] = True
        for i in range(n):
            if ahead[i]:
                for j in range(i + 1, min(n, i + self.longest) + 1):
                    if token[i:j] in self.codes:
                        ahead[j] = True
        if not ahead[n]:
            return set()
        behind = [False] * (n + 1)  # token[i:] splits
        behind[n] = True
        for i in range(n - 1, -1, -1):
            behind[i] = any(
                behind[j] and token[i:j] in self.codes
                for j in range(i + 1, min(n, i + self.longest) + 1)
            )
        return {
            token[i:j]
            for i in range(n)
            for j in range(i + 1, min(n, i + self.longest) + 1)
            if ahead[i] and behind[j] and token[i:j] in self.codes
        }

    def codes_in(self, data: Any) -> set[str]:
        """The card codes named in ``data`` (strings, lists, dicts)."""
        return self._codes_in_text(_text(data))

    def names_in(self, data: Any, among: Iterable[str]) -> set[str]:
        """The codes of the cards ``among`` whose names appear in ``data``."""
        return self._names_in_text(_text(data), among)

    def hidden_in(self, data: Any, hidden: Iterable[str]) -> set[str]:
        """The hidden cards (codes) that ``data`` names by code or by name."""
        hidden = set(hidden)
        text = _text(data)
        return (self._codes_in_text(text) & hidden) | self._names_in_text(text, hidden)

    def _codes_in_text(self, text: str) -> set[str]:
        found: set[str] = set()
        for token in set(self._token.findall(text)):
            found |= self._split(token)
        return found

    def _names_in_text(self, text: str, among: Iterable[str]) -> set[str]:
        lower = text.lower()
        return {
            code
            for code in among
            if (code not in self._lower or self._lower[code] in lower)
            and self._names[code].search(text)
        }


def _text(data: Any) -> str:
    """Every string of ``data`` (keys and values, at every level), one per line. No token and
    no name spans a line (a line's end is neither a letter nor a code's character), so each
    token and each name is found where it was in one of the strings."""
    strings: list[str] = []
    pending = [data]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            strings.append(item)
        elif isinstance(item, dict):
            for key, value in item.items():
                strings.append(str(key))
                pending.append(value)
        elif isinstance(item, list | tuple):
            pending.extend(item)
    return "\n".join(strings)


def without_keys(data: Any, keys: frozenset[str]) -> Any:
    """``data`` without the entries named ``keys`` (at every level of nesting)."""
    if isinstance(data, dict):
        return {k: without_keys(v, keys) for k, v in data.items() if k not in keys}
    if isinstance(data, list | tuple):
        return [without_keys(v, keys) for v in data]
    return data


# ---- illegal moves -------------------------------------------------------------------------------

_ALPHABET = string.ascii_letters + string.digits + "-_>/+.:,#*"


def mutated_codes(codes: Iterable[str]) -> set[str]:
    """Strings near the legal codes ``codes``: each character changed, adjacent characters
    swapped, a character dropped or added, and each run of digits replaced by other numbers."""
    codes = list(codes)
    alphabet = sorted(set(_ALPHABET) | {ch for code in codes for ch in code})
    out: set[str] = set()
    for code in codes:
        for i in range(len(code)):
            for ch in alphabet:
                out.add(code[:i] + ch + code[i + 1 :])
            out.add(code[:i] + code[i + 1 :])
            if i + 1 < len(code):
                out.add(code[:i] + code[i + 1] + code[i] + code[i + 2 :])
        for ch in alphabet:
            out.add(code + ch)
            out.add(ch + code)
        for match in re.finditer(r"\d+", code):
            number = int(match.group())
            for other in {0, 1, number - 1, number + 1, number + 10, 99, 100, 12345}:
                if other >= 0:
                    out.add(code[: match.start()] + str(other) + code[match.end() :])
        out.add(code + code)
        out.add(code[::-1])
    out -= set(codes)
    return out


def illegal_candidates(state: State[Any]) -> tuple[dict[str, Any], list[tuple[str, Exception]]]:
    """Mutations of the legal codes of ``state``: those that parse to a move that is not legal
    (by the move's own code), and the parse failures that were not a ParseError."""
    game = state.game
    legal = list(state.legal_moves)
    illegal: dict[str, Any] = {}
    wrong: list[tuple[str, Exception]] = []
    for text in sorted(mutated_codes(m.code for m in legal)):
        try:
            move = game.parse_move(text)
        except ParseError:
            continue
        except Exception as exc:  # the contract: a malformed code raises ParseError
            wrong.append((text, exc))
            continue
        if move not in legal:
            illegal.setdefault(text, move)
    return illegal, wrong


# ---- the session service -------------------------------------------------------------------------


class Clock:
    """A deterministic clock: one second per call."""

    def __init__(self) -> None:
        self.now = datetime(2026, 1, 1, tzinfo=UTC)
        self._lock = threading.Lock()

    def __call__(self) -> datetime:
        with self._lock:
            self.now += timedelta(seconds=1)
            return self.now


#: Parts of a check view that differ between two checks of the same game and position.
VOLATILE = frozenset({"check_id", "commitment", "created_at", "updated_at"})


def view_data(view: Any) -> dict[str, Any]:
    """A :class:`~skillcheck.sessions.CheckView` as JSON data without ids and timestamps."""
    data = json.loads(json.dumps(view.to_dict(), ensure_ascii=False))
    return {k: v for k, v in data.items() if k not in VOLATILE}


@contextmanager
def dealing(game: Game[Any], seed: int, deal: tuple[Any, ...] | None) -> Iterator[None]:
    """While inside, ``game.deal(seed)`` (and so ``new_state(seed)``, as the session service
    calls it) gives ``deal`` instead of the seed's own deal."""
    if deal is None:
        yield
        return
    cls = type(game)
    original = cls.deal

    def patched(self: Game[Any], wanted: int) -> tuple[Any, ...]:
        if self == game and wanted == seed:
            return tuple(deal)
        return original(self, wanted)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(cls, "deal", patched)
        assert tuple(game.new_state(seed).deal or ()) == tuple(deal), "the deal was not replaced"
        yield


class Session:
    """A check of ``game`` in a fresh in-memory session service, played by move codes."""

    def __init__(self, game: Game[Any], seed: int) -> None:
        self.service = SessionService(clock=Clock())
        created = self.service.create(game, seed=seed)
        self.check_id = created.check_id
        self.views = [created.view]
        self.events_seen = 0

    def act(self, action: str) -> Any:
        if action == UNDO:
            view = self.service.undo(self.check_id)
        else:
            view = self.service.move(self.check_id, action)
        self.views.append(view)
        return view

    def new_events(self) -> list[dict[str, Any]]:
        events = self.service.events(self.check_id)
        fresh = [e.to_dict() for e in events[self.events_seen :]]
        self.events_seen = len(events)
        plain: list[dict[str, Any]] = json.loads(json.dumps(fresh, ensure_ascii=False, default=str))
        return plain


# ---- shortest wins by brute force ----------------------------------------------------------------


class BudgetExceeded(Exception):
    pass


def shortest_win(state: State[Any], max_depth: int, max_nodes: int) -> int | None:
    """The fewest moves that win from ``state`` (None if none within ``max_depth``), by a
    breadth-first search over copies (positions deduplicated by ``code()`` per level)."""
    if state.status is Status.WON:
        return 0
    frontier = [state.copy()]
    nodes = 0
    for depth in range(1, max_depth + 1):
        following: dict[str, State[Any]] = {}
        for current in frontier:
            for move in list(current.legal_moves):
                child = current.copy()
                child.push(move)
                nodes += 1
                if nodes > max_nodes:
                    raise BudgetExceeded(f"more than {max_nodes} positions within {depth} moves")
                if child.status is Status.WON:
                    return depth
                if not child.is_terminal():
                    following.setdefault(child.code(), child)
        frontier = list(following.values())
        if not frontier:
            return None
    return None
