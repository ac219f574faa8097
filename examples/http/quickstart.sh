#!/usr/bin/env bash
# The whole life of a check with curl: create, view, move (If-Match + Idempotency-Key), a stale
# version refused, events, concede, the revealed record and `skillcheck verify`.
#
#   SKILLCHECK_URL=http://127.0.0.1:8000 SKILLCHECK_GM_KEY=my-gm-key examples/http/quickstart.sh
#
# Needs bash, curl and python3 (for reading JSON; `jq` works as well, see docs/api.md). The last
# step runs `skillcheck verify` (pip install skillcheck); set SKILLCHECK_CLI to another command.
set -euo pipefail

API=${SKILLCHECK_URL:-http://127.0.0.1:8000}
GM_KEY=${SKILLCHECK_GM_KEY:?set SKILLCHECK_GM_KEY to one of the server\'s SKILLCHECK_GM_KEYS}
CLI=${SKILLCHECK_CLI:-skillcheck}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# json FILE EXPR: print a value of the JSON in FILE (EXPR is Python over `d`, the parsed JSON).
json() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }
# header FILE NAME: the value of a response header saved with `curl -D FILE`.
header() { tr -d '\r' <"$1" | awk -v n="$(tr '[:upper:]' '[:lower:]' <<<"$2"):" 'tolower($1)==n {print $2}'; }
# status FILE: the status code of a response saved with `curl -D FILE`.
status() { awk 'NR==1 {print $2}' "$1"; }
# expect CODE NAME: stop unless the response saved as $WORK/NAME.h/.json has status CODE.
expect() {
  [ "$(status "$WORK/$2.h")" = "$1" ] && return
  echo "expected $1, got $(status "$WORK/$2.h"):" >&2; cat "$WORK/$2.json" >&2; echo >&2; exit 1
}

echo "== 1. the games and their parameters (no token needed)"
curl -sS "$API/v1/games" -o "$WORK/games.json"
json "$WORK/games.json" '", ".join(p["name"] for p in d["games"][0]["parameters"])'

echo "== 2. the GM creates a quota check (Moons, skill 3, quota 3, a small deck)"
curl -sS -X POST "$API/v1/checks" \
  -H "Authorization: Bearer $GM_KEY" -H 'Content-Type: application/json' \
  -d '{"game": "three-towers",
       "params": {"level": 6, "variant": {"kind": "quota", "suit": "moons", "skill": 3, "quota": 3}},
       "label": "Mira picks the lock", "metadata": {"pc": "Mira"}}' \
  -D "$WORK/created.h" -o "$WORK/created.json"
expect 201 created
CHECK=$(json "$WORK/created.json" 'd["check_id"]')
PLAYER=$(json "$WORK/created.json" 'd["player_token"]')       # shown once: hand it to the player
SPECTATOR=$(json "$WORK/created.json" 'd["spectator_token"]')
COMMITMENT=$(json "$WORK/created.json" 'd["commitment"]')
echo "check $CHECK, ETag $(header "$WORK/created.h" ETag), commitment $COMMITMENT"
echo "player's page: $API/play/$CHECK?game=three-towers#token=$PLAYER"

echo "== 3. the player views it (the ETag is the version)"
curl -sS "$API/v1/checks/$CHECK" -H "Authorization: Bearer $PLAYER" \
  -D "$WORK/view.h" -o "$WORK/view.json"
expect 200 view
ETAG=$(header "$WORK/view.h" ETag)
MOVE=$(json "$WORK/view.json" 'd["legal_moves"][0]')
echo "ETag $ETAG, top card $(json "$WORK/view.json" 'd["observation"]["top_card"]'), legal moves $(json "$WORK/view.json" '" ".join(d["legal_moves"])')"

echo "== 4. the player moves $MOVE (If-Match: $ETAG, Idempotency-Key), then retries the same request"
KEY="move-$(date +%s)-$RANDOM"
for attempt in 1 2; do
  curl -sS -X POST "$API/v1/checks/$CHECK/moves" \
    -H "Authorization: Bearer $PLAYER" -H 'Content-Type: application/json' \
    -H "If-Match: $ETAG" -H "Idempotency-Key: $KEY" \
    -d "{\"move\": \"$MOVE\"}" -D "$WORK/move.h" -o "$WORK/move.json"
  expect 200 move
  echo "attempt $attempt: $(status "$WORK/move.h"), version $(json "$WORK/move.json" 'd["version"]'), moves made $(json "$WORK/move.json" 'd["moves_made"]')"
done
VERSION=$(json "$WORK/move.json" 'd["version"]')

echo "== 5. a request on the old version is refused and changes nothing"
curl -sS -X POST "$API/v1/checks/$CHECK/concede" \
  -H "Authorization: Bearer $PLAYER" -H "If-Match: $ETAG" -D "$WORK/stale.h" -o "$WORK/stale.json"
expect 412 stale
echo "$(status "$WORK/stale.h") $(json "$WORK/stale.json" 'd["code"]'): $(json "$WORK/stale.json" 'd["detail"]')"

echo "== 6. the events so far (poll with ?after=<last sequence seen>)"
curl -sS "$API/v1/checks/$CHECK/events?after=0" -H "Authorization: Bearer $SPECTATOR" -o "$WORK/events.json"
json "$WORK/events.json" '"\n".join("%s %s (version %s)" % (e["sequence"], e["kind"], e["version"]) for e in d["events"])'

echo "== 7. the player concedes at version $VERSION"
curl -sS -X POST "$API/v1/checks/$CHECK/concede" \
  -H "Authorization: Bearer $PLAYER" -H 'Content-Type: application/json' \
  -d "{\"expected_version\": $VERSION}" -D "$WORK/end.h" -o "$WORK/end.json"
expect 200 end
echo "$(status "$WORK/end.h") status $(json "$WORK/end.json" 'd["status"]'), degree $(json "$WORK/end.json" 'd["degree"]')"
echo "outcome: $(json "$WORK/end.json" 'd["outcome"]["summary"]')"

echo "== 8. the revealed record, checked against the commitment published at creation"
curl -sS "$API/v1/checks/$CHECK/record" -H "Authorization: Bearer $SPECTATOR" -o "$WORK/revealed.json"
[ "$(json "$WORK/revealed.json" 'd["commitment"]')" = "$COMMITMENT" ] || { echo "commitment changed!"; exit 1; }
echo "seed $(json "$WORK/revealed.json" 'd["record"]["seed"]'), moves $(json "$WORK/revealed.json" '" ".join(d["record"]["moves"])')"
$CLI verify "$WORK/revealed.json"
