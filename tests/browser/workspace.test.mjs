// The researcher's workspace in a real browser: the one-time link, sign-up, a 3-question
// survey built, previewed and opened; 300 simulated respondents; live results that cover
// the truths and refresh by themselves; the CSV download; present mode's QR code decoded.
// Any dialog fails the test. Screenshots at 390 px and 1280 px go to target/screenshots/.
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

before(async () => {
  server = await startServer();
  browser = await launchBrowser();
  await mkdir(SCREENSHOTS, { recursive: true });
});

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

  // Build a 3-question survey.
  await page.getByLabel('Title').fill('Campus habits');
  await page.getByLabel('First question').fill('Have you cheated on an exam this year?');
  await page.getByLabel('Its privacy level ε').fill('1');
  await page.getByRole('button', { name: 'Create draft' }).click();
  await page.waitForURL('**/edit');
  for (const text of ['Have you used a study drug?', 'Have you skipped a lecture this week?']) {
    await page.getByLabel('Text (a yes/no question)').fill(text);
    await page.locator('#new-epsilon').fill('2');
    // The meaning of ε updates while it is typed.
    await page.locator('#meaning-new [data-truth]').filter({ hasText: '88.1 %' }).waitFor();
    await page.getByRole('button', { name: 'Add question' }).click();
    await page.waitForURL('**/edit');
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
  await page.evaluate(() => {
    window.__notReloaded = true;
  });

  // 300 simulated respondents answer while the page is open.
  await execFileAsync(serverBinary(), [
    'simulate', '--url', server.origin, '--survey', slug, '--respondents', '300',
    '--truth', TRUTHS.join(','), '--concurrency', '8',
  ]);
  await page.locator('span[data-field="respondents"]').first().filter({ hasText: /^300$/ }).waitFor({ timeout: 30_000 });
  assert.equal(await page.evaluate(() => window.__notReloaded), true, 'refreshed without a reload');

  // The intervals on the page cover the truths (read from the same JSON the page uses).
  const results = await page.evaluate(async (url) => (await fetch(url)).json(), `/api/surveys/${slug}/results`);
  results.questions.forEach((question, index) => {
    const { low, high } = question.intervals.chernoff;
    assert.ok(low <= TRUTHS[index] && TRUTHS[index] <= high, `Q${index + 1}: [${low}, ${high}] covers ${TRUTHS[index]}`);
    assert.equal(question.n, 300);
  });
  const cells = await page.locator('td[data-field="chernoff"]').allTextContents();
  assert.ok(cells.every((text) => / to /.test(text)), `chernoff cells filled: ${cells}`);
  await screenshots(page, 'results');

  // CSV download.
  const [download] = await Promise.all([page.waitForEvent('download'), page.locator('#export-csv').click()]);
  const csv = await readFile(await download.path(), 'utf8');
  const lines = csv.trim().split('\n');
  assert.equal(lines[0], 'record_id,question_id,epsilon,truth_probability,report,unbiased_value');
  assert.equal(lines.length, 1 + 300 * 3);

  // Present mode: the QR code decodes to the respondent link.
  await page.goto(`${server.origin}/surveys/${slug}/present`);
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
  assert.equal(decoded.data, `${server.origin}/s/${slug}`);
  await screenshots(page, 'present');

  assert.deepEqual(dialogs, [], 'no dialog opened');
  assert.deepEqual(pageErrors, [], 'no page error');
  await context.close();
});
