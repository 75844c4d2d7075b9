import { describe, expect, it } from 'vitest';
import { applyItemsData, applyVariableData, listVariables, sourceFromValue } from '../../../src/engine/print-product/variables';
import { oneSurface } from './helpers';

const font = { postscriptName: 'LiberationSans' };
const design = () =>
  oneSurface(100, 100, [
    { type: 'Text', name: 'Name', isVariable: true, width: 10, height: 10, font, text: 'Ann', constraints: { maxLength: 5, required: true } },
    { type: 'Image', name: 'Photo', isVariable: true, width: 10, height: 10, constraints: { allowedFolder: '/photos' } },
    { type: 'Text', name: 'Title', width: 10, height: 10, font, text: 'Hi' },
    { type: 'Rectangle', name: 'Box', width: 10, height: 10 },
    { type: 'Group', name: 'G', width: 10, height: 10, items: [{ type: 'Image', name: 'Logo', width: 1, height: 1, source: { type: 'Embedded', key: 'k' } }] },
  ]);

describe('variables', () => {
  it('lists variables with values and constraints', async () => {
    expect(listVariables(await design())).toEqual([
      { name: 'Name', value: 'Ann', type: 'Text', constraints: { maxLength: 5, required: true } },
      { name: 'Photo', value: '', type: 'Image', constraints: { allowedFolder: '/photos', required: false } },
    ]);
  });

  it('image values: asset ids and URLs', () => {
    expect(sourceFromValue('0123456789abcdef01234567')).toEqual({ type: 'Storage', id: '0123456789abcdef01234567' });
    expect(sourceFromValue('https://x.example/a.png')).toEqual({ type: 'Url', url: 'https://x.example/a.png' });
    expect(sourceFromValue('')).toBeNull();
    expect(sourceFromValue('not an id!')).toHaveProperty('error');
  });

  it('applies variableData to a copy; reports unknown names, wrong types, maxLength, bad values, required', async () => {
    const m = await design();
    const ok = applyVariableData(m, [{ Name: 'Name', Value: 'Bob' }, { name: 'Photo', value: 'abc_1', type: 'image' }]);
    expect(ok.errors).toBeNull();
    expect(listVariables(ok.model).map((v) => v.value)).toEqual(['Bob', 'abc_1']);
    expect(listVariables(m)[0].value).toBe('Ann');
    const bad = applyVariableData(
      m,
      [
        { name: 'Nope', value: 'x' },
        { name: 'Name', value: 'far too long' },
        { name: 'Name', value: 'x', type: 'Image' },
        { name: 'Photo', value: 'bad id!' },
        { name: 'Title', value: 'x' },
        { name: 1, value: 'x' },
        'x',
      ],
    );
    expect(Object.keys(bad.errors!).sort()).toEqual([
      'variableData[0].name', 'variableData[1].value', 'variableData[2].type', 'variableData[3].value', 'variableData[4].name', 'variableData[5].name', 'variableData[6]',
    ].sort());
    const required = applyVariableData(m, [{ name: 'Name', value: '' }], { enforceRequired: true });
    expect(required.errors!.variableData[0]).toMatch(/"Name" is required/);
    expect(applyVariableData(m, { a: 1 }).errors).toHaveProperty(['variableData']);
  });
});

describe('apply-items-data', () => {
  it('sets text, color, fillColor, source and visible on non-variable items by name (nested too)', async () => {
    const { model, errors } = applyItemsData(await design(), {
      Title: { text: 'Hello', Color: '#f00', visible: false },
      Box: { fillColor: '#00f' },
      Logo: { source: { type: 'Url', url: 'https://x.example/l.png' } },
    });
    expect(errors).toBeNull();
    const items = model.surfaces[0].containers[0].items;
    expect(items[2]).toMatchObject({ text: 'Hello', color: '#f00', visible: false });
    expect(items[3]).toMatchObject({ fillColor: '#00f' });
    expect(items[4].type === 'Group' && items[4].items[0]).toMatchObject({ source: { type: 'Url' } });
  });

  it('variables, unknown names and fields the type lacks → errors by path', async () => {
    const { errors } = applyItemsData(await design(), {
      Name: { text: 'x' },
      Nope: { text: 'x' },
      Box: { text: 'x', bogus: 1 },
      Title: { visible: 'yes' },
    });
    expect(Object.keys(errors!).sort()).toEqual(['itemsData["Box"].bogus', 'itemsData["Box"].text', 'itemsData["Name"]', 'itemsData["Nope"]', 'itemsData["Title"].visible'].sort());
    expect(applyItemsData(await design(), []).errors).toHaveProperty(['itemsData']);
  });
});
