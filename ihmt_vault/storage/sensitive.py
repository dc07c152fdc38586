"""What counts as a secret in a memory's text.

Memories live in git in plain text and travel to every clone and remote, so a save (and the
pre-commit hook) refuses text that looks like a credential. The decision is:

* A secret is a value that grants access: a provider's key or token, a private key, a cloud's
  credential file (a Google service-account key by its 40-hex `private_key_id`, Google OAuth
  refresh tokens, Azure AD client secrets, an AWS secret access key in JSON or ini), a password
  in a URL or in an assignment, a password written in plain words ("the NAS password is X"), or a
  random-looking key on its own (a bare AWS secret access key). Its shape decides, not whether it
  is still valid.
* Not a secret: prose about passwords ("rotate it every 90 days", "it is in 1Password"),
  placeholders and references (`<your password>`, `${DB_PASSWORD}`, `****`, `os.environ[...]`),
  documentation examples (keys containing EXAMPLE, xxxx, placeholder...), hashes and ids (hex
  runs: commit hashes, sha256, UUIDs), public material (certificates, public keys, SRI hashes,
  data URIs), URLs without credentials, identifiers, paths, and base64 of ordinary text.
* Text is normalised before it is checked (NFKC, invisible characters removed, Cyrillic/Greek
  look-alikes mapped to Latin) so a key split by a zero-width space or spelled with a homoglyph
  is still seen; base64 runs that decode to text are checked once more, decoded (not recursively).

Error model: `find_secret` returns None or the kind of the first secret, never the secret itself
("a GitHub token (detect-secrets: GitHubTokenDetector)"), because the kind ends up in error
messages, logs and hook output. It does not raise on any `str` (time stays linear up to the 2 MB
a memory may hold); without detect-secrets installed it raises ImportError rather than let
secrets through. It errs towards refusing: a refused save costs the caller a rewrite, a committed
secret costs a key rotation and a history rewrite on every remote.

Detection is Yelp's detect-secrets (its provider plugins, its keyword detector, its entropy
measure and its letter-bigram model); our own patterns cover only what it lacks (listed in
`_OWN_PATTERNS` and `_PLAIN_WORDS`), among them the provider shapes of gitleaks' public rule set
(config/gitleaks.toml) that detect-secrets does not know, each anchored on its provider's prefix.
The plugins are built once, lazily, on first use.
"""

from __future__ import annotations

import base64
import binascii
import bisect
import json
import math
import re
import string
import unicodedata
from functools import lru_cache

# --- normalisation -------------------------------------------------------------------------------
_INVISIBLE = "\u200b\u200c\u200d\u200e\u200f\u2060\u2061\u2062\u2063\u2064\ufeff\u00ad\u180e"
# Cyrillic and Greek letters drawn like Latin ones; NFKC leaves them alone.
_HOMOGLYPHS = {
    # Cyrillic
    "А": "A",
    "В": "B",
    "Е": "E",
    "К": "K",
    "М": "M",
    "Н": "H",
    "О": "O",
    "Р": "P",
    "С": "C",
    "Т": "T",
    "Х": "X",
    "У": "Y",
    "І": "I",
    "Ј": "J",
    "Ѕ": "S",
    "Ԛ": "Q",
    "Ԝ": "W",
    "Ү": "Y",
    "а": "a",
    "е": "e",
    "о": "o",
    "р": "p",
    "с": "c",
    "у": "y",
    "х": "x",
    "і": "i",
    "ј": "j",
    "ѕ": "s",
    "ԁ": "d",
    "һ": "h",
    "ԛ": "q",
    "ԝ": "w",
    "ӏ": "l",
    "ү": "y",
    "ɡ": "g",
    # Greek
    "Α": "A",
    "Β": "B",
    "Ε": "E",
    "Ζ": "Z",
    "Η": "H",
    "Ι": "I",
    "Κ": "K",
    "Μ": "M",
    "Ν": "N",
    "Ο": "O",
    "Ρ": "P",
    "Τ": "T",
    "Υ": "Y",
    "Χ": "X",
    "α": "a",
    "ι": "i",
    "κ": "k",
    "ν": "v",
    "ο": "o",
    "ρ": "p",
    "υ": "u",
    "χ": "x",
    "ϲ": "c",
    "ϳ": "j",
}
_TRANSLATE = str.maketrans({**dict.fromkeys(_INVISIBLE), **_HOMOGLYPHS})


def normalise(text: str) -> str:
    """`text` as the detectors should see it: NFKC, no invisible characters, Latin look-alikes."""
    if text.isascii():  # nothing to fold; most memories
        return text
    return unicodedata.normalize("NFKC", text).translate(_TRANSLATE)


