// The respondent form's blind invitation token (issue 20), around DeniableCore.redeem
// (form-core.js) and DeniableTokens (blind-tokens.js), both loaded first. As soon as an
// invitation link is opened (and, with a consent text, agreed to) it exchanges the
// invitation for a blind token, checking first
// that the survey key of the anonymous definition is the one the link pins (its `key`
// fingerprint), and shows that fingerprint; form.js asks for the token when it sends
// (globalThis.DeniableFormTokens.token) and the token goes into the pending body.
//
// The invitation and the blind live in localStorage only until the server answers the
// redemption; then only the token is kept, until the response that spends it is stored.
"use strict";

(function () {
  const MECHANISM_URL = "/static/randomized_response.wasm";
  const TOKENS_URL = "/static/blind_tokens.wasm";
  // The response is never sent in the same second as the redemption was answered (an
  // observer of one address's requests would pair them at once); answering the questions
  // takes longer anyway.
  const MIN_MS_AFTER_REDEMPTION = 2000;

  const core = globalThis.DeniableCore;
  const api = globalThis.DeniableTokens;
  const page = document.getElementById("survey");
  if (!page || !core || !api) return;
  // The owner's preview neither redeems nor sends anything.
  if (page.dataset.preview === "true") return;
  const slug = page.dataset.slug;
  const statusLine = document.getElementById("invitation-status");

  // Every sentence comes from the page, in the survey's language (locales/*/form.ftl, the
  // messages named js-token-… and js-key-…), as for form.js.
  const messages = JSON.parse(page.dataset.messages || "{}");
  function message(id, values) {
    const text = Object.prototype.hasOwnProperty.call(messages, id) ? messages[id] : id;
    return text.replace(/\{\$([a-z_]+)\}/g, function (whole, name) {
      return values && Object.prototype.hasOwnProperty.call(values, name) ? String(values[name]) : whole;
    });
  }

  // The invitation travels in the fragment, never in a request line: read once, then taken
  // out of the address bar (and so out of the history and of bookmarks).
  const link = core.invitationOfFragment(location.hash);
  if (link) history.replaceState(null, "", location.pathname + location.search);

  function say(text, isError) {
    if (!statusLine) return;
    statusLine.hidden = !text;
    statusLine.textContent = text;
    statusLine.classList.toggle("error", Boolean(isError));
  }

  function deviceStorage() {
    try {
      const storage = window.localStorage;
      storage.getItem("deniable:probe");
      return storage;
    } catch (_) {
      const kept = new Map();
      return {
        getItem: (key) => (kept.has(key) ? kept.get(key) : null),
        setItem: (key, value) => kept.set(key, String(value)),
        removeItem: (key) => kept.delete(key),
      };
    }
  }

  async function instantiate(url) {
    const response = await fetch(url);
    if (!response.ok) throw new Error("cannot load " + url + " (" + response.status + ")");
    return (await WebAssembly.instantiate(await response.arrayBuffer(), {})).instance.exports;
  }

  const getRandomValues = window.crypto && window.crypto.getRandomValues
    ? window.crypto.getRandomValues.bind(window.crypto) : null;
  const deps = {
    fetch: window.fetch.bind(window),
    storage: deviceStorage(),
    getRandomValues: getRandomValues,
    now: () => Date.now(),
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    onRetry: () => say(message("js-token-waiting")),
    mechanism: null,
    tokens: { api: api, exports: null },
  };

  let redeemedAt = 0;
  let outcome = null; // the last result of DeniableCore.redeem, or {outcome: "error", message}

  function fingerprintText(fingerprint) {
    return fingerprint.replace(/(.{16})(?=.)/g, "$1 ");
  }

  // Runs the exchange (on load, and again at sending if it had not finished); never throws.
  async function exchange() {
    if (typeof WebAssembly !== "object" || !getRandomValues) {
      return { outcome: "error", code: "unsupported" };
    }
    let definition;
    try {
      if (!deps.mechanism) deps.mechanism = await instantiate(MECHANISM_URL);
      if (!deps.tokens.exports) deps.tokens.exports = await api.load(TOKENS_URL);
    } catch (_) {
      return { outcome: "error", code: "unsupported" };
    }
    try {
      definition = await core.fetchDefinition(deps, slug);
    } catch (_) {
      return { outcome: "error", code: null, message: message("js-cannot-load") };
    }
    if (!definition.requires_invitation) return { outcome: "not-required" };
    try {
      say(message("js-token-exchanging"));
      const result = await core.redeem(deps, slug, definition, link);
      if (result.outcome === "ready" && !redeemedAt) redeemedAt = Date.now();
      return result;
    } catch (error) {
      return { outcome: "error", code: error.code || null, message: errorText(error), error: error };
    }
  }

  function show(result) {
    if (result.outcome === "ready") {
      say(message("js-token-ready", { fingerprint: fingerprintText(result.fingerprint) }));
    } else if (result.outcome === "refused" || result.outcome === "error") {
      say(refusalText(result), true);
    } else {
      say("");
    }
  }

  // A refusal of the key (before anything is sent), in the survey's language.
  function errorText(error) {
    switch (error.code) {
      case "key_mismatch":
        return message("js-key-mismatch", { server: error.server.slice(0, 16), link: error.link.slice(0, 16) });
      case "key_missing": return message("js-key-missing");
      case "key_not_published": return message("js-key-not-published");
      case "key_other_token": return message("js-key-other-token");
      default: return message("js-token-unsupported");
    }
  }

  function refusalText(result) {
    if (result.outcome === "error") {
      return result.code === "unsupported" ? message("js-token-unsupported") : result.message;
    }
    switch (result.code) {
      case "invitation_used": return message("js-token-used");
      case "invitation_invalid": return message("js-token-invalid");
      case "survey_not_open": return message("js-token-closed");
      case "proof_rejected": return message("js-proof-rejected");
      default: return message("js-token-failed", { status: result.status });
    }
  }

  // A device that has answered already (a memo) redeems nothing: the form shows the memo.
  // With a consent text, nothing is sent before the respondent agrees — the redemption
  // neither (it tells the server who takes part): it starts when the box is ticked.
  const answered = core.readState(deps.storage, slug);
  const consentBox = document.getElementById("consent-checkbox");
  let running = null;
  function start() {
    if (running) return;
    running = exchange().then(function (result) {
      outcome = result;
      show(result);
      return result;
    });
  }
  if (!answered && (link || core.readTokenState(deps.storage, slug))) {
    if (!consentBox || consentBox.checked) {
      start();
    } else {
      consentBox.addEventListener("change", function () {
        if (consentBox.checked) start();
      });
    }
  }

  globalThis.DeniableFormTokens = Object.freeze({
    /**
     * The token to send with the reports of a survey that requires invitations, once the
     * gap after its redemption has passed; throws an Error whose message says why not (and
     * that nothing was sent).
     */
    token: async function () {
      if (running) await running;
      if (!outcome || outcome.outcome === "gave-up" || (outcome.outcome === "error" && !outcome.code)) {
        running = exchange().then(function (result) {
          outcome = result;
          show(result);
          return result;
        });
        await running;
      }
      if (outcome.outcome === "ready") {
        const wait = redeemedAt + MIN_MS_AFTER_REDEMPTION - Date.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        return outcome.token;
      }
      if (outcome.outcome === "none" || outcome.outcome === "not-required") {
        throw new Error(message("js-needs-invitation"));
      }
      throw new Error(refusalText(outcome));
    },
  });
})();
