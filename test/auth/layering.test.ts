/// <reference types="vite/client" />
// auth/ is the resource-server side: it takes its key source and token-state lookup as arguments
// (src/auth/sources.ts) and imports nothing from identity/.
import { describe, expect, it } from 'vitest';

const sources = import.meta.glob('../../src/auth/**/*.ts', { query: '?raw', import: 'default', eager: true }) as Record<string, string>;

describe('auth layering', () => {
  it('finds the auth modules', () => {
    expect(Object.keys(sources).length).toBeGreaterThanOrEqual(5);
  });

  it.each(Object.entries(sources))('%s imports nothing from identity/', (_file, text) => {
    expect(text).not.toMatch(/from\s+['"][^'"]*identity[/'"]/);
  });
});
