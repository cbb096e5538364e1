"""Storage: the engine and its transactions (``engine``), the tables by area
(``tables_wallet``, ``tables_payments``, ``tables_agents``, on the one declarative ``base``), and
the one keyset pager of every list (``pages``). No rules and no web framework here."""
