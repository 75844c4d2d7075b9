/**
 * Previews of CMYK documents composited in ink (issue 25 §2; docs/colour.md, "CMYK previews
 * composited in ink"): where the ink compositor models the stack, a preview is the layers' own
 * CMYK composited as Photoshop composites a CMYK document, converted to sRGB as the merged image
 * is; elsewhere (what it does not model, documents too large to composite at full size, RGB
 * documents) today's RGB path, unchanged.
 */
import { env } from 'cloudflare:workers';
import UPNG from '@pdf-lib/upng';
import { beforeAll, describe, expect, it } from 'vitest';
import { compileTemplate, loadStoredComposite, renderTemplate } from '../../src/engine';
import { documentInks, inkDocument, inkFrame, inkRender, INK_PREVIEW_MAX_PIXELS, INK_PREVIEW_MAX_PSD_BYTES } from '../../src/engine/composite/cmyk-ink';
import { inkLayers } from '../../src/engine/pdf/ink-composite';
import { parsePsd } from '../../src/engine/psd/parse';
import { personalise, preparePreview, resolveRequest, type PreviewOptions } from '../../src/engine/preview';
import type { InputStore } from '../../src/engine/inputs';
import type { PersonalisationData } from '../../src/engine/personalise';
import { FileStore } from '../../src/dynamic-image/store';
import { frameCache } from '../../src/engine/cache';
import type { AdjustmentInCmyk } from '../../src/engine/composite/adjust';
import type { CompiledTemplate, LayerNode } from '../../src/engine/types';
import { madeFixture } from '../helpers/fixtures';
import { upload } from '../dynamic-image/helpers';
import { renderDeps } from './pdf/helpers';
import { bundledFont } from './fonts/helpers';

/** PSNR (dB) of RGB over white, as test/engine/fidelity.test.ts measures (Photoshop's alpha 0: white). */
function psnrOverWhite(ours: Uint8ClampedArray, theirs: Uint8Array, hasAlpha: boolean): number {
  let sum = 0;
  let n = 0;
  for (let i = 0; i < ours.length; i += 4) {
    const clear = hasAlpha && theirs[i + 3] === 0;
    for (let c = 0; c < 3; c++) {
      const d = ours[i + c] - (clear ? 255 : theirs[i + c]);
      sum += d * d;
      n++;
    }
  }
  return sum === 0 ? 99 : Math.min(99, 10 * Math.log10((255 * 255 * n) / sum));
}

const FOLDER = 'preview-cmyk-ink';
const FILES = ['made-v-cmyk-modes.psd', 'made-v-cmyk-nonsep.psd', 'made-v-cmyk-text.psd', 'made-cmyk-adjust-levels.psd', 'made-z-cmyk-adjust-stack.psd', 'made-z-cmyk-threshold-fallback.psd', 'made-z-cmyk16-posterize.psd', 'made-cmyk8.psd', 'made-cmyk8-alpha.psd', 'made-cmyk8-icc.psd', 'made-ink-edge.psd', 'made-ink-stack.psd', 'made-aa-cmyk-effects.psd'];
const psds = new Map<string, Uint8Array>();

beforeAll(async () => {
  for (const name of FILES) psds.set(name, await madeFixture(name));
  const res = await upload('templates', FILES.map((n) => [n, psds.get(n)!]), `?destination=${FOLDER}&overwrite=true`);
  expect(res.status).toBe(201);
  const font = await upload('fonts', [['LiberationSans-Regular.ttf', await bundledFont('LiberationSans-Regular.ttf')]], '?overwrite=true');
  expect(font.status).toBe(201);
});

/** A FileStore that counts whole reads of templates (the ink path reads the PSD). */
class CountingStore extends FileStore {
  templateReads = 0;
  override async read(root: Parameters<InputStore['read']>[0], name: string) {
    if (root === 'templates') this.templateReads++;
    return super.read(root, name);
  }
}

/** The preview of `name` as RGBA (PNG, no sharpening), `size` the box. */
async function preview(name: string, options: Partial<PreviewOptions> = {}, store = new FileStore(env.FILES)) {
  const compiled = await compileTemplate(env.FILES, psds.get(name)!);
  const size = options.size ?? { width: compiled.width, height: compiled.height };
  const request: PreviewOptions = { template: `${FOLDER}/${name}`, format: 'png', size, jpegQuality: 95, unsharpMask: null, ...options };
  const png = (await (await preparePreview(store, request, renderDeps())).render()).bytes;
  const [rgba] = UPNG.toRGBA8(UPNG.decode(png.slice().buffer));
  return { rgba: new Uint8Array(rgba), compiled };
}

