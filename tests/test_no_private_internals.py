"""No private attribute of asyncio, aiohttp, httpx, httpcore or httpx-aiohttp anywhere in app/:
an upgrade of any of them must not quietly change how tokens are timed or failures named."""

from __future__ import annotations

import ast
from pathlib import Path

APP = Path(__file__).resolve().parent.parent / "app"
LIBRARIES = ("asyncio", "aiohttp", "httpx", "httpcore", "httpx_aiohttp")
# The internals the measuring path once reached into (and their likes): flagged on any object,
# and as the string given to getattr / hasattr / setattr.
KNOWN = {
    "_read_ready_cb",
    "_read_ready__data_received",
    "_read_ready__on_eof",
    "_conn_lost",
    "_fatal_error",
    "_factory",
    "_payload",
    "_aiohttp_response",
    "_transport_for_url",
    "_selector",
    "_ssock",
    "_sock",
    "_transports",
    "_mounts",
}


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _root(node: ast.expr) -> str | None:
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def offences(source: str, where: str = "<source>") -> list[str]:
    """Every use of a library's private attribute in ``source``, as 'where:line: what'."""
    tree = ast.parse(source)
    imported: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in LIBRARIES:
                    imported.add((alias.asname or alias.name).split(".")[0])
        elif (
            isinstance(node, ast.ImportFrom)
            and node.module
            and node.module.split(".")[0] in LIBRARIES
        ):
            for alias in node.names:
                if _private(alias.name):
                    imported.add("<private import>")
                imported.add(alias.asname or alias.name)
            if any(_private(part) for part in node.module.split(".")):
                imported.add("<private import>")
    found: list[str] = []
    if "<private import>" in imported:
        found.append(f"{where}: imports a private module or name of {LIBRARIES}")
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _private(node.attr):
            if node.attr in KNOWN or _root(node.value) in imported:
                found.append(f"{where}:{node.lineno}: .{node.attr}")
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("getattr", "hasattr", "setattr")
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant)
            and isinstance(node.args[1].value, str)
        ):
            name = node.args[1].value
            if name in KNOWN or (_private(name) and _root(node.args[0]) in imported):
                found.append(f"{where}:{node.lineno}: {node.func.id}(..., {name!r})")
    return found


def test_app_uses_no_private_attribute_of_the_http_libraries() -> None:
    found = []
    for path in sorted(APP.rglob("*.py")):
        found += offences(path.read_text(encoding="utf-8"), str(path.relative_to(APP.parent)))
    assert found == []


def test_the_scan_finds_what_the_old_measuring_path_did() -> None:
    # the shapes the kernel-stamp path on aiohttp used, and a private name of an imported module
    old = """
import asyncio
import httpx
from httpx_aiohttp import AiohttpTransport
from asyncio import selector_events

def f(transport, client, body, request):
    transport._read_ready_cb = 1
    sock = getattr(transport, "_sock", None)
    response = getattr(body, "_aiohttp_response", None)
    t = client._transport_for_url(request.url)
    asyncio.base_events._run_until_complete_cb
    httpx._utils.get_environment_proxies()
    selector_events._SelectorSocketTransport
"""
    found = offences(old)
    assert len(found) == 7, found
    # our own private attributes are ours to use
    assert offences("import asyncio\nclass A:\n    def f(self):\n        self._x = 1\n") == []
