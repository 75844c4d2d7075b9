/**
 * The personalisation commands of a render request's `data` (layer name → command), as zod
 * schemas that also document the API in OpenAPI.
 */
import { z } from '@hono/zod-openapi';
import { isColorError, parseColor } from './color';

const ColorSchema = z
  .string()
  .superRefine((value, ctx) => {
    const parsed = parseColor(value);
    if (isColorError(parsed)) ctx.addIssue({ code: 'custom', message: parsed.error });
  })
  .openapi({
    description: '`#rrggbb`, `#rgb`, `rgb(r, g, b)` (0–255), `rgba(r, g, b, a)` (alpha 0–1) or `cmyk(c, m, y, k)` (0–100 ink; previews show it through the default CMYK profile).',
    example: '#ff8800',
  });

const visible = z.boolean().optional().openapi({ description: 'Shows (true) or hides (false) the layer.' });

/**
 * The longest text a command may set (UTF-16 code units), far beyond any field a product shows.
 * resvg lays out one line in more than linear time: a point text of 30,000 characters took 1.8 s
 * for an 800 px preview, 100,000 took ~16 s and, in a print PDF, +437 MB for outlines almost all
 * off the page (session 21's print fuzz), which a deployed Worker answers with an error; 10,000
 * take ~0.5 s.
 */
export const MAX_TEXT_LENGTH = 10_000;

export const TextCommandSchema = z
  .object({
    type: z.literal('text'),
    text: z
      .string()
      .max(MAX_TEXT_LENGTH)
      .openapi({ description: `The new text; \`\\n\` or \`\\r\` starts a new paragraph. At most ${MAX_TEXT_LENGTH} UTF-16 code units.` }),
    font: z.string().min(1).optional().openapi({ description: 'PostScript name of a font in the font store; default: the layer\'s own font.' }),
    size: z.number().positive().max(10_000).optional().openapi({ description: 'Font size in template pixels as Photoshop shows it for the layer (after its transform scale; equals points at 72 ppi); default: the layer\'s own size.' }),
    color: ColorSchema.optional(),
    fit: z.enum(['none', 'shrink', 'shrinkToLine']).optional().openapi({
      description:
        'Copyfitting. `none`: as today (paragraph text drops lines that do not fit its box; point text runs on). `shrink`: the largest size (to 0.1 pt) at which the text fits its frame, down to `minSize`; leading and tracking scale along. `shrinkToLine` (point text): one line, no wider than the original line. Frames: paragraph text its box; point text the layer\'s original bounds widened to the template\'s `<MW_n>` marker, else to the canvas. Default: the layer\'s `<TOS_…>` marker, else `none`.',
    }),
    minSize: z.number().positive().max(10_000).optional().openapi({ description: 'Smallest size `shrink` may use, in template pixels as `size` (points at 72 ppi); default: the layer\'s `<FMIN_n>` marker, else half the starting size.' }),
    visible,
  })
  .openapi('TextCommand', { description: 'Re-renders a text layer with new text (and optionally font, size, colour).' });

export const ImageCommandSchema = z
  .object({
    type: z.literal('image'),
    image: z.string().min(1).openapi({ description: 'An http(s) URL or the name of a stored image.' }),
    resizeMode: z.enum(['fit', 'fill']).optional().openapi({ description: '`fit` (default) shows the whole picture, letterboxed; `fill` covers the placement, cropping.' }),
    visible,
  })
  .openapi('ImageCommand', { description: 'Replaces the content of an image layer or smart object, taking its placement (including rotation and perspective).' });

export const ShapeCommandSchema = z
  .object({ type: z.literal('shape'), color: ColorSchema, visible })
  .openapi('ShapeCommand', { description: 'Recolours a shape or fill layer.' });

export const SwitchCommandSchema = z
  .object({
    type: z.literal('switch'),
    select: z.string().openapi({ description: 'Name of the child layer to show; its siblings are hidden.' }),
    visible,
  })
  .openapi('SwitchCommand', { description: 'On a group: shows one child layer and hides its siblings.' });

