// The browser's side of blind invitation tokens (issue 20): RFC 9497's VOPRF in verifiable
// mode, ristretto255-SHA512, run by static/blind_tokens.wasm (the blind-tokens crate, no
// imports). A plain script (the CSP allows only 'self' scripts, and there is no bundler) that
// defines globalThis.DeniableTokens. Every function takes what it touches as arguments (the
// module's exports, crypto.getRandomValues), so Node.js tests run this very file.
//
// 1. `blind(exports, getRandomValues, input)`: keep `state` (secret to this device: with the
//    request it links the token to the invitation), send `blinded`.
// 2. `finalize(exports, state, evaluation, proof, publicKey)`: the proof is checked against
//    the public key the page pinned; `(input, output)` is the token.
//
// Randomness comes from crypto.getRandomValues only (32 bytes per blind, which seed ChaCha20
// in the module); it works over plain HTTP, unlike crypto.subtle. The module's buffer is
// zeroed after every call. The module's third-party licences: /static/third-party-notices.txt.
"use strict";

(function (global) {
  // The buffer layout of blind-tokens/src/abi.rs (blind-tokens/README.md).
  const SEED_AT = 0;
  const SEED_BYTES = 32;
  const BLINDED_AT = 32;
  const EVALUATION_AT = 64;
  const PROOF_AT = 96;
  const PUBLIC_KEY_AT = 160;
  const OUTPUT_AT = 192;
  const STATE_AT = 256;
  const INPUT_AT = 320;
  const BUFFER_BYTES = 576;

  const BLINDED_BYTES = 32;
  const EVALUATION_BYTES = 32;
  const PROOF_BYTES = 64;
  const PUBLIC_KEY_BYTES = 32;
  const OUTPUT_BYTES = 64;
  const STATE_HEADER_BYTES = 64;
  const INPUT_MAX_BYTES = 256;
  // A token's input: 32 random bytes, drawn by `randomInput`.
  const INPUT_BYTES = 32;

  // The module's negative return codes (blind_tokens::abi::code).
  const ERROR_CODES = {
    "-1": "input_length",
    "-2": "malformed_state",
    "-3": "malformed_evaluation",
    "-4": "malformed_proof",
    "-5": "malformed_public_key",
    "-6": "proof_rejected",
    "-7": "randomness",
  };

  function tokenError(code, message) {
    const error = new Error(message || code);
    error.name = "TokenError";
    error.code = code;
    return error;
  }

  function check(status) {
    if (status < 0) {
      const code = ERROR_CODES[String(status)] || "module_" + status;
      throw tokenError(code, "blind token: " + code.replace(/_/g, " "));
    }
    return status;
  }

  function bytesOf(value, name, min, max) {
    if (!(value instanceof Uint8Array)) throw new TypeError(name + " must be a Uint8Array");
    if (value.length < min || value.length > max) {
      throw tokenError(name === "input" ? "input_length" : "malformed_" + name,
        "blind token: " + name + " must be " + (min === max ? min : min + " to " + max) + " bytes");
    }
    return value;
  }

  /** Instantiates the module from its bytes (ArrayBuffer, Uint8Array) or its URL. */
  async function load(wasmBytesOrUrl) {
    if (typeof WebAssembly !== "object") throw new Error("WebAssembly is unavailable");
    let instance;
    if (typeof wasmBytesOrUrl === "string" || wasmBytesOrUrl instanceof URL) {
      const response = await fetch(wasmBytesOrUrl);
      if (!response.ok) throw new Error("could not load the token module: " + response.status);
      if (WebAssembly.instantiateStreaming) {
        ({ instance } = await WebAssembly.instantiateStreaming(response, {}));
      } else {
        ({ instance } = await WebAssembly.instantiate(await response.arrayBuffer(), {}));
      }
    } else {
      ({ instance } = await WebAssembly.instantiate(wasmBytesOrUrl, {}));
    }
    return instance.exports;
  }

  // A fresh view each call: the memory's buffer is replaced if it ever grows.
  function view(exports) {
    return new Uint8Array(exports.memory.buffer, exports.bt_buffer(), BUFFER_BYTES);
  }

  /** Blinds `input` (1 to 256 bytes); returns copies of the state to keep and the element to send. */
  function blind(exports, getRandomValues, input) {
    bytesOf(input, "input", 1, INPUT_MAX_BYTES);
    const seed = new Uint8Array(SEED_BYTES);
    getRandomValues(seed);
    const buffer = view(exports);
    try {
      buffer.set(seed, SEED_AT);
      buffer.set(input, INPUT_AT);
      const stateLength = check(exports.bt_blind(input.length));
      return {
        state: buffer.slice(STATE_AT, STATE_AT + stateLength),
        blinded: buffer.slice(BLINDED_AT, BLINDED_AT + BLINDED_BYTES),
      };
    } finally {
      seed.fill(0);
      buffer.fill(0);
    }
  }

  /** Checks the proof against `publicKey` and unblinds: the 64-byte output of the token. */
  function finalize(exports, state, evaluation, proof, publicKey) {
    bytesOf(state, "state", STATE_HEADER_BYTES + 1, STATE_HEADER_BYTES + INPUT_MAX_BYTES);
    bytesOf(evaluation, "evaluation", EVALUATION_BYTES, EVALUATION_BYTES);
    bytesOf(proof, "proof", PROOF_BYTES, PROOF_BYTES);
    bytesOf(publicKey, "public_key", PUBLIC_KEY_BYTES, PUBLIC_KEY_BYTES);
    const buffer = view(exports);
    try {
      buffer.set(state, STATE_AT);
      buffer.set(evaluation, EVALUATION_AT);
      buffer.set(proof, PROOF_AT);
      buffer.set(publicKey, PUBLIC_KEY_AT);
      check(exports.bt_finalize(state.length));
      return buffer.slice(OUTPUT_AT, OUTPUT_AT + OUTPUT_BYTES);
    } finally {
      buffer.fill(0);
    }
  }

  /** The PRF input of a new token: 32 bytes of getRandomValues. */
  function randomInput(getRandomValues) {
    const input = new Uint8Array(INPUT_BYTES);
    getRandomValues(input);
    return input;
  }

  /** The token's input as it is stored by the state: the bytes after its 64-byte header. */
  function inputOf(state) {
    bytesOf(state, "state", STATE_HEADER_BYTES + 1, STATE_HEADER_BYTES + INPUT_MAX_BYTES);
    return state.slice(STATE_HEADER_BYTES);
  }

  const BASE64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

  /** base64url without padding (RFC 4648, section 5), the API's encoding of bytes. */
  function base64url(bytes) {
    let text = "";
    for (let i = 0; i < bytes.length; i += 3) {
      const chunk = (bytes[i] << 16) | ((bytes[i + 1] || 0) << 8) | (bytes[i + 2] || 0);
      const chars = Math.min(4, Math.ceil(((bytes.length - i) * 8) / 6));
      for (let c = 0; c < chars; c++) text += BASE64URL[(chunk >> (18 - 6 * c)) & 63];
    }
    return text;
  }

  /** The bytes of base64url text without padding; anything else (padding, '+', stray bits) throws. */
  function fromBase64url(text) {
    if (typeof text !== "string" || !/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) {
      throw tokenError("base64", "blind token: not base64url without padding");
    }
    const bytes = new Uint8Array(Math.floor((text.length * 6) / 8));
    let bits = 0;
    let value = 0;
    let at = 0;
    for (const char of text) {
      value = (value << 6) | BASE64URL.indexOf(char);
      bits += 6;
      if (bits >= 8) {
        bits -= 8;
        bytes[at++] = (value >> bits) & 255;
      }
      value &= (1 << bits) - 1;
    }
    // One text per byte string: the bits left over must be zero.
    if (value !== 0) throw tokenError("base64", "blind token: not canonical base64url");
    return bytes;
  }

  global.DeniableTokens = {
    load,
    blind,
    finalize,
    randomInput,
    inputOf,
    base64url,
    fromBase64url,
    INPUT_BYTES,
    INPUT_MAX_BYTES,
  };
})(globalThis);
