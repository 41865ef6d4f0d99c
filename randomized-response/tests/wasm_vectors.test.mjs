// The committed WebAssembly module, and static/form-core.js driving it as the browser does,
// reproduce the committed test vectors byte for byte: the records and the reports.
// Run: node --test randomized-response/tests/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import vm from 'node:vm';

const here = new URL('.', import.meta.url);
const wasmBytes = await readFile(new URL('../../static/randomized_response.wasm', here));
const coreSource = await readFile(new URL('../../static/form-core.js', here), 'utf8');
const vectors = JSON.parse(await readFile(new URL('vectors.json', here), 'utf8'));

// The layout of randomized-response/src/abi.rs.
const REPORTS_OFFSET = 64;
const QUESTION_STRIDE = 40;
const REPORT_AT = 3;
const MAX_QUESTIONS = 100;
const BUFFER_BYTES = REPORTS_OFFSET + QUESTION_STRIDE * MAX_QUESTIONS;

async function instantiate() {
  const { instance } = await WebAssembly.instantiate(wasmBytes, {});
  return instance.exports;
}

function hexBytes(text) {
  return Uint8Array.from(text.match(/../g), (pair) => parseInt(pair, 16));
}

const hex = (bytes) => Buffer.from(bytes).toString('hex');

function bufferOf(exports) {
  return new Uint8Array(exports.memory.buffer, exports.rr_buffer(), BUFFER_BYTES);
}

/**
 * rr_randomize over the given seed and records (Uint8Arrays of 40 bytes), the rest of the
 * buffer as `fill`: the status, the reports, and whether any byte changed on a refusal.
 */
function randomizeRecords(exports, deviceBytes, nonce, records, count = records.length, fill = 0) {
  const buffer = bufferOf(exports);
  buffer.fill(fill);
  buffer.set(deviceBytes, 0);
  buffer.set(nonce, 32);
  records.forEach((record, index) => buffer.set(record, REPORTS_OFFSET + QUESTION_STRIDE * index));
  const before = Uint8Array.from(buffer);
  const status = exports.rr_randomize(count);
  const reports = records.map((_, index) => buffer[REPORTS_OFFSET + QUESTION_STRIDE * index + REPORT_AT]);
  const unchanged = buffer.every((byte, at) => byte === before[at]);
  return { status, reports, unchanged };
}

/** form-core.js in a context of its own, where Math.random throws, as in the browser tests. */
function loadCore() {
  const context = vm.createContext({});
  vm.runInContext('Math.random = () => { throw new Error("Math.random was called"); };', context);
  vm.runInContext(coreSource, context, { filename: 'static/form-core.js' });
  return context.DeniableCore;
}

/**
 * The module's exports with rr_randomize watched: each call keeps a copy of the records it
 * was given (before the module writes the reports) and of the seed bytes.
 */
function watched(exports) {
  const calls = [];
  return {
    calls,
    mechanism: {
      memory: exports.memory,
      rr_buffer: exports.rr_buffer,
      rr_sha256: exports.rr_sha256,
      rr_randomize(count) {
        calls.push({ count, input: Uint8Array.from(bufferOf(exports).subarray(0, REPORTS_OFFSET + QUESTION_STRIDE * count)) });
        return exports.rr_randomize(count);
      },
    },
  };
}

/** getRandomValues that hands out `bytes` once (the device's seed), and fails after. */
function scriptedRandom(bytes) {
  let used = false;
  return (array) => {
    assert.ok(!used, 'randomize draws the device bytes once');
    assert.equal(array.length, bytes.length);
    array.set(bytes);
    used = true;
    return array;
  };
}

test('the module exports only its buffer, its functions and its memory', async () => {
  const module = await WebAssembly.compile(wasmBytes);
  assert.deepEqual(WebAssembly.Module.imports(module), []);
  // Besides the linker's own globals (__data_end, __heap_base).
  const names = WebAssembly.Module.exports(module).map((entry) => entry.name)
    .filter((name) => !name.startsWith('__')).sort();
  assert.deepEqual(names, ['memory', 'rr_buffer', 'rr_randomize', 'rr_sha256']);
  assert.ok(wasmBytes.length <= 20 * 1024, `${wasmBytes.length} bytes`);
});

