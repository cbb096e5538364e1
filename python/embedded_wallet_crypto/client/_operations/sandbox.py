"""The operations of the table: the sandbox's simulations."""

from __future__ import annotations

from ...sandbox.models.customers import InternalAccountOut
from ...sandbox.models.transactions import TransactionOut
from ._row import Operation

__all__ = ["GROUPS", "ROWS"]

#: Group attribute -> the published document's tag.
GROUPS: dict[str, str] = {
    "sandbox": "Sandbox",
}

_ = Operation
# fmt: off
ROWS: tuple[Operation, ...] = (
    #  group                name                       method    path                                           operationId                         idempotent
    _("sandbox",            "fund",                    "POST",   "/sandbox/internal-accounts/{accountId}/fund", "sandboxFundInternalAccount",       False, response_model=InternalAccountOut),
    _("sandbox",            "send",                    "POST",   "/sandbox/send",                               "sandboxSend",                      False, response_model=TransactionOut),
    _("sandbox",            "receive_uma",             "POST",   "/sandbox/uma/receive",                        "sandboxReceive",                   False, response_model=TransactionOut),
    _("sandbox",            "webhook_public_key",      "GET",    "/sandbox/webhook-public-key",                 "sandboxWebhookPublicKey",          True, response_model=str),
)
# fmt: on
del _
