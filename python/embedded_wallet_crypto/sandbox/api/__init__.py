"""The HTTP routes, one module per area: each route takes its parsed request and its
dependencies (``sandbox.deps``), calls the rules (``sandbox.domain``) and answers with a status
code. No SQL and no rules here."""
