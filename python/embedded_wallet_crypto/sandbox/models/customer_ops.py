"""The bodies of the customers' later operations: ``PATCH /customers/{customerId}``, the KYC
link, the customer list and the bulk CSV import job."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from .customer_info import Address, BusinessInfoUpdate
from .customers import CustomerOut, CustomerType

__all__ = [
    "BulkJobAccepted",
    "BulkJobOut",
    "CustomerList",
    "CustomerUpdate",
    "KycLinkCreate",
    "KycLinkOut",
]

_Currency = Annotated[str, Field(pattern=r"^[A-Z]{3,5}$")]


class CustomerUpdate(BaseModel):
    """The published CustomerUpdateRequest (the fields the sandbox keeps; others ignored).
    ``customerType`` must be the customer's own; a field left out stays as it is."""

    model_config = ConfigDict(extra="ignore")

    customerType: CustomerType
    currencies: Annotated[list[_Currency], Field(min_length=1, max_length=20)] | None = None
    email: Annotated[str, Field(max_length=320, pattern=r"^[^@\s]+@[^@\s]+\.[^@\s]+$")] | None = (
        None
    )
    phoneNumber: Annotated[str, Field(pattern=r"^\+[1-9]\d{1,14}$")] | None = None
    umaAddress: Annotated[str, Field(min_length=3, max_length=300)] | None = None
    region: Annotated[str, Field(pattern=r"^[A-Z]{2}$")] | None = None
    fullName: Annotated[str, Field(max_length=300)] | None = None
    birthDate: Annotated[str, Field(max_length=10)] | None = None
    nationality: Annotated[str, Field(max_length=2)] | None = None
    address: Address | None = None
    businessInfo: BusinessInfoUpdate | None = None


class KycLinkCreate(BaseModel):
    """The published KycLinkCreateRequest."""

    model_config = ConfigDict(extra="ignore")

    redirectUri: Annotated[str, Field(max_length=2000, pattern=r"^https?://[^\s]+$")] | None = None


class KycLinkOut(BaseModel):
    kycUrl: str
    expiresAt: str
    provider: Literal["SUMSUB"]
    token: str | None = None


class CustomerList(BaseModel):
    data: list[CustomerOut]
    hasMore: bool
    nextCursor: str | None = None
    totalCount: int


class BulkJobAccepted(BaseModel):
    jobId: str
    status: Literal["PENDING", "PROCESSING"]


class BulkJobProgress(BaseModel):
    total: int
    processed: int
    successful: int
    failed: int


class BulkJobError(BaseModel):
    correlationId: str
    code: str
    message: str
    details: dict[str, object] | None = None


class BulkJobOut(BaseModel):
    id: str
    status: Literal["PENDING", "PROCESSING", "COMPLETED", "FAILED"]
    progress: BulkJobProgress
    errors: list[BulkJobError] | None = None
    completedAt: str | None = None
