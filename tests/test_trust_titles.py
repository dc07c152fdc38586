"""Look-alike and reversed titles: bidi controls and zero-width characters never reach a title, a
tag, a file or folder name, or a summary. Literal inputs, exact titles and paths."""

import pytest
from conftest import git

from ihmt_vault.storage.notes import slugify, visible

INVISIBLES = (
    "\u202a\u202b\u202c\u202d\u202e"  # embeddings and overrides
    "\u2066\u2067\u2068\u2069"  # isolates
    "\u200e\u200f"  # marks
    "\u200b\u200c\u200d\u2060\ufeff"  # zero-width
)


@pytest.mark.parametrize(
    "title,expected,path",
    [
        ("invoice \u202egpj.exe", "invoice gpj.exe", "finance/invoice-gpj-exe.md"),
        ("pay\u200bpal login", "paypal login", "finance/paypal-login.md"),
        ("\u2066Quarterly\u2069 \u200freport\u200e", "Quarterly report", "finance/quarterly-report.md"),
        ("\ufeffBudget\u2060 2025", "Budget 2025", "finance/budget-2025.md"),
        (
            "al\u200dpha \u202abeta\u202c \u202bgamma\u202c \u202ddelta\u202c",
            "alpha beta gamma delta",
            "finance/alpha-beta-gamma-delta.md",
        ),
    ],
)
def test_a_title_loses_its_bidi_controls_and_zero_width_characters(vault, title, expected, path):
    m = vault.save("The invoice arrived by mail.", title=title, topic="finance")
    assert (m.title, m.path) == (expected, path)
    on_disk = (vault.root / path).read_text()
    assert f"title: {expected}\n" in on_disk
    summary = (vault.root / "finance/index.md").read_text() + (vault.root / "index.md").read_text()
    assert not any(c in summary for c in INVISIBLES)
    assert f"**{expected}**" in summary or f"[{expected}]" in summary
    assert not any(c in git(vault.root, "log", "-1", "--format=%B") for c in INVISIBLES)


def test_tags_and_topics_lose_them_too(vault):
    m = vault.save(
        "Logins go through the company SSO.",
        title="SSO logins",
        topic="pay\u200bments/\u202eops",
        tags=["pay\u200bpal", "\u2066sso\u2069", "\u200b"],
    )
    assert (m.path, m.tags) == ("payments/ops/sso-logins.md", ["paypal", "sso"])


def test_a_title_taken_from_the_text_and_the_summary_line_lose_them(vault):
    m = vault.save("\u202eReceipt for March\u202c: paid in full.\n", topic="finance")
    assert (m.title, m.path) == ("Receipt for March: paid in full.", "finance/receipt-for-march-paid-in-full.md")
    summary = (vault.root / "finance/index.md").read_text()
    assert not any(c in summary for c in INVISIBLES) and "Receipt for March" in summary


def test_a_title_of_nothing_but_invisible_characters_is_taken_from_the_text(vault):
    m = vault.save("Rent is due on the first.", title="\u202e\u200b\u2066", topic="home")
    assert (m.title, m.path) == ("Rent is due on the first.", "home/rent-is-due-on-the-first.md")


def test_the_helpers():
    assert visible("invoice \u202egpj.exe") == "invoice gpj.exe"
    assert slugify("pay\u200bpal login") == "paypal-login"
    assert slugify("invoice \u202egpj.exe") == "invoice-gpj-exe"
    assert visible("naïve café 東京") == "naïve café 東京"  # visible text is left alone


def test_a_title_typed_by_hand_with_invisible_characters_is_shown_without_them_in_its_summary(tmp_path):
    from ihmt_vault import Vault

    v = Vault.init(tmp_path / "v")
    (v.root / "work").mkdir()
    (v.root / "work" / "invoice.md").write_text('---\ntitle: "invoice \\u202egpj.exe"\n---\nPay it.\n')
    v.maintenance.reconcile()
    summary = (v.root / "work" / "index.md").read_text()
    assert "invoice gpj.exe" in summary and "\u202e" not in summary
    v.close()
