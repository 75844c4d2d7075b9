// Where {{secrets.*}} may appear (docs/security.md): only in what is sent and never kept or shown
// (credential parameters, invoke-url queryHeaders values, URL user info, an invoke-url body);
// never in conditions, order data, file names, folders or anything else. And how they are masked.
import { describe, expect, it } from 'vitest';
import { InterpolationError, SecretMask, interpolate, secretNames, validatePipeline } from '../../../../src/platform/pipelines/language';

const csv = { name: 'csv', type: 'sn-export-order-details-to-csv', outputArtifacts: ['order'] };
const fin = { name: 'f', type: 'finalize' };
const errorsOf = (...tasks: unknown[]) => {
  const r = validatePipeline({ tasks: [...tasks, fin] });
  return r.ok ? {} : r.errors;
};
const ftp = (parameters: Record<string, unknown>) => ({ name: 'up', type: 'upload-to-ftp', inputArtifacts: ['order'], parameters: { host: 'ftp.example.com', ...parameters } });
const hook = (parameters: Record<string, unknown>) => ({ name: 'hook', type: 'invoke-url', parameters: { url: 'https://example.com/hook', ...parameters } });

describe('secrets: where they may be interpolated', () => {
  it('accepts credential parameters, queryHeaders values, URL user info and an invoke-url body', () => {
    expect(errorsOf(csv, ftp({ userName: '{{secrets.ftpUser}}', password: '{{secrets.ftpPassword}}' }))).toEqual({});
    expect(errorsOf(csv, { name: 's3', type: 'upload-to-s3', inputArtifacts: ['order'], parameters: { bucket: 'b', accessKeyId: '{{secrets.id}}', secretAccessKey: '{{secrets.key}}' } })).toEqual({});
    expect(errorsOf(csv, { name: 'db', type: 'upload-to-dropbox', inputArtifacts: ['order'], parameters: { accessToken: 'Bearer {{secrets.dropbox}}' } })).toEqual({});
    expect(errorsOf({ name: 'dl', type: 'download-files', outputArtifacts: ['files*'], parameters: { urls: ['https://example.com/a.pdf'], headers: { Authorization: 'Bearer {{secrets.token}}' } } })).toEqual({});
    expect(errorsOf(csv, ftp({ protocol: 'Sftp', privateKey: '{{secrets.sshKey}}', passphrase: '{{secrets.sshPass}}' }))).toEqual({});
    expect(errorsOf({ name: 'od', type: 'export-to-order-desk', parameters: { storeId: '1', storeApiKey: '{{secrets.orderDeskKey}}', data: { a: 'b' } } })).toEqual({});
    expect(errorsOf(hook({ url: 'https://{{secrets.user}}:{{secrets.pass}}@example.com/hook/{{projectId}}', queryHeaders: { Authorization: 'Bearer {{secrets.token}}' }, body: { key: '{{secrets.hookKey}}', n: ['{{secrets.x}}'] } }))).toEqual({});
  });

  it.each([
    ['an FTP folder', ftp({ folder: '/orders/{{secrets.ftpPassword}}' }), 'tasks[1].parameters.folder'],
    ['an FTP host', ftp({ host: '{{secrets.host}}' }), 'tasks[1].parameters.host'],
    ['a file name', ftp({ fileName: '{{secrets.x}}.csv' }), 'tasks[1].parameters.fileName'],
    ['order data', { name: 'attach', type: 'export-to-ecommerce', parameters: { orderData: [{ key: 'k', value: '{{secrets.ftpPassword}}' }] } }, 'tasks[1].parameters.orderData[0].value'],
    ['skipIf (an oracle)', { ...csv, name: 'csv2', outputArtifacts: ['o2'], parameters: { skipIf: '{{secrets.x}} = guess' } }, 'tasks[1].parameters.skipIf'],
    ['skipIfAny', { ...csv, name: 'csv2', outputArtifacts: ['o2'], parameters: { skipIfAny: ['{{projectId}}', '{{secrets.x}}'] } }, 'tasks[1].parameters.skipIfAny[1]'],
    ['an output name', { ...csv, name: 'csv2', outputArtifacts: ['o2'], parameters: { outputName: '{{secrets.x}}' } }, 'tasks[1].parameters.outputName'],
    ['an unknown parameter', { ...csv, name: 'csv2', outputArtifacts: ['o2'], parameters: { note: '{{secrets.x}}' } }, 'tasks[1].parameters.note'],
    ['a URL path', hook({ url: 'https://example.com/hook/{{secrets.x}}' }), 'tasks[1].parameters.url'],
    ['a URL host', hook({ url: 'https://{{secrets.x}}.example.com/' }), 'tasks[1].parameters.url'],
    ['queryParameters', hook({ queryParameters: { k: '{{secrets.x}}' } }), 'tasks[1].parameters.queryParameters.k'],
  ])('refuses a secret in %s, naming the path', (_, task, path) => {
    const e = errorsOf(csv, task);
    expect(Object.keys(e)).toEqual([path]);
    expect(e[path]!.join(' ')).toMatch(/secrets may be used only in credential parameters/);
  });
});

describe('secrets: masking', () => {
  it('masks every case form of a secret (a host comes back lower-cased)', () => {
    const mask = new SecretMask();
    mask.add('Sekret-HOST');
    expect(mask.mask('could not reach sekret-host and SEKRET-HOST')).toBe('could not reach *** and ***');
  });

  it('masks URL-encoded forms (%xx in either case, + for a space)', () => {
    const mask = new SecretMask();
    mask.add('p@ss w/rd');
    expect(mask.mask('a p%40ss%20w%2Frd b p%40ss+w%2frd c')).toBe('a *** b *** c');
  });

  it('masks the JSON-escaped form (a body echoed in an error)', () => {
    const mask = new SecretMask();
    mask.add('a"b\\c');
    expect(mask.mask(JSON.stringify({ key: 'a"b\\c' }))).toBe('{"key":"***"}');
  });

  it('masks the secret inside base64 basic auth, whatever comes before it', () => {
    const mask = new SecretMask();
    mask.add('hunter2-correct-horse');
    for (const user of ['u', 'us', 'use', 'user']) {
      const basic = btoa(`${user}:hunter2-correct-horse`);
      const shown = mask.mask(`Authorization: Basic ${basic}`);
      expect(shown).toContain('***');
      // What is left cannot be decoded back to the secret's middle.
      expect(shown).not.toContain(basic.slice(4, -4));
    }
  });
});

describe('walkers on values that did not come through the validator', () => {
  const deep = (n: number) => {
    let v: unknown = '{{secrets.deep}}';
    for (let i = 0; i < n; i++) v = [v];
    return v;
  };

  it('secretNames finds a secret 100,000 levels down without overflowing', () => {
    expect(secretNames({ tasks: [{ parameters: { body: deep(100_000) } }] } as never)).toEqual(['deep']);
  });

  it('interpolation refuses a value nested past 64 levels with an InterpolationError', async () => {
    await expect(interpolate(deep(10_000), {})).rejects.toBeInstanceOf(InterpolationError);
    await expect(interpolate(deep(60), { secret: () => 's' })).resolves.toBeDefined();
  });
});
