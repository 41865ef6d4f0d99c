// Deniable's respondent form: the page around DeniableCore (form-core.js, loaded first).
// The true answers live only in this page's memory: they are given to the WebAssembly
// mechanism, which returns randomized reports, and only those reports are sent or stored.
// Randomness comes from crypto.getRandomValues, mixed by the mechanism with the server's
// nonce; never a non-cryptographic generator.
"use strict";

(function () {
  const WASM_URL = "/static/randomized_response.wasm";

  const core = globalThis.DeniableCore;
  const page = document.getElementById("survey");
  if (!page || !core) return;
  // The owner's preview shares the survey's storage key: it must neither send nor show it.
  if (page.dataset.preview === "true") return;
  const slug = page.dataset.slug;

  const submitButton = document.getElementById("submit-button");
  const accepting = submitButton.dataset.accepting === "true";
  const statusLine = document.getElementById("form-status");
  const memoNote = document.getElementById("memo-note");
  const noWasm = document.getElementById("no-wasm");
  const sentSection = document.getElementById("submitted");

  // localStorage throws when the browser blocks it; a page-lifetime stand-in then keeps the
  // pending body for this page's retries (nothing survives a reload, which is all it can do).
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

  let countdown = null;
  function stopCountdown() {
    if (countdown !== null) clearInterval(countdown);
    countdown = null;
  }

  const deps = {
    fetch: window.fetch.bind(window),
    storage: deviceStorage(),
    getRandomValues: window.crypto && window.crypto.getRandomValues ? window.crypto.getRandomValues.bind(window.crypto) : null,
    now: () => Date.now(),
    sleep: (ms) =>
      new Promise(function (resolve) {
        setTimeout(function () {
          stopCountdown();
          say("Trying again…");
          resolve();
        }, ms);
      }),
    onRetry: showRetry,
    mechanism: null,
  };

  function say(text, isError) {
    statusLine.textContent = text;
    statusLine.classList.toggle("error", Boolean(isError));
  }

  function showRetry(retry) {
    stopCountdown();
    const until = Date.now() + retry.delayMs;
    const why = retry.status === null ? "no answer from the server" : "the server answered " + retry.status;
    function tick() {
      const seconds = Math.max(0, Math.ceil((until - Date.now()) / 1000));
      say("Busy (" + why + "), retrying in " + seconds + " s. Your reports are kept on this " +
        "device and will be sent unchanged: no new coins are flipped.");
    }
    tick();
    countdown = setInterval(tick, 250);
  }

  // --- the page's questions (texts and report labels from the server-rendered page)
  function pageQuestions() {
    return Array.from(document.querySelectorAll("fieldset.question")).map(function (fieldset) {
      return {
        id: fieldset.dataset.questionId,
        number: fieldset.dataset.questionNumber,
        kind: fieldset.dataset.kind,
        text: fieldset.querySelector(".question-text").textContent,
        labels: JSON.parse(fieldset.dataset.reportLabels || "[]"),
        fieldset: fieldset,
      };
    });
  }

  function listReports(list, reports) {
    list.replaceChildren();
    for (const question of pageQuestions()) {
      const report = reports[question.id];
      if (report === undefined) continue;
      const label = question.labels[report] !== undefined ? question.labels[report] : String(report);
      const item = document.createElement("li");
      item.textContent = question.number + ". " + question.text + " — reported: " + label;
      list.appendChild(item);
    }
  }

  // The true answer given on the page: the radio's value (1 = Yes, 0 = No, or the option's
  // index) or the number typed; null when there is none, undefined for a number out of its
  // bounds (or not a number).
  function chosenTruth(questionId) {
    const number = document.getElementById("q" + questionId + "-number");
    if (number) {
      if (number.value.trim() === "" && !number.validity.badInput) return null;
      const value = Number(number.value);
      return number.checkValidity() && Number.isFinite(value) ? value : undefined;
    }
    const checked = document.querySelector("input[name=\"q" + questionId + "\"]:checked");
    return checked ? Number(checked.value) : null;
  }

  function setChoicesEnabled(enabled) {
    document.querySelectorAll("#survey-form input").forEach(function (input) {
      if (!enabled) {
        // The true answers leave the page too.
        if (input.type === "radio") input.checked = false;
        else input.value = "";
      }
      input.disabled = !enabled;
    });
  }

  // A slider and its number box show the same value; the box alone counts as the answer,
  // so an untouched slider answers nothing.
  document.querySelectorAll("input[data-slider-for]").forEach(function (slider) {
    const box = document.getElementById(slider.dataset.sliderFor);
    slider.addEventListener("input", function () { box.value = slider.value; });
    box.addEventListener("input", function () { if (box.value !== "") slider.value = box.value; });
  });

  // "questions 1, 2 and 3"
  function listed(numbers) {
    if (numbers.length === 1) return "question " + numbers[0];
    return "questions " + numbers.slice(0, -1).join(", ") + " and " + numbers[numbers.length - 1];
  }

  function markMissing(ids) {
    let first = null;
    for (const question of pageQuestions()) {
      const missing = ids.includes(String(question.id));
      question.fieldset.classList.toggle("missing", missing);
      if (missing) {
        question.fieldset.setAttribute("aria-invalid", "true");
        if (!first) first = question.fieldset;
      } else {
        question.fieldset.removeAttribute("aria-invalid");
      }
    }
    if (first) {
      const input = first.querySelector("input");
      if (input) input.focus();
    }
  }

  // --- what this device remembers
  function showAlreadyAnswered(state) {
    setChoicesEnabled(false);
    submitButton.hidden = true;
    submitButton.disabled = true;
    listReports(document.getElementById("memo-reports"), state.reports);
    memoNote.hidden = false;
  }

  function forgetHere() {
    core.forget(deps.storage, slug);
  }

  document.getElementById("memo-clear").addEventListener("click", function () {
    forgetHere();
    memoNote.hidden = true;
    submitButton.hidden = false;
    if (accepting) {
      setChoicesEnabled(true);
      enableSending();
    }
    say("This device forgot this survey. Answering again flips new coins.");
  });

  // --- the Sent page
  let shownReceipt = null; // only in this page's memory, shown this once

  function showSent(reports, receipt) {
    stopCountdown();
    setChoicesEnabled(false);
    say("");
    listReports(document.getElementById("sent-reports"), reports);
    shownReceipt = receipt;
    document.getElementById("receipt").textContent = receipt;
    document.getElementById("survey-form").hidden = true;
    memoNote.hidden = true;
    sentSection.hidden = false;
    document.getElementById("submitted-heading").focus();
  }

  function receiptSay(text) {
    document.getElementById("receipt-status").textContent = text;
  }

  function selectReceipt() {
    const range = document.createRange();
    range.selectNodeContents(document.getElementById("receipt"));
    const selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
  }

  document.getElementById("receipt-copy").addEventListener("click", function () {
    if (!shownReceipt) return;
    // navigator.clipboard exists only on HTTPS; on a LAN address the selection is copied.
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(shownReceipt).then(
        function () { receiptSay("Copied."); },
        function () { selectReceipt(); receiptSay("Selected: copy it with your device's copy command."); },
      );
      return;
    }
    selectReceipt();
    let copied = false;
    try {
      copied = document.execCommand("copy");
    } catch (_) {
      copied = false;
    }
    receiptSay(copied ? "Copied." : "Selected: copy it with your device's copy command.");
  });

  document.getElementById("receipt-download").addEventListener("click", function () {
    if (!shownReceipt) return;
    const text = [
      "Deniable receipt for the survey \"" + document.querySelector("h1").textContent + "\"",
      "",
      shownReceipt,
      "",
      "To view or withdraw your response: " + location.origin + "/s/" + slug + "/receipt",
      "Keep it secret: anyone holding it can see or withdraw your reports.",
      "",
    ].join("\n");
    const url = URL.createObjectURL(new Blob([text], { type: "text/plain;charset=utf-8" }));
    const link = document.createElement("a");
    link.href = url;
    link.download = "deniable-receipt-" + slug + ".txt";
    document.body.appendChild(link);
    link.click();
    link.remove();
    setTimeout(function () { URL.revokeObjectURL(url); }, 60000);
    receiptSay("Downloaded as " + link.download + ".");
  });

  document.getElementById("sent-forget").addEventListener("click", function () {
    forgetHere();
    receiptSay("This device forgot this survey: it keeps nothing of it now.");
  });

  // --- sending
  async function deliver(state) {
    submitButton.disabled = true;
    const outcome = await core.send(deps, slug, state);
    stopCountdown();
    if (outcome.outcome === "stored") {
      showSent(state.reports, outcome.receipt);
      return;
    }
    setChoicesEnabled(false);
    submitButton.hidden = true;
    say("The server refused the reports: " + (outcome.message || "status " + outcome.status) +
      ". Nothing more will be sent from this device.", true);
    listReports(document.getElementById("memo-reports"), state.reports);
    memoNote.hidden = false;
  }

  let submitting = false;
  async function submit() {
    if (submitting) return;
    submitting = true;
    submitButton.disabled = true;
    say("Randomizing on this device…");
    let prepared = null;
    try {
      const definition = await core.fetchDefinition(deps, slug);
      if (definition.status !== "open") throw new Error("This survey is " + definition.status + "; nothing was sent.");
      const token = definition.requires_invitation ? await globalThis.DeniableFormTokens.token() : null;
      const answers = [];
      const missing = [];
      const missingIds = [];
      for (const question of definition.questions) {
        const truth = chosenTruth(question.id);
        if (truth === undefined) {
          markMissing([String(question.id)]);
          const step = question.min % 1 === 0 && question.max % 1 === 0 ? "a whole number" : "a number";
          throw new Error("Question " + (question.position + 1) + " needs " + step + " from " +
            question.min + " to " + question.max + ". Nothing was sent.");
        }
        if (truth === null) {
          missing.push(question.position + 1);
          missingIds.push(String(question.id));
          continue;
        }
        answers.push({ id: question.id, question: question, truth: truth });
      }
      markMissing(missingIds);
      if (missing.length > 0) {
        throw new Error("Please answer " + listed(missing) + ": every question is randomized, " +
          "so no answer can be held against you. Nothing was sent.");
      }
      const existing = core.readState(deps.storage, slug);
      if (existing) {
        // Another tab answered meanwhile: never flip a second set of coins.
        showAlreadyAnswered(existing);
        say("This device has just answered this survey in another tab; nothing more was sent.");
        return;
      }
      prepared = core.prepare(deps, slug, definition.nonce, answers, token);
      answers.forEach(function (answer) { answer.truth = null; });
    } catch (error) {
      say(error.message || String(error), true);
      submitButton.disabled = false;
      return;
    } finally {
      submitting = false;
    }
    setChoicesEnabled(false);
    say("Sending…");
    await deliver(prepared.state);
  }

  async function loadMechanism() {
    if (typeof WebAssembly !== "object" || !deps.getRandomValues) throw new Error("unsupported");
    let instance;
    if (WebAssembly.instantiateStreaming) {
      ({ instance } = await WebAssembly.instantiateStreaming(fetch(WASM_URL), {}));
    } else {
      const bytes = await (await fetch(WASM_URL)).arrayBuffer();
      ({ instance } = await WebAssembly.instantiate(bytes, {}));
    }
    return instance.exports;
  }

  let mechanismLoading = null;
  function enableSending() {
    submitButton.disabled = true;
    if (!mechanismLoading) {
      mechanismLoading = loadMechanism().then(function (exports) {
        deps.mechanism = exports;
        submitButton.addEventListener("click", submit);
      });
    }
    mechanismLoading.then(
      function () { submitButton.disabled = submitButton.hidden; },
      function () {
        noWasm.hidden = false;
        submitButton.disabled = true;
      },
    );
  }

  // --- on load: a pending body is re-sent unchanged; a memo sends nothing
  const state = core.readState(deps.storage, slug);
  if (state && state.pending) {
    setChoicesEnabled(false);
    submitButton.hidden = true;
    say("Sending your stored answers…");
    deliver(state);
  } else if (state) {
    showAlreadyAnswered(state);
  } else if (accepting) {
    enableSending();
  }
})();
