"""The customers' later operations over real HTTP, in both environments, on SQLite and
PostgreSQL: the list (filters, keyset pages, deleted ones), one customer, its update and
deletion (410 the second time), the hosted KYC link and its page, and the bulk CSV import
(its limits, and the job the worker completes)."""

from __future__ import annotations

import uuid
from typing import Any

import httpx

from ._client import SandboxClient
from ._payments import accounts, wait_for
from ._server import SandboxServer

_CSV_HEADER = (
    "umaAddress,platformCustomerId,customerType,fullName,birthDate,addressLine1,city,state,"
    "postalCode,country,businessLegalName,email\n"
)


def _tag() -> str:
    return uuid.uuid4().hex[:10]


def _error(response: httpx.Response, status: int, code: str) -> None:
    assert response.status_code == status, response.text
    assert response.json()["code"] == code, response.text


def test_list_filters_pages_and_deleted(client: SandboxClient) -> None:
    tag = _tag()
    made = [
        client.create_customer(platformCustomerId=f"{tag}-{i}", region="US", currencies=["USD"])
        for i in range(3)
    ]
    business = client.create_customer(
        platformCustomerId=f"{tag}-b", customerType="BUSINESS", currencies=["EUR"]
    )
    one = client.get("/customers", params={"platformCustomerId": f"{tag}-1"})
    assert one.status_code == 200, one.text
    assert [c["id"] for c in one.json()["data"]] == [made[1]["id"]]
    assert one.json()["totalCount"] == 1 and one.json()["hasMore"] is False
    euros = client.get("/customers", params={"currency": "EUR", "customerType": "BUSINESS"})
    assert business["id"] in [c["id"] for c in euros.json()["data"]]
    assert all("EUR" in c["currencies"] for c in euros.json()["data"])
    # Keyset pages of two over everything created from the first one on.
    start = made[0]["createdAt"]
    seen: list[str] = []
    params: dict[str, Any] = {"limit": 2, "createdAfter": start}
    for _ in range(10):
        page = client.get("/customers", params=params).json()
        seen += [c["id"] for c in page["data"]]
        if not page["hasMore"]:
            break
        params["cursor"] = page["nextCursor"]
    for customer in [*made, business]:
        assert customer["id"] in seen
    assert len(seen) == len(set(seen))
    # A deleted customer leaves the list, unless asked for.
    deleted = client.request("DELETE", f"/customers/{made[2]['id']}")
    assert deleted.status_code == 200, deleted.text
    assert deleted.json()["isDeleted"] is True
    listed = client.get("/customers", params={"platformCustomerId": f"{tag}-2"}).json()
    assert listed["data"] == []
    including = client.get(
        "/customers", params={"platformCustomerId": f"{tag}-2", "isIncludingDeleted": "true"}
    ).json()
    assert [(c["id"], c["isDeleted"]) for c in including["data"]] == [(made[2]["id"], True)]


def test_list_is_checked(client: SandboxClient) -> None:
    for params in (
        {"limit": "0"},
        {"limit": "101"},
        {"cursor": "not-a-cursor"},
        {"createdAfter": "yesterday"},
        {"customerType": "ROBOT"},
        {"currency": "usd"},
        {"isIncludingDeleted": "maybe"},
    ):
        _error(client.get("/customers", params=params), 400, "INVALID_INPUT")


def test_get_update_and_delete(client: SandboxClient) -> None:
    made = client.create_customer(currencies=["USD"], fullName="Jane Doe")
    path = f"/customers/{made['id']}"
    got = client.get(path)
    assert got.status_code == 200 and got.json() == made
    patched = client.request(
        "PATCH",
        path,
        json={
            "customerType": "INDIVIDUAL",
            "fullName": "Jane Roe",
            "currencies": ["USD", "EUR"],
            "phoneNumber": "+14155550123",
        },
    )
    assert patched.status_code == 200, patched.text
    body = patched.json()
    assert body["fullName"] == "Jane Roe" and body["currencies"] == ["USD", "EUR"]
    assert body["phoneNumber"] == "+14155550123"
    assert body["updatedAt"] >= made["updatedAt"]
    assert "EUR" in accounts(client, made["id"])  # the new currency's holding account
    assert client.get(path).json() == body
    # The rules of an update.
    _error(client.request("PATCH", path, json={"customerType": "BUSINESS"}), 400, "INVALID_INPUT")
    both = {"customerType": "INDIVIDUAL", "email": "a@example.com", "phoneNumber": "+14155550124"}
    _error(client.request("PATCH", path, json=both), 400, "INVALID_INPUT")
    other = client.create_customer(currencies=["USD"])
    taken = {"customerType": "INDIVIDUAL", "umaAddress": other["umaAddress"]}
    _error(client.request("PATCH", path, json=taken), 409, "UMA_ADDRESS_EXISTS")
    _error(client.post("/customers", {**taken, "currencies": ["USD"]}), 409, "UMA_ADDRESS_EXISTS")
    _error(client.request("PATCH", path, json={"fullName": "x"}), 400, "INVALID_INPUT")
    # Deletion: once; then 410 for a deletion, 404 for an update; the customer stays readable.
    first = client.request("DELETE", path)
    assert first.status_code == 200 and first.json()["isDeleted"] is True
    _error(client.request("DELETE", path), 410, "CUSTOMER_DELETED")
    _error(
        client.request("PATCH", path, json={"customerType": "INDIVIDUAL"}), 404, "USER_NOT_FOUND"
    )
    assert client.get(path).json()["isDeleted"] is True


