import { describe, expect, it } from 'vitest';
import { knotOps, pathOps, shapeLayer, usvgToOps, vectorCandidates, type VectorCandidate } from '../../../src/engine/pdf/vector';
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

const square = (l: number, t: number, r: number, b: number) => [[l, t], [r, t], [r, b], [l, b]].map(([x, y]) => [x, y, x, y, x, y]);
type Path = NonNullable<LayerNode['vectorMask']>['paths'][number];
const path = (knots = square(50, 50, 70, 70), over: Partial<Path> = {}): Path => ({ open: false, operation: 'combine', fillRule: 'non-zero', knots, ...over });
function shapeLayerNode(over: Partial<LayerNode> = {}, paths: Path[] = [path()]): LayerNode {
  return layer({
    type: 'Shape',
    bounds: { left: 50, top: 50, right: 70, bottom: 70 },
    fillColor: '#336699',
    hasPixels: true,
    vectorMask: { invert: false, disabled: false, fillStartsWithAllPixels: false, paths },
    ...over,
  });
}

describe('which shape layers are vector', () => {
  it('a plain solid-colour shape, also unmodified, also inside an artboard that holds it', () => {
    const s = shapeLayerNode();
    expect(ids([s, layer()], new Map())).toEqual([s.id]);
    const inBoard = shapeLayerNode();
    const board = (right: number) => layer({ type: 'Group', blendMode: 'pass through', artboard: { bounds: { left: 0, top: 0, right, bottom: 100 } }, children: [inBoard] });
    expect(ids([board(100)], new Map())).toEqual([inBoard.id]);
    expect(ids([board(60)], new Map()), 'the artboard cuts it').toEqual([]);
  });

  it('not with a stroke, effects, a pixel mask, clipping, a clipped layer, another blend mode, or when covered', () => {
    const variants: Array<Partial<LayerNode>> = [
      { vectorStroke: { width: 2, alignment: 'inside', color: '#000000', opacity: 1, blendMode: 'normal' } },
      { effects: { dropShadow: [{ enabled: true }] } as never },
      { mask: { bounds: textBounds, defaultColor: 0, disabled: false, hasPixels: true } },
      { clipping: true },
      { blendMode: 'multiply' },
      { blendIf: [{ source: [0, 10, 255, 255], dest: [0, 0, 255, 255] }] },
      { shapeStyle: { fill: true, stroke: true } }, // a stroke of any content (gradient, pattern)
      { shapeStyle: { fill: false, stroke: false } }, // no fill
      { fillColor: undefined }, // gradient or pattern fill
      { hasPixels: false }, // previews draw nothing
      { visible: false },
    ];
    for (const v of variants) expect(ids([shapeLayerNode(v)], new Map()), JSON.stringify(v)).toEqual([]);
    const s = shapeLayerNode();
    expect(ids([layer({ clipping: true }), s], new Map())).toEqual([]);
    expect(ids([layer({ bounds: { left: 65, top: 65, right: 90, bottom: 90 } }), s], new Map())).toEqual([]);
    // A stroke above reaches beyond its layer's bounds.
    const stroked = shapeLayerNode({ bounds: { left: 72, top: 50, right: 90, bottom: 70 }, vectorStroke: { width: 4, alignment: 'outside', color: '#000000', opacity: 1, blendMode: 'normal' } }, [path(square(72, 50, 90, 70))]);
    expect(ids([stroked, s], new Map())).toEqual([]);
  });

  it('paths: combined, intersected, or subtracted when even-odd; opacity below 1 with a single combined path', () => {
    expect(ids([shapeLayerNode({}, [path(), path(square(60, 60, 80, 80))])], new Map())).toHaveLength(1);
    const hole = (over: Partial<Path>) => path(square(55, 55, 60, 60), { fillRule: 'even-odd', ...over });
    expect(ids([shapeLayerNode({}, [path(), hole({ operation: 'subtract' })])], new Map())).toHaveLength(1);
    expect(ids([shapeLayerNode({}, [path(), hole({ operation: 'intersect', fillRule: 'non-zero' })])], new Map())).toHaveLength(1);
    expect(ids([shapeLayerNode({}, [path(), hole({ operation: 'subtract', fillRule: 'non-zero' })])], new Map()), 'no exact complement').toEqual([]);
    expect(ids([shapeLayerNode({}, [path(), hole({ operation: 'exclude' })])], new Map())).toEqual([]);
    expect(ids([shapeLayerNode({}, [hole({ operation: 'subtract' })])], new Map()), 'nothing combined').toEqual([]);
    expect(ids([shapeLayerNode({ opacity: 0.5 }, [path(), hole({ operation: 'subtract' })])], new Map()), 'one fill, clipped').toHaveLength(1);
    expect(ids([shapeLayerNode({ opacity: 0.5 })], new Map())).toHaveLength(1);
    expect(ids([shapeLayerNode({ fillOpacity: 0.5 }, [path(), path(square(60, 60, 80, 80))])], new Map())).toEqual([]);
    expect(ids([shapeLayerNode({}, [hole({ operation: 'subtract' }), path()])], new Map()), 'paths combine from nothing: the first must add').toEqual([]);
    expect(ids([shapeLayerNode({}, [hole({ operation: 'intersect' }), path()])], new Map())).toEqual([]);
    const inverted = shapeLayerNode();
    inverted.vectorMask!.invert = true;
    expect(ids([inverted], new Map())).toEqual([]);
  });

  it('the request: a recolour is drawn in its colour and alpha; hiding it or replacing its pixels is not vector', () => {
    const s = shapeLayerNode({ opacity: 0.5 });
    const [c] = vectorCandidates([s], new Map([[s.id, { color: { r: 255, g: 0, b: 0, a: 0.5 } }]]), canvas) as Array<Extract<VectorCandidate, { kind: 'shape' }>>;
    expect(c.color).toEqual({ r: 255, g: 0, b: 0 });
    expect(c.alpha).toBe(0.25);
    expect(shapeLayer(c)).toEqual({ ops: '/A0.25 gs\n1 0 0 sc\n50 50 m\n70 50 l\n70 70 l\n50 70 l\nh\nf', opacities: { 'A0.25': 0.25 } });
    expect(ids([s], new Map([[s.id, { visible: false }]]))).toEqual([]);
    const pixels = { width: 1, height: 1, data: new Uint8ClampedArray(4) };
    expect(ids([s], new Map([[s.id, { pixels, bounds: textBounds }]]))).toEqual([]);
  });
});

