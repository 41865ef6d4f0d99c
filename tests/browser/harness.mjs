// Shared harness of the real-browser tests: runs the release server on a fresh database and
// a free port, drives its CLI and owner API, and launches Debian's chromium through
// playwright-core with every request, console message, page error and CSP violation recorded.
//
// It builds nothing: `cargo build --release` first (or point DENIABLE_BIN at a binary).

import { spawn, execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile, mkdir } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import { chromium } from 'playwright-core';

export const FAVICON_PATH = '/static/favicon.svg';

const execFileAsync = promisify(execFile);

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const CHROMIUM = process.env.DENIABLE_CHROMIUM ?? '/usr/bin/chromium';
export const DEMO_OWNER = 'demo@localhost';

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--no-first-run',
  '--disable-sync',
  '--disable-component-update',
  '--disable-quic',
];

/** The server binary: DENIABLE_BIN, else target/release/deniable; a clear error if absent. */
export function serverBinary() {
  const binary = process.env.DENIABLE_BIN
    ? path.resolve(process.env.DENIABLE_BIN)
    : path.join(REPO_ROOT, 'target', 'release', 'deniable');
  if (!existsSync(binary)) {
    throw new Error(
      `The browser tests drive the release server, but ${binary} does not exist. ` +
        'Build it first with `cargo build --release` (or set DENIABLE_BIN to a deniable binary).',
    );
  }
  return binary;
}

