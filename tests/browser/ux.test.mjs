// Issue 19's proof in a real browser: every state of the respondent's form and every
// workspace page photographed at 390 and 1280 px (target/screenshots/<width>/<name>.png,
// not committed) with no element sticking out of a 390 px viewport; an axe-core audit of
// every page in the same Chromium, 0 serious or critical violations, with a per-page
// summary printed and written to target/axe-summary.json; and a survey answered, and every
// workspace action reached, with the keyboard only.
//
// Run: cargo build && DENIABLE_BIN=target/debug/deniable node --test tests/browser/

import assert from 'node:assert/strict';
import { mkdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { REPO_ROOT, launchBrowser, serverBinary, startServer, writeReport } from './harness.mjs';

const SCREENSHOTS = path.join(REPO_ROOT, 'target', 'screenshots');
const WIDTHS = [390, 1280];
const PASSWORD = 'a long enough passphrase';
const AXE_SOURCE = await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

const CONSENT = 'This study is run by the Department of Psychology and approved by its ethics board.\n' +
  'Taking part is voluntary; you may stop at any time.';
const TYPES = {
  title: 'Every question type',
  description: 'One question of each type.',
  researcher: 'Dr. Ada Lovelace, Department of Psychology',
  contact: 'ethics@uni.example',
  questions: [
    { text: 'Which faculty are you in?', type: 'grouping', options: ['Arts', 'Science', 'Medicine'] },
    { text: 'Have you ever cheated on an exam?', type: 'yes_no', epsilon: 1 },
    { text: 'How often do you skip lectures?', type: 'choice', options: ['Never', 'Rarely', 'Sometimes', 'Every week'], epsilon: 2 },
    { text: 'Cheating is common in my programme.', type: 'ordinal', options: ['Strongly disagree', 'Disagree', 'Neutral', 'Agree', 'Strongly agree'], epsilon: 2 },
    { text: 'How many times did you drink alcohol in the past month?', type: 'number', min: 0, max: 30, epsilon: 2 },
  ],
};
const WITH_CONSENT = {
  title: 'With a consent text',
  researcher: 'Dr. Ada Lovelace',
  contact: 'https://uni.example/ethics',
  consent: CONSENT,
  questions: [{ text: 'Have you ever shoplifted?', type: 'yes_no', epsilon: 1 }],
};

serverBinary();

let server;
let browser;
let signedIn = null;
let typesSlug;
let consentSlug;
/** page name → {critical, serious, moderate, minor, rules}, filled by audit(). */
const axeSummary = {};

before(async () => {
  server = await startServer();
  browser = await launchBrowser();
  for (const width of WIDTHS) await mkdir(path.join(SCREENSHOTS, String(width)), { recursive: true });
  typesSlug = await server.createOpenSurvey(TYPES);
  consentSlug = await server.createOpenSurvey(WITH_CONSENT);
});

after(async () => {
  const lines = Object.entries(axeSummary).map(
    ([name, counts]) =>
      `${name.padEnd(18)} critical ${counts.critical}  serious ${counts.serious}  moderate ${counts.moderate}  minor ${counts.minor}  (rules passed ${counts.passed})` +
      (counts.rules.length ? `  (${counts.rules.join(', ')})` : ''),
  );
  if (lines.length) {
    console.log(`axe-core violations by impact, per page:\n${lines.join('\n')}`);
    await writeReport('axe-summary.json', JSON.stringify(axeSummary, null, 2));
  }
  await browser?.close();
  await server?.stop();
});

/** A fresh context (the signed-in researcher's when `researcher`), recording page errors. */
async function newPage({ width = 1280, researcher = false } = {}) {
  const options = { viewport: { width, height: 900 } };
  if (researcher) {
    assert.ok(signedIn, 'the workspace test signed the researcher up first');
    options.storageState = signedIn;
  }
  const context = await browser.newContext(options);
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (error) => errors.push(String(error)));
  page.on('dialog', (dialog) => {
    errors.push(`dialog: ${dialog.message()}`);
    dialog.dismiss();
  });
  return { context, page, errors };
}

