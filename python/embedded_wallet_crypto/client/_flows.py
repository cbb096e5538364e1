"""The client's flows, written once for both clients: each is a generator that yields the
requests it needs (:class:`~._wire.Call`) and the caller's callbacks it runs
(:class:`Effect`), and gets back their answers; ``Client`` drives it with blocking I/O,
``AsyncClient`` with ``await``. This module has the generic operation (with its signed
retry, or the stamp of a resource's ``payloadToSign``), wallet export and agent redemption;
the logins are in ``_login``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Generator, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from ..export import PRODUCTION_SIGNER_PUBLIC_KEY, check_mnemonic, open_export_bundle, raw_key_hex
from ..keys import KeyPair
from ..stamps import check_payload_binding, create_stamp
from ._answers import read_answer
from ._errors import ClientError
from ._operations import Operation, operation
from ._results import AgentCredentials, ExportedWallet, Signer, WalletSession
from ._wire import (
    SIGNATURE_HEADER,
    Call,
    ClientConfig,
    Reply,
    encode_form,
    encode_json,
    new_idempotency_key,
    query_params,
)

__all__ = ["Effect", "Flow", "make_call", "operation_flow"]

T = TypeVar("T")


@dataclass(frozen=True)
class Effect:
    """A caller's callback a flow runs (``read_otp``, an authenticator, an OIDC token
    source); an ``AsyncClient`` awaits what it returns when that is awaitable."""

    function: Callable[..., Any]
    args: tuple[Any, ...] = ()
    kwargs: Mapping[str, Any] | None = None


Step = Call | Effect
Flow = Generator[Step, Any, T]


def signer_of(session: object) -> Signer:
    """The key that stamps for ``session``: a WalletSession's signer, or the StampSigner
    itself (an ``ewc.KeyPair``, an HSM or KMS key)."""
    if isinstance(session, WalletSession):
        return session.signer
    kind = type(session)
    if callable(getattr(kind, "sign", None)) and callable(getattr(kind, "public_key_hex", None)):
        return session  # type: ignore[return-value]
    raise TypeError(
        f"session must be a WalletSession or an ewc.StampSigner, not {type(session).__name__}"
    )


def _idempotency_key(op: Operation, given: object) -> str | None:
    if given is None:
        return None if op.idempotent else new_idempotency_key()
    if not isinstance(given, str):
        raise TypeError(f"idempotency_key must be a str, not {type(given).__name__}")
    if not 1 <= len(given) <= 255 or not given.isascii() or not given.isprintable():
        raise ClientError(
            "idempotency_key must be 1 to 255 printable ASCII characters", "INVALID_ARGUMENT"
        )
    return given


def make_call(
    op: Operation,
    args: tuple[object, ...],
    *,
    body: object = None,
    params: Mapping[str, object] | None = None,
    headers: Mapping[str, str] | None = None,
    idempotency_key: object = None,
) -> Call:
    """The :class:`Call` of ``op`` with these path arguments, body, query and headers; a
    non-idempotent operation gets a fresh Idempotency-Key unless one is given."""
    if headers is not None and not all(
        isinstance(name, str) and isinstance(value, str) for name, value in headers.items()
    ):
        raise TypeError("headers must map str to str")
    extra: tuple[tuple[str, str], ...] = ()
    content: bytes | None
    if op.multipart and body is not None:
        content, content_type = encode_form(body)
        extra = (("Content-Type", content_type),)
    else:
        content = None if body is None else encode_json(body)
    return Call(
        operation=op,
        path=op.render(args),
        content=content,
        params=query_params(params),
        headers=extra + tuple((headers or {}).items()),
        idempotency_key=_idempotency_key(op, idempotency_key),
        secrets=op.secret_values(args),
    )


def _challenge(reply: Reply) -> tuple[str, str]:
    data = reply.data
    payload = data.get("payloadToSign") if isinstance(data, dict) else None
    request_id = data.get("requestId") if isinstance(data, dict) else None
    if not isinstance(payload, str) or not isinstance(request_id, str) or not request_id:
        raise ClientError(
            "the 202 answer is not a SignedRequestChallenge (payloadToSign, requestId)",
            "RESPONSE_INVALID",
        )
    return payload, request_id


#: The most signed retries of one call (``POST /auth/delegated-keys`` has two).
MAX_SIGNED_LEGS = 2


def signed_retry(
    call: Call, first: Reply, signer: Signer, *, bound_key: str | None = None
) -> Flow[Reply]:
    """Leg two of a signed retry: stamp ``payloadToSign`` exactly as issued and send the
    same request again with the stamp and ``Request-Id``. With ``bound_key``, the payload
    must bind that key (``parameters.targetPublicKey``) before anything is signed."""
    payload, request_id = _challenge(first)
    if bound_key is not None:
        check_payload_binding(payload, bound_key)
    stamp = create_stamp(payload, signer)
    key = new_idempotency_key() if call.idempotency_key is not None else None
    retry = call.with_headers(
        (SIGNATURE_HEADER, stamp), ("Request-Id", request_id), idempotency_key=key
    )
    reply: Reply = yield retry
    return reply


def _payload_of(resource: Any, what: str) -> str:
    instructions = resource.get("paymentInstructions") if isinstance(resource, dict) else None
    for instruction in instructions if isinstance(instructions, list) else []:
        if not isinstance(instruction, dict):
            continue
        info = instruction.get("accountOrWalletInfo")  # the published place, then the older one
        for where in (info if isinstance(info, dict) else {}, instruction):
            payload = where.get("payloadToSign")
            if isinstance(payload, str) and payload:
                return payload
    raise ClientError(
        f"the {what} has no payloadToSign in its paymentInstructions (its source is not an "
        "embedded wallet): execute it without session=",
        "NOTHING_TO_SIGN",
    )


def payload_signed(call: Call, args: tuple[object, ...], signer: Signer) -> Flow[Reply]:
    """Read the resource (``payload_from``), stamp its ``payloadToSign``, and send ``call``
    with the stamp in ``Service-Wallet-Signature``."""
    reader = operation(call.operation.payload_from or "")
    resource: Reply = yield make_call(reader, args)
    stamp = create_stamp(_payload_of(resource.data, "quote"), signer)
    reply: Reply = yield call.with_headers(
        (SIGNATURE_HEADER, stamp), idempotency_key=call.idempotency_key
    )
    return reply


def operation_flow(
    op: Operation,
    args: tuple[object, ...],
    *,
    body: object = None,
    params: Mapping[str, object] | None = None,
    headers: Mapping[str, str] | None = None,
    idempotency_key: object = None,
    session: object = None,
) -> Flow[Any]:
    """One operation of the table. With ``session``, a ``retry``-signed operation answers
    its 202 with the stamped retry, and a ``payload``-signed one is sent with the stamp of
    its resource's ``payloadToSign``; without it, a 202 comes back as it is."""
    if session is not None and op.signing == "none":
        raise TypeError(f"{op.qualified_name} is not signed: session= does not apply")
    call = make_call(
        op, args, body=body, params=params, headers=headers, idempotency_key=idempotency_key
    )
    signer = None if session is None else signer_of(session)
    if signer is not None and op.signing == "payload":
        reply = yield from payload_signed(call, args, signer)
    else:
        reply = yield call
        legs = 0  # a delegated key's creation answers its first signed retry with a second 202
        while signer is not None and reply.status == 202 and legs < MAX_SIGNED_LEGS:
            legs += 1
            bound = body.get(op.binds_key) if op.binds_key and isinstance(body, Mapping) else None
            bound_key = bound if isinstance(bound, str) else None
            reply = yield from signed_retry(call, reply, signer, bound_key=bound_key)
    return read_answer(op, reply.status, reply.data)


