// Design-atoms benchmark (issue 12): the business card of docs/design-atoms.md (two print areas,
// 12 items, 2 stored images, 4 text items) previewed at 800 × 800 and proofed as a 300 dpi PDF,
// each request with a new `variableData` name (live editing). In-Worker times are the route's
// Server-Timing `total` (from loading the design); the last run's stages show where it went.
// Peak memory: the dev server's workerd RSS while the cases run (bench/lib.mjs).
// `npm run bench platform-atoms`, or with the other platform benches `BENCH_PLATFORM_PARTS=atoms
// npm run bench platform` (which then skips the list and PSD cases).
import { clientToken, fetchRetry, MemorySampler, percentile, serverTotal } from './lib.mjs';

const RUNS = Number(process.env.BENCH_RUNS ?? 30);

export default async function platformAtomsBench({ baseUrl, root }) {
  const parts = process.env.BENCH_PLATFORM_PARTS;
  if (parts && !parts.includes('atoms')) return [];
  const auth = { authorization: `Bearer ${await clientToken(baseUrl)}` };
  return atomsBench(baseUrl, auth, root);
}


/** The docs' business card with its two images as Storage sources. */
function businessCard(logoId, photoId) {
  const sans = (size) => ({ postscriptName: 'LiberationSans', size });
  return {
    version: 1,
    surfaces: [{
      id: 'card', name: 'Business card', width: 540, height: 180,
      printAreas: [
        { id: 'front', name: 'Front', bounds: { x: 10, y: 15, width: 252, height: 144 }, bleed: { left: 9, top: 9, right: 9, bottom: 9 }, shape: 'RoundedRectangle', cornerRadius: 12 },
        { id: 'back', name: 'Back', bounds: { x: 278, y: 15, width: 252, height: 144 }, bleed: { left: 9, top: 9, right: 9, bottom: 9 } },
      ],
      containers: [
        { id: 'background', name: 'Background', locked: true, items: [
          { id: 'front-bg', type: 'Rectangle', name: 'Front background', x: 1, y: 6, width: 270, height: 162, fillColor: '#f7f3ea' },
          { id: 'back-bg', type: 'Rectangle', name: 'Back background', x: 269, y: 6, width: 270, height: 162, fillColor: 'cmyk(100,60,0,40)' },
        ] },
        { id: 'content', name: 'Content', items: [
          { id: 'band', type: 'Rectangle', name: 'Band', x: 1, y: 120, width: 270, height: 48, fillColor: 'cmyk(0,70,100,0)' },
          { id: 'dot', type: 'Ellipse', name: 'Dot', x: 215, y: 30, width: 34, height: 34, fillColor: '#ffffff', borderColor: 'cmyk(0,70,100,0)', borderWidth: 4 },
          { id: 'tilt', type: 'Rectangle', name: 'Tilted square', x: 222, y: 80, width: 20, height: 20, fillColor: 'rgba(0,90,160,0.6)', rotation: 30, cornerRadius: 4 },
          { id: 'logo', type: 'Image', name: 'Logo', x: 26, y: 28, width: 48, height: 48, fitMode: 'Fit', source: { type: 'Storage', id: logoId } },
          { id: 'name', type: 'Text', name: 'Name', isVariable: true, x: 26, y: 84, width: 180, height: 24, text: 'Ada Lovelace', placeholder: 'Your name', font: { postscriptName: 'LiberationSans-Bold', size: 18 }, color: '#1d2b3a', constraints: { maxLength: 40, required: true } },
          { id: 'role', type: 'Text', name: 'Role', x: 26, y: 104, width: 180, height: 16, text: 'Analyst & Programmer', font: sans(10), color: '#555555', letterSpacing: 0.5 },
          { id: 'contact', type: 'Text', name: 'Contact', x: 16, y: 130, width: 240, height: 30, text: 'ada@example.com · +44 20 7946 0000', font: sans(9), color: '#ffffff', alignment: 'Center', verticalAlignment: 'Middle' },
          { id: 'back-group', type: 'Group', name: 'Back side', x: 278, y: 15, width: 252, height: 144, items: [
            { id: 'photo', type: 'Image', name: 'Photo', x: 300, y: 35, width: 100, height: 100, fitMode: 'Fill', source: { type: 'Storage', id: photoId } },
            { id: 'motto', type: 'Text', name: 'Motto', x: 410, y: 40, width: 105, height: 90, text: 'The Analytical Engine weaves algebraic patterns', font: { postscriptName: 'LiberationSerif', size: 14 }, color: 'cmyk(0,0,0,0)', fit: 'ShrinkToFit', alignment: 'Justify' },
          ] },
        ] },
      ],
    }],
  };
}

