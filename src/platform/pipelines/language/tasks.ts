/**
 * The task-type catalogue (contract: Pipelines & rendering jobs, the task table).
 *
 * Each built-in type declares its parameters (typed, with defaults), how many input and output
 * artifacts it takes, and whether a collection input makes it run per member. The validator
 * checks pipelines against it; the runner reads a task's parameters through
 * `normaliseParameters`, which applies defaults and returns the typed view (`TaskParams<T>`).
 */
import {
  type ParamSpec,
  type ParamValue,
  bool,
  int,
  json,
  num,
  objects,
  oneOf,
  orderData,
  pageRanges,
  str,
  stringRecord,
  strings,
  url,
} from './parameters';

export type { OrderDataEntry, PageRange, ParamSpec } from './parameters';

/**
 * How a task uses artifacts.
 * - `source`: takes no inputs, produces its outputs from the project or storage.
 * - `perMember`: a collection input runs the task once per member, so its outputs must be
 *   collections too when any input is a collection.
 * - `gather`: reads all its inputs at once (merge, upload, export); outputs may be single.
 */
export type ArtifactMode = 'source' | 'perMember' | 'gather';

export interface Arity {
  min: number;
  max: number;
}

export interface TaskSpec<P extends Record<string, ParamSpec> = Record<string, ParamSpec>> {
  readonly mode: ArtifactMode;
  readonly inputs: Arity;
  readonly outputs: Arity;
  /** Outputs must be single artifacts (`name`, not `name*`), e.g. one merged PDF. */
  readonly singleOutput?: boolean;
  readonly parameters: P;
  /** Alternatives of which one must be fully given, e.g. `templateId` or `templateName`. */
  readonly requiresOneOf?: readonly (readonly string[])[];
  /** With no input artifacts, this parameter must name the sources (`images`). */
  readonly inputsOrParameter?: string;
  /** Defaults that depend on other parameters (FTP port by protocol). */
  complete?(values: Record<string, unknown>): void;
}

const MANY = 500;
const none: Arity = { min: 0, max: 0 };
const one: Arity = { min: 1, max: 1 };

function spec<const P extends Record<string, ParamSpec>>(s: TaskSpec<P>): TaskSpec<P> {
  return s;
}

/** `outputName`: file outputs default to the source name, `_<n>` per page. */
const outputName = { outputName: str({ maxLength: 255 }) };

const previewParams = {
  previewOutputWidth: int({ min: 1, max: 4000 }).default(800),
  previewOutputHeight: int({ min: 1, max: 4000 }).default(800),
  previewOutputFileFormat: oneOf(['Jpeg', 'Png'], { Jpg: 'Jpeg' }).default('Jpeg'),
  previewOutputPrintAreaFilter: pageRanges(),
  previewOutputShowStubContent: bool().default(true),
  previewOutputShowMockup: bool().default(true),
  previewOutputVisualizePrintAreas: bool().default(false),
};

const proofParams = {
  proofOutputWidth: int({ min: 1, max: 4000 }).default(1200),
  proofOutputHeight: int({ min: 1, max: 4000 }).default(1200),
  proofOutputFileFormat: oneOf(['Jpeg', 'Png'], { Jpg: 'Jpeg' }).default('Jpeg'),
  proofOutputPrintAreaFilter: pageRanges(),
  proofOutputShowStubContent: bool().default(true),
  proofOutputShowMockup: bool().default(true),
  proofOutputVisualizePrintAreas: bool().default(false),
};

const previewSize = {
  previewOutputWidth: previewParams.previewOutputWidth,
  previewOutputHeight: previewParams.previewOutputHeight,
  previewOutputFileFormat: previewParams.previewOutputFileFormat,
};

