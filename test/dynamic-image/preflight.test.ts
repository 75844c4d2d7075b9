import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { prepareHires } from '../../src/engine/pdf/prepare';
import { preflightPreview, preparePreview } from '../../src/engine/preview';
import { UrlImages } from '../../src/engine/inputs';
import { encodePng } from '../../src/engine/raster';
import { imageFetcher } from '../../src/dynamic-image/context';
import { encodePreviewRequest, signPreviewRequest } from '../../src/dynamic-image/signed';
import { FileStore } from '../../src/dynamic-image/store';
import { bundledFont } from '../helpers/fixtures';
import { call, form, postJson, upload, withKey } from './helpers';

/**
 * A 600 × 300 px card at 300 ppi with a 3 mm bleed: a required point-text layer "Name <REQ>"
 * (LiberationSans 40 px, "Alex") and a required picture frame "Photo <PPI_300><REQ>" of 240 × 200 px.
 */
async function cardTemplate(): Promise<Uint8Array> {
  const { writePsdUint8Array } = await import('ag-psd');
  const W = 600;
  const H = 300;
  const solid = (w: number, h: number, rgba: number[]) => {
    const data = new Uint8ClampedArray(w * h * 4);
    for (let i = 0; i < data.length; i += 4) data.set(rgba, i);
    return { width: w, height: h, data };
  };
  return writePsdUint8Array(
    {
      width: W,
      height: H,
      imageResources: {
        resolutionInfo: { horizontalResolution: 300, horizontalResolutionUnit: 'PPI', widthUnit: 'Inches', verticalResolution: 300, verticalResolutionUnit: 'PPI', heightUnit: 'Inches' },
      },
      children: [
        { name: 'Background', left: 0, top: 0, right: W, bottom: H, imageData: solid(W, H, [255, 255, 255, 255]) },
        { name: 'Photo <PPI_300><REQ>', left: 320, top: 50, right: 560, bottom: 250, imageData: solid(240, 200, [120, 160, 200, 255]) },
        {
          name: 'Name <REQ>',
          left: 60,
          top: 120,
          right: 150,
          bottom: 150,
          imageData: solid(90, 30, [20, 20, 20, 255]),
          text: {
            text: 'Alex',
            transform: [1, 0, 0, 1, 60, 150],
            style: { font: { name: 'LiberationSans' }, fontSize: 40, fillColor: { r: 20, g: 20, b: 20 } },
            shapeType: 'point',
          },
        },
      ],
    },
    { generateThumbnail: false },
  );
}

/** A flat PNG of w × h. */
async function png(w: number, h: number): Promise<Uint8Array> {
  const data = new Uint8ClampedArray(w * h * 4).fill(200);
  return encodePng({ width: w, height: h, data });
}

let template: string;
const SHARP = 'pf-img/sharp.png'; // 400 × 334 px in a 240 × 200 px frame at 300 ppi: 500 ppi
const TINY = 'pf-img/tiny.png'; // 24 × 20 px there: 30 ppi

beforeAll(async () => {
  await call('/api/resources/fonts?overwrite=true', withKey({ method: 'POST', body: form([['LiberationSans-Regular.ttf', await bundledFont('LiberationSans-Regular.ttf')]]) }));
  const up = await upload('templates', [['card.psd', await cardTemplate()]], '?destination=pf&overwrite=true&bleed=3mm');
  expect(up.status).toBe(201);
  template = ((await up.json()) as string[])[0];
  const images = await upload('images', [['sharp.png', await png(400, 334)], ['tiny.png', await png(24, 20)]], '?destination=pf-img&overwrite=true');
  expect(images.status).toBe(201);
});

type Report = { ok: boolean; problems: Array<{ layer: string; code: string; severity: string; message: string; details?: Record<string, unknown> }> };

async function preflight(body: Record<string, unknown>): Promise<{ status: number; body: Report }> {
  const res = await postJson('/api/rendering/preflight', body);
  return { status: res.status, body: (await res.json()) as Report };
}

const codes = (r: Report) => r.problems.map((p) => `${p.code}:${p.severity}`).sort();
const photo = (image: string) => ({ type: 'image', image, resizeMode: 'fill' });

