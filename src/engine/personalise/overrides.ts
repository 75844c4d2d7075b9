/**
 * A render request's `data` → per-layer overrides for the compositor. Everything is checked
 * against the template first (all problems reported at once, before anything is fetched); then
 * fonts and images are loaded concurrently; then text is re-rendered and pictures are placed,
 * at the render scale.
 */
import { EngineError, invalidInput, unprocessable, type ErrorDetail } from '../errors';
import { readFontInfo } from '../fonts/font-info';
import { hasKnownSubstitute, resolveFont, type ResolvedFont } from '../fonts/substitution';
import type { Bounds, LayerNode, LayerOverride, LayerOverrides, LayerType, RGBAImage } from '../types';
import type { ReportProblem } from '../preflight/report';
import { nameWithoutMarkers } from './markers';
import { isColorError, parseColor, type RGBA } from './color';
import { DataCommandSchema, normaliseCommand, type BarcodeCommand, type DataCommand, type ImageCommand, type TextCommand } from './commands';
import { barcodeRects, encodeBarcode, rectsPathData, type BarcodeFormat } from '../barcode';
import { renderSvg } from './resvg';
import { unpremultiply } from '../raster/pixels';
import { placeImage } from './image';
import { placementCache } from '../cache';
import { coversText, renderText, TextTooLargeError } from './text';

export interface PersonaliseContext {
  /** Output pixels per template pixel. */
  scale: number;
  /** Font bytes by PostScript name from the font store (bundled fonts included), or null. */
  loadFont(postscriptName: string): Promise<Uint8Array | null>;
  /**
   * A decoded picture by URL or stored image name, bounded by the contract's limits. `target` is
   * the size in output pixels the picture will cover, for loaders that decode smaller.
   * Throw an EngineError (src/engine/errors.ts) when it cannot be fetched or decoded.
   */
  loadImage(ref: string, target: { width: number; height: number }): Promise<RGBAImage>;
  /** A content key of the picture `ref` names (e.g. `image/<sha256>`), when known: placements are then kept per isolate. */
  imageKey?(ref: string): string | undefined;
  /** Where preflight problems go (issue 21); every render reports, not only a preflight. */
  report?: ReportProblem;
  /** Preflight: lay out text and measure pictures, draw nothing; the overrides come back empty. */
  layoutOnly?: boolean;
  /** The trim box in template pixels (the canvas inset by the declared bleed); absent: the canvas. */
  trim?: Bounds;
  /** The template's ppi, for the effective ppi of placed pictures (72 when unknown). */
  resolution?: number;
}

type Placed = Awaited<ReturnType<typeof placeImage>>;

async function cachedPlacement(key: string, place: () => Promise<Placed>): Promise<Placed> {
  const held = placementCache.get(key);
  if (held !== undefined) return held;
  const placed = await place();
  placementCache.set(key, placed, placed ? placed.pixels.data.byteLength : 64);
  return placed;
}

/** The bundled font with the widest coverage, used for characters the chosen font lacks. */
const FALLBACK_FONT = 'DejaVuSans';

/** Which layer types each command applies to. */
const ACCEPTS: Record<string, LayerType[]> = {
  text: ['Text'],
  image: ['Image', 'SmartObject'],
  shape: ['Shape'],
  switch: ['Group'],
  barcode: ['Text', 'Image', 'SmartObject'],
};

interface Target {
  name: string;
  command: DataCommand;
  nodes: LayerNode[];
}

/** Every image reference in `data`, once each, so the render request can fetch them all concurrently. */
export function imageReferences(data: unknown): string[] {
  const refs = new Set<string>();
  if (data && typeof data === 'object') {
    for (const command of Object.values(data as Record<string, unknown>)) {
      const c = normaliseCommand(command) as Partial<ImageCommand> | null;
      if (c && typeof c === 'object' && c.type === 'image' && typeof c.image === 'string' && c.image) refs.add(c.image);
    }
  }
  return [...refs];
}