describe('vector mask paths → PDF operators', () => {
  it('Béziers run from an anchor along its out handle and the next knot\'s in handle; open paths close straight', () => {
    // The segment from the 2nd knot to the 3rd has both handles on their anchors: a line.
    const knots = [
      [0, 0, 10, 0, 20, 5],
      [25, 10, 30, 20, 30, 20],
      [30, 30, 30, 30, 35, 40],
    ];
    expect(knotOps(knots, true)).toBe('10 0 m\n20 5 25 10 30 20 c\n30 30 l\n35 40 0 0 10 0 c\nh');
    expect(knotOps(knots, false)).toBe('10 0 m\n20 5 25 10 30 20 c\n30 30 l\nh');
    expect(knotOps(square(0, 0, 2, 2), true), 'straight segments are lines').toBe('0 0 m\n2 0 l\n2 2 l\n0 2 l\nh');
  });

  it('a combined path is clipped by the later paths it meets: subtracted (box minus path, even-odd) and intersected', () => {
    const s = shapeLayerNode({}, [
      path(square(50, 50, 70, 70)),
      path(square(55, 55, 60, 60), { operation: 'subtract', fillRule: 'even-odd' }),
      path(square(65, 65, 80, 80)),
      path(square(50, 50, 75, 75), { operation: 'intersect' }),
    ]);
    const [c] = vectorCandidates([s], new Map(), canvas) as Array<Extract<VectorCandidate, { kind: 'shape' }>>;
    const sq = (l: number, t: number, r: number, b: number) => knotOps(square(l, t, r, b), true);
    expect(shapeLayer(c).ops).toBe(
      [
        '0.2 0.4 0.6 sc',
        `q\n49 49 32 32 re\n${sq(55, 55, 60, 60)}\nW* n\n${sq(50, 50, 75, 75)}\nW n\n${sq(50, 50, 70, 70)}\nf\nQ`,
        `q\n${sq(50, 50, 75, 75)}\nW n\n${sq(65, 65, 80, 80)}\nf\nQ`,
      ].join('\n'),
    );
  });

  it('merged shape components (subpaths stored with operation -1) are one path: a ring keeps its hole', () => {
    const ring = shapeLayerNode({}, [
      path(square(50, 50, 70, 70), { fillRule: 'even-odd' }),
      path(square(55, 55, 65, 65), { operation: undefined, fillRule: 'even-odd' }),
    ]);
    const [c] = vectorCandidates([ring], new Map(), canvas) as Array<Extract<VectorCandidate, { kind: 'shape' }>>;
    const sq = (l: number, t: number, r: number, b: number) => knotOps(square(l, t, r, b), true);
    expect(shapeLayer(c).ops).toBe(`0.2 0.4 0.6 sc\n${sq(50, 50, 70, 70)}\n${sq(55, 55, 65, 65)}\nf*`);
  });

  it('even-odd paths fill with f*', () => {
    const s = shapeLayerNode({}, [path(square(50, 50, 70, 70), { fillRule: 'even-odd' })]);
    const [c] = vectorCandidates([s], new Map(), canvas) as Array<Extract<VectorCandidate, { kind: 'shape' }>>;
    expect(shapeLayer(c).ops).toMatch(/^0\.2 0\.4 0\.6 sc\n[\s\S]*\nh\nf\*$/);
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