# --- what is not a secret ------------------------------------------------------------------------
# Documentation keys and templates: AKIAIOSFODNN7EXAMPLE, ghp_xxxx..., <token>, ${KEY}, ****.
_PLACEHOLDER = re.compile(
    r"(?i)example|placeholder|xxxx|your[_-]|[<>]|\$\{|\{\{|change[_-]?me|redacted|dummy|sample|"
    r"\*\*\*|•••|\.\.\.|…|(.)\1{5,}"
)
# Passwords anyone can guess are not worth refusing a save for (`postgres:postgres@localhost`).
_DEFAULT_PASSWORDS = frozenset(
    "password pass passwd pwd secret changeme admin root postgres mysql redis guest test user "
    "default none null empty hidden unknown required optional same".split()
)
# Values after "password:" that are words about the password, not the password.
_NOT_VALUES = _DEFAULT_PASSWORDS | frozenset(
    "1password lastpass bitwarden keepass keepassxc dashlane vault keychain n/a tbd tbc".split()
)
# Key names that describe a password rather than hold one (`password_hash: argon2id`).
_META_KEY = re.compile(
    r"(?i)(?:hash|hashing|hasher|algo|algorithm|scheme|policy|length|len|min|max|expiry|expires|"
    r"age|reset|manager|strength|rotation|file|path|url|uri|field|prompt|hint|type|format|mode|"
    r"rules?|validator|regex|pattern|changed|updated|count|attempts|rounds|iterations|encoder|"
    r"store|storage|provider|env|name|id|ref|label|command|cmd|helper)s?$"
)
_ALGORITHM = re.compile(
    r"(?i)(?:argon2(?:id|i|d)?|bcrypt|scrypt|pbkdf2\w*|sha-?\d+\w*|md5|hmac\w*|"
    r"aes-?\d+\w*|rsa\d*|ed25519|utf-?8)"
)
_ENV_NAME = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")
_ATTRIBUTE = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")
# Versions and quantities: "password_expiry: 90d", "password: 12 chars", "v2.3.1".
_VERSION = re.compile(
    r"(?i)v?\d+(?:\.\d+)+[a-z0-9.-]*|\d+(?:[.,]\d+)?\s?(?:[smhdwyx]|min|mins|minutes?|"
    r"secs?|seconds?|hours?|hrs?|days?|weeks?|months?|mo|years?|yrs?|chars?|"
    r"characters?|digits?|letters?|kb|mb|gb|tb|k|ms)"
)
_EMAIL = re.compile(r"[^@\s]+@[\w-]+(?:\.[\w-]+)+")
_HEXISH = re.compile(r"[0-9a-fA-F-]+")


def _is_secret_value(value: str, key: str = "", min_len: int = 6) -> bool:
    """Whether the value written after "password:" / "the password is" is a password.

    Words ("in 1Password", "stored in the vault"), placeholders, references and paths are not;
    a value mixing letters with digits or symbols, a long passphrase, or a 6+ digit number is.
    """
    v = value.strip()
    if len(v) >= 2 and v[0] in "\"'`" and v[-1] == v[0]:
        v = v[1:-1].strip()
    v = v.split()[0] if v.split() else ""
    v = v.strip("*_`").rstrip(".,;:!?)]}>'\"")  # Markdown emphasis and sentence punctuation
    if len(v) < min_len or (key and _META_KEY.search(key)):
        return False
    low = v.lower()
    if (
        low in _NOT_VALUES
        or _PLACEHOLDER.search(v)
        or v[0] in "<{[$%(&@#/~.\\!"
        or "://" in v
        or re.match(r"[A-Za-z]:\\", v)
        or _EMAIL.fullmatch(v)
        or _ENV_NAME.fullmatch(v)
        or _ATTRIBUTE.fullmatch(v)
        or "(" in v
        or "[" in v
        or _ALGORITHM.fullmatch(v)
        or _VERSION.fullmatch(v)
    ):
        return False
    letters = sum(c.isalpha() for c in v)
    digits = sum(c.isdigit() for c in v)
    if letters == 0:
        return digits == len(v)  # a numeric password; '----' or '8+' is not
    if letters + v.count("_") == len(v):  # letters only (or snake_case)
        if "_" in v:
            return False  # an identifier
        # A passphrase run together (correcthorsebatterystaple), or case flipped at random.
        switches = sum(a.islower() != b.islower() for a, b in zip(v, v[1:]))
        return (len(v) >= 16 and v.islower()) or switches >= 4
    if "/" in v.strip("/") and all(p.isalpha() for p in v.split("/") if p):
        return False  # a relative path: docs/setup
    return True


def _is_key_value(value: str, key: str = "") -> bool:
    """Whether the value after "the API key is" / "token:" is a key: random-looking or long hex.
    Stricter than a password: "secret: meet-at-the-cafe-at-5pm" is prose."""
    v = value.strip().strip("\"'`").rstrip(".,;:!?)]}>")
    if len(v) < 16 or _PLACEHOLDER.search(v) or (key and _META_KEY.search(key)):
        return False
    if _looks_random(v, min_len=16):
        return True
    if _HEXISH.fullmatch(v):
        return "-" not in v and any(c.isdigit() for c in v) and any(c.isalpha() for c in v)
    return _is_secret_value(v, key, min_len=16) and _gibberish(v) >= 3.0


