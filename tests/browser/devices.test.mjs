// The respondent logic of static/form-core.js, run by Node.js exactly as the browser runs it
// (node:vm, one context per device with its own in-memory localStorage, crypto's
// getRandomValues and the committed WebAssembly module):
//  - its pieces against known values and a scripted fetch (429, 5xx, lost answers, refusals);
//  - 500 simulated devices behind one address (127.0.0.1) against the server with its
//    DEFAULT limits, arriving evenly over 60 s: all stored within 120 s of the first, none
//    lost, and each device's stored reports are its first randomization; and the same 500
//    arriving within 2 s, beyond the limit's burst (300), so that the automatic retries carry
//    them. In the default mode of ./scripts/test (DENIABLE_TEST_MODE unset or `default`):
//    320 devices over 10 s, and 320 within 2 s (20 beyond the burst); `--long`: 500 and 60 s.
//
// Run: cargo build --release && node --test tests/browser/

import assert from 'node:assert/strict';
import { createHash, webcrypto } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, test } from 'node:test';
import vm from 'node:vm';

import { REPO_ROOT, serverBinary, startServer, writeReport } from './harness.mjs';

const CORE_SOURCE = await readFile(path.join(REPO_ROOT, 'static', 'form-core.js'), 'utf8');
const WASM_MODULE = await WebAssembly.compile(
  await readFile(path.join(REPO_ROOT, 'static', 'randomized_response.wasm')),
);
const TOKENS_SOURCE = await readFile(path.join(REPO_ROOT, 'static', 'blind-tokens.js'), 'utf8');
const TOKENS_MODULE = await WebAssembly.compile(
  await readFile(path.join(REPO_ROOT, 'static', 'blind_tokens.wasm')),
);

// The crate's MAX_QUESTIONS, which the form page gives form.js as data-max-questions.
const MAX_QUESTIONS = 100;
const LONG_MODE = process.env.DENIABLE_TEST_MODE === 'long';
const DEVICES = LONG_MODE ? 500 : 320;
const ARRIVAL_WINDOW_MS = LONG_MODE ? 60_000 : 10_000;
const BURST_WINDOW_MS = 2_000;
const STORED_WITHIN_MS = 120_000;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const sha256Hex = (text) => createHash('sha256').update(text).digest('hex');
/** A value made in a device's context, as a plain value of this realm (for deepEqual). */
const plain = (value) => JSON.parse(JSON.stringify(value));

/** localStorage's interface over a Map: one per device. */
function memoryStorage() {
  const items = new Map();
  return {
    getItem: (key) => (items.has(key) ? items.get(key) : null),
    setItem: (key, value) => void items.set(key, String(value)),
    removeItem: (key) => void items.delete(key),
    get length() {
      return items.size;
    },
    keys: () => [...items.keys()],
  };
}

/**
 * A device: a fresh vm context holding fetch (to `origin`, recording every POST body), its
 * own localStorage, crypto.getRandomValues and an instance of the committed module, in which
 * form-core.js runs as the page's script. Math.random throws there: the core must not use it.
 */
async function newDevice({ fetchImpl = fetch, origin = '' } = {}) {
  const localStorage = memoryStorage();
  const posted = [];
  const deviceFetch = async (url, init = {}) => {
    if (init.method === 'POST') posted.push(init.body);
    return fetchImpl(origin + url, init);
  };
  const getRandomValues = (array) => webcrypto.getRandomValues(array);
  const context = vm.createContext({
    fetch: deviceFetch,
    localStorage,
    crypto: { getRandomValues },
    URLSearchParams,
    console,
  });
  vm.runInContext('Math.random = () => { throw new Error("Math.random was called"); };', context);
  vm.runInContext(CORE_SOURCE, context, { filename: 'static/form-core.js' });
  vm.runInContext(TOKENS_SOURCE, context, { filename: 'static/blind-tokens.js' });
  const { exports: mechanism } = await WebAssembly.instantiate(WASM_MODULE, {});
  const { exports: tokenExports } = await WebAssembly.instantiate(TOKENS_MODULE, {});
  const retries = [];
  const deps = {
    maxQuestions: MAX_QUESTIONS,
    fetch: context.fetch,
    storage: context.localStorage,
    getRandomValues: context.crypto.getRandomValues,
    mechanism,
    sleep,
    now: () => Date.now(),
    onRetry: (retry) => retries.push(retry),
    tokens: { api: context.DeniableTokens, exports: tokenExports },
  };
  return { core: context.DeniableCore, deps, localStorage, posted, retries };
}

