"""What a save refuses as a secret, and what it lets through (ihmt_vault/sensitive.py).

Random-shaped keys come from a seeded generator, so every run checks the same inputs.
"""

from __future__ import annotations

import base64
import random
import re
import string

import pytest

from ihmt_vault.storage.sensitive import find_secret, looks_like_credential

_RNG = random.Random(20240611)
ALNUM = string.ascii_letters + string.digits
B64 = ALNUM + "+/"
URLSAFE = ALNUM + "_-"
HEX = "0123456789abcdef"


def rand(n: int, alphabet: str = ALNUM, rng: random.Random = _RNG) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


GHP = "ghp_" + rand(36)
PEM = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA" + rand(48, B64) + "\n-----END RSA PRIVATE KEY-----"

# (name, text, the secret inside it)
SECRETS = [
    ("password in plain words", "the root password for the NAS is Tr0ub4dor&3", "Tr0ub4dor&3"),
    ("passphrase after a colon", "password: correcthorsebatterystaple", "correcthorsebatterystaple"),
    ("short password in prose", "The DB password is hunter2", "hunter2"),
    ("password in Markdown bold", "**Password:** Blu3-Sky!77", "Blu3-Sky!77"),
    ("password changed to", "I changed the router password to Xq7-pl!m2", "Xq7-pl!m2"),
    ("contraseña in prose", "La contraseña del wifi es Xk9mq2vvR", "Xk9mq2vvR"),
    ("contraseña after a colon", "contraseña: pato#Azul77", "pato#Azul77"),
    ("password in a database URL", "postgres://app:s3cr3t@db:5432/x", "s3cr3t"),
    ("password with ! in a URL", "mysql://root:Pa55w0rd!@10.0.0.5/app", "Pa55w0rd!"),
    ("AWS access key id", "AKIA" + (k := rand(16, string.ascii_uppercase + string.digits)), k),
    ("AWS secret access key alone", (k := rand(40, B64)), k),
    ("AWS secret access key in env", "AWS_SECRET_ACCESS_KEY=" + (k := rand(40, B64)), k),
    ("GitHub classic token", GHP, GHP[4:]),
    ("GitHub fine-grained token", "github_pat_" + (k := rand(22) + "_" + rand(59)), k),
    ("GitLab token", "glpat-" + (k := rand(20, URLSAFE)), k),
    ("Slack bot token", f"xoxb-{rand(12, string.digits)}-{rand(13, string.digits)}-{(k := rand(24))}", k),
    (
        "Slack app-level token",
        f"xapp-1-A{rand(10, string.ascii_uppercase + string.digits)}-{rand(13, string.digits)}-{(k := rand(64, HEX))}",
        k,
    ),
    (
        "Slack webhook",
        f"https://hooks.slack.com/services/T{rand(8, string.ascii_uppercase)}/"
        f"B{rand(8, string.ascii_uppercase)}/{(k := rand(24))}",
        k,
    ),
    ("Stripe live key", "sk_live_" + (k := rand(24)), k),
    ("Stripe webhook secret", "whsec_" + (k := rand(32)), k),
    (
        "PuTTY private key",
        "PuTTY-User-Key-File-2: ssh-rsa\nEncryption: none\nPublic-Lines: 6\n"
        "AAAAB3NzaC1yc2EAAAABJQAAAQEA\nPrivate-Lines: 14\n" + (k := rand(64, B64)),
        k,
    ),
    (
        "PuTTY v3 private key",
        "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nPrivate-Lines: 1\n" + (k := rand(44, B64)),
        k,
    ),
    (
        "OpenSSH private key",
        "-----BEGIN OPENSSH PRIVATE KEY-----\n" + (k := rand(70, B64)) + "\n-----END OPENSSH PRIVATE KEY-----",
        k,
    ),
    (
        "encrypted PKCS#8 private key",
        "-----BEGIN ENCRYPTED PRIVATE KEY-----\n" + (k := rand(64, B64)) + "\n-----END ENCRYPTED PRIVATE KEY-----",
        k,
    ),
    ("Twilio API key", "SK" + (k := rand(32, HEX)), k),
    ("Discord bot token", (k := "M" + rand(23) + "." + rand(6, URLSAFE) + "." + rand(27, URLSAFE)), k),
    ("Telegram bot token", f"{rand(9, string.digits)}:AA{(k := rand(33, URLSAFE))}", k),
    ("Anthropic API key", "sk-ant-api03-" + (k := rand(93, URLSAFE)) + "AA", k),
    ("OpenAI project key", "sk-proj-" + (k := rand(156, URLSAFE)), k),
    ("OpenAI legacy key", "sk-" + (k := rand(48)), k),
    ("Google API key", "AIza" + (k := rand(35, URLSAFE)), k),
    ("Hugging Face token", "hf_" + (k := rand(34)), k),
    ("npm token", "npm_" + (k := rand(36)), k),
    ("SendGrid key", "SG." + rand(22, URLSAFE) + "." + (k := rand(43, URLSAFE)), k),
    (
        "JSON web token",
        (
            k := "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ."
            "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
        ),
        k,
    ),
    (
        "Azure SAS token",
        "https://acct.blob.core.windows.net/c/f.txt?sv=2022-11-02&ss=b&srt=o&sp=r"
        f"&se=2025-01-01T00:00:00Z&spr=https&sig={(k := rand(43, B64))}%3D",
        k,
    ),
    (
        "Azure storage connection string",
        "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey="
        + (k := rand(86, B64))
        + "==;EndpointSuffix=core.windows.net",
        k,
    ),
    ("bearer token", "curl -H 'Authorization: Bearer " + (k := rand(40)) + "' https://api.x.io", k),
    ("HTTP Basic header", "Authorization: Basic " + b64("deploy:Xq7!plm2"), "Xq7!plm2"),
    ("API key assignment", "api_key: " + (k := rand(32, HEX)), k),
    ("access token assignment", "access_token = " + (k := rand(30)), k),
    ("key in plain words", "the API key is " + (k := rand(32, HEX)), k),
    ("Discord webhook", f"https://discord.com/api/webhooks/{rand(18, string.digits)}/{(k := rand(68, URLSAFE))}", k),
    ("base64-wrapped private key", b64(PEM), PEM),
    ("base64-wrapped GitHub token", b64(GHP), GHP),
    ("key split by a zero-width space", GHP[:12] + "\u200b" + GHP[12:], GHP),
]