def test_unknown_customers_are_404(client: SandboxClient) -> None:
    for method in ("GET", "DELETE"):
        _error(client.request(method, "/customers/Customer:nope"), 404, "USER_NOT_FOUND")
    patch = {"customerType": "INDIVIDUAL"}
    _error(client.request("PATCH", "/customers/Customer:nope", json=patch), 404, "USER_NOT_FOUND")
    _error(client.post("/customers/Customer:nope/kyc-link", {}), 404, "USER_NOT_FOUND")


def test_kyc_link_and_its_page(server: SandboxServer, client: SandboxClient) -> None:
    made = client.create_customer(currencies=["USD"])
    path = f"/customers/{made['id']}/kyc-link"
    bare = client.post(path)
    assert bare.status_code == 201, bare.text
    link = client.post(path, {"redirectUri": "https://app.example.com/done?x=<b>"})
    assert link.status_code == 201, link.text
    body = link.json()
    assert body["provider"] == "SUMSUB" and body["expiresAt"].endswith("Z")
    assert body["kycUrl"] != bare.json()["kycUrl"]  # a fresh link each call
    origin = server.base_url.split("/2025-10-13")[0]
    assert body["kycUrl"].startswith(f"{origin}/sandbox/kyc/")
    page = httpx.get(body["kycUrl"], timeout=30)  # no credentials: a link for the customer
    assert page.status_code == 200
    assert "https://app.example.com/done?x=&lt;b&gt;" in page.text
    assert "<b>" not in page.text
    _error(client.post(path, {"redirectUri": "javascript:alert(1)"}), 400, "INVALID_INPUT")
    # The same Idempotency-Key: the same link.
    key = {"Idempotency-Key": _tag()}
    again = [client.post(path, {}, headers=key).json()["kycUrl"] for _ in range(2)]
    assert again[0] == again[1]
    assert client.get(f"/customers/{made['id']}").json() == made  # the status is unchanged


def _upload(client: SandboxClient, text: str | bytes, name: str = "file") -> httpx.Response:
    data = text.encode() if isinstance(text, str) else text
    return client.http.post("/customers/bulk/csv", files={name: ("c.csv", data, "text/csv")})


def _job(client: SandboxClient, job_id: str) -> dict[str, Any]:
    def fetch() -> dict[str, Any]:
        response = client.get(f"/customers/bulk/jobs/{job_id}")
        assert response.status_code == 200, response.text
        body: dict[str, Any] = response.json()
        return body

    return wait_for(fetch, lambda job: job["status"] in ("COMPLETED", "FAILED"), 60)


def test_bulk_csv_import(client: SandboxClient) -> None:
    tag = _tag()
    text = (
        _CSV_HEADER
        + f"${tag}a@uma.test,{tag}-a,INDIVIDUAL,Ann Lee,1990-01-15,1 Main St,SF,CA,94105,US,,\n"
        + f"${tag}b@uma.test,{tag}-b,BUSINESS,,,400 Way,Austin,TX,78701,US,Acme Inc,\n"
        + f"${tag}c@uma.test,{tag}-c,INDIVIDUAL,,1990-01-15,1 Main St,SF,CA,94105,US,,\n"
        + f"${tag}d@uma.test,{tag}-d,ROBOT,R,1990-01-15,1 Main St,SF,CA,94105,US,,\n"
    )
    accepted = _upload(client, text)
    assert accepted.status_code == 202, accepted.text
    assert accepted.json()["status"] == "PENDING"
    job = _job(client, accepted.json()["jobId"])
    assert job["status"] == "COMPLETED"
    assert job["progress"] == {"total": 4, "processed": 4, "successful": 2, "failed": 2}
    assert sorted(e["correlationId"] for e in job["errors"]) == [f"{tag}-c", f"{tag}-d"]
    assert all(e["code"] == "INVALID_INPUT" and e["message"] for e in job["errors"])
    assert job["completedAt"].endswith("Z")
    imported = client.get("/customers", params={"platformCustomerId": f"{tag}-b"}).json()
    (business,) = imported["data"]
    assert business["customerType"] == "BUSINESS" and business["umaAddress"] == f"${tag}b@uma.test"
    # A retry with the same Idempotency-Key gets the first job.
    encoded = httpx.Request("POST", "http://x/", files={"file": ("c.csv", text.encode())})
    body = encoded.read()
    headers = {"Content-Type": encoded.headers["Content-Type"], "Idempotency-Key": tag}
    first, again = (
        client.http.post("/customers/bulk/csv", content=body, headers=headers) for _ in range(2)
    )
    assert first.status_code == again.status_code == 202, again.text
    assert first.json()["jobId"] == again.json()["jobId"]
    # A file none of whose rows can be imported: FAILED.
    bad = _upload(client, _CSV_HEADER + f"$x@uma.test,{tag}-x,INDIVIDUAL,,,,,,,,,\n")
    assert _job(client, bad.json()["jobId"])["status"] == "FAILED"