test('every committed case gives its reports from its committed records', async () => {
  const exports = await instantiate();
  assert.ok(vectors.cases.length >= 70);
  for (const [index, testCase] of vectors.cases.entries()) {
    const records = testCase.questions.map((question) => hexBytes(question.record));
    const { status, reports } = randomizeRecords(exports, hexBytes(testCase.device_bytes),
      hexBytes(testCase.server_nonce), records);
    assert.equal(status, testCase.questions.length, `case ${index}`);
    assert.deepEqual(reports, testCase.reports, `case ${index}`);
  }
});

test('form-core.js writes the committed records from the definitions and gets the committed reports', async () => {
  const exports = await instantiate();
  const core = loadCore();
  for (const [index, testCase] of vectors.cases.entries()) {
    const { calls, mechanism } = watched(exports);
    const answers = testCase.questions.map(({ truth, record, ...question }) => ({ question, truth }));
    const reports = core.randomize(mechanism, scriptedRandom(hexBytes(testCase.device_bytes)),
      testCase.server_nonce, answers, MAX_QUESTIONS);
    assert.deepEqual([...reports], testCase.reports, `case ${index}`);
    assert.equal(calls.length, 1);
    const { count, input } = calls[0];
    assert.equal(count, testCase.questions.length);
    assert.equal(hex(input.subarray(0, 32)), testCase.device_bytes, `case ${index}`);
    assert.equal(hex(input.subarray(32, 64)), testCase.server_nonce, `case ${index}`);
    testCase.questions.forEach((question, at) => {
      const start = REPORTS_OFFSET + QUESTION_STRIDE * at;
      assert.equal(hex(input.subarray(start, start + QUESTION_STRIDE)), question.record, `case ${index}, question ${at}`);
    });
    // Truths and seed forgotten: the region the call used is zero again.
    const used = REPORTS_OFFSET + QUESTION_STRIDE * testCase.questions.length;
    assert.ok(bufferOf(exports).subarray(0, used).every((byte) => byte === 0), `case ${index}`);
  }
});

// Records written byte by byte, as src/abi.rs lays them out.
function record({ kind, options = 0, truth = 0, parameters = [], value = 0 }) {
  const bytes = new Uint8Array(QUESTION_STRIDE);
  const view = new DataView(bytes.buffer);
  bytes[0] = kind;
  bytes[1] = options;
  bytes[2] = truth;
  parameters.forEach((parameter, slot) => view.setFloat64(8 + 8 * slot, parameter, true));
  if (kind === 4) view.setFloat64(32, value, true);
  return bytes;
}

const mirrored = (epsilon, truth = 1) => record({ kind: 0, truth, parameters: [epsilon] });
const forced = (p, p1, p0, truth = 1) => record({ kind: 1, truth, parameters: [p, p1, p0] });
const unrelated = (p, q, truth = 1) => record({ kind: 2, truth, parameters: [p, q] });
const kAry = (options, epsilon, truth = 0) => record({ kind: 3, options, truth, parameters: [epsilon] });
const number = (min, max, epsilon, value) => record({ kind: 4, parameters: [epsilon, min, max], value });

/** Two valid records, then `bad`: the code, with the buffer checked unchanged. */
function refusal(exports, bad) {
  const zeros = new Uint8Array(32);
  const result = randomizeRecords(exports, zeros.fill(7), zeros, [mirrored(1), number(0, 10, 1, 4), bad], 3, 0x11);
  assert.ok(result.unchanged, 'a refusal writes nothing');
  return result.status;
}