/** Elements whose box reaches past the viewport's left or right edge (visible ones only). */
function overflowing(page) {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const found = [];
    for (const element of document.body.querySelectorAll('*')) {
      const style = getComputedStyle(element);
      if (style.visibility === 'hidden' || style.display === 'none') continue;
      const box = element.getBoundingClientRect();
      if (box.width === 0 || box.height === 0) continue;
      // The skip link waits off-screen until focused, on purpose.
      if (element.classList.contains('skip') || element.classList.contains('sr-only')) continue;
      if (box.right > width + 0.5 || box.left < -0.5) {
        found.push(`${element.tagName.toLowerCase()}${element.id ? `#${element.id}` : ''}.${element.className} (${Math.round(box.left)}–${Math.round(box.right)})`);
      }
    }
    return { scroll: document.documentElement.scrollWidth - width, found: found.slice(0, 10) };
  });
}

/** Full-page screenshots at both widths, and the 390 px overflow check; back to `width`. */
async function photograph(page, name, width = 1280) {
  for (const w of WIDTHS) {
    await page.setViewportSize({ width: w, height: 900 });
    if (w === 390) {
      const { scroll, found } = await overflowing(page);
      assert.equal(scroll, 0, `${name}: no horizontal scrolling at 390 px`);
      assert.deepEqual(found, [], `${name}: no element past the edge at 390 px`);
    }
    await page.screenshot({ path: path.join(SCREENSHOTS, String(w), `${name}.png`), fullPage: true });
  }
  await page.setViewportSize({ width, height: 900 });
}

/** axe-core in the page (through the DevTools protocol: the pages' CSP is untouched). */
async function audit(page, name) {
  await page.evaluate(AXE_SOURCE);
  const violations_ = await page.evaluate(async () => {
    const results = await window.axe.run(document);
    return {
      passed: results.passes.length,
      found: results.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => n.target.join(' ')).slice(0, 5) })),
    };
  });
  const { passed, found: violations } = violations_;
  assert.ok(passed > 10, `${name}: axe ran its rules (${passed} passed)`);
  const counts = { critical: 0, serious: 0, moderate: 0, minor: 0, passed, rules: [] };
  for (const violation of violations) {
    counts[violation.impact] = (counts[violation.impact] ?? 0) + 1;
    counts.rules.push(`${violation.id}:${violation.impact}`);
  }
  axeSummary[name] = counts;
  const grave = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.deepEqual(grave, [], `${name}: no serious or critical accessibility violation`);
}

async function check(page, name) {
  await audit(page, name);
  await photograph(page, name);
}

/** Presses Tab until the focused element matches `selector` (at most `limit` presses). */
async function tabTo(page, selector, { limit = 80, shift = false } = {}) {
  for (let pressed = 0; pressed < limit; pressed += 1) {
    if (await page.evaluate((s) => document.activeElement?.matches(s) ?? false, selector)) return;
    await page.keyboard.press(shift ? 'Shift+Tab' : 'Tab');
  }
  const focused = await page.evaluate(() => document.activeElement?.outerHTML.slice(0, 120));
  assert.fail(`Tab never reached ${selector} (focus on ${focused})`);
}

/** Types into the field `selector`, reached with Tab. */
async function typeInto(page, selector, text) {
  await tabTo(page, selector);
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.type(text);
}

/** Answers every question of an open form with the keyboard only: Tab, arrows, Space. */
async function answerWithKeyboard(page) {
  const fieldsets = await page.locator('fieldset.question').evaluateAll((sets) =>
    sets.map((set) => ({ id: set.dataset.questionId, number: Boolean(set.querySelector('input[type="number"]')) })),
  );
  for (const { id, number } of fieldsets) {
    if (number) {
      await typeInto(page, `#q${id}-number`, '3');
    } else {
      await tabTo(page, `input[name="q${id}"]`);
      // The arrow selects the next option; Space selects the focused one.
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press('Space');
      assert.equal(await page.locator(`input[name="q${id}"]:checked`).count(), 1, `question ${id} answered`);
    }
  }
}

