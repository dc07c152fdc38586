"""The vault's own search on a site `ihmt site serve` serves: the answer, the endpoints, the Host check.

`static/search.js` asks the search endpoint from the search box and the Diagnose page, and the Set up
endpoint (`screens.setup_answer`) from the Set up screen.
"""

from __future__ import annotations

import posixpath
from urllib.parse import quote

from ...errors import VaultError
from ...storage import tree
from ...vault import Vault
from .links import Links

SEARCH_PATH = "_ihmt/search"  # the endpoint, under the site's mount path
SETUP_PATH = "_ihmt/setup"  # the Set up screen's, answered only by a server bound to localhost


def _page_url(path: str) -> str:
    """A published memory's or summary's URL from the site's root, as `ihmt site serve` serves it."""
    stem = path[:-3]
    if posixpath.basename(path) == tree.INDEX:
        stem = posixpath.dirname(path)
    return quote(stem + "/" if stem else "", safe="/-_.~")


def _confidence(status: str, hits: list) -> tuple[str, float | None]:
    """How sure the answer is: none (not found), low (candidates tie), high when the best hit scores at
    least 1.5 times the next one (or stands alone), else medium; and that ratio."""
    if status == "not_found" or not hits:
        return "none", None
    margin = round(hits[0].score / hits[1].score, 2) if len(hits) > 1 and hits[1].score > 0 else None
    if status == "ambiguous":
        return "low", margin
    return ("high" if margin is None or margin >= 1.5 else "medium"), margin


def search_answer(v: Vault, links: Links, query: str, clue: str | None = None) -> dict:
    """`Vault.search` for the served site, over what the site publishes only: a hit, candidate, notice
    or explanation that would name a private or unpublished memory is left out."""
    r = v.search(query, k=20, clue=clue or None, detail="full")
    hidden = [e for e in links.entries.values() if e.hidden]
    secret_words = {e.id for e in hidden if e.id} | {e.title for e in hidden if len(e.title) > 2}

    def shown(h) -> bool:
        e = links.entries.get(h.path)
        return e is not None and not e.hidden

    def clean(text: str) -> bool:
        return not any(w in text for w in secret_words)

    def hit(h) -> dict:
        return {
            "title": h.title,
            "path": h.path,
            "url": _page_url(h.path),
            "trail": list(h.trail),
            "date": h.date,
            "status": h.status,
            "score": round(h.score, 3),
            "via": h.via,
            "snippet": h.snippet,
            "notices": [n for n in h.notices if clean(n)],
        }

    hits = [h for h in r.hits if shown(h)]
    candidates = [h for h in r.candidates if shown(h)]
    status = r.status
    if not hits and not candidates:
        status = "not_found"
    elif status == "ambiguous" and len(candidates) < 2:
        status = "found"
    confidence, margin = _confidence(status, candidates if status == "ambiguous" else hits)
    return {
        "status": status,
        "query": r.query,
        "clue": r.clue,
        "confidence": confidence,
        "margin": margin,
        "message": r.message if clean(r.message) else "",
        "archived_fallback": r.archived_fallback,
        "hits": [hit(h) for h in hits],
        "candidates": [hit(h) for h in candidates],
    }


_LOOPBACK = {"localhost", "127.0.0.1", "::1"}


def loopback_only(bound_host: str):
    """A Host-header check for a server bound to a loopback address: another site's page cannot read
    the answers through a DNS name pointed at 127.0.0.1 (rebinding). None (no check) otherwise."""
    if bound_host not in _LOOPBACK and not bound_host.startswith("127."):
        return None

    def ok(host_header: str) -> bool:
        name = host_header.rsplit("]", 1)[0].lstrip("[") if host_header.startswith("[") else host_header.split(":")[0]
        return name in _LOOPBACK or name.startswith("127.")

    return ok


def search_app(app, answer, mount_path: str = "/", host_ok=None, setup=None):
    """A WSGI app answering GET `<mount>/_ihmt/search?q=...&clue=...` with `answer(q, clue)` as JSON
    (a `VaultError` becomes {"error": ...}, 400), GET `<mount>/_ihmt/setup` with `setup()` (only when
    bound to localhost, `host_ok` given: it names this machine's agents and files), and passing every
    other request to `app`."""
    import json
    from urllib.parse import parse_qs

    route = mount_path.rstrip("/") + "/" + SEARCH_PATH
    setup_route = mount_path.rstrip("/") + "/" + SETUP_PATH

    def reply(start_response, status: str, data: dict):
        body = json.dumps(data, ensure_ascii=False).encode("utf-8")
        start_response(
            status,
            [
                ("Content-Type", "application/json; charset=utf-8"),
                ("Content-Length", str(len(body))),
                ("X-Content-Type-Options", "nosniff"),
                ("Cache-Control", "no-store"),
            ],
        )
        return [body]

    def wsgi(environ, start_response):
        path = environ.get("PATH_INFO", "")
        if path not in (route, setup_route):
            return app(environ, start_response)
        if host_ok is not None and not host_ok(environ.get("HTTP_HOST", "")):
            return reply(start_response, "403 Forbidden", {"error": "this server answers only to localhost"})
        if environ.get("REQUEST_METHOD", "GET") != "GET":
            return reply(start_response, "405 Method Not Allowed", {"error": "use GET"})
        if path == setup_route:
            if setup is None or host_ok is None:
                return reply(start_response, "403 Forbidden", {"error": "Set up is shown only on localhost"})
            try:
                return reply(start_response, "200 OK", setup())
            except VaultError as e:
                return reply(start_response, "400 Bad Request", {"error": str(e)})
        args = parse_qs(environ.get("QUERY_STRING", ""), max_num_fields=10)
        query, clue = ((args.get(k) or [""])[0][:500] for k in ("q", "clue"))
        try:
            return reply(start_response, "200 OK", answer(query, clue or None))
        except VaultError as e:
            return reply(start_response, "400 Bad Request", {"error": str(e)})

    return wsgi
