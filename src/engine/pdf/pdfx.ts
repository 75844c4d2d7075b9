/**
 * PDF/X identification (ISO 15930-7:2010 PDF/X-4, ISO 15930-4:2003 PDF/X-1a): the output intent
 * (the print condition's ICC profile), the document information keys and the XMP packet that
 * carries the same facts. Preflight tools compare the two, so both are written from one `PdfxMeta`.
 */
import { zlib } from './flate';
import { name, str, type PdfRef, type PdfValue, type PdfWriter } from './writer';

export type PdfFormat = 'PdfX4' | 'PdfX1a' | 'Default';
export type OutputColorSpace = 'Rgb' | 'Cmyk' | 'Grayscale';

/** `GTS_PDFXVersion` per format, and the header version the format is based on. */
export const PDFX = {
  PdfX4: { version: 'PDF/X-4', pdf: '1.6' },
  PdfX1a: { version: 'PDF/X-1a:2003', pdf: '1.4' },
} as const;

export const channelsOf = (space: OutputColorSpace): 1 | 3 | 4 => (space === 'Cmyk' ? 4 : space === 'Grayscale' ? 1 : 3);
export const deviceSpace = (space: OutputColorSpace): string => (space === 'Cmyk' ? 'DeviceCMYK' : space === 'Grayscale' ? 'DeviceGray' : 'DeviceRGB');

/** Writes an ICC profile stream (`/N` from the colour space) and returns its reference. */
export async function writeIccStream(w: PdfWriter, icc: Uint8Array, space: OutputColorSpace): Promise<PdfRef> {
  const ref = w.alloc();
  await w.stream(ref, { N: channelsOf(space), Alternate: name(deviceSpace(space)), Filter: name('FlateDecode') }, await zlib(icc));
  return ref;
}

/** The catalog's `/OutputIntents` entry for `profile` (written as `/DestOutputProfile`). */
export function outputIntent(profile: PdfRef, description: string): PdfValue {
  const condition = description.trim() || 'Custom';
  return {
    Type: name('OutputIntent'),
    S: name('GTS_PDFX'),
    OutputConditionIdentifier: str(condition),
    OutputCondition: str(condition),
    Info: str(condition),
    RegistryName: str('http://www.color.org'),
    DestOutputProfile: profile,
  };
}

export interface PdfxMeta {
  format: Exclude<PdfFormat, 'Default'>;
  title: string;
  producer: string;
  created: Date;
  /** xmpMM:DocumentID / InstanceID (a UUID). */
  documentId: string;
}

/** Document information entries of a PDF/X file (ISO 15930: Title, dates, Trapped, version). */
export function pdfxInfo(meta: PdfxMeta): Record<string, PdfValue | undefined> {
  const version = PDFX[meta.format].version;
  return {
    Title: str(meta.title),
    Producer: str(meta.producer),
    CreationDate: str(pdfDate(meta.created)),
    ModDate: str(pdfDate(meta.created)),
    Trapped: name('False'),
    GTS_PDFXVersion: str(version),
    // PDF/X-1a:2003 also names its conformance level.
    GTS_PDFXConformance: meta.format === 'PdfX1a' ? str(version) : undefined,
  };
}

const xml = (s: string) => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

/** The XMP packet (one rdf:Description per schema, as Acrobat writes them). */
export function pdfxXmp(meta: PdfxMeta): string {
  const date = meta.created.toISOString().replace(/\.\d{3}Z$/, 'Z');
  const version = PDFX[meta.format].version;
  const id = `uuid:${meta.documentId}`;
  return `<?xpacket begin="\uFEFF" id="W5M0MpCehiHzreSzNTczkc9d"?>
<x:xmpmeta xmlns:x="adobe:ns:meta/">
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
<rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/">
<xmp:CreateDate>${date}</xmp:CreateDate>
<xmp:ModifyDate>${date}</xmp:ModifyDate>
<xmp:MetadataDate>${date}</xmp:MetadataDate>
<xmp:CreatorTool>${xml(meta.producer)}</xmp:CreatorTool>
</rdf:Description>
<rdf:Description rdf:about="" xmlns:pdf="http://ns.adobe.com/pdf/1.3/">
<pdf:Producer>${xml(meta.producer)}</pdf:Producer>
<pdf:Trapped>False</pdf:Trapped>
</rdf:Description>
<rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/">
<dc:format>application/pdf</dc:format>
<dc:title><rdf:Alt><rdf:li xml:lang="x-default">${xml(meta.title)}</rdf:li></rdf:Alt></dc:title>
</rdf:Description>
<rdf:Description rdf:about="" xmlns:xmpMM="http://ns.adobe.com/xap/1.0/mm/">
<xmpMM:DocumentID>${id}</xmpMM:DocumentID>
<xmpMM:InstanceID>${id}</xmpMM:InstanceID>
<xmpMM:VersionID>1</xmpMM:VersionID>
<xmpMM:RenditionClass>default</xmpMM:RenditionClass>
</rdf:Description>
<rdf:Description rdf:about="" xmlns:pdfxid="http://www.npes.org/pdfx/ns/id/">
<pdfxid:GTS_PDFXVersion>${version}</pdfxid:GTS_PDFXVersion>
</rdf:Description>${
    meta.format === 'PdfX1a'
      ? `
<rdf:Description rdf:about="" xmlns:pdfx="http://ns.adobe.com/pdfx/1.3/">
<pdfx:GTS_PDFXVersion>${version}</pdfx:GTS_PDFXVersion>
<pdfx:GTS_PDFXConformance>${version}</pdfx:GTS_PDFXConformance>
</rdf:Description>`
      : ''
  }
</rdf:RDF>
</x:xmpmeta>
<?xpacket end="w"?>`;
}

/** The catalog's `/Metadata` stream: uncompressed, so preflight and file tools can find it. */
export async function writeXmp(w: PdfWriter, meta: PdfxMeta): Promise<PdfRef> {
  const ref = w.alloc();
  await w.stream(ref, { Type: name('Metadata'), Subtype: name('XML') }, new TextEncoder().encode(pdfxXmp(meta)));
  return ref;
}

/** PDF date string (§7.9.4), UTC. */
export function pdfDate(d: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `D:${d.getUTCFullYear()}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}Z`;
}
