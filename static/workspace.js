// Deniable's researcher workspace: the builder's type and design inputs shown as they apply,
// with what the design means asked of the server while it is typed; and live results
// (results page and present mode) refreshed from the results JSON. No framework, and no
// formula: every figure comes from the server (the randomized-response crate), every
// position on the chart from the chart's data- attributes. Everything the page shows is also
// rendered by the server, so the pages work without this file.
"use strict";

(function () {
  // --- the builder ---------------------------------------------------------------------
  const DEBOUNCE_MS = 250;

  function setText(root, selector, text) {
    root.querySelectorAll(selector).forEach(function (element) {
      element.textContent = text;
    });
  }

  // The survey's total ε: the sum of the saved questions' current ε ("–" while one is refused).
  function updateTotal() {
    const total = document.querySelector("[data-total-epsilon]");
    if (!total) return;
    let sum = 0;
    let complete = true;
    document.querySelectorAll(".questions [data-figures]").forEach(function (meaning) {
      const epsilon = parseFloat(meaning.dataset.epsilon);
      if (Number.isFinite(epsilon)) sum += epsilon;
      else complete = false;
    });
    total.textContent = complete ? sum.toFixed(2) : "–";
  }

  function setUpEditor(editor) {
    const typeSelect = editor.querySelector("[data-design-type]");
    const designSelect = editor.querySelector("[data-design-name]");
    const meaning = editor.querySelector("[data-figures]");
    const refusal = meaning.querySelector("[data-figures-error]");
    const url = editor.dataset.figuresUrl;
    let timer = null;
    let asked = 0;

    editor.querySelectorAll("[data-no-js-hint]").forEach(function (hint) {
      hint.hidden = true;
    });

    // "type:design", as the inputs' data-applies name them; a type with one design says
    // which on its option.
    function chosen() {
      const option = typeSelect.options[typeSelect.selectedIndex];
      return typeSelect.value + ":" + (option.dataset.design || designSelect.value);
    }

    function showInputs() {
      const current = chosen();
      editor.querySelectorAll("[data-applies]").forEach(function (group) {
        const applies = group.dataset.applies.split(" ").indexOf(current) !== -1;
        group.hidden = !applies;
        // A hidden input is not sent either.
        group.querySelectorAll("input, select, textarea").forEach(function (input) {
          input.disabled = !applies;
        });
      });
    }

    function showFigures(figures) {
      refusal.hidden = true;
      refusal.textContent = "";
      setText(meaning, '[data-figure="summary"]', figures.summary);
      setText(meaning, '[data-figure="epsilon"]', figures.display.epsilon);
      setText(meaning, '[data-figure="truth"]', figures.display.truth_probability);
      setText(meaning, '[data-figure="observer"]', figures.observer);
      setText(meaning, '[data-figure="needed-5"]', figures.display.respondents_needed_5);
      setText(meaning, '[data-figure="needed-10"]', figures.display.respondents_needed_10);
      setText(meaning, '[data-figure="planner-target"]', figures.planner_target);
      meaning.dataset.epsilon = String(figures.epsilon);
    }

    function showRefusal(message) {
      refusal.textContent = message;
      refusal.hidden = false;
      ["summary", "observer", "planner-target"].forEach(function (name) {
        setText(meaning, '[data-figure="' + name + '"]', "");
      });
      ["epsilon", "truth", "needed-5", "needed-10"].forEach(function (name) {
        setText(meaning, '[data-figure="' + name + '"]', "–");
      });
      meaning.dataset.epsilon = "";
    }

    async function refresh() {
      const ticket = ++asked;
      const query = new URLSearchParams();
      editor.querySelectorAll("[data-design-input]").forEach(function (input) {
        if (!input.disabled) query.append(input.name, input.value);
      });
      try {
        const response = await fetch(url + "?" + query.toString(), {
          credentials: "same-origin",
          cache: "no-store",
          headers: { Accept: "application/json" },
        });
        const body = await response.json();
        if (ticket !== asked) return; // a newer question was asked meanwhile
        if (response.ok) showFigures(body);
        else showRefusal(body.error ? body.error.message : "HTTP " + response.status);
      } catch (_) {
        if (ticket !== asked) return;
        showRefusal("The figures could not be fetched; saving the question shows them.");
      } finally {
        if (ticket === asked) {
          meaning.removeAttribute("aria-busy");
          meaning.dataset.asked = String(ticket);
          updateTotal();
        }
      }
    }

    function schedule() {
      meaning.setAttribute("aria-busy", "true");
      window.clearTimeout(timer);
      timer = window.setTimeout(refresh, DEBOUNCE_MS);
    }

    editor.addEventListener("input", function (event) {
      if (!event.target.matches("[data-design-input]")) return;
      if (event.target === typeSelect || event.target === designSelect) showInputs();
      schedule();
    });
    editor.addEventListener("change", function (event) {
      if (event.target === typeSelect || event.target === designSelect) {
        showInputs();
        schedule();
      }
    });
    showInputs();
  }

  if (window.fetch) document.querySelectorAll("[data-design-editor]").forEach(setUpEditor);

  // --- live results
  const live = document.getElementById("live-results");
  if (!live || !window.fetch) return;
  const url = live.dataset.resultsUrl;
  const chart = document.getElementById("estimates-chart");
  const note = document.getElementById("refresh-note");
  const REFRESH_MS = 3000;

  function percent(fraction) {
    return (fraction * 100).toFixed(1) + " %";
  }

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
