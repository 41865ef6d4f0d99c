// The researcher's workspace in a real browser: the one-time link, sign-up, a 3-question
// survey built, previewed and opened; 300 simulated respondents; live results that cover
// the truths and refresh by themselves; the CSV download; present mode's QR code decoded.
// Any dialog fails the test. Screenshots at 390 px and 1280 px go to target/screenshots/.
// Then the builder's type and design inputs and their live figures (the page shows what
// GET /designs/figures says), and a results page of a choice question at phone width.
//
// Run: cargo build --release && node --test tests/browser/  (or DENIABLE_BIN=path/to/deniable)

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, test } from 'node:test';

import jsQR from 'jsqr';

import { REPO_ROOT, launchBrowser, serverBinary, startServer } from './harness.mjs';

const execFileAsync = promisify(execFile);
const SCREENSHOTS = path.join(REPO_ROOT, 'target', 'screenshots');
const PASSWORD = 'a long enough passphrase';
const TRUTHS = [0.3, 0.1, 0.6];
const WIDTHS = [390, 1280];

serverBinary();

let server;
let browser;
/** The researcher's cookies once the first test has signed up, for the later tests. */
let signedIn = null;

before(async () => {
  server = await startServer();
  browser = await launchBrowser();
  await mkdir(SCREENSHOTS, { recursive: true });
});

/** A page of the researcher signed up by the first test, recording page and console errors. */
async function researcherPage(width = 1280) {
  assert.ok(signedIn, 'the first test signed the researcher up');
  const context = await browser.newContext({ storageState: signedIn, viewport: { width, height: 900 } });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (error) => errors.push(String(error)));
  page.on('console', (message) => {
    // A refused design is a 400 of the figures route, which the page shows as such.
    const refusedFigures = new URL(message.location().url || 'about:blank').pathname === '/designs/figures';
    if (message.type() === 'error' && !refusedFigures) errors.push(message.text());
  });
  page.on('dialog', (dialog) => {
    errors.push(`dialog: ${dialog.message()}`);
    dialog.dismiss();
  });
  return { context, page, errors };
}

after(async () => {
  await browser?.close();
  await server?.stop();
});

async function screenshots(page, name) {
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 900 });
    await page.screenshot({ path: path.join(SCREENSHOTS, `${name}-${width}.png`), fullPage: true });
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}

