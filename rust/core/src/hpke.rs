//! HPKE, RFC 9180, mode_base: DHKEM(P-256, HKDF-SHA256) / HKDF-SHA256 / AES-128-GCM or
//! AES-256-GCM. Function names follow the RFC's own steps (section 4 and 5).
//!
//! The wallet profile (formats.md section 1) is AES-256-GCM, `info = "turnkey_hpke"` and
//! `aad = enc || pkR`, both uncompressed; [`Aad::Profile`] selects that AAD. Every secret on the
//! way (DH output, shared secret, PRKs, key, nonce, exporter secret) is wiped on drop, and every
//! failure to open is the one generic [`Error::decryption`].

use std::sync::OnceLock;

use zeroize::Zeroizing;

use crate::error::{Error, Result};
use crate::p256::{scalar_in_range, KeyPair, PublicKey, COMPRESSED_LEN, UNCOMPRESSED_LEN};
use crate::primitives::{check_hkdf_output_len, hkdf_extract, AesGcm, Prk, HASH_LEN};

/// KEM, KDF and AEAD identifiers (RFC 9180 section 7).
pub const KEM_DHKEM_P256_HKDF_SHA256: u16 = 0x0010;
pub const KDF_HKDF_SHA256: u16 = 0x0001;
pub const AEAD_AES_128_GCM: u16 = 0x0001;
pub const AEAD_AES_256_GCM: u16 = 0x0002;

/// `mode_base` (RFC 9180 section 5).
const MODE_BASE: u8 = 0x00;
/// DHKEM(P-256) sizes (RFC 9180 section 7.1): `Nsecret`, `Nenc`, `Nsk`.
const KEM_NSECRET: usize = 32;
const KEM_NENC: usize = UNCOMPRESSED_LEN;
const KEM_NSK: usize = 32;
/// AES-GCM key sizes `Nk` (RFC 9180 section 7.3).
const AEAD_AES_128_GCM_NK: usize = 16;
const AEAD_AES_256_GCM_NK: usize = 32;
/// AES-GCM nonce size `Nn` (RFC 9180 section 7.3).
const AEAD_NN: usize = 12;
const HPKE_VERSION: &[u8] = b"HPKE-v1";
/// `suite_id = "KEM" || I2OSP(kem_id, 2)` (RFC 9180 section 4.1).
const KEM_SUITE_ID: [u8; 5] = [b'K', b'E', b'M', 0x00, 0x10];
/// The wallet profile's `info` (formats.md section 1).
pub const PROFILE_INFO: &[u8] = b"turnkey_hpke";

/// An AEAD of RFC 9180 section 7.3 that this core supports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AeadId {
    Aes128Gcm,
    Aes256Gcm,
}

impl AeadId {
    pub fn from_id(id: u16) -> Result<Self> {
        match id {
            AEAD_AES_128_GCM => Ok(Self::Aes128Gcm),
            AEAD_AES_256_GCM => Ok(Self::Aes256Gcm),
            _ => Err(Error::unsupported(
                "HPKE AEAD must be AES-128-GCM (1) or AES-256-GCM (2)",
            )),
        }
    }

    fn id(self) -> u16 {
        match self {
            Self::Aes128Gcm => AEAD_AES_128_GCM,
            Self::Aes256Gcm => AEAD_AES_256_GCM,
        }
    }

    /// `Nk`, the key size.
    fn key_len(self) -> usize {
        match self {
            Self::Aes128Gcm => AEAD_AES_128_GCM_NK,
            Self::Aes256Gcm => AEAD_AES_256_GCM_NK,
        }
    }

    /// `suite_id = "HPKE" || I2OSP(kem_id, 2) || I2OSP(kdf_id, 2) || I2OSP(aead_id, 2)`.
    fn suite_id(self) -> [u8; 10] {
        let [k0, k1] = KEM_DHKEM_P256_HKDF_SHA256.to_be_bytes();
        let [f0, f1] = KDF_HKDF_SHA256.to_be_bytes();
        let [a0, a1] = self.id().to_be_bytes();
        [b'H', b'P', b'K', b'E', k0, k1, f0, f1, a0, a1]
    }
}

/// The AAD of a single-shot seal or open.
#[derive(Clone, Copy, Debug)]
pub enum Aad<'a> {
    /// formats.md section 1: `enc || pkR`, each 65-byte uncompressed SEC1.
    Profile,
    /// Plain RFC 9180: exactly these bytes.
    Explicit(&'a [u8]),
}

