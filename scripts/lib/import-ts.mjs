// Imports the Worker's own TypeScript modules into a Node script, so scripts reuse src/ logic
// instead of copying it. Node (>= 22.18) strips the types; this resolve hook adds what the
// bundler-style imports of src/ leave out (`./x` → `./x.ts` or `./x/index.ts`).
// Only modules free of Worker-only imports (cloudflare:*, *.wasm) load this way.
import { register } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const hook = `
export async function resolve(specifier, context, next) {
  try {
    return await next(specifier, context);
  } catch (err) {
    if (!specifier.startsWith('.') || !context.parentURL?.endsWith('.ts')) throw err;
    for (const candidate of [specifier + '.ts', specifier + '/index.ts']) {
      try {
        return await next(candidate, context);
      } catch {}
    }
    throw err;
  }
}`;
register('data:text/javascript,' + encodeURIComponent(hook));

/** `await importTs(root, 'src/identity/keys.ts')` → the module's exports. */
export const importTs = (root, file) => import(pathToFileURL(path.join(root, file)).href);