@pytest.mark.parametrize("text", [t for _, t, _ in SECRETS], ids=[n for n, _, _ in SECRETS])
def test_refuses_realistic_secret_shapes(text):
    assert find_secret(text) is not None


@pytest.mark.parametrize("text", [t for _, t, _ in SECRETS], ids=[n for n, _, _ in SECRETS])
def test_refuses_secret_inside_prose(text):
    assert find_secret(f"Note for later:\n{text}\nThat is all.") is not None


@pytest.mark.parametrize("text,secret", [(t, s) for _, t, s in SECRETS], ids=[n for n, _, _ in SECRETS])
def test_the_kind_never_contains_the_secret(text, secret):
    kind = find_secret(text)
    assert kind is not None
    assert not any(secret[i : i + 6] in kind for i in range(len(secret) - 5))


def test_kinds_name_the_detector():
    assert find_secret(GHP) == "a GitHub token (detect-secrets: GitHubTokenDetector)"
    assert find_secret("whsec_" + rand(32)) == "a Stripe webhook secret"
    assert find_secret("The DB password is hunter2") == "a password written in plain words"
    assert find_secret(b64(GHP)).endswith(", base64-encoded")


@pytest.mark.parametrize(
    "make",
    [
        lambda r: "sk-proj-" + rand(r.randint(40, 160), URLSAFE, r),
        lambda r: "sk-ant-api03-" + rand(93, URLSAFE, r) + "AA",
        lambda r: rand(40, B64, r),  # a bare AWS secret access key
        lambda r: "ghp_" + rand(36, ALNUM, r),
        lambda r: "AKIA" + rand(16, string.ascii_uppercase + string.digits, r),
    ],
    ids=["openai", "anthropic", "aws-secret", "github", "aws-id"],
)
def test_every_random_key_of_a_known_shape_is_refused(make):
    rng = random.Random(7)
    keys = [make(rng) for _ in range(50)]
    assert [k for k in keys if not find_secret(f"use {k} for the deploy")] == []