describe('POST /api/rendering/preflight', () => {
  it('answers ok with no problems for a request that fits', async () => {
    const r = await preflight({ template, data: { Name: { type: 'text', text: 'Bo' }, Photo: photo(SHARP) } });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ ok: true, problems: [] });
  });

  it('reports text that runs off the card as textOverflow, an error naming the layer', async () => {
    const r = await preflight({ template, data: { Name: { type: 'text', text: 'Jonathan Livingstone-Smith of Upper Wallop' }, Photo: photo(SHARP) } });
    expect(r.status).toBe(200);
    expect(r.body.ok).toBe(false);
    const overflow = r.body.problems.find((p) => p.code === 'textOverflow');
    expect(overflow, JSON.stringify(r.body)).toMatchObject({ severity: 'error' });
    expect(overflow!.layer).toMatch(/^Name/);
    expect(overflow!.message).toMatch(/Name/);
  });

  it('reports a picture below the layer’s <PPI_300> threshold as lowResolution, with its ppi', async () => {
    const r = await preflight({ template, data: { Name: { type: 'text', text: 'Bo' }, Photo: photo(TINY) } });
    expect(r.status).toBe(200);
    expect(r.body.ok).toBe(false);
    const low = r.body.problems.find((p) => p.code === 'lowResolution');
    expect(low, JSON.stringify(r.body)).toMatchObject({ severity: 'error' });
    expect(low!.details?.ppi).toBeLessThan(150);
  });

  // Issue 25 §3: a new picture costs its read, decode and placement, each in Server-Timing; a preflight decodes nothing.
  it('a preview names a picture\'s image-read, image-decode and place in Server-Timing; a preflight of it decodes nothing', async () => {
    const data = { Name: { type: 'text', text: 'Timing' }, Photo: photo(SHARP) };
    const phases = (res: Response) => [...(res.headers.get('server-timing') ?? '').matchAll(/([\w-]+);dur=/g)].map((m) => m[1]);
    const checked = await postJson('/api/rendering/preflight', { template, data });
    expect(checked.status).toBe(200);
    expect(phases(checked)).toContain('preflight');
    expect(phases(checked)).not.toContain('image-decode');
    const previewed = await postJson('/api/rendering/preview', { template, data, size: { width: 300, height: 300 } });
    expect(previewed.status).toBe(200);
    expect(phases(previewed)).toEqual(expect.arrayContaining(['image-read', 'image-decode', 'place', 'overrides', 'render']));
  });

  it('reports a <REQ> layer left empty as emptyField', async () => {
    const r = await preflight({ template, data: { Name: { type: 'text', text: '' }, Photo: photo(SHARP) } });
    expect(r.status).toBe(200);
    expect(r.body.ok).toBe(false);
    expect(codes(r.body)).toContain('emptyField:error');
    expect(r.body.problems.find((p) => p.code === 'emptyField')!.layer).toMatch(/^Name/);
  });

  it('refuses what the preview refuses, with the same status', async () => {
    expect((await preflight({})).status).toBe(400);
    expect((await preflight({ template: 'pf/none' })).status).toBe(404);
    expect((await preflight({ template, data: { Nope: { type: 'text', text: 'x' } } })).status).toBe(400);
    expect((await preflight({ template, data: { Name: { type: 'image', image: 'pf-img/sharp.png' } } })).status).toBe(400);
    expect((await preflight({ template, data: { Photo: photo('pf-img/none.png') } })).status).toBe(404);
    expect((await preflight({ template, size: { width: 0, height: 1 } })).status).toBe(400);
    // The same canonical names as the preview (any case, trailing slash).
    expect((await postJson('/API/Rendering/Preflight/', { Template: template, data: { Name: { type: 'text', text: 'Bo' }, Photo: photo(SHARP) } })).status).toBe(200);
  });

  it('is listed in the OpenAPI document with the preview’s body and the report as its answer', async () => {
    const doc = (await (await call('/api/docs/rendering.json')).json()) as {
      paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: { $ref?: string } }> }; responses: Record<string, { headers?: Record<string, unknown>; content?: Record<string, { schema: { $ref?: string } }> }> }>>;
    };
    const op = doc.paths['/api/rendering/preflight']?.post;
    expect(op).toBeDefined();
    expect(op.requestBody!.content['application/json'].schema.$ref).toMatch(/PreviewModel$/);
    expect(op.responses['200'].content!['application/json'].schema.$ref).toMatch(/PreflightReport$/);
    expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['200', '400', '404', '413', '422']));
    expect(doc.paths['/api/rendering/preview'].post.responses['200'].headers).toHaveProperty('X-Preflight');
  });
});