# --- detect-secrets ------------------------------------------------------------------------------
# Each plugin is gated by cheap tests so a typical memory runs a handful of regexes, not forty:
# substrings it cannot match without (a needle in lower case is looked for in the lowered text,
# one with capitals in the text as written), and the length of the longest run of key characters
# it needs (prose has none of 20+).
_PLUGINS = (  # kind, detect-secrets plugin, needles, shortest run
    ("a private key", "private_key.PrivateKeyDetector", ("private key", "putty-user-key"), 0),
    ("an AWS access key", "aws.AWSKeyDetector", ("AKIA", "ASIA", "ABIA", "ACCA", "A3T", "aws"), 20),
    ("a GitHub token", "github_token.GitHubTokenDetector", ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"), 36),
    ("a GitLab token", "gitlab_token.GitLabTokenDetector", ("gl", "gr1348941"), 20),
    ("a Slack token", "slack.SlackDetector", ("xox", "hooks.slack"), 0),
    ("a Stripe key", "stripe.StripeDetector", ("k_live_",), 24),
    ("an OpenAI API key", "openai.OpenAIDetector", ("t3blbkfj",), 40),
    ("a JSON web token", "jwt.JwtTokenDetector", ("eyj",), 0),
    ("a SendGrid API key", "sendgrid.SendGridDetector", ("sg.",), 40),
    ("a PyPI token", "pypi_token.PypiTokenDetector", ("pypi-",), 70),
    ("an npm token", "npm.NpmDetector", ("_authtoken",), 0),
    ("a Discord bot token", "discord.DiscordBotTokenDetector", (".",), 23),
    ("a Telegram bot token", "telegram_token.TelegramBotTokenDetector", (":",), 35),
    ("a Twilio API key", "twilio.TwilioKeyDetector", ("AC", "SK"), 32),
    ("a Mailchimp API key", "mailchimp.MailchimpDetector", ("-us",), 32),
    ("a Square OAuth secret", "square_oauth.SquareOAuthDetector", ("sq0csp-",), 40),
    ("an Azure storage account key", "azure_storage_key.AzureStorageKeyDetector", ("accountkey=",), 80),
    ("an Artifactory credential", "artifactory.ArtifactoryDetector", ("AKC", "AP"), 20),
    ("an IBM Cloud IAM key", "ibm_cloud_iam.IbmCloudIamDetector", ("key", "pwd", "pass", "token"), 44),
    ("an IBM COS HMAC secret", "ibm_cos_hmac.IbmCosHmacDetector", ("secret",), 48),
    ("a Cloudant credential", "cloudant.CloudantDetector", ("cl",), 24),
    ("a SoftLayer credential", "softlayer.SoftlayerDetector", ("softlayer", "sl"), 64),
)
# Checks on a plugin's whole match where its pattern is loose: Artifactory's also matches
# capitalised words (APEXLEGENDS), Twilio's and Mailchimp's any lowercase run, but their keys are
# mixed-case with digits, and hex.
_VALUE_CHECKS = {
    "ArtifactoryDetector": lambda v: bool(re.search(r"\d", v) and re.search(r"[a-z]", v)),
    "TwilioKeyDetector": lambda v: bool(re.fullmatch(r"(?:AC|SK)[0-9a-f]{32}", v)),
    "MailchimpDetector": lambda v: bool(re.fullmatch(r"[0-9a-f]{32}-us\d{1,2}", v)),
}


def _split_needles(needles: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(needles for the lowered text, needles for the text as written)."""
    return tuple(n for n in needles if n == n.lower()), tuple(n for n in needles if n != n.lower())


def _present(needles: tuple[tuple[str, ...], tuple[str, ...]], text: str, lowered: str) -> bool:
    return any(n in lowered for n in needles[0]) or any(n in text for n in needles[1])


@lru_cache(maxsize=1)
def _detectors():
    """The detect-secrets plugins, built once. Only `analyze_string` is called: it is pure (no
    global settings, no verification requests over the network), unlike `scan_line`."""
    import importlib

    from detect_secrets.plugins import keyword
    from detect_secrets.plugins.basic_auth import BasicAuthDetector
    from detect_secrets.plugins.high_entropy_strings import Base64HighEntropyString

    plugins = []
    for kind, where, needles, shortest in _PLUGINS:
        module, name = where.split(".")
        cls = getattr(importlib.import_module(f"detect_secrets.plugins.{module}"), name)
        plugins.append((f"{kind} (detect-secrets: {name})", cls(), _split_needles(needles), shortest, name))
    keywords = (
        keyword.KeywordDetector(),
        {**keyword.CONFIG_DENYLIST_REGEX_TO_GROUP, **keyword.QUOTES_REQUIRED_DENYLIST_REGEX_TO_GROUP},
    )
    return plugins, BasicAuthDetector.denylist[0], keywords, Base64HighEntropyString()


@lru_cache(maxsize=1)
def _bigram_cost() -> dict[str, float]:
    """-log P(next letter | letter) from detect-secrets' letter model (trained on RFC text):
    English-like identifiers cost under ~3.1 a letter pair, random letters ~4.4."""
    from importlib import resources

    try:
        model = json.loads(resources.files("detect_secrets.filters.gibberish").joinpath("rfc.model").read_text())[
            "counts"
        ]
    except (OSError, KeyError, ValueError, ModuleNotFoundError):
        return {}  # fail closed: every pair scores as random
    cost = {}
    for a in string.ascii_lowercase:
        row = model.get(a, {})
        total = sum(row.values()) + 26
        for b in string.ascii_lowercase:
            cost[a + b] = -math.log((row.get(b, 0) + 1) / total)
    return cost


def _gibberish(token: str) -> float:
    """Mean bigram cost of the letter runs of `token` (case folded); 9.0 when too few letters."""
    cost = _bigram_cost()
    pairs = [a + b for run in re.findall(r"[a-z]{2,}", token.lower()) for a, b in zip(run, run[1:])]
    if len(pairs) < 4:
        return 9.0
    return sum(cost.get(p, 9.0) for p in pairs) / len(pairs)


def _looks_random(token: str, min_len: int = 20, allow_examples: bool = False) -> bool:
    """Whether a run of base64/alphanumeric characters looks like a generated key.

    Keys mix upper, lower and digits with high entropy and letter pairs no language has;
    identifiers and paths (UserProfileCard, site-packages) read like words; hex is left to hashes.
    Thresholds sit under the 1st percentile of random keys and above every identifier in the
    sample data.
    """
    core = token.strip("=-_/+.")
    n = len(core)
    if n < min_len or _HEXISH.fullmatch(core) or (not allow_examples and _PLACEHOLDER.search(core)):
        return False
    upper = any(c.isupper() for c in core)
    lower = any(c.islower() for c in core)
    digits = sum(c.isdigit() for c in core)
    if not lower or not (upper or digits):
        return False
    entropy = _detectors()[3].calculate_shannon_entropy(core)
    gib = _gibberish(core)
    if upper and digits:
        return entropy >= min(4.0, math.log2(n) - 1.0) and gib >= 3.2
    if upper:  # no digit: ~3% of random 20-char keys
        return n >= 24 and entropy >= min(4.2, math.log2(n) - 0.8) and gib >= 3.5
    return n >= 24 and digits >= 3 and entropy >= min(3.9, math.log2(n) - 1.0) and gib >= 3.5


# --- our own patterns: what detect-secrets lacks --------------------------------------------------
_OWN_PATTERNS = tuple(
    (kind, re.compile(p), needles, shortest)
    for kind, p, needles, shortest in (
        # detect-secrets knows only some BEGIN lines (not ENCRYPTED PRIVATE KEY) and PuTTY v2.
        ("a private key", r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----", ("private key",), 0),
        ("a PuTTY private key", r"PuTTY-User-Key-File-\d+:|(?m:^)Private-Lines: *\d+", ("putty", "private-lines"), 0),
        # detect-secrets' OpenAI pattern is the legacy T3BlbkFJ shape only; no Anthropic at all.
        ("an Anthropic API key", r"\bsk-ant-[a-z]+\d*-[A-Za-z0-9_-]{20,}", ("sk-ant-",), 20),
        ("an OpenAI API key", r"\bsk-(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{20,}", ("sk-",), 20),
        ("an API key", r"\bsk-[A-Za-z0-9]{32,}\b", ("sk-",), 32),
        # Slack app-level and refresh tokens; Stripe webhook secrets and test keys.
        ("a Slack app token", r"\bxapp-\d+-[A-Za-z0-9]+-\d+-[A-Za-z0-9]+", ("xapp-",), 0),
        ("a Slack token", r"\bxox[a-z](?:\.xox[a-z])?-[A-Za-z0-9-]{10,}", ("xox",), 0),
        ("a Stripe webhook secret", r"\bwhsec_[A-Za-z0-9+/]{24,}", ("whsec_",), 24),
        ("a Stripe key", r"\b(?:sk|rk)_(?:live|test|prod)_[0-9a-zA-Z]{16,}", ("k_live_", "k_test_", "k_prod_"), 20),
        # Fine-grained GitHub tokens; classic ones of another length than detect-secrets' 36.
        (
            "a GitHub token",
            r"\b(?:github_pat_[A-Za-z0-9_]{40,}|gh[pousr]_[A-Za-z0-9]{30,})",
            ("github_pat_", "ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
            30,
        ),
        ("a Google API key", r"\bAIza[0-9A-Za-z_-]{35}", ("aiza",), 35),
        ("a Google OAuth client secret", r"\bGOCSPX-[A-Za-z0-9_-]{24,}", ("gocspx-",), 24),
        ("a Hugging Face token", r"\bhf_[A-Za-z0-9]{30,}", ("hf_",), 30),
        ("an npm token", r"\bnpm_[A-Za-z0-9]{36}\b", ("npm_",), 36),
        ("a Groq API key", r"\bgsk_[A-Za-z0-9]{40,}", ("gsk_",), 40),
        ("a DigitalOcean token", r"\bdo[por]_v1_[a-f0-9]{64}", ("_v1_",), 64),
        ("a Shopify token", r"\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}", ("shp",), 32),
        ("a Databricks token", r"\bdapi[a-f0-9]{32}", ("dapi",), 32),
        ("a Discord webhook", r"discord(?:app)?\.com/api/webhooks/\d+/[\w-]{40,}", ("/api/webhooks/",), 40),
        ("an Azure SAS token", r"[?&;]sig=[A-Za-z0-9%+/]{20,}", ("sig=",), 0),  # %2F breaks runs
        (
            "an Azure access key",
            r"(?i)\b(?:SharedAccessKey|AccountKey)=[A-Za-z0-9+/]{30,}",
            ("sharedaccesskey=", "accountkey="),
            30,
        ),
        # The clouds' credential files. A Google service-account key file names its key by a 40-hex
        # private_key_id (the PEM may be cut off or left out: the file is still the credential);
        # the word alone, in prose, is not. Google's OAuth refresh and access tokens; Azure AD
        # client secrets (`abc8Q~...`); an AWS secret access key assigned in JSON, ini or YAML.
        (
            "a Google Cloud service-account key",
            r"(?i)\bprivate_key_id[\"']?\s*[:=]\s*[\"']?[0-9a-f]{40}(?![0-9a-z])",
            ("private_key_id",),
            40,
        ),
        ("a Google OAuth refresh token", r"(?<![\w/])1//0[A-Za-z0-9_-]{40,}", ("1//0",), 40),
        ("a Google OAuth access token", r"\bya29\.[A-Za-z0-9_-]{30,}", ("ya29.",), 30),
        ("an Azure AD client secret", r"(?<![\w~.])[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34}(?![\w~.-])", ("q~",), 0),
        (
            "an AWS secret access key",
            r"(?i)secret_?access_?key[\"']?\s*[:=]\s*[\"']?[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+])",
            ("secret_access_key", "secretaccesskey"),
            20,
        ),
        # Provider shapes from gitleaks' rule set (config/gitleaks.toml) that detect-secrets lacks:
        # each anchored on its provider's own prefix, so ordinary text never matches.
        ("an age secret key", r"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}", ("age-secret-key-1",), 0),
        ("a Sentry token", r"\bsntryu_[a-f0-9]{64}|\bsntrys_eyJpYXQiO[A-Za-z0-9+/=_]{40,}", ("sntry",), 40),
        ("a Mailgun API key", r"\b(?:pub)?key-[a-f0-9]{32}\b", ("mailgun",), 0),
        ("a RubyGems API token", r"\brubygems_[a-f0-9]{48}\b", ("rubygems_",), 48),
        ("a Shippo API token", r"\bshippo_(?:live|test)_[a-fA-F0-9]{40}\b", ("shippo_",), 40),
        ("a Pulumi access token", r"\bpul-[a-f0-9]{40}\b", ("pul-",), 40),
        ("a Dynatrace API token", r"\bdt0c01\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{64}", ("dt0c01.",), 64),
        ("a Sourcegraph token", r"\bsgp_(?:[a-fA-F0-9]{16}_|local_)?[a-fA-F0-9]{40}\b", ("sgp_",), 40),
        ("a Perplexity API key", r"\bpplx-[A-Za-z0-9]{48}\b", ("pplx-",), 48),
        ("a Linear API key", r"\blin_api_[A-Za-z0-9]{40}\b", ("lin_api_",), 40),
        ("a Doppler token", r"\bdp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,}", ("dp.",), 40),
        ("a Heroku API key", r"\bHRKU-AA[0-9a-zA-Z_-]{58}", ("hrku-aa",), 58),
        ("a HashiCorp Vault token", r"\bhv[sb]\.[\w-]{90,}", ("hvs.", "hvb."), 90),
        ("a Terraform Cloud token", r"\b[a-zA-Z0-9]{14}\.atlasv1\.[a-zA-Z0-9_=-]{60,70}", ("atlasv1",), 60),
        ("a Postman API key", r"\bPMAK-[a-fA-F0-9]{24}-[a-fA-F0-9]{34}\b", ("pmak-",), 34),
        (
            "a Grafana token",
            r"\bglsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}\b|\bglc_[A-Za-z0-9+/]{32,}={0,3}|\beyJrIjoi[A-Za-z0-9]{70,}",
            ("glsa_", "glc_", "eyjrijoi"),
            32,
        ),
        ("a Notion API token", r"\bntn_[0-9]{11}[A-Za-z0-9]{35}\b", ("ntn_",), 40),
        (
            "a 1Password secret",
            r"\bops_eyJ[A-Za-z0-9+/]{250,}|\bA3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})(?:-[A-Z0-9]{5}){3}\b",
            ("ops_eyj", "a3-"),
            0,
        ),
        ("an Atlassian API token", r"\bATATT3[A-Za-z0-9_=-]{186}", ("atatt3",), 186),
        ("a Brevo (Sendinblue) API key", r"\bxkeysib-[a-f0-9]{64}-[A-Za-z0-9]{16}\b", ("xkeysib-",), 64),
        ("a Fly.io token", r"\bfo1_[\w-]{43}|\bfm[12][ar]?_[A-Za-z0-9+/]{100,}", ("fo1_", "fm1", "fm2_"), 43),
        ("a PlanetScale token", r"\bpscale_(?:tkn|oauth|pw)_[\w=.-]{32,64}", ("pscale_",), 32),
        ("a Prefect API token", r"\bpnu_[A-Za-z0-9]{36}\b", ("pnu_",), 36),
        ("an Alibaba Cloud access key", r"\bLTAI[A-Za-z0-9]{20}\b", ("ltai",), 24),
        ("a Square access token", r"\bsq0atp-[\w-]{22,60}", ("sq0atp-",), 22),
        ("an EasyPost API key", r"\bEZ[AT]K[A-Za-z0-9]{54}\b", ("ezak", "eztk"), 54),
        ("an OpenShift token", r"\bsha256~[\w-]{43}(?![\w-])", ("sha256~",), 43),
        ("a Hugging Face token", r"\bapi_org_[A-Za-z]{34}\b", ("api_org_",), 34),
        ("an Adobe client secret", r"\bp8e-[A-Za-z0-9]{32}\b", ("p8e-",), 32),
        ("a MaxMind license key", r"\b[A-Za-z0-9]{6}_[A-Za-z0-9]{29}_mmk\b", ("_mmk",), 29),
        ("a Readme API token", r"\brdme_[a-z0-9]{70}\b", ("rdme_",), 70),
        ("a Clojars token", r"(?i)\bCLOJARS_[a-z0-9]{60}\b", ("clojars_",), 60),
        ("an Infracost token", r"\bico-[A-Za-z0-9]{32}\b", ("ico-",), 32),
        ("a Frame.io token", r"\bfio-u-[\w=-]{64}", ("fio-u-",), 64),
        ("a Duffel token", r"\bduffel_(?:test|live)_[\w=-]{43}", ("duffel_",), 43),
        ("a Scalingo token", r"\btk-us-[\w-]{48}", ("tk-us-",), 48),
    )
)
# Azure SAS: sig= alone is common; with the SAS version or expiry beside it, it is a token.
_SAS_CONTEXT = re.compile(r"[?&;]s[ve]=")
_BEARER = re.compile(r"(?i)\bbearer\s+([A-Za-z0-9._~+/-]{16,}=*)")
_BASIC_HEADER = re.compile(r"(?i)\bbasic\s+([A-Za-z0-9+/]{8,}={0,2})(?![A-Za-z0-9+/=])")
# The password may hold `#` or `?` (written unencoded, as people do); a port then a query is no password.
_URL_CREDENTIALS = re.compile(r"://([^\s:/?#@]*):([^\s/@]+)@[^\s/?#@]")
_PORT_THEN_QUERY = re.compile(r"\d{1,5}(?:[?#].*)?$")
_TOKEN_ASSIGNMENT = re.compile(r"(?i)(token|passphrase|passcode|credentials?)['\"]?\s*[:=]\s*['\"]?([^\s'\",;]+)")
_KEY_NAME = re.compile(r"[\w.-]*$")
_ASSIGNED_KEY = re.compile(r"(\w*)['\"\]]{0,2}\s*(?:[:=!]=?|=>)\s*['\"`]?$")
# Passwords in prose: "the root password for the NAS is Tr0ub4dor&3", "la contraseña es X".
_PW_WORD = (
    r"(?:pass(?:word|phrase|code)s?|passwd|pwd|contrase(?:ñ|n)as?|clave(?:\s+de\s+acceso)?"
    r"|passwort|kennwort|mot\s+de\s+passe|senha)"
)
_KEY_WORD = (
    r"(?:(?:api|access|secret(?:[ _-]?access)?|private|auth|bot|app)[ _-]?(?:key|token)s?"
    r"|secret|token)"
)
_FOR = r"(?:\s+(?:for|of|to|on|at|in|del?|de\s+la|para|en)\s+(?:[^\n:;=!?.]|\.(?=\S)){1,40}?)?"
_IS = (
    r"(?:\s*[*_]{0,2}\s*[:=]\s*[*_]{0,2}\s*|\s+[-–—]{1,2}\s+"
    r"|\s+(?:is|was|are|were|es|era|son|ser[áa]|ist|est|é|will\s+be|would\s+be)"
    r"(?:\s+(?:now|still|currently|actually|just|simply|set\s+to|ahora|todav[íi]a))?(?:\s*[:=])?\s+)"
)
_VALUE = r"(?P<v>\"[^\"\n]{1,200}\"|'[^'\n]{1,200}'|`[^`\n]{1,200}`|\S+)"
_PW_NEEDLES = ("pass", "pwd", "contrase", "clave", "kennwort", "senha")
_VERB_NEEDLES = ("chang", "set", "updat", "cambi", "puse")
# pattern, the words it starts at or just after, how far before such a word it may start, the
# shortest password that counts (0: the value must be a key), the kind. Anchoring on the words
# (found with str.find) costs far less than scanning with case-insensitive alternations.
_PLAIN_WORDS = (
    (
        re.compile(rf"(?i)\b{_PW_WORD}\b{_FOR}{_IS}{_VALUE}"),
        _PW_NEEDLES,
        7,
        6,  # 7: "mot de "
        "a password written in plain words",
    ),
    (re.compile(rf"(?i)\b(?:pw|pass)\s*[:=]\s*{_VALUE}"), ("pw", "pass"), 0, 6, "a password written in plain words"),
    (
        re.compile(rf"(?i)\b(?:with|use|using|con|usa|usando)\s+(?:the\s+|la\s+|el\s+)?{_PW_WORD}\s+{_VALUE}"),
        _PW_NEEDLES,
        12,
        6,
        "a password written in plain words",
    ),
    (
        re.compile(
            rf"(?i)\b(?:changed?|set|reset|updated?|cambi[éeóo]|puse)\b[^\n.]{{0,30}}?\b{_PW_WORD}\b"
            rf"(?:\s+\w+){{0,4}}?\s+(?:to|a)\s+{_VALUE}"
        ),
        _PW_NEEDLES,
        45,
        6,
        "a password written in plain words",
    ),
    # "the API key is X": a key must be long; "the secret is out" is prose.
    (
        re.compile(rf"(?i)\b{_KEY_WORD}\b{_FOR}{_IS}{_VALUE}"),
        ("key", "secret", "token"),
        10,
        0,
        "a key written in plain words",
    ),
)
_REACH = 400  # keyword, clause, verb and value fit in this
_KEYWORD_NEEDLES = ("pass", "pwd", "secret", "key", "contrase")
# Public or inert material that looks random: certificates and public keys, SRI hashes, data URIs.
_PUBLIC_MATERIAL = re.compile(
    r"-----BEGIN ([A-Z0-9 ]*(?:PUBLIC KEY(?: BLOCK)?|CERTIFICATE(?: REQUEST)?|X509 CRL))-----"
    r"[\s\S]*?(?:-----END \1-----|\n[ \t]*\n|\Z)"
    r"|\b(?:ssh-(?:rsa|dss|ed25519)|ecdsa-sha2-nistp\d+|sk-ssh-ed25519@openssh\.com)\s+AAAA[A-Za-z0-9+/=]+"
    r"|\bsha(?:1|256|384|512)-[A-Za-z0-9+/=]{20,}"
    r"|;base64,[A-Za-z0-9+/=]+"
)
_PUBLIC_NEEDLES = ("-----BEGIN", "AAAA", "sha", ";base64,")
_RUN = re.compile(r"[A-Za-z0-9+/_-]{20,}={0,2}")
_URL = re.compile(r"://[^\s<>\"'`)\]]+")  # from the ://: a literal start is fast to find
# In a URL only a query value named like a credential counts: ids in paths are not keys.
_CREDENTIAL_PARAM = re.compile(
    r"(?i)[?&#;][\w-]*(?:key|token|secret|sig|signature|password|passwd|pwd|auth|credential|session)"
    r"[\w-]*=$"
)


# detect-secrets' patterns are written for one line of source; on long adversarial lines some
# backtrack quadratically (`eyJeyJeyJ...`, `sk-sk-sk-...`) or cubically (`key` and a run of
# spaces), so they see lines cut to 1 KB (any token up to 256 characters is whole in one piece)
# grouped into 4 KB windows, with runs of blanks shortened: a 2 MB memory stays linear.
_LINE, _OVERLAP, _WINDOW = 1024, 256, 4096
_BLANKS = re.compile(r"[ \t]{3,}")


def _pieces(line: str) -> list[str]:
    if len(line) <= _LINE:
        return [line]
    step = _LINE - _OVERLAP
    return [line[i : i + _LINE] for i in range(0, len(line) - _OVERLAP, step)]


def _lines(text: str) -> list[str]:
    return [piece for line in _BLANKS.sub("  ", text).splitlines() for piece in _pieces(line)]


def _windows(text: str) -> list[str]:
    if len(text) <= _LINE:
        return [_BLANKS.sub("  ", text)]
    out: list[str] = []
    current: list[str] = []
    size = 0
    for piece in _lines(text):
        if size + len(piece) > _WINDOW and current:
            out.append("\n".join(current))
            size, current = 0, []
        current.append(piece)
        size += len(piece) + 1
    if current:
        out.append("\n".join(current))
    return out


def _matches(plugin, text: str):
    """The whole text each pattern of `plugin` matched. `analyze_string` yields only a pattern's
    groups (`ghp` of a GitHub token), too little to tell `ghp_xxxx...` from a key; plugins that
    filter their own matches (JWT validity) go through it."""
    from detect_secrets.plugins.base import RegexBasedDetector

    if type(plugin).analyze_string is not RegexBasedDetector.analyze_string:
        yield from plugin.analyze_string(text)
        return
    for pattern in plugin.denylist:
        for m in pattern.finditer(text):
            yield m.group()


def _provider_secret(text: str, lowered: str, longest: int) -> str | None:
    plugins = _detectors()[0]
    windows = None
    for kind, plugin, needles, shortest, name in plugins:
        if longest < shortest or not _present(needles, text, lowered):
            continue
        windows = windows or [(w, w.lower()) for w in _windows(text)]
        for value in (v for window, low in windows if _present(needles, window, low) for v in _matches(plugin, window)):
            if _PLACEHOLDER.search(value):
                continue
            if name in _VALUE_CHECKS and not _VALUE_CHECKS[name](value):
                continue
            return kind
    for kind, pattern, needles, shortest in _OWN_PATTERNS:
        if longest < shortest or not any(n in lowered for n in needles):
            continue
        for m in pattern.finditer(text):
            if _PLACEHOLDER.search(m.group()):
                continue
            if kind == "an Azure SAS token":
                start = text.rfind("?", 0, m.start() + 1)
                query = text[start:].split(maxsplit=1)[0] if start >= 0 else ""
                if not _SAS_CONTEXT.search(query.replace("?", "&")):
                    continue
            return kind
    return None


def _is_guessable(user: str, password: str) -> bool:
    """A password anyone can guess or a template: `tienda:tienda@`, `postgres:postgres@`, `:****@`."""
    return (
        password == user
        or password.lower() in _DEFAULT_PASSWORDS
        or len(password) < 3
        or bool(_PLACEHOLDER.search(password))
        or password[0] in "%${:"
    )


def _url_password(text: str) -> str | None:
    for m in _detectors()[1].finditer(text):
        if not _is_guessable(m.group(0)[3:].split(":", 1)[0], m.group(1)):
            return "a password in a URL (detect-secrets: BasicAuthDetector)"
    # detect-secrets stops at RFC 3986 delimiters, so `root:Pa55w0rd!@` gets through it.
    for m in _URL_CREDENTIALS.finditer(text):
        if not _is_guessable(*m.groups()) and not _PORT_THEN_QUERY.match(m.group(2)):
            return "a password in a URL"
    return None


def _assignment_secret(text: str, lowered: str) -> str | None:
    """`password: X`, `api_key = "X"`, `access_token: X` (detect-secrets' keyword detector plus
    the keys it lacks), judged by the value so that references and placeholders pass."""
    detector, regexes = _detectors()[2]
    if any(n in lowered for n in _KEYWORD_NEEDLES):
        for line in _lines(text):
            low = line.lower()
            if not (":" in line or "=" in line or ";" in line) or not any(n in low for n in _KEYWORD_NEEDLES):
                continue
            for value in detector.analyze_string(line, denylist_regex_to_group=regexes):
                at = line.find(value)
                key = _ASSIGNED_KEY.search(line, max(0, at - 80), max(at, 0))
                name = key.group(1) if key else ""
                # "Secret: meet at the cafe at 5pm" is prose; SECRET=, client_secret: are config.
                judge = (
                    _is_key_value if name.lower() in ("secret", "secrets") and not name.isupper() else _is_secret_value
                )
                if judge(value, name):
                    return "a password or secret assignment (detect-secrets: KeywordDetector)"
    if any(n in lowered for n in ("token", "passphrase", "passcode", "credential")):
        for m in _TOKEN_ASSIGNMENT.finditer(text):
            word, value = m.groups()
            named = _KEY_NAME.search(text, max(0, m.start() - 64), m.start())
            assert named is not None  # [\w.-]*$ matches, if only the empty string at the end
            key_name = named.group() + word
            if word.lower() == "token":
                if _is_key_value(value, key_name):
                    return "a token assignment"
            elif _is_secret_value(value, key_name):
                return "a password or secret assignment"
    return None


def _plain_words_secret(lowered: str, text: str) -> str | None:
    for i, (pattern, needles, back, shortest, kind) in enumerate(_PLAIN_WORDS):
        if i == 3 and not any(v in lowered for v in _VERB_NEEDLES):
            continue
        for at in _occurrences(lowered, needles):
            start = max(0, at - back)
            m = pattern.search(text, start, at + _REACH) if back else pattern.match(text, at, at + _REACH)
            if m and (_is_secret_value(m.group("v"), min_len=shortest) if shortest else _is_key_value(m.group("v"))):
                return kind
    return None


def _occurrences(lowered: str, needles: tuple[str, ...]):
    for needle in needles:
        at = lowered.find(needle)
        while at >= 0:
            yield at
            at = lowered.find(needle, at + 1)


def _header_secret(text: str, lowered: str) -> str | None:
    if "bearer" in lowered:
        for m in _BEARER.finditer(text):
            value = m.group(1)
            if (
                not _PLACEHOLDER.search(value)
                and not _ENV_NAME.fullmatch(value)
                and (_looks_random(value, min_len=16) or (re.search(r"\d", value) and len(value) >= 20))
            ):
                return "a bearer token"
    if "basic" in lowered:
        for m in _BASIC_HEADER.finditer(text):
            decoded = _decode_base64(m.group(1))
            if decoded and ":" in decoded and not _is_guessable(*decoded.split(":", 1)):
                return "an HTTP Basic credential"
    return None


_URLSAFE = str.maketrans("-_", "+/")


def _decode_base64(run: str) -> str | None:
    """The text a base64 run encodes, or None when it is not base64 of mostly printable text."""
    core = run.rstrip("=")
    if ("-" in core or "_" in core) and ("+" in core or "/" in core):
        return None
    core = core.translate(_URLSAFE)
    core = core[: len(core) - len(core) % 4]
    if len(core) < 8:
        return None
    try:
        decoded = base64.b64decode(core, validate=True).decode("utf-8", errors="replace")
    except (binascii.Error, ValueError):
        return None
    printable = sum(c.isprintable() or c in "\n\r\t" for c in decoded)
    return decoded if printable >= 0.9 * len(decoded) and "\ufffd" not in decoded[:-3] else None


def _random_or_encoded(text: str, runs: list, depth: int) -> str | None:
    """Bare random keys (an AWS secret access key alone), and secrets inside base64 runs."""
    if any(n in text for n in _PUBLIC_NEEDLES):
        text = _PUBLIC_MATERIAL.sub(" ", text)
        runs = list(_RUN.finditer(text))
    urls = [m.span() for m in _URL.finditer(text)] if "://" in text else []
    starts = [a for a, _ in urls]
    decoded_texts = []
    for m in runs:
        run = m.group()
        i = bisect.bisect_right(starts, m.start()) - 1
        if i >= 0 and m.start() < urls[i][1] and not _CREDENTIAL_PARAM.search(text, max(0, m.start() - 40), m.start()):
            continue
        decoded = _decode_base64(run) if len(run.rstrip("=")) >= 24 else None
        if decoded is not None:
            decoded_texts.append(decoded)  # base64 of text: judge what it says, not its shape
        elif _looks_random(run):
            return "a high-entropy string that looks like a key (detect-secrets: Base64HighEntropyString)"
    if depth == 0:
        for decoded in decoded_texts:
            kind = _scan(normalise(decoded), depth=1)
            if kind:
                return f"{kind}, base64-encoded"
    return None


def _scan(text: str, depth: int = 0) -> str | None:
    lowered = text.lower()
    if len(lowered) != len(text):  # İ lowers to two characters: keep offsets aligned
        lowered = "".join(c if len(c.lower()) != 1 else c.lower() for c in text)
    runs = list(_RUN.finditer(text))
    longest = max((len(m.group()) for m in runs), default=0)
    return (
        _provider_secret(text, lowered, longest)
        or ("://" in text and _url_password(text) or None)
        or _assignment_secret(text, lowered)
        or _plain_words_secret(lowered, text)
        or _header_secret(text, lowered)
        or (_random_or_encoded(text, runs, depth) if runs else None)
    )


def find_secret(text: str) -> str | None:
    """The kind of the first secret found in `text` (never the secret itself), or None."""
    if not text:
        return None
    return _scan(normalise(text))


def looks_like_credential(word: str) -> bool:
    """Whether a single token looks like a key, token or other generated secret, so it is never
    shown as a keyword. Unlike `find_secret`, documentation examples count: they are noise too.

    Ordinary words, identifiers (reservestock), product names (postgresql) and versions (pg17)
    are not; provider-shaped tokens, random mixed-case runs, long hex and long letter runs no
    language spells (bpxrficyexamplekey, a key folded to lower case) are.
    """
    w = normalise(word).strip().strip("\"'`()[]{}<>,;:.!?")
    if len(w) < 12 or any(c.isspace() for c in w):
        return False
    if _HEXISH.fullmatch(w):
        return len(w) >= 32 and "-" not in w  # a hex key or digest; a UUID is an id
    lowered = w.lower()
    for _kind, plugin, needles, shortest, name in _detectors()[0]:
        if (
            name not in _VALUE_CHECKS
            and len(w) >= shortest
            and _present(needles, w, lowered)
            and any(True for _ in plugin.analyze_string(w))
        ):
            return True
    if any(p.search(w) for _k, p, _n, _s in _OWN_PATTERNS):
        return True
    if _looks_random(w, min_len=16, allow_examples=True):
        return True
    # Keywords are folded to lower case: a long letter run no language spells is a folded key,
    # and so is a run of letters and digits interleaved at random (k7mdeng2xqz9p...).
    if re.fullmatch(r"[a-z0-9]+", lowered) and sum(c.isdigit() for c in lowered) >= 2:
        flips = sum(a.isdigit() != b.isdigit() for a, b in zip(lowered, lowered[1:]))
        if flips >= 3 and _gibberish(lowered) >= 3.3:
            return True
    return any(_gibberish(run) >= (3.25 if len(run) >= 16 else 3.6) for run in re.findall(r"[a-z]{12,}", lowered))
