// Issue 35 in a real browser: the survey as the sensitive block of a larger study.
//  (a) a host page on http://127.0.0.1:<A> frames a survey served from http://127.0.0.2:<B>
//      that lists origin A; the respondent answers inside the frame and the host hears
//      exactly one {"type": "deniable:sent", "survey": …}; a host on an unlisted origin
//      cannot frame the form (the browser's own report of the frame-ancestors refusal);
//  (b) a panel link with identifiers in its query string and a `return` parameter in its
//      fragment: both leave the address bar, and no request, cookie, storage or server log
//      holds them; "Continue" leads to the completion link with `return` filled in, and
//      after a reload with it empty, saying so;
//  (c) with storage blocked the form warns before sending, then sends exactly one
//      response through a dropped first attempt;
//  (d) an invitation link with `&return=…` redeems and fills "Continue"; with storage
//      blocked nothing is redeemed before the send button is pressed.
//
// Run: cargo build --release && node --test tests/browser/

import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';

import { freePort, launchBrowser, openInstrumentedPage, problems, serverBinary, startServer } from './harness.mjs';

const TIMEOUT = { timeout: 90_000 };
const AXE_SOURCE = await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
// What a panel puts in the survey link (distinctive, so that no header or file holds them by chance).
const PID = 'pid5f3a9abc';
const STUDY = 'study7def';
const RETURN = 'ret9xyz';
const SECRETS = [PID, STUDY, RETURN];
const COMPLETION = 'https://panel.example/done?cc=C0DE&r={return}';

serverBinary();

let server; // the survey's origin, http://127.0.0.2:<B>
let browser;
let listedHost; // http://127.0.0.1:<A>, listed in the survey's embed_origins
let unlistedHost; // http://127.0.0.3:<C>, not listed
const hosts = [];

/**
 * A host site: GET /host?src=<url> is a page framing <url> (no-referrer, as the workspace's
 * snippet writes it) that keeps every message it receives in window.received.
 */
