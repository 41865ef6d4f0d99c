// Deniable's researcher workspace: the builder's type and design inputs shown as they apply,
// with what the design means asked of the server while it is typed; and live results
// (results page and present mode) refreshed from the results JSON. No framework, and no
// formula: every figure comes from the server (the randomized-response crate), every
// position on a chart from the chart's data- attributes. Everything the page shows is also
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
    const values = meaning.querySelector("[data-figures-values]");
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
      values.hidden = false;
      setText(meaning, '[data-figure="summary"]', figures.summary);
      setText(meaning, '[data-figure="epsilon"]', figures.display.epsilon);
      setText(meaning, '[data-figure="truth"]', figures.display.truth_probability);
      setText(meaning, '[data-figure="observer"]', figures.observer);
      setText(meaning, '[data-figure="needed-5"]', figures.display.respondents_needed_5);
      setText(meaning, '[data-figure="needed-10"]', figures.display.respondents_needed_10);
      setText(meaning, '[data-figure="chernoff-5"]', figures.display.chernoff_needed_5);
      setText(meaning, '[data-figure="chernoff-10"]', figures.display.chernoff_needed_10);
      setText(meaning, '[data-figure="planner-target"]', figures.planner_target);
      meaning.dataset.epsilon = String(figures.epsilon);
    }

    function showRefusal(message) {
      refusal.textContent = message;
      refusal.hidden = false;
      values.hidden = true;
      ["summary", "observer", "planner-target"].forEach(function (name) {
        setText(meaning, '[data-figure="' + name + '"]', "");
      });
      ["epsilon", "truth", "needed-5", "needed-10", "chernoff-5", "chernoff-10"].forEach(function (name) {
        setText(meaning, '[data-figure="' + name + '"]', "–");
      });
      meaning.dataset.epsilon = "";
    }

    async function refresh() {
      const ticket = ++asked;
      const query = new URLSearchParams();
      editor.querySelectorAll("[data-design-input]").forEach(function (input) {
        // The figures route takes the bare names (the builder's form prefixes them: q0-epsilon).
        if (!input.disabled) query.append(input.dataset.designInput || input.name, input.value);
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

  // The planner's button sets the target to the exact interval's count (the server's figure).
  document.querySelectorAll("[data-fill-target]").forEach(function (button) {
    const input = document.getElementById("target-responses");
    if (!input) return;
    button.hidden = false;
    button.addEventListener("click", function () {
      input.value = button.dataset.fillTarget;
      input.focus();
    });
  });

  // The results page's "Copy link": the respondent link to the clipboard, where allowed.
  const copy = document.getElementById("copy-link");
  if (copy && navigator.clipboard) {
    const status = document.getElementById("copy-status");
    copy.hidden = false;
    copy.addEventListener("click", function () {
      navigator.clipboard.writeText(copy.dataset.copy).then(
        function () {
          if (status) status.textContent = "Copied.";
        },
        function () {
          if (status) status.textContent = "Could not copy: select the link instead.";
        },
      );
    });
  }

  // --- live results --------------------------------------------------------------------
  const live = document.getElementById("live-results");
  // A closed survey's figures are final: nothing to refresh.
  if (!live || !window.fetch || live.dataset.polling === "false") return;
  const url = live.dataset.resultsUrl;
  const note = document.getElementById("refresh-note");
  const REFRESH_MS = 3000;
  // Wider primary intervals than this (a share, or a mean's fraction of its range): the
  // page shows ranges in whole units and says the question cannot be read closely yet.
  const READABLE = parseFloat(live.dataset.readableHalfWidth);

  function percent(fraction, decimals) {
    return (fraction * 100).toFixed(decimals === undefined ? 1 : decimals) + " %";
  }

  // A chart row's figure: the estimate, or while too uncertain its range in whole units.
  function headline(card, estimate, bounds, format, rough) {
    if (card.dataset.flagged === "true") return "not shown";
    if (card.dataset.readable === "false" && bounds) return bounds.empty ? "empty" : rough(bounds);
    return estimate === null ? "–" : format(estimate);
  }

  function roughPercent(bounds) {
    return (bounds.low * 100).toFixed(0) + "–" + (bounds.high * 100).toFixed(0) + " %";
  }

  // The widest primary half-width of a question, as a fraction of each target's range.
  function widestPrimary(question) {
    let widest = null;
    const widen = function (intervals, primary, range) {
      const bounds = primary ? intervals[primary] : null;
      if (!bounds) return;
      const width = bounds.half_width / range;
      widest = widest === null ? width : Math.max(widest, width);
    };
    widen(question.intervals, question.primary, 1);
    (question.options || []).forEach(function (option) {
      widen(option.intervals, option.primary, 1);
    });
    if (question.mean) widen(question.mean.intervals, question.mean.primary, question.mean.max - question.mean.min);
    return widest;
  }

  // The card's sentence: both wordings are in the page, the one that applies shown; each
  // gets its range (a yes share or a mean) or its options' widest interval.
  function showReading(card, question, readable) {
    card.querySelectorAll("[data-reading]").forEach(function (reading) {
      reading.querySelectorAll("[data-precision]").forEach(function (wording) {
        wording.hidden = (wording.dataset.precision === "fine") !== readable;
        const decimals = parseInt(wording.dataset.decimals, 10) || 0;
        const format = reading.dataset.percent === "true"
          ? function (value) { return percent(value, decimals); }
          : function (value) { return value.toFixed(decimals); };
        const range = wording.querySelector("[data-reading-target]");
        if (range) {
          const target = range.dataset.readingTarget === "mean" ? question.mean : question;
          const bounds = target && target.primary ? target.intervals[target.primary] : null;
          if (bounds && !bounds.empty) {
            setAll(wording, "reading-low", format(bounds.low));
            setAll(wording, "reading-high", format(bounds.high));
          }
        }
        const widest = widestPrimary(question);
        if (widest !== null) setAll(wording, "reading-widest", (widest * 100).toFixed(decimals));
      });
    });
  }

  // An interval in words: "empty" when it lies wholly outside the target's range (the
  // page's note says why), as the server writes it.
  function interval(bounds, format) {
    if (!bounds) return "–";
    if (bounds.empty || bounds.low === null || bounds.high === null) return "empty";
    return format(bounds.low) + " to " + format(bounds.high);
  }

  // The primary method's one-sided bounds in words, as the server writes them.
  function oneSided(bounds, primary, format) {
    if (!bounds || !primary) return "–";
    const low = bounds.lower[primary];
    const high = bounds.upper[primary];
    if (low === null || low === undefined || high === null || high === undefined) return "–";
    return "at least " + format(low) + ", at most " + format(high);
  }

  function pText(p) {
    return p < 1e-4 ? "< 0.0001" : p.toFixed(4);
  }

  function test(result) {
    if (!result || result.p_value === null || !result.test) return "–";
    return "p = " + pText(result.p_value) + " (" + result.test + ")";
  }

  function setAll(root, field, text) {
    root.querySelectorAll('[data-field="' + field + '"]').forEach(function (element) {
      element.textContent = text;
    });
  }

  // A value's x on a chart's track, from the geometry the server put on the track.
  function trackX(track, value) {
    const left = parseFloat(track.dataset.left);
    const width = parseFloat(track.dataset.width);
    const min = parseFloat(track.dataset.min);
    const max = parseFloat(track.dataset.max);
    const fraction = Math.min(1, Math.max(0, (value - min) / (max - min)));
    return left + fraction * width;
  }

  // The chart draws the primary interval (none while blinded).
  function draw(scope, estimate, primary) {
    scope.querySelectorAll("svg.track").forEach(function (track) {
      const shown = estimate !== null && primary && !primary.empty;
      track.querySelectorAll("[data-bar], [data-interval], [data-mark]").forEach(function (part) {
        if (shown) part.removeAttribute("visibility");
        else part.setAttribute("visibility", "hidden");
      });
      if (!shown) return;
      const bar = track.querySelector("[data-bar]");
      if (bar) {
        const start = trackX(track, parseFloat(track.dataset.min));
        bar.setAttribute("width", (trackX(track, estimate) - start).toFixed(2));
      }
      const line = track.querySelector("[data-interval]");
      if (line) {
        line.setAttribute("x1", trackX(track, primary.low).toFixed(2));
        line.setAttribute("x2", trackX(track, primary.high).toFixed(2));
      }
      const mark = track.querySelector("[data-mark]");
      if (mark) {
        const x = trackX(track, estimate).toFixed(2);
        mark.setAttribute("x1", x);
        mark.setAttribute("x2", x);
      }
    });
  }

  // One share (a yes/no question's "Yes", or an option): its table row, chart row and
  // present mode's headline, all marked data-option="<report index>".
  function showShare(card, index, reported, estimate, intervals, primary, share) {
    const flagged = card.dataset.flagged === "true";
    card.querySelectorAll('[data-option="' + index + '"]').forEach(function (scope) {
      setAll(scope, "reported", reported === null ? "–" : String(reported));
      setAll(scope, "estimate", flagged ? "not shown" : estimate === null ? "–" : percent(estimate));
      setAll(scope, "headline", headline(card, estimate, primary ? intervals[primary] : null, percent, roughPercent));
      setAll(scope, "bounds", oneSided(share.bounds, primary, percent));
      setAll(scope, "test", test(share.test));
      setAll(scope, "chernoff", interval(intervals.chernoff, percent));
      setAll(scope, "exact", interval(intervals.exact, percent));
      setAll(scope, "anytime", interval(intervals.anytime, percent));
      draw(scope, flagged ? null : estimate, primary ? intervals[primary] : null);
    });
  }

  function showMean(card, mean) {
    card.querySelectorAll("[data-mean]").forEach(function (scope) {
      const decimals = parseInt(scope.dataset.decimals, 10) || 0;
      const format = function (value) {
        return value.toFixed(decimals);
      };
      const rough = function (bounds) {
        return format(bounds.low) + "–" + format(bounds.high);
      };
      setAll(scope, "estimate", mean.estimate_clipped === null ? "–" : format(mean.estimate_clipped));
      setAll(scope, "headline", headline(card, mean.estimate_clipped, mean.primary ? mean.intervals[mean.primary] : null, format, rough));
      setAll(scope, "chernoff", interval(mean.intervals.chernoff, format));
      setAll(scope, "exact", interval(mean.intervals.exact, format));
      setAll(scope, "anytime", interval(mean.intervals.anytime, format));
      setAll(scope, "bounds", oneSided(mean.bounds, mean.primary, format));
      draw(scope, mean.estimate_clipped, mean.primary ? mean.intervals[mean.primary] : null);
    });
  }

  function show(results) {
    // Blinded and unblinded pages differ in what they hold: a change (the survey closed at
    // its rule, or was unblinded) loads the page again.
    // So does a survey closed meanwhile (its page then stops refreshing).
    if (String(results.blinded) !== live.dataset.blinded || results.status !== live.dataset.status) {
      window.location.reload();
      return;
    }
    // Responses received (live; for an invitation survey as of the last consideration): the
    // figures below come from the released ones only.
    const respondents = results.responses;
    let widest = null;
    // The planner's targets: a share, or a number's mean as a fraction of its range.
    const widen = function (bounds, range) {
      if (!bounds) return;
      const width = bounds.half_width / range;
      widest = widest === null ? width : Math.max(widest, width);
    };
    results.questions.forEach(function (question) {
      widen(question.intervals.chernoff, 1);
      (question.options || []).forEach(function (option) {
        widen(option.intervals.chernoff, 1);
      });
      if (question.type === "number" && question.mean) {
        widen(question.mean.intervals.chernoff, question.mean.max - question.mean.min);
      }
      const flagged = Boolean(question.consistency && question.consistency.flagged);
      const widest = widestPrimary(question);
      const readable = widest !== null && widest <= READABLE;
      document.querySelectorAll('[data-question="' + question.id + '"]').forEach(function (card) {
        // The consistency warning comes with the page: a change loads it again.
        if (card.dataset.flagged !== undefined && String(flagged) !== card.dataset.flagged) {
          window.location.reload();
          return;
        }
        card.dataset.readable = String(readable);
        setAll(card, "n", String(question.n));
        if (question.type === "yes_no") {
          showShare(card, 1, question.reported_yes, question.estimate_clipped, question.intervals, question.primary, question);
        }
        (question.options || []).forEach(function (option, index) {
          showShare(card, index, option.reported, option.estimate_clipped, option.intervals, option.primary, option);
        });
        if (question.mean) showMean(card, question.mean);
        showReading(card, question, readable);
      });
    });
    setAll(document, "respondents", String(respondents));
    // Null while the survey withholds its results until close: the page then has no such field.
    if (results.release.released_responses !== null) {
      setAll(document, "released", String(results.release.released_responses));
      setAll(document, "withheld", String(results.release.withheld_responses));
    }
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
