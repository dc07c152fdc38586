"""The interface's words in English and Spanish: one table, read by the pages and by `static/gui.js`.

Pages are written in English; every interface string in them is a `<span data-ihmt-t="KEY">` (`mark`),
and the site's script puts the chosen language's words in (`textContent`), on every page, built or
served. The memories themselves are never marked, so never translated. A mark is written as
`TOKEN:KEY`, with a token drawn once per process: the sanitiser keeps a `data-ihmt-t` only when it
carries the token (and strips it), so a memory's own HTML cannot borrow the interface's words.
"""

from __future__ import annotations

import html
import json
import secrets

DEFAULT = "en"
LANGUAGES = {"en": "English", "es": "Español"}  # each named in its own language
STORAGE_KEY = "ihmt.lang"  # where the browser keeps the choice (localStorage)
TOKEN = secrets.token_hex(8)  # this process's marks: unguessable by a memory's text

STRINGS: dict[str, dict[str, str]] = {
    "en": {
        # the four screens, as the navigation names them
        "nav.label": "Screens",
        "nav.setup": "Set up",
        "nav.explore": "Explore",
        "nav.diagnose": "Diagnose",
        "nav.timeline": "Timeline",
        "lang.label": "Language",
        "search.placeholder": "Search",
        # Explore
        "explore.intro": "Explore the vault's memories by topic: each section is a folder of the vault, "
        "each page a memory as it was written.",
        "badge.outdated": "OUTDATED",
        "badge.archived": "ARCHIVED",
        "badge.pinned": "📌 pinned",
        "header.corrects": "Corrects",
        # Set up
        "setup.title": "Set up",
        "setup.intro": "Which agents are connected to this vault, how healthy the vault is, and for each "
        "thing missing the command that fixes it. This page only shows commands: run them in a terminal.",
        "setup.agents": "Agents",
        "setup.agent": "Agent",
        "setup.scope": "Scope",
        "setup.state": "State",
        "setup.config": "Configuration file",
        "setup.fix": "Command to fix it",
        "setup.vault": "Vault",
        "setup.connected": "connected",
        "setup.partial": "connected, incomplete",
        "setup.other_vault": "connected to another vault",
        "setup.not_set_up": "not set up",
        "setup.missing": "missing",
        "setup.instructions": "instructions",
        "setup.hook": "session-start hook",
        "setup.none": "No agent is connected to this vault yet: run one of the commands below.",
        "setup.health": "Vault health",
        "setup.healthy": "The vault is healthy.",
        "setup.problems": "Problems found",
        "setup.repairable": "repairable",
        "setup.needs_you": "needs you",
        "setup.repair": "Repair what can be repaired",
        "setup.loading": "Loading…",
        "setup.unavailable": "Only a site served by ihmt site serve on this machine shows this screen.",
        "scope.user": "every project",
        "scope.project": "this project",
        # Diagnose
        "diagnose.title": "Diagnose a search",
        "diagnose.intro": "The vault's own search, as an agent's search_memory asks it: the answer's status "
        "(found, ambiguous, not found) and how sure it is, each hit's path from the root, its score and how "
        "it was reached, and the notices (OUTDATED, corrections). Only a site served by ihmt site serve has "
        "it; its search box shows the same answer above the site's own results.",
        "diagnose.search": "Search",
        "diagnose.query": "which postgres does staging run?",
        "diagnose.clue": "clue (optional)",
        "answer.found": "FOUND",
        "answer.ambiguous": "AMBIGUOUS",
        "answer.not_found": "NOT FOUND",
        "answer.confidence": "confidence",
        "answer.margin": "best ×{n} the next",
        "answer.source": "the vault's own search",
        "answer.archive": "Nothing current matched: these come from the archive.",
        "answer.tie": "Several memories match equally: a clue tells them apart.",
        "answer.more": "Diagnose this search",
        "answer.score": "score",
        "answer.via": "via",
        "confidence.high": "high",
        "confidence.medium": "medium",
        "confidence.low": "low",
        "confidence.none": "none",
        # Timeline and Recent changes
        "timeline.title": "Timeline",
        "timeline.intro": "Facts and corrections over time, newest first. An old value stays in its memory, "
        "marked OUTDATED.",
        "timeline.empty": "No dated facts or corrections yet.",
        "timeline.was": "was",
        "timeline.until": "until",
        "timeline.correction": "correction",
        "timeline.supersedes": "supersedes",
        "timeline.unpublished": "an unpublished memory",
        "timeline.changes": "Recent changes",
        "changes.title": "Recent changes",
        "changes.intro": "The vault's latest operations (up to {n}), newest first, from its git log: what "
        "changed, which operation and which agent.",
        "changes.when": "when",
        "changes.operation": "operation",
        "changes.agent": "agent",
        "changes.what": "what",
        "changes.private": "a private memory",
    },
    "es": {
        "nav.label": "Pantallas",
        "nav.setup": "Configurar",
        "nav.explore": "Explorar",
        "nav.diagnose": "Diagnosticar",
        "nav.timeline": "Cronología",
        "lang.label": "Idioma",
        "search.placeholder": "Buscar",
        "explore.intro": "Explora las memorias de la bóveda por tema: cada sección es una carpeta de la "
        "bóveda, cada página una memoria tal como se escribió.",
        "badge.outdated": "OBSOLETA",
        "badge.archived": "ARCHIVADA",
        "badge.pinned": "📌 fijada",
        "header.corrects": "Corrige",
        "setup.title": "Configurar",
        "setup.intro": "Qué agentes están conectados a esta bóveda, cómo está de salud la bóveda y, para "
        "cada cosa que falta, el comando que lo arregla. Esta página solo muestra comandos: ejecútalos en "
        "una terminal.",
        "setup.agents": "Agentes",
        "setup.agent": "Agente",
        "setup.scope": "Ámbito",
        "setup.state": "Estado",
        "setup.config": "Archivo de configuración",
        "setup.fix": "Comando para arreglarlo",
        "setup.vault": "Bóveda",
        "setup.connected": "conectado",
        "setup.partial": "conectado, incompleto",
        "setup.other_vault": "conectado a otra bóveda",
        "setup.not_set_up": "sin configurar",
        "setup.missing": "falta",
        "setup.instructions": "instrucciones",
        "setup.hook": "gancho de inicio de sesión",
        "setup.none": "Aún no hay ningún agente conectado a esta bóveda: ejecuta uno de los comandos de abajo.",
        "setup.health": "Salud de la bóveda",
        "setup.healthy": "La bóveda está sana.",
        "setup.problems": "Problemas encontrados",
        "setup.repairable": "reparable",
        "setup.needs_you": "te necesita",
        "setup.repair": "Reparar lo que se pueda reparar",
        "setup.loading": "Cargando…",
        "setup.unavailable": "Solo un sitio servido por ihmt site serve en esta máquina muestra esta pantalla.",
        "scope.user": "todos los proyectos",
        "scope.project": "este proyecto",
        "diagnose.title": "Diagnosticar una búsqueda",
        "diagnose.intro": "La búsqueda propia de la bóveda, tal como la pide el search_memory de un agente: "
        "el estado de la respuesta (encontrada, ambigua, no encontrada) y su seguridad, la ruta de cada "
        "resultado desde la raíz, su puntuación y cómo se llegó a él, y los avisos (OBSOLETA, correcciones). "
        "Solo la tiene un sitio servido por ihmt site serve; su cuadro de búsqueda muestra la misma "
        "respuesta encima de los resultados del propio sitio.",
        "diagnose.search": "Buscar",
        "diagnose.query": "¿qué postgres usa staging?",
        "diagnose.clue": "pista (opcional)",
        "answer.found": "ENCONTRADA",
        "answer.ambiguous": "AMBIGUA",
        "answer.not_found": "NO ENCONTRADA",
        "answer.confidence": "seguridad",
        "answer.margin": "la mejor ×{n} la siguiente",
        "answer.source": "la búsqueda propia de la bóveda",
        "answer.archive": "Nada actual coincidió: estas vienen del archivo.",
        "answer.tie": "Varias memorias coinciden por igual: una pista las distingue.",
        "answer.more": "Diagnosticar esta búsqueda",
        "answer.score": "puntuación",
        "answer.via": "vía",
        "confidence.high": "alta",
        "confidence.medium": "media",
        "confidence.low": "baja",
        "confidence.none": "ninguna",
        "timeline.title": "Cronología",
        "timeline.intro": "Hechos y correcciones a lo largo del tiempo, los más recientes primero. Un valor "
        "antiguo se queda en su memoria, marcado OBSOLETA.",
        "timeline.empty": "Aún no hay hechos fechados ni correcciones.",
        "timeline.was": "antes",
        "timeline.until": "hasta",
        "timeline.correction": "corrección",
        "timeline.supersedes": "reemplaza a",
        "timeline.unpublished": "una memoria no publicada",
        "timeline.changes": "Cambios recientes",
        "changes.title": "Cambios recientes",
        "changes.intro": "Las últimas operaciones de la bóveda (hasta {n}), las más recientes primero, "
        "según su registro de git: qué cambió, qué operación y qué agente.",
        "changes.when": "cuándo",
        "changes.operation": "operación",
        "changes.agent": "agente",
        "changes.what": "qué",
        "changes.private": "una memoria privada",
    },
}


