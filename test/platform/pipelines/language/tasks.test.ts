import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  type TaskParams,
  ParameterError,
  TASK_TYPES,
  findParameter,
  isBuiltInNamespace,
  normaliseParameters,
  resolveTaskType,
} from '../../../../src/platform/pipelines/language';

/** The task table of the contract (Pipelines & rendering jobs). */
const CONTRACT_TYPES = [
  'extract-project-design',
  'extract-project-resource',
  'extract-project-artifacts',
  'render-preview',
  'render-proof',
  'render-design-preview-with-mockup',
  'render-image-preview',
  'render-image-preview-with-mockup',
  'render-hires',
  'render-vdp-preview',
  'render-vdp-hires',
  'draw-crop-marks',
  'merge-separate-pages',
  'extract-design-images',
  'populate-psd-template',
  'invoke-url',
  'upload-to-ftp',
  'upload-to-s3',
  'upload-to-dropbox',
  'export-to-ecommerce',
  'sn-export-order-details-to-csv',
  // Order Desk connector (issue 23).
  'export-to-order-desk',
  'change-group-in-order-desk',
  // Production tasks (issue 22, docs/production.md).
  'produce-imposition',
  'combine-with-cut-pattern',
  'download-files',
  'extract-assets',
  // Preflight (issue 21): ours, checks a design before it is printed.
  'preflight',
  'finalize',
];

const problems = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    if (e instanceof ParameterError) return e.errors;
    throw e;
  }
  throw new Error('expected a ParameterError');
};

describe('catalogue: the contract task table', () => {
  it('has exactly the task types of the contract table', () => {
    expect([...TASK_TYPES].sort()).toEqual([...CONTRACT_TYPES].sort());
  });

  it('resolves types ignoring ASCII case, and the alias attach-data-to-order', () => {
    expect(resolveTaskType('Render-HiRes')).toEqual({ kind: 'builtIn', type: 'render-hires' });
    expect(resolveTaskType('attach-data-to-order')).toEqual({ kind: 'builtIn', type: 'export-to-ecommerce' });
  });

  it('tells reserved connector types from unknown ones', () => {
    expect(resolveTaskType('export-to-sap')).toEqual({ kind: 'reserved' });
    expect(resolveTaskType('change-group-in-x')).toEqual({ kind: 'reserved' });
    expect(resolveTaskType('export-to-ecommerce')).toEqual({ kind: 'builtIn', type: 'export-to-ecommerce' });
    expect(resolveTaskType('render-everything')).toEqual({ kind: 'unknown' });
  });

  it('knows the built-in namespaces', () => {
    expect([undefined, null, 'default', 'customers-canvas', 'CUSTOMERS-CANVAS'].map(isBuiltInNamespace)).toEqual([
      true,
      true,
      true,
      true,
      true,
    ]);
    expect(isBuiltInNamespace('mine')).toBe(false);
  });

  it('finds the pdf text mode by its name and every alias of the contract', () => {
    for (const written of ['hiResOutputPdfTextMode', 'pdfTextOutputMode', 'hiResOutputPdfTextOutputMode', 'PdfTextOutputMode']) {
      expect(findParameter('render-hires', written)?.name).toBe('hiResOutputPdfTextMode');
    }
  });
});

