import { describe, expect, it } from 'vitest';
import { MODEL_LIMITS, resolveColor } from '../../../src/engine/print-product/schema';
import { InvalidInput } from '../../../src/engine/errors';
import { ModelValidationError, parseModel, validateModel } from '../../../src/engine/print-product/validate';

const fontExists = (name: string) => name === 'LiberationSans' || name === 'LiberationSans-Bold';

/** A small valid model; `items` go into the first container. */
function model(items: unknown[] = [], extra: Record<string, unknown> = {}) {
  return {
    version: 1,
    surfaces: [
      {
        id: 's1',
        name: 'Front',
        width: 252,
        height: 144,
        printAreas: [{ id: 'pa1', bounds: { x: 0, y: 0, width: 252, height: 144 }, bleed: { left: 9, top: 9, right: 9, bottom: 9 } }],
        containers: [{ id: 'c1', name: 'Main', items }],
        ...extra,
      },
    ],
  };
}

async function errorsOf(input: unknown) {
  const r = await validateModel(input, { fontExists });
  if (r.ok) throw new Error('expected errors');
  return r.errors;
}

describe('PrintProduct validator: structure and defaults', () => {
  it('fills defaults and generates missing ids', async () => {
    const m = await parseModel({ surfaces: [{ width: 100, height: 50, containers: [{ items: [{ type: 'Rectangle', width: 10, height: 10 }] }] }] });
    expect(m.version).toBe(1);
    const s = m.surfaces[0];
    expect(s.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(s.printAreas).toEqual([]);
    expect(s.mockup).toEqual({ up: null, down: null });
    expect(s.previewMockup).toBeNull();
    const c = s.containers[0];
    expect(c).toMatchObject({ name: '', visible: true, locked: false });
    expect(c.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(c.items[0]).toMatchObject({
      type: 'Rectangle', x: 0, y: 0, rotation: 0, opacity: 1, visible: true, locked: false, isVariable: false,
      fillColor: '#000000', borderColor: 'transparent', borderWidth: 0, cornerRadius: 0,
    });
    expect(c.items[0].id).not.toBe(c.id);
  });

  it('fills Text, Image, print-area and constraint defaults', async () => {
    const m = await parseModel(
      model([
        { id: 't', type: 'Text', width: 100, height: 20, font: { postscriptName: 'LiberationSans' } },
        { id: 'i', type: 'Image', width: 10, height: 10, isVariable: true, name: 'Photo', constraints: {} },
        { id: 'g', type: 'Group', width: 10, height: 10 },
      ]),
      { fontExists },
    );
    const [t, i, g] = m.surfaces[0].containers[0].items;
    expect(t).toMatchObject({
      text: '', placeholder: '', font: { postscriptName: 'LiberationSans', size: 12 }, color: '#000000', alignment: 'Left',
      verticalAlignment: 'Top', lineHeight: 1.2, letterSpacing: 0, fit: 'None',
    });
    expect(i).toMatchObject({ pageIndex: 0, fitMode: 'Fit', constraints: { required: false } });
    expect(g).toMatchObject({ items: [] });
    expect(m.surfaces[0].printAreas[0]).toMatchObject({ shape: 'Rectangle', cornerRadius: 0, name: '' });
  });

  it('matches property names and enum values ignoring case', async () => {
    const m = await parseModel({
      Version: 1,
      SURFACES: [{ Width: 10, height: 10, Containers: [{ items: [{ TYPE: 'text', width: 5, height: 5, Font: { PostScriptName: 'LiberationSans' }, alignment: 'justify', FIT: 'shrinktofit' }] }] }],
    });
    const t = m.surfaces[0].containers[0].items[0];
    expect(t).toMatchObject({ type: 'Text', alignment: 'Justify', fit: 'ShrinkToFit', font: { postscriptName: 'LiberationSans' } });
  });

  it('two spellings of one property → error at that path', async () => {
    const e = await errorsOf(model([{ type: 'Rectangle', width: 1, height: 1, fillColor: '#fff', FillColor: '#000' }]));
    expect(e['surfaces[0].containers[0].items[0].FillColor'][0]).toMatch(/two spellings/);
  });

  it('reports every structural error at once, by JSON path', async () => {
    const e = await errorsOf({
      version: 2,
      surfaces: [
        {
          width: -1,
          height: 20000,
          containers: [
            {
              items: [
                { type: 'Rectangle', width: 10, height: 10, fillColor: 'blue', opacity: 2 },
                { type: 'Triangle', width: 1, height: 1 },
                { type: 'Text', width: 10, height: 10, font: { size: 0 }, alignment: 'Middle' },
                { type: 'Image', width: 10, height: 10, source: { type: 'Url', url: 'ftp://x/y.png' }, fitMode: 'Cover' },
                { type: 'Ellipse', width: 10, height: 10, fillColour: '#fff' },
                { type: 'Group', width: 1, height: 1, items: [{ type: 'Text', width: 1, height: 1, font: { postscriptName: 'Nope' } }] },
              ],
            },
          ],
        },
      ],
    });
    const items = 'surfaces[0].containers[0].items';
    for (const path of [
      'version',
      'surfaces[0].width',
      'surfaces[0].height',
      `${items}[0].fillColor`,
      `${items}[0].opacity`,
      `${items}[1].type`,
      `${items}[2].font.postscriptName`,
      `${items}[2].font.size`,
      `${items}[2].alignment`,
      `${items}[3].source.url`,
      `${items}[3].fitMode`,
      `${items}[4].fillColour`,
      `${items}[5].items[0].font.postscriptName`,
    ]) {
      expect(e, path).toHaveProperty([path]);
    }
    expect(e[`${items}[0].fillColor`][0]).toMatch(/not a colour/);
    expect(e[`${items}[4].fillColour`]).toEqual(['unknown property']);
    expect(e[`${items}[5].items[0].font.postscriptName`][0]).toMatch(/unknown font "Nope"/);
  });

  it('the root and non-objects', async () => {
    expect(await errorsOf(null)).toHaveProperty(['$']);
    expect(await errorsOf({ surfaces: [] })).toHaveProperty(['surfaces']);
    expect(await errorsOf({ surfaces: 'x' })).toHaveProperty(['surfaces']);
  });

  it('parseModel throws a ModelValidationError (the engine InvalidInput: a 400 wherever it is mapped) with errors by path', async () => {
    const err = await parseModel({ surfaces: [{ width: 0, height: 1 }] }).catch((e) => e);
    expect(err).toBeInstanceOf(ModelValidationError);
    expect(err).toBeInstanceOf(InvalidInput);
    expect(err.errors).toHaveProperty(['surfaces[0].width']);
    expect(err.details).toContainEqual({ path: 'surfaces[0].width', reason: err.errors['surfaces[0].width'][0] });
    expect(err.message).toMatch(/^The design model is invalid: surfaces\[0\]\.width: /);
  });

  it('colours: transparent, hex, rgb(a), cmyk', async () => {
    const ok = await validateModel(
      model(['transparent', 'TRANSPARENT', '#abc', '#aabbcc', 'rgb(1,2,3)', 'rgba(1,2,3,0.5)', 'cmyk(0,100,100,0)'].map((c) => ({ type: 'Rectangle', width: 1, height: 1, fillColor: c }))),
    );
    expect(ok.ok).toBe(true);
    const e = await errorsOf(model(['#ab', 'rgb(300,0,0)', 'cmyk(0,0,0)', 'red'].map((c) => ({ type: 'Rectangle', width: 1, height: 1, borderColor: c }))));
    expect(Object.keys(e)).toHaveLength(4);
    expect(resolveColor('transparent')).toBeNull();
    expect(resolveColor('cmyk(0,100,50,10)')).toMatchObject({ cmyk: [0, 1, 0.5, 0.1] });
    expect(resolveColor('#ff0000')).toEqual({ r: 255, g: 0, b: 0, a: 1 });
  });

  it('sources: Storage, Url, Embedded and their shapes', async () => {
    const ok = await validateModel(
      model([
        { type: 'Image', width: 1, height: 1, source: { type: 'Storage', id: '0123456789abcdef01234567', ownerId: 'u1' } },
        { type: 'Image', width: 1, height: 1, source: { type: 'url', url: 'https://example.com/a.png', headers: { 'X-Key': 'v' } } },
        { type: 'Image', width: 1, height: 1, source: { type: 'Embedded', key: 'logo.png' } },
      ]),
    );
    expect(ok.ok).toBe(true);
    const e = await errorsOf(
      model([
        { type: 'Image', width: 1, height: 1, source: { type: 'Storage' } },
        { type: 'Image', width: 1, height: 1, source: { type: 'Url', url: 'not a url' } },
        { type: 'Image', width: 1, height: 1, source: { type: 'Embedded', key: '' } },
        { type: 'Image', width: 1, height: 1, source: { type: 'Ftp', key: 'x' } },
        { type: 'Image', width: 1, height: 1, source: { type: 'Storage', id: 'bad id!' } },
        { type: 'Image', width: 1, height: 1, source: { type: 'Url', url: 'https://x/y', headers: { a: 1 } } },
      ]),
    );
    const items = 'surfaces[0].containers[0].items';
    for (const p of [`[0].source.id`, `[1].source.url`, `[2].source.key`, `[3].source.type`, `[4].source.id`, `[5].source.headers.a`]) {
      expect(e, p).toHaveProperty([`${items}${p}`]);
    }
  });

  it('a non-variable Image needs a source; an Image variable may be empty', async () => {
    const e = await errorsOf(model([{ type: 'Image', width: 1, height: 1 }]));
    expect(e['surfaces[0].containers[0].items[0].source'][0]).toMatch(/needs a source/);
    expect((await validateModel(model([{ type: 'Image', name: 'Photo', isVariable: true, width: 1, height: 1 }]))).ok).toBe(true);
  });
});

describe('PrintProduct validator: semantic rules', () => {
  const items = 'surfaces[0].containers[0].items';

  it('ids are unique across surfaces, print areas, containers and items', async () => {
    const e = await errorsOf(
      model([
        { id: 'x', type: 'Rectangle', width: 1, height: 1 },
        { id: 'x', type: 'Rectangle', width: 1, height: 1 },
        { id: 'c1', type: 'Group', width: 1, height: 1, items: [{ id: 's1', type: 'Ellipse', width: 1, height: 1 }] },
      ]),
    );
    expect(e[`${items}[1].id`][0]).toMatch(/already used by surfaces\[0\]\.containers\[0\]\.items\[0\]/);
    expect(e[`${items}[2].id`][0]).toMatch(/already used by surfaces\[0\]\.containers\[0\]$/);
    expect(e[`${items}[2].items[0].id`][0]).toMatch(/already used by surfaces\[0\]$/);
  });

  it('unknown fonts → error at font.postscriptName; known fonts pass', async () => {
    const e = await errorsOf(model([
      { type: 'Text', width: 1, height: 1, font: { postscriptName: 'LiberationSans' } },
      { type: 'Text', width: 1, height: 1, font: { postscriptName: 'Comic-Sans' } },
    ]));
    expect(Object.keys(e)).toEqual([`${items}[1].font.postscriptName`]);
    // An async lookup works as well.
    const r = await validateModel(model([{ type: 'Text', width: 1, height: 1, font: { postscriptName: 'X' } }]), { fontExists: async () => true });
    expect(r.ok).toBe(true);
  });

  it('variables: Text or Image only, named, names unique', async () => {
    const e = await errorsOf(
      model([
        { type: 'Rectangle', isVariable: true, name: 'R', width: 1, height: 1 },
        { type: 'Text', isVariable: true, width: 1, height: 1, font: { postscriptName: 'LiberationSans' } },
        { type: 'Text', isVariable: true, name: 'Name', width: 1, height: 1, font: { postscriptName: 'LiberationSans' } },
        { type: 'Image', isVariable: true, name: 'Name', width: 1, height: 1 },
      ]),
    );
    expect(e[`${items}[0].isVariable`][0]).toMatch(/only Text and Image/);
    expect(e[`${items}[1].name`][0]).toMatch(/needs a name/);
    expect(e[`${items}[3].name`][0]).toMatch(/already used/);
  });

  it('constraints: only on variables, maxLength for Text, allowedFolder for Image, text within maxLength', async () => {
    const e = await errorsOf(
      model([
        { type: 'Text', name: 'a', width: 1, height: 1, font: { postscriptName: 'LiberationSans' }, constraints: { required: true } },
        { type: 'Image', name: 'b', isVariable: true, width: 1, height: 1, constraints: { maxLength: 3 } },
        { type: 'Text', name: 'c', isVariable: true, width: 1, height: 1, font: { postscriptName: 'LiberationSans' }, constraints: { allowedFolder: '/x' } },
        { type: 'Text', name: 'd', isVariable: true, text: 'toolong', width: 1, height: 1, font: { postscriptName: 'LiberationSans' }, constraints: { maxLength: 3 } },
        { type: 'Text', name: 'e', isVariable: true, width: 1, height: 1, font: { postscriptName: 'LiberationSans' }, constraints: { maxLength: -1 } },
      ]),
    );
    expect(e[`${items}[0].constraints`][0]).toMatch(/variables only/);
    expect(e[`${items}[1].constraints.maxLength`][0]).toMatch(/Text items only/);
    expect(e[`${items}[2].constraints.allowedFolder`][0]).toMatch(/Image items only/);
    expect(e[`${items}[3].text`][0]).toMatch(/maxLength \(3/);
    expect(e).toHaveProperty([`${items}[4].constraints.maxLength`]);
  });

  it('corner radius at most half the shorter side', async () => {
    const e = await errorsOf(model([{ type: 'Rectangle', width: 10, height: 4, cornerRadius: 3 }]));
    expect(e[`${items}[0].cornerRadius`][0]).toMatch(/half the shorter side \(2\)/);
  });

  it('print areas: inside the surface, page within 14,400 pt, rounded radius', async () => {
    const e = await errorsOf({
      surfaces: [
        {
          width: 14_400,
          height: 100,
          printAreas: [
            { bounds: { x: -1, y: 0, width: 10, height: 10 } },
            { bounds: { x: 0, y: 0, width: 14_400, height: 10 }, bleed: { left: 1 } },
            { bounds: { x: 0, y: 0, width: 10, height: 10 }, shape: 'RoundedRectangle', cornerRadius: 6 },
            { bounds: { x: 0, y: 0, width: 0, height: 10 }, shape: 'Hexagon' },
          ],
        },
      ],
    });
    expect(e['surfaces[0].printAreas[0].bounds'][0]).toMatch(/within the surface/);
    expect(e['surfaces[0].printAreas[1].bleed'][0]).toMatch(/14400 pt/);
    expect(e['surfaces[0].printAreas[2].cornerRadius'][0]).toMatch(/half/);
    expect(e).toHaveProperty(['surfaces[0].printAreas[3].bounds.width']);
    expect(e).toHaveProperty(['surfaces[0].printAreas[3].shape']);
  });

  it('limits: 50 surfaces, 2,000 items, names ≤ 255', async () => {
    const surface = { width: 1, height: 1 };
    expect(await errorsOf({ surfaces: Array.from({ length: MODEL_LIMITS.surfaces + 1 }, () => ({ ...surface })) })).toHaveProperty(['surfaces']);
    expect((await validateModel({ surfaces: Array.from({ length: MODEL_LIMITS.surfaces }, () => ({ ...surface })) })).ok).toBe(true);
    const many = (n: number) => Array.from({ length: n }, () => ({ type: 'Rectangle', width: 1, height: 1 }));
    const e = await errorsOf(model([...many(1990), { type: 'Group', width: 1, height: 1, items: many(10) }]));
    expect(e.surfaces[0]).toMatch(/at most 2000 items.*2001/);
    expect((await validateModel(model(many(2000)))).ok).toBe(true);
    const long = 'n'.repeat(256);
    const e2 = await errorsOf({ surfaces: [{ name: long, width: 1, height: 1, containers: [{ name: long, items: [{ type: 'Ellipse', name: long, width: 1, height: 1 }] }] }] });
    expect(Object.keys(e2).sort()).toEqual(['surfaces[0].containers[0].items[0].name', 'surfaces[0].containers[0].name', 'surfaces[0].name']);
  });

  it('mockups need a source and a size', async () => {
    const e = await errorsOf(model([], { mockup: { up: { x: 0, y: 0, width: 0, height: 1 } } }));
    expect(e).toHaveProperty(['surfaces[0].mockup.up.source']);
    expect(e).toHaveProperty(['surfaces[0].mockup.up.width']);
  });
});
