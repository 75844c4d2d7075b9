// `npm run keys:rotate`: the operator rotates an instance's identity signing key. The keys belong
// to the instance (every tenant on it), so no route of the Worker rotates them.
//
//   npm run keys:rotate                              the local instance (the state `npm run dev` uses)
//   npm run keys:rotate -- --persist-to <dir>        another local state directory
//   KEY_ENCRYPTION_SECRET=… npm run keys:rotate -- --env eu
//                                                    a deployed region: its remote D1 via wrangler
//                                                    (add --local to rehearse on its local D1)
//
// The new key is published at once and signs one JWKS max-age (1 h) later; the key it replaces
// stays published until the longest token lifetime after that. A rotation is refused while a
// rotated-in key still waits to activate. Both paths run the same SQL (src/identity/store/keys.ts)
// and seal the private key with the instance's KEY_ENCRYPTION_SECRET (src/identity/keys.ts): from
// .dev.vars locally; for a region, the operator passes the secret they set with
// `wrangler secret put KEY_ENCRYPTION_SECRET --env <region>`.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { importTs } from './lib/import-ts.mjs';
import { persistToArg, withLocalPlatform } from './lib/local-platform.mjs';

const root = path.resolve(import.meta.dirname, '..');
const argv = process.argv.slice(2);
const envIndex = argv.findIndex((a) => a === '--env' || a.startsWith('--env='));
const region = envIndex < 0 ? undefined : argv[envIndex].includes('=') ? argv[envIndex].split('=')[1] : argv[envIndex + 1];

const { listSigningKeys, rotateSigningKey, RotationRefusedError, sealNewKey, rotationRetiresAt, JWKS_MAX_AGE_SECONDS } = await importTs(root, 'src/identity/keys.ts');
const { rotationStatements } = await importTs(root, 'src/identity/store/keys.ts');

const iso = (s) => new Date(s * 1000).toISOString();
function printSchedule(keys) {
  for (const k of keys) {
    const until = k.retiresAt ? `published until ${iso(k.retiresAt)}` : 'current';
    console.log(`  generation ${k.generation}  ${k.kid}  signs from ${iso(k.activatesAt)}  ${until}`);
  }
}

function fail(message) {
  console.error(message);
  process.exit(1);
}

/** `?N` parameters as SQL literals: `wrangler d1 execute --command` takes no bound parameters. */
const literal = (v) => (typeof v === 'number' ? String(Math.trunc(v)) : `'${String(v).replace(/'/g, "''")}'`);
const inline = ({ sql, params }) => sql.replace(/\?(\d+)/g, (_, n) => literal(params[Number(n) - 1]));

// `--local [--persist-to <dir>]` beside `--env` runs the same statements against that
// environment's local D1 (a rehearsal of the remote rotation).
const persistTo = persistToArg(argv);
const target = argv.includes('--local') ? ['--local', ...(persistTo ? ['--persist-to', persistTo] : [])] : ['--remote'];

function d1(sql) {
  const out = execFileSync('npx', ['wrangler', 'd1', 'execute', 'DB', '--env', region, ...target, '--json', '--command', sql], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, WRANGLER_SEND_METRICS: 'false' },
  });
  return JSON.parse(out).flatMap((r) => r.results ?? []);
}

if (region) {
  if (!region || region.startsWith('-')) fail('Usage: KEY_ENCRYPTION_SECRET=… npm run keys:rotate -- --env <region>');
  const secret = process.env.KEY_ENCRYPTION_SECRET;
  if (!secret) fail(`Set KEY_ENCRYPTION_SECRET to the secret of --env ${region} (the one given to \`wrangler secret put\`).`);
  const now = Math.floor(Date.now() / 1000);
  const row = { ...(await sealNewKey({ KEY_ENCRYPTION_SECRET: secret }, now + JWKS_MAX_AGE_SECONDS)), createdAt: now };
  d1(rotationStatements(row, rotationRetiresAt(row.activatesAt)).map(inline).join(';\n'));
  const rows = d1('SELECT kid, generation, activates_at AS activatesAt, retires_at AS retiresAt FROM signing_keys ORDER BY generation');
  if (!rows.some((r) => r.kid === row.kid)) {
    printSchedule(rows);
    fail('Refused: a rotated-in key still waits to activate (or the region has no signing key yet). Nothing was changed.');
  }
  console.log(`Region ${region}: new signing key ${row.kid}, published now, signs from ${iso(row.activatesAt)}.`);
  printSchedule(rows);
} else {
  await withLocalPlatform(root, async (env) => {
    if (!env.KEY_ENCRYPTION_SECRET) fail('KEY_ENCRYPTION_SECRET is not set (copy .dev.vars.example to .dev.vars).');
    try {
      const { kid, activatesAt } = await rotateSigningKey(env.DB, env);
      console.log(`New signing key ${kid}: published now, signs from ${iso(activatesAt)}.`);
    } catch (err) {
      if (!(err instanceof RotationRefusedError)) throw err;
      console.error(`Refused: ${err.message} Nothing was changed.`);
      process.exitCode = 1;
    }
    printSchedule(await listSigningKeys(env.DB));
  });
}