export async function atomsBench(baseUrl, auth, root = process.cwd()) {
  const { default: sharp } = await import('sharp');
  const { readFileSync } = await import('node:fs');
  const rows = [];
  const storage = `${baseUrl}/api/storage/v1`;
  const post = async (url, fd) => fetchRetry(url, { method: 'POST', headers: auth, body: fd });
  const form = (bytes, name, fields = {}) => {
    const fd = new FormData();
    for (const [k, v] of Object.entries(fields)) fd.append(k, v);
    fd.append('file', new Blob([bytes]), name);
    return fd;
  };
  for (const f of ['LiberationSans-Regular.ttf', 'LiberationSans-Bold.ttf', 'LiberationSerif-Regular.ttf']) {
    const res = await post(`${storage}/fonts`, form(readFileSync(`${root}/assets/fonts/${f}`), f));
    if (res.status !== 201 && res.status !== 409) throw new Error(`font ${f}: ${res.status} ${await res.text()}`);
  }
  // A 96² logo with transparency and a 1600 × 1200 camera-sized photo.
  const logo = await sharp({ create: { width: 96, height: 96, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } })
    .composite([{ input: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="96" height="96"><circle cx="48" cy="48" r="44" fill="#f28200"/><circle cx="48" cy="48" r="24" fill="#1d2b3a"/></svg>') }])
    .png().toBuffer();
  const photo = await sharp({ create: { width: 1600, height: 1200, channels: 3, noise: { type: 'gaussian', mean: 128, sigma: 40 } } }).jpeg({ quality: 85 }).toBuffer();
  const stamp = Date.now();
  const up = async (bytes, name) => {
    const res = await post(`${storage}/images`, form(bytes, name, { path: `/bench/atoms-${stamp}/` }));
    if (res.status !== 201) throw new Error(`image ${name}: ${res.status} ${await res.text()}`);
    return (await res.json()).id;
  };
  const [logoId, photoId] = [await up(logo, 'logo.png'), await up(photo, 'photo.jpg')];
  const created = await fetchRetry(`${baseUrl}/api/atoms/v1/designs`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ product: businessCard(logoId, photoId), name: `bench card ${stamp}`, path: '/bench/atoms/' }),
  });
  if (created.status !== 201) throw new Error(`design: ${created.status} ${await created.text()}`);
  const designId = (await created.json()).id;

  const render = async (path, body) => {
    const t = performance.now();
    const res = await fetchRetry(`${baseUrl}/api/atoms/v1/designs/${path}`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const bytes = new Uint8Array(await res.arrayBuffer());
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${new TextDecoder().decode(bytes).slice(0, 300)}`);
    return { http: performance.now() - t, total: serverTotal(res), timing: res.headers.get('server-timing'), size: bytes.length };
  };
  const series = async (path, body, n) => {
    const out = [];
    for (let i = 0; i < n + 3; i++) {
      const r = await render(path, body(i));
      if (i >= 3) out.push(r);
    }
    return out;
  };
  const cases = [
    ['atoms preview 800×800 business card (JPEG)', 'render-preview', (i) => ({ designId, variableData: [{ name: 'Name', value: `Ada Lovelace ${i}` }] }), '≤ 30'],
    // Every request at a new size: no layer raster can be reused (the uncached render).
    ['atoms preview ~800×800 business card, new size each time (JPEG, no layer cache)', 'render-preview', (i) => ({ designId, renderingConfig: { width: 800 - (i % 64), height: 800 - (i % 64) }, variableData: [{ name: 'Name', value: `Ada Lovelace ${i}` }] }), ''],
    ['atoms proof PDF 300 dpi business card', 'render-proof', (i) => ({ designId, renderingConfig: { fileFormat: 'Pdf' }, variableData: [{ name: 'Name', value: `Ada Lovelace ${i}` }] }), '≤ 150'],
  ];
  const port = new URL(baseUrl).port || '80';
  for (const [bench, path, body, target] of cases) {
    const memory = new MemorySampler(port);
    const runs = await series(path, body, RUNS);
    const mem = memory.stop();
    const totals = runs.map((r) => r.total);
    rows.push({ bench, metric: `in-Worker p50 (n=${RUNS})`, value: percentile(totals, 0.5), unit: 'ms', target });
    rows.push({ bench, metric: `in-Worker p95 (n=${RUNS})`, value: percentile(totals, 0.95), unit: 'ms' });
    rows.push({ bench, metric: 'in-Worker min', value: Math.min(...totals), unit: 'ms' });
    rows.push({ bench, metric: `HTTP p50 (n=${RUNS})`, value: percentile(runs.map((r) => r.http), 0.5), unit: 'ms' });
    // Median of each Server-Timing stage (stages overlap: fonts loads beside load).
    const stages = [...new Set(runs.flatMap((r) => [...(r.timing ?? '').matchAll(/(\w+);dur=/g)].map((m) => m[1])))].filter((n) => n !== 'total');
    const median = (name) => percentile(runs.map((r) => Number(new RegExp(`${name};dur=([\\d.]+)`).exec(r.timing ?? '')?.[1] ?? 0)), 0.5);
    rows.push({ bench, metric: 'stage medians', value: stages.map((n) => `${n} ${median(n)}`).join(', '), unit: 'ms' });
    rows.push({ bench, metric: 'Server-Timing (last run)', value: runs.at(-1).timing, unit: '' });
    rows.push({ bench, metric: 'output size', value: runs.at(-1).size / 1024, unit: 'KB' });
    if (mem) rows.push({ bench, metric: 'workerd peak RSS (rise over idle)', value: `${mem.peakMb.toFixed(0)} MB (+${mem.peakDeltaMb.toFixed(0)})`, unit: '' });
  }
  return rows;
}
