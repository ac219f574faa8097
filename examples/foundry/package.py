#!/usr/bin/env python3
"""Build the installable Foundry VTT module: dist/skillcheck-foundry.zip and dist/module.json.

    python3 examples/foundry/package.py                      # the project's release URLs
    python3 examples/foundry/package.py --base-url https://files.example.org/foundry/skillcheck

Foundry installs a module from its manifest URL: it reads the manifest, downloads the zip its
``download`` names, and unpacks it into Data/modules/<id>/ [F7][F1]. So:

- ``module.json`` sits at the archive's root next to the folders it references [F8];
- every file the manifest lists (esmodules, scripts, styles, languages) is in the zip, or
  installation fails validation [F11] (checked here before anything is written);
- ``manifest`` is the stable URL of the newest manifest, ``download`` a zip that does not
  change [F3][F4][F9]. By default they follow the release pattern
  ``.../releases/latest/download/module.json`` and ``.../releases/download/<tag>/<zip>`` [F8];
  with ``--base-url`` both are files in that folder (a plain web server);
- the archive is deterministic (sorted entries, fixed timestamps and modes), so the same sources
  give the same bytes, made with Python's zipfile rather than an OS archiver [F10].

Standard library only.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import zipfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SOURCE = HERE / "skillcheck"
ZIP_NAME = "skillcheck-foundry.zip"
RELEASES = "https://github.com/skillcheck/skillcheck/releases"
FIXED_TIME = (2024, 1, 1, 0, 0, 0)
#: Files in the module folder that are not shipped.
LEFT_OUT = {".DS_Store", "Thumbs.db"}


def listed_files(manifest: dict[str, Any]) -> list[str]:
    """The paths the manifest names, relative to the module folder."""
    paths = list(manifest.get("esmodules", [])) + list(manifest.get("scripts", []))
    paths += list(manifest.get("styles", []))
    paths += [language["path"] for language in manifest.get("languages", [])]
    return paths


def with_urls(manifest: dict[str, Any], base_url: str | None) -> dict[str, Any]:
    version = manifest["version"]
    if base_url:
        base = base_url.rstrip("/")
        manifest_url, download_url = f"{base}/module.json", f"{base}/{ZIP_NAME}"
    else:
        manifest_url = f"{RELEASES}/latest/download/module.json"
        download_url = f"{RELEASES}/download/foundry-v{version}/{ZIP_NAME}"
    return {**manifest, "manifest": manifest_url, "download": download_url}


def module_files(source: Path) -> list[Path]:
    return sorted(
        p
        for p in source.rglob("*")
        if p.is_file() and p.name not in LEFT_OUT and p.name != "module.json"
    )


def build(source: Path, out: Path, base_url: str | None) -> tuple[Path, Path]:
    manifest = json.loads((source / "module.json").read_text(encoding="utf-8"))
    missing = [p for p in listed_files(manifest) if not (source / p).is_file()]
    if missing:
        raise SystemExit(f"module.json lists files that do not exist: {', '.join(missing)}")
    final = with_urls(manifest, base_url)
    text = json.dumps(final, indent=2, ensure_ascii=False) + "\n"
    out.mkdir(parents=True, exist_ok=True)
    archive = out / ZIP_NAME
    with zipfile.ZipFile(archive, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        entries = [("module.json", text.encode("utf-8"))]
        entries += [
            (p.relative_to(source).as_posix(), p.read_bytes()) for p in module_files(source)
        ]
        for name, data in sorted(entries):
            info = zipfile.ZipInfo(name, date_time=FIXED_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            info.create_system = 3  # Unix, so the modes above are read as such
            zf.writestr(info, data)
    manifest_out = out / "module.json"
    manifest_out.write_text(text, encoding="utf-8")
    return archive, manifest_out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base-url", help="where module.json and the zip will be served")
    parser.add_argument("--out", type=Path, default=Path("dist"), help="output folder (dist)")
    parser.add_argument("--source", type=Path, default=SOURCE, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    archive, manifest = build(args.source, args.out, args.base_url)
    digest = hashlib.sha256(archive.read_bytes()).hexdigest()
    final = json.loads(manifest.read_text(encoding="utf-8"))
    print(f"{archive} (sha256 {digest})")
    print(f"{manifest}: install with the manifest URL {final['manifest']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