/// `LabeledExtract(salt, label, ikm)` (RFC 9180 section 4).
fn labeled_extract(
    suite_id: &[u8],
    salt: &[u8],
    label: &[u8],
    ikm: &[u8],
) -> Zeroizing<[u8; HASH_LEN]> {
    hkdf_extract(salt, &[HPKE_VERSION, suite_id, label, ikm])
}

/// `LabeledExpand(prk, label, info, L)` (RFC 9180 section 4), filling `out` (L = out.len()).
fn labeled_expand(
    suite_id: &[u8],
    prk: &Prk,
    label: &[u8],
    info: &[u8],
    out: &mut [u8],
) -> Result<()> {
    let length = u16::try_from(out.len())
        .map_err(|_| Error::length("HPKE output length must fit in 16 bits"))?
        .to_be_bytes();
    prk.expand(&[&length, HPKE_VERSION, suite_id, label, info], out)
}

/// `ExtractAndExpand(dh, kem_context)` (RFC 9180 section 4.1).
fn extract_and_expand(dh: &[u8], kem_context: &[u8]) -> Result<Zeroizing<[u8; KEM_NSECRET]>> {
    let eae_prk = Prk::new(labeled_extract(&KEM_SUITE_ID, b"", b"eae_prk", dh).as_ref());
    let mut shared_secret = Zeroizing::new([0u8; KEM_NSECRET]);
    labeled_expand(
        &KEM_SUITE_ID,
        &eae_prk,
        b"shared_secret",
        kem_context,
        shared_secret.as_mut(),
    )?;
    Ok(shared_secret)
}

fn kem_context(enc: &[u8; KEM_NENC], pk_r: &PublicKey) -> [u8; 2 * KEM_NENC] {
    let mut context = [0u8; 2 * KEM_NENC];
    context[..KEM_NENC].copy_from_slice(enc);
    context[KEM_NENC..].copy_from_slice(pk_r.uncompressed());
    context
}

/// `Encap(pkR)` with the ephemeral key given: returns `(shared_secret, enc)`.
fn encap(
    pk_r: &PublicKey,
    ephemeral: &KeyPair,
) -> Result<(Zeroizing<[u8; KEM_NSECRET]>, [u8; KEM_NENC])> {
    let dh = ephemeral.ecdh(pk_r)?;
    let enc = *ephemeral.public_key().uncompressed();
    let shared_secret = extract_and_expand(dh.as_ref(), &kem_context(&enc, pk_r))?;
    Ok((shared_secret, enc))
}

/// `DeserializePublicKey(enc)`: 65-byte uncompressed, or 33-byte compressed (decompressed and
/// thereby validated here). An uncompressed point is validated by aws-lc inside the ECDH of
/// [`decap`]; any failure is the one generic open error.
fn deserialize_enc(enc: &[u8]) -> Result<[u8; KEM_NENC]> {
    match (enc.len(), enc.first()) {
        (KEM_NENC, Some(0x04)) => enc.try_into().map_err(|_| Error::decryption()),
        (COMPRESSED_LEN, _) => PublicKey::from_sec1(enc)
            .map(|point| *point.uncompressed())
            .map_err(|_| Error::decryption()),
        _ => Err(Error::decryption()),
    }
}

/// `Decap(enc, skR)` with `enc` already deserialized.
fn decap(enc: &[u8; KEM_NENC], sk_r: &KeyPair) -> Result<Zeroizing<[u8; KEM_NSECRET]>> {
    let dh = sk_r.ecdh_uncompressed(enc)?;
    extract_and_expand(dh.as_ref(), &kem_context(enc, sk_r.public_key()))
}

/// `DeriveKeyPair(ikm)` for DHKEM(P-256) (RFC 9180 section 7.1.3), bitmask 0xff.
pub fn derive_key_pair(ikm: &[u8]) -> Result<KeyPair> {
    let dkp_prk = Prk::new(labeled_extract(&KEM_SUITE_ID, b"", b"dkp_prk", ikm).as_ref());
    let mut candidate = Zeroizing::new([0u8; KEM_NSK]);
    for counter in 0..=255u8 {
        labeled_expand(
            &KEM_SUITE_ID,
            &dkp_prk,
            b"candidate",
            &[counter],
            candidate.as_mut(),
        )?;
        // bitmask 0xff: a candidate outside [1, n-1] is skipped, not an error.
        if bool::from(scalar_in_range(&candidate)) {
            return KeyPair::from_private_bytes(candidate.as_ref());
        }
    }
    Err(Error::derive_key_pair())
}

/// An HPKE encryption context (RFC 9180 section 5.2): AEAD key, base nonce, sequence number,
/// and the exporter secret (section 5.3).
pub struct Context {
    aead: AesGcm,
    base_nonce: Zeroizing<[u8; AEAD_NN]>,
    /// None in single-shot contexts, which never export.
    exporter_secret: Option<Zeroizing<[u8; HASH_LEN]>>,
    seq: u64,
    suite_id: [u8; 10],
}

