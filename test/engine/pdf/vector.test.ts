import { describe, expect, it } from 'vitest';
import { pathOps, usvgToOps, vectorCandidates } from '../../../src/engine/pdf/vector';
import type { LayerNode, LayerOverrides } from '../../../src/engine/types';

const canvas = { left: 0, top: 0, right: 100, bottom: 100 };
let nextId = 1;
function layer(over: Partial<LayerNode> = {}): LayerNode {
  return {
    id: nextId++,
    name: 'L',
    type: 'Image',
    bounds: { left: 0, top: 0, right: 100, bottom: 100 },
    visible: true,
    opacity: 1,
    fillOpacity: 1,
    blendMode: 'normal',
    clipping: false,
    ...over,
  };
}
const textBounds = { left: 10, top: 10, right: 40, bottom: 20 };
function textLayer(over: Partial<LayerNode> = {}): LayerNode {
  return layer({ type: 'Text', bounds: textBounds, ...over });
}
function overridesFor(...texts: LayerNode[]): LayerOverrides {
  const pixels = { width: 1, height: 1, data: new Uint8ClampedArray(4) };
  return new Map(texts.map((t) => [t.id, { pixels, bounds: textBounds, vector: { svg: '<svg/>', fonts: [] } }]));
}
const ids = (layers: LayerNode[], o: LayerOverrides) => vectorCandidates(layers, o, canvas).map((c) => c.node.id);

describe('which text layers are vector', () => {
  it('a re-rendered, normal, effect-free text layer with nothing above it', () => {
    const t = textLayer();
    expect(ids([t, layer()], overridesFor(t))).toEqual([t.id]);
  });

  it('not when a visible layer above overlaps it; hidden or disjoint layers above do not matter', () => {
    const t = textLayer();
    expect(ids([layer({ bounds: { left: 30, top: 15, right: 50, bottom: 50 } }), t], overridesFor(t))).toEqual([]);
    expect(ids([layer({ visible: false }), layer({ bounds: { left: 50, top: 50, right: 90, bottom: 90 } }), t], overridesFor(t))).toEqual([t.id]);
    expect(ids([layer({ type: 'Adjustment', bounds: { left: 0, top: 0, right: 0, bottom: 0 } }), t], overridesFor(t))).toEqual([]);
  });

  it('not with another blend mode, opacity, fill, clipping, a clipped layer, a mask, effects or warp', () => {
    const variants: Array<Partial<LayerNode>> = [
      { blendMode: 'multiply' },
      { opacity: 0.5 },
      { fillOpacity: 0.9 },
      { clipping: true },
      { mask: { bounds: textBounds, defaultColor: 0, disabled: false, hasPixels: true } },
      { effects: { dropShadow: [{ enabled: true }] } as never },
      { text: { text: 'x', font: 'F', size: 10, color: '#000000', warped: true } },
    ];
    for (const v of variants) {
      const t = textLayer(v);
      expect(ids([t], overridesFor(t)), JSON.stringify(v)).toEqual([]);
    }
    const base = textLayer();
    expect(ids([layer({ clipping: true, bounds: textBounds }), base], overridesFor(base))).toEqual([]);
  });

  it('inside pass-through groups at full opacity only, and never unmodified text', () => {
    const t = textLayer();
    expect(ids([layer({ type: 'Group', blendMode: 'pass through', children: [t] })], overridesFor(t))).toEqual([t.id]);
    const u = textLayer();
    expect(ids([layer({ type: 'Group', blendMode: 'pass through', opacity: 0.5, children: [u] })], overridesFor(u))).toEqual([]);
    expect(ids([textLayer()], new Map())).toEqual([]);
  });
});

describe('SVG paths → PDF operators', () => {
  it('moves, lines, cubics and closes; quadratics become cubics with the same curve', () => {
    expect(pathOps('M 0 0 L 10 0 C 1 2 3 4 5 6 Z')).toBe('0 0 m\n10 0 l\n1 2 3 4 5 6 c\nh');
    // Q from (0,0) via (3,3) to (6,0): control points at 2/3 towards (3,3).
    expect(pathOps('M 0 0 Q 3 3 6 0')).toBe('0 0 m\n2 2 4 2 6 0 c');
  });

  it('refuses what it does not understand', () => {
    expect(pathOps('M 0 0 A 1 1 0 0 0 5 5')).toBeNull();
    expect(usvgToOps('<svg><g clip-path="url(#a)"><path fill="#000000" d="M 0 0 L 1 1 Z"/></g></svg>')).toBeNull();
    expect(usvgToOps('<svg><path fill="#000000" stroke="#ff0000" d="M 0 0 L 1 1 Z"/></svg>')).toBeNull();
    expect(usvgToOps('<svg><path fill="#000000" fill-opacity="0.5" d="M 0 0 L 1 1 Z"/></svg>')).toBeNull();
    expect(usvgToOps('<svg><g opacity="0.5"><path fill="#000000" d="M 0 0 L 1 1 Z"/></g></svg>')).toBeNull();
  });

  it('keeps group transforms, colours and the fill rule', () => {
    const ops = usvgToOps('<svg><defs/><g transform="matrix(1 0 0 1 5 6)"><path fill="#ff8000" fill-rule="evenodd" d="M 0 0 L 1 0 L 1 1 Z"/></g></svg>');
    expect(ops).toBe('q 1 0 0 1 5 6 cm\nq 1 0.502 0 sc\n0 0 m\n1 0 l\n1 1 l\nh\nf* Q\nQ');
  });
});
