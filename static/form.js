// Deniable's respondent form. The true answers live only in this page's memory: they are
// given to the WebAssembly mechanism, which returns randomized reports, and only those
// reports are sent or stored. Randomness comes from crypto.getRandomValues, mixed by the
// mechanism with the server's nonce; never a non-cryptographic generator.
"use strict";

(function () {
  const WASM_URL = "/static/randomized_response.wasm";
  const SEED_BYTES = 32;
  const ENTRY_BYTES = 16; // per question: f64 ε, truth byte at +8, report byte at +9
  const INPUT_OFFSET = 64; // after device bytes [0, 32) and server nonce [32, 64)

  const page = document.getElementById("survey");
  if (!page) return;
  const slug = page.dataset.slug;
  // A personal invitation link carries its single-use code in the fragment, which is never
  // part of a request line; it is read once and taken out of the address bar.
  const invitation = new URLSearchParams(location.hash.slice(1)).get("invitation");
  if (invitation) history.replaceState(null, "", location.pathname + location.search);
  const memoKey = "deniable:" + slug;
  const submitButton = document.getElementById("submit-button");
  const statusLine = document.getElementById("form-status");
  const memoNote = document.getElementById("memo-note");
  const memoClear = document.getElementById("memo-clear");
  const noWasm = document.getElementById("no-wasm");

  function say(text, isError) {
    statusLine.textContent = text;
    statusLine.classList.toggle("error", Boolean(isError));
  }

  // --- memoized reports: { "<question id>": 0 | 1 } (reports only, never true answers)
  function loadMemo() {
    try {
      const stored = JSON.parse(window.localStorage.getItem(memoKey) || "{}");
      const reports = {};
      for (const [id, report] of Object.entries(stored.reports || {})) {
        if (report === 0 || report === 1) reports[id] = report;
      }
      return reports;
    } catch (_) {
      return {};
    }
  }

  function saveMemo(reports) {
    try {
      window.localStorage.setItem(memoKey, JSON.stringify({ reports: reports }));
    } catch (_) {
      // Storage may be disabled; a revisit then flips new coins, which the note explains.
    }
  }

  function showMemoNote() {
    memoNote.hidden = Object.keys(loadMemo()).length === 0;
  }

  memoClear.addEventListener("click", function () {
    try {
      window.localStorage.removeItem(memoKey);
    } catch (_) {
      /* nothing stored */
    }
    showMemoNote();
    say("The stored reports were forgotten. A new submission flips new coins.");
  });

  // --- the mechanism
  let mechanism = null;

  async function loadMechanism() {
    if (typeof WebAssembly !== "object" || !window.crypto || !window.crypto.getRandomValues) {
      throw new Error("unsupported");
    }
    let instance;
    if (WebAssembly.instantiateStreaming) {
      ({ instance } = await WebAssembly.instantiateStreaming(fetch(WASM_URL), {}));
    } else {
      const bytes = await (await fetch(WASM_URL)).arrayBuffer();
      ({ instance } = await WebAssembly.instantiate(bytes, {}));
    }
    return instance.exports;
  }

  function hexToBytes(hex) {
    if (!/^[0-9a-f]{64}$/.test(hex)) throw new Error("bad nonce");
    const bytes = new Uint8Array(SEED_BYTES);
    for (let i = 0; i < SEED_BYTES; i++) bytes[i] = parseInt(hex.substr(2 * i, 2), 16);
    return bytes;
  }

  // answers: [{ epsilon, truth: 0|1 }] in question order → reports [0|1]
  function randomize(nonceHex, answers) {
    const memory = mechanism.memory;
    const base = mechanism.rr_buffer();
    const size = INPUT_OFFSET + ENTRY_BYTES * answers.length;
    let view = new DataView(memory.buffer, base, size);
    const device = new Uint8Array(SEED_BYTES);
    window.crypto.getRandomValues(device);
    const nonce = hexToBytes(nonceHex);
    for (let i = 0; i < SEED_BYTES; i++) {
      view.setUint8(i, device[i]);
      view.setUint8(SEED_BYTES + i, nonce[i]);
    }
    device.fill(0);
    answers.forEach(function (answer, i) {
      const at = INPUT_OFFSET + ENTRY_BYTES * i;
      view.setFloat64(at, answer.epsilon, true);
      view.setUint8(at + 8, answer.truth);
      view.setUint8(at + 9, 0);
    });
    const status = mechanism.rr_randomize(answers.length);
    view = new DataView(memory.buffer, base, size); // memory may have grown
    const reports = answers.map(function (_, i) {
      return view.getUint8(INPUT_OFFSET + ENTRY_BYTES * i + 9);
    });
    new Uint8Array(memory.buffer, base, size).fill(0); // forget truths and seed
    if (status !== answers.length) throw new Error("the mechanism refused the input (" + status + ")");
    return reports;
  }

  // --- reading the page (true answers stay in local variables only)
  function chosenTruth(questionId) {
    const yes = document.getElementById("q" + questionId + "-yes");
    const no = document.getElementById("q" + questionId + "-no");
    if (yes && yes.checked) return 1;
    if (no && no.checked) return 0;
    return null;
  }

  function clearChoices() {
    document.querySelectorAll("#survey-form input[type=radio]").forEach(function (input) {
      input.checked = false;
      input.disabled = true;
    });
  }

  function showSent(definition, reports, receipt) {
    const list = document.getElementById("sent-reports");
    list.replaceChildren();
    for (const question of definition.questions) {
      const report = reports[String(question.id)];
      if (report === undefined) continue;
      const item = document.createElement("li");
      item.textContent = (question.position + 1) + ". " + question.text + " — report: " + (report === 1 ? "Yes" : "No");
      list.appendChild(item);
    }
    document.getElementById("receipt").textContent = receipt;
    document.getElementById("receipt-view-path").textContent =
      "/api/surveys/" + slug + "/responses/" + receipt;
    document.getElementById("survey-form").hidden = true;
    const section = document.getElementById("submitted");
    section.hidden = false;
    document.getElementById("submitted-heading").focus();
  }

  async function submit() {
    submitButton.disabled = true;
    say("Randomizing on this device…");
    try {
      const response = await fetch("/api/surveys/" + encodeURIComponent(slug), { cache: "no-store" });
      if (!response.ok) throw new Error("cannot load the survey (" + response.status + ")");
      const definition = await response.json();
      if (definition.status !== "open") throw new Error("this survey is " + definition.status + "; nothing was sent");
      if (definition.requires_invitation && !invitation) {
        throw new Error("This survey needs your personal invitation link. Nothing was sent.");
      }

      const memo = loadMemo();
      const fresh = []; // questions to randomize now, in question order
      const missing = [];
      for (const question of definition.questions) {
        const id = String(question.id);
        if (memo[id] !== undefined) continue;
        const truth = chosenTruth(question.id);
        if (truth === null) {
          if (question.required) missing.push(question.position + 1);
          continue;
        }
        fresh.push({ id: id, epsilon: question.epsilon, truth: truth });
      }
      if (missing.length > 0) {
        throw new Error("Please answer question " + missing.join(", ") + ". Nothing was sent.");
      }
      const reports = {};
      for (const question of definition.questions) {
        const id = String(question.id);
        if (memo[id] !== undefined) reports[id] = memo[id];
      }
      if (fresh.length > 0) {
        const randomized = randomize(definition.nonce, fresh);
        fresh.forEach(function (answer, i) {
          reports[answer.id] = randomized[i];
          answer.truth = null;
        });
      }
      if (Object.keys(reports).length === 0) throw new Error("Please answer at least one question.");

      const sent = await fetch("/api/surveys/" + encodeURIComponent(slug) + "/responses", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(invitation ? { answers: reports, invitation: invitation } : { answers: reports }),
        cache: "no-store",
        credentials: "omit",
      });
      const body = await sent.json().catch(function () { return {}; });
      if (sent.status !== 201) {
        const message = body.error && body.error.message ? body.error.message : "status " + sent.status;
        throw new Error("The server refused the reports: " + message);
      }
      saveMemo(Object.assign({}, memo, reports));
      clearChoices();
      say("");
      showSent(definition, reports, body.receipt);
    } catch (error) {
      say(error.message || String(error), true);
      submitButton.disabled = submitButton.dataset.accepting !== "true";
    }
  }

  showMemoNote();
  if (submitButton.dataset.accepting !== "true") return;
  submitButton.disabled = true;
  loadMechanism()
    .then(function (exports) {
      mechanism = exports;
      submitButton.disabled = false;
      submitButton.addEventListener("click", submit);
    })
    .catch(function () {
      noWasm.hidden = false;
      submitButton.disabled = true;
    });
})();
