#!/usr/bin/env python3
"""Build the installable Foundry VTT module for a static web host: dist/skillcheck-foundry.zip
and dist/module.json.

    python3 examples/foundry/package.py --base-url https://files.example.org/foundry/skillcheck

The skillcheck server serves the module itself, so most GMs need none of this: they paste
``https://<their skillcheck server>/foundry/module.json`` into Foundry's Install Module dialog
(api/foundry.py, docs/vtt-foundry.md). This script writes the same two files for another web
server, ``--base-url`` being the folder both are served from.

Foundry installs a module from its manifest URL: it reads the manifest, downloads the zip its
``download`` names, and unpacks it into Data/modules/<id>/ [F7][F1]. So:

- ``module.json`` sits at the archive's root next to the folders it references [F8];
- every file the manifest lists (esmodules, scripts, styles, languages) is in the zip, or
  installation fails validation [F11] (checked here before anything is written);
- ``manifest`` is the stable URL of the newest manifest, ``download`` the zip [F3][F4][F9];
- the archive is deterministic (sorted entries, fixed timestamps and modes), so the same sources
  give the same bytes, made with Python's zipfile rather than an OS archiver [F10].

It uses the packaging the server uses (:func:`api.foundry.build_package`), from the checkout
this script is in.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))  # the checkout, for api.foundry

from api.foundry import ZIP_NAME, ModuleError, build_package  # noqa: E402

SOURCE = HERE / "skillcheck"


def build(
    source: Path, out: Path, base_url: str, project_url: str | None = None
) -> tuple[Path, Path]:
    try:
        archive_bytes, text = build_package(source, base_url, project_url)
    except ModuleError as exc:
        raise SystemExit(str(exc)) from exc
    out.mkdir(parents=True, exist_ok=True)
    archive = out / ZIP_NAME
    archive.write_bytes(archive_bytes)
    manifest_out = out / "module.json"
    manifest_out.write_text(text, encoding="utf-8")
    return archive, manifest_out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--base-url",
        required=True,
        help="the folder module.json and the zip will be served from (the skillcheck server "
        "serves them itself at /foundry/module.json)",
    )
    parser.add_argument(
        "--project-url",
        help="the page Foundry's module list links to (the manifest's url), for example your "
        "skillcheck server's /gm page; left out, the module lists no project page",
    )
    parser.add_argument("--out", type=Path, default=Path("dist"), help="output folder (dist)")
    parser.add_argument("--source", type=Path, default=SOURCE, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    archive, manifest = build(args.source, args.out, args.base_url, args.project_url)
    digest = hashlib.sha256(archive.read_bytes()).hexdigest()
    final = json.loads(manifest.read_text(encoding="utf-8"))
    print(f"{archive} (sha256 {digest})")
    print(f"{manifest}: install with the manifest URL {final['manifest']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
