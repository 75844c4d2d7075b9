/**
 * Request and response schemas of the Dynamic Image API (spec section B, rendering contract).
 * Names and defaults are the spec's; they validate requests and generate the OpenAPI document.
 */
import { z } from '@hono/zod-openapi';
import { PersonalisationDataSchema } from '../engine/personalise/commands';
import { parseUnsharpMask } from '../engine/raster/unsharp';
import { PREFLIGHT_CODES } from '../engine/preflight/report';

const BOOL = /^(true|false)$/i;

/** A boolean query parameter: `true`/`false` in any case. */
export const queryBool = (defaultValue: boolean, description: string) =>
  z
    .string()
    .regex(BOOL, 'must be true or false')
    .optional()
    .transform((v) => (v === undefined ? defaultValue : v.toLowerCase() === 'true'))
    .openapi({ type: 'boolean', default: defaultValue, description });

/** A boolean JSON property: true/false, or the strings "true"/"false" in any case. */
export const jsonBool = (description: string) =>
  z
    .union([z.boolean(), z.string().regex(BOOL, 'must be true or false')])
    .transform((v) => (typeof v === 'boolean' ? v : v.toLowerCase() === 'true'))
    .openapi({ type: 'boolean', description });

const intParam = (def: number, min: number, max: number, description: string) =>
  z
    .string()
    .regex(/^\s*[+-]?\d+\s*$/, 'must be an integer')
    .optional()
    .transform((v) => (v === undefined ? def : Number(v)))
    .pipe(z.number().int().min(min).max(max))
    .openapi({ type: 'integer', default: def, minimum: min, maximum: max, description });

/** Largest requested output side; the template limit is 10,000 px and s > 1 upscales. */
export const MAX_OUTPUT_SIDE = 10_000;

export const FORMAT_DESCRIPTION = '`jpg`, `jpeg` or `png`, any case. JPEG is flattened over white; PNG keeps alpha.';
/** jpg | jpeg | png in any case → 'jpg' | 'png'. */
const formatValue = z
  .string()
  .regex(/^(jpe?g|png)$/i, 'must be jpg, jpeg or png')
  .transform((v) => (v.toLowerCase() === 'png' ? ('png' as const) : ('jpg' as const)));

const UNSHARP_DESCRIPTION =
  '`false` turns it off; absent or `true` means `(1.2, 0.5, 0.05)`; otherwise "amount, radius, threshold" with or without parentheses (gain, Gaussian sigma in output pixels, threshold 0–1). Acts only when the output is smaller than the template.';

/** unsharpMask from JSON (boolean or string) or a query (string); validated by the raster parser. */
export const unsharpMaskValue = z
  .union([z.boolean(), z.string()])
  .optional()
  .transform((v, ctx) => {
    try {
      return parseUnsharpMask(v);
    } catch (e) {
      ctx.addIssue({ code: 'custom', message: (e as { details?: Array<{ reason: string }> }).details?.[0]?.reason ?? String(e) });
      return z.NEVER;
    }
  })
  .openapi({ oneOf: [{ type: 'boolean' }, { type: 'string', example: '(1.2, 0.5, 0.05)' }], description: UNSHARP_DESCRIPTION });

// --- parameters -------------------------------------------------------------------------------

export const ListQuery = z.object({
  subfolder: z.string().optional().openapi({ description: 'Folder inside the root; empty = the root.', example: 'cards' }),
  showSubfolders: queryBool(false, 'true lists the folder recursively.'),
});

export const UploadQuery = z.object({
  destination: z.string().optional().openapi({ description: 'Folder to store the files in (created as needed); empty = the root.', example: 'cards' }),
  overwrite: queryBool(false, 'false: a clashing name becomes `name_1.ext`, `name_2.ext`, …'),
});

export const TemplateUploadQuery = UploadQuery.extend({
  bleed: z
    .string()
    .max(32)
    .optional()
    .openapi({
      description: 'Bleed the template carries on every edge, e.g. `3mm` (also cm, in, pt, px): print PDFs get TrimBox = canvas inset by it, BleedBox = MediaBox = canvas.',
      example: '3mm',
    }),
});