/** A scripted server: each POST gets the next answer (a Response, or an Error to throw). */
function scriptedFetch(answers) {
  let next = 0;
  return async () => {
    const answer = answers[Math.min(next++, answers.length - 1)];
    if (answer instanceof Error) throw answer;
    return answer;
  };
}

function jsonResponse(status, body, headers = {}) {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json', ...headers } });
}

// As form.js passes them: each question of the public definition with its true answer.
const ANSWERS = [
  { question: { id: 1, position: 0, type: 'yes_no', design: 'mirrored', epsilon: 1, required: true }, truth: 1 },
  { question: { id: 2, position: 1, type: 'yes_no', design: 'mirrored', epsilon: 20, required: true }, truth: 0 },
  { question: { id: 3, position: 2, type: 'yes_no', design: 'mirrored', epsilon: 0.5, required: false }, truth: 1 },
  {
    question: { id: 4, position: 3, type: 'choice', design: 'k_ary', options: ['Never', 'Once', 'More often'], epsilon: 20 },
    truth: 2,
  },
  { question: { id: 5, position: 4, type: 'number', design: 'two_ends', min: 0, max: 30, epsilon: 20 }, truth: 30 },
  {
    question: { id: 6, position: 5, type: 'yes_no', design: 'forced_response', answer_truthfully: 0.67, forced_yes: 0.165, forced_no: 0.165 },
    truth: 1,
  },
];
const NONCE = '5a'.repeat(32);

