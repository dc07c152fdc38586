#!/bin/sh
# Claude Code SessionStart hook: run the day's decay if it has not run, then print the vault's brief (topics, pinned and recent memories), which
# Claude Code adds to the session's context. `ihmt setup claude-code` wires this script (for a
# project it copies it to .claude/hooks/ihmt-session-start.sh); to wire it by hand, see
# claude-code-settings.json beside it. Its arguments go to `ihmt brief`, e.g. --vault PATH (a
# relative PATH is taken from the project's root, $CLAUDE_PROJECT_DIR).
#
# It never fails a session: without ihmt or without a vault it prints nothing and exits 0.
# IHMT_BIN picks the ihmt executable (default: the one on PATH); IHMT_VAULT the vault, as usual.
IHMT_BIN="${IHMT_BIN:-ihmt}"
command -v "$IHMT_BIN" >/dev/null 2>&1 || exit 0
if [ -n "$CLAUDE_PROJECT_DIR" ]; then cd "$CLAUDE_PROJECT_DIR" 2>/dev/null || true; fi
"$IHMT_BIN" decay --auto --json "$@" >/dev/null 2>&1 || true   # the metabolism's daily run, if not yet today
"$IHMT_BIN" brief "$@" 2>/dev/null || true
exit 0
