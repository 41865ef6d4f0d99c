// Deniable's researcher workspace: what ε means while it is typed (the builder), and live
// results (results page and present mode) refreshed from the results JSON. No framework;
// everything the page shows is also rendered by the server, so it works without this file.
"use strict";

(function () {
  // --- the builder: the same formulas as the randomized-response crate
  const PRIOR = 0.1;
  const BETA_95 = 0.05;

  function figures(epsilon) {
    const p = Math.exp(epsilon) / (1 + Math.exp(epsilon));
    const q = 1 - p;
    const r = 2 * p - 1; // tanh(ε/2)
    const needed = function (halfWidth) {
      return Math.ceil(Math.log(2 / BETA_95) / (2 * halfWidth * halfWidth * r * r));
    };
    return {
      truth: p,
      posterior: (PRIOR * p) / (PRIOR * p + (1 - PRIOR) * q),
      needed5: needed(0.05),
      needed10: needed(0.1),
    };
  }

  function percent(fraction) {
    return (fraction * 100).toFixed(1) + " %";
  }

  function validEpsilon(value) {
    return Number.isFinite(value) && value >= 0.01 && value <= 20;
  }

  function explain(input) {
    const meaning = document.getElementById(input.getAttribute("aria-describedby"));
    if (!meaning) return;
    const epsilon = parseFloat(input.value);
    const set = function (selector, text) {
      const output = meaning.querySelector(selector);
      if (output) output.textContent = text;
    };
    if (!validEpsilon(epsilon)) {
      ["[data-truth]", "[data-posterior]", "[data-needed-5]", "[data-needed-10]"].forEach(
        function (selector) { set(selector, "–"); });
      return;
    }
    const f = figures(epsilon);
    set("[data-truth]", percent(f.truth));
    set("[data-posterior]", percent(f.posterior));
    set("[data-needed-5]", String(f.needed5));
    set("[data-needed-10]", String(f.needed10));
  }

  function updateTotal() {
    const total = document.querySelector("[data-total-epsilon]");
    if (!total) return;
    let sum = 0;
    document.querySelectorAll("input[data-epsilon]:not([data-new-question])").forEach(function (input) {
      const epsilon = parseFloat(input.value);
      if (validEpsilon(epsilon)) sum += epsilon;
    });
    total.textContent = sum.toFixed(2);
  }

  document.querySelectorAll("input[data-epsilon]").forEach(function (input) {
    explain(input);
    input.addEventListener("input", function () {
      explain(input);
      updateTotal();
    });
  });

  // --- live results
  const live = document.getElementById("live-results");
  if (!live || !window.fetch) return;
  const url = live.dataset.resultsUrl;
  const chart = document.getElementById("estimates-chart");
  const note = document.getElementById("refresh-note");
  const REFRESH_MS = 3000;

  function interval(bounds) {
    return bounds ? percent(bounds.low) + " to " + percent(bounds.high) : "–";
  }

  function chartX(fraction) {
    const left = parseFloat(chart.dataset.left);
    const width = parseFloat(chart.dataset.width);
    return (left + Math.min(1, Math.max(0, fraction)) * width).toFixed(1);
  }

  function setAll(root, field, text) {
    root.querySelectorAll('[data-field="' + field + '"]').forEach(function (element) {
      element.textContent = text;
    });
  }

  function show(results) {
    let respondents = 0;
    let widest = null;
    results.questions.forEach(function (question) {
      respondents = Math.max(respondents, question.n);
      const chernoff = question.intervals.chernoff;
      if (chernoff) widest = widest === null ? chernoff.half_width : Math.max(widest, chernoff.half_width);
      document.querySelectorAll('[data-question="' + question.id + '"]').forEach(function (row) {
        setAll(row, "n", String(question.n));
        setAll(row, "share", question.n ? percent(question.reported_yes / question.n) : "–");
        setAll(row, "estimate", question.estimate_clipped === null ? "–" : percent(question.estimate_clipped));
        setAll(row, "chernoff", interval(chernoff));
        setAll(row, "exact", interval(question.intervals.exact));
        setAll(row, "anytime", interval(question.intervals.anytime));
      });
      if (chart && chernoff && question.estimate_clipped !== null) {
        const bar = document.getElementById("bar-" + question.id);
        const dot = document.getElementById("dot-" + question.id);
        if (bar) {
          bar.setAttribute("x1", chartX(chernoff.low));
          bar.setAttribute("x2", chartX(chernoff.high));
          bar.removeAttribute("visibility");
        }
        if (dot) {
          dot.setAttribute("cx", chartX(question.estimate_clipped));
          dot.removeAttribute("visibility");
        }
      }
    });
    setAll(document, "respondents", String(respondents));
    setAll(document, "status", results.status);
    setAll(document, "widest", widest === null ? "–" : "±" + percent(widest));
    const progress = document.getElementById("progress");
    if (progress) progress.value = Math.min(respondents, parseFloat(live.dataset.needed));
    live.dataset.refreshed = String((parseInt(live.dataset.refreshed || "0", 10) || 0) + 1);
    if (note) note.textContent = "Updated " + new Date().toLocaleTimeString() + ".";
  }

  async function refresh() {
    try {
      const response = await fetch(url, { credentials: "same-origin", cache: "no-store" });
      if (!response.ok) throw new Error("HTTP " + response.status);
      show(await response.json());
    } catch (_) {
      if (note) note.textContent = "Could not refresh; retrying.";
    } finally {
      window.setTimeout(refresh, REFRESH_MS);
    }
  }

  window.setTimeout(refresh, REFRESH_MS);
})();