/** Layers by name; a name with markers (`Name <REQ>`) also answers to the name without them. */
function layersByName(tree: LayerNode[]): Map<string, LayerNode[]> {
  const byName = new Map<string, LayerNode[]>();
  const add = (name: string, node: LayerNode) => {
    const list = byName.get(name) ?? [];
    list.push(node);
    byName.set(name, list);
  };
  const walk = (nodes: LayerNode[]) => {
    for (const node of nodes) {
      add(node.name, node);
      const bare = nameWithoutMarkers(node.name);
      if (bare !== node.name) add(bare, node);
      if (node.children) walk(node.children);
    }
  };
  walk(tree);
  return byName;
}

const answersTo = (node: LayerNode, name: string) => node.name === name || nameWithoutMarkers(node.name) === name;

/** Checks every key and command against the template; throws one 400 listing every problem. */
export function validateData(tree: LayerNode[], data: unknown): Target[] {
  if (data === undefined || data === null) return [];
  if (typeof data !== 'object' || Array.isArray(data)) {
    throw invalidInput('`data` must be an object mapping layer names to commands.', [{ path: 'data', reason: 'not an object' }]);
  }
  const byName = layersByName(tree);
  const details: ErrorDetail[] = [];
  const targets: Target[] = [];
  for (const [name, raw] of Object.entries(data)) {
    const path = `data.${name}`;
    const parsed = DataCommandSchema.safeParse(normaliseCommand(raw));
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        details.push({ path: [path, ...issue.path.map(String)].join('.'), reason: issue.message });
      }
    }
    const nodes = byName.get(name);
    if (!nodes) {
      details.push({ path, reason: `the template has no layer named "${name}"` });
      continue;
    }
    if (!parsed.success) continue;
    const command = parsed.data;
    const accepts = command.type ? ACCEPTS[command.type] : undefined;
    if (accepts) {
      for (const node of nodes) {
        if (!accepts.includes(node.type)) {
          details.push({
            path: `${path}.type`,
            reason: `"${command.type}" applies to ${accepts.join(' or ')} layers; "${name}" is a ${node.type} layer`,
          });
        }
      }
    }
    if (command.type === 'switch') {
      for (const node of nodes) {
        if (node.type === 'Group' && !node.children?.some((c) => answersTo(c, command.select))) {
          details.push({ path: `${path}.select`, reason: `the group "${name}" has no child layer named "${command.select}"` });
        }
      }
    }
    if (command.type === 'barcode') {
      try {
        encodeBarcode(BARCODE_FORMAT[command.format], command.value, command.errorCorrection ?? 'M');
      } catch (err) {
        details.push({ path: `${path}.value`, reason: (err as Error).message });
      }
    }
    targets.push({ name, command, nodes });
  }
  if (details.length) throw invalidInput('The data does not fit the template.', unique(details));
  return targets;
}

const colorOf = (value: string | undefined): RGBA | undefined => {
  if (value === undefined) return undefined;
  const c = parseColor(value);
  return isColorError(c) ? undefined : c;
};

/** Layers sharing a name fail alike: one detail each. */
const unique = (details: ErrorDetail[]) => [...new Map(details.map((d) => [`${d.path}\n${d.reason}`, d])).values()];

/** One error carrying every detail; the kind of the first failure. */
function combine(errors: Array<{ error: EngineError; detail: ErrorDetail }>): EngineError {
  const first = errors[0].error;
  const details = unique(errors.map((e) => e.detail));
  const Kind = first.constructor as new (message: string, details?: ErrorDetail[]) => EngineError;
  return new Kind(details.length === 1 ? first.message : 'Some data could not be used.', details);
}

/**
 * Builds the overrides for `data` on a compiled tree.
 *
 * @example
 *   const overrides = await buildOverrides(tree, { Title: { type: 'text', text: 'Hi' } }, { scale, loadFont, loadImage });
 */
