/**
 * Where a render spends its time, reported to whoever asks: the Worker passes its Server-Timing
 * recorder (src/http/server-timing.ts has this shape); without one, nothing is recorded.
 */
export interface Timing {
  /** Runs `fn`, adding its duration to phase `name`. */
  time<T>(name: string, fn: () => Promise<T> | T): Promise<T>;
  /** A fact without a duration (e.g. what a cache did). */
  note(name: string, desc: string): void;
}

export const noTiming: Timing = {
  time: async (_name, fn) => fn(),
  note: () => {},
};
