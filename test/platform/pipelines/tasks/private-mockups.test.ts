// render-design-preview-with-mockup and render-image-preview(-with-mockup) with private mockups
// (issue 22 §4): a mockup owned by the job's owner (the project's storefront user) is found as
// a private asset is (extract-assets); another owner's, or any for a job without an owner, stays
// "No mockup".
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { decodeImage } from '../../../../src/engine/raster';
import { assetKind, createAsset, scopeFor, stageBytes } from '../../../../src/platform/assets';
import { runnerTenant } from '../../../../src/platform/jobs/d1';
import { psdFixture } from '../../../helpers/fixtures';
import { seedPlatform } from '../../../helpers/platform';
import { createDesign, finalFiles, runStandaloneJob } from '../../jobs/helpers';

const project = (ownerId: string | null) => ({ id: 'p-private-mockup', ...(ownerId ? { ownerId } : {}), items: [{ itemId: '1', name: 'card', quantity: 1, designIds: ['pm-design'] }] });

async function privateMockup(id: string, owner: string) {
  const t = runnerTenant(env, 1, 'http://localhost');
  const staged = await stageBytes(env.FILES, 1, await psdFixture('agpsd-shapes-smart-objects.psd'));
  await createAsset(scopeFor(t, assetKind('mockup', true), owner, true), { staged, filename: 'agpsd-shapes-smart-objects.psd', id });
}

const tasks = (mockup: string) => [
  { name: 'extract', type: 'extract-project-design', outputArtifacts: ['design*'] },
  { name: 'onMockup', type: 'render-design-preview-with-mockup', inputArtifacts: ['design*'], outputArtifacts: ['mocked*'], parameters: { mockups: [mockup], previewOutputWidth: 300, previewOutputHeight: 300, outputName: 'design-on-mockup' } },
  { name: 'preview', type: 'render-preview', inputArtifacts: ['design*'], outputArtifacts: ['preview*'] },
  { name: 'imageOnMockup', type: 'render-image-preview', inputArtifacts: ['preview*'], outputArtifacts: ['imageMocked*'], parameters: { mockups: [mockup], previewOutputWidth: 200, previewOutputHeight: 200, previewOutputFileFormat: 'Png', outputName: 'image-on-mockup' } },
  { name: 'finalize', type: 'finalize', finalArtifacts: ['mocked*', 'imageMocked*'] },
];

beforeAll(async () => {
  await seedPlatform();
  await createDesign('pm-design');
  await privateMockup('pm-mockup-ada', 'ada');
  await privateMockup('pm-mockup-bob', 'bob');
});

describe('private mockups in mockup previews', () => {
  it("places the design and an image into the job owner's private mockup", async () => {
    const { status, job } = await runStandaloneJob('job-private-mockup', project('ada'), tasks('pm-mockup-ada'));
    expect(status, JSON.stringify(job.statusDescription)).toBe('Completed');
    const files = new Map((await finalFiles('job-private-mockup')).map((f) => [f.name, f.bytes]));
    const design = await decodeImage(files.get('design-on-mockup.jpg')!);
    expect(Math.max(design.width, design.height)).toBe(300);
    const image = await decodeImage(files.get('image-on-mockup.png')!);
    expect(Math.max(image.width, image.height)).toBe(200);
  });

  it('a job without an owner has no private mockups', async () => {
    const { status, job } = await runStandaloneJob('job-private-mockup-tenant', project(null), tasks('pm-mockup-bob'));
    expect(status).toBe('Failed');
    expect(JSON.stringify(job.statusDescription)).toContain('No mockup pm-mockup-bob');
  });

  it('public mockups still serve a job with an owner', async () => {
    const { status, job } = await runStandaloneJob('job-private-mockup-public', project('ada'), tasks('demo-mockup'));
    expect(status, JSON.stringify(job.statusDescription)).toBe('Completed');
  });

  it("another owner's private mockup is not found", async () => {
    const { status, job } = await runStandaloneJob('job-private-mockup-other', project('ada'), tasks('pm-mockup-bob'));
    expect(status).toBe('Failed');
    expect(JSON.stringify(job.statusDescription)).toContain('No mockup pm-mockup-bob');
  });
});