describe('normaliseParameters: defaults', () => {
  it('applies the render-hires defaults (300 dpi PDF, CMYK as the reference product, relative colorimetric, outlines, no rotation or flip)', () => {
    const p = normaliseParameters('render-hires', {});
    expect(p).toMatchObject({
      hiResOutputDpi: 300,
      hiResOutputFileFormat: 'Pdf',
      hiResOutputColorSpace: 'Cmyk',
      renderingIntent: 'RelativeColorimetric',
      hiResOutputPdfTextMode: 'Outlines',
      hiResOutputPdfKeepOriginalColors: false,
      hiResOutputRotateMode: 'None',
      hiResOutputFlipMode: 'None',
      hiResOutputToSeparateFiles: false,
      hiResOutputArchiveType: 'None',
    });
    expect(p.hiResOutputPrintAreaFilter).toBeUndefined();
  });

  it('takes the seed\'s PdfKeepOriginalColors as hiResOutputPdfKeepOriginalColors, and the PDF format by name', () => {
    const p = normaliseParameters('render-hires', { PdfKeepOriginalColors: 'true', hiResOutputPdfFormat: 'pdfx1a', renderingIntent: 'perceptual' });
    expect(p).toMatchObject({ hiResOutputPdfKeepOriginalColors: true, hiResOutputPdfFormat: 'PdfX1a', renderingIntent: 'Perceptual' });
  });

  it('applies render-preview 800 px and render-proof 1200 px', () => {
    expect(normaliseParameters('render-preview', {})).toMatchObject({ previewOutputWidth: 800, previewOutputHeight: 800, previewOutputFileFormat: 'Jpeg' });
    expect(normaliseParameters('render-proof', {})).toMatchObject({ proofOutputWidth: 1200, proofOutputHeight: 1200, proofOutputVisualizePrintAreas: false });
  });

  it('applies invoke-url POST, retryCount 0 and retryDelaySeconds 10', () => {
    expect(normaliseParameters('invoke-url', { url: 'https://example.com/hook' })).toMatchObject({
      httpMethod: 'POST',
      retryCount: 0,
      retryDelaySeconds: 10,
      queryHeaders: {},
      queryParameters: {},
    });
  });

  it('applies populate-psd-template inputRepeatCount 1, inputImageDpi 300, Fit', () => {
    expect(normaliseParameters('populate-psd-template', { templateName: 't' })).toMatchObject({
      inputRepeatCount: 1,
      inputImageDpi: 300,
      inputImageResizeMode: 'Fit',
      outputToSeparateFiles: false,
    });
  });

  it('defaults the white crop line to the black one (12 pt)', () => {
    expect(normaliseParameters('draw-crop-marks', {})).toMatchObject({
      drawCropMarkBlackCropLineMaxLength: 12,
      drawCropMarkWhiteCropLineMaxLength: 12,
    });
    expect(normaliseParameters('draw-crop-marks', { drawCropMarkBlackCropLineMaxLength: 8.5 }).drawCropMarkWhiteCropLineMaxLength).toBe(8.5);
  });

  it('defaults the FTP port by protocol: 21, or 990 for FtpsImplicit', () => {
    expect(normaliseParameters('upload-to-ftp', { host: 'h' }).port).toBe(21);
    expect(normaliseParameters('upload-to-ftp', { host: 'h', protocol: 'ftps' }).port).toBe(21);
    expect(normaliseParameters('upload-to-ftp', { host: 'h', protocol: 'FtpsImplicit' }).port).toBe(990);
    expect(normaliseParameters('upload-to-ftp', { host: 'h', protocol: 'FtpsImplicit', port: '2990' }).port).toBe(2990);
  });

  it('defaults finalize anonymousAccess to false', () => {
    expect(normaliseParameters('finalize', {})).toEqual({ anonymousAccess: false });
  });

  it('treats an empty string for a non-string parameter as absent (what {{…?}} leaves)', () => {
    expect(normaliseParameters('render-hires', { hiResOutputDpi: '' }).hiResOutputDpi).toBe(300);
  });

  it('drops condition and unknown parameters', () => {
    expect(normaliseParameters('finalize', { skipIf: 'x', whatever: 1 })).toEqual({ anonymousAccess: false });
  });
});

