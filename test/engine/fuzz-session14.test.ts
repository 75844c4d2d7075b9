import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { walkLayers } from '../../src/engine';
import { adjustmentMaskCache, clearEngineCaches, makeRoom, MB, resampledLayerCache } from '../../src/engine/cache';
import { useBoxedAdjustments } from '../../src/engine/composite/compositor';
import { UrlImages } from '../../src/engine/inputs';
import { preparePreview } from '../../src/engine/preview';
import { encodeJpeg, encodePng } from '../../src/engine/raster/codecs';
import type { LayerNode, RGBAImage } from '../../src/engine/types';
import { FileStore } from '../../src/dynamic-image/store';
import { upload, uploadFixture } from '../dynamic-image/helpers';
import { bundledFont, madeFixture } from '../helpers/fixtures';
import { firstDifference } from '../helpers/pixels';
import { random, type Random } from './composite/kit';

/**
 * Session 14 (robust4): the personalised preview's new caches and fast paths give the bytes of a
 * render from empty caches. Every public fixture template, personalised previews at one or two sizes
 * (200-800 px) with a random text for a text layer, a random picture (JPEG or PNG with alpha,
 * 3-1400 px, any aspect, fit or fill) for a picture layer, now and then a layer shown or hidden
 * or a shape recoloured, rendered cold (clearEngineCaches before each) and warm:
 * after every other request filled the caches (adjustment masks, resampled layers, backdrops,
 * placements, frames) and with makeRoom evicting the least recently used entries between requests,
 * in another order. Then the adjustment files with the boxed adjustments off (useBoxedAdjustments),
 * and every other made file and the five largest public ones rendered two at a time while an
 * evictor calls makeRoom at every microtask and timer turn (entries lent to a running render).
 */

const TEMPLATES = [
  'agpsd-effects.psd', 'agpsd-groups.psd', 'agpsd-layer-mask.psd', 'agpsd-shapes-smart-objects.psd', 'agpsd-text-bug-1920.psd',
  'oovpsd-nested-groups.psd', 'pillow-hopper-photo.psd', 'psapi-text-character-styles.psd', 'psapi-text-paragraph.psd',
  'psdrb-example-design.psd', 'psdtools-adjust-curves.psd', 'psdtools-adjust-hue-saturation.psd', 'psdtools-blend-color-dodge.psd',
  'psdtools-blend-hue.psd', 'psdtools-blend-multiply.psd', 'psdtools-blend-overlay.psd', 'psdtools-blend-screen.psd',
  'psdtools-blend-soft-light.psd', 'psdtools-clipping-mask.psd', 'psdtools-fx-stroke-composite.psd', 'psdtools-group-pass-through.psd',
  'psdtools-layer-effects-all.psd', 'psdtools-passthrough-fill-layer.psd', 'psdtools-raster-mask.psd',
  'psdtools-semi-transparent-layers.psd', 'psdtools-smart-objects-placed.psd', 'psdtools-text.psd', 'psdtools-transparency-group.psd',
  'webtoon-mobile-ui-example.psd', 'agpsd-shapes-psb.psb',
];

function picture(r: Random, w: number, h: number, alpha: boolean): RGBAImage {
  const data = new Uint8ClampedArray(w * h * 4);
  const [fx, fy] = [1 + r.int(90), 1 + r.int(90)];
  const c = [r.int(256), r.int(256), r.int(256)];
  for (let y = 0, i = 0; y < h; y++) {
    for (let x = 0; x < w; x++, i += 4) {
      data[i] = 128 + 120 * Math.sin(x / fx);
      data[i + 1] = ((x + y) * 3) & 255;
      data[i + 2] = ((x >> 3) + (y >> 3)) & 1 ? c[2]! : 200 * Math.abs(Math.cos(y / fy));
      data[i + 3] = !alpha ? 255 : (x * 5 + y) % 11 === 0 ? 0 : x < w / 4 ? 128 : 255;
    }
  }
  return { width: w, height: h, data };
}

const LARGEST = ['psdtools-layer-effects-all.psd', 'psdrb-example-design.psd', 'agpsd-text-bug-1920.psd', 'psdtools-adjust-hue-saturation.psd', 'psdtools-adjust-curves.psd'];