describe('X-Preflight on previews', () => {
  const overflowing = () => ({ template, data: { Name: { type: 'text', text: `Jonathan Livingstone-Smith of Upper Wallop ${Math.random()}` }, Photo: photo(SHARP) } });

  it('a fitting preview says ok; a fresh and a cached render of an overflowing one carry the same verdict', async () => {
    const fine = await postJson('/api/rendering/preview', { template, data: { Name: { type: 'text', text: 'Bo' }, Photo: photo(SHARP) } });
    expect(fine.status).toBe(200);
    expect(fine.headers.get('X-Preflight')).toBe('ok');

    const body = overflowing();
    const fresh = await postJson('/api/rendering/preview', body);
    expect(fresh.status).toBe(200);
    const verdict = fresh.headers.get('X-Preflight');
    expect(verdict).toMatch(/^errors=[1-9]\d*; warnings=\d+$/);
    const url = await fresh.json();
    const cached = await postJson('/api/rendering/preview', body);
    expect(await cached.json()).toBe(url); // the cached result, not a second render
    expect(cached.headers.get('X-Preflight')).toBe(verdict);
  });

  it('the verdict is kept with the result in R2, for other isolates', async () => {
    const body = overflowing();
    const res = await postJson('/api/rendering/preview', body);
    const name = (/\/([^/]+)$/.exec((await res.json()) as string) ?? [])[1];
    let head: R2Object | null = null;
    for (let i = 0; i < 100 && !head; i++) {
      head = await env.FILES.head(`results/${name.slice(0, 10)}/${name}`);
      if (!head) await new Promise((r) => setTimeout(r, 20));
    }
    expect(head?.customMetadata?.preflight).toBe(res.headers.get('X-Preflight'));
  });

  it('multipage previews add up the pages’ errors and warnings', async () => {
    const fine = { template, data: { Name: { type: 'text', text: 'Bo' }, Photo: photo(SHARP) } };
    const res = await postJson('/api/rendering/multipage/preview', { pages: [fine, overflowing(), overflowing()] });
    expect(res.status).toBe(200);
    const single = await postJson('/api/rendering/preview', overflowing());
    const errors = Number(/errors=(\d+)/.exec(single.headers.get('X-Preflight') ?? '')?.[1]);
    expect(res.headers.get('X-Preflight')).toMatch(new RegExp(`^errors=${2 * errors}; `));
    const ok = await postJson('/api/rendering/multipage/preview', { pages: [fine, fine] });
    expect(ok.headers.get('X-Preflight')).toBe('ok');
  });

  it('a bad preview body is still a 400 without the header', async () => {
    const res = await postJson('/api/rendering/preview', { template, data: { Nope: { type: 'text', text: 'x' } } });
    expect(res.status).toBe(400);
    expect(res.headers.get('X-Preflight')).toBeNull();
  });
});

