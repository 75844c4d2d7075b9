/**
 * The one font lookup (contract, "Fonts"): tenant fonts, then instance fonts (the rendering
 * font store), each by the engine's `FontCatalog.find` (exact PostScript name, then ignoring
 * case, spaces, `-`, `_`, then full name), then by Family + Style. `check`, `hasProblems`, atoms
 * validation and renders share it.
 */
import { FontCatalog } from '../../engine/fonts/catalog';
import type { FontInfo } from '../../engine/fonts/font-info';
import type { StoredFont } from '../../engine/inputs';
import { FileStore, readFontIndex } from '../../dynamic-image/store';
import { publicFontFiles } from './store/assets';

export interface FontRef {
  postscriptName: string;
  family?: string | null;
  style?: string | null;
}

export interface FoundFont {
  source: 'tenant' | 'instance';
  /** Tenant: the font asset's id; instance: the file under `fonts/`. */
  key: string;
  info: FontInfo;
  /** Tenant fonts: the blob holding the bytes. */
  sha256: string;
}

const norm = (s: string | null | undefined) => (s ?? '').replace(/[\s_-]/g, '').toLowerCase();

export class FontLookup {
  private constructor(
    private readonly tenant: FontCatalog,
    private readonly instance: FontCatalog,
    private readonly all: FoundFont[],
    private readonly byKey: Map<string, FoundFont>,
  ) {}

  /** The tenant's public fonts and the instance's fonts. */
  static async load(env: { DB: D1Database; FILES: R2Bucket }, tenantId: number): Promise<FontLookup> {
    const [results, instanceFonts] = await Promise.all([
      publicFontFiles(env.DB, tenantId),
      readFontIndex(new FileStore(env.FILES)).catch(() => [] as StoredFont[]),
    ]);
    const tenant = new FontCatalog();
    const instance = new FontCatalog();
    const all: FoundFont[] = [];
    const byKey = new Map<string, FoundFont>();
    for (const f of instanceFonts) {
      const info = { fullName: f.fullName, family: f.family, style: f.style, postscriptName: f.postscriptName };
      const found: FoundFont = { source: 'instance', key: f.file, info, sha256: f.sha256 };
      instance.add(`instance:${f.file}`, info);
      byKey.set(`instance:${f.file}`, found);
      all.push(found);
    }
    for (const r of results) {
      const m = JSON.parse(r.metadata) as Record<string, string>;
      if (!m.postscriptName) continue;
      const info = { fullName: m._fullName ?? m.postscriptName, family: m.family ?? '', style: m.style ?? '', postscriptName: m.postscriptName };
      const found: FoundFont = { source: 'tenant', key: r.id, info, sha256: r.sha ?? '' };
      tenant.add(`tenant:${r.id}`, info);
      byKey.set(`tenant:${r.id}`, found);
      all.push(found);
    }
    return new FontLookup(tenant, instance, all, byKey);
  }

  /** The font serving `ref`, or undefined (a missing font). */
  find(ref: FontRef | string): FoundFont | undefined {
    const r = typeof ref === 'string' ? { postscriptName: ref } : ref;
    const hit = this.tenant.find(r.postscriptName) ?? this.instance.find(r.postscriptName);
    if (hit) return this.byKey.get(hit.key);
    if (r.family) {
      const family = norm(r.family);
      const style = norm(r.style || 'Regular');
      const match = (f: FoundFont) => norm(f.info.family) === family && norm(f.info.style) === style;
      return this.all.filter((f) => f.source === 'tenant').find(match) ?? this.all.filter((f) => f.source === 'instance').find(match);
    }
    return undefined;
  }

  /** Every font, instance first and tenant last (the engine's catalog: the last added wins). */
  fonts(): FoundFont[] {
    return [...this.all];
  }
}

/** DesignMetadata.fonts and the missing ones, for the names a design uses. */
export function resolveFonts(lookup: FontLookup, names: string[]): { fonts: Array<{ postscriptName: string; family: string | null; style: string | null }>; missing: string[] } {
  const fonts = [];
  const missing: string[] = [];
  for (const name of names) {
    const hit = lookup.find(name);
    if (!hit) missing.push(name);
    fonts.push({ postscriptName: name, family: hit?.info.family ?? null, style: hit?.info.style ?? null });
  }
  return { fonts, missing };
}
