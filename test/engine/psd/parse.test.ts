import { writePsdUint8Array } from 'ag-psd';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { compileTemplate, MAX_LAYERS, readHeader } from '../../../src/engine';
import { ApiError } from '../../../src/errors';
import { toApiError } from '../../../src/dynamic-image/errors';
import { psdFixture } from '../../helpers/fixtures';

/** A copy of a fixture with header fields patched (offsets per the PSD file format). */
async function patched(name: string, patch: (view: DataView) => void): Promise<Uint8Array> {
  const bytes = (await psdFixture(name)).slice();
  patch(new DataView(bytes.buffer));
  return bytes;
}

async function refusal(p: Promise<unknown> | (() => unknown)): Promise<ApiError> {
  try {
    await (typeof p === 'function' ? p() : p);
  } catch (err) {
    const e = toApiError(err);
    expect(e).toBeInstanceOf(ApiError);
    expect((e as ApiError).status).toBe(422);
    return e as ApiError;
  }
  throw new Error('expected a 422 refusal');
}

describe('PSD intake', () => {
  it('refuses an unknown colour mode with 422 naming it (Lab and Multichannel are read: modes-render.test.ts)', async () => {
    const bytes = await patched('pillow-hopper-photo.psd', (v) => v.setUint16(24, 6));
    const e = await refusal(() => readHeader(bytes));
    expect(e.message).toMatch(/mode 6/);
  });

  it('refuses a bit depth Photoshop does not write, or 32 bits outside RGB and Grayscale, with 422 naming it', async () => {
    const e = await refusal(() => patched('pillow-hopper-photo.psd', (v) => v.setUint16(22, 24)).then(readHeader));
    expect(e.message).toMatch(/24/);
    const lab32 = await patched('pillow-hopper-photo.psd', (v) => (v.setUint16(22, 32), v.setUint16(24, 9)));
    expect((await refusal(compileTemplate(env.FILES, lab32))).message).toMatch(/32-bit Lab/);
  });

  it('refuses templates over 10,000 px a side', async () => {
    const bytes = await patched('pillow-hopper-photo.psd', (v) => v.setUint32(18, 10_001));
    const e = await refusal(() => readHeader(bytes));
    expect(e.message).toMatch(/10001x128/);
  });

  it('refuses files that are not 8BPS version 1 or 2', async () => {
    await refusal(() => readHeader(new TextEncoder().encode('GIF89a'.padEnd(40, '\0'))));
    const v3 = await patched('pillow-hopper-photo.psd', (v) => v.setUint16(4, 3));
    await refusal(() => readHeader(v3));
  });

  it('refuses a corrupt PSD with 422, not a crash', async () => {
    const bytes = (await psdFixture('pillow-hopper-photo.psd')).slice(0, 3000);
    await refusal(compileTemplate(env.FILES, bytes));
    // Structure intact, pixel data garbled: every byte after the layer records flipped.
    const garbled = (await psdFixture('agpsd-groups.psd')).slice();
    for (let i = Math.floor(garbled.length / 2); i < garbled.length; i++) garbled[i] ^= 0x5a;
    try {
      await compileTemplate(env.FILES, garbled);
    } catch (err) {
      const e = toApiError(err);
      expect(e).toBeInstanceOf(ApiError);
      expect((e as ApiError).status).toBe(422);
    }
  });

  it(`refuses more than ${MAX_LAYERS} layers`, async () => {
    const children = Array.from({ length: MAX_LAYERS + 1 }, (_, i) => ({ name: `l${i}` }));
    const bytes = writePsdUint8Array({ width: 8, height: 8, children });
    const e = await refusal(compileTemplate(env.FILES, bytes));
    expect(e.message).toMatch(/1001 layers/);
  });

  it('reads PSB (version 2) templates', async () => {
    const header = readHeader(await psdFixture('agpsd-shapes-psb.psb'));
    expect(header.version).toBe(2);
  });
});
