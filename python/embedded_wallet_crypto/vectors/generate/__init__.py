"""The independent reference that writes the vector files: one builder per file, named after
it (``hpke`` writes hpke.json), with its writers and its own cryptography (``_reference``, on
pyca/cryptography and the standard library).

Nothing here may call the library under test, or the vectors would only check the library
against itself. It imports nothing of ``embedded_wallet_crypto`` but the error classes and the
software passkey authenticator that builds passkey.json's inputs (its keys and expected values
are computed here); ``tests/test_vectors.py`` holds it to that.
"""
