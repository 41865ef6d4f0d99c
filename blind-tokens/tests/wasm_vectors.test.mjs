// The committed token module, through the page's wrapper, agrees byte for byte with the
// native crate: RFC 9497's A.1.2 vectors (finalize from the vector's blind) and the native
// cases of vectors.json (blind from a recorded seed, finalize the server's recorded answer).
// Run: node --test blind-tokens/tests/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { webcrypto } from 'node:crypto';
import vm from 'node:vm';

const here = new URL('.', import.meta.url);
const wasmBytes = await readFile(new URL('../../static/blind_tokens.wasm', here));
const wrapperSource = await readFile(new URL('../../static/blind-tokens.js', here), 'utf8');
const rfc = JSON.parse(await readFile(new URL('rfc9497.json', here), 'utf8'));
const vectors = JSON.parse(await readFile(new URL('vectors.json', here), 'utf8'));

const BUFFER_BYTES = 576;

/** The wrapper as the page runs it: a plain script, where Math.random throws. */
function wrapper() {
  // This realm's typed arrays and errors, so that bytes cross without copies.
  const context = vm.createContext({ WebAssembly, URL, Uint8Array, TypeError, Error });
  vm.runInContext('Math.random = () => { throw new Error("Math.random was called"); };', context);
  vm.runInContext(wrapperSource, context, { filename: 'static/blind-tokens.js' });
  return context.DeniableTokens;
}

const tokens = wrapper();
const instantiate = () => tokens.load(wasmBytes);

function hexBytes(text) {
  return Uint8Array.from(text.match(/../g) ?? [], (pair) => parseInt(pair, 16));
}

function hex(bytes) {
  return Buffer.from(bytes).toString('hex');
}

function assertBytes(actual, expected, message) {
  assert.equal(hex(actual), typeof expected === 'string' ? expected : hex(expected), message);
}

/** A getRandomValues that hands out the given bytes, once. */
function replay(seed) {
  let used = false;
  return (array) => {
    assert.equal(used, false, 'the wrapper draws one seed per blind');
    assert.equal(array.length, seed.length);
    array.set(seed);
    used = true;
    return array;
  };
}

const random = (array) => webcrypto.getRandomValues(array);

test('the module imports nothing and exports its buffer, two functions and its memory', async () => {
  const module = await WebAssembly.compile(wasmBytes);
  assert.deepEqual(WebAssembly.Module.imports(module), []);
  const functions = WebAssembly.Module.exports(module)
    .filter((entry) => entry.kind === 'function')
    .map((entry) => entry.name)
    .sort();
  assert.deepEqual(functions, ['bt_blind', 'bt_buffer', 'bt_finalize']);
  assert.ok(WebAssembly.Module.exports(module).some((e) => e.name === 'memory' && e.kind === 'memory'));
  assert.ok(wasmBytes.length <= 40 * 1024, `${wasmBytes.length} bytes`);
});

test('finalize gives RFC 9497 A.1.2 outputs from the vectors blinds and answers', async () => {
  const exports = await instantiate();
  const publicKey = hexBytes(rfc.pk_sm);
  assert.equal(rfc.vectors.length, 2);
  for (const vector of rfc.vectors) {
    // The state is the blind, the blinded element and the input (blind-tokens/README.md).
    const state = hexBytes(vector.blind + vector.blinded_element + vector.input);
    const output = tokens.finalize(exports, state, hexBytes(vector.evaluation_element),
      hexBytes(vector.proof), publicKey);
    assertBytes(output, vector.output, vector.name);
    assertBytes(tokens.inputOf(state), vector.input);
  }
  // Vector 1's proof does not cover vector 2's evaluation.
  const [first, second] = rfc.vectors;
  assert.throws(() => tokens.finalize(exports, hexBytes(first.blind + first.blinded_element + first.input),
    hexBytes(second.evaluation_element), hexBytes(first.proof), publicKey),
  (error) => error.code === 'proof_rejected');
});

test('every native case blinds and finalizes to the same bytes in WebAssembly', async () => {
  const exports = await instantiate();
  assert.ok(vectors.cases.length >= 12);
  for (const [index, testCase] of vectors.cases.entries()) {
    const input = hexBytes(testCase.input);
    const { state, blinded } = tokens.blind(exports, replay(hexBytes(testCase.seed)), input);
    assertBytes(blinded, testCase.blinded, `case ${index}: blinded`);
    assertBytes(state, testCase.state, `case ${index}: state`);
    const output = tokens.finalize(exports, state, hexBytes(testCase.evaluation),
      hexBytes(testCase.proof), hexBytes(testCase.public_key));
    assertBytes(output, testCase.output, `case ${index}: output`);
  }
});

