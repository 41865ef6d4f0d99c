// The respondent form's blind invitation token (issue 20), around DeniableCore.redeem
// (form-core.js) and DeniableTokens (blind-tokens.js), both loaded first. As soon as an
// invitation link is opened (and, with a consent text, agreed to; in a browser without
// storage, only when sending) it exchanges the invitation for a blind token, checking first
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
  if (!page || !core) return;

  // The address the page was opened with, read here, by the first of the form's scripts, and
  // nowhere else (issue 35). Its fragment is parsed whole: the invitation, for this script,
  // and the link's named parameters (panel identifiers, for form.js's "Continue" link), kept
  // in this page's memory only. Then the query string and the fragment leave the address bar,
  // and so the history, bookmarks and anything copied from there; query parameters are
  // never used, since the server has already seen them.
  const arrived = core.linkOfFragment(location.hash);
  history.replaceState(null, "", location.pathname);
  Object.defineProperty(globalThis, "DeniableFormLink", {
    value: Object.freeze({ parameters: Object.freeze(arrived.parameters) }),
  });

  // The owner's preview neither redeems nor sends anything.
  if (!api || page.dataset.preview === "true") return;
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

  // The invitation travels in the fragment, never in a request line.
  const link = arrived.invitation;

  function say(text, isError) {
    if (!statusLine) return;
    statusLine.hidden = !text;
    statusLine.textContent = text;
    statusLine.classList.toggle("error", Boolean(isError));
  }

  async function instantiate(url) {
    const response = await fetch(url);
    if (!response.ok) throw new Error("cannot load " + url + " (" + response.status + ")");
    return (await WebAssembly.instantiate(await response.arrayBuffer(), {})).instance.exports;
  }

  // Without storage the token would die with the page: it is bought only when sending (see
  // start), so that a reload before then does not use up the invitation.
  const device = core.deviceStorage(function () { return window.localStorage; });
  const getRandomValues = window.crypto && window.crypto.getRandomValues
    ? window.crypto.getRandomValues.bind(window.crypto) : null;
  const deps = {
    fetch: window.fetch.bind(window),
    storage: device.storage,
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
  // neither (it tells the server who takes part): it starts when the box is ticked. A
  // browser without storage redeems at sending only (token(), below).
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
  if (device.remembers && !answered && (link || core.readTokenState(deps.storage, slug))) {
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
