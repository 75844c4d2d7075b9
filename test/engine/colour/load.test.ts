import { expect, it } from 'vitest';
import { lcmsSync } from '../../../src/engine/colour/lcms';

it('instantiates LittleCMS synchronously inside workerd, once per isolate', () => {
  const m = lcmsSync();
  expect(lcmsSync()).toBe(m);
  const lab = m._cmsCreateLab4Profile(0);
  expect(m._cmsGetColorSpace(lab)).toBe(0x4c616220); // 'Lab '
  m._cmsCloseProfile(lab);
});
