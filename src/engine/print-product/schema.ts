/**
 * The `PrintProduct` design model (platform contract, "Design atoms"): surfaces with print
 * areas, mockups and containers of items. Units are points; origin top-left, y down; an item's
 * box is before its `rotation` (degrees clockwise about the box centre); arrays run bottom to
 * top. Defaults are filled in by the schema, ids are generated when absent.
 *
 * Decisions the contract leaves open (docs/design-atoms.md):
 * - Group children are in surface coordinates, like every other item; the group's own box is
 *   what its rotation turns about, and its opacity and visibility apply to all children.
 * - `letterSpacing` is in points (extra space after each character, as CSS); `lineHeight` is a
 *   multiple of the font size.
 * - `previewMockup` has the shape of `mockup` (`{up, down}`) and replaces it in previews.
 */
import { z } from '@hono/zod-openapi';
import { parseColor } from '../personalise/color';
import { BARCODE_FORMATS, ERROR_CORRECTION, encodeBarcode } from '../barcode';

export const MODEL_VERSION = 1;

export const MODEL_LIMITS = {
  surfaces: 50,
  /** All items of a model, group children included. */
  items: 2000,
  nameLength: 255,
  /** Largest PDF page side (ISO 32000-1 Annex C: 14,400 user units). */
  pagePoints: 14_400,
} as const;

/** Colours of the rendering contract (`#rrggbb`, `#rgb`, `rgb()`, `rgba()`, `cmyk()`) and `transparent`. */
export const Color = z.string().superRefine((value, ctx) => {
  if (value.trim().toLowerCase() === 'transparent') return;
  const parsed = parseColor(value);
  if ('error' in parsed) ctx.addIssue({ code: 'custom', message: parsed.error });
});

const finite = () => z.number().finite();
const nonNegative = () => z.number().finite().min(0);
const name = () => z.string().max(MODEL_LIMITS.nameLength, `at most ${MODEL_LIMITS.nameLength} characters`);
const id = () =>
  z
    .string()
    .min(1)
    .max(64)
    .regex(/^[A-Za-z0-9_.:-]+$/, 'letters, digits and _ . : - only')
    .default(() => crypto.randomUUID());

export const StorageSource = z.strictObject({
  type: z.literal('Storage'),
  /** A 24-hex asset id or a client id. */
  id: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'an asset id: 24 hex digits or [A-Za-z0-9_-]{1,64}'),
  ownerId: z.string().max(255).optional(),
});
export const UrlSource = z.strictObject({
  type: z.literal('Url'),
  url: z.string().max(8192).refine(isHttpUrl, 'an absolute http or https URL'),
  headers: z.record(z.string(), z.string()).optional(),
});
export const EmbeddedSource = z.strictObject({
  type: z.literal('Embedded'),
  key: z.string().min(1).max(1024),
});
export const Source = z.discriminatedUnion('type', [StorageSource, UrlSource, EmbeddedSource]);