describe('form-core.js on its own', () => {
  test('receipts are 43 base64url characters and their response ids are SHA-256 of the text', async () => {
    const { core, deps } = await newDevice();
    const seen = new Set();
    for (let draw = 0; draw < 200; draw++) {
      const receipt = core.drawReceipt(deps.getRandomValues);
      assert.match(receipt, /^[A-Za-z0-9_-]{43}$/);
      assert.equal(Buffer.from(receipt, 'base64url').length, 32);
      assert.equal(core.responseIdOf(deps.mechanism, receipt), sha256Hex(receipt));
      seen.add(receipt);
    }
    assert.equal(seen.size, 200, 'no receipt repeats');
    for (let length = 0; length < 70; length++) {
      const bytes = webcrypto.getRandomValues(new Uint8Array(length));
      assert.equal(core.base64url(bytes), Buffer.from(bytes).toString('base64url'), `length ${length}`);
    }
    assert.throws(() => core.responseIdOf(deps.mechanism, 'too short'));
  });

  test('prepare fixes reports, receipt and body before sending, and stores no true answer', async () => {
    const { core, deps, localStorage } = await newDevice();
    const prepared = core.prepare(deps, 'quiz', NONCE, ANSWERS.map((answer) => ({ ...answer, question: { ...answer.question } })), null);
    assert.ok(prepared.stored);
    const state = plain(prepared.state);
    const body = JSON.parse(state.pending.body);
    assert.deepEqual(Object.keys(body), ['answers', 'response_id']);
    assert.deepEqual(body.answers, state.reports);
    assert.equal(body.answers['2'], 0, 'ε = 20 reports the truth');
    assert.equal(body.answers['4'], 2, 'ε = 20 reports the true option');
    assert.equal(body.answers['5'], 1, 'ε = 20 reports the end a bound rounds to');
    assert.deepEqual(Object.keys(body.answers), ['1', '2', '3', '4', '5', '6']);
    for (const report of Object.values(body.answers)) assert.ok(Number.isInteger(report) && report >= 0);
    assert.equal(state.response_id, sha256Hex(state.pending.receipt));
    assert.equal(body.response_id, state.response_id);
    assert.deepEqual(localStorage.keys(), ['deniable:quiz']);
    assert.deepEqual(JSON.parse(localStorage.getItem('deniable:quiz')), state);
    assert.doesNotMatch(localStorage.getItem('deniable:quiz'), /truth|epsilon|design|options/);
    assert.deepEqual(plain(core.readState(localStorage, 'quiz')), state);

    const token = { input: 'A'.repeat(43), output: 'B'.repeat(86) };
    const invited = core.prepare(deps, 'invited', NONCE, ANSWERS.map((answer) => ({ ...answer, question: { ...answer.question } })), token);
    const invitedBody = JSON.parse(invited.state.pending.body);
    assert.deepEqual(Object.keys(invitedBody), ['answers', 'response_id', 'token'], 'a token, never an invitation');
    assert.deepEqual(invitedBody.token, token);
  });

  test('send retries 429 (after Retry-After), 503 and network errors with the same body', async () => {
    const recordId = 'ab'.repeat(32);
    const { core, deps, localStorage, posted, retries } = await newDevice({
      fetchImpl: scriptedFetch([
        jsonResponse(429, { error: { code: 'too_many_requests' } }, { 'Retry-After': '2' }),
        jsonResponse(503, { error: { code: 'unavailable' } }),
        new TypeError('fetch failed'),
        jsonResponse(200, { status: 'stored', record_id: recordId }),
      ]),
    });
    const slept = [];
    deps.sleep = async (ms) => void slept.push(ms);
    const state = plain(core.prepare(deps, 'quiz', NONCE, ANSWERS.map((answer) => ({ ...answer, question: { ...answer.question } })), null).state);
    const outcome = plain(await core.send(deps, 'quiz', state));
    assert.equal(outcome.outcome, 'stored');
    assert.equal(outcome.status, 200);
    assert.equal(outcome.recordId, recordId);
    assert.equal(outcome.receipt, state.pending.receipt);
    assert.equal(outcome.attempts, 4);
    assert.equal(posted.length, 4);
    for (const body of posted) assert.equal(body, state.pending.body, 'every retry re-sends the exact text');
    assert.deepEqual(plain(retries.map((retry) => retry.status)), [429, 503, null]);
    assert.ok(slept[0] >= 2000 && slept[0] <= 3000, `429: Retry-After 2 s plus up to 1 s of jitter (${slept[0]} ms)`);
    assert.ok(slept[1] <= 2000 && slept[2] <= 4000, `backoff ceilings 2 s, 4 s (${slept})`);
    assert.deepEqual(retries.map((retry) => retry.delayMs), slept, 'onRetry announces the wait');
    assert.deepEqual(JSON.parse(localStorage.getItem('deniable:quiz')), {
      reports: state.reports,
      response_id: state.response_id,
    }, 'acknowledged: the pending body (and its receipt) is gone, the memo stays');
  });

  test('a device that gives up (only with maxAttempts) keeps the pending body for the next load', async () => {
    const { core, deps, localStorage, posted } = await newDevice({
      fetchImpl: scriptedFetch([new TypeError('fetch failed'), jsonResponse(502, {})]),
    });
    deps.sleep = async () => {};
    deps.maxAttempts = 2;
    const { state } = core.prepare(deps, 'quiz', NONCE, ANSWERS.map((answer) => ({ ...answer, question: { ...answer.question } })), null);
    assert.deepEqual(plain(await core.send(deps, 'quiz', state)), { outcome: 'gave-up', status: 502, attempts: 2 });
    assert.equal(posted.length, 2);
    assert.equal(core.readState(localStorage, 'quiz').pending.body, state.pending.body);
  });

  test('the backoff is capped and jittered from getRandomValues', async () => {
    const { core, deps } = await newDevice();
    for (let attempt = 1; attempt <= 40; attempt++) {
      const ceiling = Math.min(core.BACKOFF_CAP_MS, core.BACKOFF_BASE_MS * 2 ** (attempt - 1));
      const delays = Array.from({ length: 50 }, () => core.backoffDelay(deps.getRandomValues, attempt));
      assert.ok(delays.every((delay) => Number.isInteger(delay) && delay >= 0 && delay <= ceiling), `attempt ${attempt}`);
      if (attempt >= 3) assert.ok(new Set(delays).size > 25, 'spread, not in step');
    }
    assert.equal(core.retryAfterMs('3', 0), 3000);
    assert.equal(core.retryAfterMs(null, 0), 0);
    assert.equal(core.retryAfterMs(new Date(10_000).toUTCString(), 4_000), 6000);
  });

  for (const [status, code] of [[400, 'invalid_answers'], [403, 'token_invalid'], [404, 'not_found'],
    [409, 'response_id_conflict'], [409, 'survey_not_open'], [410, 'response_withdrawn']]) {
    test(`a definitive ${status} ${code} stops at once and drops the pending body`, async () => {
      const { core, deps, localStorage, posted } = await newDevice({
        fetchImpl: scriptedFetch([jsonResponse(status, { error: { code, message: `refused: ${code}` } })]),
      });
      deps.sleep = async () => assert.fail('no retry after a definitive answer');
      const { state } = core.prepare(deps, 'quiz', NONCE, ANSWERS.map((answer) => ({ ...answer, question: { ...answer.question } })), null);
      const outcome = plain(await core.send(deps, 'quiz', state));
      assert.deepEqual(outcome, { outcome: 'refused', status, code, message: `refused: ${code}`, attempts: 1 });
      assert.equal(posted.length, 1);
      assert.equal(core.readState(localStorage, 'quiz').pending, undefined);
    });
  }

  test('forget removes everything; a foreign or broken entry reads as nothing', async () => {
    const { core, localStorage } = await newDevice();
    localStorage.setItem('deniable:quiz', JSON.stringify({ reports: { 1: 1 }, response_id: 'f'.repeat(64) }));
    assert.ok(core.readState(localStorage, 'quiz'));
    core.forget(localStorage, 'quiz');
    assert.equal(localStorage.getItem('deniable:quiz'), null);
    // Reports are integers from 0 to 19 (an option's index at most).
    localStorage.setItem('deniable:quiz', JSON.stringify({ reports: { 1: 19, 2: 0 }, response_id: 'f'.repeat(64) }));
    assert.ok(core.readState(localStorage, 'quiz'));
    for (const junk of ['{', 'null', '{"reports": {"1": 1}}',
      ...[20, -1, 1.5, '1', null].map((report) => JSON.stringify({ reports: { 1: report }, response_id: 'f'.repeat(64) })),
      JSON.stringify({ reports: { 1: 1 }, response_id: 'F'.repeat(64) })]) {
      localStorage.setItem('deniable:quiz', junk);
      assert.equal(core.readState(localStorage, 'quiz'), null, junk);
    }
  });
});