impl core::fmt::Debug for Context {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Context")
            .field("seq", &self.seq)
            .finish_non_exhaustive()
    }
}

/// Whether a context derives its exporter secret: a single-shot seal or open never exports.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Exporter {
    Derive,
    Skip,
}

/// `key_schedule_context = mode || psk_id_hash || info_hash` (RFC 9180 section 5.1). With the
/// default psk_id and the wallet profile's info it is a constant, computed once per AEAD.
fn key_schedule_context(aead: AeadId, info: &[u8]) -> [u8; 1 + 2 * HASH_LEN] {
    let compute = || {
        let suite_id = aead.suite_id();
        let mut context = [0u8; 1 + 2 * HASH_LEN];
        context[0] = MODE_BASE;
        context[1..=HASH_LEN]
            .copy_from_slice(labeled_extract(&suite_id, b"", b"psk_id_hash", b"").as_ref());
        context[1 + HASH_LEN..]
            .copy_from_slice(labeled_extract(&suite_id, b"", b"info_hash", info).as_ref());
        context
    };
    static PROFILE: [OnceLock<[u8; 1 + 2 * HASH_LEN]>; 2] = [OnceLock::new(), OnceLock::new()];
    match (info == PROFILE_INFO, aead) {
        (true, AeadId::Aes128Gcm) => *PROFILE[0].get_or_init(compute),
        (true, AeadId::Aes256Gcm) => *PROFILE[1].get_or_init(compute),
        (false, _) => compute(),
    }
}

/// `KeySchedule(mode_base, shared_secret, info, default_psk, default_psk_id)`.
fn key_schedule(
    aead: AeadId,
    shared_secret: &[u8],
    info: &[u8],
    exporter: Exporter,
) -> Result<Context> {
    let suite_id = aead.suite_id();
    let key_schedule_context = key_schedule_context(aead, info);

    // One HMAC key setup for the two or three expansions from `secret`.
    let secret = Prk::new(labeled_extract(&suite_id, shared_secret, b"secret", b"").as_ref());
    let mut key = Zeroizing::new([0u8; 32]);
    let key = &mut key[..aead.key_len()];
    labeled_expand(&suite_id, &secret, b"key", &key_schedule_context, key)?;
    let mut base_nonce = Zeroizing::new([0u8; AEAD_NN]);
    labeled_expand(
        &suite_id,
        &secret,
        b"base_nonce",
        &key_schedule_context,
        base_nonce.as_mut(),
    )?;
    let exporter_secret = match exporter {
        Exporter::Skip => None,
        Exporter::Derive => {
            let mut exporter_secret = Zeroizing::new([0u8; HASH_LEN]);
            labeled_expand(
                &suite_id,
                &secret,
                b"exp",
                &key_schedule_context,
                exporter_secret.as_mut(),
            )?;
            Some(exporter_secret)
        }
    };
    Ok(Context {
        aead: AesGcm::new(key)?,
        base_nonce,
        exporter_secret,
        seq: 0,
        suite_id,
    })
}

impl Context {
    /// The sequence number of the next message.
    pub fn sequence_number(&self) -> u64 {
        self.seq
    }

    /// `ComputeNonce(seq)`: base_nonce XOR I2OSP(seq, Nn).
    fn compute_nonce(&self) -> Zeroizing<[u8; AEAD_NN]> {
        let mut nonce = self.base_nonce.clone();
        for (byte, seq_byte) in nonce[AEAD_NN - 8..].iter_mut().zip(self.seq.to_be_bytes()) {
            *byte ^= seq_byte;
        }
        nonce
    }

    /// `IncrementSeq()`; the last sequence number is never used.
    fn increment_seq(&mut self) -> Result<()> {
        self.seq = self.seq.checked_add(1).ok_or_else(Error::message_limit)?;
        Ok(())
    }

    fn check_limit(&self) -> Result<()> {
        if self.seq == u64::MAX {
            return Err(Error::message_limit());
        }
        Ok(())
    }

    /// `ContextS.Seal(aad, pt)`.
    pub fn seal(&mut self, aad: &[u8], plaintext: &[u8]) -> Result<Vec<u8>> {
        self.check_limit()?;
        let ciphertext = self
            .aead
            .seal(self.compute_nonce().as_ref(), aad, plaintext)?;
        self.increment_seq()?;
        Ok(ciphertext)
    }