export const DisableCacheQuery = z.object({
  disableCache: queryBool(false, 'true renders anew instead of returning a cached result.'),
});

export const ImagePreviewQuery = z.object({
  file: z.string().optional().openapi({ description: 'Image name (Required).', example: 'photos/a.jpg' }),
  format: formatValue.optional().default('jpg').openapi({ type: 'string', default: 'jpg', description: FORMAT_DESCRIPTION }),
  jpegQuality: intParam(85, 0, 100, 'JPEG quality 0–100.'),
  width: intParam(400, 1, MAX_OUTPUT_SIDE, 'Width of the box the thumbnail fits in.'),
  height: intParam(400, 1, MAX_OUTPUT_SIDE, 'Height of the box the thumbnail fits in.'),
  disableCache: queryBool(false, 'false returns the cached thumbnail when there is one.'),
  unsharpMask: unsharpMaskValue,
});

/** Multipart upload body: one or more files in the field `file`. */
const UploadedFile = z.custom<File>((v) => v instanceof File, 'must be a file').openapi({ type: 'string', format: 'binary' });
export const UploadBody = z
  .object({
    file: z.union([UploadedFile, z.array(UploadedFile)]).openapi({ type: 'array', items: { type: 'string', format: 'binary' } }),
  })
  .openapi('Upload');

// --- models -----------------------------------------------------------------------------------

export const BuildInfo = z
  .object({ version: z.string(), buildDate: z.string(), configuration: z.string(), appName: z.string() })
  .openapi('BuildInfo');

export const FontInfo = z
  .object({ fullName: z.string(), style: z.string(), family: z.string(), postscriptName: z.string() })
  .openapi('FontInfo');
export const FontList = z.object({ total: z.number().int(), items: z.array(FontInfo) }).openapi('FontList');

export const ImageModel = z
  .object({
    title: z.string().openapi({ description: 'File name without folder and extension.' }),
    name: z.string().openapi({ description: 'Root-relative file name, as used in requests.' }),
    previewUrl: z.string().openapi({ description: 'Absolute URL of a thumbnail.' }),
  })
  .openapi('ImageModel');
export const ImageList = z.object({ total: z.number().int(), items: z.array(ImageModel) }).openapi('ImageList');

export const TemplateList = z.object({ total: z.number().int(), items: z.array(z.string()) }).openapi('TemplateList');
export const NameList = z.array(z.string()).openapi({ example: ['cards/x.psd'] });

const TemplateName = z.string().min(1).openapi({ description: 'Template name; the extension is optional (`cards/x` tries .psd, then .psb).', example: 'demo/psdtools-text' });

export const InformationTemplateModel = z
  .object({
    template: TemplateName,
    fullInfo: jsonBool('true returns the full layer information (bounds, text, effects …).').optional(),
  })
  .openapi('InformationTemplateModel');

const Size = z.object({ width: z.number().int(), height: z.number().int() }).openapi('Size');
const LayerSettings = z
  .object({
    dataName: z.string().optional().openapi({ description: 'The name `data` may use for this layer: its name without the markers (present when it carries any).' }),
    fit: z.enum(['none', 'shrink', 'shrinkToLine']).optional().openapi({ description: 'Text: how text is fitted when a request gives no `fit` (`<TOS_fitToBox>` shrink, `<TOS_fitToWidth>` shrinkToLine, `<TOS_clip>` none).' }),
    minSize: z.number().optional().openapi({ description: 'Text: the smallest size shrinking may reach, in pt (`<FMIN_7>`); absent: half the original size.' }),
    maxWidth: z.number().optional().openapi({ description: 'Point text: how wide it may run, in template px (`<MW_600>`); absent: the canvas.' }),
    required: z.boolean().openapi({ description: 'Preflight reports `emptyField` when the text or picture is empty (`<REQ>`).' }),
    ppi: z.number().optional().openapi({ description: 'Pictures: effective ppi below which preflight warns, errors below half (`<PPI_300>`; default 200).' }),
  })
  .openapi('LayerSettings');