describe('the link a respondent arrives with, and the completion link (issue 35)', () => {
  /** linkOfFragment's answer as plain values: {invitation, parameters}. */
  const linkOf = (core, hash) => plain(core.linkOfFragment(hash));
  const invitation = 'ab'.repeat(32);
  const key = 'cd'.repeat(32);

  test('one grammar for the fragment: the invitation, and every other well-named parameter, percent-decoded', async () => {
    const { core } = await newDevice();
    assert.deepEqual(linkOf(core, `#invitation=${invitation}&key=${key}&return=xyz`),
      { invitation: { invitation, key }, parameters: { return: 'xyz' } });
    assert.deepEqual(linkOf(core, '#return=xyz&PROLIFIC_PID=5f3a'),
      { invitation: null, parameters: { return: 'xyz', PROLIFIC_PID: '5f3a' } });
    assert.deepEqual(linkOf(core, '#r=a%20b%26c%3Dd%23%C3%A9+'), { invitation: null, parameters: { r: 'a b&c=d#é+' } },
      'percent-decoded; a plus sign stays a plus sign');
    assert.deepEqual(linkOf(core, '#r=100%&s=%E0%A4%A'), { invitation: null, parameters: { r: '100%', s: '%E0%A4%A' } },
      'a malformed escape is kept as written');
    assert.deepEqual(linkOf(core, '#r=first&r=second&flag&&=x'), { invitation: null, parameters: { r: 'first', flag: '' } },
      'the first of a repeated name counts; a bare name is empty; an empty name is dropped');
    const long = 'n'.repeat(64);
    assert.deepEqual(linkOf(core, `#9lives=1&a-b=2&${long}=3&${long}x=4&_ok=5&%72=6`),
      { invitation: null, parameters: { [long]: '3', _ok: '5', r: '6' } },
      'only names a placeholder can use ([A-Za-z_][A-Za-z0-9_]{0,63}), after decoding');
    assert.deepEqual(linkOf(core, `#key=${key}&return=x`), { invitation: null, parameters: { return: 'x' } },
      'a key without an invitation is no parameter either');
    assert.deepEqual(linkOf(core, `#invitation=${invitation}`), { invitation: { invitation, key: null }, parameters: {} });
    for (const empty of ['', '#', null, undefined]) {
      assert.deepEqual(linkOf(core, empty), { invitation: null, parameters: {} }, String(empty));
    }
    // Names of Object.prototype's properties are plain parameters, and absent ones stay absent.
    const odd = core.linkOfFragment('#constructor=c&__proto__=p');
    assert.deepEqual(Object.entries(odd.parameters), [['constructor', 'c'], ['__proto__', 'p']]);
    assert.equal(core.completionHref('https://p.example/?a={toString}', core.linkOfFragment('').parameters).href,
      'https://p.example/?a=');
  });

  test('the Continue link: placeholders after the first ? or # take the encoded parameter, or nothing when it is missing', async () => {
    const { core } = await newDevice();
    const fill = (template, hash) => plain(core.completionHref(template, core.linkOfFragment(hash).parameters));
    assert.deepEqual(fill('https://panel.example/done?cc=C0DE&r={return}', '#return=xyz'),
      { href: 'https://panel.example/done?cc=C0DE&r=xyz', missing: [] });
    assert.deepEqual(fill('https://panel.example/done?r={return}', '#return=a%20b%26c%3D%2F%3F%23%C3%A9'),
      { href: 'https://panel.example/done?r=a%20b%26c%3D%2F%3F%23%C3%A9', missing: [] }, 'encodeURIComponent of the value');
    assert.deepEqual(fill('https://panel.example/done?r={return}&p={PID}&r2={return}', '#PID=1'),
      { href: 'https://panel.example/done?r=&p=1&r2=', missing: ['return'] }, 'missing: empty, and named once');
    assert.deepEqual(fill('https://panel.example/done#r={return}', '#return=xyz'),
      { href: 'https://panel.example/done#r=xyz', missing: [] }, 'in the fragment too');
    assert.deepEqual(fill('https://{host}.example/{return}/x?a={return}', '#host=evil.example%2F&return=p'),
      { href: 'https://{host}.example/{return}/x?a=p', missing: [] }, 'never in the host or the path');
    assert.deepEqual(fill('https://panel.example/done', '#return=xyz'), { href: 'https://panel.example/done', missing: [] });
    assert.deepEqual(fill('https://panel.example/?i={invitation}&k={key}', `#invitation=${invitation}&key=${key}`),
      { href: 'https://panel.example/?i=&k=', missing: ['invitation', 'key'] }, 'the invitation is never a parameter');
    assert.deepEqual(fill('https://panel.example/?a={not-a-name}&b={}', '#a=1'),
      { href: 'https://panel.example/?a={not-a-name}&b={}', missing: [] }, 'only well-formed placeholders');
  });

  test('the memo keeps the completion link as the server wrote it; anything but https is dropped', async () => {
    const template = 'https://panel.example/done?cc=C0DE&r={return}';
    for (const [given, kept] of [[template, template], ['javascript:alert(1)//?{return}', null],
      ['http://panel.example/done', null], [`https://panel.example/?${'a'.repeat(2000)}`, null], [42, null], [undefined, null]]) {
      const { core, deps, localStorage } = await newDevice({
        fetchImpl: scriptedFetch([jsonResponse(201, { status: 'stored', record_id: 'ab'.repeat(32), completion_url: given })]),
      });
      const state = plain(core.prepare(deps, 'quiz', NONCE, ANSWERS.map((answer) => ({ ...answer, question: { ...answer.question } })), null).state);
      const outcome = plain(await core.send(deps, 'quiz', state));
      assert.equal(outcome.outcome, 'stored');
      assert.equal(outcome.completionUrl, kept, String(given));
      const memo = JSON.parse(localStorage.getItem('deniable:quiz'));
      assert.deepEqual(memo, kept ? { reports: state.reports, response_id: state.response_id, completion_url: kept }
        : { reports: state.reports, response_id: state.response_id }, String(given));
      assert.equal(core.readState(localStorage, 'quiz').completion_url, kept ?? undefined);
    }
  });

  test('deviceStorage: localStorage where it can be read, else a stand-in for this page that says it remembers nothing', async () => {
    const { core, localStorage } = await newDevice();
    const kept = core.deviceStorage(() => localStorage);
    assert.equal(kept.remembers, true);
    assert.equal(kept.storage, localStorage);
    const blocked = core.deviceStorage(() => { throw new Error('SecurityError: access is denied'); });
    assert.equal(blocked.remembers, false);
    blocked.storage.setItem('deniable:quiz', '1');
    assert.equal(blocked.storage.getItem('deniable:quiz'), '1');
    blocked.storage.removeItem('deniable:quiz');
    assert.equal(blocked.storage.getItem('deniable:quiz'), null);
    assert.deepEqual(localStorage.keys(), [], 'the stand-in writes nothing through');
  });
});

