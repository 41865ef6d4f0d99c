// The respondent's form in a real browser (Debian's chromium through playwright-core),
// against the release server on a fresh database. Every request the page makes is recorded,
// with its headers and body, and so are console messages, page errors and CSP violations.
//
// Run: cargo build --release && node --test tests/browser/

import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';

import {
  chooseWithMouse,
  launchBrowser,
  openInstrumentedPage,
  problems,
  questionIds,
  serverBinary,
  sha256Hex,
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

function assertNoProblems(log, { failedLoadsExpected = false } = {}) {
  const found = problems(log);
  // Chromium logs every 4xx/5xx answer and every dropped connection as a console error.
  if (failedLoadsExpected) {
    found.consoleErrors = found.consoleErrors.filter((message) => !/^Failed to load resource/.test(message.text));
  }
  assert.deepEqual(found, { consoleErrors: [], pageErrors: [], cspViolations: [] });
}

/**
 * The body must be exactly {"answers": {<id>: 0|1}, "response_id": "<64 hex>"} over the
 * given question ids.
 */
function assertReportsOnly(rawBody, ids) {
  const body = JSON.parse(rawBody);
  assert.equal(rawBody, JSON.stringify(body), 'the POST body is plain JSON with nothing else');
  assert.deepEqual(Object.keys(body), ['answers', 'response_id'], 'the POST body holds only "answers" and "response_id"');
  assert.match(body.response_id, /^[0-9a-f]{64}$/, 'the response id is lowercase hex SHA-256');
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

/** True for the form's POST of a response to `slug`. */
function isSubmission(slug) {
  return (url) => new URL(url).pathname === `/api/surveys/${slug}/responses`;
}

/** The form's localStorage entry for `slug`, parsed (null when absent). */
async function storedState(page, slug) {
  return JSON.parse(await page.evaluate((key) => localStorage.getItem(key), `deniable:${slug}`));
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
  test('with a consent text nothing is randomized or sent until the respondent ticks that they agree', TIMEOUT, async () => {
    const slug = await server.createOpenSurvey({
      title: 'Consent first',
      researcher: 'Dr. Ada Lovelace',
      contact: 'ethics@uni.example',
      consent: 'Taking part is voluntary.\nYou may stop at any time.',
      questions: [1, 2].map((n) => ({ text: `Control question ${n}?`, epsilon: 20 })),
    });
    await withPage({}, async ({ page, log }) => {
      const response = await page.goto(`${server.origin}/s/${slug}`);
      assert.equal(response.status(), 200);
      assert.match(await page.locator('#who').innerText(), /This survey is run by Dr\. Ada Lovelace\. Questions about it: ethics@uni\.example\./);
      assert.equal(await page.locator('#contact').getAttribute('href'), 'mailto:ethics@uni.example');
      assert.equal(await page.locator('#consent-text').innerText(), 'Taking part is voluntary.\nYou may stop at any time.');
      const checkbox = page.locator('#consent-checkbox');
      assert.equal(await checkbox.getAttribute('required'), '', 'the box is required by the markup');
      // The mechanism loads, the answers are chosen: still nothing can be sent.
      await page.waitForLoadState('networkidle');
      const ids = await questionIds(page);
      await chooseWithMouse(page, ids, [1, 0]);
      assert.ok(await page.locator('#submit-button').isDisabled(), 'sending waits for the consent');
      await page.locator('#submit-button').click({ force: true });
      await page.keyboard.press('Enter');
      await page.waitForTimeout(300);
      // Ticked and unticked again: disabled again.
      await page.locator('label[for="consent-checkbox"]').click();
      await page.locator('#submit-button:enabled').waitFor();
      await checkbox.press('Space');
      assert.equal(await checkbox.isChecked(), false);
      assert.ok(await page.locator('#submit-button').isDisabled());
      assert.deepEqual(
        log.requests.filter((entry) => entry.method !== 'GET').map((entry) => `${entry.method} ${pathOf(entry.url)}`),
        [],
        'nothing was posted before the consent',
      );
      assert.ok(
        !log.requests.some((entry) => pathOf(entry.url) === `/api/surveys/${slug}`),
        'not even the definition (and its nonce) was fetched',
      );
      // Agreed: sent once, with the reports only.
      await checkbox.check();
      const { rawBody, body } = await submitAndWait(page, slug);
      assertReportsOnly(rawBody, ids);
      assert.deepEqual(body.answers, { [ids[0]]: 1, [ids[1]]: 0 });
      assert.equal(log.requests.filter((entry) => entry.method === 'POST').length, 1);
      // A revisit shows the stored reports; there is nothing to agree to again.
      await page.reload();
      await page.locator('#memo-note').waitFor({ state: 'visible' });
      assert.ok(await page.locator('#consent').isHidden());
      assertNoProblems(log);
    });
  });

  test('an unknown survey is a page in the form\'s style, in the browser\'s language', TIMEOUT, async () => {
    await withPage({}, async ({ page, log }) => {
      await page.setExtraHTTPHeaders({ 'Accept-Language': 'de-DE,de;q=0.9' });
      const response = await page.goto(`${server.origin}/s/no-such-survey`);
      assert.equal(response.status(), 404);
      assert.equal(await page.locator('html').getAttribute('lang'), 'de');
      assert.equal(await page.locator('h1').innerText(), 'Umfrage nicht gefunden');
      const font = await page.locator('body').evaluate((body) => getComputedStyle(body).fontFamily);
      assert.match(font, /system-ui/, 'the form\'s stylesheet is applied');
      assertNoProblems(log, { failedLoadsExpected: true });
    });
  });

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
      // Each question's details are one Tab away, then the next question.
      const focusedText = () => page.evaluate(() => document.activeElement?.textContent ?? '');
      await page.keyboard.press('Tab');
      assert.equal(await focusedText(), 'What can someone learn from the report?');
      await page.keyboard.press('Tab');
      assert.equal(await focused(), `q${third}-yes`, 'Tab moves on to question 3');
      await page.keyboard.press('Space');
      assert.ok(await page.locator(`#q${third}-yes`).isChecked());
      await page.keyboard.press('Tab');
      await page.keyboard.press('Tab');
      assert.equal(await focused(), 'submit-button', 'Tab reaches the send button');

      const { rawBody, receipt } = await submitAndWait(page, DEMO, { press: 'Enter' });
      const body = assertReportsOnly(rawBody, ids);

      // The receipt is shown, drawn by the device: the body carried only its hash, and with
      // it the server holds exactly the posted reports.
      assert.match(receipt, /^[A-Za-z0-9_-]{43}$/, 'a receipt of 43 base64url characters is shown');
      assert.equal(body.response_id, sha256Hex(receipt), 'response_id = SHA-256 of the receipt');
      assert.ok(!rawBody.includes(receipt), 'the receipt itself is never sent');
      assert.equal(await page.locator('#sent-reports li').count(), 3, 'the sent reports are listed');
      assert.deepEqual(await server.lookup(DEMO, receipt), body.answers, 'the server stored what was posted');

      // No URL, header or cookie carries anything: the only body is the POST's.
      const allowed = new Set([
        `/s/${DEMO}`,
        '/static/form.css',
        '/static/form-core.js',
        '/static/blind-tokens.js',
        '/static/form-tokens.js',
        '/static/form.js',
        '/static/randomized_response.wasm',
        `/api/surveys/${DEMO}`,
        `/api/surveys/${DEMO}/responses`,
      ]);
      for (const entry of log.requests) {
        const url = new URL(entry.url);
        assert.ok(allowed.has(url.pathname), `unexpected request ${entry.method} ${entry.url}`);
        assert.equal(url.search, '', `no query string on ${entry.url}`);
        assert.ok(!entry.url.includes(receipt), `no receipt in ${entry.url}`);
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

  test('after submitting, localStorage holds only the sent reports and their response id, and there are no cookies', TIMEOUT, async () => {
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
      assert.deepEqual(
        memo,
        { reports: body.answers, response_id: body.response_id },
        'the entry is exactly the sent reports and their response id: no true answer, and once acknowledged no pending body nor receipt',
      );
      assert.deepEqual(storage.sessionKeys, [], 'sessionStorage is empty');
      assert.equal(storage.cookie, '', 'document.cookie is empty');
      assert.deepEqual(await context.cookies(), [], 'the browser holds no cookie');
      assertNoProblems(log);
    });
  });

  // At ε = 20 fresh coins report the chosen answers, so the check of new coins after
  // "forget" is exact.
  test('a revisit shows the memoized reports as already answered and sends nothing; "forget" clears them', TIMEOUT, async () => {
    const slug = await createTopEpsilonSurvey(3);
    await withPage({}, async ({ page, log }) => {
      await openForm(page, slug);
      const ids = await questionIds(page);
      assert.ok(await page.locator('#memo-note').isHidden(), 'no note on a first visit');
      await chooseWithMouse(page, ids, [1, 1, 0]);
      const first = await submitAndWait(page, slug);
      assertReportsOnly(first.rawBody, ids);

      // Revisit: "already answered" with the stored reports, no way to send, nothing sent.
      await page.reload();
      await page.locator('#memo-note').waitFor({ state: 'visible' });
      assert.deepEqual(
        await page.locator('#memo-reports li').allTextContents(),
        ids.map((_, index) => `${index + 1}. Control question ${index + 1}? — reported: ${[1, 1, 0][index] ? 'Yes' : 'No'}`),
        'the stored reports are listed',
      );
      for (const id of ids) {
        assert.ok(await page.locator(`#q${id}-yes`).isDisabled(), 'the choices are disabled');
        assert.ok(await page.locator(`#q${id}-no`).isDisabled());
        assert.ok(await page.locator(`#question-${id}`).isHidden(), 'the stored reports stand instead of empty choices');
      }
      assert.ok(await page.locator('#submit-button').isHidden(), 'no send button');
      assert.ok(await page.locator('#memo-clear').isVisible(), 'the "forget" button is there');
      await page.waitForLoadState('networkidle');
      assert.equal(log.requests.filter((entry) => entry.method === 'POST').length, 1, 'the revisit sent nothing');

      // Forget: the note and the storage entry go, and the next answers flip new coins.
      await page.locator('#memo-clear').click();
      await page.locator('#memo-note').waitFor({ state: 'hidden' });
      assert.equal(await storedState(page, slug), null);
      assert.match(await page.locator('#form-status').textContent(), /forgot/i);
      await page.locator('#submit-button:enabled').waitFor();
      await chooseWithMouse(page, ids, [0, 0, 1]);
      const second = await submitAndWait(page, slug);
      assertReportsOnly(second.rawBody, ids);
      assert.deepEqual(
        second.body.answers,
        Object.fromEntries(ids.map((id, index) => [String(id), [0, 0, 1][index]])),
        'after forgetting, new coins were flipped for the new answers',
      );
      assert.notEqual(second.receipt, first.receipt, 'with a new receipt');
      assert.notEqual(second.body.response_id, first.body.response_id);
      assert.deepEqual(
        await storedState(page, slug),
        { reports: second.body.answers, response_id: second.body.response_id },
        'and the new reports are memoized',
      );
      assert.equal(log.requests.filter((entry) => entry.method === 'POST').length, 2);
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
        randomness.getRandomValuesBytes.filter((bytes) => bytes === 32).length >= 2,
        `crypto.getRandomValues was called for 32 bytes of receipt and 32 of seed (calls: ${JSON.stringify(randomness.getRandomValuesBytes)})`,
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

      assert.ok(log.requests.length >= 7, 'the page, style, scripts, wasm, definition and POST were seen');
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
        [`GET /s/${DEMO}`, 'GET /static/blind-tokens.js', 'GET /static/form-core.js', 'GET /static/form-tokens.js',
          'GET /static/form.css', 'GET /static/form.js'],
        'nothing but the page, its stylesheet and its scripts was requested',
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
  test('429, then 503, then an answer lost after the commit: the same body four times and one stored response', TIMEOUT, async () => {
    await withPage({}, async ({ page, log }) => {
      const before = await server.responseCount(DEMO);
      const bodies = [];
      const serverStatuses = [];
      await page.route(isSubmission(DEMO), async (route) => {
        bodies.push(route.request().postData());
        if (bodies.length === 1) {
          return route.fulfill({
            status: 429,
            headers: { 'Retry-After': '1' },
            contentType: 'application/json',
            body: JSON.stringify({ error: { code: 'too_many_requests', message: 'Too many submissions; retry later.' } }),
          });
        }
        if (bodies.length === 2) {
          return route.fulfill({
            status: 503,
            contentType: 'application/json',
            body: JSON.stringify({ error: { code: 'unavailable', message: 'Busy.' } }),
          });
        }
        // The third reaches the server and is committed, but its answer never comes back;
        // the fourth goes through.
        const response = await route.fetch();
        serverStatuses.push(response.status());
        if (bodies.length === 3) return route.abort('connectionreset');
        return route.fulfill({ response });
      });

      await openForm(page, DEMO);
      const ids = await questionIds(page);
      await chooseWithMouse(page, ids, [1, 0, 1]);
      await page.locator('#submit-button').click();
      await page.locator('#form-status', { hasText: /Busy \(the server answered 429\), retrying in \d+ s/ }).waitFor();
      await page.locator('#submitted').waitFor({ state: 'visible', timeout: 30_000 });

      assert.equal(bodies.length, 4, 'four POSTs');
      for (const body of bodies) assert.equal(body, bodies[0], 'every retry sent the byte-identical body');
      assert.deepEqual(serverStatuses, [201, 200], 'stored by the third, recognised by the fourth');
      const body = assertReportsOnly(bodies[0], ids);
      const receipt = (await page.locator('#receipt').textContent()).trim();
      assert.equal(body.response_id, sha256Hex(receipt), 'the receipt shown is the one the body was made with');
      assert.equal(await server.responseCount(DEMO), before + 1, 'the server holds exactly one new response');
      assert.deepEqual(await server.lookup(DEMO, receipt), body.answers, 'holding the first randomization');
      assert.deepEqual(await storedState(page, DEMO), { reports: body.answers, response_id: body.response_id });
      assert.equal(log.requests.filter((entry) => entry.method === 'POST').length, 4);
      assertNoProblems(log, { failedLoadsExpected: true });
    });
  });

  test('a pending body left by a closed page is re-sent unchanged on the next load', TIMEOUT, async () => {
    const slug = await createTopEpsilonSurvey(3);
    await withPage({}, async ({ page, log }) => {
      // Until the page is reloaded every POST fails before reaching the server.
      const bodies = [];
      let reloaded = false;
      let firstAfterReload = Infinity;
      let firstPost;
      const posted = new Promise((resolve) => (firstPost = resolve));
      let statusDuringResend = null;
      let radiosDisabledDuringResend = null;
      await page.route(isSubmission(slug), async (route) => {
        bodies.push(route.request().postData());
        firstPost();
        if (!reloaded) return route.abort('internetdisconnected');
        firstAfterReload = Math.min(firstAfterReload, bodies.length - 1);
        statusDuringResend = await page.locator('#form-status').textContent();
        radiosDisabledDuringResend = await page.locator('#survey-form input[type=radio]:enabled').count() === 0;
        return route.continue();
      });
      await openForm(page, slug);
      const ids = await questionIds(page);
      await chooseWithMouse(page, ids, [0, 1, 1]);
      await page.locator('#submit-button').click();
      await posted;
      const pending = await storedState(page, slug);
      assert.equal(pending.pending.body, bodies[0], 'the pending body is the exact text posted');
      assert.equal(pending.response_id, sha256Hex(pending.pending.receipt));

      // The respondent leaves before the retry; the next visit sends the same text at once.
      // From the moment the new document replaces the old one (whose retries die with it).
      page.once('framenavigated', () => (reloaded = true));
      await page.reload();
      await page.locator('#submitted').waitFor({ state: 'visible' });
      assert.equal(bodies.filter((_, at) => at >= firstAfterReload).length, 1, 'one POST after the reload');
      for (const body of bodies) assert.equal(body, bodies[0], 'the stored body was re-sent unchanged');
      assert.match(statusDuringResend, /Sending your stored reports/);
      assert.ok(radiosDisabledDuringResend, 'nothing can be chosen while the stored answers are sent');
      assert.equal((await page.locator('#receipt').textContent()).trim(), pending.pending.receipt);
      assert.equal(await server.responseCount(slug), 1);
      assert.deepEqual(await server.lookup(slug, pending.pending.receipt), pending.reports);
      assert.deepEqual(await storedState(page, slug), { reports: pending.reports, response_id: pending.response_id });
      assertNoProblems(log, { failedLoadsExpected: true });
    });
  });

  test('the Sent page explains the reports, offers the receipt once (copy, download, link) and can forget', TIMEOUT, async () => {
    await withPage({}, async ({ context, page, log }) => {
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.origin });
      await openForm(page, DEMO);
      const ids = await questionIds(page);
      await chooseWithMouse(page, ids, [0, 1, 0]);
      const { receipt } = await submitAndWait(page, DEMO);

      const sent = page.locator('#submitted');
      assert.match(await sent.innerText(), /may differ from your true answer/);
      assert.match(await sent.innerText(), /shown only this once/);
      const link = page.locator('#receipt-link');
      assert.equal(await link.getAttribute('href'), `/s/${DEMO}/receipt`);
      assert.match(await link.innerText(), /view or withdraw your response/i);

      await page.locator('#receipt-copy').click();
      await page.locator('#receipt-status', { hasText: 'Copied.' }).waitFor();
      assert.equal(await page.evaluate(() => navigator.clipboard.readText()), receipt, 'the receipt was copied');

      const [download] = await Promise.all([page.waitForEvent('download'), page.locator('#receipt-download').click()]);
      assert.equal(download.suggestedFilename(), `deniable-receipt-${DEMO}.txt`);
      const text = await readFile(await download.path(), 'utf8');
      assert.ok(text.split('\n').includes(receipt), 'the downloaded file holds the receipt on a line of its own');
      assert.ok(text.includes(`${server.origin}/s/${DEMO}/receipt`));

      assert.ok(await storedState(page, DEMO), 'the memo is kept until the respondent says otherwise');
      await page.locator('#sent-forget').click();
      await page.locator('#receipt-status', { hasText: /forgot/ }).waitFor();
      assert.equal(await storedState(page, DEMO), null, '"forget" removed everything of this survey');

      // Shown once: a revisit neither shows the receipt nor remembers the survey.
      await page.reload();
      await page.locator('#submit-button:enabled').waitFor();
      assert.ok(await page.locator('#memo-note').isHidden());
      assert.equal((await page.locator('#receipt').textContent()).trim(), '');
      assertNoProblems(log);
    });
  });

  test('withdrawing on the receipt page drops the pending body of that response on this device', TIMEOUT, async () => {
    const slug = await createTopEpsilonSurvey(2);
    await withPage({}, async ({ context, page, log }) => {
      // The first POST is committed but its answer is lost; the retry waits for the withdrawal.
      let releaseRetry;
      const retryMayGo = new Promise((resolve) => (releaseRetry = resolve));
      let firstLost;
      const lost = new Promise((resolve) => (firstLost = resolve));
      const served = [];
      await page.route(isSubmission(slug), async (route) => {
        if (served.length > 0) await retryMayGo;
        const response = await route.fetch();
        served.push(response.status());
        if (served.length > 1) return route.fulfill({ response });
        await route.abort('connectionreset');
        firstLost();
      });
      await openForm(page, slug);
      const ids = await questionIds(page);
      await chooseWithMouse(page, ids, [1, 0]);
      await page.locator('#submit-button').click();
      await lost;
      const before = await storedState(page, slug);
      assert.ok(before.pending, 'the page still holds the pending body');

      const receiptPage = await context.newPage();
      await receiptPage.goto(`${server.origin}/s/${slug}/receipt`);
      await receiptPage.locator('#receipt-input').fill(before.pending.receipt);
      await receiptPage.locator('button[name="action"][value="withdraw"]').click();
      await receiptPage.locator('button[name="action"][value="confirm-withdraw"]').click();
      await receiptPage.locator('#withdrawn').waitFor();
      await receiptPage.locator('#withdrawn-device-note', { hasText: /dropped/ }).waitFor();
      assert.deepEqual(
        await storedState(receiptPage, slug),
        { reports: before.reports, response_id: before.response_id },
        'the pending body is gone, the memo stays',
      );
      assert.equal(await receiptPage.evaluate(() => sessionStorage.getItem('deniable:withdrawing')), null);
      assert.equal(await server.lookup(slug, before.pending.receipt), null, 'withdrawn on the server');

      // The page that was still retrying sends its copy once more: refused for good (410).
      releaseRetry();
      await page.locator('#form-status.error').waitFor();
      assert.deepEqual(served, [201, 410]);
      assert.equal(await server.responseCount(slug), 0);
      assert.equal((await storedState(page, slug)).pending, undefined);
      await receiptPage.close();
      assertNoProblems(log, { failedLoadsExpected: true });
    });
  });
});

describe('the form and receipt page states (issue 32)', () => {
  /** A yes/no, a choice and a number question (ε = 20: the reports are the answers). */
  function createMixedSurvey(extra = {}) {
    return server.createOpenSurvey({
      title: 'States of the form',
      ...extra,
      questions: [
        { text: 'Have you ever cheated?', type: 'yes_no', epsilon: 20 },
        { text: 'How often?', type: 'choice', options: ['Never', 'Rarely', 'Often'], epsilon: 20 },
        { text: 'How many times last month?', type: 'number', min: 0, max: 30, epsilon: 20 },
      ],
    });
  }

  /** Each question's mark as the page shows it and tells assistive technology. */
  function marks(page) {
    return page.locator('fieldset.question').evaluateAll((fieldsets) =>
      fieldsets.map((fieldset) => {
        const note = document.getElementById(`missing-${fieldset.dataset.questionId}`);
        return {
          missing: fieldset.classList.contains('missing'),
          invalid: fieldset.getAttribute('aria-invalid'),
          describedBy: fieldset.getAttribute('aria-describedby'),
          noteShown: !note.hidden,
        };
      }),
    );
  }
  const MARKED = (id) => ({ missing: true, invalid: 'true', describedBy: `missing-${id}`, noteShown: true });
  const CLEAR = { missing: false, invalid: null, describedBy: null, noteShown: false };

  async function status(page) {
    return page.locator('#form-status').evaluate((line) => ({
      text: line.textContent,
      error: line.classList.contains('error'),
      live: line.getAttribute('aria-live'),
    }));
  }

  test('a question\'s error clears as soon as it is answered, and the summary goes when nothing is missing', TIMEOUT, async () => {
    const slug = await createMixedSurvey();
    await withPage({}, async ({ page, log }) => {
      await openForm(page, slug);
      const [yesNo, choice, number] = await questionIds(page);
      await page.locator('#submit-button').click();
      await page.locator('#form-status.error').waitFor();
      assert.deepEqual(await marks(page), [MARKED(yesNo), MARKED(choice), MARKED(number)]);
      assert.deepEqual(await status(page), {
        text: 'Please answer questions 1, 2 and 3: every question is randomized, so no answer can be held against you. Nothing was sent.',
        error: true,
        live: 'polite',
      });

      // Answered one by one: each mark goes at once, and the summary is rewritten silently
      // (the live region is off while it shrinks, so a screen reader is not talked over).
      await page.locator(`label[for="q${choice}-1"]`).click();
      assert.deepEqual(await marks(page), [MARKED(yesNo), CLEAR, MARKED(number)]);
      assert.deepEqual(await status(page), {
        text: 'Please answer questions 1 and 3: every question is randomized, so no answer can be held against you. Nothing was sent.',
        error: true,
        live: 'off',
      });
      await page.locator(`#q${number}-number`).fill('0');
      assert.deepEqual(await marks(page), [MARKED(yesNo), CLEAR, CLEAR], 'zero is an answer too');
      assert.match((await status(page)).text, /^Please answer question 1: /);
      await page.locator(`label[for="q${yesNo}-yes"]`).click();
      assert.deepEqual(await marks(page), [CLEAR, CLEAR, CLEAR]);
      assert.deepEqual(await status(page), { text: '', error: false, live: 'off' }, 'the summary is gone');

      // The next status speaks again, and what was answered is sent.
      const { body } = await submitAndWait(page, slug);
      assert.deepEqual(body.answers, { [yesNo]: 1, [choice]: 1, [number]: 0 });
      assert.equal(await page.locator('#form-status').getAttribute('aria-live'), 'polite');
      assertNoProblems(log);
    });
  });

  test('a number out of its bounds stays marked until it fits', TIMEOUT, async () => {
    const slug = await createMixedSurvey();
    await withPage({}, async ({ page, log }) => {
      await openForm(page, slug);
      const [yesNo, choice, number] = await questionIds(page);
      await chooseWithMouse(page, [yesNo], [0]);
      await page.locator(`label[for="q${choice}-0"]`).click();
      await page.locator(`#q${number}-number`).fill('31');
      await page.locator('#submit-button').click();
      await page.locator('#form-status.error', { hasText: /from 0 to 30/ }).waitFor();
      assert.deepEqual(await marks(page), [CLEAR, CLEAR, MARKED(number)]);
      await page.locator(`#q${number}-number`).fill('32');
      assert.deepEqual(await marks(page), [CLEAR, CLEAR, MARKED(number)], 'still out of bounds');
      await page.locator(`#q${number}-number`).fill('30');
      assert.deepEqual(await marks(page), [CLEAR, CLEAR, CLEAR]);
      assert.equal((await status(page)).text, '');
      assertNoProblems(log);
    });
  });

  test('the consent hint shows only while the box is not ticked', TIMEOUT, async () => {
    const slug = await createMixedSurvey({ consent: 'Taking part is voluntary.' });
    await withPage({}, async ({ page, log }) => {
      await page.goto(`${server.origin}/s/${slug}`);
      await page.waitForLoadState('networkidle');
      const hint = page.locator('#consent-hint');
      const button = page.locator('#submit-button');
      assert.ok(await hint.isVisible());
      assert.equal(await button.getAttribute('aria-describedby'), 'consent-hint');
      await page.locator('label[for="consent-checkbox"]').click();
      assert.ok(await hint.isHidden(), 'ticked: the hint goes');
      assert.equal(await button.getAttribute('aria-describedby'), null, 'and no longer describes the button');
      await page.locator('#consent-checkbox').press('Space');
      assert.ok(await hint.isVisible(), 'unticked: the hint is back');
      assert.equal(await button.getAttribute('aria-describedby'), 'consent-hint');
      assertNoProblems(log);
    });
  });

  test('an empty number box shows no slider value and counts as unanswered; a value picked on the slider answers', TIMEOUT, async () => {
    const slug = await createMixedSurvey();
    await withPage({ viewport: { width: 390, height: 900 } }, async ({ page, log }) => {
      await openForm(page, slug);
      const [yesNo, choice, number] = await questionIds(page);
      const box = page.locator(`#q${number}-number`);
      const slider = page.locator(`#q${number}-slider`);
      const sliderState = () =>
        slider.evaluate((input) => ({
          unset: input.classList.contains('unset'),
          valueText: input.getAttribute('aria-valuetext'),
          // getComputedStyle cannot read a slider's thumb: the rule that hides it must apply.
          thumb: Array.from(document.styleSheets)
            .flatMap((sheet) => Array.from(sheet.cssRules))
            .some((rule) => /::-webkit-slider-thumb$/.test(rule.selectorText ?? '') &&
              rule.style.visibility === 'hidden' &&
              input.matches(rule.selectorText.replace('::-webkit-slider-thumb', '')))
            ? 'hidden'
            : 'visible',
        }));
      const UNSET = { unset: true, valueText: 'no value chosen yet', thumb: 'hidden' };
      assert.deepEqual(await sliderState(), UNSET, 'the slider shows no value beside the empty box');

      await chooseWithMouse(page, [yesNo], [1]);
      await page.locator(`label[for="q${choice}-2"]`).click();
      await page.locator('#submit-button').click();
      await page.locator('#form-status.error', { hasText: /^Please answer question 3: / }).waitFor();
      assert.deepEqual(await marks(page), [CLEAR, CLEAR, MARKED(number)], 'the empty box is unanswered');

      // Typed, the slider follows; emptied, it is unset again (and still unanswered).
      await box.fill('12');
      assert.equal(await slider.inputValue(), '12');
      assert.deepEqual(await sliderState(), { unset: false, valueText: null, thumb: 'visible' });
      await box.fill('');
      assert.deepEqual(await sliderState(), UNSET);
      await page.locator('#submit-button').click();
      await page.locator('#form-status.error', { hasText: /^Please answer question 3: / }).waitFor();

      // A click on the slider's middle (where its unseen thumb rests) picks that value.
      const track = await slider.boundingBox();
      await page.mouse.click(track.x + track.width / 2, track.y + track.height / 2);
      assert.equal(await box.inputValue(), '15');
      assert.equal((await sliderState()).unset, false);
      assert.deepEqual(await marks(page), [CLEAR, CLEAR, CLEAR]);
      const { body } = await submitAndWait(page, slug);
      assert.deepEqual(Object.keys(body.answers).sort(), [yesNo, choice, number].map(String).sort());
      assert.ok([0, 1].includes(body.answers[number]), 'the slider\'s value was sent as a number\'s report');
      assertNoProblems(log);
    });
  });

  test('withdrawing asks to confirm, says it cannot be undone, and does nothing without the confirmation', TIMEOUT, async () => {
    const slug = await createTopEpsilonSurvey(1);
    const definition = await server.definition(slug);
    const posted = await fetch(`${server.origin}/api/surveys/${slug}/responses`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ answers: { [definition.questions[0].id]: 1 } }),
    });
    assert.equal(posted.status, 201);
    const { receipt } = await posted.json();
    await withPage({}, async ({ page, log }) => {
      await page.goto(`${server.origin}/s/${slug}/receipt`);
      const view = page.locator('#receipt-form button[value="view"]');
      const withdraw = page.locator('#receipt-form button[value="withdraw"]');
      const looks = (button) =>
        button.evaluate((element) => {
          const style = getComputedStyle(element);
          return { background: style.backgroundColor, color: style.color, border: style.borderColor };
        });
      assert.deepEqual(await looks(withdraw), { background: 'rgb(255, 255, 255)', color: 'rgb(138, 28, 28)', border: 'rgb(138, 28, 28)' },
        'the withdrawal is drawn in the destructive colour');
      assert.notDeepEqual(await looks(withdraw), await looks(view), '"Withdraw" does not look like "View my reports"');

      await page.locator('#receipt-input').fill(receipt);
      await withdraw.click();
      const confirm = page.locator('#confirm-withdrawal');
      await confirm.waitFor();
      assert.match(await confirm.innerText(), /Withdraw this response\?/);
      assert.match(await confirm.innerText(), /cannot be undone/);
      assert.ok(await server.lookup(slug, receipt), 'asked, not withdrawn');

      // "No, keep my response": the reports, still stored.
      await page.locator('#confirm-withdrawal button[value="view"]').click();
      await page.locator('#stored-reports').waitFor();
      assert.ok(await server.lookup(slug, receipt), 'kept');

      await page.locator('#receipt-input').fill(receipt);
      await page.locator('#receipt-form button[value="withdraw"]').click();
      await page.locator('#confirm-withdrawal button[value="confirm-withdraw"]').click();
      await page.locator('#withdrawn').waitFor();
      assert.equal(await server.lookup(slug, receipt), null, 'withdrawn once confirmed');
      assertNoProblems(log);
    });
  });

  test('the receipt box spans the form at 390 and 1280 px', TIMEOUT, async () => {
    await withPage({}, async ({ page, log }) => {
      for (const width of [390, 1280]) {
        await page.setViewportSize({ width, height: 900 });
        await page.goto(`${server.origin}/s/${DEMO}/receipt`);
        const { box, content } = await page.locator('#receipt-form').evaluate((form) => {
          const style = getComputedStyle(form);
          const content = form.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
          return { box: document.getElementById('receipt-input').getBoundingClientRect().width, content };
        });
        assert.ok(box >= 0.9 * content, `${width} px: the receipt box is ${box} px of the form's ${content} px`);
        assert.ok(box <= content + 0.5, `${width} px: and no wider`);
      }
      assertNoProblems(log);
    });
  });
});

