// extract-assets: assets of assetType by assetIds → output members (borrowed blobs, in order);
// designs stay renderable; private assets are the job owner's; unknown ids fail naming them.
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { assetKind, createAsset, scopeFor, stageBytes } from '../../../src/platform/assets';
import { runnerTenant } from '../../../src/platform/jobs/d1';
import { testAsset } from '../../helpers/fixtures';
import { apiJson, seedPlatform } from '../../helpers/platform';
import { createDesign, finalFiles, runStandaloneJob } from '../jobs/helpers';

const JOBS = '/api/rendering/v1/jobs';

const runJob = (id: string, tasks: unknown[], project: Record<string, unknown> = { id: 'p-ea' }) => runStandaloneJob(id, project, tasks, 40_000);

const finals = finalFiles;

async function createImage(id: string, file: string, ownerId: string | null = null) {
  const t = runnerTenant(env, 1, 'http://localhost');
  if (await env.DB.prepare(`SELECT 1 FROM assets WHERE tenant_id = 1 AND id = ?1`).bind(id).first()) return;
  const staged = await stageBytes(env.FILES, 1, await testAsset(file));
  // A folder of its own: other files sharing the runtime (vitest.shared.config.ts) upload these assets too.
  await createAsset(scopeFor(t, assetKind('image', ownerId !== null), ownerId), { staged, filename: file, id, path: `/${id}/` });
}

beforeAll(async () => {
  await seedPlatform();
  await createDesign('ea-design');
  await createImage('ea-img-1', 'marker-40x20.jpg');
  await createImage('ea-img-2', 'marker-40x20-alpha.png');
  await createImage('ea-private', 'marker-40x20-exif6.jpg', 'user-9');
});

describe('extract-assets', () => {
  it('extracts images in the order given, as the assets\u2019 own blobs', async () => {
    const { status, job } = await runJob('job-ea-images', [
      { name: 'ea', type: 'extract-assets', parameters: { assetType: 'Image', assetIds: ['ea-img-2', 'ea-img-1'] }, outputArtifacts: ['image*'] },
      { name: 'finalize', type: 'finalize', finalArtifacts: ['image*'] },
    ]);
    expect(status, JSON.stringify(job.statusDescription)).toBe('Completed');
    const files = await finals('job-ea-images');
    expect(files.map((f) => f.name)).toEqual(['marker-40x20-alpha.png', 'marker-40x20.jpg']);
    expect(files[1]!.bytes).toEqual(await testAsset('marker-40x20.jpg'));
  });

  it('a design comes out renderable, like extract-project-design\u2019s', async () => {
    const { status, job } = await runJob('job-ea-design', [
      { name: 'ea', type: 'extract-assets', parameters: { assetType: 'design', assetIds: 'ea-design' }, outputArtifacts: ['design'] },
      { name: 'preview', type: 'render-preview', inputArtifacts: ['design'], outputArtifacts: ['preview'], parameters: { previewOutputWidth: 64, previewOutputHeight: 64 } },
      { name: 'finalize', type: 'finalize', finalArtifacts: ['preview'] },
    ]);
    expect(status, JSON.stringify(job.statusDescription)).toBe('Completed');
    expect((await finals('job-ea-design')).map((f) => f.name)).toHaveLength(1);
  });

  it('private images are the job owner\u2019s only', async () => {
    const mine = await runJob('job-ea-private', [
      { name: 'ea', type: 'extract-assets', parameters: { assetType: 'PrivateImage', assetIds: ['ea-private'] }, outputArtifacts: ['image'] },
      { name: 'finalize', type: 'finalize', finalArtifacts: ['image'] },
    ], { id: 'p-ea-2', ownerId: 'user-9' });
    expect(mine.status, JSON.stringify(mine.job.statusDescription)).toBe('Completed');
    const other = await runJob('job-ea-private-other', [
      { name: 'ea', type: 'extract-assets', parameters: { assetType: 'PrivateImage', assetIds: ['ea-private'] }, outputArtifacts: ['image'] },
      { name: 'finalize', type: 'finalize' },
    ], { id: 'p-ea-3', ownerId: 'user-8' });
    expect(other.status).toBe('Failed');
    expect(other.job.statusDescription).toMatch(/there is no private image ea-private/);
    // A public id asked for as private is not found either.
    const wrongKind = await runJob('job-ea-kind', [
      { name: 'ea', type: 'extract-assets', parameters: { assetType: 'Image', assetIds: ['ea-private'] }, outputArtifacts: ['image'] },
      { name: 'finalize', type: 'finalize' },
    ]);
    expect(wrongKind.status).toBe('Failed');
  });

  it('refuses an unknown assetType when the pipeline is posted', async () => {
    const res = await apiJson('POST', JOBS, { id: 'job-ea-bad', tasks: [{ name: 'ea', type: 'extract-assets', parameters: { assetType: 'Mockup', assetIds: ['x'] }, outputArtifacts: ['a'] }, { name: 'finalize', type: 'finalize' }] }, { token: 1 }, 400);
    expect(JSON.stringify(res)).toMatch(/assetType/);
  });
});