export async function buildOverrides(tree: LayerNode[], data: unknown, ctx: PersonaliseContext): Promise<LayerOverrides> {
  const targets = validateData(tree, data);
  const overrides: LayerOverrides = new Map();
  const set = (id: number, patch: LayerOverride) => overrides.set(id, { ...overrides.get(id), ...patch });

  // Switches first, so that an explicit `visible` on a child wins over its group's switch.
  for (const { command, nodes } of targets) {
    if (command.type !== 'switch') continue;
    for (const group of nodes) for (const child of group.children ?? []) set(child.id, { visible: answersTo(child, command.select) });
  }
  for (const { command, nodes } of targets) {
    for (const node of nodes) {
      if (command.visible !== undefined) set(node.id, { visible: command.visible });
      if (command.type === 'shape') set(node.id, { color: colorOf(command.color) });
    }
  }

  const failures: Array<{ error: EngineError; detail: ErrorDetail }> = [];
  const fail = (path: string, err: unknown, fallback: string) => {
    const error = err instanceof EngineError ? err : unprocessable(fallback);
    const reason = err instanceof EngineError ? err.details?.[0]?.reason ?? err.message : `${fallback}: ${(err as Error)?.message ?? err}`;
    failures.push({ error, detail: { path, reason } });
  };

  // Load every font and picture concurrently.
  const fontJobs = new Map<string, Promise<ResolvedFont | null>>();
  const fontFor = (name: string) => {
    let job = fontJobs.get(name);
    if (!job) fontJobs.set(name, (job = resolveFont(name, ctx.loadFont)));
    return job;
  };
  const textJobs = targets
    .filter((t): t is Target & { command: TextCommand } => t.command.type === 'text')
    .flatMap(({ name, command, nodes }) =>
      nodes.map(async (node) => {
        const fontName = command.font ?? node.text?.font ?? 'ArialMT';
        try {
          const font = await fontFor(fontName);
          if (!font) {
            const path = command.font ? `data.${name}.font` : `data.${name}`;
            if (command.font) failures.push({ error: invalidInput('Unknown font.'), detail: { path, reason: `the font store has no font "${fontName}"` } });
            else failures.push({ error: unprocessable('No font to draw with.'), detail: { path, reason: `no font "${fontName}" nor a substitute is in the font store` } });
            return null;
          }
          if (command.font && font.substituted && !hasKnownSubstitute(command.font)) {
            failures.push({ error: invalidInput('Unknown font.'), detail: { path: `data.${name}.font`, reason: `the font store has no font "${command.font}"` } });
            return null;
          }
          readFontInfo(font.bytes); // a damaged font fails here, with its path, not while drawing
          // Characters the font lacks are drawn from a fallback font of the store, when there is one.
          const fallback = coversText(font.bytes, command.text) ? null : await fontFor(FALLBACK_FONT);
          return { name, node, command, font, fallbackFonts: fallback && fallback.bytes !== font.bytes ? [fallback.bytes] : [] };
        } catch (err) {
          fail(`data.${name}.font`, err, 'The font could not be read');
          return null;
        }
      }),
    );
  const imageJobs = targets
    .filter((t): t is Target & { command: ImageCommand } => t.command.type === 'image')
    .flatMap(({ name, command, nodes }) =>
      nodes.map(async (node) => {
        const quad = placementQuad(node, ctx.scale);
        const target = {
          width: Math.max(1, Math.round(Math.hypot(quad.corners[2] - quad.corners[0], quad.corners[3] - quad.corners[1]))),
          height: Math.max(1, Math.round(Math.hypot(quad.corners[6] - quad.corners[0], quad.corners[7] - quad.corners[1]))),
        };
        try {
          return { name, node, command, quad, picture: await ctx.loadImage(command.image, target) };
        } catch (err) {
          fail(`data.${name}.image`, err, 'The image could not be fetched or decoded');
          return null;
        }
      }),
    );
  const [texts, images] = await Promise.all([Promise.all(textJobs), Promise.all(imageJobs)]);
  if (failures.length) throw combine(failures);

  // Draw, one at a time to bound memory.
  for (const job of texts) {
    if (!job) continue;
    const { name, node, command, font, fallbackFonts } = job;
    const info = node.text;
    if (!info) continue;
    const unchanged = command.text === info.text && !command.font && command.size === undefined && command.color === undefined;
    if (unchanged) continue;
    try {
      const drawn = await renderText({ info, text: command.text, font: font.bytes, fallbackFonts, size: command.size, color: colorOf(command.color), scale: ctx.scale });
      set(node.id, drawn ?? empty());
    } catch (err) {
      if (err instanceof TextTooLargeError) fail(`data.${name}.text`, invalidInput('The text is too large to draw.'), 'text too large');
      else throw err;
    }
  }
  for (const { command, nodes } of targets) {
    if (command.type !== 'barcode') continue;
    for (const node of nodes) set(node.id, await drawBarcode(command, node, ctx.scale));
  }
  for (const job of images) {
    if (!job) continue;
    const { name, node, command, quad, picture } = job;
    try {
      const mode = command.resizeMode ?? 'fit';
      const key = ctx.imageKey?.(command.image);
      // Keyed by the picture's content and the exact placement (corners at this scale) and mode.
      const placed = key
        ? await cachedPlacement(`${key}/placed/${quad.width}x${quad.height}/${quad.corners.join(',')}/${mode}`, () => placeImage(picture, quad, mode))
        : await placeImage(picture, quad, mode);
      set(node.id, placed ?? empty());
    } catch (err) {
      if (err instanceof RangeError) fail(`data.${name}.image`, unprocessable('The image placement is too large.'), err.message);
      else throw err;
    }
  }
  if (failures.length) throw combine(failures);
  return overrides;
}

