import { describe, expect, it } from 'vitest';
import {
  type ArtifactInfo,
  type PipelineContext,
  InterpolationError,
  SecretMask,
  describe as describeValue,
  interpolate,
  interpolateParameters,
  lookupField,
} from '../../../../src/platform/pipelines/language';

const project = {
  id: 77,
  name: 'Card order',
  orderNumber: 1042,
  orderId: null,
  customerName: 'Ada',
  items: [
    { id: 1, name: 'front', quantity: 100, fields: { 'Paper type': 'Matte', 'Fold-Style': 'half', dpi: 150, flags: { a: true } }, hidden: { secret_note: 'n' } },
    { id: 2, name: 'back', quantity: 50, fields: { 'Paper type': 'Gloss' }, hidden: {} },
  ],
};

const designs: ArtifactInfo[] = [
  { name: 'Front side', url: 'https://a/design1' },
  { name: 'Back side', url: () => Promise.resolve('https://a/design2') },
];
const artifacts: Record<string, ArtifactInfo | ArtifactInfo[]> = {
  design: designs,
  result: { name: 'result.pdf', url: 'https://a/result' },
  empty: [],
};

const ctx = (extra: Partial<PipelineContext> = {}): PipelineContext => ({
  projectId: 77,
  project,
  artifact: (name) => artifacts[name],
  secret: (name) => ({ 'api-key': 's3cr3t', other: 'pw' })[name.toLowerCase()],
  ...extra,
});

const run = (value: unknown, extra?: Partial<PipelineContext>) => interpolate(value, ctx(extra));
const failure = async (value: unknown, extra?: Partial<PipelineContext>) => {
  try {
    await run(value, extra);
  } catch (e) {
    if (e instanceof InterpolationError) return { code: e.code, reference: e.reference };
    throw e;
  }
  throw new Error('expected an InterpolationError');
};

describe('interpolate: {{projectId}} and {{project.<field>}}', () => {
  it('gives the project id', async () => {
    expect(await run('p-{{projectId}}')).toBe('p-77');
  });

  it('falls back to project.id when projectId is not given', async () => {
    expect(await run('{{projectId}}', { projectId: undefined })).toBe(77);
  });

  it('reads ProjectDto fields, ignoring the case of the field name', async () => {
    expect(await run('{{project.name}} #{{project.OrderNumber}} for {{ project.customerName }}')).toBe('Card order #1042 for Ada');
  });

  it('fails on a field with no value (null), unless the reference ends in ?', async () => {
    expect(await failure('{{project.orderId}}')).toEqual({ code: 'missing_value', reference: 'project.orderId' });
    expect(await run('[{{project.orderId?}}]')).toBe('[]');
  });

  it('fails when there is no project at all', async () => {
    expect(await failure('{{project.name}}', { project: null })).toMatchObject({ code: 'missing_value' });
  });
});

describe('interpolate: {{project.items.@.<field>}} and indexes', () => {
  it('uses the current item chosen by index', async () => {
    expect(await run('{{project.items.@.name}}', { item: { index: 1 } })).toBe('back');
  });

  it('uses the current item chosen by id (id or itemId)', async () => {
    expect(await run('{{project.items.@.name}}', { item: { id: '2' } })).toBe('back');
    expect(
      await interpolate('{{project.items.@.name}}', { project: { items: [{ itemId: 'abc', name: 'info item' }] }, item: { id: 'abc' } }),
    ).toBe('info item');
  });

  it('uses the only item of a one-item project when no item is current', async () => {
    expect(await interpolate('{{project.items.@.name}}', { project: { items: [{ name: 'solo' }] } })).toBe('solo');
  });

  it('fails with no_current_item when several items and none is current', async () => {
    expect(await failure('{{project.items.@.name}}')).toEqual({ code: 'no_current_item', reference: 'project.items.@.name' });
    expect(await run('{{project.items.@.name?}}')).toBe('');
  });

  it('accepts an index instead of @', async () => {
    expect(await run('{{project.items.1.quantity}}')).toBe(50);
    expect(await failure('{{project.items.5.name}}')).toMatchObject({ code: 'missing_value' });
  });

  it('reads hidden.<k> and deeper paths', async () => {
    expect(await run('{{project.items.@.hidden.secret_note}}', { item: { index: 0 } })).toBe('n');
    expect(await run('{{project.items.0.fields.flags}}')).toEqual({ a: true });
  });
});

