import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { prepareHires, type HiresOptions } from '../../../src/engine/pdf/prepare';
import { stripLru } from '../../../src/engine/pdf/strip-cache';
import { vectorCandidates } from '../../../src/engine/pdf/vector';
import { resolveTemplate } from '../../../src/engine/preview';
import { decodeImage } from '../../../src/engine/raster/codecs';
import { FileStore } from '../../../src/dynamic-image/store';
import { runTool } from '../../helpers/fixtures';
import { call, postJson, upload, uploadFixture } from '../../dynamic-image/helpers';
import { contentStreams, overWhite, psnr, rasterisePage, makePdf, renderDeps, type MadePdf } from './helpers';

const store = () => new FileStore(env.FILES);

const make = (options: HiresOptions, rows = 40, reuse = true) => makePdf(options, rows, reuse);

/** The preview of the same request at the template's own size, over white (what hires.test compares with). */
async function preview(options: HiresOptions, width: number, height: number) {
  const res = await postJson('/api/rendering/preview?disableCache=true', { ...options, format: 'png', size: { width, height } });
  expect(res.status).toBe(200);
  const name = /[^/]+$/.exec((await res.json()) as string)![0];
  const file = await call(`/api/results/download/${name}`);
  expect(file.status).toBe(200);
  return overWhite(await decodeImage(new Uint8Array(await file.arrayBuffer())));
}

/** A printer's view (qpdf --check, pdftoppm) agrees with the preview of the same request. */
async function expectPrintMatchesPreview(made: MadePdf, options: HiresOptions) {
  expect((await runTool('qpdf-check', made.bytes)).code).toBe(0);
  const { width, height } = made.page;
  const db = psnr(await rasterisePage(made.bytes, 1, width, height), await preview(options, width, height));
  expect(db).toBeGreaterThanOrEqual(35);
  return db;
}

/** Filled subpaths of a page's content (`f` or `f*` closing a path). */
const fills = (content: string) => content.match(/\nh\nf\*?(\n|$)/g)?.length ?? 0;

const S = 200;
/** A 4-knot Bézier circle (kappa 0.5523): Photoshop's own ellipse geometry. */
function circleKnots(cx: number, cy: number, r: number) {
  const k = 0.5523 * r;
  const knot = (x: number, y: number, ix: number, iy: number, ox: number, oy: number) => ({ linked: true, points: [ix, iy, x, y, ox, oy] });
  return [
    knot(cx, cy - r, cx - k, cy - r, cx + k, cy - r),
    knot(cx + r, cy, cx + r, cy - k, cx + r, cy + k),
    knot(cx, cy + r, cx + k, cy + r, cx - k, cy + r),
    knot(cx - r, cy, cx - r, cy + k, cx - r, cy - k),
  ];
}
const rectKnots = (l: number, t: number, r: number, b: number) =>
  [
    [l, t],
    [r, t],
    [r, b],
    [l, b],
  ].map(([x, y]) => ({ linked: false, points: [x, y, x, y, x, y] }));

/**
 * Shape layers as Photoshop stores them: the path in the vector mask, a solid fill, and pixels
 * that are the path filled (anti-aliased). `Badge` (a rectangle) lies under a hidden `Cover`;
 * `Dot` (a circle) lies apart; `Ring` has a layer effect.
 */
async function shapesPsd(): Promise<Uint8Array> {
  const { writePsdUint8Array } = await import('ag-psd');
  const layerPx = (l: number, t: number, r: number, b: number, rgb: number[], inside: (x: number, y: number) => number) => {
    const w = r - l;
    const h = b - t;
    const data = new Uint8ClampedArray(w * h * 4);
    for (let y = 0; y < h; y++)
      for (let x = 0; x < w; x++) data.set([...rgb, Math.round(255 * inside(l + x, t + y))], (y * w + x) * 4);
    return { left: l, top: t, right: r, bottom: b, imageData: { width: w, height: h, data } };
  };
  // Coverage of a circle by 4×4 samples per pixel.
  const disc = (cx: number, cy: number, rad: number) => (x: number, y: number) => {
    let n = 0;
    for (let i = 0; i < 4; i++) for (let j = 0; j < 4; j++) n += (x + (i + 0.5) / 4 - cx) ** 2 + (y + (j + 0.5) / 4 - cy) ** 2 < rad * rad ? 1 : 0;
    return n / 16;
  };
  const shape = (name: string, rgb: number[], knots: ReturnType<typeof rectKnots>, px: ReturnType<typeof layerPx>, extra: Record<string, unknown> = {}) => ({
    name,
    ...px,
    vectorFill: { type: 'color', color: { r: rgb[0], g: rgb[1], b: rgb[2] } },
    vectorMask: { paths: [{ open: false, operation: 'combine', fillRule: 'non-zero', knots }] },
    ...extra,
  });
  return writePsdUint8Array({
    width: S,
    height: S,
    children: [
      { name: 'Background', ...layerPx(0, 0, S, S, [236, 229, 214], () => 1) },
      // Below the others: a layer with effects counts as covering the whole page.
      shape('Ring', [20, 140, 60], circleKnots(50, 170, 20), layerPx(30, 150, 70, 190, [20, 140, 60], disc(50, 170, 20)), {
        effects: { dropShadow: [{ enabled: true, size: { units: 'Pixels', value: 3 }, distance: { units: 'Pixels', value: 3 }, opacity: 0.6, color: { r: 0, g: 0, b: 0 } }] },
      }),
      shape('Badge', [200, 30, 50], rectKnots(40, 60, 120, 140), layerPx(40, 60, 120, 140, [200, 30, 50], () => 1)),
      shape('Dot', [30, 90, 160], circleKnots(150, 40, 25), layerPx(125, 15, 175, 65, [30, 90, 160], disc(150, 40, 25))),
      { name: 'Cover', hidden: true, ...layerPx(100, 100, 180, 180, [250, 200, 60], () => 1), opacity: 0.8 },
    ],
  } as never);
}

