"""``python -m embedded_wallet_crypto``: the ``ewc`` command line."""

from __future__ import annotations

import sys

from .cli import main

sys.exit(main())
