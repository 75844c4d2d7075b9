import { beforeAll, describe, expect, it } from 'vitest';
import { psdFixture, runTool } from '../helpers/fixtures';
import { pdfInfo } from '../engine/pdf/helpers';
import { call, postJson, upload } from './helpers';

const MM_PT = 72 / 25.4;

async function hiresBytes(template: string): Promise<Uint8Array> {
  const res = await postJson('/api/rendering/hires?disableCache=true', { template });
  expect(res.status).toBe(200);
  const name = /[^/]+$/.exec((await res.json()) as string)![0];
  return new Uint8Array(await (await call(`/api/results/download/${name}`)).arrayBuffer());
}

describe('bleed of PSD templates (upload query bleed)', () => {
  let template: string;
  beforeAll(async () => {
    const res = await upload('templates', [['bleed-card.psd', await psdFixture('psdtools-text.psd')]], '?destination=bleed&overwrite=true&bleed=3mm');
    expect(res.status, await res.clone().text()).toBe(201);
    template = ((await res.json()) as string[])[0];
  });

  it('is shown by /api/information/template, as given and in pixels', async () => {
    const res = await postJson('/api/information/template', { template });
    const info = (await res.json()) as { bleed?: { value: string; pixels: number } };
    expect(info.bleed?.value).toBe('3mm');
    expect(info.bleed?.pixels).toBeGreaterThan(0);
  });

  it('print PDFs: TrimBox = the canvas inset by the bleed, BleedBox = MediaBox = the canvas', async () => {
    const info = pdfInfo((await runTool('pdfinfo', await hiresBytes(template))).stdout);
    const [, , w, h] = info.boxes.MediaBox;
    expect(info.boxes.BleedBox).toEqual(info.boxes.MediaBox);
    const trim = info.boxes.TrimBox;
    const b = 3 * MM_PT;
    [b, b, w - b, h - b].forEach((v, i) => expect(trim[i]).toBeCloseTo(v, 1));
  });

  it('a re-upload without bleed gives Trim = Media again (the bleed is part of the cache key)', async () => {
    const res = await upload('templates', [['bleed-card.psd', await psdFixture('psdtools-text.psd')]], '?destination=bleed&overwrite=true');
    expect(res.status).toBe(201);
    const info = pdfInfo((await runTool('pdfinfo', await hiresBytes(template))).stdout);
    expect(info.boxes.TrimBox).toEqual(info.boxes.MediaBox);
  });

  it('a malformed bleed is a 400 naming it; one that leaves no trim a 422; nothing is stored', async () => {
    const bad = await upload('templates', [['bad.psd', await psdFixture('psdtools-text.psd')]], '?destination=bleed&bleed=3furlongs');
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { details: Array<{ path: string }> }).details[0].path).toBe('bleed');
    const big = await upload('templates', [['big.psd', await psdFixture('psdtools-text.psd')]], '?destination=bleed&bleed=20in');
    expect(big.status).toBe(422);
    expect((await postJson('/api/information/template', { template: 'bleed/big.psd' })).status).toBe(404);
  });
});