describe('normaliseParameters: numbers and booleans also as strings', () => {
  it('parses numeric strings', () => {
    const p = normaliseParameters('render-hires', { hiResOutputDpi: ' 150 ', hiResOutputJpegCompressionQuality: '80' });
    expect([p.hiResOutputDpi, p.hiResOutputJpegCompressionQuality]).toEqual([150, 80]);
  });

  it('parses "true"/"false" ignoring case', () => {
    expect(normaliseParameters('render-hires', { hiResOutputToSeparateFiles: 'True' }).hiResOutputToSeparateFiles).toBe(true);
    expect(normaliseParameters('finalize', { anonymousAccess: 'FALSE' }).anonymousAccess).toBe(false);
  });

  it('rejects non-numbers, out-of-range values and fractions for integers', () => {
    expect(problems(() => normaliseParameters('render-preview', { previewOutputWidth: '12px', previewOutputHeight: 4001 }))).toEqual({
      previewOutputWidth: ['must be an integer from 1 to 4000'],
      previewOutputHeight: ['must be an integer from 1 to 4000'],
    });
    expect(problems(() => normaliseParameters('invoke-url', { url: 'https://x', retryCount: 1.5 }))).toEqual({
      retryCount: ['must be an integer from 0 to 10'],
    });
  });

  it('caps invoke-url retryCount at 10', () => {
    expect(problems(() => normaliseParameters('invoke-url', { url: 'https://x', retryCount: 11 }))).toEqual({
      retryCount: ['must be an integer from 0 to 10'],
    });
  });
});

describe('normaliseParameters: enums ignore case and follow aliases', () => {
  it.each([
    ['hiResOutputFileFormat', 'jpg', 'Jpeg'],
    ['hiResOutputFileFormat', 'JPEG', 'Jpeg'],
    ['hiResOutputFileFormat', 'tif', 'Tiff'],
    ['hiResOutputFileFormat', 'bmp', 'Bmp'],
    ['hiResOutputCompression', 'Zip', 'Deflate'],
    ['hiResOutputCompression', 'none', 'None'],
    ['hiResOutputColorSpace', 'cmyk', 'Cmyk'],
    ['hiResOutputRotateMode', 'rotate90', 'Rotate90'],
    ['hiResOutputFlipMode', 'both', 'Both'],
    ['pdfTextOutputMode', 'text', 'Text'],
    ['hiResOutputPdfTextOutputMode', 'TEXT', 'Text'],
    ['PdfTextOutputMode', 'outlines', 'Outlines'],
  ] as const)('render-hires %s %j → %j', (name, value, expected) => {
    const p = normaliseParameters('render-hires', { [name]: value }) as Record<string, unknown>;
    const canonical = findParameter('render-hires', name)!.name;
    expect(p[canonical]).toBe(expected);
  });

  it('maps Shrink to Fit and Resize to ImageFill for populate-psd-template', () => {
    expect(normaliseParameters('populate-psd-template', { templateId: 't', inputImageResizeMode: 'shrink' }).inputImageResizeMode).toBe('Fit');
    expect(normaliseParameters('populate-psd-template', { templateId: 't', inputImageResizeMode: 'Resize' }).inputImageResizeMode).toBe('ImageFill');
  });

  it('accepts Jpg for preview formats', () => {
    expect(normaliseParameters('render-preview', { previewOutputFileFormat: 'jpg' }).previewOutputFileFormat).toBe('Jpeg');
  });

  it('rejects values outside the enum', () => {
    expect(problems(() => normaliseParameters('render-hires', { hiResOutputFileFormat: 'gif' }))).toEqual({
      hiResOutputFileFormat: ['must be one of Pdf, Jpeg, Png, Tiff, Bmp'],
    });
  });
});

