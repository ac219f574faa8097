//# allFunctionsCalledOnLoad
// The HTTP side of the page: requests with the bearer token, RFC 9457 problems as errors, and
// live updates (the SSE stream read with fetch, or polling /events every 2 s as a fallback).

/** An answer that is not 2xx, with the problem details the API sent (title, detail, code). */
export class ApiError extends Error {
  constructor(status, problem) {
    const body = problem && typeof problem === "object" ? problem : {};
    super(body.detail || body.title || `the server answered HTTP ${status}`);
    this.name = "ApiError";
    this.status = status;
    this.problem = body;
    this.code = body.code || null;
    this.title = body.title || (status ? `HTTP ${status}` : "No connection");
    this.detail = body.detail || "";
  }
}

const sleep = (ms, signal) =>
  new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    });
  });

/** One request to the API as the pages make them (no cookies, no cache, no referrer): answers
 *  { response, data } for any status, data being the parsed JSON body or null; a network failure
 *  is an ApiError with status 0 (an abort stays an AbortError). */
export async function fetchJson(url, method, { headers = {}, body, signal } = {}) {
  const init = {
    method,
    headers: { Accept: "application/json", ...headers },
    cache: "no-store",
    credentials: "omit",
    referrerPolicy: "no-referrer",
    signal,
  };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(url, init);
  } catch (error) {
    if (error.name === "AbortError") throw error;
    throw new ApiError(0, {
      title: "No connection.",
      detail: "The server could not be reached; check the connection and try again.",
    });
  }
  const text = await response.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  return { response, data };
}

export class CheckClient {
  /** root: the server's path prefix ("" normally); checkId; token: the bearer token. */
  constructor(root, checkId, token) {
    this.root = root;
    this.checkId = checkId;
    this.token = token;
  }

  url(path) {
    return `${this.root}/v1/checks/${encodeURIComponent(this.checkId)}${path}`;
  }

  headers(extra = {}) {
    return { Authorization: `Bearer ${this.token}`, Accept: "application/json", ...extra };
  }

  async request(method, path, body, signal) {
    const { response, data } = await fetchJson(this.url(path), method, {
      headers: this.headers(),
      body,
      signal,
    });
    if (!response.ok) throw new ApiError(response.status, data);
    return data;
  }

  view() {
    return this.request("GET", "");
  }

  move(move, expectedVersion) {
    return this.request("POST", "/moves", { move, expected_version: expectedVersion });
  }

  undo(expectedVersion) {
    return this.request("POST", "/undo", { expected_version: expectedVersion });
  }

  concede(expectedVersion) {
    return this.request("POST", "/concede", { expected_version: expectedVersion });
  }

  record() {
    return this.request("GET", "/record");
  }

  events(after, signal) {
    return this.request("GET", `/events?after=${after}&limit=100`, undefined, signal);
  }
}

/** Reads Server-Sent Events from text chunks (the fields of the WHATWG event stream format). */
export class SseParser {
  constructor(onMessage) {
    this.onMessage = onMessage;
    this.buffer = "";
    this.reset();
  }

  reset() {
    this.data = [];
    this.event = "";
    this.id = null;
  }

  push(chunk) {
    this.buffer += chunk;
    // A chunk may end between "\r" and "\n": keep a trailing "\r" for the next chunk.
    const cut = this.buffer.endsWith("\r") ? this.buffer.length - 1 : this.buffer.length;
    const lines = this.buffer.slice(0, cut).split(/\r\n|\r|\n/);
    this.buffer = lines.pop() + this.buffer.slice(cut);
    for (const line of lines) this.line(line);
  }

  line(line) {
    if (line === "") {
      if (this.data.length) {
        this.onMessage({ id: this.id, event: this.event || "message", data: this.data.join("\n") });
      }
      this.reset();
      return;
    }
    if (line.startsWith(":")) return; // a comment (keep-alive)
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") this.data.push(value);
    else if (field === "event") this.event = value;
    else if (field === "id") this.id = value;
  }
}

/**
 * Follows a check's events from sequence `after`: the stream first, polling if the stream
 * endpoint is missing (404/405/501) or keeps failing. onEvent gets each event object (as in
 * /events); onMode gets "stream", "polling", "retrying" or "stopped"; onError gets ApiErrors
 * of the polling requests.
 */
/** Feeds a streaming response's text to an SseParser until it ends or drops (never throws). */
export async function readStream(response, parser) {
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      parser.push(value);
    }
  } catch {
    // dropped: the caller reconnects
  }
}

export class LiveFeed {
  constructor(client, { onEvent, onMode, onError }) {
    this.client = client;
    this.onEvent = onEvent;
    this.onMode = onMode || (() => {});
    this.onError = onError || (() => {});
    this.after = 0;
    this.controller = new AbortController();
    this.stopped = false;
  }

  start(after) {
    this.after = after;
    this.run();
  }

  stop() {
    if (this.stopped) return;
    this.stopped = true;
    this.controller.abort();
    this.onMode("stopped");
  }

  deliver(event) {
    if (!event || typeof event !== "object") return;
    if (Number.isInteger(event.sequence)) {
      if (event.sequence <= this.after) return;
      this.after = event.sequence;
    }
    this.onEvent(event);
  }

  async run() {
    let failures = 0;
    while (!this.stopped) {
      const result = await this.streamOnce();
      if (this.stopped) return;
      if (result === "unsupported") break;
      failures = result === "failed" ? failures + 1 : 0;
      if (failures >= 3) break;
      this.onMode("retrying");
      await sleep(Math.min(500 * 2 ** failures, 5000), this.controller.signal);
    }
    if (!this.stopped) await this.poll();
  }

  /** One connection to the stream: "unsupported", "ended" (it was open) or "failed". */
  async streamOnce() {
    let response;
    try {
      response = await fetch(this.client.url(`/stream?after=${this.after}`), {
        headers: this.client.headers({
          Accept: "text/event-stream",
          "Last-Event-ID": String(this.after),
        }),
        cache: "no-store",
        credentials: "omit",
        referrerPolicy: "no-referrer",
        signal: this.controller.signal,
      });
    } catch {
      return "failed";
    }
    const type = response.headers.get("content-type") || "";
    if ([404, 405, 501].includes(response.status)) {
      await response.body?.cancel().catch(() => {});
      return "unsupported";
    }
    if (!response.ok || !type.includes("text/event-stream") || !response.body) {
      await response.body?.cancel().catch(() => {});
      return response.ok ? "unsupported" : "failed";
    }
    this.onMode("stream");
    const parser = new SseParser((message) => {
      let event;
      try {
        event = JSON.parse(message.data);
      } catch {
        return;
      }
      if (!Number.isInteger(event.sequence) && /^\d+$/.test(message.id || "")) {
        event.sequence = Number(message.id);
      }
      this.deliver(event);
    });
    await readStream(response, parser); // a dropped connection: reconnect from the last sequence seen
    return "ended";
  }

  async poll() {
    this.onMode("polling");
    while (!this.stopped) {
      let full = false;
      try {
        const page = await this.client.events(this.after, this.controller.signal);
        for (const event of page.events) this.deliver(event);
        if (Number.isInteger(page.last_sequence)) {
          this.after = Math.max(this.after, page.last_sequence);
        }
        full = page.events.length >= 100;
        if (!this.stopped) this.onMode("polling");
      } catch (error) {
        if (this.stopped || error.name === "AbortError") return;
        this.onMode("retrying");
        this.onError(error);
      }
      if (!full) await sleep(2000, this.controller.signal);
    }
  }
}
