/**
 * A CMYK template's print PDF frees each strip's ink arrays once the strip is encoded (probe27,
 * issue 25 §1): an 8,000² CMYK template's PDF made 5 MB of them for each of its 61 strips (the
 * converted render, the stored ink, which pixels came from RGB) and 4 MB more for the ink, and
 * workerd was killed under 128 MB.
 */
import { describe, expect, it } from 'vitest';
import { dropped } from '../../../src/engine/memory/drop';
import { upload } from '../../dynamic-image/helpers';
import { makePdf } from './helpers';

const SIDE = 256;

/** Big-endian bytes of a PSD section, written in order. */
class Out {
  parts: number[] = [];
  u8 = (v: number) => void this.parts.push(v & 255);
  u16 = (v: number) => (this.u8(v >>> 8), this.u8(v));
  u32 = (v: number) => (this.u16(v >>> 16), this.u16(v));
  ascii = (t: string) => [...t].forEach((c) => this.u8(c.charCodeAt(0)));
  bytes = (b: ArrayLike<number>) => Array.prototype.forEach.call(b, (v: number) => this.u8(v));
}

/**
 * An 8-bit CMYK document of SIDE² with one opaque full-canvas layer, channels raw: ink ramps across
 * and down (stored inverted, 255 = no ink), the merged image the same.
 */
function layeredCmyk(): Uint8Array {
  const plane = (c: number) => Uint8Array.from({ length: SIDE * SIDE }, (_, i) => 255 - (((c % 2 ? i % SIDE : Math.floor(i / SIDE)) * (c + 1)) % 256));
  const planes = [0, 1, 2, 3].map(plane);
  const opaque = new Uint8Array(SIDE * SIDE).fill(255);
  const info = new Out();
  info.u16(1);
  info.u32(0), info.u32(0), info.u32(SIDE), info.u32(SIDE); // top, left, bottom, right
  info.u16(5);
  for (const id of [0, 1, 2, 3, 0xffff]) (info.u16(id), info.u32(2 + SIDE * SIDE));
  info.ascii('8BIMnorm');
  info.u8(255), info.u8(0), info.u8(0), info.u8(0);
  info.u32(12), info.u32(0), info.u32(0), info.u32(0); // extra: no mask, no blending ranges, an empty name (padded)
  for (const p of [...planes, opaque]) (info.u16(0), info.bytes(p));
  const out = new Out();
  out.ascii('8BPS');
  out.u16(1);
  for (let i = 0; i < 6; i++) out.u8(0);
  out.u16(4), out.u32(SIDE), out.u32(SIDE), out.u16(8), out.u16(4); // 4 channels, 8-bit CMYK
  out.u32(0), out.u32(0); // colour mode data, image resources
  out.u32(4 + info.parts.length + 4);
  out.u32(info.parts.length);
  out.bytes(info.parts);
  out.u32(0); // global layer mask info
  out.u16(0); // merged image: raw
  for (const p of planes) out.bytes(p);
  return Uint8Array.from(out.parts);
}

describe('a CMYK template’s print PDF', () => {
  it('gives each strip’s ink arrays back once the strip is encoded', async () => {
    const res = await upload('templates', [['layered-cmyk.psd', layeredCmyk()]], '?destination=cmyk-ink-drops&overwrite=true');
    expect(res.status).toBe(201);
    const before = dropped.bytes;
    const pdf = await makePdf({ template: 'cmyk-ink-drops/layered-cmyk.psd' }, SIDE, false);
    expect(pdf.bytes.length).toBeGreaterThan(0);
    // The strip's ink (SIDE² × 4 bytes) at least. (Measured here: 262,144 bytes with the change and
    // without it, so this does not tell the two apart; the proof of the change is the A/B in the
    // probe27 report: same normalised PDF bytes, 8,000² CMYK print PDF killed → 100 MB in workerd.)
    expect(dropped.bytes - before).toBeGreaterThanOrEqual(SIDE * SIDE * 4);
  });
});
