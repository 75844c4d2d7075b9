/// <reference types="vite/client" />
// engine/ is free of HTTP and of storage: it takes an InputStore and a FetchImageBytes
// (src/engine/inputs.ts) and throws EngineErrors (src/engine/errors.ts) that src/dynamic-image maps
// to HTTP in one place. Nothing under src/engine imports storage/, the Worker's error type, hono
// or src/http/ (outbound fetches, body limits, Server-Timing), and no status code appears in it.
import { describe, expect, it } from 'vitest';

const sources = import.meta.glob('../../src/engine/**/*.ts', { query: '?raw', import: 'default', eager: true }) as Record<string, string>;

describe('engine layering', () => {
  it('finds the engine modules', () => {
    expect(Object.keys(sources).length).toBeGreaterThanOrEqual(60);
  });

  it.each(Object.entries(sources))('%s imports neither storage/, src/errors, hono nor src/http/', (file, text) => {
    // From src/engine/<n folders>/x.ts, src/errors.ts is n + 1 levels up.
    const up = '../'.repeat(file.split('/src/engine/')[1]!.split('/').length);
    expect(text).not.toMatch(/from\s+['"][^'"]*\/storage[/'"]/);
    expect(text).not.toContain(`from '${up}errors'`);
    expect(text).not.toMatch(/from\s+['"]hono/);
    expect(text).not.toMatch(/from\s+['"][^'"]*\/http\//);
    expect(text).not.toMatch(/\bApiError\b|\bbadRequest\(|\bstatus:\s*[45]\d\d\b/);
  });
});
