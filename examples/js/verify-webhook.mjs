// verify-webhook.mjs: verify a skillcheck webhook (Standard Webhooks, HMAC-SHA256 "v1").
//
// A dependency-free ES module using the Web Crypto API (globalThis.crypto.subtle), so the same
// code runs in Node.js 20+, Deno, Bun, Cloudflare Workers and browsers. docs/webhooks.md
// describes the headers and the payload; tests/api/test_webhooks.py runs this file under Node
// against signatures made by the Python signer (api/webhooks.py).
//
// Library use:
//
//   import { verifyWebhook } from "./verify-webhook.mjs";
//   // body: the raw request body as received (a string, Uint8Array or ArrayBuffer);
//   // never JSON.parse and re-stringify it before verifying.
//   const { id, timestamp } = await verifyWebhook(process.env.SKILLCHECK_WEBHOOK_SECRET, headers, body);
//   const event = JSON.parse(typeof body === "string" ? body : new TextDecoder().decode(body));
//
// Command line (Node 20+), for testing:
//
//   echo '{"secret": "whsec_...", "headers": {...}, "body": "...", "now": 1700000000}' \
//     | node examples/js/verify-webhook.mjs
//   prints {"ok":true,"id":...,"timestamp":...} and exits 0, or {"ok":false,"error":...} and 1.
//   "body_base64" may replace "body" for bytes that are not UTF-8 text.

const PREFIX = "whsec_";
const encoder = new TextEncoder();

/** Thrown when a webhook fails verification; the message says why. */
export class WebhookVerificationError extends Error {
  constructor(message) {
    super(message);
    this.name = "WebhookVerificationError";
  }
}

function base64ToBytes(text) {
  const binary = atob(text); // throws on characters outside the base64 alphabet
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

function toBytes(body) {
  if (typeof body === "string") return encoder.encode(body);
  if (body instanceof Uint8Array) return body;
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  if (ArrayBuffer.isView(body)) return new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
  throw new TypeError("body must be the raw request body: a string, Uint8Array or ArrayBuffer");
}

function header(headers, name) {
  if (headers && typeof headers.get === "function") return headers.get(name) ?? "";
  for (const [key, value] of Object.entries(headers ?? {})) {
    if (key.toLowerCase() === name) return Array.isArray(value) ? value.join(" ") : String(value);
  }
  return "";
}

/** The HMAC key of a "whsec_<base64>" secret, as a CryptoKey usable only to verify. */
export async function importSecret(secret) {
  if (typeof secret !== "string" || !secret.startsWith(PREFIX)) {
    throw new TypeError(`a webhook secret is "${PREFIX}" followed by base64`);
  }
  const raw = base64ToBytes(secret.slice(PREFIX.length));
  return crypto.subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, ["verify"]);
}

/**
 * Verify a webhook: headers `webhook-id`, `webhook-timestamp`, `webhook-signature` (a Headers
 * object or a plain object), the raw body, and the secret ("whsec_..."). The timestamp must be
 * within `toleranceSeconds` of `now` (seconds since 1970; default: this clock). Resolves to
 * `{id, timestamp}`; rejects with WebhookVerificationError. Use `id` as an idempotency key.
 */
export async function verifyWebhook(secret, headers, body, { toleranceSeconds = 300, now } = {}) {
  const id = header(headers, "webhook-id").trim();
  const stamp = header(headers, "webhook-timestamp").trim();
  const signatures = header(headers, "webhook-signature").trim();
  if (!id || !stamp || !signatures) {
    throw new WebhookVerificationError("missing webhook-id, webhook-timestamp or webhook-signature");
  }
  if (id.includes(".")) throw new WebhookVerificationError("webhook-id may not contain '.'");
  if (!/^[0-9]{1,12}$/.test(stamp)) {
    throw new WebhookVerificationError("webhook-timestamp must be whole seconds since 1970");
  }
  const timestamp = Number(stamp);
  const current = now ?? Date.now() / 1000;
  if (Math.abs(current - timestamp) > toleranceSeconds) {
    throw new WebhookVerificationError(
      `webhook-timestamp is ${Math.round(Math.abs(current - timestamp))} s from now ` +
        `(tolerance ${toleranceSeconds} s)`,
    );
  }
  const key = await importSecret(secret);
  const prefix = encoder.encode(`${id}.${timestamp}.`);
  const payload = toBytes(body);
  const signed = new Uint8Array(prefix.length + payload.length);
  signed.set(prefix, 0);
  signed.set(payload, prefix.length);
  for (const item of signatures.split(/\s+/).slice(0, 32)) {
    const [version, encoded] = item.split(",", 2);
    if (version !== "v1" || !encoded) continue;
    let signature;
    try {
      signature = base64ToBytes(encoded);
    } catch {
      continue;
    }
    // crypto.subtle.verify compares in constant time.
    if (await crypto.subtle.verify("HMAC", key, signature, signed)) return { id, timestamp };
  }
  throw new WebhookVerificationError("no v1 signature matches this body with this secret");
}

async function main() {
  let input = "";
  for await (const chunk of process.stdin) input += chunk;
  const request = JSON.parse(input);
  const body =
    request.body_base64 !== undefined ? base64ToBytes(request.body_base64) : request.body ?? "";
  try {
    const verified = await verifyWebhook(request.secret, request.headers, body, {
      toleranceSeconds: request.tolerance ?? 300,
      now: request.now,
    });
    process.stdout.write(JSON.stringify({ ok: true, ...verified }) + "\n");
  } catch (error) {
    process.stdout.write(JSON.stringify({ ok: false, error: String(error.message ?? error) }) + "\n");
    process.exitCode = 1;
  }
}

// Run as a program only under Node and only when this file is the entry point, so that importing
// the module (a browser, a VTT module, another Node module) has no side effects.
if (typeof process !== "undefined" && process.argv?.[1] && import.meta.url.startsWith("file:")) {
  const { pathToFileURL } = await import("node:url");
  const { realpathSync } = await import("node:fs");
  let entry;
  try {
    entry = pathToFileURL(realpathSync(process.argv[1])).href;
  } catch {
    entry = undefined;
  }
  if (entry === import.meta.url) await main();
}
