"""Receiver lookups: ``GET /receiver/uma/{receiverUmaAddress}`` and
``GET /receiver/external-account/{accountId}`` (see ``domain.receivers``)."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Path, Query
from fastapi.responses import JSONResponse

from ..deps import Db, Svc, require_platform
from ..domain import receivers
from ..models.quotes import ReceiverLookupOut
from .common import answer, error_responses
from .routing import Router

__all__ = ["router"]

router = Router(
    tags=["Receiver lookups"],
    dependencies=[Depends(require_platform)],
    responses=error_responses(400, 401, 404),
)

_Text = Annotated[str | None, Query(min_length=1, max_length=300)]


@router.get("/receiver/uma/{receiverUmaAddress}", response_model=ReceiverLookupOut)
def lookup_uma(
    receiverUmaAddress: Annotated[str, Path(min_length=3, max_length=300)],
    db: Db,
    services: Svc,
    customerId: _Text = None,
    senderUmaAddress: _Text = None,
) -> JSONResponse:
    """Look up an UMA receiver: its currencies and the payer data it requires; the
    ``lookupId`` goes into the quote."""
    found = receivers.lookup_uma(
        db, services, receiverUmaAddress, customer_id=customerId, sender_uma=senderUmaAddress
    )
    return answer(db, found)


@router.get("/receiver/external-account/{accountId}", response_model=ReceiverLookupOut)
def lookup_external_account(
    accountId: Annotated[str, Path(min_length=1, max_length=200)],
    db: Db,
    services: Svc,
    customerId: _Text = None,
    senderUmaAddress: _Text = None,
) -> JSONResponse:
    """Look up an external account: the currency it takes, with an estimated rate and limits."""
    found = receivers.lookup_external_account(
        db, services, accountId, customer_id=customerId, sender_uma=senderUmaAddress
    )
    return answer(db, found)
