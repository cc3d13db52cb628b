"""Browser end-to-end tests of the web UI (Debian Chromium via Playwright) against a real ggd."""
