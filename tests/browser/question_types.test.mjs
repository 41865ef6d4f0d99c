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

/** The same questions in German, for a German form; the consent asked first. */
const GERMAN = {
  title: 'Jede Frageart auf dem Telefon',
  researcher: 'Dr. Erika Mustermann, Institut für Psychologie',
  contact: 'https://uni.example/ethik',
  consent: 'Die Teilnahme ist freiwillig. Sie können jederzeit abbrechen.',
  language: 'de',
  questions: [
    { ...SURVEY.questions[0], text: 'Haben Sie je bei einer Prüfung geschummelt?' },
    { ...SURVEY.questions[1], text: 'Wie oft schwänzen Sie Vorlesungen?', options: ['Nie', 'Selten', 'Manchmal', 'Jede Woche'] },
    { ...SURVEY.questions[2], text: 'Schummeln ist in meinem Studiengang üblich.', options: ['Stimme gar nicht zu', 'Stimme nicht zu', 'Neutral', 'Stimme zu', 'Stimme voll zu'] },
    { ...SURVEY.questions[3], text: 'Wie oft haben Sie im letzten Monat Alkohol getrunken?', max: 2.5 },
  ],
};

describe('a German survey on a phone-sized page', () => {
  test('is answered end to end in German, numbers with a decimal comma', TIMEOUT, async () => {
    const slug = await server.createOpenSurvey(GERMAN);
    await withPhonePage(async ({ page, log }) => {
      await page.goto(`${server.origin}/s/${slug}`);
      assert.equal(await page.locator('html').getAttribute('lang'), 'de');
      assert.equal(await page.locator('#submit-button').innerText(), 'Randomisieren und senden');
      const ids = await questionIds(page);
      const [yesNo, choice, ordinal, number] = ids;
      assert.equal(await page.locator(`label[for="q${yesNo}-yes"]`).innerText(), 'Ja');
      assert.equal(await page.locator(`label[for="q${number}-number"]`).innerText(), 'Ihre Zahl, von 0 bis 2,5');
      assert.ok((await page.locator('.protection').allTextContents()).some((line) => line.includes('Ihr Gerät meldet in 99,9998 % der Fälle die Wahrheit')));

      // Consent first, then the same checks as in English, in German.
      await page.waitForLoadState('networkidle');
      assert.ok(await page.locator('#submit-button').isDisabled(), 'sending waits for the consent');
      await page.locator('label[for="consent-checkbox"]').click();
      await page.locator('#submit-button:enabled').waitFor();
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 0, `nothing overflows sideways at 390 px (by ${overflow} px)`);
      const consentBox = await page.locator('label[for="consent-checkbox"]').boundingBox();
      assert.ok(consentBox.height >= 44 && consentBox.width >= 300, `the consent is a full-width target (${JSON.stringify(consentBox)})`);

      await page.locator(`label[for="q${yesNo}-yes"]`).click();
      await page.locator(`label[for="q${ordinal}-3"]`).click();
      await page.locator('#submit-button').click();
      await page.locator('#form-status.error').waitFor();
      assert.match(await page.locator('#form-status').textContent(), /^Bitte beantworten Sie die Fragen 2 und 4: /);
      assert.equal(await page.evaluate(() => document.activeElement.id), `q${choice}-0`);
      await page.locator(`label[for="q${choice}-2"]`).click();
      await page.locator(`#q${number}-number`).fill('3');
      await page.locator('#submit-button').click();
      await page.waitForFunction(() => /braucht eine Zahl von 0 bis 2,5/.test(document.getElementById('form-status').textContent));

      await page.locator(`#q${number}-number`).fill('2.5');
      const { body } = await submitAndWait(page, slug);
      assert.deepEqual(body.answers, { [yesNo]: 1, [choice]: 2, [ordinal]: 3, [number]: 1 });
      assert.equal(await page.locator('#submitted-heading').innerText(), 'Gesendet');
      const sent = await page.locator('#sent-reports li').allTextContents();
      assert.deepEqual(sent.map((line) => line.split('gemeldet: ')[1]), ['Ja', 'Manchmal', 'Stimme zu', 'das obere Ende (2,5)']);
      assert.match(await page.locator('#receipt-link').innerText(), /Ihre Antwort einsehen oder zurückziehen/);
      await page.locator('#receipt-copy').click();
      await page.locator('#receipt-status', { hasText: /Kopiert|Markiert/ }).waitFor();
      const after = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(after <= 0, `the Sent page does not overflow at 390 px (by ${after} px)`);
      assert.deepEqual(problems(log), { consoleErrors: [], pageErrors: [], cspViolations: [] });
    });
  });
});