describe('blind invitation tokens in form-core.js (issue 20)', () => {
  test('the fragment gives the invitation and the key; a key that differs from the link is refused', async () => {
    const { core, deps, localStorage, posted } = await newDevice();
    assert.deepEqual(plain(core.linkOfFragment('#invitation=' + 'ab'.repeat(32) + '&key=' + 'cd'.repeat(32)).invitation),
      { invitation: 'ab'.repeat(32), key: 'cd'.repeat(32) });
    assert.equal(core.linkOfFragment('#key=' + 'cd'.repeat(32)).invitation, null);
    assert.equal(core.linkOfFragment('').invitation, null);
    const publicKey = new Uint8Array(32).fill(7);
    const fingerprint = createHash('sha256').update(publicKey).digest('hex');
    assert.equal(core.sha256Hex(deps.mechanism, publicKey), fingerprint, 'the fingerprint is SHA-256 by the module');
    const definition = { requires_invitation: true, invitation_key: { public_key: Buffer.from(publicKey).toString('base64url'), fingerprint } };
    assert.equal(core.pinnedKey(deps, definition, fingerprint).fingerprint, fingerprint);
    const link = { invitation: 'ab'.repeat(32), key: 'ee'.repeat(32) };
    await assert.rejects(core.redeem(deps, 'quiz', definition, link), { code: 'key_mismatch' });
    await assert.rejects(core.redeem(deps, 'quiz', definition, { invitation: link.invitation, key: null }), { code: 'key_missing' });
    // A definition whose stated fingerprint is not its key's is refused too.
    const lying = { invitation_key: { public_key: definition.invitation_key.public_key, fingerprint: 'ee'.repeat(32) } };
    await assert.rejects(core.redeem(deps, 'quiz', lying, { invitation: link.invitation, key: 'ee'.repeat(32) }), { code: 'key_mismatch' });
    assert.deepEqual(posted, [], 'nothing was sent');
    assert.deepEqual(localStorage.keys(), [], 'nothing was kept');
  });

  test('against the server: redeemed once, retried after a lost answer with the same bytes, spent once, then forgotten', { timeout: 120_000 }, async () => {
    serverBinary();
    const server = await startServer();
    try {
      const slug = await server.createOpenSurvey({
        title: 'Invited', description: 'Tokens.', requires_invitation: true,
        questions: [{ text: 'Q?', epsilon: 1 }],
      });
      const csv = await (await fetch(`${server.origin}/api/surveys/${slug}/invitations`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${await server.token()}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ count: 2 }),
      })).text();
      const [, first] = csv.trim().split('\n');
      const [, link] = first.split(',');
      // The first answer to the redemption is lost after the server committed it.
      let redemptions = 0;
      const device = await newDevice({
        origin: server.origin,
        fetchImpl: async (url, init) => {
          const response = await fetch(url, init);
          if (url.endsWith('/redemptions') && ++redemptions === 1) throw new TypeError('connection reset');
          return response;
        },
      });
      const { core, deps, localStorage, posted } = device;
      deps.sleep = async () => {};
      const definition = await core.fetchDefinition(deps, slug);
      const redeemed = plain(await core.redeem(deps, slug, definition, core.linkOfFragment(new URL(link).hash).invitation));
      assert.equal(redeemed.outcome, 'ready');
      assert.equal(redeemed.fingerprint, definition.invitation_key.fingerprint);
      assert.equal(redemptions, 2);
      assert.equal(posted[0], posted[1], 'the retry sent the same blinded element');
      assert.deepEqual(JSON.parse(localStorage.getItem(`deniable:${slug}:token`)),
        { key: redeemed.fingerprint, token: redeemed.token }, 'only the token is kept: no invitation, no blind');
      // Resuming later gives the same token without a request.
      assert.deepEqual(plain(await core.redeem(deps, slug, definition, null)), redeemed);
      assert.equal(posted.length, 2);
      const answers = definition.questions.map((question) => ({ question, truth: 1 }));
      const { state } = core.prepare(deps, slug, definition.nonce, answers, redeemed.token);
      const sent = plain(await core.send(deps, slug, state));
      assert.equal(sent.outcome, 'stored');
      assert.equal(localStorage.getItem(`deniable:${slug}:token`), null, 'spent: forgotten');
      // The same invitation from another device: refused, and that device keeps nothing.
      const other = await newDevice({ origin: server.origin });
      const refused = plain(await other.core.redeem(other.deps, slug, definition, other.core.linkOfFragment(new URL(link).hash).invitation));
      assert.equal(refused.outcome, 'refused');
      assert.equal(refused.code, 'invitation_used');
      assert.deepEqual(other.localStorage.keys(), []);
      assert.equal(await server.storedAfterClosing(slug), 1, 'one stored response');
    } finally {
      await server.stop();
    }
  });
});

