"""A customer after its creation: ``GET /customers`` (filters, pages), ``GET``, ``PATCH`` and
``DELETE /customers/{customerId}``, ``POST /customers/{customerId}/kyc-link``, the bulk CSV
import (``POST /customers/bulk/csv``, ``GET /customers/bulk/jobs/{jobId}``), and the hosted KYC
link's page (``GET /sandbox/kyc/{token}``, outside the base path and the OpenAPI document)."""

from __future__ import annotations

import html
from typing import Annotated, Any

from fastapi import Depends, Path, Query, Request
from fastapi.responses import HTMLResponse, JSONResponse
from starlette.concurrency import run_in_threadpool

from ..deps import Db, Keyed, Paging, Platform, Signed, Svc, require_platform, rolled_back_on_error
from ..domain import bulk_import, customer_ops
from ..models.common import ErrorOut
from ..models.customer_ops import (
    BulkJobAccepted,
    BulkJobOut,
    CustomerList,
    CustomerUpdate,
    KycLinkCreate,
    KycLinkOut,
)
from ..models.customers import CustomerOut, CustomerType
from ..models.fields import IsoDateTime
from .common import (
    CHALLENGE_RESPONSE,
    IDEMPOTENCY_RESPONSES,
    PathId,
    answer,
    error_responses,
    idempotent,
    signed_answer,
)
from .routing import Router

__all__ = ["page_router", "router"]

router = Router(
    tags=["Customers"],
    dependencies=[Depends(require_platform)],
    responses=error_responses(400, 401),
)
page_router = Router(include_in_schema=False)

_Text = Annotated[str | None, Query(max_length=300)]
_When = Annotated[IsoDateTime | None, Query()]
_GONE: dict[int | str, dict[str, Any]] = {
    404: {"model": ErrorOut, "description": "No such customer (USER_NOT_FOUND)."},
    410: {"model": ErrorOut, "description": "The customer was deleted (CUSTOMER_DELETED)."},
}
_CONFLICT: dict[int | str, dict[str, Any]] = {
    409: {
        "model": ErrorOut,
        "description": "UMA_ADDRESS_EXISTS; EMAIL_OTP_EMAIL_ALREADY_EXISTS or CONFLICT for a"
        " contact that another credential has.",
    }
}


async def customer_filters(
    platformCustomerId: _Text = None,
    customerType: Annotated[CustomerType | None, Query()] = None,
    createdAfter: _When = None,
    createdBefore: _When = None,
    updatedAfter: _When = None,
    updatedBefore: _When = None,
    region: Annotated[str | None, Query(max_length=10)] = None,
    currency: Annotated[str | None, Query(max_length=10)] = None,
    umaAddress: _Text = None,
    isIncludingDeleted: Annotated[bool, Query()] = False,
) -> customer_ops.CustomerFilters:
    """The filters of the customer list (all optional; they combine; dates inclusive)."""
    return customer_ops.CustomerFilters(
        platform_customer_id=platformCustomerId,
        customer_type=customerType.value if customerType is not None else None,
        region=region,
        currency=currency,
        uma_address=umaAddress,
        created=(createdAfter, createdBefore),
        updated=(updatedAfter, updatedBefore),
        including_deleted=isIncludingDeleted,
    )


@router.get("/customers", response_model=CustomerList, response_model_exclude_none=True)
def list_customers(
    db: Db,
    paging: Paging,
    filters: Annotated[customer_ops.CustomerFilters, Depends(customer_filters)],
) -> JSONResponse:
    """The customers, oldest first; deleted ones only with ``isIncludingDeleted=true``."""
    listed = customer_ops.list_customers(db, filters, paging)
    return answer(db, listed, model=CustomerList)