test('the respondent form in every state: screenshots, no overflow at 390 px, axe', { timeout: 240_000 }, async () => {
  const { context, page, errors } = await newPage();
  await page.goto(`${server.origin}/s/demo`);
  await page.locator('#submit-button:enabled').waitFor();
  await check(page, 'form-empty');

  // Sent with nothing answered: the questions are named, marked and focused.
  await page.locator('#submit-button').click();
  await page.locator('#form-status').filter({ hasText: /1, 2 and 3/ }).waitFor();
  await check(page, 'form-error');

  for (const id of await page.locator('fieldset.question').evaluateAll((s) => s.map((f) => f.dataset.questionId))) {
    await page.locator(`label[for="q${id}-no"]`).click();
  }
  await page.locator('#submit-button').click();
  await page.locator('#submitted').waitFor({ state: 'visible' });
  await check(page, 'form-sent');
  const receipt = (await page.locator('#receipt').textContent()).trim();

  await page.reload();
  await page.locator('#memo-note').waitFor({ state: 'visible' });
  await check(page, 'form-revisit');

  await page.goto(`${server.origin}/s/demo/receipt`);
  await check(page, 'receipt');
  await page.locator('#receipt-input').fill(receipt);
  await page.locator('#receipt-form button[value="view"]').click();
  await page.waitForLoadState('load');
  await check(page, 'receipt-found');
  // The withdrawal's second step, left with "keep".
  await page.locator('#receipt-input').fill(receipt);
  await page.locator('#receipt-form button[value="withdraw"]').click();
  await page.locator('#confirm-withdrawal').waitFor();
  await check(page, 'receipt-confirm');
  await page.locator('#confirm-withdrawal button[value="view"]').click();
  await page.locator('#stored-reports').waitFor();

  await page.goto(`${server.origin}/s/${consentSlug}`);
  await page.locator('#consent-checkbox').waitFor();
  await check(page, 'form-consent');

  await page.goto(`${server.origin}/s/${typesSlug}`);
  await page.locator('#submit-button:enabled').waitFor();
  await check(page, 'form-types');
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 900 });
    for (const fieldset of await page.locator('fieldset.question').all()) {
      const kind = await fieldset.getAttribute('data-kind');
      await fieldset.screenshot({ path: path.join(SCREENSHOTS, String(width), `question-${kind}.png`) });
    }
  }
  await page.setViewportSize({ width: 1280, height: 900 });

  await page.goto(`${server.origin}/s/no-such-survey`);
  await check(page, 'form-not-found');

  assert.deepEqual(errors, [], 'no page error or dialog');
  await context.close();
});

test('a survey completed with the keyboard only', { timeout: 120_000 }, async () => {
  const { context, page, errors } = await newPage({ width: 390 });
  await page.goto(`${server.origin}/s/${typesSlug}`);
  await page.locator('#submit-button:enabled').waitFor();
  await answerWithKeyboard(page);
  await tabTo(page, '#submit-button');
  const posted = page.waitForRequest((request) => request.method() === 'POST' && request.url().endsWith(`/api/surveys/${typesSlug}/responses`));
  await page.keyboard.press('Enter');
  await posted;
  await page.locator('#submitted').waitFor({ state: 'visible' });
  // Focus moves to the confirmation, where a screen reader starts reading.
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'submitted-heading');

  // With a consent text: Space ticks the box, then the answers, then Enter sends.
  await page.goto(`${server.origin}/s/${consentSlug}`);
  await page.locator('#consent-checkbox').waitFor();
  await tabTo(page, '#consent-checkbox');
  await page.keyboard.press('Space');
  await answerWithKeyboard(page);
  await tabTo(page, '#submit-button:enabled');
  await page.keyboard.press('Enter');
  await page.locator('#submitted').waitFor({ state: 'visible' });

  assert.deepEqual(errors, [], 'no page error or dialog');
  await context.close();
});