test('a researcher signs up, builds, opens and watches a survey live', { timeout: 240_000 }, async () => {
  const link = /http:\/\/\S+\/setup\/[A-Za-z0-9_-]{43}/.exec(server.output());
  assert.ok(link, `serve printed the one-time link:\n${server.output()}`);

  const context = await browser.newContext({ acceptDownloads: true, viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const dialogs = [];
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    dialog.dismiss();
  });
  const pageErrors = [];
  page.on('pageerror', (error) => pageErrors.push(String(error)));

  // Sign up with the one-time link.
  await page.goto(link[0]);
  await page.getByLabel('E-mail address').fill('researcher@example.org');
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByLabel('Password again').fill(PASSWORD);
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.waitForURL('**/surveys');
  signedIn = await context.storageState();

  // Build a 3-question survey.
  await page.getByLabel('Title').fill('Campus habits');
  await page.getByLabel('First question').fill('Have you cheated on an exam this year?');
  await page.locator('#first-epsilon').fill('1');
  await page.getByRole('button', { name: 'Create draft' }).click();
  await page.waitForURL('**/edit**');
  for (const text of ['Have you used a study drug?', 'Have you skipped a lecture this week?']) {
    await page.locator('#new-text').fill(text);
    await page.locator('#new-epsilon').fill('2');
    // The meaning of ε updates while it is typed.
    await page.locator('#meaning-new [data-figure="truth"]').filter({ hasText: '88.1 %' }).waitFor();
    await page.getByRole('button', { name: 'Add question' }).click();
    await page.waitForURL('**/edit**');
  }
  await page.locator('[data-total-epsilon]').filter({ hasText: '5.00' }).waitFor();
  await screenshots(page, 'builder');

  // Preview, then open after the confirmation.
  const slug = /\/surveys\/([a-z0-9-]+)\/edit/.exec(page.url())[1];
  await page.getByRole('link', { name: 'Preview as a respondent' }).click();
  await page.getByText('Preview: this is the form as respondents will').waitFor();
  assert.equal(await page.locator('fieldset.question').count(), 3);
  await page.goto(`${server.origin}/surveys/${slug}/open`);
  await page.getByText('is frozen').waitFor();
  await page.getByRole('button', { name: 'Open the survey now' }).click();
  await page.waitForURL('**/results');
  // simulate writes only to the demo survey or to a survey it creates (issue 32): the live
  // results watched are the demo's, which the first researcher owns (three yes/no questions).
  const live = 'demo';
  await page.goto(`${server.origin}/surveys/${live}/results`);
  await page.evaluate(() => {
    window.__notReloaded = true;
  });

  // 300 simulated respondents answer while the page is open.
  await execFileAsync(serverBinary(), [
    'simulate', '--url', server.origin, '--survey', live, '--respondents', '300',
    '--truth', TRUTHS.join(','), '--concurrency', '8',
  ]);
  await page.locator('span[data-field="respondents"]').first().filter({ hasText: /^300$/ }).waitFor({ timeout: 30_000 });
  assert.equal(await page.evaluate(() => window.__notReloaded), true, 'refreshed without a reload');

  // The intervals on the page cover the truths (read from the same JSON the page uses).
  const results = await page.evaluate(async (url) => (await fetch(url)).json(), `/api/surveys/${live}/results`);
  results.questions.forEach((question, index) => {
    const { low, high } = question.intervals.chernoff;
    assert.ok(low <= TRUTHS[index] && TRUTHS[index] <= high, `Q${index + 1}: [${low}, ${high}] covers ${TRUTHS[index]}`);
    assert.equal(question.n, 300);
  });
  const cells = await page.locator('td[data-field="chernoff"]').allTextContents();
  assert.ok(cells.every((text) => / to /.test(text)), `chernoff cells filled: ${cells}`);
  await screenshots(page, 'results');

  // While open the export waits for the close (every survey's, issue 41), and says so.
  assert.equal((await page.locator('#export-csv').textContent()).trim(), 'CSV after close');
  assert.equal(await page.locator('#export-csv').getAttribute('aria-disabled'), 'true');

  // Present mode: the QR code decodes to the respondent link.
  await page.goto(`${server.origin}/surveys/${live}/present`);
  const qr = page.locator('.qr svg');
  await qr.waitFor();
  // Decode what is on the screen: a screenshot of the QR code, read back into pixels on a
  // blank page (the present page's CSP rightly refuses data: images).
  const shot = await qr.screenshot();
  const scratch = await context.newPage();
  const { width, height, pixels } = await scratch.evaluate(async (source) => {
    const image = new Image();
    image.src = source;
    await image.decode();
    const canvas = document.createElement('canvas');
    canvas.width = image.naturalWidth;
    canvas.height = image.naturalHeight;
    const drawing = canvas.getContext('2d');
    drawing.drawImage(image, 0, 0);
    const data = drawing.getImageData(0, 0, canvas.width, canvas.height).data;
    return { width: canvas.width, height: canvas.height, pixels: Array.from(data) };
  }, `data:image/png;base64,${shot.toString('base64')}`);
  await scratch.close();
  const decoded = jsQR(Uint8ClampedArray.from(pixels), width, height);
  assert.ok(decoded, 'the QR code decodes');
  assert.equal(decoded.data, `${server.origin}/s/${live}`);
  await screenshots(page, 'present');

  // Closed from its results page, the survey exports: the CSV download.
  await page.goto(`${server.origin}/surveys/${live}/results`);
  await page.getByRole('button', { name: 'Close the survey' }).click();
  await page.waitForURL(`**/surveys/${live}/results`);
  const [download] = await Promise.all([page.waitForEvent('download'), page.locator('#export-csv').click()]);
  const csv = await readFile(await download.path(), 'utf8');
  const lines = csv.trim().split('\n');
  assert.equal(lines[0], 'record_id,question_id,epsilon,truth_probability,report,unbiased_value,type,option_values');
  assert.equal(lines.length, 1 + 300 * 3);

  assert.deepEqual(dialogs, [], 'no dialog opened');
  assert.deepEqual(pageErrors, [], 'no page error');
  await context.close();
});

