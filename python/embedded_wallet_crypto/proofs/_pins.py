"""The values an auditor pins for a boot proof: PCRs, the manifest hash, the approval threshold.

``pins`` is a mapping (the JSON object of ``ewc proofs verify --pin FILE``) with any of::

    {"pcr0": "<hex>", "pcr1": "<hex>", "pcr2": "<hex>", "pcr3": "<hex>",
     "manifest_hash": "<hex of the 32-byte SHA-256 of the QOS manifest>",
     "approval_threshold": <int: the least manifest-set threshold accepted>}

Hex in either case. A PCR pin is compared with the attestation document's PCR of that index
(which the whole boot proof also ties to its manifest); the manifest hash with the document's
``user_data``; the approval threshold with the manifest set's threshold, which the envelope's
valid approvals must reach, so it needs the whole boot proof.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from . import _common as c
from ._manifest import QosManifest

__all__ = ["PIN_NAMES", "Pins", "check_pins", "read_pins"]

#: The names a pins mapping may hold.
PIN_NAMES = ("pcr0", "pcr1", "pcr2", "pcr3", "manifest_hash", "approval_threshold")
_HEX = re.compile(r"(?:[0-9a-fA-F]{2})+")
_LARGEST_THRESHOLD = 2**32 - 1


@dataclass(frozen=True)
class Pins:
    """Checked pins (see the module's documentation)."""

    pcrs: dict[int, bytes] = field(default_factory=dict)
    manifest_hash: bytes | None = None
    approval_threshold: int | None = None

    @property
    def need_manifest(self) -> bool:
        return self.approval_threshold is not None


def _hex(value: object, name: str, lengths: tuple[int, ...]) -> bytes:
    if not isinstance(value, str) or not _HEX.fullmatch(value):
        c.fail(c.BOOT_PINS_INVALID, f"the pin {name} is not a hex string")
    data = bytes.fromhex(value)
    if len(data) not in lengths:
        sizes = " or ".join(str(length) for length in lengths)
        c.fail(c.BOOT_PINS_INVALID, f"the pin {name} is {len(data)} bytes, not {sizes}")
    return data


def read_pins(pins: Mapping[str, object] | None) -> Pins:
    """The checked pins of ``pins`` (None: no pins).

    Raises:
        ProofError: ``BOOT_PROOF_PINS_INVALID`` for an unknown name or a malformed value.
        TypeError: ``pins`` is not a mapping.
    """
    if pins is None:
        return Pins()
    if not isinstance(pins, Mapping):
        raise TypeError(f"pins must be a mapping, not {type(pins).__name__}")
    unknown = sorted(str(name) for name in pins if name not in PIN_NAMES)
    if unknown:
        known = ", ".join(PIN_NAMES)
        c.fail(c.BOOT_PINS_INVALID, f"unknown pin {unknown[0][:40]!r} (known: {known})")
    pcrs = {
        index: _hex(pins[f"pcr{index}"], f"pcr{index}", (32, 48, 64))
        for index in range(4)
        if f"pcr{index}" in pins
    }
    manifest_hash = None
    if "manifest_hash" in pins:
        manifest_hash = _hex(pins["manifest_hash"], "manifest_hash", (32,))
    threshold = None
    if "approval_threshold" in pins:
        value = pins["approval_threshold"]
        if (
            not isinstance(value, int)
            or isinstance(value, bool)
            or not 1 <= value <= _LARGEST_THRESHOLD
        ):
            c.fail(c.BOOT_PINS_INVALID, "the pin approval_threshold is not an integer from 1")
        threshold = value
    return Pins(pcrs, manifest_hash, threshold)


def check_pins(
    pins: Pins,
    pcrs: Mapping[int, bytes],
    user_data: bytes | None,
    manifest: QosManifest | None,
) -> None:
    """Every pinned value is the proof's.

    Raises:
        ProofError: ``BOOT_PROOF_PIN_PCR_MISMATCH``, ``BOOT_PROOF_PIN_MANIFEST_MISMATCH`` or
            ``BOOT_PROOF_PIN_THRESHOLD_MISMATCH``.
    """
    for index, value in sorted(pins.pcrs.items()):
        if pcrs.get(index) != value:
            c.fail(c.BOOT_PIN_PCR_MISMATCH, f"PCR{index} is not the pinned value")
    if pins.manifest_hash is not None and user_data != pins.manifest_hash:
        c.fail(c.BOOT_PIN_MANIFEST_MISMATCH, "the manifest hash is not the pinned value")
    if pins.approval_threshold is not None:
        threshold = manifest.manifest_set.threshold if manifest is not None else 0
        if threshold < pins.approval_threshold:
            c.fail(
                c.BOOT_PIN_THRESHOLD_MISMATCH,
                f"the manifest set threshold is {threshold}, the pin asks for at least "
                f"{pins.approval_threshold}",
            )
