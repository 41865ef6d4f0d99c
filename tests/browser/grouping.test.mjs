// A grouping question in a real browser (issue 18): shown like a choice with its plain line
// ("This answer is sent as you give it — it is not randomized"), listed beside the total ε,
// sent exactly as chosen while the other questions are randomized on the device, and then
// broken down by on the server.
//
// Run: cargo build --release && node --test tests/browser/

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { launchBrowser, openInstrumentedPage, problems, questionIds, serverBinary, startServer, submitAndWait } from './harness.mjs';

const TIMEOUT = { timeout: 90_000 };

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

const SURVEY = {
  title: 'Doping by sport',
  min_cell: 5,
  questions: [
    { text: 'Which sport do you compete in?', type: 'grouping', options: ['Rowing', 'Judo', 'Chess'] },
    { text: 'Have you used a performance-enhancing drug?', type: 'yes_no', epsilon: 1 },
  ],
};

describe('a grouping question on the form', () => {
  test('is marked as not randomized, sent as chosen, and broken down by', TIMEOUT, async () => {
    const slug = await server.createOpenSurvey(SURVEY);
    const session = await openInstrumentedPage(browser);
    try {
      const { page, log } = session;
      await page.goto(`${server.origin}/s/${slug}`);
      await page.locator('#submit-button:enabled').waitFor();
      const [sport, drug] = await questionIds(page);
      const fieldset = page.locator(`#question-${sport}`);
      assert.equal(await fieldset.getAttribute('data-kind'), 'grouping');
      assert.equal((await fieldset.locator('.protection').textContent()).trim(),
        'This answer is sent as you give it — it is not randomized.');
      assert.match(await page.locator('#unrandomized').textContent(), /Not randomized, sent as you give them: Which sport do you compete in\?/);
      assert.equal((await page.locator('#total-epsilon').textContent()).trim(), '1.00', 'the total ε counts the randomized question only');

      await page.locator(`label[for="q${sport}-2"]`).click();
      await page.locator(`label[for="q${drug}-yes"]`).click();
      const { body } = await submitAndWait(page, slug);
      assert.equal(body.answers[sport], 2, 'the grouping answer as chosen');
      assert.ok([0, 1].includes(body.answers[drug]));
      const sent = await page.locator('#sent-reports li').allTextContents();
      assert.ok(sent.some((line) => line.endsWith('reported: Chess')), sent.join(' | '));
      assert.deepEqual(problems(log), { consoleErrors: [], pageErrors: [], cspViolations: [] });
    } finally {
      await session.context.close();
    }
    await server.ownerPost(`/api/surveys/${slug}/close`);
    // One response in one combination of grouping answers, fewer than min_cell 5: the last
    // consideration at close withholds it, and no group of the breakdown shows it.
    const results = await server.ownerGet(`/api/surveys/${slug}/results`);
    assert.equal(results.release.withheld_responses, 1);
    assert.equal(results.release.released_responses, 0);
    const breakdown = await server.ownerGet(`/api/surveys/${slug}/results?by=${results.groupings[0].id}`);
    assert.equal(breakdown.groups.length, 3);
    assert.ok(breakdown.groups.every((group) => !group.n), JSON.stringify(breakdown.groups.map((group) => group.n)));
  });
});
