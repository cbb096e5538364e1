// The sandbox page: a second, independent client of the wire formats (docs/formats.md),
// written with nothing but the browser's WebAuthn and WebCrypto. It registers a passkey, logs
// in with it, opens the session key, pays a quote from the embedded wallet (the quote's
// payloadToSign stamped in the browser), and stamps signed retries (export, then revoke).
//
// The exported functions are the formats the page needs and nothing more: base58check
// (section 3), the HPKE open of section 1, P-256 point decompression, the stamp (section 4), and
// the check of a quote's payloadToSign (section 5) before the page stamps it.

const enc = new TextEncoder();
const subtle = crypto.subtle;

// ---- bytes ---------------------------------------------------------------------------------

export const hex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
export const unhex = (text) => Uint8Array.from(text.match(/../g) || [], (h) => parseInt(h, 16));
export const b64url = (bytes) =>
  btoa(String.fromCharCode(...new Uint8Array(bytes)))
    .replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
export const unb64url = (text) =>
  Uint8Array.from(atob(text.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0));
const concat = (...parts) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) { out.set(p, at); at += p.length; }
  return out;
};
const sha256 = async (bytes) => new Uint8Array(await subtle.digest("SHA-256", bytes));
const toBigInt = (bytes) => BigInt("0x" + (hex(bytes) || "0"));
const fromBigInt = (n, length) => unhex(n.toString(16).padStart(length * 2, "0"));

// ---- base58check (formats.md section 3: no version byte, 4-byte double SHA-256 checksum) ----

const ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";

export async function b58checkDecode(text) {
  let n = 0n;
  for (const c of text) {
    const digit = ALPHABET.indexOf(c);
    if (digit < 0) throw new Error("not base58: " + JSON.stringify(c));
    n = n * 58n + BigInt(digit);
  }
  const zeros = text.length - text.replace(/^1+/, "").length;
  const digits = n === 0n ? "" : n.toString(16);
  const body = unhex(digits.length % 2 ? "0" + digits : digits);
  const raw = concat(new Uint8Array(zeros), body);
  if (raw.length < 4) throw new Error("base58check: too short");
  const payload = raw.slice(0, -4);
  const check = (await sha256(await sha256(payload))).slice(0, 4);
  if (hex(check) !== hex(raw.slice(-4))) throw new Error("base58check: wrong checksum");
  return payload;
}

// ---- P-256 -------------------------------------------------------------------------------

const P = 0xffffffff00000001000000000000000000000000ffffffffffffffffffffffffn;
const B = 0x5ac635d8aa3a93e7b3ebbd55769886bc651d06b0cc53b0f63bce3c3e27d2604bn;
const modpow = (base, exp, m) => {
  let result = 1n;
  for (base %= m; exp > 0n; exp >>= 1n, base = (base * base) % m) {
    if (exp & 1n) result = (result * base) % m;
  }
  return result;
};

// A 33-byte compressed point (02/03 || x) to its 65-byte uncompressed form (04 || x || y).
export function decompress(point) {
  if (point.length !== 33 || (point[0] !== 2 && point[0] !== 3)) throw new Error("not a compressed point");
  const x = toBigInt(point.slice(1));
  if (x >= P) throw new Error("not a point");
  const y2 = (x * x * x - 3n * x + B) % P;
  let y = modpow(y2, (P + 1n) / 4n, P); // p = 3 mod 4
  if ((y * y) % P !== y2) throw new Error("not a point");
  if ((y & 1n) !== BigInt(point[0] & 1)) y = P - y;
  return concat([4], point.slice(1), fromBigInt(y, 32));
}

export const compress = (point) => concat([2 + (point[64] & 1)], point.slice(1, 33));

// A fresh P-256 key pair for ECDH (the clientPublicKey of formats.md section 2), with its
// uncompressed public key bytes.
export async function newClientKey() {
  const keys = await subtle.generateKey({ name: "ECDH", namedCurve: "P-256" }, false, ["deriveBits"]);
  const publicKey = new Uint8Array(await subtle.exportKey("raw", keys.publicKey));
  return { privateKey: keys.privateKey, publicKey };
}

