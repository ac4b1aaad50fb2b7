// Hostile files written byte by byte, for tests/e2e/hostile-files.test.mjs and bench/hostile.mjs: a .npy's preamble
// and header, a zip's local headers, directory and end record, deflate streams from Node's zlib. Nothing is fetched.
import { deflateRawSync, crc32, constants } from 'node:zlib';

/** A .npy file: the magic string, version 1.0, the header dict padded to a multiple of 64 bytes, then `data`. */
export function npy(descr, shape, data = new Uint8Array(0)) {
  const dims = shape.length === 1 ? `${shape[0]},` : shape.join(', ');
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': (${dims}), }`;
  while ((10 + header.length + 1) % 64) header += ' ';
  header += '\n';
  const out = new Uint8Array(10 + header.length + data.length);
  out.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0, header.length & 255, header.length >> 8]);
  out.set(Buffer.from(header, 'latin1'), 10);
  out.set(data, 10 + header.length);
  return out;
}

/**
 * A zip archive of `members` ({name, bytes, declared?}): each deflated by zlib (or stored), with its uncompressed
 * size in the local header and the directory as `declared` says (a bomb may declare anything), then the end record.
 */
export function zip(members, { deflate = true } = {}) {
  const parts = [];
  const central = [];
  let offset = 0;
  for (const { name, bytes, body: given, declared } of members) {
    const body = given ?? (deflate ? deflateRawSync(bytes, { level: 1 }) : bytes);
    const n = Buffer.from(name);
    const size = declared ?? bytes.length;
    const crc = bytes ? crc32(bytes) : 0;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0); local.writeUInt16LE(20, 4); local.writeUInt16LE(deflate ? 8 : 0, 8);
    local.writeUInt32LE(crc, 14); local.writeUInt32LE(body.length, 18); local.writeUInt32LE(size, 22); local.writeUInt16LE(n.length, 26);
    const entry = Buffer.alloc(46);
    entry.writeUInt32LE(0x02014b50, 0); entry.writeUInt16LE(20, 4); entry.writeUInt16LE(20, 6); entry.writeUInt16LE(deflate ? 8 : 0, 10);
    entry.writeUInt32LE(crc, 16); entry.writeUInt32LE(body.length, 20); entry.writeUInt32LE(size, 24); entry.writeUInt16LE(n.length, 28);
    entry.writeUInt32LE(offset, 42);
    parts.push(local, n, body);
    central.push(entry, n);
    offset += 30 + n.length + body.length;
  }
  const cd = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0); end.writeUInt16LE(members.length, 8); end.writeUInt16LE(members.length, 10);
  end.writeUInt32LE(cd.length, 12); end.writeUInt32LE(offset, 16);
  return new Uint8Array(Buffer.concat([...parts, cd, end]));
}

export const f64 = (xs) => new Uint8Array(new Float64Array(xs).buffer);

/** A member holding `n` zero bytes of |u1 after a header that says so: what `np.savez_compressed(f, a=np.zeros(n, np.uint8))` writes. */
export function zeroMember(n, declared = undefined, shape = [n]) {
  const head = npy('|u1', shape);
  return { name: 'a.npy', body: zeroStream(head, n), bytes: null, declared: declared ?? head.length + n };
}

/**
 * One deflate stream of `head` and n zero bytes, made cheaply: 1 MB of zeros deflated once (a sync flush ends it on
 * a byte, not final), repeated, then the rest and a final empty block. Each piece refers only to itself.
 */
function zeroStream(head, n) {
  const MB = 1 << 20;
  const sync = (b) => deflateRawSync(b, { level: 9, finishFlush: constants.Z_SYNC_FLUSH });
  oneMB ??= sync(Buffer.alloc(MB));
  const pieces = [sync(Buffer.from(head))];
  for (let k = 0; k < Math.floor(n / MB); k++) pieces.push(oneMB);
  if (n % MB) pieces.push(sync(Buffer.alloc(n % MB)));
  pieces.push(deflateRawSync(Buffer.alloc(0)));
  return Buffer.concat(pieces);
}
let oneMB = null;