/** PSNR over white of `rgba` (straight alpha) against Photoshop's merged image. */
async function againstMerged(name: string, rgba: Uint8Array) {
  const compiled = await compileTemplate(env.FILES, psds.get(name)!);
  const stored = (await loadStoredComposite(env.FILES, compiled))!;
  const flat = new Uint8ClampedArray(rgba.length);
  for (let p = 0; p < rgba.length; p += 4) {
    const a = rgba[p + 3] / 255;
    for (let c = 0; c < 3; c++) flat[p + c] = Math.round(rgba[p + c] * a + 255 * (1 - a));
    flat[p + 3] = 255;
  }
  return psnrOverWhite(flat, stored, compiled.transparent);
}

/** The RGB path's render at full size over white, as the fidelity test renders. */
async function rgbPsnr(name: string) {
  const compiled = await compileTemplate(env.FILES, psds.get(name)!);
  const image = await renderTemplate(env.FILES, compiled, { scale: 1 });
  return psnrOverWhite(image.data, (await loadStoredComposite(env.FILES, compiled))!, compiled.transparent);
}

/**
 * `name` (`width` × `height`, raw merged image) composited in ink: the worst ink level off the
 * merged image's, the preview's PSNR against it through the profile and the RGB path's.
 */
async function inkAgainstMerged(name: string, width: number, height: number) {
  const bytes = psds.get(name)!;
  const compiled = await compileTemplate(env.FILES, bytes);
  const doc = inkDocument(bytes, compiled)!;
  const content = documentInks(doc, undefined);
  expect(doc.layers.models(new Map(), content)).toBe(true);
  const { ink, unmodelled } = doc.layers.composite({ left: 0, top: 0, right: width, bottom: height }, new Map(), content);
  expect(unmodelled.every((v) => v === 0)).toBe(true);
  // The merged image (raw, after the layer section): four planes, stored inverted.
  const n = width * height;
  const merged = bytes.subarray(bytes.length - 4 * n);
  let worst = 0;
  for (let i = 0; i < n; i++) for (let c = 0; c < 4; c++) worst = Math.max(worst, Math.abs(ink[i * 4 + c] - (255 - merged[c * n + i])));
  const psnr = await againstMerged(name, (await preview(name)).rgba);
  const rgb = await rgbPsnr(name);
  console.log(`CMYK-INK ${name} ${JSON.stringify({ ink: +psnr.toFixed(2), rgb: +rgb.toFixed(2), worstInkLevels: worst })}`);
  return { worst, psnr, rgb };
}

/** Whether the ink compositor models `tree` (compiled from `name`) for a preview. */
function inkModels(name: string, tree: CompiledTemplate): boolean {
  const doc = inkDocument(psds.get(name)!, tree)!;
  return doc.layers.models(new Map(), documentInks(doc, undefined));
}

/**
 * The inks of `tree` (compiled from `name`), `width` wide, composited strip after strip (`rows`:
 * the strips' edges, lanes alternating), held to be modelled and to leave nothing out.
 */
function stripInks(name: string, tree: CompiledTemplate, rows: number[], width = 24): number[] {
  const doc = inkDocument(psds.get(name)!, tree)!;
  const content = documentInks(doc, undefined);
  expect(doc.layers.models(new Map(), content)).toBe(true);
  return rows.slice(1).flatMap((bottom, i) => {
    const { ink, unmodelled } = doc.layers.composite({ left: 0, top: rows[i], right: width, bottom }, new Map(), content, i % 2);
    expect(unmodelled.every((v) => v === 0)).toBe(true);
    return Array.from(ink);
  });
}