// A raw 32-byte P-256 scalar as a WebCrypto key (PKCS#8 without the optional public key; the
// browser computes it), with its uncompressed public key.
export async function importScalar(scalar, usage) {
  const der = concat(
    unhex("3041020100301306072a8648ce3d020106082a8648ce3d030107042730250201010420"), scalar);
  const alg = usage === "sign" ? { name: "ECDSA", namedCurve: "P-256" } : { name: "ECDH", namedCurve: "P-256" };
  const key = await subtle.importKey("pkcs8", der, alg, true, usage === "sign" ? ["sign"] : ["deriveBits"]);
  const jwk = await subtle.exportKey("jwk", key);
  const publicKey = concat([4], unb64url(jwk.x), unb64url(jwk.y));
  return { privateKey: key, publicKey };
}

// ---- HPKE open (formats.md section 1): DHKEM(P-256, HKDF-SHA256), HKDF-SHA256, AES-256-GCM ----

const hmac = async (key, data) => {
  const k = await subtle.importKey("raw", key.length ? key : new Uint8Array(32),
    { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return new Uint8Array(await subtle.sign("HMAC", k, data));
};
const i2osp = (n, length) => fromBigInt(BigInt(n), length);
const labeledExtract = (suite, salt, label, ikm) =>
  hmac(salt, concat(enc.encode("HPKE-v1"), suite, enc.encode(label), ikm));
// HKDF-Expand for L <= 32: one HMAC block.
const labeledExpand = async (suite, prk, label, info, length) =>
  (await hmac(prk, concat(i2osp(length, 2), enc.encode("HPKE-v1"), suite, enc.encode(label), info, [1])))
    .slice(0, length);

const KEM_SUITE = concat(enc.encode("KEM"), i2osp(0x10, 2));
const HPKE_SUITE = concat(enc.encode("HPKE"), i2osp(0x10, 2), i2osp(1, 2), i2osp(2, 2));
export const INFO = enc.encode("turnkey_hpke");

// Opens `ciphertext` sealed to `recipient` ({privateKey (ECDH CryptoKey), publicKey (65 bytes)})
// with the 65-byte `encapped` key. The profile's AAD is encapped || recipient public key.
export async function hpkeOpen(recipient, encapped, ciphertext) {
  const pkE = await subtle.importKey("raw", encapped, { name: "ECDH", namedCurve: "P-256" }, false, []);
  const dh = new Uint8Array(await subtle.deriveBits({ name: "ECDH", public: pkE }, recipient.privateKey, 256));
  const kemContext = concat(encapped, recipient.publicKey);
  const eaePrk = await labeledExtract(KEM_SUITE, new Uint8Array(), "eae_prk", dh);
  const shared = await labeledExpand(KEM_SUITE, eaePrk, "shared_secret", kemContext, 32);
  const pskIdHash = await labeledExtract(HPKE_SUITE, new Uint8Array(), "psk_id_hash", new Uint8Array());
  const infoHash = await labeledExtract(HPKE_SUITE, new Uint8Array(), "info_hash", INFO);
  const context = concat([0], pskIdHash, infoHash);
  const secret = await labeledExtract(HPKE_SUITE, shared, "secret", new Uint8Array());
  const key = await labeledExpand(HPKE_SUITE, secret, "key", context, 32);
  const nonce = await labeledExpand(HPKE_SUITE, secret, "base_nonce", context, 12);
  const aes = await subtle.importKey("raw", key, "AES-GCM", false, ["decrypt"]);
  return new Uint8Array(await subtle.decrypt(
    { name: "AES-GCM", iv: nonce, additionalData: kemContext }, aes, ciphertext));
}

// encryptedSessionSigningKey (formats.md section 3) -> the session key, ready to sign.
export async function openSessionKey(encrypted, client) {
  const payload = await b58checkDecode(encrypted);
  if (payload.length !== 81) throw new Error("encryptedSessionSigningKey: not 81 bytes");
  const scalar = await hpkeOpen(client, decompress(payload.slice(0, 33)), payload.slice(33));
  return importScalar(scalar, "sign");
}

// An export envelope (formats.md section 8) -> the plaintext (the mnemonic, as text). The page
// is a developer tool: it shows whether the envelope is signed but pins no signer.
export async function openExportEnvelope(text, client) {
  const envelope = JSON.parse(text);
  const data = JSON.parse(new TextDecoder().decode(unhex(envelope.data)));
  const plaintext = await hpkeOpen(client, unhex(data.encappedPublic), unhex(data.ciphertext));
  return { signed: envelope.dataSignature !== "", organizationId: data.organizationId,
    plaintext: new TextDecoder().decode(plaintext) };
}

// ---- the stamp (formats.md section 4) -------------------------------------------------------

// WebCrypto's ECDSA signature is r || s (32 bytes each); the stamp wants strict DER.
export function derSignature(raw) {
  const integer = (bytes) => {
    let i = 0;
    while (i < bytes.length - 1 && bytes[i] === 0) i++;
    const v = bytes.slice(i);
    const body = v[0] & 0x80 ? concat([0], v) : v;
    return concat([2, body.length], body);
  };
  const seq = concat(integer(raw.slice(0, 32)), integer(raw.slice(32)));
  return concat([0x30, seq.length], seq);
}

export async function createStamp(session, payloadToSign) {
  const raw = new Uint8Array(await subtle.sign(
    { name: "ECDSA", hash: "SHA-256" }, session.privateKey, enc.encode(payloadToSign)));
  const stamp = JSON.stringify({
    publicKey: hex(compress(session.publicKey)),
    scheme: "SIGNATURE_SCHEME_TK_API_P256",
    signature: hex(derSignature(raw)),
  });
  return b64url(enc.encode(stamp));
}

// ---- a quote's payloadToSign (formats.md section 5) ------------------------------------------

// Refuses to stamp a quote's payloadToSign that is not this quote from this wallet: it must be
// the SIGN_TRANSACTION_V2 activity with `signWith` the wallet, and its `unsignedTransaction`
// (here, the hex of the sandbox's JSON summary of the quote) must name this quote, its amounts,
// currencies and destination. Returns the decoded summary (what the stamp approves).
export function checkQuotePayload(payloadToSign, quote, accountId) {
  const refuse = (why) => { throw new Error("payloadToSign is not this quote: " + why); };
  let payload;
  try { payload = JSON.parse(payloadToSign); } catch { refuse("not JSON"); }
  if (payload?.type !== "ACTIVITY_TYPE_SIGN_TRANSACTION_V2") refuse("not a SIGN_TRANSACTION_V2 activity");
  const parameters = payload.parameters || {};
  if (parameters.signWith !== accountId) refuse("signWith is not this wallet");
  const unsigned = String(parameters.unsignedTransaction || "");
  if (!/^([0-9a-f]{2})+$/.test(unsigned)) refuse("unsignedTransaction is not hex");
  let summary;
  try {
    summary = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(unhex(unsigned)));
  } catch { refuse("unsignedTransaction is not a quote summary"); }
  const expected = {
    quoteId: quote.id,
    sendingCurrency: quote.sendingCurrency?.code,
    totalSendingAmount: quote.totalSendingAmount,
    receivingCurrency: quote.receivingCurrency?.code,
    totalReceivingAmount: quote.totalReceivingAmount,
  };
  for (const [name, value] of Object.entries(expected)) {
    if (value === undefined || summary?.[name] !== value) refuse(`${name} differs`);
  }
  if (summary.destination?.accountId !== quote.destination?.accountId) refuse("destination differs");
  return summary;
}

// ---- the page ------------------------------------------------------------------------------

const BASE = "/2025-10-13";
const FINAL = ["COMPLETED", "FAILED", "REJECTED", "REFUNDED", "EXPIRED"];
const state = {};
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// Every call carries the platform credentials (HTTP Basic; see "The page's own choices" in the
// docs). A failed call throws an Error in words: the service's reason, status and code.
// `credentials: "omit"`: the page sends its own Authorization header, so a 401 must come back to
// the page, not open the browser's own login dialog (which would leave the step waiting).
async function call(method, path, body, headers = {}) {
  let response;
  try {
    response = await fetch(BASE + path, {
      method, credentials: "omit",
      headers: { Authorization: "Basic " + btoa(state.credentials), ...headers,
        ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new Error(`The service did not answer ${method} ${path}: is ewc serve still running?`);
  }
  const text = await response.text();
  if (!response.ok) {
    const error = new Error(describeFailure(method, path, response.status, text));
    error.status = response.status;
    throw error;
  }
  return { status: response.status, json: text ? JSON.parse(text) : null };
}

// "The service refused ...: <reason> (401 UNAUTHORIZED)" from an error answer.
export function describeFailure(method, path, status, text) {
  let reason = text, code = "";
  try {
    const body = JSON.parse(text);
    if (body && typeof body.reason === "string") ({ reason, code } = body);
  } catch { /* not the error shape: show the text as it came */ }
  const where = `${method} ${path} answered ${status}${code ? " " + code : ""}`;
  if (status === 401 && /platform credentials|Basic/i.test(reason)) {
    return "The service refused the platform credentials: paste the ID:SECRET that ewc serve " +
      `printed at its first start (or the one given to --platform-credentials). ${where}: ${reason}`;
  }
  return `${reason} (${where})`;
}

// A step that needs an earlier one says which, in words.
function need(value, message) {
  if (value === undefined || value === null) throw new Error(message);
  return value;
}

// WebAuthn refuses IP addresses as relying parties: say where the page works instead.
export function passkeyHostProblem(hostname, port) {
  const ip = /^[0-9.]+$/.test(hostname) || hostname.includes(":") || hostname.startsWith("[");
  if (!ip) return null;
  return `Passkeys need a domain name, not the address ${hostname}: open ` +
    `http://localhost${port ? ":" + port : ""}/ (the relying party of ewc serve is localhost ` +
    "unless --rp-id says otherwise).";
}

function checkPasskeyHost() {
  const problem = passkeyHostProblem(location.hostname, location.port);
  if (problem) throw new Error(problem);
}

// A signed retry: the first call gets payloadToSign, the retry carries the stamp.
async function signedRetry(method, path, body) {
  const first = await call(method, path, body);
  if (first.status !== 202) throw new Error(`${method} ${path}: expected 202, got ${first.status}`);
  const { payloadToSign, requestId } = first.json;
  const stamp = await createStamp(state.session, payloadToSign);
  const retry = await call(method, path, body,
    { "Service-Wallet-Signature": stamp, "Request-Id": requestId });
  return { payloadToSign, stamp, ...retry };
}

// An amount in smallest units, from an input field.
function amountOf(id) {
  const text = document.getElementById(id).value.trim();
  if (!/^[1-9][0-9]{0,15}$/.test(text) || BigInt(text) > 9000000000000000n) {
    throw new Error(`${id}: a whole number of smallest units, 1 to 9000000000000000`);
  }
  return Number(text);
}

// "12.345600 USDC" from {amount, currency: {code, decimals}}.
export function formatAmount(amount, currency) {
  const digits = BigInt(amount).toString().padStart(currency.decimals + 1, "0");
  const whole = digits.slice(0, digits.length - currency.decimals);
  const fraction = currency.decimals ? "." + digits.slice(-currency.decimals) : "";
  return `${whole}${fraction} ${currency.code}`;
}

async function walletAccount() {
  const { json } = await call("GET", `/customers/internal-accounts?customerId=${encodeURIComponent(state.customerId)}` +
    "&type=EMBEDDED_WALLET");
  const account = json.data.find((a) => a.id === state.accountId);
  if (!account) throw new Error("the wallet is not among the customer's accounts");
  return { accountId: account.id, type: account.type, amount: account.balance.amount,
    balance: formatAmount(account.balance.amount, account.balance.currency) };
}

const steps = {
  async account() {
    state.credentials = document.getElementById("credentials").value.trim();
    if (!/^[^:\s]+:\S+$/.test(state.credentials)) {
      throw new Error("Paste the platform credentials first: ID:SECRET, as ewc serve printed " +
        "them at its first start (or as given to --platform-credentials).");
    }
    const customer = await call("POST", "/customers", {
      customerType: "INDIVIDUAL", platformCustomerId: "page-" + hex(crypto.getRandomValues(new Uint8Array(6))),
      currencies: ["USD"] });
    const accounts = await call("GET",
      `/customers/internal-accounts?customerId=${encodeURIComponent(customer.json.id)}&type=EMBEDDED_WALLET`);
    state.customerId = customer.json.id;
    state.accountId = accounts.json.data[0].id;
    return { customerId: customer.json.id, accountId: state.accountId };
  },
  async register() {
    need(state.accountId, "Create a customer first (step 1): the passkey is registered on its wallet.");
    checkPasskeyHost();
    // The registration challenge is the platform's to issue; in this page the page is the
    // platform (it holds the platform credentials), so it makes 32 random bytes itself.
    const challenge = crypto.getRandomValues(new Uint8Array(32));
    const created = await navigator.credentials.create({ publicKey: {
      challenge,
      rp: { id: location.hostname, name: "ewc sandbox" },
      user: { id: enc.encode(state.accountId), name: state.accountId, displayName: "Sandbox user" },
      pubKeyCredParams: [{ type: "public-key", alg: -7 }],
      authenticatorSelection: { residentKey: "preferred", userVerification: "preferred" },
    } });
    const response = await call("POST", "/auth/credentials", {
      type: "PASSKEY", accountId: state.accountId, nickname: "sandbox page", challenge: b64url(challenge),
      attestation: { credentialId: created.id, clientDataJson: b64url(created.response.clientDataJSON),
        attestationObject: b64url(created.response.attestationObject),
        transports: created.response.getTransports() } });
    state.credential = response.json;
    state.credentialRawId = new Uint8Array(created.rawId);
    return response.json;
  },
  async login() {
    need(state.credential, "Register a passkey first (step 2): the login uses it.");
    checkPasskeyHost();
    const client = await newClientKey();
    const { json } = await call("POST", `/auth/credentials/${encodeURIComponent(state.credential.id)}/challenge`,
      { clientPublicKey: hex(client.publicKey) });
    const assertion = await navigator.credentials.get({ publicKey: {
      challenge: unb64url(json.challenge), rpId: location.hostname,
      allowCredentials: [{ type: "public-key", id: state.credentialRawId }],
    } });
    const r = assertion.response;
    const verified = await call("POST", `/auth/credentials/${encodeURIComponent(state.credential.id)}/verify`, {
      type: "PASSKEY", assertion: { credentialId: assertion.id, clientDataJson: b64url(r.clientDataJSON),
        authenticatorData: b64url(r.authenticatorData), signature: b64url(r.signature),
        ...(r.userHandle ? { userHandle: b64url(r.userHandle) } : {}) } },
      { "Request-Id": json.requestId });
    state.client = client;
    state.sessionInfo = verified.json;
    return verified.json;
  },
  async open() {
    need(state.sessionInfo, "Log in first (step 3): the session key comes with the login.");
    state.session = await openSessionKey(state.sessionInfo.encryptedSessionSigningKey, state.client);
    return { sessionPublicKey: hex(compress(state.session.publicKey)) };
  },
  async balance() {
    need(state.accountId, "Create a customer first (step 1).");
    return walletAccount();
  },
  async fund() {
    need(state.accountId, "Create a customer first (step 1).");
    // A platform call, and a sandbox-only one: in production the service answers 403.
    try {
      await call("POST", `/sandbox/internal-accounts/${encodeURIComponent(state.accountId)}/fund`,
        { amount: amountOf("fund-amount") });
    } catch (error) {
      if (error.status === 403) {
        throw new Error("Funding is sandbox-only: this service runs in production, where money " +
          "reaches the wallet through real payments. " + error.message);
      }
      throw error;
    }
    return walletAccount();
  },
  async quote() {
    need(state.accountId, "Create a customer first (step 1).");
    const { json: fiat } = await call("GET", `/customers/internal-accounts?customerId=${encodeURIComponent(state.customerId)}` +
      "&type=INTERNAL_FIAT&currency=USD");
    if (!fiat.data.length) throw new Error("the customer has no USD account to pay into");
    const destination = fiat.data[0].id;
    const { json: quote } = await call("POST", "/quotes", {
      source: { sourceType: "ACCOUNT", accountId: state.accountId },
      destination: { destinationType: "ACCOUNT", accountId: destination },
      lockedCurrencySide: "RECEIVING", lockedCurrencyAmount: amountOf("quote-amount"),
      description: "sandbox page" });
    state.quote = quote;
    const instruction = (quote.paymentInstructions || []).find((i) => "payloadToSign" in i);
    return { id: quote.id, status: quote.status, expiresAt: quote.expiresAt, destination,
      sending: formatAmount(quote.totalSendingAmount, quote.sendingCurrency),
      receiving: formatAmount(quote.totalReceivingAmount, quote.receivingCurrency),
      fees: formatAmount(quote.feesIncluded, quote.sendingCurrency),
      transactionId: quote.transactionId, payloadToSign: instruction?.payloadToSign ?? null };
  },
  async execute(show) {
    const quote = need(state.quote, "Create a quote first (step 7).");
    need(state.session, "Open the session key first (step 4): it stamps the quote.");
    const instruction = (quote.paymentInstructions || []).find((i) => "payloadToSign" in i);
    if (!instruction) throw new Error("the quote's payment instructions carry no payloadToSign");
    const payloadToSign = instruction.payloadToSign;
    const summary = checkQuotePayload(payloadToSign, quote, state.accountId);
    // The stamp is over exactly the bytes the service gave (formats.md section 4).
    const stamp = await createStamp(state.session, payloadToSign);
    const executed = await call("POST", `/quotes/${encodeURIComponent(quote.id)}/execute`, undefined,
      { "Service-Wallet-Signature": stamp, "Idempotency-Key": "page-execute-" + quote.id });
    const result = { quoteId: quote.id, quoteStatus: executed.json.status, payloadToSign, signed: summary,
      stamp, transactionId: executed.json.transactionId, statuses: [] };
    // Follow the transaction until it settles (the service's worker moves it).
    for (let polls = 0; polls < 600; polls++) {
      const { json: transaction } = await call("GET", `/transactions/${encodeURIComponent(result.transactionId)}`);
      if (result.statuses.at(-1) !== transaction.status) result.statuses.push(transaction.status);
      result.status = transaction.status;
      if (transaction.failureReason) result.failureReason = transaction.failureReason;
      show(result);
      if (FINAL.includes(transaction.status)) break;
      await sleep(250);
    }
    result.wallet = await walletAccount();
    return result;
  },
  async export() {
    need(state.session, "Log in and open the session key first (steps 3 and 4): the export is a signed retry.");
    const client = await newClientKey();
    const clientPublicKey = hex(client.publicKey);
    const first = await call("POST", `/internal-accounts/${encodeURIComponent(state.accountId)}/export`,
      { clientPublicKey });
    // Refuse to stamp a payload bound to any other key (formats.md section 5).
    if (JSON.parse(first.json.payloadToSign).parameters.targetPublicKey !== clientPublicKey) {
      throw new Error("payloadToSign is not bound to this page's key");
    }
    const stamp = await createStamp(state.session, first.json.payloadToSign);
    const retry = await call("POST", `/internal-accounts/${encodeURIComponent(state.accountId)}/export`,
      { clientPublicKey }, { "Service-Wallet-Signature": stamp, "Request-Id": first.json.requestId });
    const opened = await openExportEnvelope(retry.json.encryptedWalletCredentials, client);
    return { status: retry.status, stamp, ...opened };
  },
  async revoke() {
    need(state.session, "Log in and open the session key first (steps 3 and 4).");
    const retry = await signedRetry("DELETE", `/auth/sessions/${encodeURIComponent(state.sessionInfo.id)}`);
    return { status: retry.status, payloadToSign: retry.payloadToSign, stamp: retry.stamp };
  },
};

// Runs one step and shows its result (or its error) under its button.
export async function run(name) {
  const out = document.getElementById("out-" + name);
  out.className = "running";
  out.textContent = "…";
  // A step that takes a while shows where it is (the class stays "running").
  const show = (value) => { out.textContent = JSON.stringify(value, null, 2); };
  try {
    const result = await steps[name](show);
    out.className = "ok";
    out.textContent = JSON.stringify(result, null, 2);
    return result;
  } catch (error) {
    out.className = "error";
    out.textContent = error instanceof Error ? error.message : String(error);
    throw error;
  }
}

// On an IP address the passkey steps cannot work: say so before the user tries them.
const hostProblem = passkeyHostProblem(location.hostname, location.port);
if (hostProblem && document.getElementById("host-warning")) {
  const warning = document.getElementById("host-warning");
  warning.textContent = hostProblem;
  warning.hidden = false;
}

for (const button of document.querySelectorAll("button[data-step]")) {
  button.addEventListener("click", () => run(button.dataset.step).catch(() => {}));
}
