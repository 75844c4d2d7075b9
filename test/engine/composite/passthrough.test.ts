import { writePsdUint8Array, type Layer, type Psd } from 'ag-psd';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { compileTemplate, loadStoredComposite, renderTemplate } from '../../../src/engine';
import { madeFixture } from '../../helpers/fixtures';

/**
 * Pass-through groups (Photoshop: "the group has no blending properties of its own"): children
 * blend straight onto what lies below the group, an adjustment inside changes everything below
 * it, and the group's opacity and mask fade between the canvas before the group and after it.
 * The made fixtures' composites are derived in test/fixtures/psd-made/make-i.mjs; here every pixel
 * is held to them (±1 for 8-bit rounding of opacity), and a group at 100 % with no mask must draw
 * exactly what its children draw in the parent.
 */


/** Every pixel of the render against the composite stored in the file; the mismatches, listed. */
async function mismatches(bytes: Uint8Array, tolerance = 1): Promise<string[]> {
  const compiled = await compileTemplate(env.FILES, bytes);
  const image = await renderTemplate(env.FILES, compiled, { scale: 1 });
  const stored = (await loadStoredComposite(env.FILES, compiled))!;
  const out: string[] = [];
  for (let i = 0, p = 0; i < image.data.length; i += 4, p++) {
    const ours = [...image.data.subarray(i, i + 3)];
    const theirs = [...stored.subarray(i, i + 3)];
    if (ours.some((v, c) => Math.abs(v - theirs[c]) > tolerance)) out.push(`(${p % image.width}, ${Math.floor(p / image.width)}): ${ours} vs ${theirs}`);
  }
  return out;
}

const solid = (c: number[], w: number, h: number) => {
  const data = new Uint8ClampedArray(w * h * 4);
  for (let i = 0; i < w * h; i++) data.set([...c, 255], i * 4);
  return { width: w, height: h, data };
};

async function draw(psd: Psd): Promise<Uint8ClampedArray> {
  const compiled = await compileTemplate(env.FILES, writePsdUint8Array(psd));
  return (await renderTemplate(env.FILES, compiled, { scale: 1 })).data;
}

describe('pass-through groups', () => {
  it('with a fill layer, an adjustment and blend modes inside, at 100 % and at opacity 128', async () => {
    expect((await mismatches(await madeFixture('made-passthrough-fill-adjust.psd'))).slice(0, 10)).toEqual([]);
  });

  it('nested adjustments: passed down through pass-through groups, kept inside isolated ones', async () => {
    expect((await mismatches(await madeFixture('made-nested-adjustments.psd'))).slice(0, 10)).toEqual([]);
  });

  it('at 100 % with no mask draws exactly what its children draw in the parent, at the root and inside an isolated group', async () => {
    const children = (): Layer[] => [
      { name: 'multiply', left: 2, top: 1, imageData: solid([30, 60, 250], 12, 10), blendMode: 'multiply' },
      { name: 'invert', adjustment: { type: 'invert' }, opacity: 0.5 },
      { name: 'screen', left: 8, top: 4, imageData: solid([0, 128, 0], 14, 9), blendMode: 'screen', opacity: 0.7 },
      { name: 'posterize', adjustment: { type: 'posterize', levels: 3 }, mask: { left: 0, top: 0, imageData: solid([255, 255, 255], 10, 16), defaultColor: 0 } },
    ];
    const bg: Layer = { name: 'bg', left: 0, top: 0, imageData: solid([200, 100, 50], 24, 16) };
    const doc = (layers: Layer[]): Psd => ({ width: 24, height: 16, children: layers });
    const grouped = await draw(doc([bg, { name: 'g', blendMode: 'pass through', children: children() }]));
    const flat = await draw(doc([bg, ...children()]));
    expect(grouped).toEqual(flat);
    // Inside an isolated group the pass-through group's children still join that group's stack.
    const inIsolated = await draw(doc([bg, { name: 'n', blendMode: 'normal', children: [{ ...bg, name: 'bg2' }, { name: 'g', blendMode: 'pass through', children: children() }] }]));
    expect(inIsolated).toEqual(flat);
  });
});
