import { describe, expect, it } from 'vitest';
import {
  type ArtifactInfo,
  type PipelineContext,
  InterpolationError,
  evaluateCondition,
  evaluateConditions,
  isTruthy,
  shouldSkip,
} from '../../../../src/platform/pipelines/language';

const artifacts: Record<string, ArtifactInfo | ArtifactInfo[]> = {
  design: [{ name: 'd1', url: 'u1' }],
  pages: [],
  result: { name: 'r.pdf', url: 'u' },
};

const ctx: PipelineContext = {
  projectId: 7,
  project: {
    id: 7,
    orderNumber: 12,
    items: [{ id: 1, fields: { trim: 'yes', vdp: '', flip: 'false', count: '0', 'a=b': 'x', Paper: 'Matte' } }],
  },
  artifact: (name) => artifacts[name],
};

const holds = (text: string) => evaluateCondition(text, ctx);
const skip = (parameters: Record<string, unknown>) => shouldSkip(parameters, ctx);

describe('conditions: A = B and A != B after interpolation', () => {
  it('compares the interpolated sides as trimmed text', async () => {
    expect(await holds('{{project.items.@.fields.trim}} = yes')).toBe(true);
    expect(await holds('{{project.items.@.fields.trim}}=no')).toBe(false);
    expect(await holds('{{project.orderNumber}} = 12')).toBe(true);
  });

  it('!= inverts', async () => {
    expect(await holds('{{project.items.@.fields.trim}} != yes')).toBe(false);
    expect(await holds('{{project.items.@.fields.Paper}} != Gloss')).toBe(true);
  });

  it('compares values exactly (case matters)', async () => {
    expect(await holds('{{project.items.@.fields.Paper}} = matte')).toBe(false);
  });

  it('allows an empty side', async () => {
    expect(await holds('{{project.items.@.fields.vdp}} = ')).toBe(true);
  });

  it('splits on the operator outside {{…}}, so values containing = cannot change the comparison', async () => {
    expect(await holds('{{project.items.@.fields.a=b}} = x')).toBe(true);
  });

  it('reads a stray }} as text, not as the end of a reference', async () => {
    expect(await holds('a}} = a}}')).toBe(true);
  });

  it('rejects a condition with two operators', async () => {
    await expect(holds('a = b = c')).rejects.toMatchObject({ code: 'bad_expression' });
  });
});

describe('conditions: a lone operand holds unless empty, false or 0', () => {
  it.each([
    ['yes', true],
    ['anything', true],
    ['', false],
    ['   ', false],
    ['false', false],
    ['False', false],
    ['0', false],
    ['00', true],
    ['true', true],
  ])('%j → %s', (value, expected) => {
    expect(isTruthy(value)).toBe(expected);
  });

  it('applies to interpolated values', async () => {
    expect(await holds('{{project.items.@.fields.trim}}')).toBe(true);
    expect(await holds('{{project.items.@.fields.vdp}}')).toBe(false);
    expect(await holds('{{project.items.@.fields.flip}}')).toBe(false);
    expect(await holds('{{project.items.@.fields.count}}')).toBe(false);
    expect(await holds('{{project.items.@.fields.missing?}}')).toBe(false);
  });
});

describe('conditions: name? is true when the artifact exists', () => {
  it('is true for an existing single artifact and a non-empty collection', async () => {
    expect(await holds('result?')).toBe(true);
    expect(await holds('design?')).toBe(true);
    expect(await holds('design*?')).toBe(true);
  });

  it('is false for an absent artifact (its task was skipped) and an empty collection', async () => {
    expect(await holds('preview?')).toBe(false);
    expect(await holds('pages*?')).toBe(false);
  });

  it('compares as the text true/false', async () => {
    expect(await holds('preview? = false')).toBe(true);
    expect(await holds('result? != true')).toBe(false);
  });
});

describe('conditions: skipIf and skipIfNot', () => {
  it('skipIf skips when the condition holds', async () => {
    expect(await skip({ skipIf: 'result?' })).toBe(true);
    expect(await skip({ skipIf: 'preview?' })).toBe(false);
  });

  it('skipIfNot skips when it does not hold', async () => {
    expect(await skip({ skipIfNot: 'preview?' })).toBe(true);
    expect(await skip({ skipIfNot: 'result?' })).toBe(false);
  });

  it('matches the parameter names ignoring ASCII case', async () => {
    expect(await skip({ SkipIf: 'result?' })).toBe(true);
    expect(await skip({ SKIPIFNOT: 'preview?' })).toBe(true);
  });

  it('runs the task when no condition is given', async () => {
    expect(await skip({ url: 'https://x' })).toBe(false);
    expect(await skip({})).toBe(false);
    expect(await shouldSkip(undefined, ctx)).toBe(false);
  });
});

describe('conditions: skipIfAny, skipIfAll, skipIfNotAny, skipIfNotAll', () => {
  const T = 'result?';
  const F = 'preview?';

  it('skipIfAny skips if at least one holds', async () => {
    expect(await skip({ skipIfAny: [F, T] })).toBe(true);
    expect(await skip({ skipIfAny: [F, F] })).toBe(false);
  });

  it('skipIfAll skips only if all hold', async () => {
    expect(await skip({ skipIfAll: [T, T] })).toBe(true);
    expect(await skip({ skipIfAll: [T, F] })).toBe(false);
  });

  it('skipIfNotAny skips if none holds', async () => {
    expect(await skip({ skipIfNotAny: [F, F] })).toBe(true);
    expect(await skip({ skipIfNotAny: [F, T] })).toBe(false);
  });

  it('skipIfNotAll skips if one fails', async () => {
    expect(await skip({ skipIfNotAll: [T, F] })).toBe(true);
    expect(await skip({ skipIfNotAll: [T, T] })).toBe(false);
  });

  it('treats an empty array as no condition', async () => {
    for (const p of ['skipIfAny', 'skipIfAll', 'skipIfNotAny', 'skipIfNotAll']) expect(await skip({ [p]: [] })).toBe(false);
  });

  it('skips when any one of several condition parameters says so', async () => {
    expect(await skip({ skipIf: F, skipIfAll: [T, T] })).toBe(true);
    expect(await skip({ skipIf: F, skipIfNot: T })).toBe(false);
  });

  it('rejects a mistyped condition parameter at run time', async () => {
    await expect(skip({ skipIf: ['a'] })).rejects.toBeInstanceOf(InterpolationError);
    await expect(skip({ skipIfAny: 'a' })).resolves.toBe(true); // a lone string counts as one condition
    await expect(skip({ skipIfAll: [1] })).rejects.toMatchObject({ code: 'bad_expression' });
  });
});

describe('conditions: missing references and reasons', () => {
  it('fails the task on a missing reference without ?', async () => {
    await expect(skip({ skipIf: '{{project.items.@.fields.nothing}} = 1' })).rejects.toMatchObject({
      code: 'missing_value',
      reference: 'project.items.@.fields.nothing',
    });
  });

  it('says which condition skipped the task', async () => {
    expect(await evaluateConditions({ skipIfAny: ['preview?', '{{project.items.@.fields.trim}} = yes'] }, ctx)).toEqual({
      skip: true,
      reason: 'skipIfAny "{{project.items.@.fields.trim}} = yes" holds',
    });
    expect(await evaluateConditions({ skipIfNot: 'preview?' }, ctx)).toEqual({ skip: true, reason: 'skipIfNot "preview?" does not hold' });
    expect(await evaluateConditions({ skipIf: 'preview?' }, ctx)).toEqual({ skip: false, reason: null });
  });
});
