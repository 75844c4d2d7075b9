/// <reference types="vite/client" />
// Identity is below the admin panel (issue 19): its code, its admin sections included, imports
// nothing from the platform or from the panel that composes them (src/admin).
import { describe, expect, it } from 'vitest';

const modules = import.meta.glob(['../../../src/identity/**/*.ts', '../../../src/identity/**/*.tsx'], { query: '?raw', import: 'default', eager: true }) as Record<string, string>;

/** The module specifiers a file imports or re-exports, resolved against src/ (e.g. `platform/core`). */
function importsOf(file: string, text: string): string[] {
  const dir = file.replace(/^\.\.\/\.\.\/\.\.\/src\//, '').split('/').slice(0, -1);
  return [...text.matchAll(/^\s*(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]/gm)]
    .map((m) => m[1]!)
    .filter((spec) => spec.startsWith('.'))
    .map((spec) => {
      const parts = [...dir];
      for (const seg of spec.split('/')) {
        if (seg === '..') parts.pop();
        else if (seg !== '.') parts.push(seg);
      }
      return parts.join('/');
    });
}

describe('identity boundaries', () => {
  it('finds identity’s modules, its admin sections among them', () => {
    expect(Object.keys(modules).filter((f) => f.includes('/identity/admin/')).length).toBeGreaterThan(10);
  });

  it.each(Object.entries(modules))('%s imports nothing from the platform or the admin panel', (file, text) => {
    const imports = importsOf(file, text);
    expect(imports.filter((m) => m === 'platform' || m.startsWith('platform/'))).toEqual([]);
    expect(imports.filter((m) => m === 'admin' || m.startsWith('admin/'))).toEqual([]);
  });
});