describe('interpolate: fields.<k> fallback keys', () => {
  it('reads a key that contains spaces as written', async () => {
    expect(await run('{{project.items.@.fields.Paper type}}', { item: { index: 0 } })).toBe('Matte');
  });

  it('reads _ as a space', async () => {
    expect(await run('{{project.items.@.fields.Paper_type}}', { item: { index: 1 } })).toBe('Gloss');
  });

  it('then matches ignoring case, spaces, _ and -', async () => {
    expect(await run('{{project.items.0.fields.papertype}}')).toBe('Matte');
    expect(await run('{{project.items.0.fields.FOLD_STYLE}}')).toBe('half');
    expect(await run('{{project.items.0.fields.fold style}}')).toBe('half');
  });

  it('prefers the exact key over a fallback', () => {
    expect(lookupField({ a_b: 1, 'a b': 2, AB: 3 }, 'a_b')).toBe(1);
    expect(lookupField({ 'a b': 2, AB: 3 }, 'a_b')).toBe(2);
    expect(lookupField({ AB: 3 }, 'a_b')).toBe(3);
    expect(lookupField({ AB: 3 }, 'x')).toBeUndefined();
  });

  it('fails on a missing field unless ?', async () => {
    expect(await failure('{{project.items.0.fields.colour}}')).toEqual({ code: 'missing_value', reference: 'project.items.0.fields.colour' });
    expect(await run('{{project.items.0.fields.colour?}}')).toBe('');
  });
});

describe('interpolate: artifacts', () => {
  it('gives a single artifact its anonymous URL', async () => {
    expect(await run('{{result}}')).toBe('https://a/result');
  });

  it('gives {{a:name}} the original asset name', async () => {
    expect(await run('{{result:name}}')).toBe('result.pdf');
  });

  it('gives {{c@:name}} and {{c@}} the current member (0-based memberIndex)', async () => {
    expect(await run('{{design@:name}} at {{design@}}', { memberIndex: 1 })).toBe('Back side at https://a/design2');
    expect(await run('{{design@:name}}', { memberIndex: 0 })).toBe('Front side');
  });

  it('fails with no_current_member for {{c@}} outside a member unit of a multi-member collection', async () => {
    expect(await failure('{{design@:name}}')).toEqual({ code: 'no_current_member', reference: 'design@:name' });
  });

  it('lets {{a@}} on a single artifact mean the artifact itself', async () => {
    expect(await run('{{result@:name}}')).toBe('result.pdf');
  });

  it('gives a whole collection as a list (JSON type kept for a lone reference)', async () => {
    expect(await run('{{design:name}}')).toEqual(['Front side', 'Back side']);
    expect(await run('{{design}}')).toEqual(['https://a/design1', 'https://a/design2']);
  });

  it('fails on a missing artifact or an empty collection unless ?', async () => {
    expect(await failure('{{skipped}}')).toEqual({ code: 'missing_value', reference: 'skipped' });
    expect(await failure('{{empty}}')).toMatchObject({ code: 'missing_value' });
    expect(await run('x{{skipped?}}y')).toBe('xy');
  });

  it('asks for a URL only when one is referenced', async () => {
    let calls = 0;
    const lazy: PipelineContext = { artifact: () => ({ name: 'n', url: () => `u${++calls}` }) };
    expect(await interpolate('{{a:name}}', lazy)).toBe('n');
    expect(calls).toBe(0);
    expect(await interpolate('{{a}}', lazy)).toBe('u1');
  });
});

