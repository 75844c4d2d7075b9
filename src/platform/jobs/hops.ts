/**
 * Hop counting (docs/security.md): a request made by a pipeline job carries `X-Platform-Hop`
 * (HOP_HEADER, src/http/outbound.ts) = 1 + the hop of the request that created the job's project
 * or stand-alone job. Creating a project or job past MAX_HOP_DEPTH is refused (409), so a
 * pipeline that reaches the platform (by another of its names, through a relay, or where its own
 * origin is allowed) cannot create projects forever.
 *
 * The hop of a create request travels with its TenantContext (`withHop` in the route), so the
 * services keep their signatures.
 */
import { HOP_HEADER, MAX_HOP_DEPTH, hopOf } from '../../http/outbound';
import { ConflictError } from '../core';

export { HOP_HEADER, MAX_HOP_DEPTH, hopOf };

const hops = new WeakMap<object, number>();

/** Remembers the hop of the request `headers` for this request's TenantContext; returns it. */
export function withHop<T extends object>(t: T, headers: Headers): T {
  hops.set(t, hopOf(headers));
  return t;
}

/** The hop of the request a TenantContext came with (0 when none was recorded). */
export function hopOfContext(t: object): number {
  return hops.get(t) ?? 0;
}

/** Throws 409 when a request at this hop may not create anything that runs a pipeline. */
export function checkHopDepth(hop: number, what = 'project'): void {
  if (hop > MAX_HOP_DEPTH) {
    throw new ConflictError(
      'GeneralConflict',
      `This request comes from a pipeline job ${hop} calls deep (${HOP_HEADER}: ${hop}); a ${what} is not created past depth ${MAX_HOP_DEPTH}, so that a pipeline calling the platform cannot loop.`,
    );
  }
}
