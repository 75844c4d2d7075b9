import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { prepareHires } from '../../../src/engine/pdf/prepare';
import { preflightPreview, preparePreview } from '../../../src/engine/preview';
import { FileStore } from '../../../src/dynamic-image/store';
import { upload, uploadFixture } from '../../dynamic-image/helpers';
import { bundledFont } from '../fonts/helpers';
import { renderDeps } from '../pdf/helpers';

const store = () => new FileStore(env.FILES);
const POINT = 'Line 1 Line 2 Line 3 and text';
const data = { [POINT]: { type: 'text' as const, text: 'Jonathan Livingstone-Smith of Upper Wallop and Nether Wallop', fit: 'shrink' as const } };

let template: string;
beforeAll(async () => {
  const font = await upload('fonts', [['LiberationSans-Regular.ttf', await bundledFont('LiberationSans-Regular.ttf')]], '?overwrite=true');
  expect(font.status).toBe(201);
  template = await uploadFixture('psdtools-text.psd', 'personalise-fit');
});

describe('one layout for preview, print PDF and preflight', () => {
  it('the shrunk size is the same in a small preview, in the hires PDF and in preflight', async () => {
    const preview = await preparePreview(store(), { template, data, format: 'png', size: { width: 100, height: 100 }, jpegQuality: 90, unsharpMask: null }, renderDeps());
    await preview.render();
    const hires = await prepareHires(store(), { template, data }, renderDeps());
    await hires.load();
    const shrunk = (problems: Array<{ code: string; details?: Record<string, unknown> }>) => problems.find((p) => p.code === 'textShrunk')?.details;
    const fromPreview = shrunk(preview.problems());
    expect(fromPreview).toBeDefined();
    expect((fromPreview!.size as number) < 13).toBe(true);
    expect(shrunk(hires.problems())).toEqual(fromPreview);
    const report = await preflightPreview(store(), { template, data, format: 'png', size: { width: 100, height: 100 }, jpegQuality: 90, unsharpMask: null }, renderDeps());
    expect(shrunk(report.problems)).toEqual(fromPreview);
    expect(report.problems.map((p) => p.code).sort()).toEqual(preview.problems().map((p) => p.code).sort());
  });
});
