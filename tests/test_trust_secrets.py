"""The clouds' credential files and the provider key shapes gitleaks knows are secrets on every path
(storage/sensitive.py's `find_secret` is the one judge); ordinary memories that look a little like
them are not. Keys come from a seeded generator: every run checks the same inputs."""

from __future__ import annotations

import json
import random
import string
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import git

from ihmt_vault import SecretRefused, Vault
from ihmt_vault.storage.sensitive import find_secret

R = random.Random(20250301)
ALNUM = string.ascii_letters + string.digits
URLSAFE = ALNUM + "_-"
B64 = ALNUM + "+/"
HEX = "0123456789abcdef"
UPPER = string.ascii_uppercase + string.digits


def rand(n: int, alphabet: str = ALNUM) -> str:
    return "".join(R.choice(alphabet) for _ in range(n))


KEY_ID = rand(40, HEX)
GCP_SERVICE_ACCOUNT = json.dumps(
    {
        "type": "service_account",
        "project_id": "acme-prod",
        "private_key_id": KEY_ID,
        "client_email": "deployer@acme-prod.iam.gserviceaccount.com",
        "client_id": rand(21, string.digits),
        "auth_uri": "https://accounts.google.com/o/oauth2/auth",
        "token_uri": "https://oauth2.googleapis.com/token",
    },
    indent=2,
)

# (name, text, the kind find_secret names): each was let through before, or caught only by chance
# as "a high-entropy string" (a lower-case or hex key is not).
CREDENTIALS = [
    ("GCP service account, no PEM", GCP_SERVICE_ACCOUNT, "a Google Cloud service-account key"),
    ("GCP key id in YAML", f"private_key_id: {KEY_ID}", "a Google Cloud service-account key"),
    (
        "GCP authorized_user",
        json.dumps(
            {
                "type": "authorized_user",
                "client_id": "7.apps.googleusercontent.com",
                "refresh_token": "1//0" + rand(60, URLSAFE),
            }
        ),
        "a Google OAuth refresh token",
    ),
    ("Google OAuth access token", "ya29." + rand(80, URLSAFE), "a Google OAuth access token"),
    (
        "Azure service principal (az ad sp create-for-rbac)",
        json.dumps({"appId": "a1b2c3d4-1111-2222-3333-444455556666", "password": rand(3) + "8Q~" + rand(34)}),
        "an Azure AD client secret",
    ),
    ("Azure AD client secret in prose", f"the app's secret {rand(3)}8Q~{rand(34)} expires in May", None),
    (
        "AWS SecretAccessKey in JSON",
        json.dumps({"SecretAccessKey": rand(40, B64)}),
        "an AWS secret access key",
    ),
    ("AWS ini", f"[prod]\naws_secret_access_key={rand(40, B64)}\n", "an AWS secret access key"),
    ("age secret key", "AGE-SECRET-KEY-1" + rand(58, "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"), "an age secret key"),
    ("Sentry user token", "sntryu_" + rand(64, HEX), "a Sentry token"),
    ("Mailgun key", "MAILGUN_API_KEY key-" + rand(32, HEX), "a Mailgun API key"),
    ("RubyGems token", "rubygems_" + rand(48, HEX), "a RubyGems API token"),
    ("Shippo token", "shippo_live_" + rand(40, HEX), "a Shippo API token"),
    ("Pulumi token", "pul-" + rand(40, HEX), "a Pulumi access token"),
    ("Dynatrace token", f"dt0c01.{rand(24, UPPER)}.{rand(64, UPPER)}", "a Dynatrace API token"),
    ("Sourcegraph token", "sgp_" + rand(16, HEX) + "_" + rand(40, HEX), "a Sourcegraph token"),
    ("Readme token", "rdme_" + rand(70, string.ascii_lowercase + string.digits), "a Readme API token"),
    ("Clojars token", "CLOJARS_" + rand(60, string.ascii_lowercase + string.digits), "a Clojars token"),
    ("Stripe restricted prod key", "rk_prod_" + rand(24), "a Stripe key"),
    ("Perplexity key", "pplx-" + rand(48), "a Perplexity API key"),
    ("Linear key", "lin_api_" + rand(40), "a Linear API key"),
    ("Doppler token", "dp.pt." + rand(43), "a Doppler token"),
    ("Heroku key", "HRKU-AA" + rand(58, URLSAFE), "a Heroku API key"),
    ("Vault token", "hvs." + rand(95, URLSAFE), "a HashiCorp Vault token"),
    ("Postman key", f"PMAK-{rand(24, HEX)}-{rand(34, HEX)}", "a Postman API key"),
    ("Grafana service account", f"glsa_{rand(32)}_{rand(8, HEX)}", "a Grafana token"),
    ("Notion token", "ntn_" + rand(11, string.digits) + rand(35), "a Notion API token"),
    ("Atlassian token", "ATATT3" + rand(186, URLSAFE), "an Atlassian API token"),
    ("Brevo key", f"xkeysib-{rand(64, HEX)}-{rand(16)}", "a Brevo (Sendinblue) API key"),
    ("PlanetScale token", "pscale_tkn_" + rand(43, URLSAFE), "a PlanetScale token"),
    ("Alibaba access key", "LTAI" + rand(20), "an Alibaba Cloud access key"),
    ("OpenShift token", "sha256~" + rand(43, URLSAFE), "an OpenShift token"),
]


