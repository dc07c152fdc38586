"""Synthetic memories for benchmarks: varied lengths, topics 1-5 levels deep, dates over years,
English, Spanish and Chinese. Deterministic for a seed."""
from __future__ import annotations

import random

TOPICS = ["work/infrastructure/databases", "work/infrastructure/ci", "work/decisions", "work/codebase/api",
          "work/codebase/frontend/components", "work/incidents", "work/people", "personal/health",
          "personal/travel/europe", "personal/recetas", "personal/finanzas", "learning/chinese/vocabulary",
          "learning/books", "projects/home-server", "projects/garden/vegetables/tomatoes"]
SUBJECTS = ["staging", "production", "the API gateway", "the billing service", "PostgreSQL", "Redis", "nginx",
            "the checkout flow", "reserveStock()", "the nightly backup", "GitHub Actions", "the mobile app",
            "Luis", "Marta", "Wei", "the design system", "Kubernetes", "the search index", "Stripe webhooks"]
VERBS = ["runs on", "was moved to", "depends on", "must be restarted after", "is owned by", "was replaced by",
         "is monitored with", "logs to", "is deployed with", "caches results in"]
OBJECTS = ["version 17", "a new host in Frankfurt", "the blue-green pipeline", "Grafana", "the on-call rota",
           "S3 with lifecycle rules", "a feature flag", "Terraform", "a 15 minute timeout", "PgBouncer"]
REASONS = ["because the old setup lost data during the March outage", "so that deploys stop blocking on CI",
           "since the team agreed it in the retro", "to keep latency under 200 ms", "after a long discussion"]
ES = ["Vivo en Valencia desde {y} y trabajo en una tienda online.", "La receta de la abuela lleva {n} huevos y cebolla.",
      "El viaje a Asturias costó {n}0 euros por persona.", "Reunión con el banco sobre la hipoteca el año {y}."]
ZH = ["周末去爬山,天气很好,走了{n}公里。", "学习中文:今天学了{n}个新的量词。", "红烧肉要用五花肉,炖{n}十分钟。",
      "和朋友在北京吃了烤鸭,一共{n}个人。"]


def memories(n: int, seed: int = 7) -> list[dict]:
    rnd = random.Random(seed)
    out = []
    for i in range(n):
        year = rnd.randint(2019, 2026)
        date = f"{year}-{rnd.randint(1, 12):02d}-{rnd.randint(1, 28):02d}"
        roll = rnd.random()
        topic = rnd.choice(TOPICS) if rnd.random() < 0.5 else None
        if roll < 0.1:
            text = rnd.choice(ES).format(y=year, n=rnd.randint(2, 9))
        elif roll < 0.2:
            text = rnd.choice(ZH).format(n=rnd.randint(2, 9))
        else:
            subject = rnd.choice(SUBJECTS)
            sentences = [f"{subject} {rnd.choice(VERBS)} {rnd.choice(OBJECTS)} {rnd.choice(REASONS)}."]
            for _ in range(rnd.choice([0, 0, 1, 2, 4, 8])):
                sentences.append(f"{rnd.choice(SUBJECTS).capitalize()} {rnd.choice(VERBS)} {rnd.choice(OBJECTS)}.")
            text = " ".join(sentences) + f" (ref {i})"
        item = {"text": text, "date": date, "tags": rnd.sample(["ops", "db", "team", "home", "food", "money"], 2)}
        if topic:
            item["topic"] = topic
        out.append(item)
    return out