test('every workspace action by keyboard, each page audited and photographed', { timeout: 300_000 }, async () => {
  const link = /http:\/\/\S+\/setup\/[A-Za-z0-9_-]{43}/.exec(server.output());
  assert.ok(link, 'serve printed the one-time sign-up link');
  const { context, page, errors } = await newPage();

  await page.goto(link[0]);
  await check(page, 'setup');
  await typeInto(page, 'input[name="email"]', 'researcher@example.org');
  await typeInto(page, 'input[name="password"]', PASSWORD);
  await typeInto(page, 'input[name="password_again"]', PASSWORD);
  await page.keyboard.press('Enter');
  await page.waitForURL('**/surveys');

  // Sign out and in again, by keyboard.
  await tabTo(page, 'nav button[type="submit"]');
  await page.keyboard.press('Enter');
  await page.waitForURL('**/login');
  await check(page, 'login');
  await typeInto(page, 'input[name="email"]', 'researcher@example.org');
  await typeInto(page, 'input[name="password"]', PASSWORD);
  await page.keyboard.press('Enter');
  await page.waitForURL('**/surveys');
  signedIn = await context.storageState();

  // The demo survey, adopted by this first researcher, gets ten responses for its results.
  const demo = await server.definition('demo');
  for (let respondent = 0; respondent < 10; respondent += 1) {
    const answers = Object.fromEntries(demo.questions.map((q, i) => [q.id, (respondent + i) % 2]));
    const response = await fetch(`${server.origin}/api/surveys/demo/responses`, {
      method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ answers }),
    });
    assert.equal(response.status, 201, await response.text());
  }

  // Create a survey.
  await page.goto(`${server.origin}/surveys`);
  await check(page, 'surveys');
  await typeInto(page, '#new-title', 'Keyboard survey');
  await typeInto(page, '#new-question', 'Have you ever cheated?');
  await tabTo(page, '#new-survey button[type="submit"]');
  await page.keyboard.press('Enter');
  await page.waitForURL(/\/edit(#.*)?$/);
  const slug = /\/surveys\/([a-z0-9-]+)\/edit/.exec(page.url())[1];

  // Edit the builder: the introduction, question 1 and a new question, one Save.
  await tabTo(page, '#intro > summary');
  await page.keyboard.press('Enter');
  await typeInto(page, '#researcher', 'Dr. Ada Lovelace');
  await typeInto(page, '#contact', 'ethics@uni.example');
  await typeInto(page, '#q0-text', 'Have you ever cheated on an exam?');
  await typeInto(page, '#new-text', 'Have you ever plagiarised?');
  await tabTo(page, 'button[value="add"]');
  await page.keyboard.press('Enter');
  await page.waitForURL('**/edit#add-question');
  assert.equal(await page.locator('#q0-text').inputValue(), 'Have you ever cheated on an exam?');
  assert.equal(await page.locator('#q1-text').inputValue(), 'Have you ever plagiarised?');
  assert.equal(await page.locator('#researcher').inputValue(), 'Dr. Ada Lovelace');
  await check(page, 'builder');

  // A refused contact comes back with everything typed.
  await tabTo(page, '#intro > summary');
  await page.keyboard.press('Enter');
  await typeInto(page, '#contact', 'call me');
  await typeInto(page, '#q1-text', 'Have you ever plagiarised an essay?');
  await tabTo(page, 'button[value="save"]', { shift: true });
  await page.keyboard.press('Enter');
  await page.locator('#error-intro').waitFor();
  assert.equal(await page.locator('#q1-text').inputValue(), 'Have you ever plagiarised an essay?');
  await check(page, 'builder-refused');
  await typeInto(page, '#contact', 'ethics@uni.example');
  await tabTo(page, 'button[value="save"]', { shift: true });
  // The refused page has the same URL: wait for the redirect's page itself.
  const saved = page.waitForResponse((response) => response.request().method() === 'POST' && response.status() === 303);
  await page.keyboard.press('Enter');
  await saved;
  await page.waitForLoadState('load');
  await page.locator('#error-intro').waitFor({ state: 'detached' });
  assert.equal(await page.locator('#q1-text').inputValue(), 'Have you ever plagiarised an essay?');

  // Open it, after the confirmation.
  await tabTo(page, `a[href="/surveys/${slug}/open"]`);
  await page.keyboard.press('Enter');
  await page.waitForURL('**/open');
  await check(page, 'open');
  await tabTo(page, 'main button[type="submit"]');
  await page.keyboard.press('Enter');
  await page.waitForURL(`**/surveys/${slug}/results`);
  // Its panel links and embedding page, reached from the results page's actions.
  await tabTo(page, `a[href="/surveys/${slug}/links"]`);
  await page.keyboard.press('Enter');
  await page.waitForURL(`**/surveys/${slug}/links`);
  assert.match(await page.locator('#tool-links').textContent(), /Prolific/);
  await check(page, 'links');

  // Results of the demo (with responses), its export link, present mode and the switch.
  await page.goto(`${server.origin}/surveys`);
  await tabTo(page, 'a[href="/surveys/demo/results"]');
  await page.keyboard.press('Enter');
  await page.waitForURL('**/surveys/demo/results');
  await page.waitForFunction(() =>
    Array.from(document.querySelectorAll('[data-field="n"]')).some((cell) => Number(cell.textContent) >= 10),
  );
  await check(page, 'results');
  // While open the exports wait for the close (issue 41): no link to tab to, the codebook
  // downloads.
  assert.equal(await page.locator('#export-csv').evaluate((node) => node.tagName), 'SPAN');
  await tabTo(page, 'a[href="/api/surveys/demo/codebook.json"]');
  const download = page.waitForEvent('download');
  await page.keyboard.press('Enter');
  assert.equal((await download).suggestedFilename().endsWith('.json'), true);
  // Present mode comes before the exports in the actions bar.
  await tabTo(page, 'a[href="/surveys/demo/present"]', { shift: true });
  await page.keyboard.press('Enter');
  await page.waitForURL('**/surveys/demo/present');
  assert.equal(await page.locator('#loopback-warning').isVisible(), true, '127.0.0.1 is not reachable from phones');
  await check(page, 'present');
  await tabTo(page, '#hide-results');
  await page.keyboard.press('Enter');
  await page.locator('#results-hidden').waitFor();
  assert.equal(await page.locator('[data-field="estimate"]').count(), 0);
  await check(page, 'present-hidden');
  await tabTo(page, '#reveal');
  await page.keyboard.press('Enter');
  await page.locator('#hide-results').waitFor();

  await page.goto(`${server.origin}/account`);
  await check(page, 'account');
  await tabTo(page, 'nav button[type="submit"]');
  await page.keyboard.press('Enter');
  await page.waitForURL('**/login');

  assert.deepEqual(errors, [], 'no page error or dialog');
  await context.close();
});

