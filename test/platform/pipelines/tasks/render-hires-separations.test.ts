// render-hires with hiResOutputChannelContainersToSeparateFiles (issue 20 §2): a PSD with spot
// channels gives one PDF per separation, the process plates first, each spot named in its file.
import { env } from 'cloudflare:workers';
import { beforeAll, expect, it } from 'vitest';
import { assetKind, createAsset, scopeFor, stageBytes } from '../../../../src/platform/assets';
import { runnerTenant } from '../../../../src/platform/jobs/d1';
import { fixtureServer } from '../../../helpers/fixtures';
import { apiJson, seedPlatform } from '../../../helpers/platform';
import { drive, stubOfJob } from '../../jobs/helpers';

beforeAll(async () => {
  await seedPlatform();
  const bytes = new Uint8Array(await (await fetch(`${fixtureServer()}/fixtures/psd-made/made-spot-cmyk8.psd`)).arrayBuffer());
  const staged = await stageBytes(env.FILES, 1, bytes);
  await createAsset(scopeFor(runnerTenant(env, 1, 'http://localhost'), assetKind('design', false), null), { staged, filename: 'made-spot-cmyk8.psd', id: 'spot-design' });
});

async function run(id: string, output: string, separate: boolean) {
  await apiJson(
    'POST',
    '/api/rendering/v1/jobs',
    {
      id,
      project: { items: [{ itemId: '1', designIds: ['spot-design'] }] },
      tasks: [
        { name: 'extract', type: 'extract-project-design', outputArtifacts: ['design'] },
        { name: 'render', type: 'render-hires', inputArtifacts: ['design'], outputArtifacts: [output], parameters: { hiResOutputChannelContainersToSeparateFiles: separate } },
        { name: 'finalize', type: 'finalize', finalArtifacts: [output] },
      ],
    },
    { token: 1 },
    201,
  );
  const { status } = await drive(stubOfJob(id), id);
  const description = (await stubOfJob(id).view(id))?.job.statusDescription;
  const rows = await env.DB.prepare(`SELECT name, r2_key AS key FROM artifacts WHERE tenant_id = 1 AND job_id = ?1 AND type = 'Final' ORDER BY id`).bind(id).all<{ name: string; key: string }>();
  return { status, description, files: rows.results };
}

it('writes the process plates and each spot channel to files of their own', async () => {
  const { status, files } = await run('separations', 'file*', true);
  expect(status).toBe('Completed');
  expect(files).toHaveLength(3);
  const names = files.map((f) => f.name).join(' | ');
  expect(names).toMatch(/PANTONE_185_C/);
  expect(names).toMatch(/Gloss_Varnish/);
  for (const f of files) {
    const pdf = new TextDecoder('latin1').decode(new Uint8Array(await (await env.FILES.get(f.key))!.arrayBuffer()));
    expect(pdf.startsWith('%PDF-')).toBe(true);
  }
});

it('asks for a collection output when there is more than one separation', async () => {
  const { status, description } = await run('separations-one', 'file', true);
  expect(status).toBe('Failed');
  expect(String(description)).toMatch(/2 spot channels, a file each; file takes one \(use file\*\)/);
});

it('writes one file without the parameter', async () => {
  const { status, files } = await run('separations-off', 'file', false);
  expect(status).toBe('Completed');
  expect(files).toHaveLength(1);
});