/** Replacement content that draws nothing (empty text, a placement off every pixel). */
const empty = (): LayerOverride => ({ pixels: { width: 1, height: 1, data: new Uint8ClampedArray(4) }, bounds: { left: 0, top: 0, right: 1, bottom: 1 } });

/** Where a picture goes, in output pixels: the smart object's corners, else the layer's bounds. */
export function placementQuad(node: LayerNode, scale: number): { corners: number[]; width: number; height: number } {
  if (node.smartObject) {
    const { corners, width, height } = node.smartObject;
    return { corners: corners.map((v) => v * scale), width, height };
  }
  const { left, top, right, bottom } = node.bounds;
  const w = Math.max(1, right - left);
  const h = Math.max(1, bottom - top);
  const [l, t, r, b] = [left * scale, top * scale, (left + w) * scale, (top + h) * scale];
  return { corners: [l, t, r, t, r, b, l, b], width: w, height: h };
}

const BARCODE_FORMAT: Record<BarcodeCommand['format'], BarcodeFormat> = { qr: 'QrCode', code128: 'Code128', ean13: 'Ean13', upca: 'UpcA', datamatrix: 'DataMatrix' };

/**
 * A barcode in the layer's bounds, at the output scale: pixels for the composite, and the SVG
 * they were drawn from, which print PDFs draw as vectors on a text layer (as re-rendered text).
 */
async function drawBarcode(command: BarcodeCommand, node: LayerNode, scale: number): Promise<LayerOverride> {
  const left = Math.floor(node.bounds.left * scale);
  const top = Math.floor(node.bounds.top * scale);
  const width = Math.max(1, Math.ceil(node.bounds.right * scale) - left);
  const height = Math.max(1, Math.ceil(node.bounds.bottom * scale) - top);
  if (width * height > 64_000_000) throw unprocessable('The barcode would be too large to draw.');
  const rects = barcodeRects(BARCODE_FORMAT[command.format], command.value, command.errorCorrection ?? 'M', { x: 0, y: 0, width, height });
  const paint = (c: RGBA) => `fill="rgb(${c.r},${c.g},${c.b})"${c.a < 1 ? ` fill-opacity="${c.a}"` : ''}`;
  const background = command.backgroundColor === undefined ? { r: 255, g: 255, b: 255, a: 1 } : colorOf(command.backgroundColor);
  const color = colorOf(command.color) ?? { r: 0, g: 0, b: 0, a: 1 };
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">` +
    (background && background.a > 0 ? `<rect x="0" y="0" width="${width}" height="${height}" ${paint(background)}/>` : '') +
    `<path d="${rectsPathData(rects)}" ${paint(color)}/></svg>`;
  const pixels = await renderSvg(svg, []);
  await unpremultiply(pixels.data);
  return { pixels, bounds: { left, top, right: left + width, bottom: top + height }, vector: { svg, fonts: [] } };
}

