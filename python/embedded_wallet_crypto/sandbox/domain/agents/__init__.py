"""Agents: their policies (``policy``), the AgentAction state machine (``actions``), device
codes and access tokens (``tokens``), the agents themselves (``registry``) and what they submit
(``submissions``)."""