/**
 * Words of each element matching `selector` that the layout broke across lines: a word whose
 * characters' boxes sit on more than one line.
 */
function wordsBrokenInside(page, selector) {
  return page.evaluate((selector) => {
    const broken = [];
    for (const element of document.querySelectorAll(selector)) {
      const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        for (const match of node.textContent.matchAll(/\S+/g)) {
          const tops = new Set();
          for (let at = match.index; at < match.index + match[0].length; at += 1) {
            const range = document.createRange();
            range.setStart(node, at);
            range.setEnd(node, at + 1);
            const box = range.getBoundingClientRect();
            if (box.width > 0) tops.add(Math.round(box.top));
          }
          if (tops.size > 1) broken.push(`${match[0]} (${tops.size} lines)`);
        }
      }
    }
    return broken;
  }, selector);
}

test('on a phone the survey list wraps titles between words, never inside one', { timeout: 120_000 }, async () => {
  assert.ok(signedIn, 'the workspace test signed the researcher up first');
  const { context, page, errors } = await newPage({ width: 390 });
  await page.goto(`${server.origin}/login`);
  await page.locator('input[name="email"]').fill('researcher@example.org');
  await page.locator('input[name="password"]').fill(PASSWORD);
  await page.locator('input[name="password"]').press('Enter');
  await page.waitForURL('**/surveys');
  const titles = ['Student sport participation', 'Studentenvertretungswahlen und Hochschulsport im Wintersemester'];
  for (const title of titles) {
    await page.goto(`${server.origin}/surveys`);
    await page.locator('#new-title').fill(title);
    await page.locator('#new-question').fill('Have you ever cheated?');
    await page.locator('#new-survey button[type="submit"]').click();
    await page.waitForURL(/\/edit(#.*)?$/);
  }
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 900 });
    await page.goto(`${server.origin}/surveys`);
    const shown = await page.locator('.survey-list tbody th').allInnerTexts();
    for (const title of titles) assert.ok(shown.includes(title), `${title} is listed`);
    assert.deepEqual(await wordsBrokenInside(page, '.survey-list tbody th'), [], `${width} px: no title broken inside a word`);
    // The long title does wrap (between words) on a phone: the check above had lines to look at.
    const lines = await page.locator('.survey-list tbody th', { hasText: titles[1] }).evaluate((th) =>
      Math.round(th.getBoundingClientRect().height / parseFloat(getComputedStyle(th).lineHeight)));
    if (width === 390) assert.ok(lines >= 2, `the long title takes ${lines} lines at 390 px`);
  }
  await page.setViewportSize({ width: 1280, height: 900 });
  await check(page, 'surveys-list');
  assert.deepEqual(errors, [], 'no page error or dialog');
  await context.close();
});
