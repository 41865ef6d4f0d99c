// Every question type answered in a real browser on a phone-sized page (390 × 844): the
// controls are full-width targets of at least 44 px, nothing overflows sideways, a missing
// answer is named and focused, and the posted reports follow each type's encoding.
//
// Run: cargo build --release && node --test tests/browser/

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { launchBrowser, openInstrumentedPage, problems, questionIds, serverBinary, startServer, submitAndWait } from './harness.mjs';

const TIMEOUT = { timeout: 90_000 };
const PHONE = { width: 390, height: 844 };

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

/**
 * One question of each type, each as close to telling the truth as its design allows, so
 * that fresh coins report the chosen answers (the test would see true answers if they
 * were sent instead of reports): forced response with 1e-6 forced either way (ε ≈ 13.8),
 * choice and ordinal at ε = 20, a number at ε = 20 answered at its top end (rounded to it
 * with certainty).
 */
const SURVEY = {
  title: 'Every type on a phone',
  questions: [
    { text: 'Have you ever cheated on an exam?', type: 'yes_no', design: 'forced_response', answer_truthfully: 0.999998, forced_yes: 0.000001, forced_no: 0.000001 },
    { text: 'How often do you skip lectures?', type: 'choice', options: ['Never', 'Rarely', 'Sometimes', 'Every week'], epsilon: 20 },
    { text: 'Cheating is common in my programme.', type: 'ordinal', options: ['Strongly disagree', 'Disagree', 'Neutral', 'Agree', 'Strongly agree'], epsilon: 20 },
    { text: 'How many times did you drink alcohol in the past month?', type: 'number', min: 0, max: 30, epsilon: 20 },
  ],
};

async function withPhonePage(body) {
  const session = await openInstrumentedPage(browser, { viewport: PHONE });
  try {
    return await body(session);
  } finally {
    await session.context.close();
  }
}

describe('every question type on a phone-sized page', () => {
  test('each type is answered with full-width targets and posts its own report encoding', TIMEOUT, async () => {
    const slug = await server.createOpenSurvey(SURVEY);
    await withPhonePage(async ({ page, log }) => {
      await page.goto(`${server.origin}/s/${slug}`);
      await page.locator('#submit-button:enabled').waitFor();
      const ids = await questionIds(page);
      assert.equal(ids.length, 4);
      const [yesNo, choice, ordinal, number] = ids;

      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 0, `nothing overflows sideways at 390 px (by ${overflow} px)`);
      for (const summary of await page.locator('details.details summary').all()) {
        const box = await summary.boundingBox();
        assert.ok(box.height >= 44, `a question's details open from a 44 px target (${box.height})`);
      }
      assert.match(await page.locator('.privacy').textContent(), /Please answer every question/);
      for (const label of await page.locator('label.choice').all()) {
        const box = await label.boundingBox();
        assert.ok(box.height >= 44, `a choice is at least 44 px high (${box.height})`);
        assert.ok(box.width >= 300, `a choice spans the width (${box.width})`);
      }
      for (const text of ['tells the truth 99.9998 % of the time', 'each other option', 'rounds your number at random to 0 or 30']) {
        assert.ok((await page.locator('.protection').allTextContents()).some((line) => line.includes(text)), text);
      }

      // Two questions left out: both are named, marked and the first is focused.
      await page.locator(`label[for="q${yesNo}-yes"]`).click();
      await page.locator(`label[for="q${ordinal}-3"]`).click();
      await page.locator('#submit-button').click();
      await page.locator('#form-status.error').waitFor();
      assert.match(await page.locator('#form-status').textContent(), /Please answer questions 2 and 4/);
      assert.equal(await page.locator('fieldset.missing').count(), 2);
      assert.equal(await page.evaluate(() => document.activeElement.id), `q${choice}-0`);

      // A number out of its bounds is refused with them.
      await page.locator(`label[for="q${choice}-2"]`).click();
      await page.locator(`#q${number}-number`).fill('31');
      await page.locator('#submit-button').click();
      await page.waitForFunction(() => /from 0 to 30/.test(document.getElementById('form-status').textContent));

      // The slider sets the number box; the top end is then reported with certainty.
      await page.locator(`#q${number}-slider`).fill('30');
      assert.equal(await page.locator(`#q${number}-number`).inputValue(), '30');
      const { body } = await submitAndWait(page, slug);
      assert.deepEqual(body.answers, { [yesNo]: 1, [choice]: 2, [ordinal]: 3, [number]: 1 });
      const sent = await page.locator('#sent-reports li').allTextContents();
      assert.deepEqual(sent.map((line) => line.split('reported: ')[1]), ['Yes', 'Sometimes', 'Agree', 'the upper end (30)']);
      assert.deepEqual(problems(log), { consoleErrors: [], pageErrors: [], cspViolations: [] });
    });
  });
});
