// Platform asset storage benchmark (issue 9):
//  1. listing a folder of 10,000 images with a customFields filter and paging: the Worker's own
//     Server-Timing total (in-Worker) p50/p95 and the HTTP p50. The folder is filled once by
//     doubling batch-copies (`/bench/list-10k/`) and reused by later runs.
//  2. uploading and compiling a 20 MB PSD (random pixels each run, so the compile is never a
//     cache hit): wall time of POST /api/storage/v1/designs, which returns after the engine has
//     compiled the file and the asset row is written.
import { writePsdBuffer } from 'ag-psd';
import { clientToken, fetchRetry, percentile, serverTotal } from './lib.mjs';

const RUNS = Number(process.env.BENCH_RUNS ?? 30);
const N = 10_000;
const FOLDER = '/bench/list-10k/';

function tinyPng() {
  // 1×1 PNG (a fixed file: every copy shares its blob).
  return Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
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
  const auth = { authorization: `Bearer ${await clientToken(baseUrl)}` };
  // BENCH_PLATFORM_PARTS=atoms runs only the design-atoms cases (bench/platform-atoms.bench.mjs).
  if (process.env.BENCH_PLATFORM_PARTS === 'atoms') return rows;

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
  // Where the time went (Server-Timing: receive = multipart read and hash, the PSD held in memory;
  // analyse = engine compile, while the PSD's blob is written; commit = waiting for that write + the D1 row).
  for (const name of ['receive', 'analyse', 'fonts', 'commit', 'total']) {
    const values = phases.map((h) => Number(new RegExp(`${name};dur=([\\d.]+)`).exec(h)?.[1] ?? NaN));
    rows.push({ bench: `upload + compile ${(size / 1024 / 1024).toFixed(1)} MB PSD`, metric: `in-Worker ${name} median`, value: percentile(values, 0.5), unit: 'ms' });
  }
  return rows;
}