const hiresParams = {
  hiResOutputDpi: num({ min: 1, max: 2400 }).default(300),
  hiResOutputFileFormat: oneOf(['Pdf', 'Jpeg', 'Png', 'Tiff', 'Bmp'], { Jpg: 'Jpeg', Tif: 'Tiff' }).default(
    'Pdf',
  ),
  /** Cmyk (the reference product's default) and Grayscale convert through the output profile (docs/pdf.md). */
  hiResOutputColorSpace: oneOf(['Rgb', 'Grayscale', 'Cmyk'], { Gray: 'Grayscale', Greyscale: 'Grayscale' }).default(
    'Cmyk',
  ),
  /** Colour-profile asset names; else the tenant default, else the shipped default of the space. */
  hiResOutputCmykColorProfileName: str({ maxLength: 255 }),
  hiResOutputRgbColorProfileName: str({ maxLength: 255 }),
  hiResOutputGrayscaleColorProfileName: str({ maxLength: 255 }),
  renderingIntent: oneOf(['Perceptual', 'RelativeColorimetric', 'Saturation', 'AbsoluteColorimetric'], {
    Relative: 'RelativeColorimetric',
    Absolute: 'AbsoluteColorimetric',
  }).default('RelativeColorimetric'),
  /** PDF/X-4 is written for Cmyk and Grayscale unless `Default` or `PdfX1a` is asked for; RGB: Default. */
  hiResOutputPdfFormat: oneOf(['Default', 'PdfX4', 'PdfX1a'], { PdfX_4: 'PdfX4', PdfX_1a: 'PdfX1a', X4: 'PdfX4', X1a: 'PdfX1a' }),
  hiResOutputPdfTextMode: oneOf(['Outlines', 'Text'])
    .default('Outlines')
    .alias('pdfTextOutputMode', 'hiResOutputPdfTextOutputMode'),
  /** `cmyk()` colours and CMYK source data unchanged in CMYK output (the seed wrote PdfKeepOriginalColors). */
  hiResOutputPdfKeepOriginalColors: bool().default(false).alias('PdfKeepOriginalColors'),
  hiResOutputRotateMode: oneOf(['None', 'Rotate90', 'Rotate180', 'Rotate270']).default('None'),
  hiResOutputFlipMode: oneOf(['None', 'Horizontal', 'Vertical', 'Both']).default('None'),
  hiResOutputBackgroundColor: str({ maxLength: 100 }),
  /**
   * TIFF compression. `Zip` = `Deflate`; `Lzw` and `Jpeg` (found in pipelines written for the
   * original) are written losslessly as Deflate.
   */
  hiResOutputCompression: oneOf(['None', 'Deflate'], { Zip: 'Deflate', Lzw: 'Deflate', Jpeg: 'Deflate' }).default(
    'Deflate',
  ),
  hiResOutputJpegCompressionQuality: int({ min: 1, max: 100 }).default(90),
  hiResOutputPrintAreaFilter: pageRanges(),
  hiResOutputToSeparateFiles: bool().default(false),
  /** One PDF per separation: the process plates, then each spot channel of the PSD (its name in the file name). */
  hiResOutputChannelContainersToSeparateFiles: bool().default(false),
  hiResOutputArchiveType: oneOf(['None', 'Zip']).default('None'),
};

const vdpParams = { vdpData: objects() };

const imagePreviewParams = {
  images: strings({ max: MANY }),
  mockups: strings({ max: 50 }),
  fitMode: oneOf(['Fit', 'Fill'], { Shrink: 'Fit', ImageFill: 'Fill' }).default('Fill'),
  ...previewSize,
};

/** How the Order Desk tasks find the order (order-desk.ts); `orderLookupId` defaults to the project's order id. */
const orderDeskLookup = {
  storeUrl: url().default('https://app.orderdesk.me/api/v2/'),
  storeId: str({ nonEmpty: true, maxLength: 64 }).must(),
  storeApiKey: str({ nonEmpty: true, maxLength: 1024 }).must(),
  orderLookupId: str({ maxLength: 255 }),
  orderLookupType: oneOf(['SourceId', 'ProjectName', 'OrderDeskId']).default('SourceId'),
  skipMissingOrders: bool().default(false),
};