test('another key’s proof, and a key that is not the pinned one, are refused', async () => {
  const exports = await instantiate();
  const withOtherKey = vectors.cases.filter((c) => c.public_key !== vectors.cases[0].public_key);
  assert.ok(withOtherKey.length > 0);
  for (const testCase of vectors.cases) {
    const other = vectors.cases.find((c) => c.public_key !== testCase.public_key);
    const state = hexBytes(testCase.state);
    // The right answer, checked against another key.
    assert.throws(() => tokens.finalize(exports, state, hexBytes(testCase.evaluation),
      hexBytes(testCase.proof), hexBytes(other.public_key)), (error) => error.code === 'proof_rejected');
    // Another case's answer with its own valid proof.
    assert.throws(() => tokens.finalize(exports, state, hexBytes(other.evaluation),
      hexBytes(other.proof), hexBytes(testCase.public_key)), (error) => error.code === 'proof_rejected');
  }
});

test('malformed bytes are refused with the module’s codes, and the buffer is left zeroed', async () => {
  const exports = await instantiate();
  const testCase = vectors.cases[0];
  const state = hexBytes(testCase.state);
  const evaluation = hexBytes(testCase.evaluation);
  const proof = hexBytes(testCase.proof);
  const publicKey = hexBytes(testCase.public_key);
  const refused = (code, fn) => assert.throws(fn, (error) => error.name === 'TokenError' && error.code === code, code);

  refused('input_length', () => tokens.blind(exports, random, new Uint8Array(0)));
  refused('input_length', () => tokens.blind(exports, random, new Uint8Array(257)));
  refused('randomness', () => tokens.blind(exports, () => {}, new Uint8Array(32)));
  refused('malformed_state', () => tokens.finalize(exports, state.slice(0, 64), evaluation, proof, publicKey));
  const zeroBlind = state.slice();
  zeroBlind.fill(0, 0, 32);
  refused('malformed_state', () => tokens.finalize(exports, zeroBlind, evaluation, proof, publicKey));
  refused('malformed_evaluation', () => tokens.finalize(exports, state, new Uint8Array(32), proof, publicKey));
  refused('malformed_evaluation', () => tokens.finalize(exports, state, evaluation.slice(1), proof, publicKey));
  refused('malformed_proof', () => tokens.finalize(exports, state, evaluation, new Uint8Array(64), publicKey));
  refused('malformed_public_key', () => tokens.finalize(exports, state, evaluation, proof, new Uint8Array(32).fill(255)));
  assert.throws(() => tokens.blind(exports, random, 'text'), TypeError);

  // Straight to the module: a length out of range, no seed.
  assert.equal(exports.bt_blind(-1), -1);
  assert.equal(exports.bt_blind(32), -7);
  assert.equal(exports.bt_finalize(1000), -2);
  const buffer = new Uint8Array(exports.memory.buffer, exports.bt_buffer(), BUFFER_BYTES);
  assert.ok(buffer.every((byte) => byte === 0), 'nothing left in the buffer');

  tokens.finalize(exports, state, evaluation, proof, publicKey);
  assert.ok(buffer.every((byte) => byte === 0), 'the wrapper zeroes the buffer after a call');
});

test('a fresh token round-trips with real randomness, and two blinds of one input differ', async () => {
  const exports = await instantiate();
  const input = tokens.randomInput(random);
  assert.equal(input.length, tokens.INPUT_BYTES);
  const first = tokens.blind(exports, random, input);
  const second = tokens.blind(exports, random, input);
  assert.notEqual(hex(first.blinded), hex(second.blinded));
  assertBytes(tokens.inputOf(first.state), input);
});

test('base64url helpers: RFC 4648 examples, and no second spelling', () => {
  const encoder = new TextEncoder();
  for (const [text, encoded] of [['', ''], ['f', 'Zg'], ['fo', 'Zm8'], ['foo', 'Zm9v'],
    ['foob', 'Zm9vYg'], ['fooba', 'Zm9vYmE'], ['foobar', 'Zm9vYmFy']]) {
    assert.equal(tokens.base64url(encoder.encode(text)), encoded);
    assertBytes(tokens.fromBase64url(encoded), encoder.encode(text));
  }
  assert.equal(tokens.base64url(Uint8Array.of(0xfb, 0xff)), '-_8');
  for (const bad of ['Zg==', '+/8', 'Zh', 'Z', 'Zm9v\n', 'Zm 9v']) {
    assert.throws(() => tokens.fromBase64url(bad), (error) => error.code === 'base64', bad);
  }
  const key = hexBytes(vectors.cases[0].public_key);
  assertBytes(tokens.fromBase64url(tokens.base64url(key)), key);
});

test('timings (a diagnostic, never asserted)', async (t) => {
  const exports = await instantiate();
  const testCase = vectors.cases[0];
  const rounds = 200;
  const input = hexBytes(testCase.input);
  let started = performance.now();
  for (let i = 0; i < rounds; i++) tokens.blind(exports, random, input);
  const blindMs = (performance.now() - started) / rounds;
  const args = [hexBytes(testCase.state), hexBytes(testCase.evaluation), hexBytes(testCase.proof),
    hexBytes(testCase.public_key)];
  started = performance.now();
  for (let i = 0; i < rounds; i++) tokens.finalize(exports, ...args);
  const finalizeMs = (performance.now() - started) / rounds;
  t.diagnostic(`blind ${blindMs.toFixed(3)} ms, finalize ${finalizeMs.toFixed(3)} ms (Node ${process.version}, ${rounds} rounds)`);
});