@router.post(
    "/customers/bulk/csv",
    status_code=202,
    response_model=BulkJobAccepted,
    responses={413: error_responses(413)[413], **IDEMPOTENCY_RESPONSES},
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {
                "multipart/form-data": {
                    "schema": {
                        "type": "object",
                        "required": ["file"],
                        "properties": {"file": {"type": "string", "format": "binary"}},
                    }
                }
            },
        }
    },
)
async def upload_csv(request: Request, platform: Platform, db: Db, keyed: Keyed) -> JSONResponse:
    """Accept a CSV of customers (the ``file`` part of a multipart body) as a PENDING job;
    the background worker imports it (see ``GET /customers/bulk/jobs/{jobId}``). With an
    ``Idempotency-Key``, a retry gets the first job."""
    raw = await request.body()
    rows = bulk_import.read_upload(request.headers.get("content-type"), raw)

    def store() -> JSONResponse:
        return idempotent(
            db, platform, keyed, lambda: (202, bulk_import.start_job(db, platform, rows))
        )

    return await run_in_threadpool(rolled_back_on_error(store, db))


@router.get(
    "/customers/bulk/jobs/{jobId}",
    response_model=BulkJobOut,
    response_model_exclude_none=True,
    responses=error_responses(404),
)
def get_bulk_job(jobId: PathId, db: Db) -> JSONResponse:
    """The import job: its status, progress, the rows that failed."""
    return answer(db, bulk_import.job_body(db, jobId), model=BulkJobOut)


@router.get(
    "/customers/{customerId}",
    response_model=CustomerOut,
    response_model_exclude_none=True,
    responses=error_responses(404),
)
def get_customer(customerId: PathId, db: Db) -> JSONResponse:
    """One customer (a deleted one too: ``isDeleted: true``)."""
    return answer(db, customer_ops.get_customer(db, customerId), model=CustomerOut)


@router.patch(
    "/customers/{customerId}",
    response_model=CustomerOut,
    response_model_exclude_none=True,
    responses={**error_responses(404), **_CONFLICT, **CHALLENGE_RESPONSE},
)
def update_customer(
    customerId: PathId, body: CustomerUpdate, signed: Signed, db: Db, services: Svc
) -> JSONResponse:
    """Change the fields the body carries (``customerType`` must be the customer's); a contact
    change of a customer with tied OTP credentials is a signed retry (202, then 200)."""
    status, updated = customer_ops.update_customer(db, services, customerId, body, signed)
    return signed_answer(db, status, updated, model=CustomerOut)


@router.delete(
    "/customers/{customerId}",
    response_model=CustomerOut,
    response_model_exclude_none=True,
    responses=_GONE,
)
def delete_customer(customerId: PathId, db: Db, services: Svc) -> JSONResponse:
    """Mark the customer deleted (its accounts and transactions stay); 410 the second time."""
    deleted = customer_ops.delete_customer(db, services, customerId)
    return answer(db, deleted, model=CustomerOut)


@router.post(
    "/customers/{customerId}/kyc-link",
    status_code=201,
    response_model=KycLinkOut,
    response_model_exclude_none=True,
    responses={**error_responses(404), **IDEMPOTENCY_RESPONSES},
    tags=["KYC/KYB Verifications"],
)
def create_kyc_link(
    customerId: PathId,
    request: Request,
    platform: Platform,
    db: Db,
    services: Svc,
    keyed: Keyed,
    body: KycLinkCreate | None = None,
) -> JSONResponse:
    """A fresh hosted KYC link: a page of this service that collects nothing (``POST
    /verifications`` decides the customer's status)."""
    origin = str(request.base_url)
    made = body or KycLinkCreate()
    return idempotent(
        db,
        platform,
        keyed,
        lambda: (201, customer_ops.kyc_link(db, services, customerId, made, origin)),
    )


@page_router.get("/sandbox/kyc/{token}")
def kyc_page(
    token: Annotated[str, Path(max_length=100)],
    redirectUri: Annotated[str | None, Query(max_length=2000)] = None,
) -> HTMLResponse:
    """The hosted KYC link's page: nothing to fill in; a link back to ``redirectUri``."""
    del token
    back = ""
    if redirectUri is not None and redirectUri.startswith(("https://", "http://")):
        back = f'<p><a href="{html.escape(redirectUri, quote=True)}">Continue</a></p>'
    return HTMLResponse(
        "<!doctype html><title>Sandbox KYC</title><h1>Sandbox KYC</h1>"
        "<p>The sandbox collects nothing here. The customer's verification status is "
        "decided by <code>POST /verifications</code> (see the sandbox documentation).</p>" + back
    )
