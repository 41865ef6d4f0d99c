// The receipt page (/s/{slug}/receipt): it works without JavaScript (the form posts to the
// server, and a withdrawal takes two steps there). This script only keeps the form's
// storage honest after a withdrawal: when the respondent confirms one (the second step's
// button, "confirm-withdraw"), it notes the receipt's response id (computed here, by the
// WebAssembly module, never sent) in sessionStorage; on the page that reports the
// withdrawal, a pending body of that response is dropped from localStorage, so the survey
// form never re-sends a withdrawn response (the server would refuse it with 410 anyway).
// Loaded after form-core.js.
"use strict";

(function () {
  const WITHDRAWING_KEY = "deniable:withdrawing";
  const core = globalThis.DeniableCore;
  if (!core) return;

  // Its sentences come from the page, in the survey's language (locales/*/receipt.ftl).
  const page = document.getElementById("receipt-page");
  const messages = JSON.parse((page && page.dataset.messages) || "{}");
  function message(id) {
    return Object.prototype.hasOwnProperty.call(messages, id) ? messages[id] : id;
  }

  function storageOrNull(name) {
    try {
      return window[name];
    } catch (_) {
      return null; // blocked by the browser: nothing was kept to clean up
    }
  }
  const session = storageOrNull("sessionStorage");
  const local = storageOrNull("localStorage");
  if (!session || !local) return;

  // After a successful withdrawal the server's page carries #withdrawn.
  const withdrawn = document.getElementById("withdrawn");
  if (withdrawn) {
    const responseId = session.getItem(WITHDRAWING_KEY);
    session.removeItem(WITHDRAWING_KEY);
    const slug = withdrawn.dataset.slug;
    const state = responseId && slug ? core.readState(local, slug) : null;
    if (state && state.response_id === responseId) {
      const note = document.createElement("p");
      note.id = "withdrawn-device-note";
      note.setAttribute("role", "status");
      note.textContent = message(core.dropPending(local, slug, responseId)
        ? "js-withdrawn-dropped"
        : "js-withdrawn-remembered");
      withdrawn.after(note);
    }
    return;
  }

  const form = document.getElementById("receipt-form");
  const input = document.getElementById("receipt-input");
  if (!page || !form || !input || typeof WebAssembly !== "object") return;

  const WASM_URL = "/static/randomized_response.wasm";
  let mechanism = null;
  const instantiating = WebAssembly.instantiateStreaming
    ? WebAssembly.instantiateStreaming(fetch(WASM_URL), {})
    : fetch(WASM_URL).then((response) => response.arrayBuffer()).then((bytes) => WebAssembly.instantiate(bytes, {}));
  const loading = instantiating.then(
    function (result) { mechanism = result.instance.exports; },
    function () { /* no WebAssembly: the withdrawal works all the same, unnoted */ },
  );

  function noteWithdrawal() {
    session.removeItem(WITHDRAWING_KEY);
    const receipt = input.value.trim();
    if (!mechanism || !core.isReceipt(receipt)) return;
    session.setItem(WITHDRAWING_KEY, core.responseIdOf(mechanism, receipt));
  }

  let resubmitting = false;
  form.addEventListener("submit", function (event) {
    const submitter = event.submitter;
    if (resubmitting || !submitter || submitter.value !== "confirm-withdraw") return;
    if (mechanism) {
      noteWithdrawal();
      return; // the native submission goes on
    }
    // The module is still loading (a fast click): wait for it, then submit with the same button.
    event.preventDefault();
    loading.then(function () {
      noteWithdrawal();
      resubmitting = true;
      form.requestSubmit(submitter);
    });
  });
})();
