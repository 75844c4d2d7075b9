import { expect, it } from 'vitest';
import { lcms } from '../../../src/engine/colour/lcms';

it('loads LittleCMS as a Worker module', async () => {
  const m = await lcms();
  const p = m.cmsCreate_sRGBProfile();
  expect(m.cmsGetColorSpaceASCII(p)).toBe('RGB');
});