let template: string;
const names = async (t: string, data?: HiresOptions['data']) => {
  const { compiled } = await resolveTemplate(store(), t);
  const page = await (await prepareHires(store(), { template: t, data }, renderDeps())).load();
  const all = new Map<number, string>();
  const walk = (ns: typeof compiled.layers) => ns.forEach((n) => (n.children ? walk(n.children) : all.set(n.id, n.name)));
  walk(compiled.layers);
  const canvas = { left: 0, top: 0, right: compiled.width, bottom: compiled.height };
  return { page, vector: vectorCandidates(compiled.layers, new Map(), canvas).map((c) => all.get(c.node.id)) };
};

beforeAll(async () => {
  const res = await upload('templates', [['shapes.psd', await shapesPsd()]], '?destination=pdf-shapes&overwrite=true');
  expect(res.status).toBe(201);
  template = ((await res.json()) as string[])[0];
});

describe('shape layers in print PDFs', () => {
  it('eligible shapes are filled paths in the template colour space; one with effects stays raster', async () => {
    const { vector } = await names(template);
    expect(vector.sort()).toEqual(['Badge', 'Dot']);
    const made = await make({ template }, 40, false);
    const [content] = await contentStreams(made.bytes);
    expect(content).toContain('/CS0 cs');
    expect(content).toMatch(/0\.7843 0\.1176 0\.1961 sc\n40 60 m\n120 60 l\n120 140 l\n40 140 l\nh\nf/); // Badge
    expect(content).toMatch(/0\.1176 0\.3529 0\.6275 sc\n150 15 m\n[\d. ]+ c\n/); // Dot, Béziers as they are
    expect(fills(content)).toBe(2);
    await expectPrintMatchesPreview(made, { template });
  });

  it('a recoloured shape is vector in its new colour, and its rows stay clean (strips reused)', async () => {
    const options = { template, data: { Badge: { type: 'shape', color: '#00aa00' } } } as HiresOptions;
    const reference = await make(options, 40, false);
    const [content] = await contentStreams(reference.bytes);
    expect(content).toMatch(/0 0\.6667 0 sc\n40 60 m/);
    expect(content).not.toContain('0.7843 0.1176 0.1961 sc');
    await expectPrintMatchesPreview(reference, options);

    stripLru.clear();
    await make({ template }); // stores the template's strips (shapes hidden)
    const reused = await make(options);
    expect(reused.rendered, 'every strip is the template with its vector shapes hidden').toEqual([]);
    expect(reused.bytes.length).toBe(reference.bytes.length);
    expect(await contentStreams(reused.bytes)).toEqual(await contentStreams(reference.bytes));
  });

  it('a layer the request shows over a shape keeps it raster; reused strips still give the same page', async () => {
    const options = { template, data: { Cover: { visible: true } } } as HiresOptions;
    const reference = await make(options, 40, false);
    const [content] = await contentStreams(reference.bytes);
    expect(fills(content), 'only Dot is vector').toBe(1);
    expect(content).not.toContain('0.7843 0.1176 0.1961 sc');
    await expectPrintMatchesPreview(reference, options);

    await make({ template });
    const reused = await make(options);
    expect(reused.summary.strips.reused).toBeGreaterThan(0);
    expect(reused.rendered.length, "Badge's rows are drawn again (the stored strips leave it out)").toBeGreaterThan(0);
    expect(await contentStreams(reused.bytes)).toEqual(await contentStreams(reference.bytes));
    const { width, height } = reference.page;
    expect((await rasterisePage(reused.bytes, 1, width, height)).data).toEqual((await rasterisePage(reference.bytes, 1, width, height)).data);
  });

  it('fixtures: plain shapes are vector (a translucent one with an ExtGState), others stay raster, and print matches preview', async () => {
    const cases: Array<[string, string[]]> = [
      // 4 single-path shapes, and `pin`: a path minus an even-odd path, plus a third.
      ['agpsd-shapes-smart-objects.psd', ['pin', '圆角矩形 1', '椭圆 1', '椭圆 2', '矩形 1']],
      // Logo glyphs (six copies; one passes the other rules): three paths each with an even-odd
      // path subtracted, one of them a 64-knot outline. A missing hole would cost ~20 dB.
      ['psdrb-example-design.psd', ['Logo_Glyph']],
      // A 50 % shape inside a pass-through group, not overlapped: `ca` 0.502.
      ['psdtools-group-pass-through.psd', ['Ellipse 3']],
      // Clipping (a clipped shape, the shape it clips to) and overlaps.
      ['psdtools-clipping-mask.psd', []],
      // Shape strokes (alignment inside/outside/centre) and effects.
      ['psdtools-fx-stroke-composite.psd', []],
      // Other blend modes.
      ['psdtools-blend-multiply.psd', []],
    ];
    for (const [fixture, expected] of cases) {
      const t = await uploadFixture(fixture, 'pdf-shapes');
      const { vector } = await names(t);
      expect(vector.sort(), fixture).toEqual([...expected].sort());
      const made = await make({ template: t }, 64, false);
      const [content] = await contentStreams(made.bytes);
      expect(fills(content) >= expected.length, fixture).toBe(true);
      if (fixture === 'psdtools-group-pass-through.psd') expect(content).toMatch(/\/A0\.502 gs\n[\d. ]+ sc\n/);
      const db = await expectPrintMatchesPreview(made, { template: t });
      console.log(`${fixture}: ${expected.length} vector shapes, print vs preview ${db.toFixed(1)} dB`);
    }
  });
});