const MADE = [
  'made-aa-cmyk-effects.psd', 'made-ab-gradient-span.psd', 'made-ac-stroke-modes.psd', 'made-adjust-brightness-contrast.psd',
  'made-adjust-color-balance.psd', 'made-adjust-color-lookup.psd', 'made-adjust-gradient-map-methods.psd', 'made-adjust-hue-saturation.psd',
  'made-adjust-posterize-bins.psd', 'made-adjust-posterize.psd', 'made-adjust-selective-color.psd', 'made-adjust-threshold-grey.psd',
  'made-adjust-threshold.psd', 'made-adjust-vibrance.psd', 'made-ae-ink-shadow.psd', 'made-af-photo-filter.psd',
  'made-ag-legacy-brightness-contrast.psd', 'made-ag-tone.psd', 'made-ah-clip-soft-base.psd', 'made-ah-special-eight-measured.psd',
  'made-ai-glow-gradient.psd', 'made-aj-gradient-angle.psd', 'made-aj-gradient-fill.psd', 'made-ak-mask-feather-beyond.psd',
  'made-bitmap1.psd', 'made-blend-clipped-apart.psd', 'made-blend-hard-mix.psd', 'made-blend-if-channels.psd',
  'made-blend-mode-edges.psd', 'made-blend-vivid-light.psd', 'made-clip-combos.psd', 'made-clipped-adjustment.psd',
  'made-cmyk-adjust-invert.psd', 'made-cmyk-adjust-levels.psd', 'made-cmyk16.psd', 'made-cmyk8-alpha.psd',
  'made-cmyk8-icc.psd', 'made-cmyk8.psd', 'made-fill-special-eight.psd', 'made-fx-bevel-gloss.psd',
  'made-fx-glow-precise.psd', 'made-fx-gradient-methods-flat.psd', 'made-fx-gradient-methods.psd', 'made-fx-gradient-smoothness.psd',
  'made-fx-pattern.psd', 'made-fx-s-soft-edge-strokes.psd', 'made-fx-stroke-gradient-methods.psd', 'made-fx-stroke-gradient.psd',
  'made-fx-stroke-multi-fill0.psd', 'made-fx-stroke-position.psd', 'made-gray16.psb', 'made-gray16.psd',
  'made-gray8.psd', 'made-indexed8.psd', 'made-ink-alpha.psd', 'made-ink-clipped-fallback.psd',
  'made-ink-edge.psd', 'made-ink-fallback.psd', 'made-ink-multiply.psd', 'made-ink-shape.psd',
  'made-ink-stack.psd', 'made-ink-zip.psd', 'made-knockout-deep.psd', 'made-knockout-group-base.psd',
  'made-knockout-shallow.psd', 'made-layer-comps.psd', 'made-mask-density.psd', 'made-mask-hides-effects.psd',
  'made-nested-adjustments.psd', 'made-passthrough-fill-adjust.psd', 'made-passthrough-group-mask.psd', 'made-psb-group-mask-white.psb',
  'made-rgb16.psd', 'made-spot-cmyk16.psd', 'made-spot-cmyk8.psd', 'made-spot-rgb8.psd',
  'made-transparency-shapes-off.psd', 'made-u-posterize16.psd', 'made-u-threshold16.psd', 'made-v-cmyk-modes.psd',
  'made-v-cmyk-nonsep.psd', 'made-v-cmyk-text.psd', 'made-vector-mask-density.psd', 'made-vector-mask-feather.psd',
  'made-x-gray32.psd', 'made-x-lab16.psd', 'made-x-lab8.psd', 'made-x-multichannel16.psd',
  'made-x-rgb32.psd', 'made-y-gradient-strokes.psd', 'made-z-cmyk-adjust-stack.psd', 'made-z-cmyk-threshold-fallback.psd',
  'made-z-cmyk16-posterize.psd',
];

const TEXTS = ['Hello', 'Ünïcødé — 123', 'A much longer line of text that will need to wrap or shrink somewhere', 'x', 'Jumpy gq', '  spaced  out  '];

interface Request { label: string; template: string; size: number; data: Record<string, unknown> }

