"""An interactive API docs page that works offline: plain HTML and JavaScript served by the API
itself, built in the browser from ``/schema/openapi.json`` (no CDN, no external asset)."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import quote

from litestar import Request
from litestar.openapi.plugins import OpenAPIRenderPlugin

__all__ = ["OfflineDocsPlugin"]

_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>skillcheck API</title>
<link rel="icon" href="__ICON__" type="image/svg+xml">
<style>
body{font-family:system-ui,sans-serif;margin:0 auto;max-width:60rem;padding:1rem;color:#222}
h1{font-size:1.4rem} .op{border:1px solid #ccc;border-radius:6px;margin:.6rem 0;padding:.4rem .8rem}
.m{display:inline-block;min-width:4rem;font-weight:bold} .GET{color:#06c} .POST{color:#083}
summary{cursor:pointer} textarea,input{font-family:monospace;width:100%;box-sizing:border-box}
pre{background:#f4f4f4;padding:.5rem;overflow:auto;max-height:24rem}
label{display:block;margin-top:.3rem}
</style></head><body>
<h1>skillcheck API</h1>
<p>Built from <a id="schema-link" href="__SCHEMA__">the OpenAPI document</a>; everything on this
page is served by this server (it works offline).</p>
<label>Bearer token (GM key, player or spectator token)
<input id="token" autocomplete="off" placeholder="paste a token"></label>
<div id="ops">Loading the schema...</div>
<script>
"use strict";
const el = (tag, attrs = {}, ...kids) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  for (const k of kids) e.append(k);
  return e;
};
function operation(path, method, op) {
  const box = el("details", {class: "op"});
  box.append(el("summary", {}, el("span", {class: "m " + method.toUpperCase()},
    method.toUpperCase()), " ", path, " \\u2014 ", op.summary || ""));
  if (op.description) box.append(el("p", {}, op.description));
  const inputs = {};
  for (const p of op.parameters || []) {
    const input = el("input", {placeholder: p.in + (p.required ? ", required" : "")});
    inputs[p.name] = [p, input];
    box.append(el("label", {}, p.name + " (" + p.in + ")", input));
  }
  const extra = {};
  for (const h of ["If-Match", "Idempotency-Key"]) {
    if (method !== "post" || inputs[h]) continue;
    extra[h] = el("input", {placeholder: "optional header"});
    box.append(el("label", {}, h + " (header)", extra[h]));
  }
  let body = null;
  if (op.requestBody) {
    body = el("textarea", {rows: "5"});
    body.value = "{}";
    box.append(el("label", {}, "JSON body", body));
  }
  const out = el("pre");
  const send = el("button", {type: "button"}, "Send");
  send.addEventListener("click", async () => {
    let url = path; const query = new URLSearchParams(); const headers = {};
    for (const [name, [p, input]] of Object.entries(inputs)) {
      if (!input.value) continue;
      if (p.in === "path") url = url.replace("{" + name + "}", encodeURIComponent(input.value));
      else if (p.in === "query") query.set(name, input.value);
      else if (p.in === "header") headers[name] = input.value;
    }
    for (const [name, input] of Object.entries(extra))
      if (input.value) headers[name] = input.value;
    const token = document.getElementById("token").value.trim();
    if (token) headers["Authorization"] = "Bearer " + token;
    const init = {method: method.toUpperCase(), headers};
    if (body && body.value.trim()) {
      headers["Content-Type"] = "application/json";
      init.body = body.value;
    }
    const qs = query.toString();
    try {
      const r = await fetch(url + (qs ? "?" + qs : ""), init);
      const text = await r.text();
      let shown = text;
      try { shown = JSON.stringify(JSON.parse(text), null, 2); } catch (e) {}
      const etag = r.headers.get("ETag");
      const head = r.status + " " + r.statusText + (etag ? "  ETag: " + etag : "");
      out.textContent = head + "\\n" + shown;
    } catch (e) { out.textContent = String(e); }
  });
  box.append(send, out);
  return box;
}
fetch(document.getElementById("schema-link").getAttribute("href"))
  .then((r) => r.json())
  .then((schema) => {
    const ops = document.getElementById("ops");
    ops.textContent = "";
    ops.append(el("p", {}, (schema.info.title || "") + " " + (schema.info.version || "") +
      " (OpenAPI " + schema.openapi + ")"));
    for (const [path, item] of Object.entries(schema.paths || {}))
      for (const [method, op] of Object.entries(item))
        if (["get", "post", "put", "patch", "delete"].includes(method))
          ops.append(operation(path, method, op));
  })
  .catch((e) => { document.getElementById("ops").textContent = "Cannot load the schema: " + e; });
</script></body></html>
"""


#: The service's icon inline, so the page asks for no /favicon.ico (a 404 in the console).
_ICON = "data:image/svg+xml," + quote(
    (Path(__file__).parent / "static" / "icon.svg").read_text(encoding="utf-8").strip(), safe=""
)
_PAGE = _PAGE.replace("__ICON__", _ICON)


class OfflineDocsPlugin(OpenAPIRenderPlugin):
    """Serves the offline docs page (at ``/schema`` and ``/schema/docs`` by default)."""

    def __init__(self, *, path: str | list[str] | None = None) -> None:
        super().__init__(path=path if path is not None else ["/", "/docs"])

    def render(self, request: Request[Any, Any, Any], openapi_schema: dict[str, Any]) -> bytes:
        return _PAGE.replace("__SCHEMA__", self.get_openapi_json_route(request)).encode("utf-8")