test('invalid records are refused with the documented codes and write nothing', async () => {
  const exports = await instantiate();
  // -1: the count.
  const seed = new Uint8Array(32);
  for (const count of [0, -1, 101, 2 ** 31 - 1]) {
    const result = randomizeRecords(exports, seed, seed, [mirrored(1)], count);
    assert.equal(result.status, -1, `count ${count}`);
    assert.ok(result.unchanged);
  }
  // -2: design parameters the constructors refuse.
  for (const bad of [mirrored(0), mirrored(NaN), mirrored(20.5), mirrored(0.009999),
    forced(0.5, 0.25, 0.2), forced(0.8, 0.2, 0), unrelated(0.7, 0), unrelated(0.7, 1), unrelated(1, 0.5),
    kAry(1, 1), kAry(21, 1), kAry(3, Infinity), number(5, 5, 1, 5), number(10, 0, 1, 5),
    number(0, Infinity, 1, 0), number(0, 30, 25, 3)]) {
    assert.equal(refusal(exports, bad), -2, hex(bad));
  }
  // -3: a truth that is not one of the design's answers.
  for (const bad of [mirrored(1, 2), forced(0.67, 0.165, 0.165, 2), unrelated(0.7, 0.5, 255), kAry(3, 1, 3), kAry(20, 1, 20)]) {
    assert.equal(refusal(exports, bad), -3, hex(bad));
  }
  // -5: a number outside its bounds.
  for (const value of [30.000001, -0.5, NaN, Infinity]) {
    assert.equal(refusal(exports, number(0, 30, 1, value)), -5, String(value));
  }
  // -6: an unknown kind, or a byte the kind does not read.
  const reservedSet = mirrored(1);
  reservedSet[5] = 1;
  const mirroredWithOptions = mirrored(1);
  mirroredWithOptions[1] = 2;
  const numberWithTruth = number(0, 30, 1, 3);
  numberWithTruth[2] = 1;
  for (const bad of [record({ kind: 5, parameters: [1] }), record({ kind: 255 }), reservedSet, mirroredWithOptions,
    numberWithTruth, record({ kind: 0, truth: 1, parameters: [1, 0.5] }), record({ kind: 3, options: 3, parameters: [1], value: 0 })
      .map((byte, at) => (at === 39 ? 1 : byte))]) {
    assert.equal(refusal(exports, bad), -6, hex(bad));
  }
  // A record of the 16-byte layout of version 1 (ε at +0, truth at +8) is refused, never misread.
  for (const epsilon of [0.01, 1, 1.1, 20]) {
    const old = new Uint8Array(QUESTION_STRIDE);
    new DataView(old.buffer).setFloat64(0, epsilon, true);
    old[8] = 1;
    assert.equal(refusal(exports, old), -6, `version 1, ε = ${epsilon}`);
  }
});

test('form-core.js refuses unknown designs and malformed answers before drawing, and forgets the input on a refusal', async () => {
  const exports = await instantiate();
  const core = loadCore();
  const nonce = '5a'.repeat(32);
  const neverDrawn = () => assert.fail('no device bytes are drawn for input refused in JavaScript');
  const yesNo = { id: 1, type: 'yes_no', design: 'mirrored', epsilon: 1 };
  const choice = { id: 2, type: 'choice', design: 'k_ary', options: ['a', 'b', 'c'], epsilon: 1 };
  const amount = { id: 3, type: 'number', design: 'two_ends', min: 0, max: 30, epsilon: 1 };
  for (const answers of [
    [{ question: { ...yesNo, design: 'two_ends' }, truth: 1 }],
    [{ question: { ...yesNo, type: 'text' }, truth: 1 }],
    [{ question: { id: 4, epsilon: 1 }, truth: 1 }],
    [{ question: { ...yesNo, epsilon: '1.1' }, truth: 1 }],
    [{ question: { ...yesNo, epsilon: undefined }, truth: 1 }],
    [{ question: yesNo, truth: true }],
    [{ question: yesNo, truth: 256 }],
    [{ question: yesNo, truth: -1 }],
    [{ question: yesNo, truth: 0.5 }],
    [{ question: choice, truth: '2' }],
    [{ question: { ...choice, options: 3 }, truth: 0 }],
    [{ question: { ...choice, options: Array(258).fill('x') }, truth: 0 }],
    [{ question: yesNo, truth: 1 }, { question: amount, truth: '12' }],
  ]) {
    assert.throws(() => core.randomize(exports, neverDrawn, nonce, answers, MAX_QUESTIONS), /^Error: question \d+: /, JSON.stringify(answers));
    assert.ok(bufferOf(exports).every((byte) => byte === 0), 'nothing left in the buffer');
  }
  // No record is written past the module's buffer, and none for an empty survey.
  for (const count of [0, 101]) {
    const answers = Array.from({ length: count }, () => ({ question: yesNo, truth: 1 }));
    assert.throws(() => core.randomize(exports, neverDrawn, nonce, answers, MAX_QUESTIONS), /between 1 and 100 answers/);
  }
  // Refused by the module: the message gives the code, and the buffer is zeroed all the same.
  const device = () => scriptedRandom(new Uint8Array(32).fill(9));
  for (const [answers, code] of [
    [[{ question: { ...yesNo, epsilon: 0 }, truth: 1 }], -2],
    [[{ question: yesNo, truth: 2 }], -3],
    [[{ question: choice, truth: 3 }], -3],
    [[{ question: { ...choice, options: Array(21).fill('x') }, truth: 0 }], -2],
    [[{ question: yesNo, truth: 1 }, { question: amount, truth: 31 }], -5],
  ]) {
    assert.throws(() => core.randomize(exports, device(), nonce, answers, MAX_QUESTIONS), new RegExp(`\\(${code}: `));
    assert.ok(bufferOf(exports).every((byte) => byte === 0), `nothing left after ${code}`);
  }
});

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