const BaseLayer = z
  .object({
    name: z.string(),
    type: z.enum(['Image', 'Text', 'Shape', 'SmartObject', 'Group', 'Adjustment']),
    settings: LayerSettings.optional(),
    layers: z.array(z.object({}).passthrough()).optional().openapi({ description: 'Children of a group (BaseLayer), top first.' }),
  })
  .passthrough()
  .openapi('BaseLayer');
export const FramesInfo = z
  .object({
    size: Size,
    layers: z.array(BaseLayer),
    bleed: z
      .object({ value: z.string(), pixels: z.number() })
      .optional()
      .openapi({ description: 'The bleed declared at upload (absent: none): as given, and in template pixels.' }),
  })
  .openapi('FramesInfo');

export const PreviewModel = z
  .object({
    template: TemplateName,
    format: formatValue.optional().default('jpg').openapi({ type: 'string', default: 'jpg', description: FORMAT_DESCRIPTION }),
    size: z
      .object({
        width: z.number().int().min(1).max(MAX_OUTPUT_SIDE).optional().default(800),
        height: z.number().int().min(1).max(MAX_OUTPUT_SIDE).optional().default(800),
      })
      .optional()
      .default({ width: 800, height: 800 })
      .openapi({ description: 'Box the preview fits in (each side 800 when absent): s = min(w/W, h/H); s > 1 upscales.' }),
    jpegQuality: z.number().int().min(0).max(100).optional().default(85),
    optimizePreview: jsonBool('Allows faster, lower-quality resampling when downscaling.').optional(),
    unsharpMask: unsharpMaskValue,
    data: PersonalisationDataSchema.optional(),
    preloadImages: jsonBool('Fetch every image named in data concurrently before rendering.').optional(),
  })
  .openapi('PreviewModel');

export type PreviewRequest = z.output<typeof PreviewModel>;

// --- preflight (issue 21) ---------------------------------------------------------------------

export const PreflightProblemModel = z
  .object({
    layer: z.string().openapi({ description: 'The layer the problem is on (its name in the template).' }),
    code: z
      .enum(PREFLIGHT_CODES)
      .openapi({ description: 'What was found; stable, for programs.' }),
    severity: z.enum(['error', 'warning']),
    message: z.string().openapi({ description: 'One sentence for the shopper or the operator.', example: '"Jonathan Livingstone-Smith" is too long for Name: 6 characters do not fit.' }),
    details: z.record(z.string(), z.unknown()).optional().openapi({ description: 'Figures behind the message (e.g. `characters`, `size`, `ppi`).' }),
  })
  .openapi('PreflightProblem');

export const PreflightReportModel = z
  .object({
    ok: z.boolean().openapi({ description: 'No errors (warnings allowed).' }),
    problems: z.array(PreflightProblemModel).openapi({ description: 'Errors first, then warnings.' }),
  })
  .openapi('PreflightReport');

export const PREFLIGHT_HEADER = 'X-Preflight';

/** The verdict preview responses carry, from the render itself (or kept with a cached result). */
export const PreflightHeader = {
  [PREFLIGHT_HEADER]: {
    description: 'The preflight verdict of this render: `ok`, or `errors=1; warnings=2` (POST /api/rendering/preflight lists the problems).',
    schema: { type: 'string' as const, example: 'errors=1; warnings=2' },
  },
};

export const ResultUrl = z.string().openapi({ description: 'Absolute URL of the result: `<base>/api/results/download/<name>`.' });

// --- print PDFs and multipage ------------------------------------------------------------------

