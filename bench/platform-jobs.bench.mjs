// Pipeline runner benchmark (issue 11), run by `npm run bench platform`:
//  1. the seeded demo card: project creation (with-single-item on `demo-card`) → its job
//     Completed with one 300 dpi PDF, p50 over BENCH_JOB_RUNS sequential projects;
//  2. 50 projects created at once: the time until all are Completed, and how many failed;
//  3. a 100-member render-preview collection (a stand-alone job: 100 items → extract → preview
//     per member → finalize): total time and the dev server's peak workerd RSS.
// Completion is read from GET /api/rendering/v1/jobs (the D1 mirror the runner writes).
import { clientToken, MemorySampler, percentile } from './lib.mjs';

const RUNS = Number(process.env.BENCH_JOB_RUNS ?? 10);
const AT_ONCE = 50;
const MEMBERS = 100;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function createProject(baseUrl, auth, i) {
  const res = await fetch(`${baseUrl}/api/storefront/v1/projects/with-single-item?storefrontId=1`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ ownerId: 'demo-customer', productReference: 'demo-card', name: `bench job ${i}`, item: {} }),
  });
  const text = await res.text();
  if (res.status !== 201) throw new Error(`create: ${res.status} ${text.slice(0, 300)}`);
  return JSON.parse(text).id;
}

/** The project's jobs once all are Completed or one Failed (null on timeout). */
async function settled(baseUrl, auth, projectId, timeoutMs = 120_000) {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    const res = await fetch(`${baseUrl}/api/rendering/v1/jobs?projectId=${projectId}`, { headers: auth });
    const { items } = await res.json();
    if (items.length && items.every((j) => j.status === 'Completed' || j.status === 'Failed')) return items;
    await sleep(20);
  }
  return null;
}

async function jobSettled(baseUrl, auth, id, timeoutMs = 600_000) {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    const res = await fetch(`${baseUrl}/api/rendering/v1/jobs/${id}`, { headers: auth });
    const job = await res.json();
    if (job.status === 'Completed' || job.status === 'Failed') return job;
    await sleep(200);
  }
  return null;
}

export default async function platformJobsBench({ baseUrl }) {
  const auth = { authorization: `Bearer ${await clientToken(baseUrl)}` };
  const rows = [];
  const bench = 'pipeline runner';

  // 1. demo card, sequential.
  const times = [];
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    const id = await createProject(baseUrl, auth, i);
    const jobs = await settled(baseUrl, auth, id);
    if (!jobs || jobs.some((j) => j.status !== 'Completed')) throw new Error(`demo project ${id}: ${JSON.stringify(jobs)}`);
    times.push(performance.now() - t);
  }
  rows.push({ bench, metric: `demo card: creation → Completed p50 (${RUNS} runs)`, value: percentile(times, 0.5), unit: 'ms', target: '≤ 1500' });
  rows.push({ bench, metric: 'demo card: creation → Completed p95', value: percentile(times, 0.95), unit: 'ms' });

  // 2. 50 at once.
  const t0 = performance.now();
  const ids = await Promise.all(Array.from({ length: AT_ONCE }, (_, i) => createProject(baseUrl, auth, 1000 + i)));
  const results = await Promise.all(ids.map((id) => settled(baseUrl, auth, id, 600_000)));
  const total = performance.now() - t0;
  const failed = results.filter((r) => !r || r.some((j) => j.status !== 'Completed')).length;
  rows.push({ bench, metric: `${AT_ONCE} projects at once: all Completed after`, value: total, unit: 'ms' });
  rows.push({ bench, metric: `${AT_ONCE} projects at once: not Completed`, value: failed, unit: 'projects', target: '0' });

  // 3. a 100-member render-preview collection.
  const sampler = new MemorySampler(new URL(baseUrl).port || '8787');
  const id = `bench-preview-${Date.now()}`;
  const t1 = performance.now();
  const res = await fetch(`${baseUrl}/api/rendering/v1/jobs`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({
      id,
      project: { items: Array.from({ length: MEMBERS }, (_, i) => ({ itemId: String(i + 1), designIds: ['demo-card-design'] })) },
      tasks: [
        { name: 'extract', type: 'extract-project-design', outputArtifacts: ['design*'] },
        { name: 'preview', type: 'render-preview', inputArtifacts: ['design*'], outputArtifacts: ['preview*'] },
        { name: 'finalize', type: 'finalize', finalArtifacts: ['preview*'] },
      ],
    }),
  });
  if (res.status !== 201) throw new Error(`job: ${res.status} ${await res.text()}`);
  const job = await jobSettled(baseUrl, auth, id);
  const elapsed = performance.now() - t1;
  const mem = sampler.stop();
  rows.push({ bench, metric: `${MEMBERS}-member render-preview collection: ${job?.status ?? 'timed out'} after`, value: elapsed, unit: 'ms' });
  if (mem) rows.push({ bench, metric: `${MEMBERS}-member collection: workerd peak RSS (Δ over idle)`, value: mem.peakMb, unit: 'MB', target: `Δ ${mem.peakDeltaMb.toFixed(1)} MB` });
  return rows;
}

