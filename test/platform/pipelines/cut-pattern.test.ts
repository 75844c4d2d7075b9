// combine-with-cut-pattern: a die line from an image asset (SVG here; PDF die lines in the
// engine test below) stroked over the page in a /Separation CutContour ink that overprints.
// Checked in the output's objects (colour space, ExtGState) and on a pdftoppm raster (the
// ink's magenta alternate where the die line runs, centred on the trim).
import { env } from 'cloudflare:workers';
import { PDFArray, PDFDict, PDFDocument, PDFName, rgb } from 'pdf-lib';
import { beforeAll, describe, expect, it } from 'vitest';
import { dieLineFromPdf, dieLineFromSvg, pathData } from '../../../src/engine/imposition/die-line';
import { decodeImage } from '../../../src/engine/raster';
import { assetKind, createAsset, scopeFor, stageBytes } from '../../../src/platform/assets';
import { runnerTenant } from '../../../src/platform/jobs/d1';
import { runTool } from '../../helpers/fixtures';
import { seedPlatform } from '../../helpers/platform';
import { contentOf } from '../../engine/imposition/helpers';
import { createDesign, finalFiles, runStandaloneJob } from '../jobs/helpers';

const project = { id: 'p-cut', items: [{ itemId: '1', name: 'sticker', designIds: ['cut-design'] }] };

const runJob = (id: string, tasks: unknown[]) => runStandaloneJob(id, project, tasks);

const finals = finalFiles;

// A 60 × 40 pt rounded rectangle in a 100 × 80 pt frame (viewBox in px: 0.75 pt each).
const SVG = `<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" width="100pt" height="80pt" viewBox="0 0 100 80"><g transform="translate(20,20)"><rect width="60" height="40" rx="5" fill="none" stroke="#000"/></g></svg>`;

beforeAll(async () => {
  await seedPlatform();
  await createDesign('cut-design');
  const t = runnerTenant(env, 1, 'http://localhost');
  if (!(await env.DB.prepare(`SELECT 1 FROM assets WHERE tenant_id = 1 AND id = 'die-rect'`).first())) {
    const staged = await stageBytes(env.FILES, 1, new TextEncoder().encode(SVG));
    await createAsset(scopeFor(t, assetKind('image', false), null), { staged, filename: 'die-rect.svg', id: 'die-rect' });
  }
});

