/**
 * `Server-Timing` (W3C Server Timing): where a request spent its time inside the Worker.
 * Phases are measured with `Date.now()`, which in production Workers advances only across I/O
 * (CPU-only phases then read 0); under local workerd it is a wall clock.
 */
/** When the Worker's fetch handler received each request (src/index.ts): `total` starts there. */
const entered = new WeakMap<Request, number>();
export function markEntry(request: Request): void {
  entered.set(request, Date.now());
}
/** The fetch entry time of `request`, or now when it did not come through the fetch handler. */
export const entryOf = (request: Request): number => entered.get(request) ?? Date.now();

export class ServerTiming {
  constructor(private readonly started = Date.now()) {}
  private readonly phases = new Map<string, number>();

  /** Runs `fn`, adding its duration to phase `name` (phases may repeat: they accumulate). */
  async time<T>(name: string, fn: () => Promise<T> | T): Promise<T> {
    const t = Date.now();
    try {
      return await fn();
    } finally {
      this.phases.set(name, (this.phases.get(name) ?? 0) + Date.now() - t);
    }
  }

  /** Adds `ms` to phase `name` (a phase measured elsewhere, e.g. across middleware). */
  add(name: string, ms: number): void {
    this.phases.set(name, (this.phases.get(name) ?? 0) + ms);
  }

  private readonly notes = new Map<string, string>();

  /** A metric without a duration, e.g. what a cache did (`frame;desc="reused 560/800 rows"`). */
  note(name: string, desc: string): void {
    this.notes.set(name, desc);
  }

  /** The header value: each phase, the notes, then `total` since construction. */
  header(): string {
    const parts = [...this.phases].map(([name, ms]) => `${name};dur=${ms}`);
    const notes = [...this.notes].map(([name, desc]) => `${name};desc=${JSON.stringify(desc)}`);
    return [...parts, ...notes, `total;dur=${Date.now() - this.started}`].join(', ');
  }
}
