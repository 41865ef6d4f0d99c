// The committed WebAssembly module reproduces the committed test vectors.
// Run: node --test randomized-response/tests/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';

const here = new URL('.', import.meta.url);
const wasmBytes = await readFile(new URL('../../static/randomized_response.wasm', here));
const vectors = JSON.parse(await readFile(new URL('vectors.json', here), 'utf8'));

const REPORTS_OFFSET = 64;
const QUESTION_STRIDE = 16;

async function instantiate() {
  const { instance } = await WebAssembly.instantiate(wasmBytes, {});
  return instance.exports;
}

function hexBytes(text) {
  return Uint8Array.from(text.match(/../g), (pair) => parseInt(pair, 16));
}

function randomize(exports, deviceBytes, nonce, questions) {
  const buffer = new Uint8Array(exports.memory.buffer, exports.rr_buffer(),
    REPORTS_OFFSET + QUESTION_STRIDE * Math.max(questions.length, 1));
  const view = new DataView(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  buffer.set(deviceBytes, 0);
  buffer.set(nonce, 32);
  questions.forEach(({ epsilon, truth }, index) => {
    view.setFloat64(REPORTS_OFFSET + QUESTION_STRIDE * index, epsilon, true);
    buffer[REPORTS_OFFSET + QUESTION_STRIDE * index + 8] = truth ? 1 : 0;
  });
  const status = exports.rr_randomize(questions.length);
  const reports = status < 0 ? null : questions.map((_, index) =>
    buffer[REPORTS_OFFSET + QUESTION_STRIDE * index + 9] === 1);
  return { status, reports };
}

test('the module exports only its buffer, its functions and its memory', async () => {
  const module = await WebAssembly.compile(wasmBytes);
  assert.deepEqual(WebAssembly.Module.imports(module), []);
  const names = WebAssembly.Module.exports(module).map((entry) => entry.name);
  for (const name of ['memory', 'rr_buffer', 'rr_randomize', 'rr_sha256']) assert.ok(names.includes(name), name);
});

test('every committed vector gives the same reports in WebAssembly', async () => {
  const exports = await instantiate();
  assert.ok(vectors.cases.length >= 20);
  for (const [index, testCase] of vectors.cases.entries()) {
    const { status, reports } = randomize(exports, hexBytes(testCase.device_bytes),
      hexBytes(testCase.server_nonce), testCase.questions);
    assert.equal(status, testCase.questions.length, `case ${index}`);
    assert.deepEqual(reports, testCase.reports, `case ${index}`);
  }
});

test('bad input is refused with the documented codes', async () => {
  const exports = await instantiate();
  const zeros = new Uint8Array(32);
  assert.equal(randomize(exports, zeros, zeros, []).status, -1);
  assert.equal(exports.rr_randomize(101), -1);
  assert.equal(randomize(exports, zeros, zeros, [{ epsilon: 0, truth: true }]).status, -2);
  assert.equal(randomize(exports, zeros, zeros, [{ epsilon: NaN, truth: true }]).status, -2);
  assert.equal(randomize(exports, zeros, zeros, [{ epsilon: 20.5, truth: true }]).status, -2);
  const buffer = new Uint8Array(exports.memory.buffer, exports.rr_buffer(), 80);
  new DataView(buffer.buffer, buffer.byteOffset).setFloat64(64, 1, true);
  buffer[72] = 7;
  assert.equal(exports.rr_randomize(1), -3);
});

const BUFFER_BYTES = REPORTS_OFFSET + QUESTION_STRIDE * 100;

/** rr_sha256 over `message` (bytes): the status and the digest as lowercase hex. */
function sha256(exports, message) {
  new Uint8Array(exports.memory.buffer, exports.rr_buffer(), message.length).set(message);
  const status = exports.rr_sha256(message.length);
  const digest = new Uint8Array(exports.memory.buffer, exports.rr_buffer(), 32);
  return { status, hex: Buffer.from(digest).toString('hex') };
}

function nodeSha256(message) {
  return createHash('sha256').update(message).digest('hex');
}

test('rr_sha256 gives the SHA-256 of published vectors and of receipts', async () => {
  const exports = await instantiate();
  const ascii = (text) => new TextEncoder().encode(text);
  // FIPS 180-2, appendix B.1, written out so the test does not only compare two hashers.
  assert.deepEqual(sha256(exports, ascii('abc')), {
    status: 32,
    hex: 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
  });
  assert.equal(sha256(exports, new Uint8Array()).hex, nodeSha256(''));
  // Receipts as the form draws them: 32 random bytes, base64url without padding.
  for (let draw = 0; draw < 50; draw++) {
    const receipt = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64url');
    assert.equal(receipt.length, 43);
    assert.deepEqual(sha256(exports, ascii(receipt)), { status: 32, hex: nodeSha256(receipt) }, receipt);
  }
  // Every length up to a few blocks (padding edges at 55, 56, 64), and the whole buffer.
  for (const length of [...Array(200).keys(), BUFFER_BYTES]) {
    const message = crypto.getRandomValues(new Uint8Array(length));
    assert.equal(sha256(exports, message).hex, nodeSha256(message), `length ${length}`);
  }
});

test('rr_sha256 refuses a message longer than the buffer or a negative length', async () => {
  const exports = await instantiate();
  assert.equal(exports.rr_sha256(BUFFER_BYTES + 1), -4);
  assert.equal(exports.rr_sha256(-1), -4);
});
