"""``ewc serve --names interface|published`` over real HTTP, and the shapes both modes share:

- a quote's ``rateDetails``: ``serviceApi*`` (interface) or ``gridApi*`` (published), never both;
- errors: ``{status, code, reason}`` with the service's code (interface) or the published
  ``{status, code, message, details}`` with the published code of that status and the service's
  own in ``details.sandboxCode`` (published), validated against the published ``ErrorNNN``
  when the published document is at hand;
- the served OpenAPI document follows the mode;
- an embedded-wallet quote's instruction has ``accountOrWalletInfo: {accountType:
  EMBEDDED_WALLET, payloadToSign}``; a realtime-funded transaction has a ``REALTIME_FUNDING``
  source (both modes);
- a duplicate ``platformCustomerId`` is 409 (``CONFLICT``), also when two processes create it at
  the same moment, on SQLite and PostgreSQL (``EWC_NAMES_RACE_ROUNDS`` rounds, 10 by default).
"""

from __future__ import annotations

import os
import uuid
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from _ci import skip_or_fail

from ._client import SandboxClient
from ._fuzz_operations import _grid_document, _grid_path
from ._pair import clients_of, race, running_pair
from ._server import SandboxServer
from .conftest import database_url

ROUNDS = int(os.environ.get("EWC_NAMES_RACE_ROUNDS", "10"))
SERVICE_RATES = {
    "serviceApiMultiplier",
    "serviceApiFixedFee",
    "serviceApiVariableFeeRate",
    "serviceApiVariableFeeAmount",
}
GRID_RATES = {name.replace("serviceApi", "gridApi") for name in SERVICE_RATES}


@pytest.fixture(scope="module", params=["interface", "published"])
def named(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, SandboxClient]]:
    names: str = request.param
    running = SandboxServer(tmp_path_factory.mktemp(f"names-{names}"), extra=["--names", names])
    running.start()
    client = SandboxClient(running.base_url, running.auth)
    yield names, client
    client.close()
    assert running.stop() == 0


def _accounts(client: SandboxClient, customer_id: str) -> dict[str, str]:
    """The customer's internal accounts: currency -> id, and ``WALLET`` -> the wallet's."""
    listed = client.get("/customers/internal-accounts", params={"customerId": customer_id})
    assert listed.status_code == 200, listed.text
    found = {}
    for account in listed.json()["data"]:
        key = "WALLET" if account["type"] == "EMBEDDED_WALLET" else None
        found[key or account["balance"]["currency"]["code"]] = account["id"]
    return found


def _quote(
    client: SandboxClient, source: dict[str, Any], destination: str, amount: int = 10_00
) -> dict[str, Any]:
    response = client.post(
        "/quotes",
        {
            "source": source,
            "destination": {"destinationType": "ACCOUNT", "accountId": destination},
            "lockedCurrencySide": "SENDING",
            "lockedCurrencyAmount": amount,
        },
    )
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    return body


def test_rate_details_names(named: tuple[str, SandboxClient]) -> None:
    names, client = named
    accounts = _accounts(client, client.create_customer(currencies=["USD", "EUR"])["id"])
    quote = _quote(client, {"sourceType": "ACCOUNT", "accountId": accounts["USD"]}, accounts["EUR"])
    rates = set(quote["rateDetails"])
    expected, other = (
        (GRID_RATES, SERVICE_RATES) if names == "published" else (SERVICE_RATES, GRID_RATES)
    )
    assert expected <= rates and not rates & other, quote["rateDetails"]
    again = client.get(f"/quotes/{quote['id']}").json()
    assert set(again["rateDetails"]) == rates


def _published_schema_errors(status: int, body: Any) -> list[str]:
    """The published ``ErrorNNN`` schema's complaints about ``body`` (none without it)."""
    if _grid_path() is None:
        return []
    import jsonschema_rs

    document = _grid_document()
    schema = {"$ref": f"#/components/schemas/Error{status}", "components": document["components"]}
    return [error.message for error in jsonschema_rs.validator_for(schema).iter_errors(body)]


@pytest.mark.parametrize(
    ("method", "path", "body", "auth", "status", "ours", "published"),
    [
        ("GET", "/quotes/Quote:nothing", None, True, 404, "NOT_FOUND", "QUOTE_NOT_FOUND"),
        (
            "GET",
            "/transactions/Transaction:nothing",
            None,
            True,
            404,
            "NOT_FOUND",
            "TRANSACTION_NOT_FOUND",
        ),
        ("GET", "/agents/Agent:nothing", None, True, 404, "AGENT_NOT_FOUND", "REFERENCE_NOT_FOUND"),
        ("POST", "/quotes", {}, True, 400, "INVALID_INPUT", "INVALID_INPUT"),
        (
            "POST",
            "/customers",
            {"customerType": "INDIVIDUAL"},
            False,
            401,
            "UNAUTHORIZED",
            "UNAUTHORIZED",
        ),
        ("DELETE", "/config", None, True, 405, "METHOD_NOT_ALLOWED", "METHOD_NOT_ALLOWED"),
    ],
)
def test_errors(
    named: tuple[str, SandboxClient],
    method: str,
    path: str,
    body: Any,
    auth: bool,
    status: int,
    ours: str,
    published: str,
) -> None:
    names, client = named
    options: dict[str, Any] = {} if auth else {"auth": ("nobody", "nothing")}
    response = client.http.request(method, path, json=body, **options)
    assert response.status_code == status, response.text
    answer = response.json()
    if names == "interface":
        assert answer == {"status": status, "code": ours, "reason": answer["reason"]}
        return
    assert answer["code"] == published and answer["details"] == {"sandboxCode": ours}, answer
    assert set(answer) == {"status", "code", "message", "details"} and answer["message"]
    assert not _published_schema_errors(status, answer)