export const VisibilityCommandSchema = z
  .object({ type: z.literal('visibility').optional(), visible: z.boolean() })
  .openapi('VisibilityCommand', { description: 'Shows or hides any layer.' });

export const BarcodeCommandSchema = z
  .object({
    type: z.literal('barcode'),
    format: z.enum(['qr', 'code128', 'ean13', 'upca', 'datamatrix']).openapi({ description: 'The symbology.' }),
    value: z.string().min(1).max(4000).openapi({ description: 'What the code holds (EAN-13: 12 digits, or 13 with a correct check digit; UPC-A: 11 or 12).' }),
    errorCorrection: z.enum(['L', 'M', 'Q', 'H']).optional().openapi({ description: 'QR error-correction level (default M).' }),
    color: ColorSchema.optional(),
    backgroundColor: ColorSchema.optional(),
    visible,
  })
  .openapi('BarcodeCommand', { description: 'Draws a barcode or QR code into the layer\'s bounds (a text layer: as vectors in print PDFs; an image layer or smart object: as pixels). Encoded by bwip-js; the quiet zone is kept inside the bounds, on `backgroundColor` (default white).' });

export const DataCommandSchema = z
  .discriminatedUnion('type', [TextCommandSchema, ImageCommandSchema, ShapeCommandSchema, SwitchCommandSchema, BarcodeCommandSchema, VisibilityCommandSchema])
  .openapi('DataCommand');

const COMMAND_KEYS = ['type', 'text', 'font', 'size', 'color', 'fit', 'minSize', 'image', 'resizeMode', 'visible', 'select', 'format', 'value', 'errorCorrection', 'backgroundColor'];
const CANONICAL_KEY = new Map(COMMAND_KEYS.map((k) => [k.toLowerCase(), k]));

const FIT_VALUE = new Map(['none', 'shrink', 'shrinkToLine'].map((v) => [v.toLowerCase(), v]));

/**
 * The rendering contract matches JSON property names case-insensitively: `{"Type": "Text"}` is
 * `{"type": "text"}`. Canonicalises a command's property names, and the values of `type` and
 * `resizeMode`; layer names (the keys of `data`) stay exact. Anything else passes through for
 * the schema to judge.
 */
export function normaliseCommand(raw: unknown): unknown {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return raw;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw)) {
    const canonical = CANONICAL_KEY.get(key.toLowerCase()) ?? key;
    out[canonical] = (canonical === 'type' || canonical === 'resizeMode' || canonical === 'format') && typeof value === 'string' ? value.toLowerCase() : canonical === 'fit' && typeof value === 'string' ? FIT_VALUE.get(value.toLowerCase()) ?? value : canonical === 'errorCorrection' && typeof value === 'string' ? value.toUpperCase() : value;
  }
  return out;
}

export const PersonalisationDataSchema = z
  .record(z.string(), z.preprocess(normaliseCommand, DataCommandSchema))
  .openapi('PersonalisationData', {
    description: 'Layer name → command. A name matches layers exactly; a name shared by several layers applies to all.',
    example: { Title: { type: 'text', text: 'Hello', color: '#336699' }, Photo: { type: 'image', image: 'https://example.com/a.jpg', resizeMode: 'fill' }, Badge: { visible: false } },
  });

export type TextCommand = z.infer<typeof TextCommandSchema>;
export type ImageCommand = z.infer<typeof ImageCommandSchema>;
export type ShapeCommand = z.infer<typeof ShapeCommandSchema>;
export type SwitchCommand = z.infer<typeof SwitchCommandSchema>;
export type BarcodeCommand = z.infer<typeof BarcodeCommandSchema>;
export type DataCommand = z.infer<typeof DataCommandSchema>;
export type PersonalisationData = z.infer<typeof PersonalisationDataSchema>;
