import { env } from 'cloudflare:workers';
import type { Layer } from 'ag-psd';
import { describe, expect, it } from 'vitest';
import { compileTemplate } from '../../../src/engine';
import { Unprocessable } from '../../../src/engine/errors';
import { keys, upload } from '../../dynamic-image/helpers';

/**
 * Photoshop features the compositor does not model are refused at upload with a 422 that names
 * the layer and the feature (src/engine/compiled/unsupported.ts); the same file with the feature
 * at its no-op setting compiles. Files are made here with ag-psd: 8×8, small enough to be quick.
 */
const W = 8;
const H = 8;

function pixels(r: number, g: number, b: number, a = 255, half = false) {
  const data = new Uint8ClampedArray(W * H * 4);
  for (let i = 0; i < W * H; i++) {
    const on = !half || i % W < W / 2;
    data.set(on ? [r, g, b, a] : [0, 0, 0, 0], i * 4);
  }
  return { width: W, height: H, data };
}

const box = { left: 0, top: 0, right: W, bottom: H };
const img = (name: string, rgb: [number, number, number], extra: Partial<Layer> = {}): Layer => ({
  name,
  ...box,
  imageData: pixels(...rgb, 255, true),
  ...extra,
});
const px = (value: number) => ({ units: 'Pixels' as const, value });
const background = (): Layer => ({ name: 'Background', ...box, imageData: pixels(200, 200, 200) });
const stroke = { stroke: [{ enabled: true, present: true, size: { units: 'Pixels' as const, value: 2 }, position: 'outside' as const, fillType: 'color' as const, color: { r: 255, g: 0, b: 0 }, opacity: 1, blendMode: 'normal' as const }] };
const ranges = (lo: number) => ({
  compositeGrayBlendSource: [lo, lo, 255, 255],
  compositeGraphBlendDestinationRange: [0, 0, 255, 255],
  ranges: [0, 1, 2].map(() => ({ sourceRange: [0, 0, 255, 255], destRange: [0, 0, 255, 255] })),
});

async function psd(children: Layer[]): Promise<Uint8Array> {
  const { writePsdUint8Array } = await import('ag-psd');
  return writePsdUint8Array({ width: W, height: H, children, imageData: pixels(128, 128, 128) });
}

async function refusal(children: Layer[]): Promise<Unprocessable> {
  const e = await compileTemplate(env.FILES, await psd(children)).then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(Unprocessable);
  return e as Unprocessable;
}

/** A mask that hides the bottom half. */
function mask() {
  const data = new Uint8ClampedArray(W * H * 4);
  for (let i = 0; i < W * H; i++) data.fill(i < (W * H) / 2 ? 255 : 0, i * 4, i * 4 + 4);
  return { ...box, defaultColor: 0, imageData: { width: W, height: H, data } };
}

/** Each case: the layers with the feature set (refused), and at its no-op setting (compiles). */
const cases: Array<{ feature: string; path: string; on: () => Layer[]; off: () => Layer[] }> = [
  {
    feature: 'knockout on a clipping base',
    path: 'layers.Base',
    // A group's; a layer's is drawn (test/engine/composite/knockout-groups.test.ts).
    on: () => [background(), { name: 'Base', blendMode: 'normal', fillOpacity: 0.5, knockout: true, children: [img('In', [0, 255, 0])] } as Layer, img('Over', [255, 0, 0], { clipping: true })],
    off: () => [background(), { name: 'Base', blendMode: 'normal', fillOpacity: 0.5, children: [img('In', [0, 255, 0])] } as Layer, img('Over', [255, 0, 0], { clipping: true })],
  },
  {
    feature: 'Blend If on a pass-through group',
    path: 'layers.Pass',
    // Holding a layer in another mode; with Normal layers alone it is drawn isolated (test/engine/composite/facts-passthrough.test.ts).
    on: () => [background(), { name: 'Pass', blendMode: 'pass through', blendingRanges: ranges(100), children: [img('Inside', [0, 0, 255], { blendMode: 'multiply' })] } as Layer],
    off: () => [background(), { name: 'Pass', blendMode: 'pass through', blendingRanges: ranges(0), children: [img('Inside', [0, 0, 255], { blendMode: 'multiply' })] } as Layer],
  },
  {
    feature: '"Blend Clipped Layers as Group" turned off',
    path: 'layers.Base',
    // Drawn for a plain base (test/engine/composite/blend-clipped-apart.test.ts); refused on a base with effects.
    on: () => [background(), img('Base', [0, 255, 0], { blendMode: 'multiply', blendClippendElements: false, effects: stroke }), img('Over', [255, 0, 0], { clipping: true })],
    off: () => [background(), img('Base', [0, 255, 0], { blendMode: 'multiply', blendClippendElements: true, effects: stroke }), img('Over', [255, 0, 0], { clipping: true })],
  },
  {
    feature: '"Transparency Shapes Layer" turned off',
    // Drawn for layers (test/engine/composite/transparency-shapes.test.ts), refused on a group.
    path: 'layers.Group',
    on: () => [background(), { name: 'Group', effects: stroke, transparencyShapesLayer: false, children: [img('Styled', [0, 0, 255])] } as Layer],
    off: () => [background(), { name: 'Group', effects: stroke, transparencyShapesLayer: true, children: [img('Styled', [0, 0, 255])] } as Layer],
  },
  // Effect values past the Layer Style dialog's limits (session 19 fuzz: a 30,000 px inner shadow
  // held gigabytes at upload, a 1,000 px emboss took 36 s on a small canvas); at the limit they compile.
  {
    feature: 'inner shadow size of 30000 px (Photoshop allows at most 250 px)',
    path: 'layers.Shadowed',
    on: () => [background(), img('Shadowed', [0, 0, 255], { effects: { innerShadow: [{ enabled: true, present: true, size: px(30000), distance: px(10), color: { r: 0, g: 0, b: 0 }, opacity: 1 }] } })],
    off: () => [background(), img('Shadowed', [0, 0, 255], { effects: { innerShadow: [{ enabled: true, present: true, size: px(250), distance: px(10), color: { r: 0, g: 0, b: 0 }, opacity: 1 }] } })],
  },
  {
    feature: 'bevel size of 1000 px (Photoshop allows at most 250 px)',
    path: 'layers.Embossed',
    on: () => [background(), img('Embossed', [0, 0, 255], { effects: { bevel: { enabled: true, present: true, style: 'emboss', size: px(1000), soften: px(16) } } })],
    off: () => [background(), img('Embossed', [0, 0, 255], { effects: { bevel: { enabled: true, present: true, style: 'emboss', size: px(250), soften: px(16) } } })],
  },
];