def text(key: str, lang: str = DEFAULT, **values) -> str:
    """The words for `key` in `lang` (English when the language lacks them), `{name}`s filled in."""
    words = STRINGS.get(lang, {}).get(key) or STRINGS[DEFAULT][key]
    return words.format(**values) if values else words


def mark(key: str, n: int | None = None) -> str:
    """`key`'s English words in a span the site's script translates (HTML, also valid inside Markdown).
    `n` fills the words' `{n}` (kept in `data-ihmt-v` for the script)."""
    value = "" if n is None else f' data-ihmt-v="{int(n)}"'
    words = text(key, n=n) if n is not None else text(key)
    return f'<span data-ihmt-t="{TOKEN}:{key}"{value}>{html.escape(words, quote=False)}</span>'


def is_token(value: str) -> bool:
    """Whether `value` is this process's token (a memory's header, `pages.page_header`)."""
    return secrets.compare_digest(value.encode(), TOKEN.encode())


def key_of(value: str) -> str | None:
    """A mark's key when `value` carries this process's token (the sanitiser's test), else None."""
    token, sep, key = value.partition(":")
    return key if sep and is_token(token) and key in STRINGS[DEFAULT] else None


def table_json() -> str:
    """The table as the site's script reads it: `{"en": {...}, "es": {...}, "names": {...}}`."""
    return json.dumps({**STRINGS, "names": LANGUAGES, "storage": STORAGE_KEY}, ensure_ascii=False, sort_keys=True)