    /// `ContextR.Open(aad, ct)`; the sequence number advances only on success.
    pub fn open(&mut self, aad: &[u8], ciphertext: &[u8]) -> Result<Zeroizing<Vec<u8>>> {
        self.check_limit()?;
        let plaintext = self
            .aead
            .open(self.compute_nonce().as_ref(), aad, ciphertext)?;
        self.increment_seq()?;
        Ok(plaintext)
    }

    /// `Context.Export(exporter_context, L)` (RFC 9180 section 5.3).
    pub fn export(&self, exporter_context: &[u8], length: usize) -> Result<Zeroizing<Vec<u8>>> {
        check_hkdf_output_len(length)?;
        let exporter_secret = self.exporter_secret.as_ref().ok_or_else(Error::internal)?;
        let mut out = Zeroizing::new(vec![0u8; length]);
        labeled_expand(
            &self.suite_id,
            &Prk::new(exporter_secret.as_ref()),
            b"sec",
            exporter_context,
            &mut out,
        )?;
        Ok(out)
    }
}

/// `SetupBaseS(pkR, info)` with a fresh ephemeral key: returns `(enc, context)`.
pub fn setup_base_s(
    pk_r: &PublicKey,
    info: &[u8],
    aead: AeadId,
) -> Result<([u8; KEM_NENC], Context)> {
    setup_base_s_with_ephemeral(pk_r, info, aead, &KeyPair::generate()?)
}

/// `SetupBaseS` with a caller-chosen ephemeral key. For known-answer vectors only: reusing an
/// ephemeral key for two messages breaks HPKE's confidentiality.
pub fn setup_base_s_with_ephemeral(
    pk_r: &PublicKey,
    info: &[u8],
    aead: AeadId,
    ephemeral: &KeyPair,
) -> Result<([u8; KEM_NENC], Context)> {
    setup_sender(pk_r, info, aead, ephemeral, Exporter::Derive)
}

fn setup_sender(
    pk_r: &PublicKey,
    info: &[u8],
    aead: AeadId,
    ephemeral: &KeyPair,
    exporter: Exporter,
) -> Result<([u8; KEM_NENC], Context)> {
    let (shared_secret, enc) = encap(pk_r, ephemeral)?;
    Ok((
        enc,
        key_schedule(aead, shared_secret.as_ref(), info, exporter)?,
    ))
}

/// `SetupBaseR(enc, skR, info)`. `enc` may be compressed or uncompressed; an `enc` that is not
/// a valid point fails as any other open failure would.
pub fn setup_base_r(enc: &[u8], sk_r: &KeyPair, info: &[u8], aead: AeadId) -> Result<Context> {
    setup_base_r_deserialized(&deserialize_enc(enc)?, sk_r, info, aead, Exporter::Derive)
}

fn setup_base_r_deserialized(
    enc: &[u8; KEM_NENC],
    sk_r: &KeyPair,
    info: &[u8],
    aead: AeadId,
    exporter: Exporter,
) -> Result<Context> {
    let shared_secret = decap(enc, sk_r).map_err(|_| Error::decryption())?;
    key_schedule(aead, shared_secret.as_ref(), info, exporter)
}

fn resolve_aad<'a>(
    aad: Aad<'a>,
    enc: &[u8; KEM_NENC],
    pk_r: &PublicKey,
    buf: &'a mut [u8; 2 * KEM_NENC],
) -> &'a [u8] {
    match aad {
        Aad::Explicit(bytes) => bytes,
        Aad::Profile => {
            *buf = kem_context(enc, pk_r);
            buf
        }
    }
}

/// Single-shot seal with AES-256-GCM: returns `(enc, ciphertext)`.
pub fn seal(
    pk_r: &PublicKey,
    info: &[u8],
    aad: Aad<'_>,
    plaintext: &[u8],
) -> Result<([u8; KEM_NENC], Vec<u8>)> {
    seal_with_ephemeral(pk_r, info, aad, plaintext, &KeyPair::generate()?)
}

/// Single-shot seal with a caller-chosen ephemeral key, for known-answer vectors only.
pub fn seal_with_ephemeral(
    pk_r: &PublicKey,
    info: &[u8],
    aad: Aad<'_>,
    plaintext: &[u8],
    ephemeral: &KeyPair,
) -> Result<([u8; KEM_NENC], Vec<u8>)> {
    let (enc, mut context) =
        setup_sender(pk_r, info, AeadId::Aes256Gcm, ephemeral, Exporter::Skip)?;
    let mut buf = [0u8; 2 * KEM_NENC];
    let ciphertext = context.seal(resolve_aad(aad, &enc, pk_r, &mut buf), plaintext)?;
    Ok((enc, ciphertext))
}

