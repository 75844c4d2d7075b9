import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { walkLayers } from '../../src/engine';
import { clearEngineCaches, makeRoom, MB } from '../../src/engine/cache';
import { useBoxedAdjustments } from '../../src/engine/composite/compositor';
import { UrlImages } from '../../src/engine/inputs';
import { preparePreview } from '../../src/engine/preview';
import { encodeJpeg, encodePng } from '../../src/engine/raster/codecs';
import type { LayerNode, RGBAImage } from '../../src/engine/types';
import { FileStore } from '../../src/dynamic-image/store';
import { upload, uploadFixture } from '../dynamic-image/helpers';
import { bundledFont } from '../helpers/fixtures';
import { firstDifference } from '../helpers/pixels';
import { random, type Random } from './composite/kit';

/**
 * Session 14 (robust4): the personalised preview's new caches and fast paths give the bytes of a
 * render from empty caches. Every public fixture template, personalised previews at two sizes with
 * a random text for a text layer and a random picture (JPEG or PNG with alpha, 3-1400 px, any
 * aspect, fit or fill) for a picture layer, rendered cold (clearEngineCaches before each) and warm:
 * after every other request filled the caches (adjustment masks, resampled layers, backdrops,
 * placements, frames) and with makeRoom evicting the least recently used entries between requests,
 * in another order. Then the adjustment files with the boxed adjustments off (useBoxedAdjustments).
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
  it('every public template at two sizes: warm (other templates cached, makeRoom evicting) = cold', { timeout: 240_000 }, async () => {
    const store = new FileStore(env.FILES);
    const fonts = await Promise.all(['LiberationSans-Regular.ttf', 'DejaVuSans.ttf'].map(async (f) => [f, await bundledFont(f)] as [string, Uint8Array]));
    expect((await upload('fonts', fonts, '?overwrite=true')).status).toBe(201);
    const names = new Map<string, string>();
    const requests: Request[] = [];
    let n = 0;
    for (const [t, template] of TEMPLATES.entries()) {
      names.set(template, await uploadFixture(template, 'fuzz14'));
      const r = random(0x5e5514 + t);
      const prepared = await preparePreview(store, { template: names.get(template)!, format: 'jpg', size: { width: 100, height: 100 } } as never, deps);
      const tree = prepared.template.compiled.layers;
      for (const size of [r.pick([200, 320, 480]), 800]) requests.push(await requestFor(r, template, tree, size, n++));
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
});