/**
 * Runs DEVICES devices against a fresh server with its default limits, device i arriving at
 * i · windowMs / DEVICES, each doing what form.js does on "Randomize and send". Checks that
 * all are stored within STORED_WITHIN_MS of the first arrival, none lost, every POST of a
 * device byte-identical, and the server holding each device's first randomization (its count,
 * and each device's reports looked up by its receipt). Prints and returns the figures.
 */
async function runDevices(windowMs, reportName) {
  serverBinary();
  const server = await startServer({ defaultLimits: true });
  try {
    const slug = await server.createOpenSurvey({
      title: 'A class behind one NAT address',
      description: `${DEVICES} simulated devices.`,
      questions: [
        { text: 'Have you copied homework this term?', epsilon: 1, required: true },
        { text: 'Have you skipped a lecture this week?', epsilon: 2, required: true },
        { text: 'Have you used a study drug?', epsilon: 0.5, required: false },
      ],
    });
    const devices = await Promise.all(Array.from({ length: DEVICES }, () => newDevice({ origin: server.origin })));

    const start = Date.now();
    const runs = devices.map(async (device, index) => {
      await sleep(start + (index * windowMs) / DEVICES - Date.now());
      device.arrivedAt = Date.now();
      const { core, deps } = device;
      // What form.js does on "Randomize and send".
      const definition = await core.fetchDefinition(deps, slug);
      const truths = webcrypto.getRandomValues(new Uint8Array(definition.questions.length));
      const answers = definition.questions.map((question, at) => ({ question, truth: truths[at] & 1 }));
      const { state } = core.prepare(deps, slug, definition.nonce, answers, null);
      device.firstReports = { ...state.reports };
      device.receipt = state.pending.receipt;
      device.responseId = state.response_id;
      device.outcome = await core.send(deps, slug, state);
      device.storedAt = Date.now();
    });
    const settled = await Promise.allSettled(runs);
    const failures = settled.filter((result) => result.status === 'rejected').map((result) => String(result.reason));
    assert.deepEqual(failures, [], 'no device failed');

    const stored = devices.filter((device) => device.outcome?.outcome === 'stored');
    const delays = devices.map((device) => device.storedAt - device.arrivedAt).sort((a, b) => a - b);
    const retries = devices.flatMap((device) => device.retries);
    const lastStored = Math.max(...devices.map((device) => device.storedAt)) - start;
    const seconds = (ms) => `${(ms / 1000).toFixed(2)} s`;
    const figures = [
      `${DEVICES} devices from 127.0.0.1, default limits, arrivals evenly over ${windowMs / 1000} s:`,
      `  stored ${stored.length}, lost ${DEVICES - stored.length}; ` +
        `final statuses ${JSON.stringify(countBy(devices.map((device) => device.outcome?.status)))}`,
      `  last stored ${seconds(lastStored)} after the first arrival (limit ${STORED_WITHIN_MS / 1000} s)`,
      `  delay arrival → stored: median ${seconds(delays[delays.length >> 1])}, ` +
        `p99 ${seconds(delays[Math.floor(delays.length * 0.99)])}, max ${seconds(delays.at(-1))}`,
      `  retries ${retries.length} (by status ${JSON.stringify(countBy(retries.map((retry) => retry.status ?? 'network')))}), ` +
        `devices that retried ${devices.filter((device) => device.retries.length > 0).length}, ` +
        `most by one device ${Math.max(...devices.map((device) => device.retries.length))}`,
    ];

    assert.equal(stored.length, DEVICES, figures.join('\n'));
    assert.ok(lastStored <= STORED_WITHIN_MS, figures.join('\n'));

    // Every POST of a device carried the same text, whose reports are its first randomization.
    for (const device of devices) {
      assert.ok(device.posted.length >= 1);
      for (const body of device.posted) assert.equal(body, device.posted[0]);
      const body = JSON.parse(device.posted[0]);
      assert.deepEqual(body.answers, device.firstReports);
      assert.equal(body.response_id, sha256Hex(device.receipt));
      assert.deepEqual(JSON.parse(device.localStorage.getItem(`deniable:${slug}`)), {
        reports: device.firstReports,
        response_id: device.responseId,
      }, 'the memo stays, the pending body and its receipt are gone');
    }

    // The server holds exactly them: its count, and each device's reports by its receipt.
    assert.equal(await server.responseCount(slug), DEVICES, 'the owner results count every device once');
    const lookupStart = Date.now();
    let mismatches = 0;
    for (let from = 0; from < DEVICES; from += 25) {
      const batch = devices.slice(from, from + 25);
      const found = await Promise.all(batch.map((device) => server.lookup(slug, device.receipt)));
      batch.forEach((device, at) => {
        if (JSON.stringify(sortedKeys(found[at])) !== JSON.stringify(sortedKeys(device.firstReports))) mismatches++;
      });
    }
    figures.push(`  lookups by receipt: ${DEVICES - mismatches} of ${DEVICES} equal the first randomization ` +
      `(${seconds(Date.now() - lookupStart)})`);
    console.log(figures.join('\n'));
    await writeReport(reportName, `${figures.join('\n')}\n`);
    assert.equal(mismatches, 0, figures.join('\n'));
  } finally {
    await server.stop();
  }
}

describe(`${DEVICES} devices behind one address against the default limits`, () => {
  test(`arriving over ${ARRIVAL_WINDOW_MS / 1000} s: all stored within 120 s of the first, none lost, each with its first randomization`, { timeout: 600_000 }, async () => {
    await runDevices(ARRIVAL_WINDOW_MS, 'devices-report.txt');
  });

  // Beyond the limit's burst: the retries (429 with Retry-After, then jittered backoff) must
  // carry the rest through the refill without anyone pressing a button.
  test('arriving within 2 s, beyond the burst: the retries store them all within 120 s', { timeout: 600_000 }, async () => {
    await runDevices(BURST_WINDOW_MS, 'devices-burst-report.txt');
  });
});

function countBy(values) {
  const counts = {};
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
}

function sortedKeys(object) {
  return object === null ? null : Object.fromEntries(Object.entries(object).sort());
}