describe('normaliseParameters: structured values', () => {
  it('parses print-area filters 1,3,7 / 2-9 / 2-N', () => {
    expect(normaliseParameters('render-hires', { hiResOutputPrintAreaFilter: '1,3,7' }).hiResOutputPrintAreaFilter).toEqual([
      { from: 1, to: 1 },
      { from: 3, to: 3 },
      { from: 7, to: 7 },
    ]);
    expect(normaliseParameters('render-hires', { hiResOutputPrintAreaFilter: '2-9' }).hiResOutputPrintAreaFilter).toEqual([{ from: 2, to: 9 }]);
    expect(normaliseParameters('render-preview', { previewOutputPrintAreaFilter: '2-N' }).previewOutputPrintAreaFilter).toEqual([{ from: 2, to: null }]);
    expect(normaliseParameters('render-preview', { previewOutputPrintAreaFilter: 2 }).previewOutputPrintAreaFilter).toEqual([{ from: 2, to: 2 }]);
  });

  it('rejects malformed print-area filters', () => {
    for (const bad of ['0', '3-1', 'a', '1,,2', '1-']) {
      expect(() => normaliseParameters('render-hires', { hiResOutputPrintAreaFilter: bad })).toThrow(ParameterError);
    }
  });

  it('reads orderData entries with type PlainText by default', () => {
    expect(
      normaliseParameters('export-to-ecommerce', {
        orderData: [
          { key: 'a', value: 'x' },
          { Key: 'b', Value: { n: 1 }, Type: 'serializedjson' },
        ],
      }).orderData,
    ).toEqual([
      { key: 'a', value: 'x', type: 'PlainText' },
      { key: 'b', value: '{"n":1}', type: 'SerializedJson' },
    ]);
  });

  it('reads queryHeaders and queryParameters as string records (numbers become text)', () => {
    const p = normaliseParameters('invoke-url', { url: 'https://x', queryHeaders: { 'X-N': 5 }, queryParameters: { a: 'b' } });
    expect(p.queryHeaders).toEqual({ 'X-N': '5' });
  });

  it('keeps an invoke-url body of any JSON type', () => {
    expect(normaliseParameters('invoke-url', { url: 'https://x', body: { a: [1, 2] } }).body).toEqual({ a: [1, 2] });
  });
});

describe('normaliseParameters: required and reserved', () => {
  it('reports every missing required parameter at once', () => {
    expect(problems(() => normaliseParameters('upload-to-s3', { bucket: 'b' }))).toEqual({
      accessKeyId: ['is required'],
      secretAccessKey: ['is required'],
    });
  });

  it('requires one of the alternative groups (templateId or templateName)', () => {
    expect(problems(() => normaliseParameters('populate-psd-template', {}))).toEqual({
      'templateId or templateName': ['one of these is required'],
    });
  });

  it('rejects reserved parameters with "not available yet" (SFTP is available)', () => {
    expect(problems(() => normaliseParameters('upload-to-ftp', { host: 'h', protocol: 'Sftp', orderLookupType: 'ProjectName' }))).toEqual({
      orderLookupType: ['orderLookupType is not available yet'],
    });
  });

  it('rejects two spellings of one parameter', () => {
    expect(problems(() => normaliseParameters('render-hires', { pdfTextOutputMode: 'Text', HIRESOUTPUTPDFTEXTMODE: 'Text' }))).toEqual({
      HIRESOUTPUTPDFTEXTMODE: ['given twice (as pdfTextOutputMode and HIRESOUTPUTPDFTEXTMODE)'],
    });
  });

  it('carries a stable error code for the runner', () => {
    expect.assertions(2);
    try {
      normaliseParameters('invoke-url', {});
    } catch (e) {
      expect((e as ParameterError).code).toBe('invalid_parameter');
      expect((e as Error).message).toBe('url: is required');
    }
  });
});

describe('TaskParams: the typed view', () => {
  it('types defaulted parameters as present and others as optional', () => {
    expectTypeOf<TaskParams<'render-hires'>['hiResOutputDpi']>().toEqualTypeOf<number>();
    expectTypeOf<TaskParams<'render-hires'>['hiResOutputFileFormat']>().toEqualTypeOf<'Pdf' | 'Jpeg' | 'Png' | 'Tiff' | 'Bmp'>();
    expectTypeOf<TaskParams<'render-hires'>['hiResOutputBackgroundColor']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<TaskParams<'invoke-url'>['url']>().toEqualTypeOf<string>();
  });
});
