/**
 * A print page learns whether its template is a CMYK document from the PSD's header alone, and a
 * CMYK document's profile from its first sections: no template is read whole for it (issue 25 §1:
 * a 10,000² RGB template's 10.8 MB read was ~6 MB of a print PDF's growth in workerd, an 8,000²
 * CMYK one's 11 MB was left to the collector beside its strips).
 */
import { env } from 'cloudflare:workers';
import { beforeAll, expect, it } from 'vitest';
import { FileStore } from '../../../src/dynamic-image/store';
import { prepareHires } from '../../../src/engine/pdf/prepare';
import type { InputRoot, InputStore } from '../../../src/engine/inputs';
import { madeFixture } from '../../helpers/fixtures';
import { upload } from '../../dynamic-image/helpers';
import { renderDeps } from './helpers';
import { psdInk } from '../../../src/engine/pdf/psd-ink';
import { defaultProfile } from '../../../src/engine/colour';

const FILES = ['made-mask-density.psd', 'made-cmyk8.psd'];

beforeAll(async () => {
  const res = await upload('templates', await Promise.all(FILES.map(async (n) => [n, await madeFixture(n)] as [string, Uint8Array])), '?destination=template-ink&overwrite=true');
  expect(res.status).toBe(201);
});

/** The store, counting whole reads and header reads of templates. */
function counting() {
  const files = new FileStore(env.FILES);
  const whole: string[] = [];
  const starts: string[] = [];
  const store: InputStore = {
    bucket: files.bucket,
    head: (root, name) => files.head(root, name),
    put: (root, name, bytes, options) => files.put(root, name, bytes, options),
    fonts: () => files.fonts(),
    read: (root: InputRoot, name: string) => (root === 'templates' && whole.push(name), files.read(root, name)),
    readStart: (root: InputRoot, name: string, length: number) => (root === 'templates' && starts.push(name), files.readStart(root, name, length)),
  };
  return { store, whole, starts };
}

it('reads an RGB template’s header only, and a CMYK one’s first sections for its profile', async () => {
  const rgb = counting();
  const page = await prepareHires(rgb.store, { template: 'template-ink/made-mask-density.psd' }, renderDeps());
  await page.load();
  expect(rgb.starts).toEqual(['template-ink/made-mask-density.psd']);
  expect(rgb.whole).toEqual([]);

  const cmyk = counting();
  const inked = await prepareHires(cmyk.store, { template: 'template-ink/made-cmyk8.psd' }, renderDeps());
  await inked.load();
  // The header, then the sections up to the layers' length (its profile among the resources):
  // never the whole file (an 8,000² CMYK template's 11 MB read was garbage beside its first PDF).
  expect(cmyk.starts.length).toBeGreaterThan(1);
  expect(new Set(cmyk.starts)).toEqual(new Set(['template-ink/made-cmyk8.psd']));
  expect(cmyk.whole).toEqual([]);
  // The output profile is the one the whole file gives: its own (resource 1039) or the default.
  const own = psdInk(await madeFixture('made-cmyk8.psd'))!.icc;
  expect(inked.output.profile?.bytes).toEqual(own ?? defaultProfile('Cmyk'));
});