describe('an invitation survey in a real browser (blind tokens, issue 20)', () => {
  /** An open survey that requires invitations, ε = 20 (reports equal the answers). */
  function createInvitationSurvey(count) {
    return server.createOpenSurvey({
      title: 'Invited respondents only',
      description: 'One response per invitation.',
      requires_invitation: true,
      questions: Array.from({ length: count }, (_, n) => ({ text: `Invited question ${n + 1}?`, epsilon: 20 })),
    });
  }

  const isRedemption = (slug) => (url) => new URL(url).pathname === `/api/surveys/${slug}/redemptions`;

  test('from the mail-merge link to the stored response, the redemption and the answer each retried after a dropped connection', TIMEOUT, async () => {
    const slug = await createInvitationSurvey(2);
    const [row] = await server.createInvitations(slug, 1);
    assert.match(row.link, new RegExp(`/s/${slug}#invitation=${row.invitation}&key=${row.fingerprint}$`));
    await withPage({}, async ({ page, log }) => {
      // Each first request reaches the server and is committed, but its answer is lost.
      const redemptions = [];
      const redemptionStatuses = [];
      await page.route(isRedemption(slug), async (route) => {
        redemptions.push(route.request().postData());
        const response = await route.fetch();
        redemptionStatuses.push(response.status());
        if (redemptions.length === 1) return route.abort('connectionreset');
        return route.fulfill({ response });
      });
      const submissions = [];
      const submissionStatuses = [];
      await page.route(isSubmission(slug), async (route) => {
        submissions.push(route.request().postData());
        const response = await route.fetch();
        submissionStatuses.push(response.status());
        if (submissions.length === 1) return route.abort('connectionreset');
        return route.fulfill({ response });
      });

      const response = await page.goto(row.link);
      assert.equal(response.status(), 200);
      const status = page.locator('#invitation-status');
      await status.filter({ hasText: /exchanged for an anonymous token/ }).waitFor({ timeout: 30_000 });
      assert.ok((await status.innerText()).replace(/\s/g, '').includes(row.fingerprint), 'the page shows the key fingerprint');
      assert.equal(new URL(page.url()).hash, '', 'the invitation left the address bar');
      assert.deepEqual(redemptionStatuses, [200, 200], 'redeemed by the first, the same answer to the retry');
      assert.equal(redemptions[0], redemptions[1], 'the retry sent the same blinded element');
      assert.deepEqual(Object.keys(JSON.parse(redemptions[0])), ['invitation', 'blinded']);
      const kept = await storedState(page, `${slug}:token`);
      assert.deepEqual(Object.keys(kept).sort(), ['key', 'token'], 'only the token is kept: no invitation, no blind');
      assert.equal(kept.key, row.fingerprint);

      await page.locator('#submit-button:enabled').waitFor();
      const ids = await questionIds(page);
      await chooseWithMouse(page, ids, [1, 0]);
      await page.locator('#submit-button').click();
      await page.locator('#submitted').waitFor({ state: 'visible', timeout: 30_000 });

      assert.deepEqual(submissionStatuses, [201, 200], 'stored by the first, recognised by the retry');
      assert.equal(submissions[0], submissions[1], 'the retry sent the byte-identical body');
      const body = JSON.parse(submissions[0]);
      assert.deepEqual(Object.keys(body), ['answers', 'response_id', 'token'], 'a token, never the invitation');
      assert.deepEqual(body.token, kept.token);
      assert.deepEqual(body.answers, Object.fromEntries(ids.map((id, at) => [String(id), [1, 0][at]])));
      const receipt = (await page.locator('#receipt').textContent()).trim();
      assert.equal(body.response_id, sha256Hex(receipt));
      assert.equal(await server.storedAfterClosing(slug), 1, 'one stored response');
      assert.deepEqual(await server.lookup(slug, receipt), body.answers);
      assert.equal(await storedState(page, `${slug}:token`), null, 'the spent token is forgotten');

      // The invitation travelled in one request body only, and in no URL.
      for (const entry of log.requests) {
        assert.ok(!entry.url.includes(row.invitation), `no URL carries the invitation: ${entry.url}`);
        if (entry.postData?.includes(row.invitation)) assert.ok(isRedemption(slug)(entry.url), entry.url);
      }
      assertNoProblems(log, { failedLoadsExpected: true });
    });
  });

  test('a link whose key fingerprint differs from the survey key is refused with a clear message, and nothing is sent', TIMEOUT, async () => {
    const slug = await createInvitationSurvey(1);
    const [row] = await server.createInvitations(slug, 1);
    const forged = row.link.replace(`key=${row.fingerprint}`, `key=${'0'.repeat(64)}`);
    await withPage({}, async ({ page, log }) => {
      await page.goto(forged);
      const status = page.locator('#invitation-status.error');
      await status.waitFor({ timeout: 30_000 });
      assert.match(await status.innerText(), /not the one your invitation link was made for/);
      assert.match(await status.innerText(), /Nothing was sent/);
      await page.locator('#submit-button:enabled').waitFor();
      const ids = await questionIds(page);
      await chooseWithMouse(page, ids, [1]);
      await page.locator('#submit-button').click();
      await page.locator('#form-status.error', { hasText: /not the one your invitation link was made for/ }).waitFor();
      const posts = log.requests.filter((entry) => entry.method === 'POST');
      assert.deepEqual(posts.map((entry) => entry.url), [], 'no redemption, no response');
      assert.equal(await storedState(page, `${slug}:token`), null);
      assertNoProblems(log);
    });
    // The invitation is still unused: the right link redeems it.
    await withPage({}, async ({ page, log }) => {
      await page.goto(row.link);
      await page.locator('#invitation-status', { hasText: /exchanged for an anonymous token/ }).waitFor({ timeout: 30_000 });
      assertNoProblems(log);
    });
  });

  test('with a consent text the invitation is redeemed only once the respondent agrees', TIMEOUT, async () => {
    const slug = await server.createOpenSurvey({
      title: 'Invited, with consent',
      description: 'Consent first.',
      requires_invitation: true,
      consent: 'Taking part is voluntary.',
      questions: [{ text: 'Invited question?', epsilon: 20 }],
    });
    const [row] = await server.createInvitations(slug, 1);
    await withPage({}, async ({ page, log }) => {
      await page.goto(row.link);
      await page.locator('#consent-checkbox').waitFor();
      await page.waitForLoadState('networkidle');
      assert.equal(new URL(page.url()).hash, '', 'the invitation left the address bar at once');
      assert.deepEqual(log.requests.filter((entry) => entry.method === 'POST').map((entry) => entry.url), [],
        'nothing is redeemed before the consent');
      assert.equal(await storedState(page, `${slug}:token`), null);
      await page.locator('label[for="consent-checkbox"]').click();
      await page.locator('#invitation-status', { hasText: /exchanged for an anonymous token/ }).waitFor({ timeout: 30_000 });
      await page.locator('#submit-button:enabled').waitFor();
      const ids = await questionIds(page);
      await chooseWithMouse(page, ids, [1]);
      await page.locator('#submit-button').click();
      await page.locator('#submitted').waitFor({ state: 'visible', timeout: 30_000 });
      assert.equal(await server.storedAfterClosing(slug), 1);
      assertNoProblems(log);
    });
  });
});
