/**
 * Review of decodewin (fc6df37, c6f6b1a, 84c6c6f): every picture layer of every fixture given the
 * same stored photo (EXIF-turned, so its decode is k/8 or whole and windowed per placement) in one
 * request, 'fill' or 'fit', at two preview sizes: two layers naming one picture, rotated, skewed
 * or masked ones among them. Run with the hashes printed, the 80 renders had the same bytes here
 * as at 2e20e81 (no window); here it holds that every request renders (a placement reading outside
 * its picture's window throws) and that the two pictures give other bytes.
 */
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { resolveTemplate } from '../../src/engine/preview';
import { encodeJpeg } from '../../src/engine/raster/codecs';
import type { LayerNode } from '../../src/engine/types';
import { FileStore } from '../../src/dynamic-image/store';
import { call, form, postJson, uploadFixture, withKey } from './helpers';
import { noiseImage, withOrientation } from '../engine/raster/helpers';

const FOLDER = 'every-layer-review';
const FIXTURES = [
  'agpsd-shapes-smart-objects.psd',
  'psdtools-smart-objects-placed.psd',
  'psdrb-example-design.psd',
  'psdtools-layer-effects-all.psd',
  'agpsd-layer-mask.psd',
  'psdtools-clipping-mask.psd',
  'psdtools-raster-mask.psd',
  'webtoon-mobile-ui-example.psd',
  'pillow-hopper-photo.psd',
  'agpsd-groups.psd',
];

const hex = async (bytes: ArrayBuffer) => [...new Uint8Array(await crypto.subtle.digest('SHA-256', bytes))].map((b) => b.toString(16).padStart(2, '0')).join('').slice(0, 16);

const pictureLayers = (nodes: LayerNode[]): string[] =>
  nodes.flatMap((n) => [...(n.type === 'Image' || n.type === 'SmartObject' ? [n.name] : []), ...pictureLayers((n as { children?: LayerNode[] }).children ?? [])]);

const templates = new Map<string, string[]>();

beforeAll(async () => {
  for (const [name, orientation] of [['turned.jpg', 6], ['mirrored.jpg', 3]] as const) {
    const bytes = withOrientation(await encodeJpeg(noiseImage(640, 480, orientation, 'opaque'), 85, { subsampling: 2 }), orientation);
    const res = await call(`/api/resources/images?destination=${FOLDER}&overwrite=true`, withKey({ method: 'POST', body: form([[name, bytes]]) }));
    if (res.status !== 201) throw new Error(`upload ${name}: ${res.status}`);
  }
  for (const fixture of FIXTURES) {
    const name = await uploadFixture(fixture, FOLDER);
    const { compiled } = await resolveTemplate(new FileStore(env.FILES), name);
    templates.set(name, [...new Set(pictureLayers(compiled.layers))]);
  }
}, 120_000);

describe('every picture layer of a template given one windowed picture (review)', () => {
  it('renders every template with it, fill and fit, at two sizes', async () => {
    const hashes: string[] = [];
    let layers = 0;
    for (const [template, names] of templates) {
      if (!names.length) continue;
      layers += names.length;
      for (const [i, image] of [`${FOLDER}/turned.jpg`, `${FOLDER}/mirrored.jpg`].entries()) {
        for (const resizeMode of ['fill', 'fit'] as const) {
          for (const width of [400, 800]) {
            const data = Object.fromEntries(names.map((layer) => [layer, { type: 'image', image, resizeMode }]));
            const res = await postJson('/api/rendering/preview?disableCache=true', { template, format: 'png', size: { width, height: width }, data });
            const text = await res.text();
            const label = `${template} ${i} ${resizeMode} ${width}`;
            expect(res.status, `${label}: ${text}`).toBe(200);
            const url = JSON.parse(text) as string;
            hashes.push(`${label} ${await hex(await (await call(new URL(url).pathname)).arrayBuffer())}`);
          }
        }
      }
    }
    expect(layers).toBeGreaterThan(10);
    // Each render's bytes (after its label) differ between the two pictures.
    const bytesOf = (picture: number) => hashes.filter((h) => h.split(' ')[1] === String(picture)).map((h) => h.split(' ').pop());
    expect(bytesOf(0).some((h, i) => h !== bytesOf(1)[i])).toBe(true);
  }, 300_000);
});