async function startHost(address) {
  const port = await freePort(address);
  const site = http.createServer((request, response) => {
    const src = new URL(request.url, 'http://host').searchParams.get('src') ?? '';
    const quoted = src.replace(/&/g, '&amp;').replace(/"/g, '&quot;');
    response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    response.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Host study</title></head><body>
<h1>A study on another site</h1>
<iframe id="survey" title="Survey" src="${quoted}" referrerpolicy="no-referrer" width="800" height="1200"></iframe>
<script>
window.received = [];
addEventListener('message', (event) => window.received.push({ origin: event.origin, data: event.data }));
</script></body></html>`);
  });
  await new Promise((resolve) => site.listen(port, address, resolve));
  hosts.push(site);
  return `http://${address}:${port}`;
}

before(async () => {
  listedHost = await startHost('127.0.0.1');
  unlistedHost = await startHost('127.0.0.3');
  // `info` logs every request (its route pattern): the log that must not hold identifiers.
  server = await startServer({ host: '127.0.0.2', logLevel: 'info' });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.stop();
  await Promise.all(hosts.map((site) => new Promise((resolve) => site.close(resolve))));
});

async function withPage(body) {
  const session = await openInstrumentedPage(browser);
  try {
    return await body(session);
  } finally {
    await session.context.close();
  }
}

/** An open survey whose reports equal the answers (ε = 20), with the given extra fields. */
function createSurvey(fields, count = 1) {
  return server.createOpenSurvey({
    title: 'Part two of a larger study',
    description: 'The sensitive questions, randomized on your device.',
    questions: Array.from({ length: count }, (_, n) => ({ text: `Sensitive question ${n + 1}?`, epsilon: 20 })),
    ...fields,
  });
}

/** Makes reading window.localStorage throw, as a browser that withholds storage does. */
async function blockStorage(context) {
  await context.addInitScript(() => {
    Object.defineProperty(window, 'localStorage', {
      configurable: true,
      get() {
        throw new DOMException('Access is denied for this document.', 'SecurityError');
      },
    });
  });
}

const isSubmission = (slug) => (url) => new URL(url).pathname === `/api/surveys/${slug}/responses`;
const isRedemption = (slug) => (url) => new URL(url).pathname === `/api/surveys/${slug}/redemptions`;

/** Answers every question Yes (in a page or a frame) and waits for the Sent page. */
async function answerAndSend(scope, { timeout = 30_000 } = {}) {
  await scope.locator('#submit-button:enabled').waitFor({ timeout });
  for (const label of await scope.locator('label[for$="-yes"]').all()) await label.click();
  await scope.locator('#submit-button').click();
  await scope.locator('#submitted').waitFor({ state: 'visible', timeout });
}

/** Everything the page's storage holds, as one text (cookies, localStorage, sessionStorage). */
async function everythingKept(context, page) {
  const cookies = JSON.stringify(await context.cookies());
  const storage = await page.evaluate(() => {
    const dump = (store) => JSON.stringify(Object.entries(store));
    return dump(localStorage) + dump(sessionStorage);
  });
  return cookies + storage;
}

/** axe-core in a page or frame: no serious or critical violation. */
async function assertAccessible(frame, name) {
  await frame.evaluate(AXE_SOURCE);
  const { passed, grave } = await frame.evaluate(async () => {
    const results = await window.axe.run(document);
    return {
      passed: results.passes.length,
      grave: results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => ({ id: v.id, nodes: v.nodes.map((n) => n.target.join(' ')) })),
    };
  });
  assert.ok(passed > 10, `${name}: axe ran its rules`);
  assert.deepEqual(grave, [], `${name}: no serious or critical accessibility violation`);
}

/** At 390 and 1280 px the page scrolls only vertically. */
async function assertFits(page, name) {
  for (const width of [390, 1280]) {
    await page.setViewportSize({ width, height: 900 });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.equal(overflow, 0, `${name}: no horizontal scrolling at ${width} px`);
  }
}

/** The console's reports that a frame was refused by its frame-ancestors or X-Frame-Options. */
function frameRefusals(log) {
  return log.console.filter((message) => /frame-ancestors|X-Frame-Options/i.test(message.text));
}

describe('embedded in another site (issue 35, proof a)', () => {
  test('a listed host frames the form and hears one deniable:sent; an unlisted one is refused', TIMEOUT, async () => {
    const slug = await createSurvey({ embed_origins: [listedHost], completion_url: COMPLETION });
    const src = `${server.origin}/s/${slug}#return=${RETURN}`;
    assert.deepEqual((await server.definition(slug)).embed_origins, [listedHost]);

    await withPage(async ({ context, page, log }) => {
      await context.route('https://panel.example/**', (route) =>
        route.fulfill({ contentType: 'text/html', body: '<!doctype html><title>Panel</title><p>Thanks</p>' }));
      // The first submission is stored but its answer lost: the retry's 200 is the same
      // acknowledgment, and the host hears of it once.
      const statuses = [];
      await page.route(isSubmission(slug), async (route) => {
        if (statuses.length > 0) return route.fallback();
        statuses.push((await route.fetch()).status());
        return route.abort('connectionreset');
      });
      await page.goto(`${listedHost}/host?src=${encodeURIComponent(src)}`);
      const frameElement = await page.locator('iframe#survey').elementHandle();
      const frame = await frameElement.contentFrame();
      await frame.locator('#submit-button:enabled').waitFor();
      assert.deepEqual(frameRefusals(log), [], 'the listed origin frames the form');

      // A frame has no address bar: the notice names the survey's own address, in a new tab.
      const own = frame.locator('#frame-open');
      assert.ok(await frame.locator('#frame-notice').isVisible(), 'the frame notice shows');
      assert.equal(await own.getAttribute('href'), `${server.origin}/s/${slug}`);
      assert.equal(await own.innerText(), `${server.origin}/s/${slug}`);
      assert.equal(await own.getAttribute('target'), '_blank');
      assert.match(await own.getAttribute('rel'), /noopener/);
      await assertAccessible(frame, 'framed form');

      await answerAndSend(frame);
      const receiptLink = frame.locator('#receipt-link');
      assert.equal(await receiptLink.getAttribute('target'), '_blank', 'the receipt page opens in a tab of its own');
      assert.match(await receiptLink.getAttribute('rel'), /noopener/);
      await page.waitForFunction(() => window.received.length > 0);
      await new Promise((resolve) => setTimeout(resolve, 1000)); // a second message would come by now
      const received = await page.evaluate(() => window.received);
      assert.deepEqual(received, [{ origin: server.origin, data: { type: 'deniable:sent', survey: slug } }],
        'exactly one message, with nothing but its type and the survey');
      assert.deepEqual(statuses, [201], 'the first attempt was stored, and its answer dropped');

      // "Continue" leaves the frame: the whole tab goes on to the panel, `return` filled in.
      const link = frame.locator('#continue-link');
      assert.equal(await link.getAttribute('target'), '_top');
      await Promise.all([page.waitForURL('https://panel.example/**'), link.click()]);
      assert.equal(page.url(), `https://panel.example/done?cc=C0DE&r=${RETURN}`);
      const found = problems(log);
      // Chromium logs the dropped connection as a console error.
      found.consoleErrors = found.consoleErrors.filter((message) => !/^Failed to load resource/.test(message.text));
      assert.deepEqual(found, { consoleErrors: [], pageErrors: [], cspViolations: [] });
    });

    // Another origin, and a survey that lists none: each frame is refused by the browser,
    // which says so in the console (the frame's load event fires either way).
    const unlisted = await createSurvey({});
    for (const [host, target, why] of [[unlistedHost, slug, 'an unlisted origin'], [listedHost, unlisted, 'a survey without embed_origins']]) {
      await withPage(async ({ page, log }) => {
        await page.goto(`${host}/host?src=${encodeURIComponent(`${server.origin}/s/${target}`)}`);
        await page.waitForLoadState('load');
        const deadline = Date.now() + 5000;
        while (frameRefusals(log).length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
        const refusals = frameRefusals(log);
        assert.equal(refusals.length, 1, `${why}: the browser refused the frame (${JSON.stringify(log.console)})`);
        assert.ok(refusals[0].text.includes(`'${server.origin}/'`), refusals[0].text);
        assert.ok(refusals[0].text.includes(target === slug ? `"frame-ancestors ${listedHost}"` : `"frame-ancestors 'none'"`),
          refusals[0].text);
        const frame = await (await page.locator('iframe#survey').elementHandle()).contentFrame();
        assert.equal(await frame.locator('#survey').count(), 0, `${why}: the form is not in the frame`);
      });
    }
  });
});

describe('identifiers in the survey link (issue 35, proof b)', () => {
  test('query and fragment leave the address bar and go nowhere; Continue fills `return`, and says so when a reload lost it', TIMEOUT, async () => {
    const slug = await createSurvey({ completion_url: COMPLETION }, 2);
    const logBefore = server.output().length;
    await withPage(async ({ context, page, log }) => {
      const address = `${server.origin}/s/${slug}`;
      const response = await page.goto(`${address}?PROLIFIC_PID=${PID}&STUDY_ID=${STUDY}#return=${RETURN}`);
      assert.equal(response.headers()['referrer-policy'], 'no-referrer');
      await page.locator('#submit-button:enabled').waitFor();
      assert.equal(page.url(), address, 'neither the query nor the fragment is left in the address bar');
      assert.ok(await page.locator('#frame-notice').isHidden(), 'no frame notice outside a frame');
      assert.ok(await page.locator('#storage-warning').isHidden(), 'no storage warning where storage works');
      await answerAndSend(page);

      const link = page.locator('#continue-link');
      assert.ok(await link.isVisible(), 'Continue shows on the Sent page');
      assert.equal(await link.getAttribute('href'), `https://panel.example/done?cc=C0DE&r=${RETURN}`);
      assert.equal(await link.getAttribute('target'), '_top');
      assert.match(await link.getAttribute('rel'), /noopener/);
      assert.ok(await page.locator('#continue-missing').isHidden(), 'nothing is missing');
      const afterReceipt = await page.evaluate(() => Boolean(document.querySelector('.receipt-box')
        .compareDocumentPosition(document.getElementById('continue')) & Node.DOCUMENT_POSITION_FOLLOWING));
      assert.ok(afterReceipt, 'Continue comes after the receipt');
      await assertAccessible(page, 'Sent page with Continue');
      await assertFits(page, 'Sent page with Continue');

      // The memo keeps the completion link as the server gave it, never the filled one.
      const memo = JSON.parse(await page.evaluate((key) => localStorage.getItem(key), `deniable:${slug}`));
      assert.equal(memo.completion_url, COMPLETION);

      // A reload of the stripped address: the memo shows Continue, with `return` empty.
      await page.reload();
      await page.locator('#memo-note').waitFor({ state: 'visible' });
      assert.ok(await link.isVisible(), 'Continue shows on a revisit too');
      assert.equal(await link.getAttribute('href'), 'https://panel.example/done?cc=C0DE&r=');
      const missing = page.locator('#continue-missing');
      assert.ok(await missing.isVisible(), 'and says that the link lost its details');
      assert.match(await missing.innerText(), /reloaded/);
      assert.match(await missing.innerText(), /original link/);
      await assertAccessible(page, 'revisit with Continue');
      await assertFits(page, 'revisit with Continue');

      // Nothing after the navigation carried the identifiers: no URL, header or body.
      const [navigation, ...rest] = log.requests;
      assert.equal(navigation.url, `${address}?PROLIFIC_PID=${PID}&STUDY_ID=${STUDY}`, 'the link itself (the fragment never leaves)');
      assert.ok(rest.length > 5, `the page's requests were recorded (${rest.length})`);
      for (const entry of rest) {
        const headers = await entry.headers;
        assert.ok(headers, `headers of ${entry.url} were recorded`);
        assert.ok(!headers.referer, `no Referer on ${entry.url}: ${headers.referer}`);
        const text = `${entry.url}\n${JSON.stringify(headers)}\n${entry.postData ?? ''}`;
        for (const secret of SECRETS) assert.ok(!text.includes(secret), `${secret} in ${entry.method} ${entry.url}`);
      }
      const kept = await everythingKept(context, page);
      for (const secret of SECRETS) assert.ok(!kept.includes(secret), `${secret} is kept by the browser: ${kept}`);
      const serverLog = server.output().slice(logBefore);
      assert.match(serverLog, /request/, 'the server logged the requests');
      for (const secret of SECRETS) assert.ok(!serverLog.includes(secret), `${secret} in the server's log`);
      for (const message of log.console) {
        for (const secret of SECRETS) assert.ok(!message.text.includes(secret), `${secret} in the console`);
      }
      assert.deepEqual(problems(log), { consoleErrors: [], pageErrors: [], cspViolations: [] });
    });
  });
});

describe('a browser that keeps no storage (issue 35, proof c)', () => {
  test('the form warns before sending, then sends exactly one response through a dropped first attempt', TIMEOUT, async () => {
    const slug = await createSurvey({}, 2);
    await withPage(async ({ context, page, log }) => {
      await blockStorage(context);
      const bodies = [];
      const statuses = [];
      await page.route(isSubmission(slug), async (route) => {
        bodies.push(route.request().postData());
        // The first reaches the server and is stored, but its answer is lost.
        const response = await route.fetch();
        statuses.push(response.status());
        if (bodies.length === 1) return route.abort('connectionreset');
        return route.fulfill({ response });
      });
      await page.goto(`${server.origin}/s/${slug}`);
      await page.locator('#submit-button:enabled').waitFor();
      assert.equal(await page.evaluate(() => {
        try {
          return typeof window.localStorage;
        } catch (error) {
          return error.name;
        }
      }), 'SecurityError', 'the page cannot reach localStorage');
      const warning = page.locator('#storage-warning');
      assert.ok(await warning.isVisible(), 'the warning shows before anything is sent');
      assert.match(await warning.innerText(), /cannot|does not let/);
      assert.deepEqual(bodies, [], 'nothing sent yet');
      await assertAccessible(page, 'form without storage');
      await assertFits(page, 'form without storage');

      await answerAndSend(page);
      assert.deepEqual(statuses, [201, 200], 'stored by the first, recognised by the retry');
      assert.equal(bodies[1], bodies[0], 'the retry sent the byte-identical body from memory');
      assert.equal(await server.responseCount(slug), 1, 'exactly one stored response');
      assert.ok(await warning.isHidden(), 'the Sent page drops the warning');
      assert.ok(await page.locator('#sent-kept').isHidden(), 'and does not claim that the device keeps the reports');
      assert.ok(await page.locator('#sent-forget').isHidden());
      assert.deepEqual(problems(log).pageErrors, []);
      assert.deepEqual(problems(log).cspViolations, []);
    });
  });
});

describe('an invitation link with a return parameter (issue 35, proof d)', () => {
  async function invitationSurvey() {
    const slug = await createSurvey({ requires_invitation: true, completion_url: COMPLETION });
    const [row] = await server.createInvitations(slug, 2);
    return { slug, link: `${row.link}&return=${RETURN}`, row };
  }

  test('redeems on opening, and Continue has `return` filled in', TIMEOUT, async () => {
    const { slug, link, row } = await invitationSurvey();
    await withPage(async ({ page, log }) => {
      await page.goto(link);
      await page.locator('#invitation-status', { hasText: /exchanged for an anonymous token/ }).waitFor({ timeout: 30_000 });
      assert.equal(page.url(), `${server.origin}/s/${slug}`, 'the invitation and `return` left the address bar');
      await answerAndSend(page);
      assert.equal(await page.locator('#continue-link').getAttribute('href'), `https://panel.example/done?cc=C0DE&r=${RETURN}`);
      assert.equal(await server.storedAfterClosing(slug), 1);
      for (const entry of log.requests) {
        const text = `${entry.url}\n${entry.postData ?? ''}`;
        assert.ok(!text.includes(RETURN), `no request carries the return parameter: ${entry.url}`);
        if (text.includes(row.invitation)) assert.ok(isRedemption(slug)(entry.url), `the invitation only in the redemption: ${entry.url}`);
      }
      assert.deepEqual(problems(log), { consoleErrors: [], pageErrors: [], cspViolations: [] });
    });
  });

  test('without storage nothing is redeemed before sending, so a reload before it loses no invitation', TIMEOUT, async () => {
    const { slug, link } = await invitationSurvey();
    await withPage(async ({ context, page, log }) => {
      await blockStorage(context);
      let redemptionAnswered = null;
      let submittedAt = null;
      await page.route(isRedemption(slug), async (route) => {
        const response = await route.fetch();
        redemptionAnswered = Date.now();
        return route.fulfill({ response });
      });
      await page.route(isSubmission(slug), (route) => {
        submittedAt = Date.now();
        return route.fallback();
      });
      const posts = () => log.requests.filter((entry) => entry.method === 'POST').map((entry) => new URL(entry.url).pathname);

      // Opened, then left before sending: the link opened again still works.
      await page.goto(link);
      await page.locator('#submit-button:enabled').waitFor();
      await page.waitForLoadState('networkidle');
      assert.ok(await page.locator('#storage-warning').isVisible());
      assert.deepEqual(posts(), [], 'no redemption on opening');
      await page.goto(link);
      await page.locator('#submit-button:enabled').waitFor();
      await page.waitForLoadState('networkidle');
      assert.deepEqual(posts(), [], 'nor on opening it again');

      await answerAndSend(page);
      assert.deepEqual(posts(), [`/api/surveys/${slug}/redemptions`, `/api/surveys/${slug}/responses`],
        'redeemed when sending, then the response');
      assert.ok(submittedAt - redemptionAnswered >= 1900,
        `the response waits after the redemption's answer (${submittedAt - redemptionAnswered} ms)`);
      assert.equal(await page.locator('#continue-link').getAttribute('href'), `https://panel.example/done?cc=C0DE&r=${RETURN}`);
      assert.equal(await server.storedAfterClosing(slug), 1);
      assert.deepEqual(problems(log).pageErrors, []);
    });
  });
});
