// A group named as a layer it holds ("Card" holding the picture "Card": bench/large-templates.mjs's
// mockup, and common in real templates) must not make a picture, text or shape command on that
// name a 400: the command goes to the layers that take it (speed-wide, issue 25 "no server errors").
import { describe, expect, it } from 'vitest';
import { validateData } from '../../../src/engine/personalise';
import { toApiError } from '../../../src/dynamic-image/errors';
import { ApiError } from '../../../src/errors';
import type { LayerNode } from '../../../src/engine/types';
import { layerNode as node } from './helpers';

const tree: LayerNode[] = [
  node(7, 'Card', 'Group', { children: [node(6, 'Title', 'Text', { text: { text: 'Hello', font: 'ArialMT', size: 12, color: '#000000' } }), node(5, 'Card', 'Image')] }),
  node(4, 'Logo', 'Group', { children: [node(3, 'Logo', 'Shape')] }),
  node(2, 'Mixed', 'Text', { text: { text: 'Hi', font: 'ArialMT', size: 12, color: '#000000' } }),
  node(1, 'Mixed', 'Image'),
  node(0, 'Empty', 'Group', { children: [] }),
];

const statusOf = (fn: () => unknown) => {
  try {
    fn();
    return 200;
  } catch (err) {
    const apiError = toApiError(err);
    return apiError instanceof ApiError ? apiError.status : 500;
  }
};

describe('a group sharing its name with a layer', () => {
  it('a picture command goes to the picture layer, not the group', () => {
    const [target] = validateData(tree, { Card: { type: 'image', image: 'a.jpg' } });
    expect(target!.nodes.map((n) => n.id)).toEqual([5]);
  });

  it('a shape command goes to the shape layer', () => {
    const [target] = validateData(tree, { Logo: { type: 'shape', color: '#ff0000' } });
    expect(target!.nodes.map((n) => n.id)).toEqual([3]);
  });

  it('a switch or a visibility command still names the group too', () => {
    expect(validateData(tree, { Card: { visible: false } })[0]!.nodes.map((n) => n.id)).toEqual([7, 5]);
    expect(statusOf(() => validateData(tree, { Card: { type: 'switch', select: 'Title' } }))).toBe(400); // the picture "Card" is no group
  });

  it('a layer of another kind sharing the name, or only a group, is still refused', () => {
    expect(statusOf(() => validateData(tree, { Mixed: { type: 'text', text: 'x' } }))).toBe(400);
    expect(statusOf(() => validateData(tree, { Empty: { type: 'image', image: 'a.jpg' } }))).toBe(400);
  });
});
