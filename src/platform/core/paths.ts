/**
 * Platform paths are matched ignoring ASCII case in their literal segments (contract,
 * Conventions): `/API/Storage/V1/Designs/abc` reaches `/api/storage/v1/designs/{id}` with the id
 * `abc` untouched. The app's getPath canonicalises the literals before routing, from the route
 * table itself; the same table answers OPTIONS with `Allow`.
 */

export const PLATFORM_AREAS = ['storage', 'processor', 'atoms', 'storefront', 'backoffice', 'rendering'] as const;
export type PlatformAreaName = (typeof PLATFORM_AREAS)[number];

export const PLATFORM_PATH = /^\/api\/(storage|processor|atoms|storefront|backoffice|rendering)\/v1(\/|$)/i;

/** The platform area a path belongs to (its `/api/<area>/v1` prefix, ignoring case), if any. */
export function platformAreaOf(path: string): PlatformAreaName | undefined {
  const name = PLATFORM_PATH.exec(path)?.[1]?.toLowerCase();
  return PLATFORM_AREAS.find((a) => a === name);
}

interface Template {
  method: string;
  /** Literal segments as declared; null for a parameter. */
  segments: Array<string | null>;
  literals: number;
}

const split = (path: string): string[] => {
  const parts = path.split('/').slice(1);
  // A trailing slash names the same resource.
  if (parts.length > 1 && parts[parts.length - 1] === '') parts.pop();
  return parts;
};

export class PlatformRouteTable {
  private readonly bySize = new Map<number, Template[]>();

  /** `routes`: OpenAPI-style paths (`/api/storage/v1/designs/{id}`) with their methods. */
  constructor(routes: Iterable<{ method: string; path: string }>) {
    for (const r of routes) {
      const segments = split(r.path).map((s) => (/^\{.+\}$|^:/.test(s) ? null : s));
      const t: Template = { method: r.method.toUpperCase(), segments, literals: segments.filter((s) => s !== null).length };
      const list = this.bySize.get(segments.length) ?? [];
      list.push(t);
      this.bySize.set(segments.length, list);
    }
  }

  /** The templates a path can reach, most literal segments first. */
  private candidates(parts: string[]): Template[] {
    const out = (this.bySize.get(parts.length) ?? []).filter((t) =>
      t.segments.every((s, i) => s === null || s.toLowerCase() === parts[i]!.toLowerCase()),
    );
    const best = Math.max(-1, ...out.map((t) => t.literals));
    return out.filter((t) => t.literals === best);
  }

  /** The path with its literal segments in their declared spelling (other paths unchanged). */
  canonical(path: string, method: string): string {
    if (!PLATFORM_PATH.test(path)) return path;
    const parts = split(path);
    const all = this.candidates(parts);
    if (!all.length) return path;
    const m = method.toUpperCase() === 'HEAD' ? 'GET' : method.toUpperCase();
    const t = all.find((x) => x.method === m) ?? all[0]!;
    return '/' + parts.map((p, i) => t.segments[i] ?? p).join('/');
  }

  /** Methods the path answers (for `Allow`), or undefined when no route has this path. */
  allowed(path: string): string[] | undefined {
    const all = this.candidates(split(path));
    if (!all.length) return undefined;
    const methods = new Set(all.map((t) => t.method));
    if (methods.has('GET')) methods.add('HEAD');
    methods.add('OPTIONS');
    const order = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
    return [...methods].sort((a, b) => order.indexOf(a) - order.indexOf(b));
  }
}