@pytest.mark.parametrize("text,kind", [(t, k) for _, t, k in CREDENTIALS], ids=[n for n, _, _ in CREDENTIALS])
def test_credential_files_and_provider_keys_are_secrets_named_by_their_kind(text, kind):
    found = find_secret(text)
    assert found is not None
    if kind:
        assert found == kind
    assert not any(part in found for part in text.split() if len(part) >= 12)


ORDINARY = [
    ("commit ids", f"Fixed in {KEY_ID} and 3f786850e387550fdab836ed7e6dc881de23001b on main."),
    ("a UUID", "Tenant d1e2f3a4-1111-2222-3333-444455556666 is the production one."),
    ("a console URL", "Keys: https://console.cloud.google.com/iam-admin/serviceaccounts?project=acme-prod"),
    ("private_key_id in prose", "The private_key_id field names which key signed the token; rotate it yearly."),
    ("private_key_id without a value", 'The JSON has "private_key_id": "<the key id>" and a client_email.'),
    ("a service account named", '{"type": "service_account", "client_email": "ci@acme.iam.gserviceaccount.com"}'),
    ("a cache key", "The cache key-5d41402abc4b2a76b9719d911017c592 expired at noon."),
    ("a digest", "sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
    ("an AWS doc example", "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
    ("a path with tildes", "Copy ~/backups/2024~old/notes.txt to the NAS."),
]


@pytest.mark.parametrize("text", [t for _, t in ORDINARY], ids=[n for n, _ in ORDINARY])
def test_ordinary_memories_that_look_a_little_like_credentials_are_not_refused(text):
    assert find_secret(text) is None


# -- every path ---------------------------------------------------------------------------------------
def ihmt(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ihmt_vault", *args], capture_output=True, text=True)


def tracked(root: Path) -> list[str]:
    return git(root, "ls-files").splitlines()


HAND = f"---\ntitle: Deploy credential\n---\nThe deployer's key file:\n\n{GCP_SERVICE_ACCOUNT}\n"


@pytest.mark.parametrize("path", ["text", "title", "tags", "facts", "import"])
def test_a_service_account_credential_is_refused_by_save_and_import(vault, path):
    line = f"private_key_id: {KEY_ID}"
    with pytest.raises(SecretRefused, match="a Google Cloud service-account key"):
        if path == "text":
            vault.save(GCP_SERVICE_ACCOUNT, topic="ops")
        elif path == "title":
            vault.save("The deployer's key.", title=line, topic="ops")
        elif path == "tags":
            vault.save("The deployer's key.", topic="ops", tags=["gcp", line])
        elif path == "facts":
            vault.save(
                "The deployer's key.", topic="ops", facts=[{"subject": "deployer", "attribute": "key", "value": line}]
            )
        else:
            vault.save_many([{"text": "Deploy notes.", "topic": "ops"}, {"text": GCP_SERVICE_ACCOUNT, "topic": "ops"}])
    assert git(vault.root, "log", "--format=%s") == "init: Memory\n"


def test_a_hand_written_service_account_is_kept_out_by_watcher_hook_doctor_and_sync(tmp_path):
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    v = Vault.init(tmp_path / "v")
    git(v.root, "remote", "add", "origin", str(remote))
    (v.root / "ops").mkdir()
    (v.root / "ops/deploy.md").write_text(HAND)
    r = ihmt("watch", "--once", "--vault", str(v.root))
    assert (
        r.returncode == 0
        and "skipped ops/deploy.md: contains what looks like a Google Cloud service-account key" in r.stderr
    )
    assert [(p.kind, p.path) for p in v.doctor(repair=True) if p.path == "ops/deploy.md"] == [
        ("secret", "ops/deploy.md")
    ]
    git(v.root, "add", "ops/deploy.md")
    assert v.check_staged() == [
        "ops/deploy.md: contains what looks like a Google Cloud service-account key; remove it before committing"
    ]
    git(v.root, "rm", "-q", "--cached", "ops/deploy.md")
    v.sync()
    v.close()
    pushed = subprocess.run(["git", "log", "-p", "--all"], cwd=remote, capture_output=True, text=True).stdout
    assert pushed and KEY_ID not in pushed and "ops/deploy.md" not in tracked(tmp_path / "v")
