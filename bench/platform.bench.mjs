// Platform asset storage benchmark (issue 9):
//  1. listing a folder of 10,000 images with a customFields filter and paging: the Worker's own
//     Server-Timing total (in-Worker) p50/p95 and the HTTP p50. The folder is filled once by
//     doubling batch-copies (`/bench/list-10k/`) and reused by later runs.
//  2. uploading and compiling a 20 MB PSD (random pixels each run, so the compile is never a
//     cache hit): wall time of POST /api/storage/v1/designs, which returns after the engine has
//     compiled the file and the asset row is written.
import { writePsdBuffer } from 'ag-psd';

const RUNS = Number(process.env.BENCH_RUNS ?? 30);
const N = 10_000;
const FOLDER = '/bench/list-10k/';

async function token(baseUrl) {
  const res = await fetch(`${baseUrl}/connect/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials&client_id=demo-backend&client_secret=demo-backend-secret',
  });
  if (!res.ok) throw new Error(`token: ${res.status} ${await res.text()}`);
  return (await res.json()).access_token;
}

function tinyPng() {
  // 1×1 PNG (a fixed file: every copy shares its blob).
  return Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
}

/** fetch, retried while `wrangler dev` restarts the Worker (503) because files changed. */
async function fetchRetry(url, init) {
  for (let i = 0; ; i++) {
    const res = await fetch(url, init);
    if (res.status !== 503 || i >= 10) return res;
    await res.body?.cancel();
    await new Promise((r) => setTimeout(r, 2000));
  }
}

const percentile = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))];
};

function serverTotal(res) {
  const m = /total;dur=([\d.]+)/.exec(res.headers.get('server-timing') ?? '');
  return m ? Number(m[1]) : NaN;
}

async function fillFolder(baseUrl, auth) {
  const api = `${baseUrl}/api/storage/v1/images`;
  const list = async (q = '') => (await (await fetchRetry(`${api}?path=${encodeURIComponent(FOLDER)}&take=1000${q}`, { headers: auth })).json());
  let first = await list();
  if (first.total >= N) return first.total;
  if (first.total === 0) {
    const fd = new FormData();
    fd.append('file', new Blob([tinyPng()]), 'item.png');
    fd.append('path', FOLDER);
    const res = await fetchRetry(api, { method: 'POST', headers: auth, body: fd });
    if (res.status !== 201) throw new Error(`upload: ${res.status} ${await res.text()}`);
    first = await list();
  }
  let total = first.total;
  while (total < N) {
    // Copy up to 1,000 of the folder's items into it again (Rename), doubling up to N.
    const page = await list(`&skip=0`);
    const ids = page.items.map((x) => x.id).slice(0, Math.min(1000, N - total));
    const res = await fetchRetry(`${api}/batch-copy`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ ids, path: FOLDER, strategy: 'Rename' }),
    });
    if (res.status !== 204) throw new Error(`batch-copy: ${res.status} ${await res.text()}`);
    total = (await list()).total;
  }
  // Every tenth item is red.
  const all = [];
  for (let skip = 0; skip < total; skip += 1000) all.push(...(await list(`&skip=${skip}&sorting=id ASC`)).items.map((x) => x.id));
  const red = all.filter((_, i) => i % 10 === 0);
  for (let i = 0; i < red.length; i += 1000) {
    await fetchRetry(`${api}/batch-update-custom-fields`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ ids: red.slice(i, i + 1000), customFields: { color: 'red' } }),
    });
  }
  return total;
}

/** A PSD of about 20 MB: two layers of random pixels (RLE cannot shrink them). */
function bigPsd() {
  const side = 1830; // 2 layers × 1830² × RGB ≈ 20 MB after RLE (noise does not compress)
  const layer = (name) => {
    const data = new Uint8ClampedArray(side * side * 4);
    for (let i = 0; i < data.length; i += 4) {
      const v = (Math.random() * 0xffffffff) >>> 0;
      data[i] = v & 255;
      data[i + 1] = (v >>> 8) & 255;
      data[i + 2] = (v >>> 16) & 255;
      data[i + 3] = 255;
    }
    return { name, left: 0, top: 0, imageData: { width: side, height: side, data } };
  };
  return writePsdBuffer({ width: side, height: side, children: [layer('Noise A'), layer('Noise B')] }, { generateThumbnail: false, noBackground: true });
}

export default async function platformBench({ baseUrl }) {
  const rows = [];
  const auth = { authorization: `Bearer ${await token(baseUrl)}` };
  // BENCH_PLATFORM_PARTS=atoms runs only the design-atoms cases.
  if (process.env.BENCH_PLATFORM_PARTS === 'atoms') return atomsBench(baseUrl, auth);

  const only = process.env.BENCH_PLATFORM ?? 'list,psd';
  if (only.includes('list')) rows.push(...(await listBench(baseUrl, auth)));
  if (only.includes('psd')) rows.push(...(await psdBench(baseUrl, auth)));
  return rows;
}

async function listBench(baseUrl, auth) {
  const rows = [];
  const total = await fillFolder(baseUrl, auth);
  const url = `${baseUrl}/api/storage/v1/images?path=${encodeURIComponent(FOLDER)}&customFields=${encodeURIComponent('{"color":"red"}')}&take=100&skip=200&sorting=name ASC`;
  const inWorker = [];
  const http = [];
  for (let i = 0; i < RUNS + 3; i++) {
    const t = performance.now();
    const res = await fetchRetry(url, { headers: auth });
    const body = await res.json();
    if (i === 0 && (!res.ok || body.items.length !== 100)) throw new Error(`list: ${res.status} ${JSON.stringify(body).slice(0, 200)}`);
    if (i < 3) continue;
    http.push(performance.now() - t);
    inWorker.push(serverTotal(res));
  }
  const bench = `list ${total} assets (customFields filter, page 3 of 100)`;
  rows.push({ bench, metric: `in-Worker p50 (n=${RUNS})`, value: percentile(inWorker, 0.5), unit: 'ms', target: '≤ 30' });
  rows.push({ bench, metric: `in-Worker p95 (n=${RUNS})`, value: percentile(inWorker, 0.95), unit: 'ms' });
  rows.push({ bench, metric: `HTTP p50 (n=${RUNS})`, value: percentile(http, 0.5), unit: 'ms' });
  return rows;
}

async function psdBench(baseUrl, auth) {
  const rows = [];

  const times = [];
  const phases = [];
  let size = 0;
  const uploads = Number(process.env.BENCH_PSD_RUNS ?? 3);
  for (let i = 0; i < uploads; i++) {
    const psd = bigPsd();
    size = psd.length;
    const fd = new FormData();
    fd.append('file', new Blob([psd]), `bench-20mb-${Date.now()}.psd`);
    fd.append('path', '/bench/psd/');
    const t = performance.now();
    const res = await fetchRetry(`${baseUrl}/api/storage/v1/designs`, { method: 'POST', headers: auth, body: fd });
    const text = await res.text();
    times.push(performance.now() - t);
    phases.push(res.headers.get('server-timing') ?? '');
    if (res.status !== 201) throw new Error(`psd upload: ${res.status} ${text.slice(0, 300)}`);
    await fetch(`${baseUrl}/api/storage/v1/designs/${JSON.parse(text).id}`, { method: 'DELETE', headers: auth });
  }
  rows.push({ bench: `upload + compile ${(size / 1024 / 1024).toFixed(1)} MB PSD`, metric: `HTTP median (n=${uploads})`, value: percentile(times, 0.5), unit: 'ms', target: '≤ 1500' });
  rows.push({ bench: `upload + compile ${(size / 1024 / 1024).toFixed(1)} MB PSD`, metric: 'HTTP max', value: Math.max(...times), unit: 'ms' });
  // Where the time went (Server-Timing: receive = stream to R2 staging, analyse = engine compile, commit = blob + row).
  for (const name of ['receive', 'analyse', 'fonts', 'commit', 'total']) {
    const values = phases.map((h) => Number(new RegExp(`${name};dur=([\\d.]+)`).exec(h)?.[1] ?? NaN));
    rows.push({ bench: `upload + compile ${(size / 1024 / 1024).toFixed(1)} MB PSD`, metric: `in-Worker ${name} median`, value: percentile(values, 0.5), unit: 'ms' });
  }
  rows.push(...(await atomsBench(baseUrl, auth)));
  return rows;
}

// --- design atoms (issue 12): the business card of docs/design-atoms.md (two print areas, 12
// items, 2 stored images, 4 text items) previewed at 800 × 800 and proofed as a 300 dpi PDF.
// In-Worker times are the route's Server-Timing `total` (the render, from loading the design).

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
    ['atoms proof PDF 300 dpi business card', 'render-proof', (i) => ({ designId, renderingConfig: { fileFormat: 'Pdf' }, variableData: [{ name: 'Name', value: `Ada Lovelace ${i}` }] }), '≤ 150'],
  ];
  for (const [bench, path, body, target] of cases) {
    const runs = await series(path, body, RUNS);
    rows.push({ bench, metric: `in-Worker p50 (n=${RUNS})`, value: percentile(runs.map((r) => r.total), 0.5), unit: 'ms', target });
    rows.push({ bench, metric: `in-Worker p95 (n=${RUNS})`, value: percentile(runs.map((r) => r.total), 0.95), unit: 'ms' });
    rows.push({ bench, metric: `HTTP p50 (n=${RUNS})`, value: percentile(runs.map((r) => r.http), 0.5), unit: 'ms' });
    rows.push({ bench, metric: 'Server-Timing (last run)', value: runs.at(-1).timing, unit: '' });
    rows.push({ bench, metric: 'output size', value: runs.at(-1).size / 1024, unit: 'KB' });
  }
  return rows;
}