describe('X-Preflight on signed preview URLs', () => {
  const signed = async (body: unknown) => {
    const r = await encodePreviewRequest(body);
    return `/api/rendering/preview?r=${r}&sig=${await signPreviewRequest(env, r)}`;
  };

  it('a rendered GET and the cached copy a second viewer gets carry the same verdict', async () => {
    const url = await signed({ template, size: { width: 120, height: 60 }, data: { Name: { type: 'text', text: `Jonathan Livingstone-Smith of Upper Wallop ${Math.random()}` }, Photo: photo(TINY) } });
    const first = await call(url);
    expect(first.status).toBe(200);
    await first.arrayBuffer();
    const verdict = first.headers.get('X-Preflight');
    expect(verdict).toMatch(/^errors=[2-9]\d*; warnings=\d+$/); // overflow and the tiny photo
    let again: Response;
    for (let i = 0; ; i++) {
      again = await call(url);
      await again.arrayBuffer();
      if (!/cache;desc="miss"/.test(again.headers.get('server-timing') ?? '') || i > 50) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(again.headers.get('server-timing')).not.toMatch(/cache;desc="miss"/);
    expect(again.headers.get('X-Preflight')).toBe(verdict);
  });
});

describe('the engine entries', () => {
  const store = () => new FileStore(env.FILES);
  const deps = () => ({ urlImages: new UrlImages(imageFetcher(env)) });
  const data = { Name: { type: 'text' as const, text: '' }, Photo: { type: 'image' as const, image: TINY } };

  it('preparePreview and prepareHires report what their render found through problems(), as preflightPreview does', async () => {
    const options = { template, format: 'jpg' as const, size: { width: 300, height: 150 }, jpegQuality: 85, unsharpMask: null, data };
    const report = await preflightPreview(store(), options, deps());
    const want = report.problems.map((p) => `${p.layer}:${p.code}`).sort();
    expect(want).toEqual(expect.arrayContaining([expect.stringMatching(/^Name.*:emptyField$/), expect.stringMatching(/^Photo.*:lowResolution$/)]));

    const preview = await preparePreview(store(), options, deps());
    expect(preview.problems()).toEqual([]); // nothing before rendering
    await preview.render();
    expect(preview.problems().map((p) => `${p.layer}:${p.code}`).sort()).toEqual(want);

    const hires = await prepareHires(store(), { template, data }, deps());
    await hires.load();
    expect(hires.problems().map((p) => `${p.layer}:${p.code}`).sort()).toEqual(want);
  });

  it('measures stored pictures by the size their upload recorded: no picture is read, none decoded', async () => {
    // A picture no earlier request has measured (sizes are kept per isolate by content).
    const w = 20 + Math.floor(Math.random() * 4);
    expect((await upload('images', [['fresh.png', await png(w, w)]], '?destination=pf-img&overwrite=true')).status).toBe(201);
    const files = store();
    const reads: string[] = [];
    const counting = { ...files, bucket: files.bucket, head: files.head.bind(files), put: files.put.bind(files), fonts: files.fonts.bind(files), readStart: files.readStart.bind(files), read: (root: Parameters<FileStore['read']>[0], name: string) => (reads.push(`${root}/${name}`), files.read(root, name)) };
    const report = await preflightPreview(counting, { template, format: 'jpg', size: { width: 300, height: 150 }, jpegQuality: 85, unsharpMask: null, data: { Photo: { type: 'image', image: 'pf-img/fresh.png' } } }, deps());
    // fit (the default): the square spans the 200 px height, so 300 ppi ÷ (200 / w), to whole ppi.
    expect(Math.abs(Number(report.problems.find((p) => p.code === 'lowResolution')?.details?.ppi) - (300 * w) / 200)).toBeLessThanOrEqual(0.5);
    expect(reads.filter((r) => r.startsWith('images/'))).toEqual([]);
  });

  it('a request without data still runs the template’s own checks', async () => {
    const report = await preflightPreview(store(), { template, format: 'jpg', size: { width: 300, height: 150 }, jpegQuality: 85, unsharpMask: null }, deps());
    // The required photo has no picture; the required name keeps its own text.
    expect(report.problems.map((p) => p.code)).toEqual(['emptyField']);
    expect(report.problems[0].layer).toMatch(/^Photo/);
  });
});

describe('template information', () => {
  it('shows what the markers of each text and image layer set, defaults filled in', async () => {
    const info = (await (await postJson('/api/information/template', { template })).json()) as { layers: Array<{ name: string; settings?: unknown }> };
    const byName = Object.fromEntries(info.layers.map((l) => [l.name, l.settings]));
    expect(byName['Name <REQ>']).toEqual({ dataName: 'Name', fit: 'none', required: true });
    expect(byName['Photo <PPI_300><REQ>']).toEqual({ dataName: 'Photo', required: true, ppi: 300 });
    expect(byName.Background).toEqual({ required: false, ppi: 200 });
  });
});
