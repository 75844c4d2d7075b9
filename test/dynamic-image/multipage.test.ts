import { beforeAll, describe, expect, it } from 'vitest';
import { sniffImage } from '../../src/engine/raster/sniff';
import { runTool } from '../helpers/fixtures';
import { pdfInfo, rasterise } from '../engine/pdf/helpers';
import { call, form, keys, postJson, uploadFixture, withKey } from './helpers';

const URL_RE = /^http:\/\/localhost\/api\/results\/download\/(\d{10}-[0-9a-f]{32}\.(pdf|jpg|png))$/;

async function multipage(kind: 'preview' | 'hires', body: unknown, query = ''): Promise<{ status: number; names: string[]; body: any }> {
  const res = await postJson(`/api/rendering/multipage/${kind}${query}`, body);
  const json = (await res.json()) as any;
  if (res.status !== 200) return { status: res.status, names: [], body: json };
  const names = (json.results as Array<{ url: string }>).map(({ url }) => {
    const m = URL_RE.exec(url);
    expect(m, url).not.toBeNull();
    return m![1];
  });
  return { status: 200, names, body: json };
}

async function bytesOf(name: string): Promise<Uint8Array> {
  const res = await call(`/api/results/download/${name}`);
  expect(res.status).toBe(200);
  return new Uint8Array(await res.arrayBuffer());
}

/** Pixel size of each page of a PDF rendered at 72 dpi (= points). */
async function pageSizes(pdf: Uint8Array, count: number): Promise<Array<[number, number]>> {
  const sizes: Array<[number, number]> = [];
  for (let p = 1; p <= count; p++) {
    const [img] = await rasterise(pdf, { r: 72, page: p });
    sizes.push([img.width, img.height]);
  }
  return sizes;
}

// Stored names (test cases are listed before beforeAll runs).
const square = 'mp/psdtools-blend-multiply.psd'; // 64×64 at 72 ppi
const tall = 'mp/psdtools-raster-mask.psd'; // 100×150 at 72 ppi
const text = 'mp/psdtools-text.psd'; // 400×400

beforeAll(async () => {
  for (const name of [square, tall, text]) expect(await uploadFixture(name.slice(3), 'mp')).toBe(name);
});

describe('POST /api/rendering/multipage/preview', () => {
  it('returns one image result per page, in page order', async () => {
    const r = await multipage('preview', {
      pages: [
        { template: tall, size: { width: 150, height: 150 } },
        { template: square, format: 'png', size: { width: 32, height: 32 } },
      ],
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.names).toHaveLength(2);
    const sizes = await Promise.all(r.names.map(async (n) => sniffImage(await bytesOf(n))));
    expect(sizes.map((s) => [s!.format, s!.width, s!.height])).toEqual([
      ['jpeg', 100, 150],
      ['png', 32, 32],
    ]);
  });

  it('pages are cached like single previews; disableCache renders anew', async () => {
    const body = { pages: [{ template: square, size: { width: 20, height: 20 } }] };
    const single = await postJson('/api/rendering/preview', body.pages[0]);
    const a = await multipage('preview', body);
    expect(a.names[0]).toBe(/[^/]+$/.exec((await single.json()) as string)![0]);
    expect((await multipage('preview', body, '?disableCache=true')).names[0]).not.toBe(a.names[0]);
  });
});

describe('POST /api/rendering/multipage/hires', () => {
  it('combine (the default) gives one PDF whose pages follow `pages`, each at its own size', async () => {
    const r = await multipage('hires', { pages: [{ template: tall }, { template: square }, { template: tall }] });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.names).toHaveLength(1);
    const pdf = await bytesOf(r.names[0]);
    expect((await runTool('qpdf-check', pdf)).code).toBe(0);
    expect(pdfInfo((await runTool('pdfinfo', pdf)).stdout).pages).toBe(3);
    expect(await pageSizes(pdf, 3)).toEqual([
      [100, 150],
      [64, 64],
      [100, 150],
    ]);
  });

  it('combine=false gives one single-page PDF per page, in order', async () => {
    const r = await multipage('hires', { combine: false, pages: [{ template: square }, { template: tall }] });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.names).toHaveLength(2);
    const sizes = [];
    for (const name of r.names) {
      const pdf = await bytesOf(name);
      expect(pdfInfo((await runTool('pdfinfo', pdf)).stdout).pages).toBe(1);
      sizes.push(...(await pageSizes(pdf, 1)));
    }
    expect(sizes).toEqual([
      [64, 64],
      [100, 150],
    ]);
  });

  it('a combined PDF is cached as a whole; combine=false pages share the single /hires cache', async () => {
    const body = { pages: [{ template: square }, { template: tall }] };
    const a = await multipage('hires', body);
    expect((await multipage('hires', body)).names).toEqual(a.names);
    expect((await multipage('hires', body, '?disableCache=true')).names).not.toEqual(a.names);
    const single = await postJson('/api/rendering/hires', { template: square });
    const split = await multipage('hires', { ...body, combine: 'False' });
    expect(split.names[0]).toBe(/[^/]+$/.exec((await single.json()) as string)![0]);
  });
});