describe('Unmodelled Photoshop features', () => {
  for (const c of cases) {
    it(`refuse ${c.feature} with a 422 naming the layer, and compile at the no-op setting`, async () => {
      const e = await refusal(c.on());
      expect(e.message).toContain(c.feature);
      expect(e.details).toContainEqual({ path: c.path, reason: c.feature });
      const compiled = await compileTemplate(env.FILES, await psd(c.off()));
      expect(compiled.layers.length).toBeGreaterThan(0);
    });
  }

  it('draw "Layer Mask Hides Effects" (test/engine/composite/mask-hides-effects.test.ts), refuse its vector twin on a shape layer', async () => {
    await compileTemplate(env.FILES, await psd([background(), img('Masked', [0, 0, 255], { effects: stroke, mask: mask(), layerMaskAsGlobalMask: true })]));
    const shape = (): Layer => ({
      ...img('Shape', [0, 0, 255], { effects: stroke, layerMaskAsGlobalMask: true }),
      vectorFill: { type: 'color', color: { r: 0, g: 0, b: 255 } },
      vectorMask: { paths: [{ open: false, operation: 'combine', fillRule: 'even-odd', knots: [[0, 0], [4, 0], [4, 8], [0, 8]].map(([x, y]) => ({ linked: true, points: [x, y, x, y, x, y] })) }] },
    });
    // ag-psd writes only 'lmgm'; Photoshop's 'vmgm' holds the same byte: rename the block.
    const bytes = await psd([background(), shape()]);
    const at = new TextDecoder('latin1').decode(bytes).indexOf('8BIMlmgm');
    expect(at).toBeGreaterThan(0);
    bytes.set([...'vmgm'].map((c) => c.charCodeAt(0)), at + 4);
    const e = await compileTemplate(env.FILES, bytes).then(() => null, (err: unknown) => err);
    expect(e).toBeInstanceOf(Unprocessable);
    expect((e as Unprocessable).details).toContainEqual({ path: 'layers.Shape', reason: '"Vector Mask Hides Effects" on a shape layer' });
  });

  it('leave a knockout at Fill 100 % Normal alone (it changes nothing), and hidden layers', async () => {
    await compileTemplate(env.FILES, await psd([background(), { name: 'Cut', knockout: true, children: [img('Inside', [0, 0, 255])] } as Layer]));
    await compileTemplate(
      env.FILES,
      await psd([background(), { name: 'Hidden', hidden: true, fillOpacity: 0.5, knockout: true, children: [img('Inside', [0, 0, 255])] } as Layer]),
    );
  });

  it('answer an upload with 422 naming the layer and the feature, and keep nothing', async () => {
    const before = await keys();
    const res = await upload('templates', [['knockout.psd', await psd(cases[0].on())]], '?destination=tpl-unmodelled');
    expect(res.status).toBe(422);
    const body = (await res.json()) as { error: string; message: string };
    expect(body.error).toBe('unprocessable');
    expect(JSON.stringify(body)).toContain(cases[0].feature);
    expect(JSON.stringify(body)).toContain(cases[0].path);
    expect(await keys()).toEqual(before);
  });

  it('name every layer that uses one, with its path', async () => {
    const e = await refusal([
      background(),
      { name: 'Outer', children: [{ name: 'Cut', blendMode: 'pass through', fillOpacity: 0, knockout: true, children: [img('A', [0, 0, 255])] } as Layer] },
      { name: 'Pass', blendMode: 'pass through', blendingRanges: ranges(50), children: [img('B', [0, 0, 255], { blendMode: 'multiply' })] } as Layer,
    ]);
    expect(e.details).toEqual(
      expect.arrayContaining([
        { path: 'layers.Pass', reason: 'Blend If on a pass-through group' },
      ]),
    );
    // A pass-through group's knockout is drawn, isolated (test/engine/composite/facts-knockout.test.ts).
    expect(e.details).not.toContainEqual(expect.objectContaining({ path: 'layers.Outer/Cut' }));
  });
});