export const TextOutputMode = z
  .string()
  .regex(/^(outlines|text)$/i, 'must be outlines or text')
  .transform((v) => v.toLowerCase() as 'outlines' | 'text')
  .openapi({
    type: 'string',
    enum: ['outlines', 'text'],
    default: 'outlines',
    description:
      'How vector text is written: `outlines` (default) draws glyph outlines; `text` embeds font subsets (selectable text) where the font allows embedding. Beyond the spec: the original service took this as PdfTextOutputMode.',
  });

const COLOR_SPACES = { rgb: 'Rgb', cmyk: 'Cmyk', grayscale: 'Grayscale', gray: 'Grayscale', greyscale: 'Grayscale' } as const;
export const OutputColorSpaceValue = z
  .string()
  .regex(/^(rgb|cmyk|grayscale|gray|greyscale)$/i, 'must be rgb, cmyk or grayscale')
  .transform((v) => COLOR_SPACES[v.toLowerCase() as keyof typeof COLOR_SPACES])
  .openapi({
    type: 'string',
    enum: ['rgb', 'cmyk', 'grayscale'],
    description:
      'Colour space of the PDF. Absent: the template’s own (RGB, or CMYK for a CMYK template). `cmyk` and `grayscale` convert through the output profile (relative colorimetric with black-point compensation) and write PDF/X-4 unless `pdfFormat` says otherwise.',
  });

const PDF_FORMATS = { pdfx4: 'PdfX4', 'pdf/x-4': 'PdfX4', pdfx1a: 'PdfX1a', 'pdf/x-1a': 'PdfX1a', default: 'Default' } as const;
export const PdfFormatValue = z
  .string()
  .regex(/^(pdfx4|pdf\/x-4|pdfx1a|pdf\/x-1a|default)$/i, 'must be PdfX4, PdfX1a or Default')
  .transform((v) => PDF_FORMATS[v.toLowerCase() as keyof typeof PDF_FORMATS])
  .openapi({
    type: 'string',
    enum: ['PdfX4', 'PdfX1a', 'Default'],
    description:
      '`PdfX4` (default for CMYK and grey): output intent, GTS_PDFXVersion, XMP; `PdfX1a`: CMYK or grey only, no ICC-based colour, transparency flattened; `Default`: a plain PDF (the default for RGB).',
  });

export const HiresModel = z
  .object({
    template: z.string().min(1).openapi({ description: 'Template name; the extension is optional.', example: 'demo/psdtools-text' }),
    data: PersonalisationDataSchema.optional(),
    preloadImages: jsonBool('Fetch every image named in data concurrently before rendering.').optional(),
    textOutputMode: TextOutputMode.optional(),
    colorSpace: OutputColorSpaceValue.optional(),
    colorProfile: z
      .string()
      .min(1)
      .max(255)
      .optional()
      .openapi({ description: 'Output ICC profile by name (a colour-profile asset, or a shipped default: `sRGB`, `FOGRA39`, `sGray`); absent: the template’s embedded profile when its colour space matches, else the default of the colour space.' }),
    keepOriginalColors: jsonBool('CMYK source colours (`cmyk()` in data, CMYK template data) go into CMYK output unchanged (default true).').optional(),
    pdfFormat: PdfFormatValue.optional(),
  })
  .openapi('HiresModel');

export type HiresRequest = z.output<typeof HiresModel>;

/** Upper bound on pages per request: each page is a full render. */
export const MAX_PAGES = 100;

const pages = <T extends z.ZodType>(page: T) => z.array(page).min(1, 'must list at least one page').max(MAX_PAGES);

export const MultipagePreviewModel = z.object({ pages: pages(PreviewModel) }).openapi('MultipagePreviewModel');
export const MultipageHiresModel = z
  .object({
    combine: jsonBool('true (default): one PDF whose pages follow `pages`; false: one PDF per page.').optional(),
    pages: pages(HiresModel),
  })
  .openapi('MultipageHiresModel');

export const MultipageRenderingResponseModel = z
  .object({ results: z.array(z.object({ url: z.string() }).openapi('RenderingResponseModel')) })
  .openapi('MultipageRenderingResponseModel');
