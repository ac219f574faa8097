// fetch as a browser page on `origin` makes it, for Node: a CORS preflight before any request
// that is not "simple" (an Authorization or Content-Type: application/json header, or
// Last-Event-ID), and the answer withheld unless Access-Control-Allow-Origin names the origin.
// What a refusal looks like to the page is what browsers give scripts: "TypeError: Failed to
// fetch" [F42]. `log` collects each request's origin check for the tests.

const SAFE = new Set(["accept", "accept-language", "content-language"]);

export function browserFetch(origin, log = [], fetch = globalThis.fetch) {
  return async (url, init = {}) => {
    const method = (init.method ?? "GET").toUpperCase();
    const headers = Object.fromEntries(Object.entries(init.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
    const unsafe = Object.keys(headers).filter((h) => !SAFE.has(h)).sort();
    if (new URL(url).origin !== origin && (unsafe.length || !["GET", "HEAD", "POST"].includes(method))) {
      const pre = await fetch(url, { method: "OPTIONS", headers: {
        Origin: origin, "Access-Control-Request-Method": method, "Access-Control-Request-Headers": unsafe.join(","),
      } });
      const allowOrigin = pre.headers.get("access-control-allow-origin");
      const allowed = (pre.headers.get("access-control-allow-headers") ?? "").toLowerCase().split(/\s*,\s*/);
      const methods = (pre.headers.get("access-control-allow-methods") ?? "").toUpperCase();
      const ok = pre.ok && allowOrigin === origin && methods.includes(method) && unsafe.every((h) => allowed.includes(h));
      log.push({ preflight: true, method, url, ok });
      if (!ok) throw new TypeError("Failed to fetch");
    }
    const response = await fetch(url, { ...init, headers: { ...headers, origin } });
    const readable = response.headers.get("access-control-allow-origin") === origin;
    log.push({ preflight: false, method, url, ok: readable });
    if (!readable) {
      await response.body?.cancel();
      throw new TypeError("Failed to fetch");
    }
    return response;
  };
}
