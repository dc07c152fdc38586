#!/bin/sh
# Claude Code SessionStart hook: print the vault's brief (topics, pinned and recent memories), which
# Claude Code adds to the session's context. `ihmt setup claude-code` wires `ihmt brief` directly;
# this script is for wiring it by hand (see claude-code-settings.json beside it).
#
# It never fails a session: without ihmt or without a vault it prints nothing and exits 0.
# IHMT_BIN picks the ihmt executable (default: the one on PATH); IHMT_VAULT the vault, as usual.
IHMT_BIN="${IHMT_BIN:-ihmt}"
command -v "$IHMT_BIN" >/dev/null 2>&1 || exit 0
"$IHMT_BIN" brief 2>/dev/null || true
exit 0
