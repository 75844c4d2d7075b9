/**
 * Spot colours for finishing marks: `/Separation` colour spaces (a named ink, with a CMYK
 * alternate for proofs) and the overprint graphics state that keeps a die line from knocking
 * out the artwork under it. `All` is the registration colour: crop marks print on every plate.
 */
import { PDFArray, PDFDocument, PDFName, PDFPage, PDFRef, type PDFDict } from 'pdf-lib';

/** A usable ink name: 1–127 printable characters (PDF names escape the rest as #xx). */
export function isInkName(name: string): boolean {
  return name.length >= 1 && name.length <= 127 && /^[\x21-\x7e][\x20-\x7e]*$/.test(name) && !/\s$/.test(name);
}

/**
 * `[/Separation /<name> /DeviceCMYK <<tint → cmyk>>]`, registered once per document and name; a
 * one-value alternate (a grey level) gives `/DeviceGray` instead, for sheets whose PDF/X output
 * intent is grey or RGB (where DeviceCMYK is not allowed).
 */
export function separation(doc: PDFDocument, name: string, alternate: readonly [number, number, number, number] | readonly [number]): PDFRef {
  const grey = alternate.length === 1;
  const fn = doc.context.obj({ FunctionType: 2, Domain: [0, 1], C0: grey ? [1] : [0, 0, 0, 0], C1: [...alternate], N: 1 });
  const array = PDFArray.withContext(doc.context);
  array.push(PDFName.of('Separation'));
  array.push(PDFName.of(name));
  array.push(PDFName.of(grey ? 'DeviceGray' : 'DeviceCMYK'));
  array.push(doc.context.register(fn));
  return doc.context.register(array);
}

/** Overprint on (stroke and fill) with the nonzero overprint mode: other inks under the mark stay. */
export function overprint(doc: PDFDocument): PDFRef {
  return doc.context.register(doc.context.obj({ Type: 'ExtGState', OP: true, op: true, OPM: 1 }));
}

/** Puts `ref` in the page's /ColorSpace resources under a fresh name and returns the name. */
export function addColorSpace(page: PDFPage, tag: string, ref: PDFRef): string {
  const { Resources } = page.node.normalizedEntries();
  let spaces = Resources.lookup(PDFName.of('ColorSpace')) as PDFDict | undefined;
  if (!spaces) {
    spaces = page.doc.context.obj({});
    Resources.set(PDFName.of('ColorSpace'), spaces);
  }
  let i = 0;
  while (spaces.has(PDFName.of(`${tag}${i}`))) i++;
  spaces.set(PDFName.of(`${tag}${i}`), ref);
  return `${tag}${i}`;
}

/** Appends raw content (drawn over what the page has) as a compressed stream. */
export function appendContent(page: PDFPage, content: string): void {
  const stream = page.doc.context.flateStream(content);
  page.node.addContentStream(page.doc.context.register(stream));
}

/** A number for a content stream: at most 4 decimals, no exponent. */
export const n = (v: number) => {
  const r = Math.round(v * 10_000) / 10_000;
  return Object.is(r, -0) ? '0' : String(r);
};
