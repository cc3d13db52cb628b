"""`python -m ggcli` runs gg."""

from __future__ import annotations

from ggcli.main import main

raise SystemExit(main())