describe('CMYK previews composited in ink', () => {
  it('made-cmyk8 (half-transparent layer, 25 % mask): the preview is the merged image through the profile', async () => {
    const { rgba } = await preview('made-cmyk8.psd');
    const ink = await againstMerged('made-cmyk8.psd', rgba);
    const rgb = await rgbPsnr('made-cmyk8.psd');
    console.log(`CMYK-INK made-cmyk8 ${JSON.stringify({ ink: +ink.toFixed(2), rgb: +rgb.toFixed(2) })}`);
    expect(ink).toBeGreaterThan(rgb + 5);
    expect(ink).toBeGreaterThanOrEqual(50);
  });

  it('made-v-cmyk-modes (eight separable modes at partial opacity, masks, soft alpha; psd-tools PHOTOSHOP_CMYK_SEPARABLE formulas): the merged image', async () => {
    const name = 'made-v-cmyk-modes.psd';
    const ink = await againstMerged(name, (await preview(name)).rgba);
    const rgb = await rgbPsnr(name);
    console.log(`CMYK-INK ${name} ${JSON.stringify({ ink: +ink.toFixed(2), rgb: +rgb.toFixed(2) })}`);
    expect(ink).toBeGreaterThanOrEqual(50);
    expect(ink).toBeGreaterThan(rgb + 10);
  });

  it('made-v-cmyk-nonsep: Hue, Saturation, Color, Luminosity, Darker and Lighter Color in ink are Photoshop\'s sampled results (psd-tools PHOTOSHOP_CMYK) within 2 levels', async () => {
    const name = 'made-v-cmyk-nonsep.psd';
    const { worst, psnr } = await inkAgainstMerged(name, 24, 24);
    expect(worst).toBeLessThanOrEqual(2);
    expect(psnr).toBeGreaterThanOrEqual(45);
  });

  it('adjustment layers in ink (made-z-cmyk-adjust-stack: Posterize clipped to a layer, masked Curves with yellow left out and a K curve, Levels at 60 % through a mask, Invert in Multiply; make-z.mjs): each ink within 1 level of the merged image', async () => {
    const { worst, psnr, rgb } = await inkAgainstMerged('made-z-cmyk-adjust-stack.psd', 24, 16);
    expect(worst).toBeLessThanOrEqual(1);
    expect(psnr).toBeGreaterThanOrEqual(50);
    expect(psnr).toBeGreaterThan(rgb + 10);
  });

  it('a 16-bit document\'s Posterize in ink (made-z-cmyk16-posterize: Photoshop bins the 16-bit values): its inks rounded to 8 bits first, so only values within half an 8-bit step of a bin edge can fall in the next bin', async () => {
    const name = 'made-z-cmyk16-posterize.psd';
    const bytes = psds.get(name)!;
    const compiled = await compileTemplate(env.FILES, bytes);
    const doc = inkDocument(bytes, compiled)!;
    const content = documentInks(doc, undefined);
    expect(doc.layers.models(new Map(), content)).toBe(true);
    const { ink } = doc.layers.composite({ left: 0, top: 0, right: 24, bottom: 16 }, new Map(), content);
    // The merged image: four planes of big-endian 16-bit words, stored inverted.
    const n = 24 * 16;
    const view = new DataView(bytes.buffer, bytes.byteOffset + bytes.length - 8 * n, 8 * n);
    let off = 0;
    for (let i = 0; i < n; i++) for (let c = 0; c < 4; c++) if (Math.abs(ink[i * 4 + c] - (255 - Math.round(view.getUint16((c * n + i) * 2) / 257))) > 1) off++;
    const psnr = await againstMerged(name, (await preview(name)).rgba);
    const rgb = await rgbPsnr(name);
    console.log(`CMYK-INK ${name} ${JSON.stringify({ ink: +psnr.toFixed(2), rgb: +rgb.toFixed(2), inksInAnotherBin: off })}`);
    // 9 of the 1,536 ink values lie within half an 8-bit step of a bin edge (the ramp worked out in make-z.mjs).
    expect(off).toBeLessThanOrEqual(9);
    expect(psnr).toBeGreaterThan(rgb);
  });

  it.each<[string, (n: LayerNode) => LayerNode]>([
    ['Threshold (its CMYK rule not established)', (n) => ({ ...n, adjustment: { type: 'threshold', level: 128 } })],
    ['Hue/Saturation', (n) => ({ ...n, adjustment: { type: 'hue/saturation', master: { a: 0, b: 0, c: 0, d: 0, hue: 30, saturation: 0, lightness: 0 } } })],
    ['a tree compiled before the excluded inks were kept (its restrictions unknown)', (n) => ({ ...n, adjustment: { ...n.adjustment!, excludedInks: undefined } as AdjustmentInCmyk })],
    ['Blend If', (n) => ({ ...n, blendIf: [{ source: [0, 0, 255, 255], dest: [0, 0, 128, 255] }] })],
    ['a feathered mask', (n) => ({ ...n, mask: { ...n.mask!, feather: 2 } })],
    ['a restriction left on the node (a mode other than Normal)', (n) => ({ ...n, excludedChannels: [1] })],
  ])('an adjustment with %s keeps the RGB path', async (_what, change) => {
    const name = 'made-z-cmyk-adjust-stack.psd';
    const compiled = await compileTemplate(env.FILES, psds.get(name)!);
    expect(inkModels(name, compiled)).toBe(true);
    const layers = compiled.layers.map((n) => (n.name === 'levels' ? change(n) : n));
    expect(inkModels(name, { ...compiled, layers })).toBe(false);
  });

  it('layer effects in ink (made-aa-cmyk-effects: a hard drop shadow in Multiply and a colour overlay at 60 %, CMYK colours, on a layer at 80 %; make-aa.mjs): each ink within 1 level of the merged image where the parse keeps the colours\' inks', async () => {
    const bytes = psds.get('made-aa-cmyk-effects.psd')!;
    const tile = parsePsd(bytes.slice()).children!.find((l) => l.name === 'tile')!;
    const kept = (tile.effects?.solidFill?.[0]?.color as { ink?: number[] } | undefined)?.ink !== undefined;
    const { worst, psnr, rgb } = await inkAgainstMerged('made-aa-cmyk-effects.psd', 24, 16);
    // Without the inks (psd/color-modes.ts keeping them), the colours come back from sRGB through
    // the profile: the same colour, another black generation (12 levels, 53.8 dB, measured).
    expect(worst).toBeLessThanOrEqual(kept ? 1 : 12);
    expect(psnr).toBeGreaterThanOrEqual(kept ? 58 : 50);
    expect(psnr).toBeGreaterThan(rgb + 10);
  });

  it.each<[string, (fx: Record<string, unknown>) => Record<string, unknown>, (n: LayerNode) => LayerNode]>([
    ['a pattern overlay', (fx) => ({ ...fx, patternOverlay: { enabled: true, present: true, pattern: { name: 'p', id: 'p' } } }), (n) => n],
    ['a bevel whose shadow is in Color mode', (fx) => ({ ...fx, bevel: { enabled: true, present: true, style: 'inner bevel', size: { units: 'Pixels', value: 3 }, shadowBlendMode: 'color' } }), (n) => n],
    ['a gradient overlay interpolated Perceptual', (fx) => ({ ...fx, gradientOverlay: [{ enabled: true, present: true, interpolationMethod: 'perceptual', gradient: { name: '', type: 'solid', colorStops: [], opacityStops: [] } }] }), (n) => n],
    ['a noise gradient overlay', (fx) => ({ ...fx, gradientOverlay: [{ enabled: true, present: true, gradient: { name: '', type: 'noise' } }] }), (n) => n],
    ['a pattern stroke', (fx) => ({ ...fx, stroke: { enabled: true, present: true, fillType: 'pattern', size: { units: 'Pixels', value: 2 } } }), (n) => n],
    ['a shadow in Hue mode', (fx) => ({ ...fx, dropShadow: [{ ...(fx.dropShadow as object[])[0], blendMode: 'hue' }] }), (n) => n],
    ['a colour overlay on a layer in Multiply (an interior effect outside Normal)', (fx) => fx, (n) => ({ ...n, blendMode: 'multiply' })],
    ['a mask that hides effects', (fx) => fx, (n) => ({ ...n, mask: { defaultColor: 255, disabled: false, hidesEffects: true } as LayerNode['mask'] })],
  ])('a layer with %s keeps the RGB path', async (_what, change, node) => {
    const name = 'made-aa-cmyk-effects.psd';
    const compiled = await compileTemplate(env.FILES, psds.get(name)!);
    expect(inkModels(name, compiled)).toBe(true);
    const layers = compiled.layers.map((n) => (n.name === 'tile' ? node({ ...n, effects: change({ ...(n.effects as Record<string, unknown>) }) as LayerNode['effects'] }) : n));
    expect(inkModels(name, { ...compiled, layers })).toBe(false);
  });

  it('a layer with effects composited strip by strip: the same inks as at once (the effects read the layer beyond the strip)', async () => {
    const name = 'made-aa-cmyk-effects.psd';
    const compiled = await compileTemplate(env.FILES, psds.get(name)!);
    expect(stripInks(name, compiled, [0, 3, 5, 9, 16])).toEqual(stripInks(name, compiled, [0, 16]));
  });

  it('every colour kind (outer glow, soft drop shadow, inner shadow and glow, satin, inner bevel, outside stroke) is composited in ink, strip by strip as at once', async () => {
    const name = 'made-aa-cmyk-effects.psd';
    const compiled = await compileTemplate(env.FILES, psds.get(name)!);
    const px = (value: number) => ({ units: 'Pixels', value });
    const colour = (r: number, g: number, b: number) => ({ r, g, b });
    const more = {
      outerGlow: { enabled: true, present: true, size: px(3), color: colour(255, 220, 0), blendMode: 'screen', opacity: 0.8 },
      innerShadow: { enabled: true, present: true, size: px(2), distance: px(2), angle: 120, useGlobalLight: false, color: colour(0, 0, 0), blendMode: 'multiply', opacity: 0.6 },
      innerGlow: { enabled: true, present: true, size: px(2), color: colour(255, 255, 255), blendMode: 'screen', opacity: 0.5 },
      satin: { enabled: true, present: true, size: px(3), distance: px(2), angle: 19, color: colour(0, 0, 128), blendMode: 'multiply', opacity: 0.5 },
      bevel: { enabled: true, present: true, style: 'inner bevel', size: px(3), strength: 1, soften: px(0), angle: 120, altitude: 30, useGlobalLight: false },
      stroke: [{ enabled: true, present: true, position: 'outside', fillType: 'color', size: px(2), color: colour(200, 0, 40), blendMode: 'normal', opacity: 1 }],
    };
    const withFx = (tree: CompiledTemplate, fx: object) => ({ ...tree, layers: tree.layers.map((n) => (n.name === 'tile' ? { ...n, effects: { ...(n.effects as object), ...fx } as LayerNode['effects'] } : n)) });
    const all = withFx(compiled, more);
    const whole = stripInks(name, all, [0, 16]);
    expect(stripInks(name, all, [0, 1, 4, 7, 11, 16])).toEqual(whole);
    expect(whole).not.toEqual(stripInks(name, compiled, [0, 16]));
  });

  it('a classic gradient overlay is interpolated on the stored inks: one whose stops are both a colour gives the inks of a colour overlay in it', async () => {
    const name = 'made-aa-cmyk-effects.psd';
    const compiled = await compileTemplate(env.FILES, psds.get(name)!);
    const colour = { r: 40, g: 170, b: 150 };
    const stop = (location: number) => ({ color: colour, location, midpoint: 0.5 });
    const opaque = (location: number) => ({ opacity: 1, location, midpoint: 0.5 });
    const gradient = { name: '', type: 'solid', colorStops: [stop(0), stop(1)], opacityStops: [opaque(0), opaque(1)] };
    const own = (compiled.layers.find((n) => n.name === 'tile')!.effects as { solidFill: object[] }).solidFill[0];
    const withFx = (fx: object) => ({ ...compiled, layers: compiled.layers.map((n) => (n.name === 'tile' ? { ...n, effects: fx as LayerNode['effects'] } : n)) });
    // The solid overlay second (the file's own first, off): neither takes the file's inks.
    const solid = withFx({ solidFill: [{ ...own, enabled: false }, { enabled: true, present: true, blendMode: 'normal', opacity: 0.6, color: colour }] });
    const ramp = withFx({ gradientOverlay: [{ enabled: true, present: true, blendMode: 'normal', opacity: 0.6, type: 'linear', angle: 90, gradient }] });
    expect(stripInks(name, ramp, [0, 6, 16])).toEqual(stripInks(name, solid, [0, 16]));
  });

  it.each(['normal', 'pass through'])('a %s group with a drop shadow: the effects drawn from its composite, the same inks as the layer at the group\'s opacity with the shadow', async (mode) => {
    const name = 'made-aa-cmyk-effects.psd';
    const compiled = await compileTemplate(env.FILES, psds.get(name)!);
    const tile = compiled.layers.find((n) => n.name === 'tile')!;
    const shadowOnly = { ...(tile.effects as object), solidFill: undefined } as LayerNode['effects'];
    const asLayer = { ...compiled, layers: compiled.layers.map((n) => (n === tile ? { ...n, effects: shadowOnly } : n)) };
    const group: LayerNode = { ...tile, id: 999, name: 'group', type: 'Group', blendMode: mode, effects: shadowOnly, children: [{ ...tile, opacity: 1, effects: undefined }] };
    const asGroup = { ...compiled, layers: compiled.layers.map((n) => (n === tile ? group : n)) };
    const inks = (tree: CompiledTemplate) => stripInks(name, tree, [0, 4, 9, 16]);
    const layer = inks(asLayer);
    expect(inks(asGroup)).toEqual(layer);
    expect(layer).not.toEqual(inks({ ...compiled, layers: compiled.layers.map((n) => (n === tile ? { ...n, effects: undefined } : n)) }));
  });

  it('a layer with effects as a clipping base: its shadow under the group, its overlay over what is clipped to it; with nothing showing through the clipped layer, the inks of the layer alone', async () => {
    const name = 'made-aa-cmyk-effects.psd';
    const compiled = await compileTemplate(env.FILES, psds.get(name)!);
    const ground = compiled.layers.find((n) => n.name === 'ground')!;
    const tile = compiled.layers.find((n) => n.name === 'tile')!;
    // The ground's pixels again, clipped to the tile, in Multiply (top first, as in the tree).
    const clippedAt = (opacity: number) => ({ ...compiled, layers: [{ ...ground, clipping: true, blendMode: 'multiply', opacity }, ...compiled.layers] });
    const inks = (tree: CompiledTemplate) => stripInks(name, tree, [0, 16]);
    const alone = inks(compiled);
    expect(inks(clippedAt(0))).toEqual(alone);
    const clipped = inks(clippedAt(0.5));
    expect(clipped).not.toEqual(alone);
    // Outside the tile (the shadow's rows below it) the clipped layer changes nothing.
    const row = 12 * 24 * 4;
    expect(clipped.slice(row, row + 24 * 4)).toEqual(alone.slice(row, row + 24 * 4));
    expect(tile.clipping).toBeFalsy();
  });

  it('print PDFs (no effect conversion given) keep a layer with effects on the fallback', async () => {
    const bytes = psds.get('made-aa-cmyk-effects.psd')!;
    const compiled = await compileTemplate(env.FILES, bytes);
    expect(inkLayers(bytes, compiled)!.models(new Map(), () => null)).toBe(false);
  });

  it('inkRender (the fidelity test\'s render of a CMYK document) gives the same pixels', async () => {
    const compiled = await compileTemplate(env.FILES, psds.get('made-cmyk8.psd')!);
    const image = (await inkRender(psds.get('made-cmyk8.psd')!, compiled))!;
    const { rgba } = await preview('made-cmyk8.psd');
    expect(Array.from(image.data)).toEqual(Array.from(rgba));
  });

  it('a merged transparency and an embedded profile: over white, the merged image (matted over paper, as Photoshop stores it)', async () => {
    for (const name of ['made-cmyk8-alpha.psd', 'made-cmyk8-icc.psd']) {
      const compiled = await compileTemplate(env.FILES, psds.get(name)!);
      const image = (await inkRender(psds.get(name)!, compiled))!;
      const stored = (await loadStoredComposite(env.FILES, compiled))!;
      const psnr = psnrOverWhite(image.data, stored, compiled.transparent);
      console.log(`CMYK-INK ${name} ${psnr.toFixed(2)} (RGB path ${(await rgbPsnr(name)).toFixed(2)})`);
      expect(psnr, name).toBeGreaterThanOrEqual(50);
      // A PNG keeps the composite's alpha: the merged transparency.
      const { rgba } = await preview(name);
      for (let p = 3; p < rgba.length; p += 4) expect(Math.abs(rgba[p] - stored[p]), `${name} alpha at ${p >> 2}`).toBeLessThanOrEqual(1);
    }
  });

  it('a JPEG preview over white: the merged image (its PSNR within JPEG\'s loss)', async () => {
    const store = new CountingStore(env.FILES);
    const prepared = await preparePreview(store, { template: `${FOLDER}/made-ink-stack.psd`, format: 'jpg', size: { width: 24, height: 16 }, jpegQuality: 100, unsharpMask: null }, renderDeps());
    const jpeg = await prepared.render();
    expect(jpeg.contentType).toBe('image/jpeg');
    expect(store.templateReads).toBe(1); // the ink path read the PSD
  });

  it('a repeated request without data returns the kept output\'s bytes (per format and quality): the bytes the template\'s frame codes to, the PSD not read, a copy each time', async () => {
    const name = 'made-z-cmyk-adjust-stack.psd';
    const request = (format: 'jpg' | 'png', jpegQuality = 85, store: InputStore = new FileStore(env.FILES), data?: PersonalisationData) =>
      preparePreview(store, { template: `${FOLDER}/${name}`, format, size: { width: 16, height: 11 }, jpegQuality, unsharpMask: { amount: 1.2, radius: 0.5, threshold: 0 }, data }, renderDeps()).then((p) => p.render());
    for (const [format, quality] of [['jpg', 85], ['jpg', 60], ['png', 85]] as const) {
      frameCache.clear();
      const first = await request(format, quality);
      const store = new CountingStore(env.FILES);
      const again = await request(format, quality, store);
      expect(store.templateReads).toBe(0);
      expect(again.contentType).toBe(first.contentType);
      expect(Array.from(again.bytes)).toEqual(Array.from(first.bytes));
      // The kept frame alone (kept by a personalised request, no coded bytes yet): coded, the same bytes.
      frameCache.clear();
      await request(format, quality, undefined, { patch: { visible: false } });
      expect(Array.from((await request(format, quality)).bytes)).toEqual(Array.from(first.bytes));
      // Each answer is the caller's: changing one leaves the kept bytes as they were.
      again.bytes.fill(0);
      expect(Array.from((await request(format, quality)).bytes)).toEqual(Array.from(first.bytes));
    }
    // Another quality is another entry, not the kept JPEG of the first.
    frameCache.clear();
    const q85 = await request('jpg', 85);
    expect(Array.from((await request('jpg', 60)).bytes)).not.toEqual(Array.from(q85.bytes));
  });

  it('shrinking: resized and sharpened from the full-size ink composite', async () => {
    const { rgba: full } = await preview('made-ink-stack.psd');
    const { rgba: half } = await preview('made-ink-stack.psd', { size: { width: 12, height: 8 }, unsharpMask: { amount: 0.5, radius: 1, threshold: 0 } });
    expect(half.length).toBe(12 * 8 * 4);
    // Each output pixel near the mean of the 2 × 2 full-size pixels it covers (Lanczos and the mask move it a little).
    let off = 0;
    for (let y = 0; y < 8; y++) {
      for (let x = 0; x < 12; x++) {
        for (let c = 0; c < 3; c++) {
          const at = (xx: number, yy: number) => full[(yy * 24 + xx) * 4 + c];
          const mean = (at(2 * x, 2 * y) + at(2 * x + 1, 2 * y) + at(2 * x, 2 * y + 1) + at(2 * x + 1, 2 * y + 1)) / 4;
          off += Math.abs(half[(y * 12 + x) * 4 + c] - mean);
        }
      }
    }
    expect(off / (12 * 8 * 3)).toBeLessThan(8);
  });

  it('falls back to the RGB path where the ink compositor reports a reach (a Threshold layer), unchanged; the PSD is not read again', async () => {
    const name = 'made-z-cmyk-threshold-fallback.psd';
    const { rgba, compiled } = await preview(name);
    const rgb = await renderTemplate(env.FILES, compiled, { scale: 1, background: 'transparent' });
    expect(Array.from(rgba)).toEqual(Array.from(rgb.data));
    const store = new CountingStore(env.FILES);
    const again = await preview(name, { data: { ground: { visible: false } } }, store);
    expect(store.templateReads).toBe(0);
    expect(again.rgba.length).toBe(rgba.length);
  });

  it.each([
    ['it and the ink strips would pass the request budget', 200 * 1024 * 1024],
    ['it is above INK_PREVIEW_MAX_PSD_BYTES (read again per personalised request)', INK_PREVIEW_MAX_PSD_BYTES + 1],
  ])('falls back without reading the PSD when %s', async (_why, size) => {
    class SizedStore extends CountingStore {
      override async head(root: Parameters<InputStore['head']>[0], name: string) {
        const file = await super.head(root, name);
        return file && root === 'templates' ? { ...file, size } : file;
      }
    }
    const store = new SizedStore(env.FILES);
    frameCache.clear(); // no kept ink frame (that one is taken without reading the PSD)
    const { rgba, compiled } = await preview('made-v-cmyk-modes.psd', {}, store);
    expect(store.templateReads).toBe(0);
    const rgb = await renderTemplate(env.FILES, compiled, { scale: 1, background: 'transparent' });
    expect(Array.from(rgba)).toEqual(Array.from(rgb.data));
  });

  it('a personalised recolour in cmyk(…) is composited in ink: its exact ink over the cyan below', async () => {
    const name = 'made-ink-edge.psd';
    const data: PersonalisationData = { mark: { type: 'shape', color: 'cmyk(0,0,0,100)' } };
    const inked = await preview(name, { data });
    const plain = await preview(name);
    let changed = 0;
    for (let p = 0; p < plain.rgba.length; p += 4) if (plain.rgba[p] !== inked.rgba[p]) changed++;
    expect(changed).toBeGreaterThan(20);
  });

  it('a personalised text in cmyk(0,0,0,100) on a layer at 50 % opacity: composited in ink, its covered pixels half K over the ground', async () => {
    const name = 'made-v-cmyk-text.psd';
    const store = new CountingStore(env.FILES);
    const data: PersonalisationData = { Title: { type: 'text', text: 'HI', color: 'cmyk(0,0,0,100)' } };
    const { rgba, compiled } = await preview(name, { data }, store);
    expect(store.templateReads).toBe(1); // the ink path read the PSD
    const doc = inkDocument(psds.get(name)!, compiled)!;
    // The ground's stored ink (make-v.mjs), and K at 128/255 over it, as Photoshop blends stored values.
    const ground = (c: number, x: number) => 255 - Math.round(255 * [0.9 - x * 0.012, 0.05 + x * 0.012, 0.1, 0.05][c]);
    const a = 128 / 255;
    let covered = 0;
    let rgbApart = 0;
    const plain = await preview(name);
    for (let y = 4; y < 28; y++) {
      for (let x = 4; x < 60; x++) {
        const stored = Uint8Array.from([0, 1, 2, 3], (c) => Math.round(a * (c === 3 ? 0 : 255) + (1 - a) * ground(c, x)));
        const want = new Uint8Array(4);
        doc.toSrgb.apply(stored, want, 1);
        const p = (y * 64 + x) * 4;
        if ([0, 1, 2].every((c) => Math.abs(rgba[p + c] - want[c]) <= 1)) covered++;
        if (plain.rgba[p] !== rgba[p]) rgbApart++;
      }
    }
    // "HI" at the layer's 20 px: its stems' inner pixels are fully covered.
    expect(covered).toBeGreaterThan(20);
    expect(rgbApart).toBeGreaterThan(covered);
  });

  it.each<[string, PersonalisationData]>([
    ['made-v-cmyk-text.psd', { Title: { type: 'text', text: 'HO', color: 'cmyk(0,0,0,100)' } }],
    // Under the adjustments (the patch their tables reach) and one adjustment itself (the whole canvas).
    ['made-z-cmyk-adjust-stack.psd', { patch: { visible: false } }],
    ['made-z-cmyk-adjust-stack.psd', { levels: { visible: false } }],
  ])('a personalised frame of %s redraws only what its overrides reach over the kept template frame: the same pixels as drawing it all (%o)', async (name, data) => {
    const { width: W, height: H } = await compileTemplate(env.FILES, psds.get(name)!);
    const cases: Array<Partial<PreviewOptions>> = [{}, { size: { width: Math.round(W * 0.6), height: Math.round(H * 0.6) }, unsharpMask: { amount: 1.2, radius: 0.5, threshold: 0 } }];
    for (const options of cases) {
      frameCache.clear();
      await preview(name, options); // the template's frame, kept
      const over = await preview(name, { ...options, data });
      // The same request drawn whole (no kept frame), from the same overrides.
      const request = await resolveRequest(new FileStore(env.FILES), { template: `${FOLDER}/${name}`, data }, renderDeps());
      const overrides = (await personalise(request, { scale: 1, report: () => {} }))!;
      const doc = inkDocument(psds.get(name)!, over.compiled)!;
      const size = options.size ?? { width: W, height: H };
      const s = Math.min(size.width / W, size.height / H);
      const whole = await inkFrame(doc, over.compiled, {
        width: Math.round(W * s),
        height: Math.round(H * s),
        quality: 'high',
        sharpen: s < 1 ? (options.unsharpMask ?? null) : null,
        background: 'transparent',
        overrides,
        content: documentInks(doc, data),
        keep: false,
      });
      expect(Array.from(over.rgba)).toEqual(Array.from(whole.data));
      if (!data.Title) expect(Array.from(over.rgba)).not.toEqual(Array.from((await preview(name, options)).rgba));
    }
  });

  it('a document above INK_PREVIEW_MAX_PIXELS is not read at preview time: the RGB path', async () => {
    const side = Math.ceil(Math.sqrt(INK_PREVIEW_MAX_PIXELS)) + 1;
    const bytes = flatCmykPsd(side, side);
    const res = await upload('templates', [['big-cmyk.psd', bytes]], `?destination=${FOLDER}&overwrite=true`);
    expect(res.status).toBe(201);
    const store = new CountingStore(env.FILES);
    const prepared = await preparePreview(store, { template: `${FOLDER}/big-cmyk.psd`, format: 'jpg', size: { width: 200, height: 200 }, jpegQuality: 80, unsharpMask: null }, renderDeps());
    await prepared.render();
    expect(store.templateReads).toBe(0);
  });
});

/** A flat 8-bit CMYK document (no layers), one ink everywhere, its merged image RLE. */
function flatCmykPsd(width: number, height: number): Uint8Array {
  const out: number[] = [];
  const u16 = (v: number) => out.push(v >> 8, v & 255);
  const u32 = (v: number) => out.push(v >>> 24, (v >>> 16) & 255, (v >>> 8) & 255, v & 255);
  out.push(...Array.from('8BPS', (c) => c.charCodeAt(0)));
  u16(1);
  out.push(0, 0, 0, 0, 0, 0);
  u16(4);
  u32(height);
  u32(width);
  u16(8);
  u16(4);
  u32(0);
  u32(0);
  u32(0);
  u16(1); // RLE
  // A row of one value: runs of 128 (PackBits: -127 then the byte), the rest as one run.
  const row: number[] = [];
  for (let left = width; left > 0; left -= 128) row.push(257 - Math.min(128, left), 200);
  for (let i = 0; i < 4 * height; i++) u16(row.length);
  const bytes = new Uint8Array(out.length + 4 * height * row.length);
  bytes.set(out);
  for (let i = 0, at = out.length; i < 4 * height; i++, at += row.length) bytes.set(row, at);
  return bytes;
}
