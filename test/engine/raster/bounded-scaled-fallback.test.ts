import { describe, expect, it } from 'vitest';
import { Unprocessable } from '../../../src/engine/errors';
import { decodeBounded } from '../../../src/engine/raster/bounded';
import { decodeImage } from '../../../src/engine/raster/codecs';
import { resample } from '../../../src/engine/raster/resample';

// Tiny files mozjpeg's encoder wrote (robust4's random sweep, 2026-11-30) whose entropy data runs
// short: libjpeg decodes them with a warning, so decodeImage and a full-size decodeBounded give a
// picture. Placed at half size or less they went to the DCT-scaled decoder, which refused them
// (422): the same file was accepted placed large and refused placed small.
const FILES: Record<string, string> = {
  '8x1': '/9j/7gAOQWRvYmUAZAAAAAAA/9sAQwD//////////////////////////////////////////////////////////////////////////////////////8AAEQgAAQAIA1IRAEcRAEIRAP/EACcAAQAAAAAAAAAAAAAAAAAAAAAQAQEAAAAAAAAAAAAAAAAAAAAC/9oADANSAEcAQgAAPwDNj//Z',
  '1x7': '/9j/4AAQSkZJRgABAQAAAQABAAD/2wCEAA8LCwsNCwwKCgwPCg4KDxMMDg4MExkPEBIQDxkgExIVFRITIBgWGBoYFhgbHB8fHBshJCYkISotLSo1NzVBQU0BDwsLCw0LDAoKDA8KDgoPEwwODgwTGQ8QEhAPGSATEhUVEhMgGBYYGhgWGBscHx8cGyEkJiQhKi0tKjU3NUFBTf/AABEIAAcAAQMBIgACEQEDEQH/xAD8AAEAAAAAAAAAAAAAAAAAAAAEEAAABwAAAAAAAAAAAAAAAAAAAgMUVIHwAQADAQEBAQEBAQEBAAAAAAAAAQIDBAUGBwgJCgsRAAIBAgQEAwQHBQQEAAECdwABAgMRBAUhMQYSQVEHYXETIjKBCBRCkaGxwQkjM1LwFWJy0QoWJDThJfEXGBkaJicoKSo1Njc4OTpDREVGR0hJSlNUVVZXWFlaY2RlZmdoaWpzdHV2d3h5eoKDhIWGh4iJipKTlJWWl5iZmqKjpKWmp6ipqrKztLW2t7i5usLDxMXGx8jJytLT1NXW19jZ2uLj5OXm5+jp6vLz9PX29/j5+v/aAAwDAQACEQMRAD8Ac4JGR/7YdnL/AHp/+By/zOf2OF/6Bo/+B1P/AJI//9k=',
  '1x106': '/9j/7gAOQWRvYmUAZAAAAAAA/9sAQwAcFBQWFhYcFhYcJhgeGCYyHiQkHjVKKCowKihEWjQyODgyNFVCPkJIQj5CTE5WVk5MXmZsZl52gIB2lJqUtrbY/8AAEQgAagABA1IRAEcRAEIRAP/EADsAAQEBAAAAAAAAAAAAAAAAAAYABRAAAQICCAcAAAAAAAAAAAAAAAIEARUDEhMUUVNUkWGSk6LR0tP/2gAMA1IARwBCAAA/AKYU+vb7q91daaT/AO712+i5EfQNGkGiIhXUjo2m0DLr0mqddKj9xZa0eazfQKGmEyIhRa8XXMn2MtGXHan8CaxZ5dO8hc0g6SI1rw3xj2/MwpPTZNNsgQ3yGsp+zyZJ/wAPX8hfLneerqrAmd0+7EtlHOpOSl9nowNH/9k=',
};
const bytes = (s: string) => Uint8Array.from(atob(s), (c) => c.charCodeAt(0));

describe('decodeBounded: a JPEG the scaled decoder refuses', () => {
  it('is decoded whole and resized, as libjpeg reads it, not refused', async () => {
    for (const [name, b64] of Object.entries(FILES)) {
      const jpeg = bytes(b64);
      const whole = await decodeImage(jpeg);
      const half = { width: Math.ceil(whole.width / 2), height: Math.ceil(whole.height / 2) };
      const placed = await decodeBounded(jpeg, { path: name, size: half });
      const expected = await resample(whole, half.width, half.height, { quality: 'high' });
      expect([placed.width, placed.height], name).toEqual([half.width, half.height]);
      expect(Array.from(placed.data), name).toEqual(Array.from(expected.data));
    }
  });

  it('still refuses data nobody can decode (422: Unprocessable)', async () => {
    const jpeg = bytes(FILES['1x106']!).slice(0, 120);
    await expect(decodeBounded(jpeg, { path: 'p', size: { width: 1, height: 20 } })).rejects.toThrow(Unprocessable);
  });
});