describe('combine-with-cut-pattern', () => {
  it('strokes the die line in an overprinting CutContour separation, centred on the trim', async () => {
    const { status, job } = await runJob('job-cut', [
      { name: 'extract', type: 'extract-project-design', outputArtifacts: ['design*'] },
      { name: 'hires', type: 'render-hires', inputArtifacts: ['design*'], outputArtifacts: ['pdf*'], parameters: { hiResOutputDpi: 72 } },
      { name: 'cut', type: 'combine-with-cut-pattern', inputArtifacts: ['pdf*'], outputArtifacts: ['cut*'], parameters: { cutPatternName: 'die-rect', cutPatternStrokeWidth: 2, outputName: 'with-cut' } },
      { name: 'finalize', type: 'finalize', finalArtifacts: ['cut*'] },
    ]);
    expect(status, JSON.stringify(job.statusDescription)).toBe('Completed');
    const [out] = await finals('job-cut');
    expect(out!.name).toBe('with-cut.pdf');
    const doc = await PDFDocument.load(out!.bytes);
    const page = doc.getPage(0);
    const res = page.node.Resources()!;
    const spaces = res.lookup(PDFName.of('ColorSpace'), PDFDict);
    const seps = spaces.values().map((v) => doc.context.lookup(v)).filter((v): v is PDFArray => v instanceof PDFArray && v.get(0) === PDFName.of('Separation'));
    expect(seps.map((s) => s.get(1))).toEqual([PDFName.of('CutContour')]);
    const states = res.lookup(PDFName.of('ExtGState'), PDFDict);
    const gs = doc.context.lookup(states.values().at(-1)!, PDFDict);
    expect(String(gs.get(PDFName.of('OP')))).toBe('true');
    expect(String(gs.get(PDFName.of('OPM')))).toBe('1');
    expect(contentOf(page)).toMatch(/ 2 w 1 j 1 J\n/);
    expect((await runTool('qpdf-check', out!.bytes)).code).toBe(0);

    // Raster at 72 dpi: the die line's left edge runs 30 pt left of the trim's centre.
    const trim = page.getTrimBox();
    const png = (await runTool('pdftoppm', out!.bytes, { r: 72 })).pages[0]!;
    const img = await decodeImage(Uint8Array.from(atob(png), (c) => c.charCodeAt(0)));
    const px = (x: number, yFromTop: number) => {
      const i = (Math.round(yFromTop) * img.width + Math.round(x)) * 4;
      return [img.data[i]!, img.data[i + 1]!, img.data[i + 2]!];
    };
    const cx = trim.x + trim.width / 2;
    const cyTop = page.getHeight() - (trim.y + trim.height / 2);
    const [r, g, b] = px(cx - 30, cyTop);
    // Magenta (the alternate): red and blue high, green low.
    expect(g).toBeLessThan(100);
    expect(r).toBeGreaterThan(150);
    expect(b).toBeGreaterThan(100);
  });

  it('fails naming the pattern when there is none, and refuses a bad ink name', async () => {
    const none = await runJob('job-cut-none', [
      { name: 'extract', type: 'extract-project-design', outputArtifacts: ['design*'] },
      { name: 'hires', type: 'render-hires', inputArtifacts: ['design*'], outputArtifacts: ['pdf*'], parameters: { hiResOutputDpi: 72 } },
      { name: 'cut', type: 'combine-with-cut-pattern', inputArtifacts: ['pdf*'], outputArtifacts: ['cut*'], parameters: { cutPatternName: 'no-such-die', cutPatternFolder: '/dies' } },
      { name: 'finalize', type: 'finalize' },
    ]);
    expect(none.status).toBe('Failed');
    expect(none.job.statusDescription).toMatch(/no image named "no-such-die" in \/dies/);
  });
});

describe('die lines', () => {
  it('reads an SVG in points, y up, with transforms', () => {
    const die = dieLineFromSvg(SVG);
    expect(die.frame).toEqual({ x: 0, y: 0, width: 100, height: 80 });
    const pts = die.segments.filter((s) => s.op !== 'Z') as Array<{ x: number; y: number }>;
    const xs = pts.map((p) => p.x);
    const ys = pts.map((p) => p.y);
    expect(Math.min(...xs)).toBeCloseTo(20, 3);
    expect(Math.max(...xs)).toBeCloseTo(80, 3);
    expect(Math.min(...ys)).toBeCloseTo(20, 3);
    expect(Math.max(...ys)).toBeCloseTo(60, 3);
  });

  it('reads path data with relative commands, smooth curves and arcs', () => {
    const segs = pathData('m10 10 h20 v20 h-20 z M0 0 q 5 5 10 0 t 10 0 A 5 5 0 0 1 30 0');
    expect(segs.slice(0, 5)).toEqual([{ op: 'M', x: 10, y: 10 }, { op: 'L', x: 30, y: 10 }, { op: 'L', x: 30, y: 30 }, { op: 'L', x: 10, y: 30 }, { op: 'Z' }]);
    const last = segs.at(-1) as { op: string; x: number; y: number };
    expect(last.op).toBe('C');
    expect(last.x).toBeCloseTo(30, 6);
  });

  it('reads a PDF die line: painted paths under the CTM, clipping paths left out', async () => {
    const doc = await PDFDocument.create();
    const page = doc.addPage([200, 100]);
    page.drawRectangle({ x: 10, y: 10, width: 50, height: 30, borderColor: rgb(1, 0, 1), borderWidth: 1 });
    const die = await dieLineFromPdf(await doc.save());
    expect(die.frame).toEqual({ x: 0, y: 0, width: 200, height: 100 });
    const pts = die.segments.filter((s) => s.op !== 'Z') as Array<{ x: number; y: number }>;
    expect(Math.min(...pts.map((p) => p.x))).toBeCloseTo(10, 3);
    expect(Math.max(...pts.map((p) => p.y))).toBeCloseTo(40, 3);
  });
});