/** A request personalising up to one text layer and one picture layer (names unique in the tree). */
async function requestFor(r: Random, template: string, tree: LayerNode[], size: number, n: number): Promise<Request> {
  const nodes = [...walkLayers(tree)];
  const count = new Map<string, number>();
  for (const node of nodes) count.set(node.name, (count.get(node.name) ?? 0) + 1);
  const unique = nodes.filter((node) => count.get(node.name) === 1 && node.name.trim());
  const texts = unique.filter((node) => node.type === 'Text');
  const pictures = unique.filter((node) => node.type === 'Image' || node.type === 'SmartObject');
  const data: Record<string, unknown> = {};
  if (texts.length) data[r.pick(texts).name] = { type: 'text', text: r.pick(TEXTS) };
  if (pictures.length && (r.chance(0.8) || !texts.length)) {
    const [w, h] = r.pick([[3 + r.int(60), 3 + r.int(60)], [200 + r.int(1200), 100 + r.int(600)], [100 + r.int(300), 400 + r.int(1000)]]);
    const alpha = r.chance(0.3);
    const img = picture(r, w!, h!, alpha);
    const name = `fz14-${n}.${alpha ? 'png' : 'jpg'}`;
    const bytes = alpha ? await encodePng(img) : await encodeJpeg(img, r.pick([60, 85, 95]));
    const res = await upload('images', [[name, bytes]], '?overwrite=true');
    if (res.status !== 201) throw new Error(`upload ${name}: ${res.status} ${await res.text()}`);
    data[r.pick(pictures).name] = { type: 'image', image: name, resizeMode: r.pick(['fill', 'fit']) };
  }
  // Now and then a layer shown or hidden (adjustments and groups too) and a shape recoloured: the
  // caches' entries for the layers under and over them must not be taken for another tree's.
  const others = unique.filter((node) => !(node.name in data));
  if (others.length && r.chance(0.4)) {
    const node = r.pick(others);
    data[node.name] = { type: 'visibility', visible: !node.visible };
  }
  const shapes = unique.filter((node) => node.type === 'Shape' && !(node.name in data));
  if (shapes.length && r.chance(0.4)) data[r.pick(shapes).name] = { type: 'shape', color: r.pick(['#ff0000', '#00ff00', '#123456']) };
  return { label: `${template} ${size}px ${JSON.stringify(data)}`, template, size, data };
}

const deps = { urlImages: new UrlImages(async () => { throw new Error('no URL images'); }) };

/** The preview's bytes, or the message it throws. */
async function render(store: FileStore, names: Map<string, string>, q: Request): Promise<Uint8Array | string> {
  try {
    const prepared = await preparePreview(store, {
      template: names.get(q.template)!, format: 'jpg', jpegQuality: 90, unsharpMask: { amount: 1.2, radius: 0.5, threshold: 0.05 },
      size: { width: q.size, height: q.size }, data: q.data,
    } as never, deps);
    return (await prepared.render()).bytes;
  } catch (e) {
    return `threw ${String(e)}`;
  }
}

const same = (a: Uint8Array | string, b: Uint8Array | string) => (typeof a === 'string' || typeof b === 'string' ? a === b : firstDifference(a, b) === -1);