export const TASKS = {
  'extract-project-design': spec({ mode: 'source', inputs: none, outputs: one, parameters: {} }),
  'extract-project-resource': spec({
    mode: 'source',
    inputs: none,
    outputs: one,
    parameters: {
      resourceType: oneOf(['General', 'Preview', 'Hires']).must(),
      resourceName: str({ maxLength: 255 }),
    },
  }),
  'extract-project-artifacts': spec({
    mode: 'source',
    inputs: none,
    outputs: { min: 1, max: 50 },
    parameters: { artifacts: strings({ nonEmpty: true, max: MANY }).must() },
  }),
  'render-preview': spec({
    mode: 'perMember',
    inputs: one,
    outputs: one,
    parameters: { ...previewParams, ...outputName },
  }),
  'render-proof': spec({
    mode: 'perMember',
    inputs: one,
    outputs: one,
    parameters: { ...proofParams, ...outputName },
  }),
  'render-design-preview-with-mockup': spec({
    mode: 'perMember',
    inputs: one,
    outputs: one,
    parameters: {
      mockups: strings({ nonEmpty: true, max: 50 }).must(),
      visualizePrintAreas: bool().default(false),
      ...previewSize,
      ...outputName,
    },
  }),
  'render-image-preview': spec({
    mode: 'perMember',
    inputs: { min: 0, max: 10 },
    outputs: one,
    parameters: { ...imagePreviewParams, ...outputName },
    inputsOrParameter: 'images',
  }),
  'render-image-preview-with-mockup': spec({
    mode: 'perMember',
    inputs: { min: 0, max: 10 },
    outputs: one,
    parameters: { ...imagePreviewParams, mockups: strings({ nonEmpty: true, max: 50 }).must(), ...outputName },
    inputsOrParameter: 'images',
  }),
  'render-hires': spec({
    mode: 'perMember',
    inputs: one,
    outputs: one,
    parameters: { ...hiresParams, ...outputName },
  }),
  'render-vdp-preview': spec({
    mode: 'perMember',
    inputs: { min: 1, max: 2 },
    outputs: one,
    parameters: { ...previewParams, ...vdpParams, ...outputName },
  }),
  'render-vdp-hires': spec({
    mode: 'perMember',
    inputs: { min: 1, max: 2 },
    outputs: one,
    parameters: { ...hiresParams, ...vdpParams, ...outputName },
  }),
  /**
   * Ours (issue 21): the design's preflight with the item's fields, recorded on the job; fails the
   * task on errors (`failOnErrors`) or warnings (`failOnWarnings`). An output gets the report as JSON.
   */
  preflight: spec({
    mode: 'perMember',
    inputs: one,
    outputs: { min: 0, max: 1 },
    parameters: { failOnErrors: bool().default(true), failOnWarnings: bool().default(false), ...outputName },
  }),
  'draw-crop-marks': spec({
    mode: 'perMember',
    inputs: one,
    outputs: one,
    parameters: {
      drawCropMarkBlackCropLineMaxLength: num({ min: 0, max: 144 }).default(12),
      /** Defaults to the black length (see `complete`). */
      drawCropMarkWhiteCropLineMaxLength: num({ min: 0, max: 144 }).completed(),
      ...outputName,
    },
    complete(v) {
      v.drawCropMarkWhiteCropLineMaxLength ??= v.drawCropMarkBlackCropLineMaxLength;
    },
  }),
  'merge-separate-pages': spec({
    mode: 'gather',
    inputs: { min: 1, max: 50 },
    outputs: one,
    singleOutput: true,
    parameters: { ...outputName },
  }),
  'extract-design-images': spec({
    mode: 'perMember',
    inputs: one,
    outputs: one,
    parameters: { outputArchiveType: oneOf(['None', 'Zip']).default('None'), ...outputName },
  }),
  'populate-psd-template': spec({
    mode: 'gather',
    inputs: { min: 1, max: 50 },
    outputs: one,
    parameters: {
      templateId: str({ nonEmpty: true, maxLength: 64 }),
      templateName: str({ nonEmpty: true, maxLength: 255 }),
      templateFolder: str({ maxLength: 1024 }),
      inputRepeatCount: int({ min: 1, max: MANY }).default(1),
      inputImageDpi: num({ min: 1, max: 2400 }).default(300),
      inputImageResizeMode: oneOf(['Fit', 'ImageFill'], { Shrink: 'Fit', Resize: 'ImageFill' }).default('Fit'),
      outputToSeparateFiles: bool().default(false),
      ...outputName,
    },
    requiresOneOf: [['templateId'], ['templateName']],
  }),
  'invoke-url': spec({
    mode: 'gather',
    inputs: { min: 0, max: 50 },
    outputs: { min: 0, max: 1 },
    singleOutput: true,
    parameters: {
      url: url().must(),
      httpMethod: oneOf(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']).default('POST'),
      queryHeaders: stringRecord().default({}),
      queryParameters: stringRecord().default({}),
      body: json(),
      retryCount: int({ min: 0, max: 10 }).default(0),
      retryDelaySeconds: num({ min: 0, max: 3600 }).default(10),
    },
  }),
  'download-files': spec({
    mode: 'source',
    inputs: none,
    outputs: one,
    parameters: {
      urls: strings({ nonEmpty: true, max: 50 }).must(),
      /** Ours: request headers (e.g. Authorization), checked for line breaks at run time. */
      headers: stringRecord().default({}).alias('queryHeaders'),
    },
  }),
  'extract-assets': spec({
    mode: 'source',
    inputs: none,
    outputs: one,
    parameters: {
      assetType: oneOf(['Design', 'PrivateDesign', 'Image', 'PrivateImage']).must(),
      assetIds: strings({ nonEmpty: true, max: MANY }).must(),
    },
  }),
  /** Parametric imposition (docs/production.md); lengths and sizes are parsed at run time. */
  'produce-imposition': spec({
    mode: 'gather',
    inputs: { min: 1, max: 50 },
    outputs: one,
    singleOutput: true,
    parameters: {
      impositionTemplateId: str({ nonEmpty: true, maxLength: 64 }),
      impositionTemplateName: str({ nonEmpty: true, maxLength: 255 }),
      impositionTemplateFolder: str({ maxLength: 1024 }).default('/'),
      /** Ours: keep the template's other pixels under the pages (not available yet). */
      impositionTemplateBackground: bool().default(false),
      sheetSize: str({ nonEmpty: true, maxLength: 64 }).default('SRA3'),
      margin: str({ maxLength: 32 }).default('10mm'),
      gutter: str({ maxLength: 32 }).default('0'),
      gutterX: str({ maxLength: 32 }),
      gutterY: str({ maxLength: 32 }),
      layout: str({ maxLength: 16 }).default('auto'),
      quantity: int({ min: 1, max: 1_000_000 }),
      scheme: oneOf(['stepAndRepeat', 'cutAndStack'], { StepRepeat: 'stepAndRepeat', CutStack: 'cutAndStack' }).default('stepAndRepeat'),
      duplex: bool().default(false),
      cropMarks: bool().default(false),
      slugLine: bool().default(false),
      ...outputName,
    },
  }),
  'combine-with-cut-pattern': spec({
    mode: 'perMember',
    inputs: one,
    outputs: one,
    parameters: {
      cutPatternId: str({ nonEmpty: true, maxLength: 64 }),
      cutPatternName: str({ nonEmpty: true, maxLength: 255 }),
      cutPatternFolder: str({ maxLength: 1024 }).default('/'),
      cutPatternCenterPointX: num({ min: -100_000, max: 100_000 }),
      cutPatternCenterPointY: num({ min: -100_000, max: 100_000 }),
      /** Ours: the die line's ink and stroke. */
      cutPatternSpotColorName: str({ nonEmpty: true, maxLength: 127 }).default('CutContour'),
      cutPatternStrokeWidth: num({ min: 0.01, max: 72 }).default(0.25),
      ...outputName,
    },
    requiresOneOf: [['cutPatternId'], ['cutPatternName']],
  }),
  'upload-to-ftp': spec({
    mode: 'gather',
    inputs: { min: 1, max: 50 },
    outputs: none,
    parameters: {
      host: str({ nonEmpty: true, maxLength: 255 }).must(),
      /** 21, or 990 for FtpsImplicit (see `complete`). */
      port: int({ min: 1, max: 65535 }).completed(),
      userName: str({ maxLength: 255 }).default('anonymous'),
      password: str({ maxLength: 1024 }).default(''),
      folder: str({ maxLength: 1024 }).default('/'),
      fileName: str({ maxLength: 255 }),
      protocol: oneOf(['Ftp', 'Ftps', 'FtpsImplicit', 'Sftp']).default('Ftp'),
      /** Sftp (docs/delivery.md): an OpenSSH private key, usually `{{secrets.<name>}}`. */
      privateKey: str({ maxLength: 16384 }).alias('sshPrivateKey'),
      passphrase: str({ maxLength: 1024 }).alias('privateKeyPassphrase', 'sshKeyPassphrase'),
      /** Sftp: `SHA256:…` as `ssh-keygen -lf` prints it; unset = trust on first use. */
      hostKeyFingerprint: str({ maxLength: 100 }),
      /** Ftps/FtpsImplicit: the server certificate's SHA-256 (docs/delivery.md: what Workers can check). */
      tlsCertificateFingerprint: str({ maxLength: 200 }),
    },
    complete(v) {
      v.port ??= v.protocol === 'FtpsImplicit' ? 990 : v.protocol === 'Sftp' ? 22 : 21;
    },
  }),
  'upload-to-s3': spec({
    mode: 'gather',
    inputs: { min: 1, max: 50 },
    outputs: none,
    parameters: {
      endpoint: url(),
      region: str({ nonEmpty: true, maxLength: 64 }).default('us-east-1'),
      bucket: str({ nonEmpty: true, maxLength: 255 }).must(),
      key: str({ maxLength: 1024 }),
      accessKeyId: str({ nonEmpty: true, maxLength: 1024 }).must(),
      secretAccessKey: str({ nonEmpty: true, maxLength: 1024 }).must(),
    },
  }),
  'upload-to-dropbox': spec({
    mode: 'gather',
    inputs: { min: 1, max: 50 },
    outputs: none,
    parameters: {
      accessToken: str({ nonEmpty: true, maxLength: 4096 }),
      refreshToken: str({ nonEmpty: true, maxLength: 4096 }),
      appKey: str({ nonEmpty: true, maxLength: 255 }),
      appSecret: str({ nonEmpty: true, maxLength: 255 }),
      path: str({ maxLength: 1024 }).default('/'),
    },
    requiresOneOf: [['accessToken'], ['refreshToken', 'appKey', 'appSecret']],
  }),
  'export-to-ecommerce': spec({
    mode: 'gather',
    inputs: { min: 0, max: 50 },
    outputs: none,
    parameters: { orderData: orderData().must() },
  }),
  'sn-export-order-details-to-csv': spec({
    mode: 'gather',
    inputs: { min: 0, max: 50 },
    outputs: one,
    singleOutput: true,
    parameters: { ...outputName },
  }),
  'export-to-order-desk': spec({
    mode: 'gather',
    inputs: { min: 0, max: 50 },
    outputs: none,
    parameters: {
      ...orderDeskLookup,
      orderItemLookupName: str({ nonEmpty: true, maxLength: 255 }),
      orderItemLookupValue: str({ maxLength: 1024 }),
      /** An object; values strings, or lists (`{{result:url}}` of a collection) written comma-separated (order-desk.ts). */
      data: json().must(),
    },
  }),
  'change-group-in-order-desk': spec({
    mode: 'gather',
    inputs: { min: 0, max: 50 },
    outputs: none,
    parameters: { ...orderDeskLookup, destinationGroupName: str({ nonEmpty: true, maxLength: 255 }).default('Prepared') },
  }),
  finalize: spec({
    mode: 'gather',
    inputs: { min: 0, max: 50 },
    outputs: none,
    parameters: { anonymousAccess: bool().default(false) },
  }),
} as const;

export type TaskType = keyof typeof TASKS;
export const TASK_TYPES = Object.keys(TASKS) as TaskType[];

/** The typed values of a group of parameter specs, defaults applied. */
export type ParamValues<P extends Record<string, ParamSpec>> = { -readonly [K in keyof P]: ParamValue<P[K]> };

/** The typed, defaulted parameters of a task type, as `normaliseParameters` returns them. */
export type TaskParams<T extends TaskType> = ParamValues<(typeof TASKS)[T]['parameters']>;

/** The parameter groups several task types share, so a helper can take just its group. */
export type HiresParams = ParamValues<typeof hiresParams>;
export type PreviewParams = ParamValues<typeof previewParams>;
export type ProofParams = ParamValues<typeof proofParams>;
export type OutputNameParams = ParamValues<typeof outputName>;
export type VdpParams = ParamValues<typeof vdpParams>;
export type ImagePreviewParams = ParamValues<typeof imagePreviewParams>;

/** Older names of built-in types. */
export const TYPE_ALIASES: Readonly<Record<string, TaskType>> = {
  'attach-data-to-order': 'export-to-ecommerce',
};

/** Namespaces that mean "built-in"; an omitted namespace does too. */
export const BUILT_IN_NAMESPACES = ['default', 'customers-canvas'] as const;

/** The skip conditions, valid on every task (conditions.ts evaluates them). */
export const CONDITION_PARAMETERS = ['skipIf', 'skipIfNot', 'skipIfAny', 'skipIfAll', 'skipIfNotAny', 'skipIfNotAll'] as const;
export type ConditionParameter = (typeof CONDITION_PARAMETERS)[number];

/** Order-management connector parameters: reserved on every task but the Order Desk ones, which use them. */
export const RESERVED_PARAMETERS = ['skipMissingOrders', 'orderLookupType', 'destinationGroupName'] as const;

export const NOT_AVAILABLE_YET = 'not available yet';

/**
 * Resolves a written type (ASCII case ignored, aliases followed) to a built-in type, or tells
 * that it is reserved (`export-to-*` but export-to-ecommerce, `change-group-in-*`) or unknown.
 */
export function resolveTaskType(
  written: string,
): { kind: 'builtIn'; type: TaskType } | { kind: 'reserved' } | { kind: 'unknown' } {
  const t = written.trim().toLowerCase();
  if (Object.hasOwn(TASKS, t)) return { kind: 'builtIn', type: t as TaskType };
  if (Object.hasOwn(TYPE_ALIASES, t)) return { kind: 'builtIn', type: TYPE_ALIASES[t]! };
  if (isReservedType(t)) return { kind: 'reserved' };
  return { kind: 'unknown' };
}

export function isReservedType(type: string): boolean {
  const t = type.trim().toLowerCase();
  return (t.startsWith('export-to-') && t !== 'export-to-ecommerce') || t.startsWith('change-group-in-');
}

export function isBuiltInNamespace(namespace: unknown): boolean {
  return (
    namespace === undefined ||
    namespace === null ||
    (typeof namespace === 'string' &&
      (BUILT_IN_NAMESPACES as readonly string[]).includes(namespace.trim().toLowerCase()))
  );
}

export function taskSpec(type: TaskType): TaskSpec {
  return TASKS[type] as unknown as TaskSpec;
}

/** Finds the declared parameter a written name means (ASCII case ignored, aliases followed). */
export function findParameter(type: TaskType, written: string): { name: string; spec: ParamSpec } | undefined {
  return parameterIndex(type).get(written.toLowerCase());
}

const indexes = new Map<TaskType, Map<string, { name: string; spec: ParamSpec }>>();
function parameterIndex(type: TaskType) {
  let index = indexes.get(type);
  if (!index) {
    index = new Map();
    for (const [name, s] of Object.entries(taskSpec(type).parameters)) {
      index.set(name.toLowerCase(), { name, spec: s });
      for (const a of s.aliases) index.set(a.toLowerCase(), { name, spec: s });
    }
    indexes.set(type, index);
  }
  return index;
}

export function isConditionParameter(written: string): ConditionParameter | undefined {
  const lower = written.toLowerCase();
  return CONDITION_PARAMETERS.find((c) => c.toLowerCase() === lower);
}

/** Why a written parameter (name and value) is reserved, or undefined if it is not. */
export function reservedParameter(type: TaskType, written: string, value: unknown): string | undefined {
  const lower = written.toLowerCase();
  if (!type.endsWith('-order-desk') && RESERVED_PARAMETERS.some((r) => r.toLowerCase() === lower)) return `${written} is ${NOT_AVAILABLE_YET}`;
  // Workers' TLS sockets verify against public CAs and expose no certificate to pin (docs/delivery.md).
  if (type === 'upload-to-ftp' && lower === 'tlscertificatefingerprint') return 'Workers TLS sockets cannot pin a certificate: the FTPS server needs one from a public certificate authority (docs/delivery.md)';
  return undefined;
}

/** A parameter problem found at run time (after interpolation): fails the task at once. */
export class ParameterError extends Error {
  readonly code = 'invalid_parameter';
  constructor(readonly errors: Record<string, string[]>) {
    super(
      Object.entries(errors)
        .map(([k, v]) => `${k}: ${v.join('; ')}`)
        .join(', '),
    );
    this.name = 'ParameterError';
  }
}

/**
 * The typed view of a task's parameters for the runner: declared names, defaults applied,
 * numbers and booleans parsed from strings, enum aliases resolved; condition and unknown
 * parameters dropped. Pass the parameters after interpolation. An empty string for a
 * non-string parameter counts as absent (what an optional `{{…?}}` leaves). Throws
 * `ParameterError` listing every problem by parameter name.
 *
 * ```ts
 * const p = normaliseParameters('render-hires', { HiResOutputFileFormat: 'jpg', hiResOutputDpi: '150' });
 * p.hiResOutputFileFormat; // 'Jpeg'
 * p.hiResOutputDpi;        // 150
 * ```
 */
export function normaliseParameters<T extends TaskType>(
  type: T,
  parameters: Record<string, unknown> | null | undefined,
): TaskParams<T> {
  const s = taskSpec(type);
  const errors: Record<string, string[]> = {};
  const add = (k: string, m: string) => (errors[k] ??= []).push(m);
  const given = new Map<string, { written: string; value: unknown }>();
  for (const [written, value] of Object.entries(parameters ?? {})) {
    const found = findParameter(type, written);
    if (!found) {
      const reserved = reservedParameter(type, written, value);
      if (reserved) add(written, reserved);
      continue;
    }
    const reserved = reservedParameter(type, written, value);
    if (reserved) add(written, reserved);
    const previous = given.get(found.name);
    if (previous) add(written, `given twice (as ${previous.written} and ${written})`);
    else given.set(found.name, { written, value });
  }
  const out: Record<string, unknown> = {};
  for (const [name, p] of Object.entries(s.parameters)) {
    const g = given.get(name);
    const absent =
      g === undefined || g.value === undefined || g.value === null || (g.value === '' && p.kind !== 'string');
    if (absent) {
      if (p.required && p.defaultValue === undefined) add(g?.written ?? name, 'is required');
      out[name] = p.defaultValue === undefined ? undefined : structuredClone(p.defaultValue);
      continue;
    }
    const r = p.parse(g.value);
    if (r.ok) out[name] = r.value;
    else add(g.written, r.error);
  }
  if (s.requiresOneOf && !s.requiresOneOf.some((g) => g.every((n) => out[n] !== undefined))) {
    add(s.requiresOneOf.map((g) => g.join(' + ')).join(' or '), 'one of these is required');
  }
  if (Object.keys(errors).length) throw new ParameterError(errors);
  s.complete?.(out);
  return out as TaskParams<T>;
}
