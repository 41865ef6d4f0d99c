// Deniable's respondent logic without the page: drawing the receipt, the response id,
// randomizing, the state kept in localStorage and sending with automatic retries. A plain
// script (the CSP allows only 'self' scripts, and there is no bundler) that defines
// globalThis.DeniableCore. Every function takes what it touches as arguments (fetch, the
// storage, crypto.getRandomValues, the WebAssembly exports and how many records they hold,
// sleep, a clock), so the tests
// run this very file in Node.js for hundreds of simulated devices.
//
// Privacy (DESIGN invariants 1, 2, 6, 9, 10): true answers only pass through `prepare` into
// the mechanism's buffer, which is zeroed; what is stored is the reports, the response id and,
// until the server acknowledges it, the pending body with its receipt; for a survey that
// requires invitations, the redemption state until the server answers it and then the
// unspent token until the response that spends it is acknowledged (see `redeem`). Randomness comes from
// crypto.getRandomValues only, for the coins, the receipt and the backoff jitter alike.
//
// Answers, for `randomize` and `prepare`: an array in question order of
//   { question, truth }
// where `question` is the question's object from the public definition
// (GET /api/surveys/{slug}, `questions[i]`, with its `id`, `type` and `design` and the
// design's parameters) and `truth` is the true answer:
//   type "yes_no", design "mirrored" (epsilon), "forced_response" (answer_truthfully,
//     forced_yes, forced_no) or "unrelated_question" (answer_truthfully, innocuous_yes):
//     0 = No, 1 = Yes;
//   type "choice" or "ordinal", design "k_ary" (options, epsilon): the option's index;
//   type "number", design "two_ends" (min, max, epsilon): the number, min <= truth <= max.
// Reports come back as integers: 0/1 for yes/no (1 = Yes) and for a number (0 = the min
// end, 1 = the max end), the option's index for choice and ordinal. Any other type or design
// is refused before anything is drawn. The module's records are laid out in
// randomized-response/src/abi.rs (the crate's README, "WebAssembly ABI").
"use strict";