describe('a failing page fails the whole request', () => {
  const cases: Array<[string, 'preview' | 'hires', Record<string, unknown>, string]> = [
    ['preview: data naming a layer the template lacks', 'preview', { pages: [{ template: square }, { template: text }, { template: text, data: { Title: { type: 'text', text: 'x' } } }] }, 'pages[2].data.Title'],
    ['hires: data naming a layer the template lacks', 'hires', { pages: [{ template: square }, { template: text }, { template: text, data: { Title: { type: 'text', text: 'x' } } }] }, 'pages[2].data.Title'],
    ['hires combine=false: data naming a layer the template lacks', 'hires', { combine: false, pages: [{ template: square }, { template: text, data: { Title: { type: 'text', text: 'x' } } }] }, 'pages[1].data.Title'],
    ['hires: an invalid page field', 'hires', { pages: [{ template: square }, { template: square, textOutputMode: 'nope' }] }, 'pages[1].textOutputMode'],
    ['preview: an invalid page field', 'preview', { pages: [{ template: square }, { template: square, format: 'gif' }] }, 'pages[1].format'],
  ];
  for (const [title, kind, body, path] of cases) {
    it(`${title} → 4xx with ${path}, and no results stay behind`, async () => {
      const before = await keys();
      const r = await multipage(kind, body, '?disableCache=true');
      expect(r.status).toBe(400);
      expect(r.body.details.map((d: { path: string }) => d.path)).toContain(path);
      expect(await keys()).toEqual(before);
    });
  }

  it('an unknown template on a later page is a 404 naming that page', async () => {
    const r = await multipage('hires', { pages: [{ template: square }, { template: 'mp/none' }] }, '?disableCache=true');
    expect(r.status).toBe(404);
    expect(r.body.details[0].path).toBe('pages[1]');
  });

  it('a page failing while rendering removes the results earlier pages created', async () => {
    // A PNG header with broken pixel data: accepted when fetched, fails when decoded for placement.
    const up = await call('/api/resources/images?destination=mp-img&overwrite=true', withKey({ method: 'POST', body: form([['broken.png', brokenPng()]]) }));
    expect(up.status).toBe(201);
    const before = await keys();
    const bad = { template: text, data: { Background: { type: 'image', image: 'mp-img/broken.png' } } };
    const variants = [
      ['preview', { pages: [{ template: square }, bad] }],
      ['hires', { combine: false, pages: [{ template: square }, bad] }],
      ['hires', { pages: [{ template: square }, bad] }],
    ] as const;
    for (const [kind, body] of variants) {
      const r = await multipage(kind, body, '?disableCache=true');
      expect(r.status).toBe(422);
      expect(r.body.details[0].path).toBe('pages[1].data.Background.image');
    }
    // No result and no new cache entry stays. (With disableCache=true a rolled-back page may take
    // the index entry of an older equal result with it: that costs one cache miss, nothing more.)
    const after = await keys();
    expect(after.filter((k) => k.startsWith('results/'))).toEqual(before.filter((k) => k.startsWith('results/')));
    expect(after.filter((k) => !before.includes(k))).toEqual([]);
  });
});

/** 8×8 PNG whose IDAT is not a zlib stream. */
function brokenPng(): Uint8Array {
  const bytes = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  const chunk = (type: string, data: number[]) => {
    const body = [...type].map((c) => c.charCodeAt(0)).concat(data);
    let crc = 0xffffffff;
    for (const b of body) {
      crc ^= b;
      for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
    }
    crc = (crc ^ 0xffffffff) >>> 0;
    const len = data.length;
    bytes.push(len >>> 24, (len >>> 16) & 255, (len >>> 8) & 255, len & 255, ...body, crc >>> 24, (crc >>> 16) & 255, (crc >>> 8) & 255, crc & 255);
  };
  chunk('IHDR', [0, 0, 0, 8, 0, 0, 0, 8, 8, 6, 0, 0, 0]);
  chunk('IDAT', [1, 2, 3, 4, 5, 6, 7, 8]);
  chunk('IEND', []);
  return Uint8Array.from(bytes);
}