test('form-core.js sends a grouping answer as given, and the other questions draw as in a survey without it', async () => {
  const exports = await instantiate();
  const core = loadCore();
  const nonce = '3c'.repeat(32);
  // The same device bytes for both surveys: a counter, 32 bytes at a time (receipt, seed).
  const counting = () => {
    let next = 0;
    return (array) => {
      for (let i = 0; i < array.length; i++) array[i] = (next + i * 7) & 0xff;
      next += 1;
      return array;
    };
  };
  const memory = () => {
    const items = new Map();
    return { setItem: (key, value) => items.set(key, value), getItem: (key) => items.get(key) ?? null, removeItem: (key) => items.delete(key) };
  };
  const yesNo = { id: 1, type: 'yes_no', design: 'mirrored', epsilon: 0.5 };
  const year = { id: 2, type: 'grouping', options: ['First', 'Second', 'Later'], randomized: false };
  const choice = { id: 3, type: 'choice', design: 'k_ary', options: ['a', 'b', 'c'], epsilon: 1 };
  const withGrouping = core.prepare({ mechanism: exports, getRandomValues: counting(), storage: memory(), maxQuestions: MAX_QUESTIONS }, 's', nonce,
    [{ question: yesNo, truth: 1 }, { question: year, truth: 2 }, { question: choice, truth: 0 }]);
  const without = core.prepare({ mechanism: exports, getRandomValues: counting(), storage: memory(), maxQuestions: MAX_QUESTIONS }, 's', nonce,
    [{ question: yesNo, truth: 1 }, { question: choice, truth: 0 }]);
  const reports = withGrouping.state.reports;
  assert.equal(reports['2'], 2, 'the grouping answer, as given');
  assert.equal(reports['1'], without.state.reports['1']);
  assert.equal(reports['3'], without.state.reports['3']);
  assert.deepEqual(Object.keys(reports).sort(), ['1', '2', '3']);
  // An answer that is not one of its options is refused before anything is drawn or kept.
  const neverDrawn = () => assert.fail('nothing is drawn for a refused grouping answer');
  for (const truth of [3, -1, 0.5, '1']) {
    const storage = memory();
    assert.throws(() => core.prepare({ mechanism: exports, getRandomValues: neverDrawn, storage, maxQuestions: MAX_QUESTIONS }, 's', nonce,
      [{ question: yesNo, truth: 1 }, { question: year, truth }]), /question 2: the answer is not an option's index/);
    assert.equal(storage.getItem(core.storageKey('s')), null, 'nothing kept');
  }
});