function isHttpUrl(s: string): boolean {
  try {
    const u = new URL(s);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}

export const Constraints = z.strictObject({
  /** Image variables: values must be assets in this folder (or below it). */
  allowedFolder: z.string().max(1024).optional(),
  /** Text variables: at most this many characters. */
  maxLength: z.number().int().min(0).optional(),
  /** A render needs a value for this variable. */
  required: z.boolean().default(false),
});

const itemBase = {
  id: id(),
  name: name().default(''),
  x: finite().default(0),
  y: finite().default(0),
  width: nonNegative(),
  height: nonNegative(),
  rotation: finite().default(0),
  opacity: z.number().min(0).max(1).default(1),
  visible: z.boolean().default(true),
  locked: z.boolean().default(false),
  isVariable: z.boolean().default(false),
  constraints: Constraints.optional(),
};

export const RectangleItem = z.strictObject({
  ...itemBase,
  type: z.literal('Rectangle'),
  fillColor: Color.default('#000000'),
  borderColor: Color.default('transparent'),
  borderWidth: nonNegative().default(0),
  cornerRadius: nonNegative().default(0),
});

export const EllipseItem = z.strictObject({
  ...itemBase,
  type: z.literal('Ellipse'),
  fillColor: Color.default('#000000'),
  borderColor: Color.default('transparent'),
  borderWidth: nonNegative().default(0),
});

export const FitMode = z.enum(['Fit', 'Fill', 'Stretch']);

export const ImageItem = z.strictObject({
  ...itemBase,
  type: z.literal('Image'),
  /** Absent (or null) for an empty image variable. */
  source: Source.nullable().optional(),
  /** Page of a PDF source (0-based). */
  pageIndex: z.number().int().min(0).default(0),
  fitMode: FitMode.default('Fit'),
  /** Paints every visible pixel this colour, keeping the image's alpha. */
  recolor: Color.nullable().optional(),
  /**
   * Preflight (issue 21): effective ppi below this is a lowResolution warning, below half of it an
   * error (as the PSD marker `<PPI_n>`); absent: the render's thresholds (default 200/100).
   */
  minResolution: z.number().finite().gt(0).max(10_000).optional(),
});

export const Font = z.strictObject({
  postscriptName: z.string().min(1).max(255),
  size: z.number().finite().gt(0).max(MODEL_LIMITS.pagePoints).default(12),
});

export const TextItem = z.strictObject({
  ...itemBase,
  type: z.literal('Text'),
  text: z.string().max(100_000).default(''),
  placeholder: z.string().max(100_000).default(''),
  font: Font,
  color: Color.default('#000000'),
  alignment: z.enum(['Left', 'Center', 'Right', 'Justify']).default('Left'),
  verticalAlignment: z.enum(['Top', 'Middle', 'Bottom']).default('Top'),
  lineHeight: z.number().finite().gt(0).max(100).default(1.2),
  letterSpacing: finite().default(0),
  /**
   * Copyfitting (issue 21, text.ts): `None` keeps the size (lines that do not fit are dropped),
   * `Shrink` lowers it in 0.5 pt steps until the text fits the box (not below `minSize`, default
   * half the size), `ShrinkToLine` sets each paragraph on one line scaled to the box's width.
   * `ShrinkToFit` is the earlier name of `Shrink`, kept with its floor of 4 pt.
   */
  fit: z.enum(['None', 'Shrink', 'ShrinkToLine', 'ShrinkToFit']).default('None'),
  /** Smallest size copyfitting may use (points). */
  minSize: z.number().finite().gt(0).max(MODEL_LIMITS.pagePoints).optional(),
});

/**
 * A barcode (barcode.ts): QR (with its error-correction level), Code 128, EAN-13, UPC-A or
 * DataMatrix, drawn as vectors; `value` from the model, item data (apply-items-data) or, as a
 * variable, a VDP column (variableData). A value the format cannot encode is an error.
 */
export const BarcodeItem = z
  .strictObject({
    ...itemBase,
    type: z.literal('Barcode'),
    format: z.enum(BARCODE_FORMATS).default('QrCode'),
    value: z.string().max(4000).default(''),
    errorCorrection: z.enum(ERROR_CORRECTION).default('M'),
    color: Color.default('#000000'),
    backgroundColor: Color.default('#FFFFFF'),
  })
  .superRefine((item, ctx) => {
    if (!item.value) return;
    try {
      encodeBarcode(item.format, item.value, item.errorCorrection);
    } catch (e) {
      ctx.addIssue({ code: 'custom', path: ['value'], message: (e as Error).message });
    }
  });

const GroupBase = z.strictObject({ ...itemBase, type: z.literal('Group') });
export type GroupModel = z.infer<typeof GroupBase> & { items: ItemModel[] };
export type ItemModel = z.infer<typeof RectangleItem> | z.infer<typeof EllipseItem> | z.infer<typeof ImageItem> | z.infer<typeof TextItem> | z.infer<typeof BarcodeItem> | GroupModel;

/** A group's children are any items, groups included (lazy: the schema refers to itself). */
export const GroupItem = GroupBase.extend({ items: z.array(z.lazy((): z.ZodType<ItemModel> => Item)).default([]) });

export const Item: z.ZodType<ItemModel> = z.discriminatedUnion('type', [RectangleItem, EllipseItem, ImageItem, TextItem, BarcodeItem, GroupItem]);

export const Rect = z.strictObject({ x: finite().default(0), y: finite().default(0), width: z.number().finite().gt(0), height: z.number().finite().gt(0) });
export const Margins = z.strictObject({
  left: nonNegative().default(0),
  top: nonNegative().default(0),
  right: nonNegative().default(0),
  bottom: nonNegative().default(0),
});

/**
 * A safety line (the reference product's print-area `safetyLines`): text and codes belong inside
 * the bounds inset by `margin`, clear of the cutter's tolerance (preflight: outsideTrim warning).
 */
export const SafetyLine = z.strictObject({
  name: name().default(''),
  margin: Margins,
});

export const PrintArea = z.strictObject({
  id: id(),
  name: name().default(''),
  bounds: Rect,
  bleed: Margins.default({ left: 0, top: 0, right: 0, bottom: 0 }),
  shape: z.enum(['Rectangle', 'RoundedRectangle', 'Ellipse']).default('Rectangle'),
  cornerRadius: nonNegative().default(0),
  /** Absent (stored models keep their shape): none. */
  safetyLines: z.array(SafetyLine).max(10).optional(),
});

export const Mockup = z.strictObject({
  source: Source,
  x: finite().default(0),
  y: finite().default(0),
  width: z.number().finite().gt(0),
  height: z.number().finite().gt(0),
});
export const MockupPair = z.strictObject({ up: Mockup.nullable().default(null), down: Mockup.nullable().default(null) });

export const Container = z.strictObject({
  id: id(),
  name: name().default(''),
  visible: z.boolean().default(true),
  locked: z.boolean().default(false),
  items: z.array(Item).default([]),
});

export const Surface = z.strictObject({
  id: id(),
  name: name().default(''),
  width: z.number().finite().gt(0).max(MODEL_LIMITS.pagePoints),
  height: z.number().finite().gt(0).max(MODEL_LIMITS.pagePoints),
  printAreas: z.array(PrintArea).default([]),
  mockup: MockupPair.default({ up: null, down: null }),
  previewMockup: MockupPair.nullable().default(null),
  containers: z.array(Container).default([]),
});

export const PrintProduct = z.strictObject({
  version: z.literal(MODEL_VERSION).default(MODEL_VERSION),
  surfaces: z.array(Surface).min(1).max(MODEL_LIMITS.surfaces),
});

export type PrintProductModel = z.infer<typeof PrintProduct>;
export type SurfaceModel = z.infer<typeof Surface>;
export type ContainerModel = z.infer<typeof Container>;
export type PrintAreaModel = z.infer<typeof PrintArea>;
export type RectangleModel = z.infer<typeof RectangleItem>;
export type EllipseModel = z.infer<typeof EllipseItem>;
export type ImageModel = z.infer<typeof ImageItem>;
export type TextModel = z.infer<typeof TextItem>;
export type BarcodeModel = z.infer<typeof BarcodeItem>;
export type SourceModel = z.infer<typeof Source>;
export type MockupModel = z.infer<typeof Mockup>;
export type ConstraintsModel = z.infer<typeof Constraints>;

/** A model colour resolved: sRGB (0–255, alpha 0–1), plus the CMYK inks (0–1) when given as cmyk(). */
export interface ResolvedColor {
  r: number;
  g: number;
  b: number;
  a: number;
  cmyk?: [number, number, number, number];
}

/** Null for `transparent` (or anything fully transparent); throws on a malformed colour. */
export function resolveColor(value: string | null | undefined): ResolvedColor | null {
  if (value == null) return null;
  const s = value.trim();
  if (s.toLowerCase() === 'transparent') return null;
  const parsed = parseColor(s);
  if ('error' in parsed) throw new Error(parsed.error);
  if (parsed.a <= 0) return null;
  const cmyk = /^cmyk\(([^)]*)\)$/i.exec(s);
  return cmyk
    ? { ...parsed, cmyk: cmyk[1].split(',').map((v) => Number(v.trim()) / 100) as [number, number, number, number] }
    : parsed;
}

/** Every item of a list, group children after their group (depth first, bottom to top). */
export function* walkItems(items: ItemModel[]): Generator<ItemModel> {
  for (const item of items) {
    yield item;
    if (item.type === 'Group') yield* walkItems(item.items);
  }
}
