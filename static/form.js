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

  // Every sentence this script shows comes from the page, in the survey's language
  // (locales/*/form.ftl, the messages named js-…); "{$name}" marks where a value goes.
  const messages = JSON.parse(page.dataset.messages || "{}");
  function message(id, values) {
    const text = Object.prototype.hasOwnProperty.call(messages, id) ? messages[id] : id;
    return text.replace(/\{\$([a-z_]+)\}/g, function (whole, name) {
      return values && Object.prototype.hasOwnProperty.call(values, name) ? String(values[name]) : whole;
    });
  }
  // The owner's preview shares the survey's storage key: it must neither send nor show it.
  if (page.dataset.preview === "true") return;
  const slug = page.dataset.slug;

  const submitButton = document.getElementById("submit-button");
  const accepting = submitButton.dataset.accepting === "true";
  const statusLine = document.getElementById("form-status");
  const memoNote = document.getElementById("memo-note");
  const noWasm = document.getElementById("no-wasm");
  const sentSection = document.getElementById("submitted");
  const storageWarning = document.getElementById("storage-warning");

  // localStorage throws when the browser blocks it (some do inside another site's frame); a
  // page-lifetime stand-in then keeps the pending body for this page's retries, and the page
  // warns before sending that a reload would forget the answers (docs/design.md, 6 and 9).
  const device = core.deviceStorage(function () { return window.localStorage; });

  let countdown = null;
  function stopCountdown() {
    if (countdown !== null) clearInterval(countdown);
    countdown = null;
  }

  const deps = {
    // The most answers the mechanism takes at once (the server's, from the crate).
    maxQuestions: Number(page.dataset.maxQuestions),
    fetch: window.fetch.bind(window),
    storage: device.storage,
    getRandomValues: window.crypto && window.crypto.getRandomValues ? window.crypto.getRandomValues.bind(window.crypto) : null,
    now: () => Date.now(),
    sleep: (ms) =>
      new Promise(function (resolve) {
        setTimeout(function () {
          stopCountdown();
          say(message("js-trying-again"));
          resolve();
        }, ms);
      }),
    onRetry: showRetry,
    mechanism: null,
  };

  // The status line is a polite live region; `quietly` rewrites it without an announcement
  // (see questionChanged), and any other message makes it speak again.
  function say(text, isError, options) {
    if (options && options.quietly) statusLine.setAttribute("aria-live", "off");
    else statusLine.setAttribute("aria-live", "polite");
    statusLine.textContent = text;
    statusLine.classList.toggle("error", Boolean(isError));
  }

  function showRetry(retry) {
    stopCountdown();
    const until = Date.now() + retry.delayMs;
    const why = retry.status === null
      ? message("js-why-no-answer")
      : message("js-why-status", { status: retry.status });
    function tick() {
      const seconds = Math.max(0, Math.ceil((until - Date.now()) / 1000));
      say(message("js-retrying", { why: why, seconds: seconds }));
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
      item.textContent = message("js-reported", { number: question.number, question: question.text, report: label });
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
        // The true answers leave the page too (and the consent is asked again).
        if (input.type === "radio" || input.type === "checkbox") input.checked = false;
        else input.value = "";
        if (input.dataset.sliderFor) setSliderUnset(input, true);
      }
      input.disabled = !enabled;
    });
  }

  // A slider and its number box show the same value; the box alone counts as the answer.
  // A range input always holds a value (its middle, untouched), so while the box is empty
  // the slider is marked unset: its thumb hidden and "no value chosen yet" for assistive
  // technology. The first pick on the slider (a drag, a click, even on its resting place,
  // or a key) writes its value into the box, which then answers the question.
  function setSliderUnset(slider, unset) {
    slider.classList.toggle("unset", unset);
    if (unset) slider.setAttribute("aria-valuetext", message("js-slider-unset"));
    else slider.removeAttribute("aria-valuetext");
  }
  document.querySelectorAll("input[data-slider-for]").forEach(function (slider) {
    const box = document.getElementById(slider.dataset.sliderFor);
    function picked() {
      if (slider.disabled) return;
      box.value = slider.value;
      setSliderUnset(slider, false);
      questionChanged(box);
    }
    slider.addEventListener("input", picked);
    slider.addEventListener("pointerup", picked);
    slider.addEventListener("keyup", function (event) {
      if (/^(Arrow|Page|Home|End)/.test(event.key)) picked();
    });
    box.addEventListener("input", function () {
      if (box.value === "") {
        setSliderUnset(slider, true);
        return;
      }
      slider.value = box.value;
      setSliderUnset(slider, false);
    });
  });

  // "Please answer questions 1, 2 and 3" (the four languages separate all but the last
  // two with a comma).
  function missingMessage(numbers) {
    if (numbers.length === 1) return message("js-missing-one", { numbers: numbers[0] });
    const list = message("js-list-and", { items: numbers.slice(0, -1).join(", "), last: numbers[numbers.length - 1] });
    return message("js-missing-many", { numbers: list });
  }

  // The questions a refused send marked: unanswered ones ("missing") or one whose number is
  // out of its bounds ("number"). Each clears as soon as it is answered (or its number fits).
  let marked = { reason: null, ids: [] };

  function setMarked(fieldset, isMarked) {
    fieldset.classList.toggle("missing", isMarked);
    const note = document.getElementById("missing-" + fieldset.dataset.questionId);
    if (note) note.hidden = !isMarked;
    if (isMarked) {
      fieldset.setAttribute("aria-invalid", "true");
      if (note) fieldset.setAttribute("aria-describedby", note.id);
    } else {
      fieldset.removeAttribute("aria-invalid");
      fieldset.removeAttribute("aria-describedby");
    }
  }

  function markMissing(ids, reason) {
    marked = { reason: ids.length > 0 ? reason || "missing" : null, ids: ids.slice() };
    let first = null;
    for (const question of pageQuestions()) {
      const missing = ids.includes(String(question.id));
      setMarked(question.fieldset, missing);
      if (missing && !first) first = question.fieldset;
    }
    if (first) {
      const input = first.querySelector("input");
      if (input) input.focus();
    }
  }

  // An answer given after a refused send: its question's mark goes at once, and the summary
  // is rewritten without it (or goes, when nothing is left). The rewrite is silent: the
  // status line is a live region, and a screen reader announcing the shrinking list on
  // every click would drown the answers being given; the next real status speaks again.
  function questionChanged(input) {
    const fieldset = input.closest("fieldset.question");
    if (!fieldset || !marked.reason) return;
    const id = fieldset.dataset.questionId;
    if (!marked.ids.includes(id)) return;
    const truth = chosenTruth(id);
    if (truth === null || (marked.reason === "number" && truth === undefined)) return;
    marked.ids = marked.ids.filter(function (other) { return other !== id; });
    setMarked(fieldset, false);
    const numbers = pageQuestions()
      .filter(function (question) { return marked.ids.includes(String(question.id)); })
      .map(function (question) { return question.number; });
    if (numbers.length === 0) {
      marked.reason = null;
      say("", false, { quietly: true });
    } else {
      say(missingMessage(numbers), true, { quietly: true });
    }
  }
  document.getElementById("survey-form").addEventListener("input", function (event) {
    if (event.target.matches("fieldset.question input")) questionChanged(event.target);
  });
  document.getElementById("survey-form").addEventListener("change", function (event) {
    if (event.target.matches("fieldset.question input")) questionChanged(event.target);
  });

  // --- what this device remembers
  // The consent and its hint belong to answering: hidden while there is nothing to answer.
  function showConsent(visible) {
    const consent = document.getElementById("consent");
    if (consent) consent.hidden = !visible;
    showConsentHint(visible);
  }

  // "Sending is possible once you have ticked that you agree": only while it is not ticked.
  // The send button is described by the hint only while it shows (a hidden element named
  // by aria-describedby would still be read out).
  function showConsentHint(visible) {
    const hint = document.getElementById("consent-hint");
    if (!hint) return;
    hint.hidden = !visible || consentGiven();
    if (hint.hidden) submitButton.removeAttribute("aria-describedby");
    else submitButton.setAttribute("aria-describedby", hint.id);
  }

  // Already answered: the stored reports are shown instead of the questions, whose empty
  // choices would invite answering again.
  function showQuestions(visible) {
    document.querySelectorAll("fieldset.question").forEach(function (fieldset) {
      fieldset.hidden = !visible;
    });
  }

  function showAlreadyAnswered(state) {
    setChoicesEnabled(false);
    showConsent(false);
    showQuestions(false);
    submitButton.hidden = true;
    submitButton.disabled = true;
    listReports(document.getElementById("memo-reports"), state.reports);
    memoNote.hidden = false;
    storageWarning.hidden = true;
    showContinue(state.completion_url, document.getElementById("memo-shared"));
  }

  function forgetHere() {
    core.forget(deps.storage, slug);
  }

  document.getElementById("memo-clear").addEventListener("click", function () {
    forgetHere();
    memoNote.hidden = true;
    continueBlock.hidden = true;
    storageWarning.hidden = device.remembers;
    submitButton.hidden = false;
    showConsent(true);
    showQuestions(true);
    markMissing([]);
    if (accepting) {
      setChoicesEnabled(true);
      enableSending();
    }
    say(message("js-forgot"));
  });

  // --- the Sent page
  let shownReceipt = null; // only in this page's memory, shown this once

  function showSent(reports, receipt, completionUrl) {
    stopCountdown();
    setChoicesEnabled(false);
    say("");
    listReports(document.getElementById("sent-reports"), reports);
    shownReceipt = receipt;
    document.getElementById("receipt").textContent = receipt;
    document.getElementById("survey-form").hidden = true;
    memoNote.hidden = true;
    storageWarning.hidden = true;
    // Without storage nothing is kept, so nothing is there to forget.
    document.getElementById("sent-kept").hidden = !device.remembers;
    document.getElementById("sent-forget").hidden = !device.remembers;
    showContinue(completionUrl, document.getElementById("sent-kept"));
    sentSection.hidden = false;
    document.getElementById("submitted-heading").focus();
  }

  // "Continue" back to the study (issue 35): the survey's completion link, whose {name}
  // placeholders take the parameters of the link this page was opened with (form-tokens.js
  // read them, in memory only). After a reload they are gone: the placeholders stay empty
  // and the page says so. The block goes before `before`, on the Sent page or the memo.
  const continueBlock = document.getElementById("continue");
  function showContinue(completionUrl, before) {
    if (!completionUrl) return;
    const link = globalThis.DeniableFormLink;
    const filled = core.completionHref(completionUrl, link ? link.parameters : null);
    document.getElementById("continue-link").href = filled.href;
    document.getElementById("continue-missing").hidden = filled.missing.length === 0;
    before.before(continueBlock);
    continueBlock.hidden = false;
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
        function () { receiptSay(message("js-copied")); },
        function () { selectReceipt(); receiptSay(message("js-selected")); },
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
    receiptSay(message(copied ? "js-copied" : "js-selected"));
  });

  document.getElementById("receipt-download").addEventListener("click", function () {
    if (!shownReceipt) return;
    const text = [
      message("js-receipt-file-title", { title: document.querySelector("h1").textContent }),
      "",
      shownReceipt,
      "",
      message("js-receipt-file-link", { url: location.origin + "/s/" + slug + "/receipt" }),
      message("js-receipt-file-secret"),
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
    receiptSay(message("js-downloaded", { file: link.download }));
  });

  document.getElementById("sent-forget").addEventListener("click", function () {
    forgetHere();
    receiptSay(message("js-sent-forgot"));
  });

  // --- sending
  async function deliver(state) {
    submitButton.disabled = true;
    const outcome = await core.send(deps, slug, state);
    stopCountdown();
    if (outcome.outcome === "stored") {
      showSent(state.reports, outcome.receipt, outcome.completionUrl);
      tellHost();
      return;
    }
    setChoicesEnabled(false);
    showConsent(false);
    submitButton.hidden = true;
    storageWarning.hidden = true;
    say(refusal(outcome), true);
    listReports(document.getElementById("memo-reports"), state.reports);
    memoNote.hidden = false;
  }

  // --- inside another site's frame (issue 35): the host, on an origin the survey lists in
  // embed_origins, hears that a response was stored, and nothing else: no report, receipt
  // or identifier. Posted once per page, to listed origins only (never "*"); where the
  // browser names the parent's origin, to that one alone.
  const framed = window.parent !== window;
  let embedOrigins = null; // from the public definition, when submit() fetched it
  let toldHost = false;
  async function tellHost() {
    if (!framed || toldHost) return;
    toldHost = true;
    if (!embedOrigins) {
      try {
        embedOrigins = (await core.fetchDefinition(deps, slug)).embed_origins;
      } catch (_) {
        return;
      }
    }
    const listed = (Array.isArray(embedOrigins) ? embedOrigins : []).filter(function (origin) {
      return typeof origin === "string" && /^https?:\/\/[^/*\s]+$/.test(origin);
    });
    const ancestors = location.ancestorOrigins;
    const parent = ancestors && ancestors.length > 0 ? ancestors[0] : null;
    const targets = listed.includes(parent) ? [parent] : listed;
    for (const origin of targets) {
      try {
        window.parent.postMessage({ type: "deniable:sent", survey: slug }, origin);
      } catch (_) {
        // an origin the browser cannot parse: nothing to post to
      }
    }
  }

  // A frame has no address bar: the notice offers the survey in a tab of its own, where the
  // respondent can check the address. (The receipt link opens a new tab by its markup: the
  // receipt page refuses every frame.)
  if (framed) {
    const own = document.getElementById("frame-open");
    own.href = location.origin + "/s/" + encodeURIComponent(slug);
    own.textContent = own.href;
    document.getElementById("frame-notice").hidden = false;
  }

  // Why the server refused the reports, in the survey's language (the API's own messages
  // are English).
  function refusal(outcome) {
    switch (outcome.code) {
      case "survey_not_open": return message("js-refused-closed");
      case "response_withdrawn": return message("js-refused-withdrawn");
      case "invitation_invalid":
      case "token_invalid": case "token_spent":
      case "invitation_required": return message("js-refused-invitation");
      default: return message("js-refused", { status: outcome.status });
    }
  }

  // --- consent: with a consent text, nothing is randomized or sent before the respondent
  // ticks that they agree; "Randomize and send" stays disabled until then.
  const consentBox = document.getElementById("consent-checkbox");
  function consentGiven() {
    return !consentBox || consentBox.checked;
  }
  let mechanismReady = false;
  function updateSendButton() {
    submitButton.disabled = submitButton.hidden || !mechanismReady || !consentGiven();
  }
  if (consentBox) {
    consentBox.addEventListener("change", function () {
      updateSendButton();
      showConsentHint(!consentBox.disabled);
      if (consentGiven() && statusLine.textContent === message("js-needs-consent")) say("");
    });
  }

  let submitting = false;
  async function submit() {
    if (submitting) return;
    if (!consentGiven()) {
      say(message("js-needs-consent"), true);
      consentBox.focus();
      return;
    }
    submitting = true;
    submitButton.disabled = true;
    say(message("js-randomizing"));
    let prepared = null;
    try {
      let definition;
      try {
        definition = await core.fetchDefinition(deps, slug);
      } catch (_) {
        throw new Error(message("js-cannot-load"));
      }
      if (definition.status !== "open") throw new Error(message("js-not-open"));
      embedOrigins = definition.embed_origins;
      const token = definition.requires_invitation ? await globalThis.DeniableFormTokens.token() : null;
      const answers = [];
      const missing = [];
      const missingIds = [];
      for (const question of definition.questions) {
        const truth = chosenTruth(question.id);
        if (truth === undefined) {
          markMissing([String(question.id)], "number");
          // The bounds as the page writes them ("0,5" in German).
          const fieldset = document.getElementById("question-" + question.id);
          const whole = question.min % 1 === 0 && question.max % 1 === 0;
          throw new Error(message(whole ? "js-needs-whole-number" : "js-needs-number", {
            number: question.position + 1,
            min: fieldset ? fieldset.dataset.min : question.min,
            max: fieldset ? fieldset.dataset.max : question.max,
          }));
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
        throw new Error(missingMessage(missing));
      }
      const existing = core.readState(deps.storage, slug);
      if (existing) {
        // Another tab answered meanwhile: never flip a second set of coins.
        showAlreadyAnswered(existing);
        say(message("js-other-tab"));
        return;
      }
      prepared = core.prepare(deps, slug, definition.nonce, answers, token);
      answers.forEach(function (answer) { answer.truth = null; });
    } catch (error) {
      say(error.message || String(error), true);
      updateSendButton();
      return;
    } finally {
      submitting = false;
    }
    setChoicesEnabled(false);
    say(message("js-sending"));
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
      function () {
        mechanismReady = true;
        updateSendButton();
      },
      function () {
        noWasm.hidden = false;
        submitButton.disabled = true;
      },
    );
  }

  // --- on load: a pending body is re-sent unchanged; a memo sends nothing
  storageWarning.hidden = device.remembers || !accepting;
  const state = core.readState(deps.storage, slug);
  if (state && state.pending) {
    setChoicesEnabled(false);
    showConsent(false);
    submitButton.hidden = true;
    say(message("js-sending-stored"));
    deliver(state);
  } else if (state) {
    showAlreadyAnswered(state);
  } else if (accepting) {
    enableSending();
  }
})();
