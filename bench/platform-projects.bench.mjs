// Platform projects benchmark (issue 10), run by `npm run bench platform`:
//  1. creating a project (POST /api/storefront/v1/projects/with-single-item), one request at a
//     time: the Worker's own Server-Timing total (in-Worker) p50/p95 and the HTTP p50;
//  2. listing 10,000 projects filtered by processingStatus and datePeriod (page of 100 with the
//     total): in-Worker p50/p95 and HTTP p50, for a filter matching every project and for one
//     matching a tenth of them.
// Tenant 2 (demo2-backend, storefront 2) holds the bench projects, so the demo tenant stays
// readable. They are created once, through the API, and reused by later runs: a tenth of them are
// moved to status 2 so a status filter has something to pick. All are created within the run's
// week, so datePeriod=LastWeek matches them until they age out (the bench then creates more).
import { clientToken, percentile, serverTotal } from './lib.mjs';

const RUNS = Number(process.env.BENCH_RUNS ?? 30);
const N = 10_000;
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 4);
const SF = '/api/storefront/v1';

async function createOne(baseUrl, auth, i) {
  const body = {
    ownerId: `bench-owner-${i % 500}`,
    name: `Bench project ${i}`,
    orderId: `bench-order-${Date.now()}-${i}`,
    orderNumber: i,
    orderLineItemIndex: 0,
    item: { name: "card", quantity: 1 + (Math.abs(i) % 5), fields: { line1: `Bench ${i}` } },
  };
  const t = performance.now();
  const res = await fetch(`${baseUrl}${SF}/projects/with-single-item?storefrontId=2`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const http = performance.now() - t;
  const text = await res.text();
  if (res.status !== 201) throw new Error(`create: ${res.status} ${text.slice(0, 300)}`);
  return { id: JSON.parse(text).id, http, inWorker: serverTotal(res) };
}

async function pool(count, fn, concurrency = CONCURRENCY) {
  let next = 0;
  const out = [];
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const i = next++;
        out.push(await fn(i));
      }
    }),
  );
  return out;
}

async function countProjects(baseUrl, auth, query = '') {
  const res = await fetch(`${baseUrl}${SF}/projects?take=0&datePeriod=LastWeek${query}`, { headers: auth });
  if (!res.ok) throw new Error(`list: ${res.status} ${await res.text()}`);
  return (await res.json()).total;
}

async function listTimes(baseUrl, auth, query) {
  const inWorker = [];
  const http = [];
  let total = 0;
  for (let i = 0; i < RUNS + 3; i++) {
    const t = performance.now();
    const res = await fetch(`${baseUrl}${SF}/projects?${query}&take=100&skip=200`, { headers: auth });
    const body = await res.json();
    if (!res.ok) throw new Error(`list: ${res.status} ${JSON.stringify(body).slice(0, 200)}`);
    total = body.total;
    if (i < 3) continue;
    http.push(performance.now() - t);
    inWorker.push(serverTotal(res));
  }
  return { inWorker, http, total };
}

export default async function projectsBench({ baseUrl }) {
  const rows = [];
  const auth = { authorization: `Bearer ${await clientToken(baseUrl, 'demo2-backend')}` };

  // 1. Creates: a sequential sample (one request at a time: the Worker's own time), then the
  //    tenant filled up to N in parallel.
  await pool(5, (i) => createOne(baseUrl, auth, -1 - i), 1); // warm-up
  const sample = await pool(RUNS * 4, (i) => createOne(baseUrl, auth, -100 - i), 1);
  const bench = 'create project (with-single-item)';
  rows.push({ bench, metric: `in-Worker p50 (n=${sample.length}, sequential)`, value: percentile(sample.map((c) => c.inWorker), 0.5), unit: 'ms', target: '≤ 25' });
  rows.push({ bench, metric: `in-Worker p95 (n=${sample.length}, sequential)`, value: percentile(sample.map((c) => c.inWorker), 0.95), unit: 'ms' });
  rows.push({ bench, metric: `HTTP p50 (n=${sample.length}, sequential)`, value: percentile(sample.map((c) => c.http), 0.5), unit: 'ms' });
  const have = await countProjects(baseUrl, auth);
  if (have < N) {
    const filled = await pool(N - have, (i) => createOne(baseUrl, auth, have + i));
    rows.push({ bench, metric: `in-Worker p50 (n=${filled.length}, ${CONCURRENCY} in parallel)`, value: percentile(filled.map((c) => c.inWorker), 0.5), unit: 'ms' });
  }

  // Tenant 2 has only status 1 in the demo seed: the bench adds code 2 (409 when it exists).
  await fetch(`${baseUrl}/api/backoffice/v1/projects-statuses`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ code: 2, displayName: 'Bench' }),
  }).then((r) => r.text());

  // A tenth of the projects in status 2 (set once).
  const inStatus2 = await countProjects(baseUrl, auth, '&status=2');
  if (inStatus2 < N / 10) {
    const ids = [];
    for (let skip = 0; ids.length < N / 10 - inStatus2; skip += 1000) {
      const page = await (await fetch(`${baseUrl}${SF}/projects?status=1&take=1000&skip=${skip}`, { headers: auth })).json();
      if (!page.items.length) break;
      ids.push(...page.items.filter((_, i) => i % 10 === 0).map((p) => p.id));
    }
    await pool(Math.min(ids.length, N / 10 - inStatus2), async (i) => {
      const res = await fetch(`${baseUrl}${SF}/projects/${ids[i]}/statuses/2`, { method: 'POST', headers: auth });
      if (!res.ok) throw new Error(`status: ${res.status} ${await res.text()}`);
    });
  }

  // 2. Lists.
  for (const [label, query] of [
    ['processingStatus=Completed, datePeriod=LastWeek (all match)', 'processingStatus=Completed&datePeriod=LastWeek'],
    ['processingStatus=Completed, datePeriod=LastWeek, status=2 (a tenth)', 'processingStatus=Completed&datePeriod=LastWeek&status=2'],
  ]) {
    const { inWorker, http, total } = await listTimes(baseUrl, auth, query);
    const b = `list ${total} of ${await countProjects(baseUrl, auth)} projects: ${label}`;
    rows.push({ bench: b, metric: `in-Worker p50 (n=${RUNS})`, value: percentile(inWorker, 0.5), unit: 'ms', target: '≤ 30' });
    rows.push({ bench: b, metric: `in-Worker p95 (n=${RUNS})`, value: percentile(inWorker, 0.95), unit: 'ms' });
    rows.push({ bench: b, metric: `HTTP p50 (n=${RUNS})`, value: percentile(http, 0.5), unit: 'ms' });
  }
  return rows;
}
