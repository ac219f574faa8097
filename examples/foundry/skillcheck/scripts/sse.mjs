// Server-sent events read with fetch: EventSource cannot send an Authorization header, and the
// GM's list stream (GET /v1/checks/stream) needs the GM key (docs/api.md, "Reading the stream
// in a browser"). No Foundry globals here: tested directly under Node.

/** Parse SSE text chunk by chunk. `push(text)` returns the complete messages it finished, each
 * `{id, event, data}` (data joined with "\n"); comments (": keepalive") are dropped. */
export class SseParser {
  constructor() {
    this.buffer = "";
    this.message = { id: null, event: null, data: [] };
  }

  push(text) {
    this.buffer += text;
    // A line ends with CRLF, LF or CR; keep a trailing CR until its LF may arrive.
    const lines = this.buffer.split(/\r\n|\n|\r(?!$)/);
    this.buffer = lines.pop();
    const done = [];
    for (const line of lines) {
      if (line === "") {
        if (this.message.data.length) {
          done.push({ id: this.message.id, event: this.message.event, data: this.message.data.join("\n") });
        }
        this.message = { id: null, event: null, data: [] };
        continue;
      }
      if (line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
      if (field === "data") this.message.data.push(value);
      else if (field === "id") this.message.id = value;
      else if (field === "event") this.message.event = value;
    }
    return done;
  }
}

/** Read a fetch Response's text/event-stream body to its end, calling onMessage for each. */
export async function readEvents(response, onMessage) {
  const parser = new SseParser();
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      for (const message of parser.push(value)) await onMessage(message);
    }
  } finally {
    reader.releaseLock();
  }
}
