// The respondent's form in a real browser (Debian's chromium through playwright-core),
// against the release server on a fresh database. Every request the page makes is recorded,
// with its headers and body, and so are console messages, page errors and CSP violations.
//
// Run: cargo build --release && node --test tests/browser/

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import {
  chooseWithMouse,
  launchBrowser,
  openInstrumentedPage,
  problems,
  questionIds,
  serverBinary,
  startServer,
  submitAndWait,
  writeReport,
} from './harness.mjs';

const DEMO = 'demo';
const TIMEOUT = { timeout: 90_000 };
/** A generous ceiling: the page, its stylesheet, script, wasm, definition and the POST. */
const TRANSFER_BOUND_BYTES = 200 * 1024;

// Fail at once, with the message saying how to build it, when the release binary is missing.
serverBinary();

let server;
let browser;

before(async () => {
  server = await startServer();
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

/** Runs `body` with a fresh context and page, then closes them. */
async function withPage(options, body) {
  const session = await openInstrumentedPage(browser, options);
  try {
    return await body(session);
  } finally {
    await session.context.close();
  }
}

/** Opens a survey's form and waits until the mechanism is loaded (the button is enabled). */
async function openForm(page, slug) {
  const response = await page.goto(`${server.origin}/s/${slug}`);
  assert.equal(response.status(), 200, `GET /s/${slug}`);
  await page.locator('#submit-button:enabled').waitFor();
  return response;
}

function assertNoProblems(log) {
  assert.deepEqual(problems(log), { consoleErrors: [], pageErrors: [], cspViolations: [] });
}

/** The body must be exactly {"answers": {<id>: 0|1}} over the given question ids. */
function assertReportsOnly(rawBody, ids) {
  const body = JSON.parse(rawBody);
  assert.equal(rawBody, JSON.stringify(body), 'the POST body is plain JSON with nothing else');
  assert.deepEqual(Object.keys(body), ['answers'], 'the POST body holds only "answers"');
  assert.deepEqual(
    Object.keys(body.answers).sort(),
    ids.map(String).sort(),
    'one report per question of the survey, no other key',
  );
  for (const [id, report] of Object.entries(body.answers)) {
    assert.ok(report === 0 || report === 1, `report of question ${id} is 0 or 1, not ${report}`);
  }
  return body;
}

function pathOf(url) {
  return new URL(url).pathname;
}

/**
 * A new open survey of `count` questions, all at ε = 20, the top of the range: the device
 * lies with probability about 2e-9, so the reports of fresh coins are the chosen answers.
 */
function createTopEpsilonSurvey(count) {
  return server.createOpenSurvey({
    title: 'Control: the top of the privacy range',
    description: 'With ε = 20 the device lies with probability about 2e-9.',
    questions: Array.from({ length: count }, (_, n) => ({
      text: `Control question ${n + 1}?`,
      epsilon: 20,
      required: true,
    })),
  });
}

describe('the respondent form in a real browser', () => {
  test('the demo form is filled with the keyboard and mouse and submitted, and only reports are sent', TIMEOUT, async () => {
    await withPage({}, async ({ context, page, log }) => {
      await openForm(page, DEMO);
      const ids = await questionIds(page);
      assert.equal(ids.length, 3, 'the demo has three questions');
      const [first, second, third] = ids;

      // Question 1 with the mouse: a click on the label "Yes".
      await page.locator(`label[for="q${first}-yes"]`).click();
      assert.ok(await page.locator(`#q${first}-yes`).isChecked());

      // Questions 2 and 3 with the keyboard: Tab into each group, Space to choose,
      // an arrow key to move to the other answer.
      const focused = () => page.evaluate(() => document.activeElement?.id ?? '');
      for (let presses = 0; (await focused()) !== `q${second}-yes`; presses++) {
        assert.ok(presses < 10, `Tab never reached question 2 (focus on "${await focused()}")`);
        await page.keyboard.press('Tab');
      }
      await page.keyboard.press('Space');
      assert.ok(await page.locator(`#q${second}-yes`).isChecked(), 'Space chooses Yes');
      await page.keyboard.press('ArrowRight');
      assert.ok(await page.locator(`#q${second}-no`).isChecked(), 'an arrow key moves to No');
      await page.keyboard.press('Tab');
      assert.equal(await focused(), `q${third}-yes`, 'Tab moves on to question 3');
      await page.keyboard.press('Space');
      assert.ok(await page.locator(`#q${third}-yes`).isChecked());
      await page.keyboard.press('Tab');
      assert.equal(await focused(), 'submit-button', 'Tab reaches the send button');

      const { rawBody, receipt } = await submitAndWait(page, DEMO, { press: 'Enter' });
      const body = assertReportsOnly(rawBody, ids);

      // The receipt is shown, and with it the server holds exactly the posted reports.
      assert.match(receipt, /^\S{16,}$/, 'a receipt is shown');
      assert.equal(await page.locator('#sent-reports li').count(), 3, 'the sent reports are listed');
      const stored = await fetch(`${server.origin}/api/surveys/${DEMO}/responses/${receipt}`);
      assert.equal(stored.status, 200);
      const storedReports = Object.fromEntries(
        (await stored.json()).reports.map((report) => [String(report.question_id), report.report]),
      );
      assert.deepEqual(storedReports, body.answers, 'the server stored what was posted');

      // No URL, header or cookie carries anything: the only body is the POST's.
      const allowed = new Set([
        `/s/${DEMO}`,
        '/static/form.css',
        '/static/form.js',
        '/static/randomized_response.wasm',
        `/api/surveys/${DEMO}`,
        `/api/surveys/${DEMO}/responses`,
      ]);
      for (const entry of log.requests) {
        const url = new URL(entry.url);
        assert.ok(allowed.has(url.pathname), `unexpected request ${entry.method} ${entry.url}`);
        assert.equal(url.search, '', `no query string on ${entry.url}`);
        assert.equal(url.hash, '', `no fragment on ${entry.url}`);
        if (entry.url !== `${server.origin}/api/surveys/${DEMO}/responses`) {
          assert.equal(entry.postData, null, `no body on ${entry.method} ${entry.url}`);
        }
        const headers = await entry.headers;
        assert.ok(headers, `headers of ${entry.url} were recorded`);
        assert.equal(headers.cookie, undefined, `no cookie sent with ${entry.url}`);
        for (const [name, value] of Object.entries(headers)) {
          assert.doesNotMatch(
            `${name}: ${value}`,
            /answer|truth|report|\bq\d+\b/i,
            `header of ${entry.url} mentions no answer`,
          );
        }
      }
      assert.equal(
        log.requests.filter((entry) => entry.method === 'POST').length,
        1,
        'exactly one POST',
      );
      assert.deepEqual(await context.cookies(), [], 'no cookie was set');
      assertNoProblems(log);
    });
  });

  test('with ε = 20 on every question the posted reports equal the chosen answers (control)', TIMEOUT, async () => {
    const slug = await createTopEpsilonSurvey(4);
    await withPage({}, async ({ page, log }) => {
      await openForm(page, slug);
      const ids = await questionIds(page);
      assert.equal(ids.length, 4);
      const chosen = [1, 0, 0, 1];
      await chooseWithMouse(page, ids, chosen);
      const { rawBody } = await submitAndWait(page, slug);
      const body = assertReportsOnly(rawBody, ids);
      assert.deepEqual(
        body.answers,
        Object.fromEntries(ids.map((id, index) => [String(id), chosen[index]])),
        'at ε = 20 the reports are the true answers: the test would see them if they were sent',
      );
      assertNoProblems(log);
    });
  });

  test('after submitting, localStorage holds only the sent reports and there are no cookies', TIMEOUT, async () => {
    await withPage({}, async ({ context, page, log }) => {
      await openForm(page, DEMO);
      const ids = await questionIds(page);
      await chooseWithMouse(page, ids, [1, 0, 1]);
      const { body } = await submitAndWait(page, DEMO);

      const storage = await page.evaluate(() => ({
        local: Object.fromEntries(Object.keys(localStorage).map((key) => [key, localStorage.getItem(key)])),
        sessionKeys: Object.keys(sessionStorage),
        cookie: document.cookie,
      }));
      assert.deepEqual(Object.keys(storage.local), [`deniable:${DEMO}`], 'one localStorage entry, for this survey');
      const memo = JSON.parse(storage.local[`deniable:${DEMO}`]);
      assert.deepEqual(memo, { reports: body.answers }, 'the entry is exactly the sent reports, no true answer');
      assert.deepEqual(storage.sessionKeys, [], 'sessionStorage is empty');
      assert.equal(storage.cookie, '', 'document.cookie is empty');
      assert.deepEqual(await context.cookies(), [], 'the browser holds no cookie');
      assertNoProblems(log);
    });
  });

  // At ε = 20 fresh coins report the chosen answers, so a revisit that flipped new coins for
  // different answers could not re-send the first reports by chance: the check is exact.
  test('a revisit re-sends exactly the memoized reports with a visible note, and "forget" clears them', TIMEOUT, async () => {
    const slug = await createTopEpsilonSurvey(3);
    const memoKey = `deniable:${slug}`;
    await withPage({}, async ({ page, log }) => {
      await openForm(page, slug);
      const ids = await questionIds(page);
      assert.ok(await page.locator('#memo-note').isHidden(), 'no note on a first visit');
      await chooseWithMouse(page, ids, [1, 1, 0]);
      const first = await submitAndWait(page, slug);
      assertReportsOnly(first.rawBody, ids);

      // Revisit: different answers, the same reports.
      await page.reload();
      await page.locator('#submit-button:enabled').waitFor();
      assert.ok(await page.locator('#memo-note').isVisible(), 'the memo note is shown on a revisit');
      await chooseWithMouse(page, ids, [0, 0, 1]);
      const second = await submitAndWait(page, slug);
      assert.equal(second.rawBody, first.rawBody, 'the revisit re-sent exactly the memoized reports');
      assert.notEqual(second.receipt, first.receipt, 'each submission has its own receipt');

      // Forget: the note goes, the storage entry too, and new coins are flipped next time.
      await page.reload();
      await page.locator('#submit-button:enabled').waitFor();
      assert.ok(await page.locator('#memo-note').isVisible());
      await page.locator('#memo-clear').click();
      await page.locator('#memo-note').waitFor({ state: 'hidden' });
      assert.equal(await page.evaluate((key) => localStorage.getItem(key), memoKey), null);
      assert.match(await page.locator('#form-status').textContent(), /forgotten/i);
      await chooseWithMouse(page, ids, [0, 0, 1]);
      const third = await submitAndWait(page, slug);
      assertReportsOnly(third.rawBody, ids);
      assert.deepEqual(
        third.body.answers,
        Object.fromEntries(ids.map((id, index) => [String(id), [0, 0, 1][index]])),
        'after forgetting, new coins were flipped for the new answers',
      );
      assert.deepEqual(
        JSON.parse(await page.evaluate((key) => localStorage.getItem(key), memoKey)),
        { reports: third.body.answers },
        'and the new reports are memoized',
      );
      assert.equal(log.requests.filter((entry) => entry.method === 'POST').length, 3);
      assertNoProblems(log);
    });
  });

  test('randomness comes from crypto.getRandomValues (32 bytes) and never from Math.random', TIMEOUT, async () => {
    await withPage({}, async ({ page, log }) => {
      await openForm(page, DEMO);
      const ids = await questionIds(page);
      await chooseWithMouse(page, ids, [0, 1, 0]);
      await submitAndWait(page, DEMO);
      const randomness = await page.evaluate(() => ({ ...window.__deniableRandomness }));
      assert.equal(randomness.mathRandomCalls, 0, 'Math.random was never called');
      assert.ok(
        randomness.getRandomValuesBytes.includes(32),
        `crypto.getRandomValues was called for 32 bytes (calls: ${JSON.stringify(randomness.getRandomValuesBytes)})`,
      );
      // The recorder itself works: one call from the test is counted.
      const counted = await page.evaluate(() => {
        Math.random();
        return window.__deniableRandomness.mathRandomCalls;
      });
      assert.equal(counted, 1, 'the Math.random recorder was in place');
      assertNoProblems(log);
    });
  });

  test('no request leaves the origin, nothing errs or violates the CSP, and the page carries the CSP', TIMEOUT, async () => {
    await withPage({}, async ({ page, log }) => {
      const response = await openForm(page, DEMO);
      const ids = await questionIds(page);
      await chooseWithMouse(page, ids, [1, 0, 0]);
      await submitAndWait(page, DEMO);
      await page.waitForLoadState('networkidle');

      assert.ok(log.requests.length >= 6, 'the page, style, script, wasm, definition and POST were seen');
      for (const entry of log.requests) {
        assert.ok(entry.url.startsWith(`${server.origin}/`), `request to another origin: ${entry.url}`);
      }
      const csp = (await response.allHeaders())['content-security-policy'];
      assert.ok(csp, 'the form carries a Content-Security-Policy header');
      assert.match(csp, /default-src 'self'/);
      assert.match(csp, /frame-ancestors 'none'/);
      assert.doesNotMatch(csp, /https?:|\*/, 'no other origin is allowed');
      assert.match(csp, /connect-src 'self'/);
      assert.match(csp, /script-src 'self'/);
      assertNoProblems(log);
    });
  });

  test('with JavaScript disabled the page explains why and sends nothing but the page and its stylesheet', TIMEOUT, async () => {
    await withPage({ javaScriptEnabled: false }, async ({ page, log }) => {
      await page.goto(`${server.origin}/s/${DEMO}`);
      // (Playwright's text locators skip <noscript>; a CSS locator sees the rendered text.)
      const explanation = page.locator('noscript > p');
      await explanation.waitFor({ state: 'visible' });
      assert.match(await explanation.innerText(), /needs JavaScript.*nothing has been sent/s);
      assert.match(await page.locator('main').innerText(), /This survey needs JavaScript/, 'the explanation is rendered');
      const ids = await questionIds(page);
      await chooseWithMouse(page, ids, [1, 1, 1]);
      const button = page.locator('#submit-button');
      assert.ok(await button.isDisabled(), 'without JavaScript the send button is disabled');
      await page.waitForLoadState('networkidle');
      assert.deepEqual(
        log.requests.map((entry) => `${entry.method} ${pathOf(entry.url)}`).sort(),
        [`GET /s/${DEMO}`, 'GET /static/form.css'],
        'only the page and its stylesheet were requested',
      );
      assert.ok(await page.locator('#submitted').isHidden(), 'nothing was sent');
      assertNoProblems(log);
    });
  });

  test('without WebAssembly the page says so and sends nothing', TIMEOUT, async () => {
    await withPage({}, async ({ context, page, log }) => {
      await context.addInitScript(() => {
        delete globalThis.WebAssembly;
      });
      await page.goto(`${server.origin}/s/${DEMO}`);
      await page.locator('#no-wasm').waitFor({ state: 'visible' });
      assert.ok(await page.locator('#submit-button').isDisabled(), 'the send button stays disabled');
      const ids = await questionIds(page);
      await chooseWithMouse(page, ids, [1, 1, 1]);
      await page.waitForLoadState('networkidle');
      assert.deepEqual(
        log.requests.map((entry) => `${entry.method} ${pathOf(entry.url)}`).sort(),
        [`GET /s/${DEMO}`, 'GET /static/form.css', 'GET /static/form.js'],
        'nothing but the page, its stylesheet and its script was requested',
      );
      assertNoProblems(log);
    });
  });

  test('the page total transfer is reported and stays below a generous bound', TIMEOUT, async () => {
    await withPage({}, async ({ page, log }) => {
      await openForm(page, DEMO);
      const ids = await questionIds(page);
      await chooseWithMouse(page, ids, [0, 0, 1]);
      await submitAndWait(page, DEMO);
      await page.waitForLoadState('networkidle');

      const rows = [];
      for (const entry of log.requests) {
        const sizes = await entry.request.sizes();
        rows.push({ what: `${entry.method} ${pathOf(entry.url)}`, body: sizes.responseBodySize, headers: sizes.responseHeadersSize });
      }
      const bodies = rows.reduce((sum, row) => sum + row.body, 0);
      const headers = rows.reduce((sum, row) => sum + row.headers, 0);
      const line = `respondent page total transfer: ${bodies} bytes`;
      console.log(line);
      const report = [
        line,
        `(response bodies as transferred, over ${rows.length} requests: loading the demo form and submitting it;`,
        ` response headers add ${headers} bytes)`,
        ...rows.map((row) => `  ${row.what}: ${row.body} bytes body, ${row.headers} bytes headers`),
        '',
      ].join('\n');
      await writeReport('browser-report.txt', report);
      assert.ok(bodies > 0);
      assert.ok(bodies < TRANSFER_BOUND_BYTES, `${bodies} bytes is under ${TRANSFER_BOUND_BYTES}`);
      assertNoProblems(log);
    });
  });
});
