"""The Foundry VTT module, packaged and served by this server (docs/vtt-foundry.md).

A GM installs a Foundry module from its manifest URL: Foundry reads the manifest, downloads the
zip its ``download`` names and unpacks it into ``Data/modules/<id>/``. This server serves both,
so the manifest URL is simply ``<this server>/foundry/module.json``:

- ``GET /foundry/module.json``: the module's manifest, its ``manifest`` and ``download`` URLs
  on this server (``SKILLCHECK_PUBLIC_URL`` when set, else the address the request came to);
- ``GET /foundry/skillcheck-foundry.zip``: the module, ``module.json`` at the archive's root.

The module's files are ``examples/foundry/skillcheck/``: an installed server has a copy in
``api/foundry_module/`` (setup.py puts it there), an editable install reads the checkout, and
``SKILLCHECK_FOUNDRY_MODULE`` names another folder. A server without them answers 404
``foundry-module-unavailable`` and says where to point it.

:func:`build_package` is also what ``examples/foundry/package.py`` writes to disk for a static
web host: the same sources and URLs give the same bytes (sorted entries, fixed timestamps and
modes, Python's zipfile rather than an OS archiver).
"""

from __future__ import annotations

import json
import zipfile
from functools import lru_cache
from io import BytesIO
from pathlib import Path
from typing import Any

from litestar import Request, Response, get

from api.problems import ApiProblem

ZIP_NAME = "skillcheck-foundry.zip"
#: The module's files: copied into an installed package by setup.py, else the checkout's.
_INSTALLED = Path(__file__).resolve().parent / "foundry_module"
_CHECKOUT = Path(__file__).resolve().parents[1] / "examples" / "foundry" / "skillcheck"
DEFAULT_SOURCE = _INSTALLED if (_INSTALLED / "module.json").is_file() else _CHECKOUT
_FIXED_TIME = (2024, 1, 1, 0, 0, 0)
#: Files in the module folder that are not shipped.
_LEFT_OUT = {".DS_Store", "Thumbs.db"}


class ModuleError(ValueError):
    """The module folder cannot be packaged (a file its manifest lists is missing)."""


def listed_files(manifest: dict[str, Any]) -> list[str]:
    """The paths the manifest names, relative to the module folder."""
    paths = list(manifest.get("esmodules", [])) + list(manifest.get("scripts", []))
    paths += list(manifest.get("styles", []))
    paths += [language["path"] for language in manifest.get("languages", [])]
    return paths


def module_files(source: Path) -> list[Path]:
    """The files shipped besides ``module.json``, sorted."""
    return sorted(
        p
        for p in source.rglob("*")
        if p.is_file() and p.name not in _LEFT_OUT and p.name != "module.json"
    )


def build_package(source: Path, base_url: str, project_url: str | None = None) -> tuple[bytes, str]:
    """The zip and the manifest (JSON text) of the module in ``source``, both to be served from
    the folder ``base_url``; ``project_url``, if given, is the page Foundry's module list links
    to (the manifest's ``url``). :class:`ModuleError` if the manifest names a missing file."""
    manifest = json.loads((source / "module.json").read_text(encoding="utf-8"))
    missing = [p for p in listed_files(manifest) if not (source / p).is_file()]
    if missing:
        raise ModuleError(f"module.json lists files that do not exist: {', '.join(missing)}")
    base = base_url.rstrip("/")
    final = {**manifest, "manifest": f"{base}/module.json", "download": f"{base}/{ZIP_NAME}"}
    if project_url is not None:
        final["url"] = project_url
    text = json.dumps(final, indent=2, ensure_ascii=False) + "\n"
    entries = [("module.json", text.encode("utf-8"))]
    entries += [(p.relative_to(source).as_posix(), p.read_bytes()) for p in module_files(source)]
    buffer = BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name, data in sorted(entries):
            info = zipfile.ZipInfo(name, date_time=_FIXED_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            info.create_system = 3  # Unix, so the modes above are read as such
            zf.writestr(info, data)
    return buffer.getvalue(), text


# ---- the routes ---------------------------------------------------------------------------------


def _settings(request: Request[Any, Any, Any]) -> Any:
    return request.app.state.runtime.settings


def _source(request: Request[Any, Any, Any]) -> Path:
    folder = Path(_settings(request).foundry_module or DEFAULT_SOURCE)
    if not (folder / "module.json").is_file():
        raise ApiProblem(
            404,
            "foundry-module-unavailable",
            f"this server has no Foundry module to offer: {folder} holds no module.json. "
            "Install the server from a checkout of skillcheck (it copies "
            "examples/foundry/skillcheck/), or set SKILLCHECK_FOUNDRY_MODULE to the module's "
            "folder",
        )
    return folder


def _root_url(request: Request[Any, Any, Any]) -> str:
    root: str = _settings(request).public_url or str(request.base_url).rstrip("/")
    return root


@lru_cache(maxsize=8)
def _package(source: str, root_url: str, stamp: float) -> tuple[bytes, str]:
    # (``stamp``, the newest modification time in the folder, rebuilds after an edit)
    # Foundry's module list links to the server's GM page, where the GM sees the checks.
    try:
        return build_package(Path(source), f"{root_url}/foundry", project_url=f"{root_url}/gm")
    except ModuleError as exc:
        raise ApiProblem(404, "foundry-module-unavailable", str(exc)) from exc


def _current(request: Request[Any, Any, Any]) -> tuple[bytes, str]:
    source = _source(request)
    stamp = max(p.stat().st_mtime for p in [source / "module.json", *module_files(source)])
    return _package(str(source), _root_url(request), stamp)


@get("/foundry/module.json", sync_to_thread=False, include_in_schema=False)
def foundry_manifest(request: Request[Any, Any, Any]) -> Response[bytes]:
    """The Foundry module's manifest: paste this URL into Foundry's Install Module dialog."""
    _, text = _current(request)
    return Response(
        text.encode("utf-8"),
        media_type="application/json",
        headers={"Cache-Control": "no-cache"},
    )


@get(f"/foundry/{ZIP_NAME}", sync_to_thread=False, include_in_schema=False)
def foundry_zip(request: Request[Any, Any, Any]) -> Response[bytes]:
    """The Foundry module as the zip Foundry installs."""
    archive, _ = _current(request)
    return Response(
        archive,
        media_type="application/zip",
        headers={
            "Cache-Control": "no-cache",
            "Content-Disposition": f'attachment; filename="{ZIP_NAME}"',
        },
    )


FOUNDRY_HANDLERS: list[Any] = [foundry_manifest, foundry_zip]
