import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { FileStore } from '../../../src/dynamic-image/store';
import { renderFrame } from '../../../src/engine/frame';
import { UrlImages } from '../../../src/engine/inputs';
import { preparePreview } from '../../../src/engine/preview';
import { decodeImage } from '../../../src/engine/raster';
import { readIcc } from '../../../src/engine/raster/icc';
import { ServerTiming } from '../../../src/http/server-timing';
import { uploadFixture } from '../../dynamic-image/helpers';

describe('PNG previews above 16 MB (issue 25 §1)', () => {
  // Whether the frame is held or coded as its strips are drawn (renderFramePng), the file must
  // decode to the frame drawn whole, alpha kept, with the template's profile.
  it('come with their ICC profile and the pixels of the frame drawn whole, alpha kept', { timeout: 120_000 }, async () => {
    const name = await uploadFixture('psdrb-example-design.psd', 'stream-png');
    const store = new FileStore(env.FILES);
    // 900×600 enlarged to 2550×1700: a 17 MB frame.
    const prepared = await preparePreview(store, { template: name, format: 'png', jpegQuality: 85, size: { width: 2550, height: 1700 }, unsharpMask: null }, { urlImages: new UrlImages(async () => { throw new Error('no URL images'); }) });
    const { bytes, contentType } = await prepared.render(new ServerTiming());
    expect(contentType).toBe('image/png');
    expect(await readIcc(bytes, 'png')).not.toBeNull();
    const compiled = prepared.template.compiled;
    const whole = await renderFrame(env.FILES, compiled, { scale: 2550 / compiled.width, width: 2550, height: 1700, quality: 'high', sharpen: null, background: 'transparent' }, new ServerTiming());
    const got = (await decodeImage(bytes)).data;
    const want = whole.image.data;
    // Counted, not compared with toEqual: the diff of 17 MB arrays would not fit in memory.
    let differing = 0;
    for (let i = 0; i < want.length; i++) if (got[i] !== want[i]) differing++;
    expect([got.length, differing]).toEqual([want.length, 0]);
  });
});