/// Single-shot open with AES-256-GCM. Every failure is [`Error::decryption`].
pub fn open(
    sk_r: &KeyPair,
    enc: &[u8],
    info: &[u8],
    aad: Aad<'_>,
    ciphertext: &[u8],
) -> Result<Zeroizing<Vec<u8>>> {
    let enc = deserialize_enc(enc)?;
    let mut context =
        setup_base_r_deserialized(&enc, sk_r, info, AeadId::Aes256Gcm, Exporter::Skip)?;
    let mut buf = [0u8; 2 * KEM_NENC];
    let aad = resolve_aad(aad, &enc, sk_r.public_key(), &mut buf);
    context
        .open(aad, ciphertext)
        .map_err(|_| Error::decryption())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profile_round_trip_and_tamper() {
        let recipient = KeyPair::generate().unwrap();
        let (enc, ct) = seal(
            recipient.public_key(),
            PROFILE_INFO,
            Aad::Profile,
            b"secret",
        )
        .unwrap();
        let pt = open(&recipient, &enc, PROFILE_INFO, Aad::Profile, &ct).unwrap();
        assert_eq!(pt.as_slice(), b"secret");
        let compressed = PublicKey::from_sec1(&enc).unwrap().compressed();
        assert_eq!(
            open(&recipient, &compressed, PROFILE_INFO, Aad::Profile, &ct)
                .unwrap()
                .as_slice(),
            b"secret"
        );
        let err = open(&recipient, &enc, PROFILE_INFO, Aad::Explicit(b""), &ct).unwrap_err();
        assert_eq!(err.code(), "DECRYPTION_FAILED");
        let err = open(&recipient, &enc[..64], PROFILE_INFO, Aad::Profile, &ct).unwrap_err();
        assert_eq!(err.code(), "DECRYPTION_FAILED");
    }

    #[test]
    fn seals_to_one_recipient_from_many_threads() {
        // The recipient's aws-lc key is shared through the ECDH key cache: every thread's
        // ciphertexts must open, and both sides of a cached ECDH agree.
        let recipient = KeyPair::generate().unwrap();
        let public = recipient.public_key().clone();
        let sealed: Vec<_> = std::thread::scope(|scope| {
            let workers: Vec<_> = (0..4u8)
                .map(|t| {
                    let public = &public;
                    scope.spawn(move || {
                        (0..25u8)
                            .map(|i| {
                                let pt = [t, i];
                                let (enc, ct) =
                                    seal(public, PROFILE_INFO, Aad::Profile, &pt).unwrap();
                                (pt, enc, ct)
                            })
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            workers
                .into_iter()
                .flat_map(|w| w.join().unwrap())
                .collect()
        });
        assert_eq!(sealed.len(), 100);
        for (pt, enc, ct) in &sealed {
            let opened = open(&recipient, enc, PROFILE_INFO, Aad::Profile, ct).unwrap();
            assert_eq!(opened.as_slice(), pt);
        }
        let other = KeyPair::generate().unwrap();
        assert_eq!(
            other.ecdh(&public).unwrap().as_slice(),
            recipient.ecdh(other.public_key()).unwrap().as_slice()
        );
    }

    #[test]
    fn context_negatives() {
        assert_eq!(
            AeadId::from_id(3).unwrap_err().code(),
            "UNSUPPORTED_ALGORITHM"
        );
        let recipient = KeyPair::generate().unwrap();
        let (enc, mut sender) =
            setup_base_s(recipient.public_key(), b"info", AeadId::Aes128Gcm).unwrap();
        let err = setup_base_r(&enc[..64], &recipient, b"info", AeadId::Aes128Gcm).unwrap_err();
        assert_eq!(err.code(), "DECRYPTION_FAILED");
        let mut receiver = setup_base_r(&enc, &recipient, b"info", AeadId::Aes128Gcm).unwrap();
        let mut ct = sender.seal(b"", b"first").unwrap();
        ct[0] ^= 1;
        assert_eq!(
            receiver.open(b"", &ct).unwrap_err().code(),
            "DECRYPTION_FAILED"
        );
        assert_eq!(
            receiver.sequence_number(),
            0,
            "a failed open must not advance"
        );
        ct[0] ^= 1;
        assert_eq!(receiver.open(b"", &ct).unwrap().as_slice(), b"first");
        let err = receiver.export(b"", 255 * 32 + 1).unwrap_err();
        assert_eq!(err.code(), "INVALID_LENGTH");
        assert_eq!(
            receiver.export(b"x", 64).unwrap().as_slice(),
            sender.export(b"x", 64).unwrap().as_slice()
        );
    }
}
