// The committed WebAssembly module reproduces the committed test vectors.
// Run: node --test randomized-response/tests/
import { test } from 'node:test';
import assert from 'node:assert/strict';
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

test('the module exports only its buffer, its function and its memory', async () => {
  const module = await WebAssembly.compile(wasmBytes);
  assert.deepEqual(WebAssembly.Module.imports(module), []);
  const names = WebAssembly.Module.exports(module).map((entry) => entry.name);
  for (const name of ['memory', 'rr_buffer', 'rr_randomize']) assert.ok(names.includes(name), name);
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
