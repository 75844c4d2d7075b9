import { beforeAll, describe, expect, it } from 'vitest';
import { buildOverrides, validateData } from '../../../src/engine/personalise';
import { ApiError } from '../../../src/errors';
import { toApiError } from '../../../src/dynamic-image/errors';
import { notFound } from '../../../src/engine/errors';
import type { LayerNode } from '../../../src/engine/types';
import { layerNode as node } from './helpers';


const tree: LayerNode[] = [
  node(6, 'Title', 'Text', { text: { text: 'Hello', font: 'ArialMT', size: 12, color: '#000000' } }),
  node(5, 'Variants', 'Group', { children: [node(4, 'Red', 'Image'), node(3, 'Blue', 'Image')] }),
  node(2, 'Badge', 'Shape'),
  node(1, 'Photo', 'SmartObject', { smartObject: { corners: [0, 0, 10, 0, 10, 10, 0, 10], width: 10, height: 10 } }),
  node(0, 'Background', 'Image'),
];

function errorOf(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (err) {
    const e = toApiError(err);
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error('expected an ApiError');
}

describe('validateData: every problem is a 400 naming its path', () => {
  it.each([
    ['unknown layer name', { Nope: { visible: false } }, 'data.Nope', /no layer named "Nope"/],
    ['layer names match exactly (case matters)', { title: { type: 'text', text: 'x' } }, 'data.title', /no layer/],
    ['text on a non-text layer', { Badge: { type: 'text', text: 'x' } }, 'data.Badge.type', /Text layers; "Badge" is a Shape layer/],
    ['image on a text layer', { Title: { type: 'image', image: 'a.png' } }, 'data.Title.type', /Image or SmartObject/],
    ['shape on an image layer', { Background: { type: 'shape', color: '#fff' } }, 'data.Background.type', /Shape layers/],
    ['switch on a non-group', { Badge: { type: 'switch', select: 'x' } }, 'data.Badge.type', /Group layers/],
    ['switch to a child that does not exist', { Variants: { type: 'switch', select: 'Green' } }, 'data.Variants.select', /no child layer named "Green"/],
    ['bad colour', { Title: { type: 'text', text: 'x', color: 'blue' } }, 'data.Title.color', /not a colour/],
    ['shape without colour', { Badge: { type: 'shape' } }, 'data.Badge.color', /expected string/],
    ['unknown command type', { Title: { type: 'sparkle' } }, 'data.Title.type', /Invalid/],
    ['text without text', { Title: { type: 'text' } }, 'data.Title.text', /expected string/],
    ['non-positive size', { Title: { type: 'text', text: 'x', size: 0 } }, 'data.Title.size', /./],
    // resvg lays a long line out in more than linear time (commands.ts MAX_TEXT_LENGTH).
    ['a text over 10,000 code units', { Title: { type: 'text', text: 'x'.repeat(10_001) } }, 'data.Title.text', /10000/],
    ['bad resize mode', { Photo: { type: 'image', image: 'a.png', resizeMode: 'stretch' } }, 'data.Photo.resizeMode', /./],
    ['visible not a boolean', { Badge: { visible: 'no' } }, 'data.Badge.visible', /boolean/],
    ['a command that is not an object', { Badge: 'hide' }, 'data.Badge', /./],
  ])('%s', (_, data, path, reason) => {
    const err = errorOf(() => validateData(tree, data));
    expect(err.status).toBe(400);
    const detail = err.details?.find((d) => d.path === path);
    expect(detail, JSON.stringify(err.details)).toBeDefined();
    expect(detail!.reason).toMatch(reason);
  });

  it('reports every problem at once', () => {
    const err = errorOf(() =>
      validateData(tree, { Nope: { visible: true }, Title: { type: 'text', text: 'x', color: '#12' }, Badge: { type: 'text', text: 'y' } }),
    );
    expect(err.details?.map((d) => d.path).sort()).toEqual(['data.Badge.type', 'data.Nope', 'data.Title.color']);
  });

  it('refuses `data` that is not an object', () => {
    expect(errorOf(() => validateData(tree, [1, 2])).details?.[0].path).toBe('data');
  });

  it('accepts an absent or empty data map', () => {
    expect(validateData(tree, undefined)).toEqual([]);
    expect(validateData(tree, {})).toEqual([]);
  });
});

describe('buildOverrides: validation comes before any loading', () => {
  let loads: string[];
  beforeAll(() => {
    loads = [];
  });

  it('loads no font or image when the data is invalid', async () => {
    const ctx = {
      scale: 1,
      loadFont: async (n: string) => (loads.push(n), null),
      loadImage: async (r: string) => (loads.push(r), { width: 1, height: 1, data: new Uint8ClampedArray(4) }),
    };
    await expect(
      buildOverrides(tree, { Title: { type: 'text', text: 'x' }, Photo: { type: 'image', image: 'a.png' }, Nope: { visible: false } }, ctx),
    ).rejects.toMatchObject({ code: 'ERR_INVALID_INPUT' });
    expect(loads).toEqual([]);
  });

  it('an image that cannot be fetched is a 4xx naming data.<layer>.image', async () => {
    const ctx = {
      scale: 1,
      loadFont: async () => null,
      loadImage: async (ref: string): Promise<never> => {
        if (ref === 'missing.png') throw notFound('No image missing.png.');
        throw new Error('unexpected bytes');
      },
    };
    const err = (await buildOverrides(tree, { Photo: { type: 'image', image: 'missing.png' } }, ctx).catch(toApiError)) as ApiError;
    expect(err.status).toBe(404);
    expect(err.details).toEqual([{ path: 'data.Photo.image', reason: 'No image missing.png.' }]);

    const bad = (await buildOverrides(tree, { Background: { type: 'image', image: 'junk.bin' } }, ctx).catch(toApiError)) as ApiError;
    expect(bad.status).toBe(422);
    expect(bad.details?.[0].path).toBe('data.Background.image');
    expect(bad.details?.[0].reason).toMatch(/unexpected bytes/);
  });

  it('a requested font that is not in the store is a 400 naming data.<layer>.font', async () => {
    const ctx = { scale: 1, loadFont: async () => null, loadImage: async () => ({ width: 1, height: 1, data: new Uint8ClampedArray(4) }) };
    const err = (await buildOverrides(tree, { Title: { type: 'text', text: 'x', font: 'NoSuchFont-Regular' } }, ctx).catch(toApiError)) as ApiError;
    expect(err.status).toBe(400);
    expect(err.details).toEqual([{ path: 'data.Title.font', reason: 'the font store has no font "NoSuchFont-Regular"' }]);
  });
});

describe('command property names match case-insensitively (rendering contract)', () => {
  it('accepts {"Type": "Text", "TEXT": …, "Color": …} and {"resizemode": "Fill"}', () => {
    const targets = validateData(tree, {
      Title: { Type: 'Text', TEXT: 'Hi', Color: '#fff' },
      Photo: { type: 'IMAGE', Image: 'a.png', resizemode: 'Fill' },
    });
    expect(targets.map((t) => t.command)).toEqual([
      { type: 'text', text: 'Hi', color: '#fff' },
      { type: 'image', image: 'a.png', resizeMode: 'fill' },
    ]);
  });
});

describe('buildOverrides: damaged fonts', () => {
  it('a stored font that cannot be read is a 422 naming the layer, not a 500', async () => {
    const ctx = { scale: 1, loadFont: async () => new TextEncoder().encode('not a font file, just text'), loadImage: async () => ({ width: 1, height: 1, data: new Uint8ClampedArray(4) }) };
    const err = (await buildOverrides(tree, { Title: { type: 'text', text: 'new' } }, ctx).catch(toApiError)) as ApiError;
    expect(err).toBeInstanceOf(ApiError);
    expect(err.status).toBe(422);
    expect(err.details?.[0].path).toBe('data.Title.font');
  });
});

describe('layers sharing a name', () => {
  it('a wrong command on several same-named layers is reported once', () => {
    const twins: LayerNode[] = [node(1, 'Badge', 'Shape'), node(0, 'Badge', 'Shape')];
    const err = errorOf(() => validateData(twins, { Badge: { type: 'text', text: 'x' } }));
    expect(err.details).toHaveLength(1);
  });
});
