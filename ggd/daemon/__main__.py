"""`python -m ggd.daemon` runs the daemon."""

from .main import main

raise SystemExit(main())
