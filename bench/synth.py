"""Synthetic memories for benchmarks: varied lengths, topics 1-5 levels deep, dates over years,
some corrections, English, Spanish and Chinese. Deterministic for a seed.

`memories(n)` returns items for `Vault.save_many`: about 5 % are corrections of an earlier item
(`supersedes` its id; the corrected items carry fixed ids), half have no topic (the vault places
them), lengths run from one line to a few paragraphs. `QUERIES` are questions a person would ask
of such a vault (all three languages, identifiers, names).
"""

from __future__ import annotations

import random

TOPICS = [
    "work",
    "work/infrastructure/databases",
    "work/infrastructure/ci",
    "work/decisions",
    "work/codebase/api",
    "work/codebase/frontend/components",
    "work/codebase/frontend/components/forms/validation",
    "work/incidents",
    "work/people",
    "personal/health",
    "personal/travel/europe",
    "personal/travel/asia/china/beijing",
    "personal/recetas",
    "personal/finanzas",
    "learning/chinese/vocabulary",
    "learning/books",
    "projects/home-server",
    "projects/garden/vegetables/tomatoes/pests",
    "people",
]
SUBJECTS = [
    "staging",
    "production",
    "the API gateway",
    "the billing service",
    "PostgreSQL",
    "Redis",
    "nginx",
    "the checkout flow",
    "reserveStock()",
    "the nightly backup",
    "GitHub Actions",
    "the mobile app",
    "Luis",
    "Marta",
    "Wei",
    "the design system",
    "Kubernetes",
    "the search index",
    "Stripe webhooks",
]
VERBS = [
    "runs on",
    "was moved to",
    "depends on",
    "must be restarted after",
    "is owned by",
    "was replaced by",
    "is monitored with",
    "logs to",
    "is deployed with",
    "caches results in",
]
OBJECTS = [
    "version 17",
    "a new host in Frankfurt",
    "the blue-green pipeline",
    "Grafana",
    "the on-call rota",
    "S3 with lifecycle rules",
    "a feature flag",
    "Terraform",
    "a 15 minute timeout",
    "PgBouncer",
]
REASONS = [
    "because the old setup lost data during the March outage",
    "so that deploys stop blocking on CI",
    "since the team agreed it in the retro",
    "to keep latency under 200 ms",
    "after a long discussion",
]
ES = [
    "Vivo en Valencia desde {y} y trabajo en una tienda online.",
    "La receta de la abuela lleva {n} huevos y cebolla.",
    "El viaje a Asturias costó {n}0 euros por persona.",
    "Reunión con el banco sobre la hipoteca el año {y}.",
    "Mi médico recomienda caminar {n} kilómetros al día por la tensión.",
]
ZH = [
    "周末去爬山,天气很好,走了{n}公里。",
    "学习中文:今天学了{n}个新的量词。",
    "红烧肉要用五花肉,炖{n}十分钟。",
    "和朋友在北京吃了烤鸭,一共{n}个人。",
    "番茄叶子上有虫,用了{n}次肥皂水。",
]
EXTRA = [
    "We wrote it down in the runbook.",
    "Ask Marta before changing it.",
    "Check Grafana after each deploy.",
    "The old dashboard is gone.",
    "See the incident review for details.",
    "Luis agreed on Slack.",
]

QUERIES = [
    "PostgreSQL version on staging",
    "nginx timeout",
    "who owns the billing service",
    "reserveStock",
    "Stripe webhooks monitored",
    "nightly backup S3 lifecycle",
    "GitHub Actions blue-green",
    "Kubernetes Terraform deploy",
    "Luis on-call rota",
    "Wei design system",
    "Redis PgBouncer",
    "mobile app feature flag",
    "search index Grafana",
    "checkout flow latency",
    "March outage lost data",
    "receta de la abuela huevos",
    "viaje a Asturias euros",
    "hipoteca banco",
    "Valencia tienda online",
    "médico caminar",
    "北京 烤鸭",
    "爬山 公里",
    "红烧肉",
    "学习中文 量词",
    "番茄 虫",
    "what did we decide in the retro",
    "Frankfurt host",
    "API gateway version 17",
    "production logs",
    "who is Marta",
]


def memories(n: int, seed: int = 7, corrections: float = 0.05) -> list[dict]:
    rnd = random.Random(seed)
    out: list[dict] = []
    english: list[int] = []  # indexes of plain English facts, which a later item may correct
    for i in range(n):
        year = rnd.randint(2019, 2026)
        date = f"{year}-{rnd.randint(1, 12):02d}-{rnd.randint(1, 28):02d}"
        roll = rnd.random()
        topic = rnd.choice(TOPICS) if rnd.random() < 0.5 else None
        item: dict = {"date": date, "tags": rnd.sample(["ops", "db", "team", "home", "food", "money"], 2)}
        if roll < corrections and english:
            j = english.pop(rnd.randrange(len(english)))
            old = out[j]
            old.setdefault("id", f"syn{seed}x{j:08d}")
            subject = old.pop("_subject")
            item["text"] = (
                f"Correction: {old['title']} no longer holds. {subject[0].upper()}{subject[1:]} now "
                f"{rnd.choice(VERBS)} {rnd.choice(OBJECTS)}. (ref {i})"
            )
            item["supersedes"] = [old["id"]]
            item["type"] = "correction"
            item["date"] = max(date, old["date"])
            if "topic" in old:
                topic = old["topic"]
        elif roll < 0.13:
            item["text"] = rnd.choice(ES).format(y=year, n=rnd.randint(2, 9)) + f" (ref {i})"
        elif roll < 0.23:
            item["text"] = rnd.choice(ZH).format(n=rnd.randint(2, 9)) + f"(ref {i})"
        else:
            subject, verb, obj = rnd.choice(SUBJECTS), rnd.choice(VERBS), rnd.choice(OBJECTS)
            sentences = [f"{subject[0].upper()}{subject[1:]} {verb} {obj} {rnd.choice(REASONS)}."]
            for _ in range(rnd.choice([0, 0, 0, 1, 2, 4, 8, 20])):
                sentences.append(
                    f"{rnd.choice(SUBJECTS).capitalize()} {rnd.choice(VERBS)} {rnd.choice(OBJECTS)}."
                    + (f" {rnd.choice(EXTRA)}" if rnd.random() < 0.3 else "")
                )
            paragraphs = [" ".join(sentences[k : k + 5]) for k in range(0, len(sentences), 5)]
            item["text"] = "\n\n".join(paragraphs) + f" (ref {i})"
            item["title"] = f"{subject[0].upper()}{subject[1:]} {verb} {obj}"
            item["_subject"] = subject
            item["type"] = rnd.choice(["fact", "fact", "decision", "procedure", "note"])
            english.append(i)
        if topic:
            item["topic"] = topic
        out.append(item)
    for item in out:
        item.pop("_subject", None)
    return out
