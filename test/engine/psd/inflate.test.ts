import { deflateSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { InflateError, Inflater } from '../../../src/engine/psd/inflate';

/** Bytes with runs and noise, so deflate makes many dynamic blocks of different codes. */
function mixed(n: number): Uint8Array {
  let state = 12345;
  return Uint8Array.from({ length: n }, (_, i) => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (i >> 12) % 3 === 0 ? (i >> 6) & 255 : (i >> 12) % 3 === 1 ? state & 15 : state & 255;
  });
}

function inflateAll(src: Uint8Array, length: number, piece = 4099): Uint8Array {
  const inflater = new Inflater(src);
  const out = new Uint8Array(length + 1);
  let at = 0;
  for (let n; (n = inflater.read(out.subarray(at, Math.min(out.length, at + piece)))) > 0; ) at += n;
  return out.subarray(0, at);
}

describe('Inflater', () => {
  it('inflates many dynamic blocks one after another (their tables built in the same arrays)', () => {
    const data = mixed(600_000);
    for (const level of [1, 9] as const) {
      const out = inflateAll(zlibOf(data, level), data.length);
      expect(out.length).toBe(data.length);
      expect(out.findIndex((v, i) => v !== data[i])).toBe(-1);
    }
  });

  it('still refuses a corrupt stream', () => {
    const z = zlibOf(mixed(200_000), 6);
    z.fill(255, 40, 60);
    expect(() => inflateAll(z, 200_000)).toThrow(InflateError);
  });
});

/** A zlib stream (RFC 1950) around fflate's raw deflate; the trailer is not checked. */
function zlibOf(data: Uint8Array, level: 1 | 6 | 9): Uint8Array {
  const raw = deflateSync(data, { level });
  const out = new Uint8Array(raw.length + 6);
  out[0] = 0x78;
  out[1] = 0x9c;
  out.set(raw, 2);
  return out;
}