(function (global) {
  const SEED_BYTES = 32; // the device's half of the mechanism's seed
  const RECEIPT_BYTES = 32; // 43 characters of base64url without padding
  const DIGEST_BYTES = 32;
  const INPUT_OFFSET = 64; // after device bytes [0, 32) and server nonce [32, 64)
  // A question's record in the module's buffer (randomized-response/src/abi.rs): the kind
  // byte at +0, options at +1, the truth's index at +2, the report (written) at +3, then
  // f64 parameters at +8, +16, +24 and a number's value at +32; unused bytes stay zero.
  const RECORD_BYTES = 40;
  const OPTIONS_AT = 1;
  const TRUTH_AT = 2;
  const REPORT_AT = 3;
  const PARAMETERS_AT = 8;
  const VALUE_AT = 32;
  const KIND_K_ARY = 3;
  const KIND_NUMBER = 4;
  // The kind byte and the parameters, in record order, of each type and design.
  const DESIGNS = {
    "yes_no mirrored": { kind: 0, parameters: ["epsilon"] },
    "yes_no forced_response": { kind: 1, parameters: ["answer_truthfully", "forced_yes", "forced_no"] },
    "yes_no unrelated_question": { kind: 2, parameters: ["answer_truthfully", "innocuous_yes"] },
    "choice k_ary": { kind: KIND_K_ARY, parameters: ["epsilon"] },
    "ordinal k_ary": { kind: KIND_K_ARY, parameters: ["epsilon"] },
    "number two_ends": { kind: KIND_NUMBER, parameters: ["epsilon", "min", "max"] },
  };
  const MAX_REPORT = 19; // a choice or ordinal question has at most 20 options
  // What the module's negative statuses mean (randomized-response/src/abi.rs, AbiError).
  const REFUSALS = {
    "-1": "the number of questions is more than the module holds",
    "-2": "a question's design parameters were refused",
    "-3": "a true answer is not one of its question's answers",
    "-5": "a number is outside its question's bounds",
    "-6": "a question's record is malformed",
  };
  const STORAGE_PREFIX = "deniable:";
  const RECEIPT_PATTERN = /^[A-Za-z0-9_-]{43}$/;
  const RESPONSE_ID_PATTERN = /^[0-9a-f]{64}$/;

  // Backoff with full jitter: the k-th retry waits a uniform time in [0, min(cap, base·2^(k-1))],
  // on top of any Retry-After. With a 16 s cap a device whose first try is refused is
  // stored well within a minute once the server has room, and a crowd behind one address
  // spreads out instead of returning in step.
  const BACKOFF_BASE_MS = 1000;
  const BACKOFF_CAP_MS = 16000;

  // Statuses after which the same body may succeed later: the server was busy or failing.
  function isTransient(status) {
    return status === 408 || status === 429 || status >= 500;
  }

  function storageKey(slug) {
    return STORAGE_PREFIX + slug;
  }

  const BASE64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

  function base64url(bytes) {
    let text = "";
    for (let i = 0; i < bytes.length; i += 3) {
      const chunk = (bytes[i] << 16) | ((bytes[i + 1] || 0) << 8) | (bytes[i + 2] || 0);
      const chars = Math.min(4, Math.ceil(((bytes.length - i) * 8) / 6));
      for (let c = 0; c < chars; c++) text += BASE64URL[(chunk >> (18 - 6 * c)) & 63];
    }
    return text;
  }

  function hex(bytes) {
    let text = "";
    for (const byte of bytes) text += (byte < 16 ? "0" : "") + byte.toString(16);
    return text;
  }

  function hexToBytes(text, length) {
    if (typeof text !== "string" || text.length !== 2 * length || !/^[0-9a-f]*$/.test(text)) {
      throw new Error("malformed hex from the server");
    }
    const bytes = new Uint8Array(length);
    for (let i = 0; i < length; i++) bytes[i] = parseInt(text.substr(2 * i, 2), 16);
    return bytes;
  }

  /** A fresh receipt: 32 bytes from getRandomValues, base64url without padding (43 chars). */
  function drawReceipt(getRandomValues) {
    const bytes = new Uint8Array(RECEIPT_BYTES);
    getRandomValues(bytes);
    const receipt = base64url(bytes);
    bytes.fill(0);
    return receipt;
  }

  function isReceipt(text) {
    return typeof text === "string" && RECEIPT_PATTERN.test(text);
  }

  /**
   * The response id of a receipt: lowercase hex SHA-256 of its 43 ASCII characters,
   * computed by the WebAssembly module (crypto.subtle is missing on plain HTTP).
   */
  function responseIdOf(mechanism, receipt) {
    if (!isReceipt(receipt)) throw new Error("not a receipt");
    const base = mechanism.rr_buffer();
    let buffer = new Uint8Array(mechanism.memory.buffer, base, RECEIPT_BYTES + 16);
    for (let i = 0; i < receipt.length; i++) buffer[i] = receipt.charCodeAt(i);
    const status = mechanism.rr_sha256(receipt.length);
    buffer = new Uint8Array(mechanism.memory.buffer, base, RECEIPT_BYTES + 16); // memory may have grown
    const digest = hex(buffer.subarray(0, DIGEST_BYTES));
    buffer.fill(0); // the receipt is a secret: leave no copy in the module
    if (status !== DIGEST_BYTES) throw new Error("the mechanism refused to hash (" + status + ")");
    return digest;
  }

  /**
   * Writes one question's record at `at` (zeroed first): its kind and parameters from the
   * definition's question, and its truth. Throws on a type or design this code does not
   * know, a parameter that is not a number, or a truth of the wrong kind; the module checks
   * the values themselves.
   */
  function writeRecord(view, at, question, truth) {
    const design = question && DESIGNS[question.type + " " + question.design];
    const name = "question " + (question && question.id);
    if (!design) {
      throw new Error(name + ": unsupported type " + (question && question.type) +
        " with design " + (question && question.design));
    }
    for (let i = 0; i < RECORD_BYTES; i++) view.setUint8(at + i, 0);
    view.setUint8(at, design.kind);
    design.parameters.forEach(function (field, i) {
      if (typeof question[field] !== "number") throw new Error(name + ": " + field + " is not a number");
      view.setFloat64(at + PARAMETERS_AT + 8 * i, question[field], true);
    });
    if (design.kind === KIND_NUMBER) {
      if (typeof truth !== "number") throw new Error(name + ": the answer is not a number");
      view.setFloat64(at + VALUE_AT, truth, true);
      return;
    }
    // Bytes hold 0 to 255: anything else would wrap into another answer or option count.
    if (!Number.isInteger(truth) || truth < 0 || truth > 255) {
      throw new Error(name + ": the answer is not an answer's index");
    }
    view.setUint8(at + TRUTH_AT, truth);
    if (design.kind === KIND_K_ARY) {
      if (!Array.isArray(question.options) || question.options.length > 255) {
        throw new Error(name + ": options is not a list of at most 255");
      }
      view.setUint8(at + OPTIONS_AT, question.options.length);
    }
  }

  /**
   * answers: [{ question, truth }] in question order (see the header) → reports, integers
   * in the same order. The device's 32 bytes come from getRandomValues and are mixed with
   * the server's nonce by the module; every question takes its design's draws in order
   * (one for yes/no, choice and ordinal, two for a number). maxQuestions: the records the
   * module's buffer holds (the page's data-max-questions, from the server's crate).
   */
  function randomize(mechanism, getRandomValues, nonceHex, answers, maxQuestions) {
    const nonce = hexToBytes(nonceHex, SEED_BYTES);
    if (!Number.isInteger(maxQuestions) || maxQuestions < 1) {
      throw new Error("no limit on the number of questions was given");
    }
    if (answers.length < 1 || answers.length > maxQuestions) {
      throw new Error("between 1 and " + maxQuestions + " answers, got " + answers.length);
    }
    const base = mechanism.rr_buffer();
    const size = INPUT_OFFSET + RECORD_BYTES * answers.length;
    let view = new DataView(mechanism.memory.buffer, base, size);
    let status = null;
    let reports = null;
    try {
      answers.forEach(function (answer, i) {
        writeRecord(view, INPUT_OFFSET + RECORD_BYTES * i, answer.question, answer.truth);
      });
      const device = new Uint8Array(SEED_BYTES);
      getRandomValues(device);
      for (let i = 0; i < SEED_BYTES; i++) {
        view.setUint8(i, device[i]);
        view.setUint8(SEED_BYTES + i, nonce[i]);
      }
      device.fill(0);
      status = mechanism.rr_randomize(answers.length);
      view = new DataView(mechanism.memory.buffer, base, size); // memory may have grown
      if (status === answers.length) {
        reports = answers.map(function (_, i) {
          return view.getUint8(INPUT_OFFSET + RECORD_BYTES * i + REPORT_AT);
        });
      }
    } finally {
      new Uint8Array(mechanism.memory.buffer, base, size).fill(0); // forget truths and seed
    }
    if (reports === null) {
      throw new Error("the mechanism refused the input (" + status + ": " + (REFUSALS[status] || "unknown") + ")");
    }
    return reports;
  }

  // --- the state in localStorage, key "deniable:<slug>":
  // {"reports": {"<qid>": <report>}, "response_id": "<hex>", "pending": {"body": "...", "receipt": "..."},
  //  "completion_url": "https://…"}
  // with each report an integer from 0 to 19 (0/1 for yes/no and numbers, an option's index).
  // `pending` lives from just before the first POST until the server acknowledges it;
  // `completion_url` is the survey's completion link as the server returned it on that
  // acknowledgment, its {name} placeholders unfilled (the link's parameters never stored).

  function validReports(reports) {
    if (!reports || typeof reports !== "object" || Array.isArray(reports)) return null;
    const valid = {};
    for (const [id, report] of Object.entries(reports)) {
      if (!Number.isInteger(report) || report < 0 || report > MAX_REPORT) return null;
      valid[id] = report;
    }
    return Object.keys(valid).length > 0 ? valid : null;
  }

  /** The stored state, or null when there is none or it is not one this code wrote. */
  function readState(storage, slug) {
    let stored;
    try {
      stored = JSON.parse(storage.getItem(storageKey(slug)));
    } catch (_) {
      return null;
    }
    if (!stored || typeof stored !== "object") return null;
    const reports = validReports(stored.reports);
    if (!reports || typeof stored.response_id !== "string" || !RESPONSE_ID_PATTERN.test(stored.response_id)) {
      return null;
    }
    const state = { reports: reports, response_id: stored.response_id };
    const pending = stored.pending;
    if (pending && typeof pending.body === "string" && isReceipt(pending.receipt)) {
      state.pending = { body: pending.body, receipt: pending.receipt };
    }
    if (isCompletionUrl(stored.completion_url)) state.completion_url = stored.completion_url;
    return state;
  }

  /**
   * The device's storage: {storage, remembers}. localStorage, or when reading it throws (the
   * browser blocks it, as some do inside another site's frame) a stand-in kept for this page's
   * life only, with `remembers` false: nothing survives a reload, which the page then says.
   * `localStorageOf` returns window.localStorage (the getter itself may throw).
   */
  function deviceStorage(localStorageOf) {
    try {
      const storage = localStorageOf();
      storage.getItem(STORAGE_PREFIX + "probe");
      return { storage: storage, remembers: true };
    } catch (_) {
      const kept = new Map();
      return {
        storage: {
          getItem: (key) => (kept.has(key) ? kept.get(key) : null),
          setItem: (key, value) => kept.set(key, String(value)),
          removeItem: (key) => kept.delete(key),
        },
        remembers: false,
      };
    }
  }

  /** Writes the state; false when storage refuses (disabled, full), which the caller may say. */
  function writeState(storage, slug, state) {
    try {
      storage.setItem(storageKey(slug), JSON.stringify(state));
      return true;
    } catch (_) {
      return false;
    }
  }

  /** "Forget this survey on this device": everything the form kept for it. */
  function forget(storage, slug) {
    try {
      storage.removeItem(storageKey(slug));
      storage.removeItem(tokenStorageKey(slug));
    } catch (_) {
      // Storage disabled: nothing was kept.
    }
  }

  /** Keeps the memo (reports, response id) and drops the pending body, if still the same response. */
  function dropPending(storage, slug, responseId) {
    const state = readState(storage, slug);
    if (!state || state.response_id !== responseId || !state.pending) return false;
    delete state.pending;
    writeState(storage, slug, state);
    return true;
  }

  /** The acknowledgment of `responseId`: the pending body goes, the completion link joins the memo. */
  function acknowledge(storage, slug, responseId, completionUrl) {
    const state = readState(storage, slug);
    if (!state || state.response_id !== responseId) return;
    delete state.pending;
    if (completionUrl) state.completion_url = completionUrl;
    writeState(storage, slug, state);
  }

  /**
   * The exact text POSTed, and re-sent unchanged on every retry. `token` ({input, output},
   * base64url) is the blind token an invitation bought; the invitation itself never goes here.
   */
  function pendingBody(reports, responseId, token) {
    const body = { answers: reports, response_id: responseId };
    if (token) body.token = { input: token.input, output: token.output };
    return JSON.stringify(body);
  }

  /**
   * Fixes the reports before anything is sent: draws the receipt, computes the response id,
   * randomizes the answers (truths are passed to the mechanism and forgotten) and writes the
   * pending state. answers: [{ question, truth }] in question order (see the header); the
   * reports are keyed by question.id; `token`, for a survey that requires invitations, is the
   * redeemed token (see `redeem`); deps.maxQuestions is randomize's maxQuestions. Returns
   * the state ({reports, response_id, pending}) and whether it could be stored.
   */
  function prepare(deps, slug, nonceHex, answers, token) {
    // A grouping question (type "grouping", "randomized": false) is sent as given and takes
    // no draw: the others keep their order, so their draws are those of a survey without it.
    const asGiven = answers.filter(function (answer) { return answer.question.type === "grouping"; });
    const toRandomize = answers.filter(function (answer) { return answer.question.type !== "grouping"; });
    asGiven.forEach(function (answer) {
      const options = answer.question.options;
      if (!Number.isInteger(answer.truth) || !Array.isArray(options) || answer.truth < 0 || answer.truth >= options.length) {
        throw new Error("question " + answer.question.id + ": the answer is not an option's index");
      }
    });
    const receipt = drawReceipt(deps.getRandomValues);
    const responseId = responseIdOf(deps.mechanism, receipt);
    const randomized = randomize(deps.mechanism, deps.getRandomValues, nonceHex, toRandomize, deps.maxQuestions);
    const reports = {};
    toRandomize.forEach(function (answer, i) {
      reports[String(answer.question.id)] = randomized[i];
    });
    asGiven.forEach(function (answer) {
      reports[String(answer.question.id)] = answer.truth;
    });
    const state = {
      reports: reports,
      response_id: responseId,
      pending: { body: pendingBody(reports, responseId, token), receipt: receipt },
    };
    const stored = writeState(deps.storage, slug, state);
    return { state: state, stored: stored };
  }

  /** A uniform integer in [0, bound] from getRandomValues (bound < 2^32). */
  function uniformUpTo(getRandomValues, bound) {
    const word = new Uint32Array(1);
    getRandomValues(word);
    return Math.floor((word[0] / 4294967296) * (bound + 1));
  }

  /** The wait before retry number `attempt` (1, 2, …): full jitter under a capped exponential. */
  function backoffDelay(getRandomValues, attempt) {
    const ceiling = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * Math.pow(2, Math.min(attempt - 1, 30)));
    return uniformUpTo(getRandomValues, ceiling);
  }

  /** Retry-After in milliseconds (seconds or an HTTP date), 0 when absent or unreadable. */
  function retryAfterMs(value, now) {
    if (!value) return 0;
    if (/^\s*\d+\s*$/.test(value)) return 1000 * parseInt(value, 10);
    const date = Date.parse(value);
    return Number.isNaN(date) ? 0 : Math.max(0, date - now);
  }

  async function errorOf(response) {
    try {
      const body = await response.json();
      if (body && body.error) return { code: body.error.code || null, message: body.error.message || null };
    } catch (_) {
      // not JSON
    }
    return { code: null, message: null };
  }

  /**
   * Requests until the server gives a definitive answer: after a 429 (its Retry-After plus
   * jitter), a 408, a 5xx or a network error it waits (backoff with full jitter) and sends
   * exactly the same request again, calling deps.onRetry({attempt, delayMs, status}) first
   * (status null for a network error). Returns {response, attempts}; response is null
   * only when deps.maxAttempts (default: no limit) ran out on network errors.
   */
  async function fetchPatiently(deps, url, init) {
    const maxAttempts = deps.maxAttempts || Infinity;
    for (let attempt = 1; ; attempt++) {
      let response = null;
      try {
        response = await deps.fetch(url, init);
      } catch (_) {
        response = null; // the network failed, or the answer was lost: the server may have it
      }
      if ((response && !isTransient(response.status)) || attempt >= maxAttempts) {
        return { response: response, attempts: attempt };
      }
      let delayMs = backoffDelay(deps.getRandomValues, attempt);
      if (response && response.status === 429) {
        delayMs += retryAfterMs(response.headers.get("Retry-After"), deps.now());
      }
      if (response && response.body && response.body.cancel) {
        response.body.cancel().catch(function () {});
      }
      if (deps.onRetry) deps.onRetry({ attempt: attempt, delayMs: delayMs, status: response ? response.status : null });
      await deps.sleep(delayMs);
    }
  }

  /**
   * POSTs pending.body, retrying as fetchPatiently does, until the server answers for good.
   * On 200/201 the pending body is dropped and the memo kept:
   * {outcome: "stored", status, recordId, receipt, attempts}. On any other definitive status
   * it stops and drops the pending body: {outcome: "refused", status, code, message, attempts}.
   * deps: {fetch, storage, getRandomValues, sleep(ms), now(), onRetry?, maxAttempts?}.
   */
  async function send(deps, slug, state) {
    const pending = state.pending;
    const { response, attempts } = await fetchPatiently(deps, "/api/surveys/" + encodeURIComponent(slug) + "/responses", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: pending.body,
      cache: "no-store",
      credentials: "omit",
    });
    if (!response || isTransient(response.status)) {
      // Only with maxAttempts: the pending body stays for the next page load.
      return { outcome: "gave-up", status: response ? response.status : null, attempts: attempts };
    }
    if (response.status >= 200 && response.status < 300) {
      let answer = {};
      try {
        answer = (await response.json()) || {};
      } catch (_) {
        // stored all the same
      }
      const completionUrl = isCompletionUrl(answer.completion_url) ? answer.completion_url : null;
      acknowledge(deps.storage, slug, state.response_id, completionUrl);
      forgetToken(deps.storage, slug); // spent: the stored response is all that is left of it
      return { outcome: "stored", status: response.status, recordId: answer.record_id || null,
        completionUrl: completionUrl, receipt: pending.receipt, attempts: attempts };
    }
    const error = await errorOf(response);
    dropPending(deps.storage, slug, state.response_id);
    if (error.code === "token_spent" || error.code === "token_invalid") forgetToken(deps.storage, slug);
    return { outcome: "refused", status: response.status, code: error.code, message: error.message, attempts: attempts };
  }

  /** GET /api/surveys/{slug}: the public definition with a fresh nonce (retried like a POST). */
  async function fetchDefinition(deps, slug) {
    const { response } = await fetchPatiently(deps, "/api/surveys/" + encodeURIComponent(slug), {
      cache: "no-store",
      credentials: "omit",
    });
    if (!response || !response.ok) {
      throw new Error("Cannot load the survey (" + (response ? response.status : "no answer") + "); nothing was sent.");
    }
    return response.json();
  }

  // --- blind invitation tokens (issue 20; docs/design.md, invariant 10), key
  // "deniable:<slug>:token":
  //   while redeeming: {"invitation": "<code>", "key": "<fingerprint>", "state": "<base64url>",
  //     "blinded": "<base64url>"} — the state holds the blind and the token's input, which
  //     with the invitation would link the token to its holder: it is kept only until the
  //     server answers, so that a retry sends the same blinded element;
  //   once redeemed: {"key": "<fingerprint>", "token": {"input", "output"}} until the
  //     response that spends it is acknowledged.
  // The invitation link is /s/<slug>#invitation=<code>&key=<fingerprint>: the form redeems
  // only when the fingerprint of the key in the anonymous definition equals the link's.

  // A link parameter's name, as a completion link's {name} placeholder writes it.
  const PARAMETER_PATTERN = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
  const PLACEHOLDER_PATTERN = /\{([A-Za-z_][A-Za-z0-9_]{0,63})\}/g;
  const MAX_COMPLETION_URL = 2000;
  const FINGERPRINT_PATTERN = /^[0-9a-f]{64}$/;
  const INVITATION_PATTERN = /^[0-9a-f]{64}$/;
  const BASE64URL_PATTERN = /^[A-Za-z0-9_-]+$/;

  function tokenStorageKey(slug) {
    return STORAGE_PREFIX + slug + ":token";
  }

  /**
   * The link a respondent arrived with, from its fragment (the part a browser never sends):
   * "#invitation=…&key=…&return=…", `&`-separated name=value pairs, each percent-decoded (the
   * first of a repeated name counts). Returns {invitation: {invitation, key} or null without
   * an invitation, parameters: {name: value}} where parameters holds every other name that a
   * completion link's placeholder may use; other names are dropped. The parameters are the
   * respondent's panel identifiers: the page keeps them in memory only (never stored, sent or
   * logged) for `completionHref`.
   */
  function linkOfFragment(hash) {
    const fields = Object.create(null);
    for (const pair of String(hash || "").replace(/^#/, "").split("&")) {
      const at = pair.indexOf("=");
      const name = percentDecoded(at < 0 ? pair : pair.slice(0, at));
      if (name === "" || name in fields) continue;
      fields[name] = percentDecoded(at < 0 ? "" : pair.slice(at + 1));
    }
    const parameters = Object.create(null);
    for (const name of Object.keys(fields)) {
      if (name !== "invitation" && name !== "key" && PARAMETER_PATTERN.test(name)) parameters[name] = fields[name];
    }
    const invitation = fields.invitation ? { invitation: fields.invitation, key: fields.key || null } : null;
    return { invitation: invitation, parameters: parameters };
  }

  function percentDecoded(text) {
    try {
      return decodeURIComponent(text);
    } catch (_) {
      return text; // a stray "%": the text as written
    }
  }

  /**
   * The href of the "Continue" link: the completion link with each {name} after its first
   * "?" or "#" replaced by encodeURIComponent(parameters[name]), or by "" when the page has
   * no such parameter (listed in `missing`). Before that mark nothing is replaced, as the
   * server refuses placeholders there (a parameter choosing the host would redirect anywhere).
   */
  function completionHref(template, parameters) {
    const missing = [];
    const cut = template.search(/[?#]/);
    if (cut < 0) return { href: template, missing: missing };
    const filled = template.slice(cut).replace(PLACEHOLDER_PATTERN, function (_, name) {
      if (parameters && Object.prototype.hasOwnProperty.call(parameters, name)) {
        return encodeURIComponent(parameters[name]);
      }
      if (!missing.includes(name)) missing.push(name);
      return "";
    });
    return { href: template.slice(0, cut) + filled, missing: missing };
  }

  /** A completion link as the server gives it: https, at most 2 000 characters. */
  function isCompletionUrl(text) {
    return typeof text === "string" && text.length <= MAX_COMPLETION_URL && /^https:\/\/[^/?#\s]+/.test(text);
  }

  function isB64(text) {
    return typeof text === "string" && BASE64URL_PATTERN.test(text);
  }

  /** The stored redemption state or token, or null (none, or not one this code wrote). */
  function readTokenState(storage, slug) {
    let stored;
    try {
      stored = JSON.parse(storage.getItem(tokenStorageKey(slug)));
    } catch (_) {
      return null;
    }
    if (!stored || typeof stored !== "object" || !FINGERPRINT_PATTERN.test(stored.key || "")) return null;
    if (stored.token && isB64(stored.token.input) && isB64(stored.token.output)) {
      return { key: stored.key, token: { input: stored.token.input, output: stored.token.output } };
    }
    if (INVITATION_PATTERN.test(stored.invitation || "") && isB64(stored.state) && isB64(stored.blinded)) {
      return { key: stored.key, invitation: stored.invitation, state: stored.state, blinded: stored.blinded };
    }
    return null;
  }

  function writeTokenState(storage, slug, state) {
    try {
      storage.setItem(tokenStorageKey(slug), JSON.stringify(state));
      return true;
    } catch (_) {
      return false;
    }
  }

  function forgetToken(storage, slug) {
    try {
      storage.removeItem(tokenStorageKey(slug));
    } catch (_) {
      // Storage disabled: nothing was kept.
    }
  }

  /** Lowercase hex SHA-256 of bytes, by the mechanism's module (no crypto.subtle on plain HTTP). */
  function sha256Hex(mechanism, bytes) {
    const base = mechanism.rr_buffer();
    let buffer = new Uint8Array(mechanism.memory.buffer, base, bytes.length);
    buffer.set(bytes);
    const status = mechanism.rr_sha256(bytes.length);
    buffer = new Uint8Array(mechanism.memory.buffer, base, Math.max(bytes.length, DIGEST_BYTES));
    const digest = hex(buffer.subarray(0, DIGEST_BYTES));
    buffer.fill(0);
    if (status !== DIGEST_BYTES) throw new Error("the mechanism refused to hash (" + status + ")");
    return digest;
  }

  /**
   * A refusal to redeem, with a code the page words for people (in the survey's language)
   * and any details it names; the message is English, for logs and tests.
   */
  function tokenRefusal(code, message, details) {
    const error = new Error(message);
    error.name = "TokenRefusal";
    error.code = code;
    Object.assign(error, details || {});
    return error;
  }

  /**
   * The survey's public key (32 bytes) from the anonymous definition, once its fingerprint,
   * computed here, equals both the definition's and the invitation link's `linkKey`. Throws a
   * TokenRefusal otherwise — "key_not_published", "key_missing" (the link names no key) or
   * "key_mismatch" (with `server` and `link`, the two fingerprints): a server that gave this
   * person a key of their own could tag them.
   */
  function pinnedKey(deps, definition, linkKey) {
    const published = definition && definition.invitation_key;
    if (!published || !isB64(published.public_key)) {
      throw tokenRefusal("key_not_published", "This survey does not publish a key for invitations, so " +
        "this invitation link cannot be used here. Nothing was sent.");
    }
    const bytes = deps.tokens.api.fromBase64url(published.public_key);
    const fingerprint = sha256Hex(deps.mechanism, bytes);
    if (!linkKey) {
      throw tokenRefusal("key_missing", "This invitation link does not say which survey key it " +
        "was made for (it lacks \"key=\"), so this page cannot check that the server gives everyone " +
        "the same key. Nothing was sent; please ask for a new link.");
    }
    if (fingerprint !== published.fingerprint || fingerprint !== linkKey) {
      throw tokenRefusal("key_mismatch", "The survey key this server presents (fingerprint " +
        fingerprint.slice(0, 16) + "…) is not the one your invitation link was made for (" +
        String(linkKey).slice(0, 16) + "…). A server could use a key of your own to recognise " +
        "your answers, so this page will not use it. Nothing was sent; please tell the survey's " +
        "organisers.", { server: fingerprint, link: String(linkKey) });
    }
    return { bytes: bytes, fingerprint: fingerprint };
  }

  /**
   * Exchanges the invitation for a blind token (POST …/redemptions), or resumes an exchange
   * a closed page left unanswered (the same blinded element again: the server answers the
   * same bytes). deps: {fetch, storage, getRandomValues, sleep, now, onRetry?, maxAttempts?,
   * mechanism, tokens: {api: DeniableTokens, exports}}; link: linkOfFragment(…).invitation or null.
   * Returns {outcome: "ready", token, fingerprint} (redeemed now or before), {outcome: "none"}
   * (no invitation and nothing stored), {outcome: "gave-up"} (only with maxAttempts), or
   * {outcome: "refused", status, code, message}; throws a TokenRefusal when the key does not
   * match the link's.
   */
  async function redeem(deps, slug, definition, link) {
    const api = deps.tokens.api;
    let stored = readTokenState(deps.storage, slug);
    if (stored && stored.token) {
      if (link && link.key && link.key !== stored.key) {
        throw tokenRefusal("key_other_token", "This device already holds a token for this survey, " +
          "bought with a link for another survey key. Nothing was sent.");
      }
      return { outcome: "ready", token: stored.token, fingerprint: stored.key };
    }
    if (!stored && !link) return { outcome: "none" };
    let pinned;
    if (!stored) {
      pinned = pinnedKey(deps, definition, link.key);
      if (!INVITATION_PATTERN.test(link.invitation)) {
        return { outcome: "refused", status: null, code: "invitation_invalid",
          message: "This invitation link is damaged (its code is not 64 hexadecimal characters)." };
      }
      const blinded = api.blind(deps.tokens.exports, deps.getRandomValues, api.randomInput(deps.getRandomValues));
      stored = { invitation: link.invitation, key: pinned.fingerprint, state: api.base64url(blinded.state),
        blinded: api.base64url(blinded.blinded) };
      blinded.state.fill(0);
      writeTokenState(deps.storage, slug, stored);
    } else {
      pinned = pinnedKey(deps, definition, stored.key);
    }
    const { response } = await fetchPatiently(deps, "/api/surveys/" + encodeURIComponent(slug) + "/redemptions", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ invitation: stored.invitation, blinded: stored.blinded }),
      cache: "no-store",
      credentials: "omit",
    });
    if (!response || isTransient(response.status)) return { outcome: "gave-up", status: response ? response.status : null };
    if (response.status !== 200) {
      const error = await errorOf(response);
      forgetToken(deps.storage, slug);
      return { outcome: "refused", status: response.status, code: error.code, message: error.message };
    }
    const answer = await response.json();
    const state = api.fromBase64url(stored.state);
    let output;
    try {
      output = api.finalize(deps.tokens.exports, state, api.fromBase64url(answer.evaluation),
        api.fromBase64url(answer.proof), pinned.bytes);
    } catch (error) {
      forgetToken(deps.storage, slug);
      return { outcome: "refused", status: 200, code: "proof_rejected",
        message: "The server's answer was not made with the survey's key, so this page will not " +
          "use it. Nothing was sent; please tell the survey's organisers." };
    }
    const token = { input: api.base64url(api.inputOf(state)), output: api.base64url(output) };
    state.fill(0);
    writeTokenState(deps.storage, slug, { key: pinned.fingerprint, token: token });
    return { outcome: "ready", token: token, fingerprint: pinned.fingerprint };
  }

  global.DeniableCore = Object.freeze({
    BACKOFF_BASE_MS: BACKOFF_BASE_MS,
    BACKOFF_CAP_MS: BACKOFF_CAP_MS,
    storageKey: storageKey,
    base64url: base64url,
    drawReceipt: drawReceipt,
    isReceipt: isReceipt,
    responseIdOf: responseIdOf,
    randomize: randomize,
    deviceStorage: deviceStorage,
    readState: readState,
    writeState: writeState,
    forget: forget,
    dropPending: dropPending,
    pendingBody: pendingBody,
    prepare: prepare,
    backoffDelay: backoffDelay,
    retryAfterMs: retryAfterMs,
    send: send,
    fetchDefinition: fetchDefinition,
    tokenStorageKey: tokenStorageKey,
    linkOfFragment: linkOfFragment,
    completionHref: completionHref,
    isCompletionUrl: isCompletionUrl,
    readTokenState: readTokenState,
    writeTokenState: writeTokenState,
    forgetToken: forgetToken,
    sha256Hex: sha256Hex,
    pinnedKey: pinnedKey,
    redeem: redeem,
  });
})(globalThis);