BENIGN = [
    ("prose about rotation", "rotate the password every 90 days"),
    ("pointer to a manager", "the password is in 1Password"),
    ("stored elsewhere", "The password is stored in Bitwarden under 'NAS'."),
    ("policy", "Password must be at least 12 characters and the password policy is strict."),
    ("placeholder", "password: <your password>"),
    ("environment reference", "export DB_PASSWORD=${DB_PASSWORD}"),
    ("masked", "password: ****"),
    ("word after colon", "password: required"),
    ("metadata keys", "password_min_length: 12\npassword_hash: argon2id\npassword_expiry: 90d"),
    ("code reference", "password = os.environ['DB_PASSWORD']\npassword = settings.DB_PASSWORD"),
    ("Spanish prose", "La contraseña está en el gestor de contraseñas."),
    ("shell pwd", "pwd: /home/alice/projects"),
    ("UUID", "request id 123e4567-e89b-12d3-a456-426614174000 failed"),
    ("git commit hash", "fixed in 3f786850e387550fdab836ed7e6dc881de23001b"),
    ("sha256", "sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
    ("AWS documentation keys", "AKIAIOSFODNN7EXAMPLE / wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
    ("AWS documentation assignment", "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
    ("x-ed out token", "token: ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"),
    ("truncated key", "the key starts with sk-proj-abc..."),
    ("URL without credentials", "see https://github.com/org/repo/blob/main/src/components/UserProfileCard.tsx"),
    ("URL with a document id", "https://docs.google.com/document/d/1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74OgvE2upms/edit"),
    ("masked URL password", "postgresql+psycopg2://testuser:****@localhost:5432/testdb"),
    ("templated URL password", "postgres://${DB_USER}:${DB_PASSWORD}@db/app"),
    ("local URL, user as password", "postgres://tienda:tienda@localhost:55432/tienda_test"),
    ("base64 of ordinary text", b64("Hello world, this is an ordinary sentence about lunch.")),
    ("long identifiers", "AbstractSingletonProxyFactoryBean and getElementsByTagNameNS in XMLHttpRequestUpload"),
    ("file paths", "org/apache/kafka/clients/consumer/KafkaConsumer.java, usr/lib/python3.11/site-packages"),
    ("model names", "switched from claude-3-5-sonnet-20241022 to gpt-4o-mini-2024-07-18"),
    ("pod names", "api-server-7d9f8b6c5d-x2x4z restarted twice"),
    ("SSH public key", "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGmHkE1kYc2sU9aZfXgq8u8vB1Qm3ZLQy0l4bJxkZp7a alice@laptop"),
    ("SRI hash", '<script integrity="sha384-oqVuAfXRKap7fdgcCY5uykM6+R9GqQ8K/uxy9rx7HNQlGYl1kPzQho1wx4JwY8wC">'),
    ("bearer placeholder", "Authorization: Bearer <token>\nAuthorization: Bearer $TOKEN"),
    ("token counts", "max_tokens: 4096 and our token budget is 4096 tokens"),
    ("secrets in prose", "The secret is that she loves jazz. The key is consistency."),
    ("Secret Santa", "Secret Santa: Bob gets Alice"),
    ("mountain pass", "the pass is closed in winter"),
]


@pytest.mark.parametrize("text", [t for _, t in BENIGN], ids=[n for n, _ in BENIGN])
def test_accepts_ordinary_text(text):
    assert find_secret(text) is None


def test_accepts_empty_text():
    assert find_secret("") is None


@pytest.mark.parametrize(
    "char", ["\u200b", "\u200c", "\u200d", "\u200e", "\u200f", "\u2060", "\u2063", "\ufeff", "\u00ad", "\u180e"]
)
def test_a_key_split_by_an_invisible_character_is_refused(char):
    key = "sk-ant-api03-" + rand(93, URLSAFE) + "AA"
    assert find_secret(key[:20] + char + key[20:]) is not None


def test_a_key_spelled_with_homoglyphs_is_refused():
    # Cyrillic р and Greek Α in place of Latin p and A
    assert find_secret("ghр_" + rand(36)) is not None
    assert find_secret("ΑKIA" + rand(16, string.ascii_uppercase + string.digits)) is not None


def test_a_password_split_by_a_soft_hyphen_is_refused():
    assert find_secret("The DB password is hun\u00adter2") is not None


def test_base64_of_a_password_sentence_is_refused():
    assert find_secret("config blob: " + b64("the root password for the NAS is Tr0ub4dor&3")) is not None


def test_nested_base64_is_handled_without_error():
    blob = "hello"
    for _ in range(12):
        blob = b64(blob)
    assert find_secret(blob) is None


@pytest.mark.parametrize(
    "word",
    [
        "bpxrficyexamplekey",
        "wjalrxutnfemi",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "AKIAIOSFODNN7EXAMPLE",
        GHP,
        rand(40, B64),
        "3f786850e387550fdab836ed7e6dc881de23001b",
    ],
)
def test_credential_like_tokens(word):
    assert looks_like_credential(word)


@pytest.mark.parametrize(
    "word",
    [
        "reservestock",
        "postgresql",
        "pg17",
        "password",
        "internationalization",
        "kubernetes",
        "sqlalchemy",
        "userprofilecard",
        "djangorestframework",
        "x86_64-unknown-linux-gnu",
        "v2.3.1",
        "claude-3-5-sonnet",
        "123e4567-e89b-12d3-a456-426614174000",
        "AbstractSingletonProxyFactoryBean",
    ],
)
def test_ordinary_tokens_are_not_credential_like(word):
    assert not looks_like_credential(word)


def test_every_secret_shape_is_credential_like_as_one_token():
    tokens = [GHP, "whsec_" + rand(32), "sk-ant-api03-" + rand(93, URLSAFE) + "AA", "hf_" + rand(34)]
    assert all(looks_like_credential(t) for t in tokens)
    assert not any(re.search(r"\s", t) for t in tokens)
