// A small client of the skillcheck API, typed only by what the OpenAPI document says.
//
// tests/api/test_api_typescript.py generates schema.d.ts from a live server's
// /schema/openapi.json with openapi-typescript, type-checks this file with `tsc --noEmit
// --strict`, then runs it against that server. Every answer's type comes from `paths`: if an
// endpoint did not document its response body, the type would be `unknown` (or an open record)
// and reading `view.board.zones[0].id` below would not compile.

import type { components, paths } from "./schema";

type Json<T> = T extends { content: { "application/json": infer Body } } ? Body : never;
type Answer<P extends keyof paths, M extends keyof paths[P], S extends number> =
  paths[P][M] extends { responses: infer R }
    ? S extends keyof R
      ? Json<R[S]>
      : never
    : never;

export type GamesList = Answer<"/v1/games", "get", 200>;
export type GameDetail = Answer<"/v1/games/{name}", "get", 200>;
export type Created = Answer<"/v1/checks", "post", 201>;
export type View = Answer<"/v1/checks/{check_id}", "get", 200>;
export type Moved = Answer<"/v1/checks/{check_id}/moves", "post", 200>;
export type Conceded = Answer<"/v1/checks/{check_id}/concede", "post", 200>;
export type Events = Answer<"/v1/checks/{check_id}/events", "get", 200>;
export type Revealed = Answer<"/v1/checks/{check_id}/record", "get", 200>;
export type Odds = Answer<"/v1/odds", "get", 200>;
export type OddsRunning = Answer<"/v1/odds", "get", 202>;
export type Problem = components["schemas"]["Problem"];
export type CreateBody = NonNullable<
  paths["/v1/checks"]["post"]["requestBody"]
>["content"]["application/json"];

// Compile-time guards: an answer typed `any`, `unknown` or `never` is a missing schema.
type IsAny<T> = 0 extends 1 & T ? true : false;
type Typed<T> = IsAny<T> extends true ? false : unknown extends T ? false : [T] extends [never] ? false : true;
const typed: [
  Typed<GamesList>, Typed<GameDetail>, Typed<Created>, Typed<View>, Typed<Moved>,
  Typed<Conceded>, Typed<Events>, Typed<Revealed>, Typed<Odds>, Typed<Problem>,
] = [true, true, true, true, true, true, true, true, true, true];

declare const process: { argv: string[]; exitCode?: number };

class ApiError extends Error {
  constructor(readonly problem: Problem) {
    super(`${problem.status} ${problem.code}: ${problem.detail}`);
  }
}

async function call<T>(base: string, method: "GET" | "POST", path: string, token?: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = {};
  if (token !== undefined) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const response = await fetch(base + path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw new ApiError((await response.json()) as Problem);
  return (await response.json()) as T;
}

/** What the client read, typed: the test compares it with the server's answers. */
export interface Summary {
  game: string;
  zone: string;
  zoneCards: (string | null)[];
  meter: string | null;
  moveFrom: string;
  moveTo: string | null;
  moveText: string;
  status: View["status"];
  outcomeBefore: Summary["outcome"];
  outcome: { status: "won" | "lost"; reason: string; degree: number; summary: string } | null;
  endedWith: string | null;
  degree: number | null;
  eventKinds: Events["events"][number]["kind"][];
  revealedSeed: number | null;
  schemaType: unknown;
  oddsRate: number | null;
  missingGame: string;
}

export async function run(base: string, gmKey: string): Promise<Summary> {
  const games: GamesList = await call<GamesList>(base, "GET", "/v1/games");
  const first: string = games.games[0].name;
  const detail: GameDetail = await call<GameDetail>(base, "GET", `/v1/games/${first}`);
  // `game` is an enum of the registered games in the document; a name read from /v1/games is one
  const game = detail.name as CreateBody["game"];
  const body: CreateBody = { game, params: detail.examples[0].params, seed: 7 };
  const created: Created = await call<Created>(base, "POST", "/v1/checks", gmKey, body);
  const view: View = created.view;

  const zone: string = view.board.zones[0].id;
  const zoneCards: (string | null)[] = view.board.zones[0].cards;
  const meter: string | null = view.board.meters.length > 0 ? view.board.meters[0].text : null;
  const moveFrom: string = view.moves[0].from;
  const moveTo: string | null = view.moves[0].to;
  const moveText: string = view.moves[0].text;
  const before: Summary["outcome"] = view.outcome; // null while the check is in progress

  const moved: Moved = await call<Moved>(
    base, "POST", `/v1/checks/${created.check_id}/moves`, created.player_token,
    { move: view.moves[0].code, expected_version: view.version },
  );
  const ended: Conceded = moved.status === "in_progress"
    ? await call<Conceded>(base, "POST", `/v1/checks/${created.check_id}/concede`, created.player_token)
    : moved;
  const outcome: Summary["outcome"] = ended.outcome;
  const degree: number | null = ended.degree;
  const events: Events = await call<Events>(base, "GET", `/v1/checks/${created.check_id}/events`, created.spectator_token);
  const revealed: Revealed = await call<Revealed>(base, "GET", `/v1/checks/${created.check_id}/record`, created.spectator_token);
  const seed: number | null = revealed.record.seed;

  let missingGame = "";
  try {
    await call<Created>(base, "POST", "/v1/checks", gmKey, { params: {} });
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    missingGame = `${error.problem.status} ${error.problem.code} ${error.problem.field ?? ""}`;
  }
  // The odds of the same example: its parameters as flat options, found by each one's path.
  const options = new URLSearchParams({ game: first, deals: "1" });
  for (const parameter of detail.parameters) {
    let value: unknown = detail.examples[0].params;
    for (const key of parameter.path) {
      value = value !== null && typeof value === "object" ? (value as Record<string, unknown>)[key] : undefined;
    }
    if (value === undefined || value === null) continue;
    options.append(parameter.name, Array.isArray(value) ? value.join(",") : String(value));
  }
  // Not in the shipped tables: computed in the background for a GM (202), polled until 200.
  let answer: Odds | OddsRunning = await call<Odds | OddsRunning>(base, "GET", `/v1/odds?${options}`, gmKey);
  while ("status" in answer && answer.status === "running") {
    await new Promise((resolve) => setTimeout(resolve, 200));
    answer = await call<Odds | OddsRunning>(base, "GET", `/v1/odds?${options}`, gmKey);
  }
  const odds = answer as Odds;
  const oddsRate: number | null = odds.cells.length > 0 ? odds.cells[0].rate : null;

  return {
    game: view.game, zone, zoneCards, meter, moveFrom, moveTo, moveText,
    status: ended.status, outcomeBefore: before, outcome,
    endedWith: outcome === null ? null : outcome.reason, degree,
    eventKinds: events.events.map((e) => e.kind), revealedSeed: seed,
    schemaType: detail.schema["type"], oddsRate, missingGame,
  };
}

const [base, gmKey] = process.argv.slice(2);
if (base !== undefined && gmKey !== undefined && typed.every((t) => t)) {
  run(base, gmKey).then(
    (summary) => console.log(JSON.stringify(summary)),
    (error: unknown) => {
      console.error(error instanceof Error ? error.message : error);
      process.exitCode = 1;
    },
  );
}