def test_bulk_csv_limits(server: SandboxServer, client: SandboxClient) -> None:
    row = "$a@uma.test,p,INDIVIDUAL,A,1990-01-15,1 St,SF,CA,94105,US,,\n"
    _error(_upload(client, _CSV_HEADER + row * 1001), 400, "CSV_TOO_MANY_ROWS")
    _error(_upload(client, _CSV_HEADER), 400, "CSV_EMPTY")
    _error(_upload(client, "fullName,city\nA,B\n"), 400, "CSV_MISSING_COLUMNS")
    _error(_upload(client, b"\xff\xfe" + _CSV_HEADER.encode("utf-16-le")), 400, "INVALID_CSV")
    _error(_upload(client, _CSV_HEADER + "a\x00b,c,d\n"), 400, "INVALID_CSV")
    _error(_upload(client, _CSV_HEADER + row, name="other"), 400, "INVALID_INPUT")
    not_multipart = client.http.post(
        "/customers/bulk/csv", content=_CSV_HEADER + row, headers={"Content-Type": "text/csv"}
    )
    _error(not_multipart, 400, "INVALID_INPUT")
    _error(_upload(client, "x" * (1024 * 1024 + 1)), 413, "BODY_TOO_LARGE")
    _error(client.get("/customers/bulk/jobs/Job:nope"), 404, "BULK_UPLOAD_JOB_NOT_FOUND")
    unauthenticated = httpx.post(
        f"{server.base_url}/customers/bulk/csv", files={"file": ("c.csv", b"x")}, timeout=30
    )
    assert unauthenticated.status_code == 401


def test_bulk_csv_cells_past_the_limit_are_not_kept_in_the_job(client: SandboxClient) -> None:
    """A row whose cell passes 300 characters fails, and what the job keeps of it (its
    correlationId, its message: in the job and its webhook) stays within that limit."""
    long_column, long_id = "c" * 5000, "p" * 50000
    text = f"{_CSV_HEADER.strip()},{long_column}\n" + "".join(
        f"$a@uma.test,{pcid},INDIVIDUAL,A,1990-01-15,1 St,SF,CA,94105,US,,,{extra}\n"
        for pcid, extra in ((long_id, ""), ("short-id", "x" * 301))
    )
    accepted = _upload(client, text)
    assert accepted.status_code == 202, accepted.text
    job = _job(client, accepted.json()["jobId"])
    assert job["status"] == "FAILED" and job["progress"]["failed"] == 2
    assert [e["correlationId"] for e in job["errors"]] == ["row 1", "short-id"]
    for entry in job["errors"]:
        assert entry["code"] == "INVALID_INPUT" and 0 < len(entry["message"]) <= 300, entry


def test_customer_operations_need_credentials(server: SandboxServer) -> None:
    for method, path in (
        ("GET", "/customers"),
        ("GET", "/customers/Customer:x"),
        ("PATCH", "/customers/Customer:x"),
        ("DELETE", "/customers/Customer:x"),
        ("POST", "/customers/Customer:x/kyc-link"),
        ("GET", "/customers/bulk/jobs/Job:x"),
    ):
        response = httpx.request(method, f"{server.base_url}{path}", timeout=30)
        assert response.status_code == 401, (method, path, response.text)


def test_date_bounds_out_of_range_are_400(client: SandboxClient) -> None:
    for name in ("createdBefore", "createdAfter", "updatedBefore", "updatedAfter"):
        # Before year 1 in UTC; an inclusive end bound past the last millisecond of year 9999.
        values = ["0001-01-01T00:00:00+01:00"]
        if name.endswith("Before"):
            values.append("9999-12-31T23:59:59.999999Z")
        for value in values:
            _error(client.get("/customers", params={name: value}), 400, "INVALID_INPUT")
    assert client.get("/customers", params={"createdAfter": "9999-12-31T23:59:59Z"}).json() == {
        "data": [],
        "hasMore": False,
        "totalCount": 0,
    }
    _error(
        client.get("/transactions", params={"endDate": "9999-12-31T23:59:59.999999-14:00"}),
        400,
        "INVALID_INPUT",
    )
    naive = client.get("/customers", params={"createdAfter": "2000-01-01T00:00:00"})
    assert naive.status_code == 200, naive.text
