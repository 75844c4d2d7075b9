/// <reference types="vite/client" />
// Identity's storage layer: D1 reads and writes live in src/identity/store/ as named operations;
// handlers and the admin panel call them and hold no SQL of their own.
import { describe, expect, it } from 'vitest';

const modules = import.meta.glob(['../../src/identity/**/*.ts', '../../src/identity/**/*.tsx', '!../../src/identity/store/**'], {
  query: '?raw',
  import: 'default',
  eager: true,
}) as Record<string, string>;

describe('identity storage layer', () => {
  it('finds the identity modules', () => {
    expect(Object.keys(modules).length).toBeGreaterThan(30);
  });

  it.each(Object.entries(modules))('%s keeps its SQL in store/', (_file, text) => {
    expect(text).not.toMatch(/from\s+['"]drizzle-orm/);
    expect(text).not.toMatch(/db\/schema['"]/);
    expect(text).not.toMatch(/\.prepare\(/);
  });
});
