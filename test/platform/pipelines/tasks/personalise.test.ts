// The mapping from a project item's `fields` to a design's personalisation (docs/pipelines.md,
// "Personalisation"): field name → layer (PSD) or variable (PrintProduct), exactly, then ignoring
// case; the command by layer type; unknown names left alone; bad values fail naming the field.
import { describe, expect, it } from 'vitest';
import type { LayerNode, LayerType } from '../../../../src/engine/types';
import { parseModel } from '../../../../src/engine/print-product';
import { TaskFailure } from '../../../../src/platform/pipelines/tasks/errors';
import { fieldData, itemFields, printProductVariables } from '../../../../src/platform/pipelines/tasks/personalise';

let nextId = 0;
const layer = (name: string, type: LayerType, children?: LayerNode[]): LayerNode =>
  ({ id: nextId++, name, type, bounds: { left: 0, top: 0, right: 10, bottom: 10 }, visible: true, opacity: 1, fillOpacity: 1, blendMode: 'normal', clipping: false, children }) as LayerNode;

const tree = [
  layer('Name', 'Text'),
  layer('Photo', 'SmartObject'),
  layer('Logo', 'Image'),
  layer('Badge', 'Shape'),
  layer('Colour', 'Group', [layer('Red', 'Image'), layer('Blue', 'Image')]),
  layer('Shade', 'Adjustment'),
];

describe('fieldData (PSD layers)', () => {
  it('gives each layer type its command; names match exactly, then ignoring case; others are ignored', () => {
    expect(
      fieldData(tree, {
        name: 'Ada Lovelace',
        PHOTO: 'https://example.com/a.jpg',
        logo: 'logo-asset-id',
        badge: '#336699',
        colour: 'blue',
        Shade: false,
        'Paper type': 'Matte',
      }),
    ).toEqual({
      Name: { type: 'text', text: 'Ada Lovelace' },
      Photo: { type: 'image', image: 'https://example.com/a.jpg', resizeMode: 'fill' },
      Logo: { type: 'image', image: 'logo-asset-id', resizeMode: 'fill' },
      Badge: { type: 'shape', color: '#336699' },
      Colour: { type: 'switch', select: 'Blue' },
      Shade: { visible: false },
    });
  });

  it('an exact name wins over one differing in case; numbers become text; "false" hides a non-text layer', () => {
    expect(fieldData(tree, { NAME: 'upper', Name: 'exact', Logo: 'false', badge: 'TRUE' })).toEqual({
      Name: { type: 'text', text: 'exact' },
      Logo: { visible: false },
      Badge: { visible: true },
    });
    expect(fieldData(tree, { name: 42 })).toEqual({ Name: { type: 'text', text: '42' } });
    expect(fieldData(tree, { name: 'false' })).toEqual({ Name: { type: 'text', text: 'false' } });
  });

  it('passes command objects through, skips empty images and null, and answers undefined when nothing matches', () => {
    expect(fieldData(tree, { Name: { type: 'text', text: 'Hi', color: '#ff0000' }, Photo: '', Logo: null })).toEqual({ Name: { type: 'text', text: 'Hi', color: '#ff0000' } });
    expect(fieldData(tree, { Notes: 'x' })).toBeUndefined();
  });

  it('fails naming the field when a group has no such child or an adjustment gets text', () => {
    expect(() => fieldData(tree, { colour: 'green' })).toThrow(TaskFailure);
    expect(() => fieldData(tree, { colour: 'green' })).toThrow(/fields\.colour: the group "Colour" has no layer named "green"/);
    expect(() => fieldData(tree, { shade: 'dark' })).toThrow(/fields\.shade: .*takes only true or false/);
    // The engine's own checks, named by field: a colour it cannot read, a command for another layer type.
    expect(() => fieldData(tree, { badge: 'not a colour' })).toThrow(/^fields\.badge\.color: /);
    expect(() => fieldData(tree, { photo: { type: 'text', text: 'x' } })).toThrow(/fields\.photo\.type: "text" applies to Text layers/);
  });
});

describe('printProductVariables (PrintProduct variables)', () => {
  const model = () =>
    parseModel({
      surfaces: [
        {
          id: 's', name: 'S', width: 100, height: 100,
          containers: [
            {
              id: 'c', name: 'C',
              items: [
                { id: 't', type: 'Text', name: 'Name', isVariable: true, x: 0, y: 0, width: 50, height: 10, text: '', font: { postscriptName: 'LiberationSans', size: 10 }, constraints: { maxLength: 5 } },
                { id: 'i', type: 'Image', name: 'Photo', isVariable: true, x: 0, y: 20, width: 50, height: 50 },
                { id: 'f', type: 'Text', name: 'Fixed', x: 0, y: 80, width: 50, height: 10, text: 'x', font: { postscriptName: 'LiberationSans', size: 10 } },
              ],
            },
          ],
        },
      ],
    });

  it('maps fields to variables by name ignoring case, with each variable\'s type; non-variables and unknown names are ignored', async () => {
    const m = await model();
    expect(printProductVariables(m, { NAME: 'Ada', photo: 'https://example.com/p.png', Fixed: 'no', Paper: 'Matte' })).toEqual([
      { name: 'Name', value: 'Ada', type: 'Text' },
      { name: 'Photo', value: 'https://example.com/p.png', type: 'Image' },
    ]);
    expect(printProductVariables(m, { Paper: 'Matte' })).toBeUndefined();
  });

  it('fails naming the field for a value the variable refuses; VDP rows (strict) refuse unknown names', async () => {
    const m = await model();
    expect(() => printProductVariables(m, { name: 'Too long' })).toThrow(/^fields\.name: longer than the variable's maxLength \(5 characters\)/);
    expect(() => printProductVariables(m, { Photo: 'not an id!' })).toThrow(/fields\.Photo: /);
    expect(() => printProductVariables(m, { Fixed: 'x' }, 'row 1', true)).toThrow(/row 1: the design has no variable named "Fixed"/);
  });
});

describe('itemFields', () => {
  const project = { items: [{ id: 7, fields: { Name: 'Ada' } }, { id: 8, fields: { Name: 'Bob' } }] };
  it('takes the artifact\'s item, else the job\'s, else the only item', () => {
    expect(itemFields({ project, itemId: null }, { itemId: 8 })).toEqual({ Name: 'Bob' });
    expect(itemFields({ project, itemId: 7 }, { itemId: null })).toEqual({ Name: 'Ada' });
    expect(itemFields({ project, itemId: null }, { itemId: null })).toEqual({});
    expect(itemFields({ project: { items: [{ itemId: 'a', fields: { x: '1' } }] }, itemId: null }, { itemId: null })).toEqual({ x: '1' });
  });
});
