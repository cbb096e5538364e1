"""A stopping service starts no further webhook attempt: ``deliver_due`` asked to stop makes
none, however many events are due (an unanswering receiver would otherwise hold the stop up by
one attempt's timeout per due event)."""

from __future__ import annotations

from pathlib import Path

from embedded_wallet_crypto.sandbox import Settings, create_app
from embedded_wallet_crypto.sandbox.domain.platform_config import load_config
from embedded_wallet_crypto.sandbox.domain.webhook_delivery import deliver_due
from embedded_wallet_crypto.sandbox.domain.webhooks import emit


def test_a_stopping_delivery_round_starts_no_attempt(tmp_path: Path) -> None:
    app = create_app(
        Settings(database=f"sqlite:///{tmp_path / 'stop.db'}", platform_credentials=[("a", "b")])
    )
    database, clock = app.state.database, app.state.services.clock
    with database.sessions() as db:
        load_config(db).webhook_endpoint = "http://127.0.0.1:9/refused"
        for _ in range(3):
            emit(db, "CUSTOMER.KYC_APPROVED", {"id": "Customer:1"})
        db.commit()
    try:
        assert deliver_due(database, clock, lambda: True) == 0
        asked: list[int] = []

        def after_one() -> bool:
            asked.append(1)
            return len(asked) > 1

        assert deliver_due(database, clock, after_one) == 1  # the first, then the stop
        assert deliver_due(database, clock) == 2  # the other two, once nothing stops
    finally:
        database.dispose()