def test_the_served_document_follows_the_mode(named: tuple[str, SandboxClient]) -> None:
    names, client = named
    document = client.get("/openapi.json").json()
    error = document["components"]["schemas"]["ErrorOut"]
    expected = (
        {"status", "code", "message", "details"}
        if names == "published"
        else {"status", "code", "reason"}
    )
    assert set(error["properties"]) == expected


def test_wallet_instruction_and_realtime_source(named: tuple[str, SandboxClient]) -> None:
    _, client = named
    customer = client.create_customer(currencies=["USD"])
    accounts = _accounts(client, customer["id"])
    quote = _quote(
        client,
        {"sourceType": "ACCOUNT", "accountId": accounts["WALLET"]},
        accounts["USD"],
        10_000_000,
    )
    (instruction,) = quote["paymentInstructions"]
    info = instruction["accountOrWalletInfo"]
    assert info["accountType"] == "EMBEDDED_WALLET" and info["payloadToSign"], instruction
    realtime = _quote(
        client,
        {"sourceType": "REALTIME_FUNDING", "currency": "EUR", "customerId": customer["id"]},
        accounts["USD"],
    )
    transaction = client.get(f"/transactions/{realtime['transactionId']}").json()
    assert transaction["source"] == {
        "sourceType": "REALTIME_FUNDING",
        "currency": "EUR",
        "customerId": customer["id"],
    }, transaction


def test_a_duplicate_platform_customer_id_is_409(named: tuple[str, SandboxClient]) -> None:
    _, client = named
    mine = f"p-{uuid.uuid4().hex}"
    client.create_customer(platformCustomerId=mine)
    again = client.post("/customers", {"customerType": "INDIVIDUAL", "platformCustomerId": mine})
    assert again.status_code == 409, again.text
    assert again.json()["code"] == "CONFLICT"
    other = client.post(
        "/customers", {"customerType": "INDIVIDUAL", "platformCustomerId": mine + "x"}
    )
    assert other.status_code == 201, other.text


@pytest.fixture(scope="module")
def pair(
    backend: str, request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[SandboxServer, SandboxServer]]:
    with running_pair(
        tmp_path_factory.mktemp(f"names-race-{backend}"),
        database_url(request, backend, "race"),  # type: ignore[arg-type]
        extra=["--names", "published"],
    ) as servers:
        yield servers


def test_two_creations_of_one_platform_customer_id_at_once(
    pair: tuple[SandboxServer, SandboxServer],
) -> None:
    """Each round, two processes create a customer with one new platformCustomerId at the same
    moment: one 201, one 409 CONFLICT."""
    outcomes: Counter[tuple[int, ...]] = Counter()
    with clients_of(pair) as clients:
        for _ in range(ROUNDS):
            body = {"customerType": "INDIVIDUAL", "platformCustomerId": f"r-{uuid.uuid4().hex}"}
            answers = race([lambda c=c, b=body: c.post("/customers", b) for c in clients])
            outcomes[tuple(sorted(answer.status_code for answer in answers))] += 1
            for answer in answers:
                assert answer.status_code != 409 or answer.json()["code"] == "CONFLICT"
    assert outcomes == Counter({(201, 409): ROUNDS}), outcomes


def test_the_error_table_names_published_codes() -> None:
    """Every published code of the service's table is in the published list of its status."""
    from embedded_wallet_crypto.sandbox import error_codes

    if _grid_path() is None:
        skip_or_fail("the published OpenAPI is not at hand: the table is not checked")
    schemas = _grid_document()["components"]["schemas"]

    def listed(status: int) -> set[str]:
        return set(schemas[f"Error{status}"]["properties"]["code"]["enum"])

    for status, codes in error_codes.PUBLISHED_CODES.items():
        assert codes <= listed(status), (status, codes - listed(status))
    for status, code in error_codes.DEFAULTS.items():
        assert code in listed(status), (status, code)
    for (status, _), code in error_codes.MAPPED.items():
        assert code in listed(status), (status, code)
    for code in error_codes.NOT_FOUND_IN_PATH.values():
        assert code in listed(404), code


def test_an_id_in_a_body_that_names_nothing(named: tuple[str, SandboxClient]) -> None:
    """404 in ``interface`` mode; 400 ``INVALID_INPUT`` in ``published`` mode, as the published
    operations answer it (the service's code in ``details.sandboxCode``)."""
    names, client = named
    body = {
        "customerId": "Customer:nothing",
        "currency": "USD",
        "accountInfo": {
            "accountType": "USD_ACCOUNT",
            "accountNumber": "123456789",
            "routingNumber": "021000021",
            "bankAccountType": "CHECKING",
            "bankName": "Test Bank",
            "beneficiary": {"beneficiaryType": "INDIVIDUAL", "fullName": "Jane Doe"},
        },
    }
    response = client.post("/customers/external-accounts", body)
    answer = response.json()
    if names == "interface":
        assert (response.status_code, answer["code"]) == (404, "NOT_FOUND"), response.text
        return
    assert response.status_code == 400, response.text
    assert answer["status"] == 400 and answer["code"] == "INVALID_INPUT", answer
    assert answer["details"] == {"sandboxCode": "NOT_FOUND"}, answer
    assert not _published_schema_errors(400, answer)
    # An id in the path that names nothing stays 404 in both modes.
    missing = client.get("/quotes/Quote:nothing")
    assert missing.status_code == 404 and missing.json()["code"] == "QUOTE_NOT_FOUND"
