// www/text85.js in Node: the text Python's packed arrays and the notebooks' engine are written in. The golden texts
// are Python's own base85 (base64.b85encode, RFC 1924) with its digits mapped to the core's alphabet; anything else
// is refused with an Error that says where, never a wrong byte or another kind of throw.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fromText85, toText85 } from '../../www/text85.js';
import { TEXT85 } from '../../www/element/facts.js';

const GOLDEN = [
  [[1, 2, 3, 4, 5, 6, 7, 8, 9], '0RjUA1qKHQ2='],
  [[255, 255, 255, 255, 255, 255, 255], '{NsC0{Ns9'],
  [[255, 255, 255, 255], '{NsC0'],
  [[...'attention-viz'].map((c) => c.charCodeAt(0)), 'VRUq5ZggpHZY]3cdH'],
  [[], ''],
];

test('text85 reads and writes what Python\'s base85 writes, in the core\'s alphabet', () => {
  for (const [bytes, text] of GOLDEN) {
    assert.deepEqual([...fromText85(text)], bytes, text);
    assert.equal(toText85(Uint8Array.from(bytes)), text);
  }
  // Every length's last group, and every digit.
  let seed = 1;
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % 256;
  for (let n = 0; n < 40; n++) {
    const bytes = Uint8Array.from({ length: n }, rand);
    assert.deepEqual(fromText85(toText85(bytes)), bytes);
  }
  assert.equal(fromText85(TEXT85.slice(0, 85 - 85 % 5)).length, 68);
});

test('text that is not text85 is refused, saying where', () => {
  const refusal = (text) => { try { fromText85(text, 'attention'); } catch (e) { assert.ok(e instanceof Error); return e.message; } return null; };
  assert.equal(refusal('0000~00000'), 'attention is not text85: character 4 is "~"');
  assert.equal(refusal('00000"'), 'attention is not text85: its length 6 leaves one character over');
  assert.equal(refusal('0000\u0130'), 'attention is not text85: character 4 is "İ"');
  assert.equal(refusal('00000{{{{{'), 'attention is not text85: characters 5…9 are over 2³² − 1');
  assert.equal(refusal('00 0'), 'attention is not text85: character 2 is " "');
  // Random printable text: bytes or the message, nothing else.
  let seed = 7;
  const rand = (n) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
  for (let i = 0; i < 300; i++) {
    const text = Array.from({ length: rand(30) }, () => String.fromCharCode(32 + rand(96))).join('');
    const message = refusal(text);
    assert.ok(message === null || /^attention is not text85: /.test(message), message);
  }
});
