import { inject } from 'vitest';

/** Base URL of the Node-side fixture server (see test/global-setup.ts). */
export const fixtureServer = (): string => inject("fixtureServer" as never) as string;

/** A PSD fixture from test/fixtures/psd by file name, e.g. `psdtools-blend-multiply.psd`. */
export async function psdFixture(name: string): Promise<Uint8Array> {
  const res = await fetch(`${fixtureServer()}/fixtures/psd/${encodeURIComponent(name)}`);
  if (!res.ok) throw new Error(`fixture ${name}: HTTP ${res.status}`);
  return new Uint8Array(await res.arrayBuffer());
}

/** A PSD made by our fixture scripts, from test/fixtures/psd-made by file name. */
export async function madeFixture(name: string): Promise<Uint8Array> {
  const res = await fetch(`${fixtureServer()}/fixtures/psd-made/${encodeURIComponent(name)}`);
  if (!res.ok) throw new Error(`fixture ${name}: HTTP ${res.status}`);
  return new Uint8Array(await res.arrayBuffer());
}

export interface FixtureManifestEntry {
  name: string;
  width: number;
  height: number;
  features: string[];
  blendModes: string[];
  fonts: string[];
  [key: string]: unknown;
}

export async function psdManifest(): Promise<FixtureManifestEntry[]> {
  const res = await fetch(`${fixtureServer()}/fixtures/psd/manifest.json`);
  return ((await res.json()) as { files: FixtureManifestEntry[] }).files;
}

/** A font the project ships in assets/fonts (served by the fixture server under /fonts/). */
export async function bundledFont(file: string): Promise<Uint8Array> {
  const res = await fetch(`${fixtureServer()}/fonts/${encodeURIComponent(file)}`);
  if (!res.ok) throw new Error(`font ${file}: HTTP ${res.status}`);
  return new Uint8Array(await res.arrayBuffer());
}

/** A file from test/assets (images, fonts made for our tests). */
export async function testAsset(name: string): Promise<Uint8Array> {
  const res = await fetch(`${fixtureServer()}/assets/${name}`);
  if (!res.ok) throw new Error(`asset ${name}: HTTP ${res.status}`);
  return new Uint8Array(await res.arrayBuffer());
}

export interface ToolResult {
  code: number;
  stdout: string;
  stderr: string;
  /** pdftoppm: PNG pages; djpeg: one binary PPM; base64. */
  pages: string[];
}

/**
 * Runs a prepress tool (Node side, see test/global-setup.ts) on a file produced in workerd:
 * 'qpdf-check' | 'pdfinfo' | 'pdffonts' | 'pdftoppm' (query: r, page, scaleTo) | 'djpeg'.
 */
export async function runTool(
  tool: 'qpdf-check' | 'pdfinfo' | 'pdffonts' | 'pdftotext' | 'pdftoppm' | 'djpeg',
  file: Uint8Array,
  query: Record<string, string | number> = {},
): Promise<ToolResult> {
  const qs = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)]));
  const res = await fetch(`${fixtureServer()}/tools/${tool}?${qs}`, { method: 'POST', body: file });
  if (!res.ok) throw new Error(`tool ${tool}: HTTP ${res.status}`);
  return (await res.json()) as ToolResult;
}