describe('interpolate: a lone reference keeps its JSON type', () => {
  it('keeps numbers, booleans, objects and arrays', async () => {
    expect(await run({ dpi: '{{project.items.0.fields.dpi}}', q: '{{project.items.1.quantity}}', f: '{{project.items.0.fields.flags}}' })).toEqual({
      dpi: 150,
      q: 50,
      f: { a: true },
    });
  });

  it('allows blanks around the lone reference', async () => {
    expect(await run('  {{project.orderNumber}} ')).toBe(1042);
  });

  it('writes values as text inside longer strings (objects as JSON)', async () => {
    expect(await run('n={{project.orderNumber}} f={{project.items.0.fields.flags}}')).toBe('n=1042 f={"a":true}');
  });

  it('gives an empty string for a missing optional lone reference', async () => {
    expect(await run('{{project.orderId?}}')).toBe('');
  });

  it('interpolates deeply in arrays and objects, keeping keys verbatim', async () => {
    expect(await run({ '{{projectId}}': ['{{projectId}}', { k: 'v{{projectId}}' }], n: 5, b: true, z: null })).toEqual({
      '{{projectId}}': [77, { k: 'v77' }],
      n: 5,
      b: true,
      z: null,
    });
  });

  it('keeps a }} outside a reference as text', async () => {
    expect(await run('{"a":{"id":{{projectId}}}}')).toBe('{"a":{"id":77}}');
  });

  it('leaves strings without braces alone', async () => {
    expect(await run('plain text = 1')).toBe('plain text = 1');
  });
});

describe('interpolate: secrets', () => {
  it('resolves {{secrets.<name>}} through the callback', async () => {
    expect(await run('Bearer {{secrets.api-key}}')).toBe('Bearer s3cr3t');
  });

  it('fails on an unknown secret unless ?', async () => {
    expect(await failure('{{secrets.nope}}')).toEqual({ code: 'missing_value', reference: 'secrets.nope' });
    expect(await run('{{secrets.nope?}}')).toBe('');
  });

  it('collects resolved values so that logs mask them as ***', async () => {
    const mask = new SecretMask();
    const url = await run('https://u:{{secrets.other}}@h/?k={{secrets.api-key}}', { secretMask: mask });
    expect(url).toBe('https://u:pw@h/?k=s3cr3t');
    expect(mask.mask(`GET ${url as string} → 500`)).toBe('GET https://u:***@h/?k=*** → 500');
  });

  it('masks a longer secret whole even when it contains a shorter one', () => {
    const mask = new SecretMask();
    mask.add('abc');
    mask.add('xxabcxx');
    expect(mask.mask('1 xxabcxx 2 abc')).toBe('1 *** 2 ***');
  });

  it('describe() shows secrets as *** without resolving them, and never throws', async () => {
    let asked = false;
    const c = ctx({ secret: () => ((asked = true), 's3cr3t') });
    expect(await describeValue({ h: { Authorization: 'Bearer {{secrets.api-key}}' }, u: '{{missing}}', n: '{{projectId}}' }, c)).toBe(
      '{"h":{"Authorization":"Bearer ***"},"u":"{{missing}}","n":77}',
    );
    expect(asked).toBe(false);
    expect(await describeValue('{{ broken', c)).toBe('{{ broken');
  });
});

describe('interpolate: errors', () => {
  it('throws bad_expression for malformed braces at run time', async () => {
    expect(await failure('{{projectId')).toMatchObject({ code: 'bad_expression' });
    expect(await failure('{{what ever}}')).toMatchObject({ code: 'bad_expression', reference: 'what ever' });
  });

  it('names the reference in the message', async () => {
    await expect(run('{{project.items.0.fields.colour}}')).rejects.toThrow('{{project.items.0.fields.colour}}: has no value');
  });
});

describe('interpolateParameters', () => {
  it('interpolates every parameter but leaves the skip conditions as written', async () => {
    expect(await interpolateParameters({ url: 'https://x/{{projectId}}', skipIf: '{{nothing}} = 1', SkipIfAny: ['{{x}}'] }, ctx())).toEqual({
      url: 'https://x/77',
      skipIf: '{{nothing}} = 1',
      SkipIfAny: ['{{x}}'],
    });
  });
});
