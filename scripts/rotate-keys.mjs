// `npm run keys:rotate [-- --persist-to <dir>]`: rotates the identity signing key of the LOCAL
// instance (the state `npm run dev` uses), with the Worker's own rotateSigningKey
// (src/identity/keys.ts): the new key is published now and signs one JWKS max-age (1 h) later.
// The private key is sealed with KEY_ENCRYPTION_SECRET from .dev.vars, as the dev server does.
// Deployed regions rotate inside their Worker (docs/identity.md, "Keys and rotation").
import path from 'node:path';
import { importTs } from './lib/import-ts.mjs';
import { withLocalPlatform } from './lib/local-platform.mjs';

const root = path.resolve(import.meta.dirname, '..');
if (process.argv.includes('--env')) {
  console.error('keys:rotate works on the local instance only; for a deployed region see docs/identity.md ("Keys and rotation").');
  process.exit(2);
}
const { listSigningKeys, rotateSigningKey } = await importTs(root, 'src/identity/keys.ts');

await withLocalPlatform(root, async (env) => {
  if (!env.KEY_ENCRYPTION_SECRET) throw new Error('KEY_ENCRYPTION_SECRET is not set (copy .dev.vars.example to .dev.vars).');
  const { kid, activatesAt } = await rotateSigningKey(env.DB, env);
  console.log(`New signing key ${kid}: published now, signs from ${new Date(activatesAt * 1000).toISOString()}.`);
  for (const k of await listSigningKeys(env.DB)) {
    const until = k.retiresAt ? `published until ${new Date(k.retiresAt * 1000).toISOString()}` : 'current';
    console.log(`  generation ${k.generation}  ${k.kid}  signs from ${new Date(k.activatesAt * 1000).toISOString()}  ${until}`);
  }
});