/** The figures GET /designs/figures gives for a query, asked from the page (its session). */
async function serverFigures(page, query) {
  return page.evaluate(async (search) => {
    const response = await fetch(`/designs/figures?${search}`);
    return { status: response.status, body: await response.json() };
  }, new URLSearchParams(query).toString());
}

/** The text of one of the add form's figures. */
function figure(page, name) {
  return page.locator(`#meaning-new [data-figure="${name}"]`);
}

test('switching type and design shows the inputs that apply and the server’s live figures', { timeout: 120_000 }, async () => {
  const { context, page, errors } = await researcherPage();
  await page.goto(`${server.origin}/surveys`);
  await page.getByLabel('Title').fill('Designs');
  await page.getByLabel('First question').fill('Have you ever shoplifted?');
  await page.getByRole('button', { name: 'Create draft' }).click();
  await page.waitForURL('**/edit**');
  const visible = (id) => page.locator(`#new-${id}`).isVisible();

  // Yes/no, mirrored: ε only; the notes for a page without script are hidden.
  assert.equal(await visible('epsilon'), true);
  for (const id of ['design', 'epsilon']) assert.equal(await visible(id), true, id);
  for (const id of ['answer_truthfully', 'forced_yes', 'forced_no', 'innocuous_yes', 'options', 'min', 'max']) {
    assert.equal(await visible(id), false, id);
  }
  assert.equal(await page.locator('#add-question [data-no-js-hint]').first().isVisible(), false);

  // Choice: options and ε, no design to choose; the figures are the server's.
  await page.locator('#new-type').selectOption('choice');
  assert.equal(await visible('design'), false);
  assert.equal(await visible('options'), true);
  await page.locator('#new-options').fill('Never\nMonthly\nWeekly\nDaily');
  await page.locator('#new-epsilon').fill('1.5');
  const choice = await serverFigures(page, { type: 'choice', epsilon: '1.5', options: 'Never\nMonthly\nWeekly\nDaily' });
  assert.equal(choice.status, 200);
  await figure(page, 'needed-5').filter({ hasText: new RegExp(`^${choice.body.display.respondents_needed_5}$`) }).waitFor();
  assert.equal(await figure(page, 'needed-10').textContent(), choice.body.display.respondents_needed_10);
  assert.equal(await figure(page, 'truth').textContent(), choice.body.display.truth_probability);
  assert.equal(await figure(page, 'epsilon').textContent(), choice.body.display.epsilon);
  assert.equal(await figure(page, 'summary').textContent(), choice.body.summary);
  assert.equal(await figure(page, 'observer').textContent(), choice.body.observer);

  // Forced response: its three probabilities, no ε (it follows from them).
  await page.locator('#new-type').selectOption('yes_no');
  await page.locator('#new-design').selectOption('forced_response');
  for (const id of ['answer_truthfully', 'forced_yes', 'forced_no']) assert.equal(await visible(id), true, id);
  for (const id of ['epsilon', 'options', 'innocuous_yes']) assert.equal(await visible(id), false, id);
  const forced = await serverFigures(page, { design: 'forced_response', answer_truthfully: '0.7', forced_yes: '0.15', forced_no: '0.15' });
  await figure(page, 'truth').filter({ hasText: forced.body.display.truth_probability }).waitFor();
  assert.equal(forced.body.display.truth_probability, '85.0 %');
  assert.equal(await figure(page, 'epsilon').textContent(), forced.body.display.epsilon);

  // An infinite ε is refused, with the reason, while it is typed.
  await page.locator('#new-forced_yes').fill('0.3');
  await page.locator('#new-forced_no').fill('0');
  const refusal = page.locator('#meaning-new [data-figures-error]');
  await refusal.filter({ hasText: 'a report of No would prove the true answer is No' }).waitFor();
  assert.equal(await page.locator('#meaning-new [data-figures-values]').isVisible(), false, 'no figures for it');
  assert.equal(await figure(page, 'needed-5').textContent(), '–');
  await page.locator('#new-forced_no').fill('0.1');
  await page.locator('#new-forced_yes').fill('0.2');
  await refusal.waitFor({ state: 'hidden' });
  await page.locator('#meaning-new [data-figures-values]').waitFor();

  // Unrelated question and number show their own inputs.
  await page.locator('#new-design').selectOption('unrelated_question');
  assert.equal(await visible('innocuous_yes'), true);
  assert.equal(await visible('forced_no'), false);
  await page.locator('#new-type').selectOption('number');
  for (const id of ['min', 'max', 'epsilon']) assert.equal(await visible(id), true, id);
  for (const id of ['design', 'answer_truthfully', 'options']) assert.equal(await visible(id), false, id);
  await figure(page, 'planner-target').filter({ hasText: 'of the range from 0 to 10' }).waitFor();

  // Saved as a choice question, the form sends only the inputs that apply.
  await page.locator('#new-type').selectOption('choice');
  await page.locator('#new-text').fill('How often do you gamble?');
  await figure(page, 'needed-5').filter({ hasText: new RegExp(`^${choice.body.display.respondents_needed_5}$`) }).waitFor();
  const posted = page.waitForRequest((request) => request.method() === 'POST' && request.url().endsWith('/edit'));
  await page.getByRole('button', { name: 'Add question' }).click();
  const fields = new URLSearchParams((await posted).postData());
  assert.equal(fields.get('new-type'), 'choice');
  assert.equal(fields.get('action'), 'add');
  for (const name of ['design', 'forced_no', 'min']) assert.equal(fields.has(`new-${name}`), false, `new-${name} not sent`);
  await page.waitForURL('**/edit**');
  const saved = page.locator('.questions .question-card').nth(1);
  assert.equal(await saved.locator('select[data-design-type]').inputValue(), 'choice');
  assert.equal(await saved.locator('[data-figure="needed-5"]').textContent(), choice.body.display.respondents_needed_5);
  await screenshots(page, 'builder-types');

  assert.deepEqual(errors, [], 'no page error, console error or dialog');
  await context.close();
});