# --- wallet export -----------------------------------------------------------------------


def open_exported(
    config: ClientConfig, account_id: str, envelope: object, export_key: KeyPair
) -> ExportedWallet:
    """Verify the envelope's signer (the pinned key; unsigned only with ``sandbox=True``)
    and open it with the export's key: a mnemonic (checked) or a 32-byte private key."""
    if not isinstance(envelope, str):
        raise ClientError("the export has no encryptedWalletCredentials", "RESPONSE_INVALID")
    plaintext = open_export_bundle(
        envelope,
        export_key,
        signer_public_key=config.signer_public_key or PRODUCTION_SIGNER_PUBLIC_KEY,
        sandbox=config.sandbox,
    )
    try:
        signed = bool(json.loads(envelope).get("dataSignature"))
    except (ValueError, AttributeError):  # opened, so well formed; kept defensive
        signed = True
    if len(plaintext) == 32:  # a key export; a 12-word mnemonic is at least 47 bytes
        return ExportedWallet(account_id, None, raw_key_hex(plaintext), signed)
    try:
        text = plaintext.decode("utf-8")
    except UnicodeDecodeError:
        raise ClientError("the exported wallet is not UTF-8 text", "MNEMONIC_NOT_TEXT") from None
    check_mnemonic(text.partition("\n")[0])
    return ExportedWallet(account_id, text, None, signed)


def export_flow(config: ClientConfig, account_id: str, session: object) -> Flow[ExportedWallet]:
    """Export a wallet: a fresh one-time key, the signed retry (whose payload must bind that
    key), then the envelope verified and opened."""
    signer = signer_of(session)
    export_key = KeyPair.generate()
    public = export_key.public_key_hex()
    call = make_call(
        operation("internal_accounts.export"), (account_id,), body={"clientPublicKey": public}
    )
    first: Reply = yield call
    if first.status != 202:
        raise ClientError("the export answered without asking for a signature", "RESPONSE_INVALID")
    reply = yield from signed_retry(call, first, signer, bound_key=public)
    data = reply.data if isinstance(reply.data, dict) else {}
    return open_exported(config, account_id, data.get("encryptedWalletCredentials"), export_key)


# --- agents and webhooks -------------------------------------------------------------------


def redeem_flow(code: str) -> Flow[AgentCredentials]:
    """Redeem a device code (no credentials: the code is the proof)."""
    reply: Reply = yield make_call(operation("agents.redeem_device_code"), (code,))
    return AgentCredentials.from_body(reply.data)


def webhook_key_flow() -> Flow[str]:
    """The webhooks' verification key from ``GET /sandbox/webhook-public-key`` (SPKI PEM)."""
    pem = yield from operation_flow(operation("sandbox.webhook_public_key"), ())
    if not isinstance(pem, str) or "BEGIN PUBLIC KEY" not in pem:
        raise ClientError("the service's webhook key is not an SPKI PEM", "RESPONSE_INVALID")
    return pem