describe('session 14: personalised previews, warm caches vs cold', () => {
  beforeAll(async () => {
    const fonts = await Promise.all(['LiberationSans-Regular.ttf', 'DejaVuSans.ttf'].map(async (f) => [f, await bundledFont(f)] as [string, Uint8Array]));
    expect((await upload('fonts', fonts, '?overwrite=true')).status).toBe(201);
  });

  it('every public template at one or two sizes: warm (other templates cached, makeRoom evicting) = cold', { timeout: 240_000 }, async () => {
    const store = new FileStore(env.FILES);
    const names = new Map<string, string>();
    const requests: Request[] = [];
    let n = 0;
    for (const [t, template] of TEMPLATES.entries()) {
      names.set(template, await uploadFixture(template, 'fuzz14'));
      const r = random(0x5e5514 + t);
      const prepared = await preparePreview(store, { template: names.get(template)!, format: 'jpg', size: { width: 100, height: 100 } } as never, deps);
      const tree = prepared.template.compiled.layers;
      for (const size of t % 3 ? [r.pick([200, 320, 480, 800])] : [r.pick([200, 320, 480]), 800]) requests.push(await requestFor(r, template, tree, size, n++));
    }
    const cold: (Uint8Array | string)[] = [];
    for (const q of requests) {
      clearEngineCaches();
      cold.push(await render(store, names, q));
    }
    const differ: string[] = [];
    const threw = cold.flatMap((c, i) => (typeof c === 'string' ? [`${requests[i]!.label}: ${c}`] : []));
    // Warm: in order (each after the others filled the caches), then backwards with evictions between.
    for (const [i, q] of requests.entries()) if (!same(await render(store, names, q), cold[i]!)) differ.push(`warm: ${q.label}`);
    const r = random(14);
    for (let i = requests.length - 1; i >= 0; i--) {
      makeRoom(r.pick([8, 24, 40, 56, 64]) * MB);
      const q = requests[i]!;
      if (!same(await render(store, names, q), cold[i]!)) differ.push(`after makeRoom: ${q.label}`);
    }
    expect(differ).toEqual([]);
    expect(threw).toEqual([]);
    expect([adjustmentMaskCache.hits > 0, resampledLayerCache.hits > 0]).toEqual([true, true]);
  });

  it('the adjustment files: boxed adjustments = the whole clone, cold and warm', { timeout: 120_000 }, async () => {
    const store = new FileStore(env.FILES);
    const names = new Map<string, string>();
    const differ: string[] = [];
    for (const [t, template] of ['psdtools-adjust-curves.psd', 'psdtools-adjust-hue-saturation.psd'].entries()) {
      names.set(template, await uploadFixture(template, 'fuzz14'));
      const prepared = await preparePreview(store, { template: names.get(template)!, format: 'jpg', size: { width: 100, height: 100 } } as never, deps);
      const r = random(0x14ad + t);
      for (let k = 0; k < 3; k++) {
        const q = await requestFor(r, template, prepared.template.compiled.layers, r.pick([160, 400, 800]), 1000 + 10 * t + k);
        useBoxedAdjustments(false);
        clearEngineCaches();
        let want: Uint8Array | string;
        try {
          want = await render(store, names, q);
        } finally {
          useBoxedAdjustments(true);
        }
        for (const pass of ['cold', 'warm']) {
          if (pass === 'cold') clearEngineCaches();
          if (!same(await render(store, names, q), want)) differ.push(`${pass}: ${q.label}`);
        }
      }
    }
    expect(differ).toEqual([]);
  });

  it('made files (and the five largest public ones) rendered two at a time while makeRoom empties the caches mid-render = cold', { timeout: 240_000 }, async () => {
    const store = new FileStore(env.FILES);
    const names = new Map<string, string>();
    const requests: Request[] = [];
    let n = 2000;
    const r = random(0x14c0de);
    for (const file of MADE.filter((_, i) => i % 2 === 0)) {
      const res = await upload('templates', [[file, await madeFixture(file)]], '?destination=fuzz14made&overwrite=true');
      if (res.status !== 201) throw new Error(`upload ${file}: ${res.status} ${await res.text()}`);
      names.set(file, ((await res.json()) as string[])[0]!);
      const prepared = await preparePreview(store, { template: names.get(file)!, format: 'jpg', size: { width: 100, height: 100 } } as never, deps);
      requests.push(await requestFor(r, file, prepared.template.compiled.layers, r.pick([120, 200, 333, 480]), n++));
    }
    for (const file of LARGEST) {
      names.set(file, await uploadFixture(file, 'fuzz14'));
      const prepared = await preparePreview(store, { template: names.get(file)!, format: 'jpg', size: { width: 100, height: 100 } } as never, deps);
      requests.push(await requestFor(r, file, prepared.template.compiled.layers, 800, n++));
    }
    const cold: (Uint8Array | string)[] = [];
    for (const q of requests) {
      clearEngineCaches();
      cold.push(await render(store, names, q));
    }
    const differ: string[] = [];
    for (const [i, q] of requests.entries()) if (!same(await render(store, names, q), cold[i]!)) differ.push(`warm: ${q.label}`);
    // Two renders at once (sharing the caches' entries) while an evictor empties the caches at every turn.
    let evictions = 0;
    for (let i = 0; i + 1 < requests.length; i += 2) {
      let running = true;
      const evictor = (async () => {
        while (running) {
          // At every microtask turn for a while (between a render's awaits), then a timer turn (its reads).
          for (let k = 0; k < 30 && running; k++) {
            makeRoom(r.pick([40, 64]) * MB);
            evictions++;
            await null;
          }
          await new Promise((done) => setTimeout(done, 0));
        }
      })();
      const [a, b] = await Promise.all([render(store, names, requests[i]!), render(store, names, requests[i + 1]!)]);
      running = false;
      await evictor;
      if (!same(a, cold[i]!)) differ.push(`racing makeRoom: ${requests[i]!.label}`);
      if (!same(b, cold[i + 1]!)) differ.push(`racing makeRoom: ${requests[i + 1]!.label}`);
    }
    const threw = cold.flatMap((c, i) => (typeof c === 'string' ? [`${requests[i]!.label}: ${c}`] : []));
    expect(differ).toEqual([]);
    expect(threw).toEqual([]);
    expect(evictions).toBeGreaterThan(requests.length);
  });
});
