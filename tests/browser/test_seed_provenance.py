"""The player's page says plainly when the GM chose the deal (issue 11): the commitment then
proves the deal was fixed before play, not that it was random. A check dealt from fresh entropy
says nothing of the kind."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import httpx
from browser_support import GAME, GM_KEY, PARAMS, Check, expect_check_shown, snap
from playwright.sync_api import Page, expect

expect.set_options(timeout=8000)


def test_the_page_says_the_gm_chose_this_deal(
    page: Page, server: str, new_check: Callable[..., Check], shots: Path
) -> None:
    chosen = new_check(seed=11)
    page.goto(chosen.url(server))
    expect_check_shown(page)
    fact = page.locator("#seed-fact")
    expect(fact).to_be_visible()
    expect(fact).to_contain_text("The GM chose this deal.")
    snap(page, shots, "seed-chosen")
    # it stays when the check ends, beside the commitment the result shows
    chosen.http.post(f"/v1/checks/{chosen.check_id}/concede", headers=chosen.auth())
    page.reload()
    expect(page.locator("#result")).to_be_visible()
    expect(page.locator("#result-commitment")).to_have_text(chosen.commitment)
    expect(fact).to_be_visible()
    snap(page, shots, "seed-chosen-ended")


def test_a_drawn_deal_says_nothing_of_the_kind(page: Page, server: str, http: httpx.Client) -> None:
    made = http.post(
        "/v1/checks",
        json={"game": GAME, "params": PARAMS},
        headers={"Authorization": f"Bearer {GM_KEY}"},
    )
    assert made.status_code == 201, made.text
    body = made.json()
    assert body["view"]["seed_chosen"] is False
    page.goto(f"{server}/play/{body['check_id']}#token={body['player_token']}")
    expect_check_shown(page)
    expect(page.locator("#seed-fact")).to_be_hidden()
    expect(page.locator("body")).not_to_contain_text("The GM chose", use_inner_text=True)