test('a results page with choice, ordinal and number questions fits a 390 px screen without cutting an interval', { timeout: 120_000 }, async () => {
  const { context, page, errors } = await researcherPage(390);
  await page.goto(`${server.origin}/surveys`);
  await page.getByLabel('Title').fill('How often, on a phone');
  await page.getByLabel('First question').fill('How often have you copied homework from a classmate this term?');
  await page.locator('#first-type').selectOption('choice');
  const options = ['Never', 'Once or twice', 'About every other week', 'Every week, or nearly every week'];
  await page.locator('#first-options').fill(options.join('\n'));
  await page.getByRole('button', { name: 'Create draft' }).click();
  await page.waitForURL('**/edit**');
  const slug = /\/surveys\/([a-z0-9-]+)\/edit/.exec(page.url())[1];
  // An ordinal scale and a number too, for their means.
  await page.locator('#new-text').fill('Copying homework is common here.');
  await page.locator('#new-type').selectOption('ordinal');
  await page.locator('#new-options').fill('Strongly disagree\nDisagree\nNeither agree nor disagree\nAgree\nStrongly agree');
  await page.getByRole('button', { name: 'Add question' }).click();
  await page.waitForURL('**/edit**');
  await page.locator('#new-text').fill('How many hours of homework did you copy last week?');
  await page.locator('#new-type').selectOption('number');
  await page.locator('#new-max').fill('40');
  await page.getByRole('button', { name: 'Add question' }).click();
  await page.waitForURL('**/edit**');
  await page.goto(`${server.origin}/surveys/${slug}/open`);
  await page.getByRole('button', { name: 'Open the survey now' }).click();
  await page.waitForURL('**/results');

  const [question, scale, number] = (await server.definition(slug)).questions;
  assert.deepEqual([question.type, scale.type, number.type], ['choice', 'ordinal', 'number']);
  const respond = async (count) => {
    for (let respondent = 0; respondent < count; respondent += 1) {
      const answers = {
        [question.id]: respondent % 3 === 0 ? 0 : respondent % 4,
        [scale.id]: respondent % 5,
        [number.id]: respondent % 3 === 0 ? 1 : 0,
      };
      const response = await fetch(`${server.origin}/api/surveys/${slug}/responses`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ answers }),
      });
      assert.equal(response.status, 201, await response.text());
    }
  };
  await respond(40);
  await page.goto(`${server.origin}/surveys/${slug}/results`);
  await page.locator('[data-field="n"]').first().filter({ hasText: /^40$/ }).waitFor();
  // Four options, five levels and the mean level, and the number's mean.
  assert.equal(await page.locator('.result tbody tr').count(), options.length + 5 + 1 + 1);

  for (const width of [390, 1280]) {
    await page.setViewportSize({ width, height: 900 });
    const layout = await page.evaluate(() => {
      // Every interval's text on one line: a range over it has one box per line.
      const wrapped = Array.from(document.querySelectorAll('.interval-text, .bar-value'))
        .filter((cell) => {
          const range = document.createRange();
          range.selectNodeContents(cell);
          const tops = new Set(Array.from(range.getClientRects()).map((rect) => Math.round(rect.top)));
          return tops.size > 1;
        })
        .map((cell) => cell.textContent);
      return {
        overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,
        wrapped,
        intervals: document.querySelectorAll('.interval-text').length,
      };
    });
    assert.equal(layout.overflow, 0, `no horizontal scrolling at ${width} px`);
    assert.deepEqual(layout.wrapped, [], `no interval broken across lines at ${width} px`);
    assert.equal(layout.intervals, 3 * (options.length + 5 + 1 + 1));
    await page.screenshot({ path: path.join(SCREENSHOTS, `results-choice-${width}.png`), fullPage: true });
    for (const [name, id] of [['choice', question.id], ['ordinal', scale.id], ['number', number.id]]) {
      await page.locator(`#result-${id}`).screenshot({ path: path.join(SCREENSHOTS, `result-${name}-${width}.png`) });
    }
  }
  // Twenty more responses (k = 10: a release is k + 2 new ones, so the consideration at 60
  // releases them): the page refreshes itself, and its script puts each bar, interval and
  // figure where the server's JSON says (through the tracks' data- attributes).
  await respond(20);
  await page.locator('[data-field="n"]').first().filter({ hasText: /^60$/ }).waitFor({ timeout: 30_000 });
  const results = await page.evaluate(async (url) => (await fetch(url)).json(), `/api/surveys/${slug}/results`);
  const card = page.locator(`#result-${question.id}`);
  // At n = 60 the intervals are wider than ±10 points: each row shows its range, not an estimate.
  assert.equal(await card.getAttribute('data-readable'), 'false');
  assert.match(await card.locator('.reading').textContent(), /still too few responses to read this closely/i);
  const shown = await card.locator('.bar-row[data-option]').evaluateAll((rows) =>
    rows.map((row) => ({
      bar: parseFloat(row.querySelector('[data-bar]').getAttribute('width')),
      low: parseFloat(row.querySelector('[data-interval]').getAttribute('x1')),
      high: parseFloat(row.querySelector('[data-interval]').getAttribute('x2')),
      text: row.querySelector('[data-field="headline"]').textContent,
    })),
  );
  results.questions[0].options.forEach((option, index) => {
    const { bar, low, high, text } = shown[index];
    const close = (x, value) => Math.abs(x - 100 * value) < 0.011;
    assert.ok(close(bar, option.estimate_clipped), `${option.label}: bar ${bar}`);
    // The chart draws the primary interval (the anytime one: this survey is watched live).
    assert.equal(option.primary, 'anytime');
    const drawn = option.intervals[option.primary];
    assert.ok(close(low, drawn.low) && close(high, drawn.high), `${option.label}: interval ${low}–${high}`);
    assert.equal(text, `${(drawn.low * 100).toFixed(0)}–${(drawn.high * 100).toFixed(0)} %`);
  });
  const mean = results.questions[2].mean;
  const mark = parseFloat(await page.locator(`#result-${number.id} [data-mark]`).getAttribute('x1'));
  assert.ok(Math.abs(mark - (100 * mean.estimate_clipped) / 40) < 0.011, `the number's mark at ${mark}`);
  assert.equal(
    await page.locator(`#result-${number.id} tr[data-mean] [data-field="chernoff"]`).textContent(),
    `${mean.intervals.chernoff.low.toFixed(1)} to ${mean.intervals.chernoff.high.toFixed(1)}`,
  );

  assert.deepEqual(errors, [], 'no page error, console error or dialog');
  await context.close();
});