/** A TCP port free on `host` (a loopback address, 127.0.0.1 by default) right now (the OS picks it). */
export function freePort(host = '127.0.0.1') {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.unref();
    probe.on('error', reject);
    probe.listen(0, host, () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Starts `deniable serve` on a fresh database in a temporary directory and waits until
 * GET /healthz answers. Returns a handle with the origin, the CLI and the owner API.
 * `defaultLimits: true` keeps the server's default per-address submission limit; otherwise
 * it is off, since most tests act as hundreds of respondents from one address. `host` is the
 * loopback address it listens on (another one than 127.0.0.1 is another origin, and another
 * site, for the browser); `logLevel` its RUST_LOG (`info` logs every request).
 */
export async function startServer({ defaultLimits = false, host = '127.0.0.1', logLevel } = {}) {
  const binary = serverBinary();
  const dir = await mkdtemp(path.join(os.tmpdir(), 'deniable-browser-'));
  const db = path.join(dir, 'deniable.db');
  const port = await freePort(host);
  const origin = `http://${host}:${port}`;
  let output = '';
  const limits = defaultLimits ? [] : ['--submissions-per-minute', '0'];
  const child = spawn(binary, ['serve', '--addr', `${host}:${port}`, '--db', db, ...limits], {
    cwd: REPO_ROOT,
    env: { ...process.env, RUST_LOG: logLevel ?? process.env.RUST_LOG ?? 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  let hasExited = false;
  exited.then(() => (hasExited = true));

  const deadline = Date.now() + 30_000;
  for (;;) {
    if (hasExited) {
      await rm(dir, { recursive: true, force: true });
      throw new Error(`deniable serve exited before it was ready:\n${output}`);
    }
    try {
      const response = await fetch(`${origin}/healthz`);
      if (response.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      await rm(dir, { recursive: true, force: true });
      throw new Error(`deniable serve did not answer GET /healthz within 30 s:\n${output}`);
    }
    await sleep(50);
  }

  let token = null;
  const server = {
    origin,
    db,
    dir,
    output: () => output,

    /** Runs the binary's CLI against this server's database; returns its standard output. */
    async cli(...args) {
      try {
        const { stdout } = await execFileAsync(binary, [...args, '--db', db], { cwd: REPO_ROOT });
        return stdout;
      } catch (error) {
        throw new Error(`deniable ${args.join(' ')} failed: ${error.stderr || error.message}`);
      }
    },

    /** A bearer token of the demo's owner (created once with `token create`). */
    async token() {
      if (token === null) token = (await server.cli('token', 'create', DEMO_OWNER)).trim();
      return token;
    },

    /** POST to an owner route with the bearer token; returns the parsed JSON (if any). */
    async ownerPost(route, body) {
      const response = await fetch(`${origin}${route}`, {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${await server.token()}`,
          ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      if (!response.ok) throw new Error(`POST ${route}: ${response.status} ${text}`);
      return text ? JSON.parse(text) : null;
    },

    /**
     * Creates a survey with `survey create --owner demo@localhost --file f.json`, opens it
     * with POST /api/surveys/{slug}/open and returns its slug.
     */
    async createOpenSurvey(definition) {
      const file = path.join(dir, `survey-${Date.now()}-${Math.floor(Math.random() * 1e6)}.json`);
      await writeFile(file, JSON.stringify(definition));
      const printed = await server.cli('survey', 'create', '--owner', DEMO_OWNER, '--file', file);
      const match = /survey ([a-z0-9-]+);/.exec(printed) ?? /\/s\/([a-z0-9-]+)/.exec(printed);
      if (!match) throw new Error(`cannot find the slug in the output of survey create: ${printed}`);
      const slug = match[1];
      await server.ownerPost(`/api/surveys/${slug}/open`);
      return slug;
    },

    /**
     * POST /api/surveys/{slug}/invitations: the mail-merge CSV's rows as
     * [{invitation, link, fingerprint}] (`invitation,link,key_fingerprint`).
     */
    async createInvitations(slug, count) {
      const response = await fetch(`${origin}/api/surveys/${slug}/invitations`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${await server.token()}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ count }),
      });
      const text = await response.text();
      if (response.status !== 201) throw new Error(`POST invitations: ${response.status} ${text}`);
      const [header, ...rows] = text.trim().split('\n');
      if (header !== 'invitation,link,key_fingerprint') throw new Error(`unexpected CSV header ${header}`);
      return rows.map((row) => {
        const [invitation, link, fingerprint] = row.split(',');
        return { invitation, link, fingerprint };
      });
    },

    /** GET an owner route with the bearer token; returns the parsed JSON. */
    async ownerGet(route) {
      const response = await fetch(`${origin}${route}`, {
        headers: { Authorization: `Bearer ${await server.token()}` },
      });
      const text = await response.text();
      if (!response.ok) throw new Error(`GET ${route}: ${response.status} ${text}`);
      return JSON.parse(text);
    },

    /**
     * How many responses a survey whose owner sees released responses only (invitations or
     * grouping questions) holds: its owner never sees that count while it is open, so this
     * closes it and adds up what the last consideration released and withheld.
     */
    async storedAfterClosing(slug) {
      await server.ownerPost(`/api/surveys/${slug}/close`);
      const { release } = await server.ownerGet(`/api/surveys/${slug}/results`);
      return release.released_responses + release.withheld_responses;
    },

    /**
     * How many responses the server holds for a survey: the owner's live count (`responses`;
     * the figures' n moves only with releases, issue 41).
     */
    async responseCount(slug) {
      const results = await server.ownerGet(`/api/surveys/${slug}/results`);
      return results.responses;
    },

    /**
     * POST /api/surveys/{slug}/responses/lookup with a receipt: the stored reports as
     * {"<question id>": 0|1}, or null on 404. A 429 is waited out (Retry-After).
     */
    async lookup(slug, receipt) {
      for (;;) {
        const response = await fetch(`${origin}/api/surveys/${slug}/responses/lookup`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ receipt }),
        });
        if (response.status === 429) {
          await response.arrayBuffer();
          await sleep(1000 * Number(response.headers.get('retry-after') ?? 1));
          continue;
        }
        if (response.status === 404) return null;
        const text = await response.text();
        if (response.status !== 200) throw new Error(`lookup: ${response.status} ${text}`);
        const found = JSON.parse(text);
        return Object.fromEntries(found.reports.map((report) => [String(report.question_id), report.report]));
      }
    },

    /** The public definition, fetched from Node (not through the page). */
    async definition(slug) {
      const response = await fetch(`${origin}/api/surveys/${slug}`);
      if (!response.ok) throw new Error(`GET /api/surveys/${slug}: ${response.status}`);
      return response.json();
    },

    async stop() {
      if (!hasExited) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
        await exited;
        clearTimeout(timer);
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
  return server;
}

/** Debian's chromium, headless, with every background service that talks to the net off. */
export async function launchBrowser() {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing: run \`bash scripts/install-test-deps\` first.`);
  }
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}

// Runs in the page before any of its scripts: records CSP violations (reported through an
// exposed binding, so a reload loses none), calls of Math.random (replaced by a recording
// function) and calls of crypto.getRandomValues (wrapped; the byte length of each call).
function instrumentPage() {
  const randomness = { mathRandomCalls: 0, getRandomValuesBytes: [] };
  Object.defineProperty(window, '__deniableRandomness', { value: randomness });
  const realRandom = Math.random;
  Math.random = function random() {
    randomness.mathRandomCalls += 1;
    return realRandom.call(Math);
  };
  const realGetRandomValues = Crypto.prototype.getRandomValues;
  Crypto.prototype.getRandomValues = function getRandomValues(array) {
    randomness.getRandomValuesBytes.push(array.byteLength);
    return realGetRandomValues.call(this, array);
  };
  document.addEventListener('securitypolicyviolation', (event) => {
    window.__deniableCspViolation(
      JSON.stringify({
        directive: event.effectiveDirective,
        blocked: event.blockedURI,
        source: event.sourceFile,
        line: event.lineNumber,
      }),
    );
  });
}

/**
 * A new browser context and page that record every request (with all headers and the body),
 * every response, console message, page error and CSP violation into `log`.
 */
export async function openInstrumentedPage(browser, { javaScriptEnabled = true, viewport } = {}) {
  const context = await browser.newContext(viewport ? { javaScriptEnabled, viewport } : { javaScriptEnabled });
  context.setDefaultTimeout(15_000);
  const log = { requests: [], responses: [], console: [], pageErrors: [], cspViolations: [] };
  await context.exposeBinding('__deniableCspViolation', (_source, json) => {
    log.cspViolations.push(JSON.parse(json));
  });
  await context.addInitScript(instrumentPage);
  context.on('request', (request) => {
    // The tab icon is the browser's own request, the same for every page; it carries
    // nothing of the page's and is served by the server like any static file.
    if (new URL(request.url()).pathname === FAVICON_PATH) return;
    log.requests.push({
      request,
      url: request.url(),
      method: request.method(),
      postData: request.postData(),
      // A promise (cookies are added by the network stack); null if the page went away first.
      headers: request.allHeaders().catch(() => null),
    });
  });
  context.on('response', (response) => log.responses.push(response));
  const page = await context.newPage();
  page.on('console', (message) =>
    log.console.push({ type: message.type(), text: message.text(), location: message.location() }),
  );
  page.on('pageerror', (error) => log.pageErrors.push(String(error)));
  return { context, page, log };
}

/** Console errors, page errors and CSP violations, for one assertion message. */
export function problems(log) {
  return {
    consoleErrors: log.console.filter((message) => message.type === 'error'),
    pageErrors: log.pageErrors,
    cspViolations: log.cspViolations,
  };
}

/** The question ids of the form, in page order, read from the DOM. */
export async function questionIds(page) {
  return page
    .locator('fieldset.question')
    .evaluateAll((fieldsets) => fieldsets.map((fieldset) => Number(fieldset.dataset.questionId)));
}

/** Chooses yes (1) or no (0) for each question by clicking its label with the mouse. */
export async function chooseWithMouse(page, ids, answers) {
  for (const [index, id] of ids.entries()) {
    await page.locator(`label[for="q${id}-${answers[index] === 1 ? 'yes' : 'no'}"]`).click();
  }
}

/** Lowercase hex SHA-256 of a text: what a receipt's response id must be. */
export function sha256Hex(text) {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * Clicks "Randomize and send" and waits for the POST of the reports and the receipt.
 * Returns the parsed POST body and the receipt shown on the page.
 */
export async function submitAndWait(page, slug, { press } = {}) {
  const posted = page.waitForRequest(
    (request) => request.method() === 'POST' && new URL(request.url()).pathname === `/api/surveys/${slug}/responses`,
  );
  if (press) await page.keyboard.press(press);
  else await page.locator('#submit-button').click();
  const request = await posted;
  await page.locator('#submitted').waitFor({ state: 'visible' });
  const receipt = (await page.locator('#receipt').textContent()).trim();
  return { body: JSON.parse(request.postData()), rawBody: request.postData(), receipt };
}

/** Writes a line of the browser report under target/ (created if missing). */
export async function writeReport(name, text) {
  const dir = path.join(REPO_ROOT, 'target');
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, name), text);
  return path.join(dir, name);
}
