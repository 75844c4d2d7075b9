import { describe, expect, it } from 'vitest';
import {
  MAX_PIPELINE_BYTES,
  canonicalJson,
  perMemberInput,
  pipelineDefinition,
  secretNames,
  validatePipeline,
} from '../../../../src/platform/pipelines/language';

type Task = Record<string, unknown>;

const extract: Task = { name: 'extract', type: 'extract-project-design', outputArtifacts: ['design*'] };
const render: Task = {
  name: 'render',
  type: 'render-hires',
  inputArtifacts: ['design*'],
  outputArtifacts: ['result*'],
  parameters: { hiResOutputDpi: 300, hiResOutputFileFormat: 'pdf' },
};
const finalize: Task = { name: 'finalize', type: 'finalize', finalArtifacts: ['result*'] };

const pipeline = (...tasks: Task[]) => ({ tasks });
const errorsOf = (raw: unknown) => {
  const r = validatePipeline(raw);
  if (r.ok) throw new Error('expected validation errors');
  return r.errors;
};
const okPipeline = (raw: unknown) => {
  const r = validatePipeline(raw);
  if (!r.ok) throw new Error(`expected a valid pipeline, got ${JSON.stringify(r.errors)}`);
  return r.pipeline;
};

describe('validatePipeline: accepted pipelines', () => {
  it('accepts the default extract → render-hires → finalize pipeline as JSON text', () => {
    const p = okPipeline(JSON.stringify(pipeline(extract, render, finalize)));
    expect(p.tasks.map((t) => t.type)).toEqual(['extract-project-design', 'render-hires', 'finalize']);
    expect(p.tasks[1]!.inputs).toEqual([{ name: 'design', collection: true, optional: false, raw: 'design*' }]);
    expect(p.tasks[2]!.finalArtifacts.map((r) => r.raw)).toEqual(['result*']);
  });

  it('accepts an already parsed value, and a job body whose other root properties are ignored', () => {
    okPipeline({ id: 'job-1', project: { id: 5 }, ...pipeline(extract, render, finalize) });
  });

  it('applies the task defaults: processingTimeout 600 s, maxAutoRetryCount 2, parameters kept as written', () => {
    const t = okPipeline(pipeline(extract, render, finalize)).tasks[1]!;
    expect(t.processingTimeout).toBe(600);
    expect(t.maxAutoRetryCount).toBe(2);
    expect(t.parameters).toEqual({ hiResOutputDpi: 300, hiResOutputFileFormat: 'pdf' });
  });

  it('matches declared property names ignoring ASCII case', () => {
    const p = okPipeline({
      Tasks: [
        { Name: 'extract', TYPE: 'Extract-Project-Design', OutputArtifacts: ['design'] },
        { name: 'f', type: 'finalize', FinalArtifacts: ['design'] },
      ],
    });
    expect(p.tasks[0]!.type).toBe('extract-project-design');
  });

  it('accepts finalArtifacts given as a finalize parameter', () => {
    const p = okPipeline(pipeline(extract, render, { name: 'f', type: 'finalize', parameters: { finalArtifacts: ['result*'] } }));
    expect(p.tasks[2]!.finalArtifacts[0]!.name).toBe('result');
  });
});

describe('validatePipeline: JSON and size', () => {
  it('reports text that is not JSON at the root $', () => {
    expect(Object.keys(errorsOf('{"tasks": ['))).toEqual(['$']);
    expect(errorsOf('{"tasks": [')['$']![0]).toMatch(/not JSON/);
  });

  it('requires a JSON object at the root', () => {
    expect(errorsOf('[1,2]')['$']).toEqual(['must be a JSON object {"tasks": [...]}']);
    expect(errorsOf('null')['$']).toBeDefined();
  });

  it(`rejects a pipeline larger than 256 KB (${MAX_PIPELINE_BYTES} bytes)`, () => {
    const big = JSON.stringify(pipeline({ ...extract, description: 'x'.repeat(MAX_PIPELINE_BYTES) }, finalize));
    expect(errorsOf(big)['$']![0]).toMatch(/larger than 256 KB/);
    expect(errorsOf(JSON.parse(big))['$']![0]).toMatch(/larger than 256 KB/);
  });

  it('counts the size in UTF-8 bytes', () => {
    const text = JSON.stringify(pipeline({ ...extract, description: 'é'.repeat(MAX_PIPELINE_BYTES / 2) }, finalize));
    expect(text.length).toBeLessThan(MAX_PIPELINE_BYTES + 200);
    expect(errorsOf(text)['$']![0]).toMatch(/larger than 256 KB/);
  });
});

describe('validatePipeline: 1–50 tasks', () => {
  it('requires tasks', () => {
    expect(errorsOf({})).toEqual({ tasks: ['is required'] });
    expect(errorsOf({ tasks: {} })).toEqual({ tasks: ['must be an array of tasks'] });
  });

  it('rejects an empty task list', () => {
    expect(errorsOf({ tasks: [] }).tasks).toContain('must have 1 to 50 tasks (has 0)');
  });

  it('accepts 50 tasks and rejects 51', () => {
    const many = (n: number) =>
      pipeline(
        ...Array.from({ length: n - 1 }, (_, i) => ({ name: `t${i}`, type: 'extract-project-design', outputArtifacts: [`d${i}`] })),
        { name: 'f', type: 'finalize' },
      );
    okPipeline(many(50));
    expect(errorsOf(many(51)).tasks).toContain('must have 1 to 50 tasks (has 51)');
  });

  it('requires every task to be an object', () => {
    expect(errorsOf(pipeline(extract, 'render' as unknown as Task, finalize))['tasks[1]']).toEqual(['must be an object']);
  });
});

describe('validatePipeline: task names', () => {
  it('requires a name', () => {
    expect(errorsOf(pipeline({ type: 'finalize' }))['tasks[0].name']).toEqual(['is required']);
  });

  it.each(['has space', '', 'x'.repeat(101), 'dot.name', 'ü'])('rejects the name %j', (name) => {
    expect(errorsOf(pipeline({ name, type: 'finalize' }))['tasks[0].name']).toEqual(['must match [A-Za-z0-9_-]{1,100}']);
  });

  it('accepts letters, digits, _ and - up to 100 characters', () => {
    okPipeline(pipeline({ name: `A-z_09${'x'.repeat(94)}`, type: 'finalize' }));
  });

  it('requires names to be unique', () => {
    const e = errorsOf(pipeline(extract, { ...render, name: 'extract' }, finalize));
    expect(e['tasks[1].name']).toEqual(['"extract" is already the name of tasks[0]']);
  });
});

describe('validatePipeline: types and namespaces', () => {
  it('rejects an unknown type', () => {
    expect(errorsOf(pipeline({ name: 'x', type: 'make-coffee' }, finalize))['tasks[0].type']).toEqual([
      'unknown task type "make-coffee"',
    ]);
  });

  it('requires a type', () => {
    expect(errorsOf(pipeline({ name: 'x' }, finalize))['tasks[0].type']).toEqual(['is required']);
  });

  it('treats an omitted namespace, "default" and "customers-canvas" as built-in', () => {
    for (const namespace of [undefined, 'default', 'customers-canvas', 'Default']) {
      okPipeline(pipeline({ ...extract, namespace }, render, finalize));
    }
  });

  it('rejects any other namespace as unknown', () => {
    expect(errorsOf(pipeline({ ...extract, namespace: 'acme' }, render, finalize))['tasks[0].namespace']![0]).toMatch(
      /unknown namespace "acme"/,
    );
  });

  it('accepts the older name attach-data-to-order for export-to-ecommerce', () => {
    const p = okPipeline(
      pipeline({ name: 'a', type: 'attach-data-to-order', parameters: { orderData: [{ key: 'k', value: 'v' }] } }, { name: 'f', type: 'finalize' }),
    );
    expect(p.tasks[0]!.type).toBe('export-to-ecommerce');
  });
});

describe('validatePipeline: finalize', () => {
  it('requires a finalize task', () => {
    expect(errorsOf(pipeline(extract, render)).tasks).toEqual(['a finalize task is required, as the last task']);
  });

  it('requires finalize to be the last task', () => {
    expect(errorsOf(pipeline(extract, finalize, render))['tasks[1].type']).toEqual(['finalize must be the last task']);
  });

  it('allows finalize only once', () => {
    const e = errorsOf(pipeline(extract, render, { ...finalize, name: 'f1' }, { ...finalize, name: 'f2' }));
    expect(e['tasks[2].type']).toEqual(['finalize must be the last task']);
    expect(e['tasks[3].type']).toEqual(['finalize appears more than once (first at tasks[2])']);
  });

  it('requires final artifacts to be produced earlier, in the same form', () => {
    const e = errorsOf(pipeline(extract, render, { ...finalize, finalArtifacts: ['result', 'missing'] }));
    expect(e['tasks[2].finalArtifacts[0]']![0]).toMatch(/is a collection .*write "result\*"/);
    expect(e['tasks[2].finalArtifacts[1]']).toEqual(['"missing" is not produced by an earlier task']);
  });

  it('allows finalArtifacts only on finalize', () => {
    expect(errorsOf(pipeline(extract, { ...render, finalArtifacts: ['result*'] }, finalize))['tasks[1].finalArtifacts']).toEqual([
      'only the finalize task takes finalArtifacts',
    ]);
  });

  it('accepts a finalize task with no final artifacts', () => {
    okPipeline(pipeline({ name: 'f', type: 'finalize' }));
  });
});

describe('validatePipeline: artifacts flow from earlier tasks', () => {
  it('reports an input that no earlier task produces', () => {
    expect(errorsOf(pipeline({ ...render, inputArtifacts: ['nothing'] }, finalize))['tasks[0].inputArtifacts[0]']).toEqual([
      '"nothing" is not produced by an earlier task',
    ]);
  });

  it('says so when the input is produced only by a later task', () => {
    expect(errorsOf(pipeline(render, extract, finalize))['tasks[0].inputArtifacts[0]']).toEqual([
      '"design" is produced only later (tasks[1])',
    ]);
  });

  it('reports an output produced twice', () => {
    const e = errorsOf(pipeline(extract, { ...extract, name: 'again' }, render, finalize));
    expect(e['tasks[1].outputArtifacts[0]']).toEqual(['"design" is already produced by tasks[0]']);
  });

  it('reports a single and a collection of the same name as produced twice', () => {
    const e = errorsOf(pipeline(extract, { ...extract, name: 'again', outputArtifacts: ['design'] }, render, finalize));
    expect(e['tasks[1].outputArtifacts[0]']).toEqual(['"design" is already produced by tasks[0]']);
  });

  it('reports a collection used as a single artifact and the reverse', () => {
    const e1 = errorsOf(pipeline(extract, { ...render, inputArtifacts: ['design'], outputArtifacts: ['result'] }, { ...finalize, finalArtifacts: ['result'] }));
    expect(e1['tasks[1].inputArtifacts[0]']![0]).toMatch(/"design" is a collection .*write "design\*"/);
    const e2 = errorsOf(pipeline({ ...extract, outputArtifacts: ['design'] }, render, finalize));
    expect(e2['tasks[1].inputArtifacts[0]']![0]).toMatch(/"design" is a single artifact .*without \*/);
  });

  it('requires collection outputs from a per-member task whose input is a collection', () => {
    const e = errorsOf(pipeline(extract, { ...render, outputArtifacts: ['result'] }, { ...finalize, finalArtifacts: ['result'] }));
    expect(e['tasks[1].outputArtifacts[0]']![0]).toMatch(/must be a collection \("result\*"\).*runs once per member/);
  });

  it('lets a single input give a single or a collection output', () => {
    okPipeline(pipeline({ ...extract, outputArtifacts: ['design'] }, { ...render, inputArtifacts: ['design'], outputArtifacts: ['result'] }, { ...finalize, finalArtifacts: ['result'] }));
    okPipeline(pipeline({ ...extract, outputArtifacts: ['design'] }, { ...render, inputArtifacts: ['design'] }, finalize));
  });

  it('lets a gathering task turn a collection into one file, and forbids a collection output there', () => {
    const merge = { name: 'merge', type: 'merge-separate-pages', inputArtifacts: ['result*'], outputArtifacts: ['merged'] };
    okPipeline(pipeline(extract, render, merge, { ...finalize, finalArtifacts: ['merged'] }));
    const e = errorsOf(pipeline(extract, render, { ...merge, outputArtifacts: ['merged*'] }, { ...finalize, finalArtifacts: ['merged*'] }));
    expect(e['tasks[2].outputArtifacts[0]']).toEqual(['merge-separate-pages produces one file: write "merged" without *']);
  });

  it('checks how many inputs and outputs a type takes', () => {
    const e = errorsOf(pipeline({ ...extract, inputArtifacts: ['x'] }, { ...render, inputArtifacts: [] }, finalize));
    expect(e['tasks[0].inputArtifacts']).toEqual(['extract-project-design takes no input artifacts (has 1)']);
    expect(e['tasks[1].inputArtifacts']).toEqual(['render-hires takes 1 input artifact (has 0)']);
    const noOut = errorsOf(pipeline({ name: 'e', type: 'extract-project-design' }, { name: 'f', type: 'finalize' }));
    expect(noOut['tasks[0].outputArtifacts']).toEqual(['extract-project-design takes 1 output artifact (has 0)']);
  });

  it('accepts an optional input name? whose producer may be skipped', () => {
    const p = okPipeline(
      pipeline(
        extract,
        { name: 'data', type: 'extract-project-resource', outputArtifacts: ['rows'], parameters: { resourceType: 'General', skipIf: '{{project.items.@.fields.vdp?}} = ' } },
        { name: 'vdp', type: 'render-vdp-hires', inputArtifacts: ['design*', 'rows?'], outputArtifacts: ['result*'] },
        finalize,
      ),
    );
    expect(p.tasks[2]!.inputs[1]).toEqual({ name: 'rows', collection: false, optional: true, raw: 'rows?' });
  });

  it('still requires an optional input to be produced by some earlier task', () => {
    expect(errorsOf(pipeline(extract, { ...render, inputArtifacts: ['design*', 'typo?'] }, finalize))['tasks[1].inputArtifacts[1]']).toEqual([
      '"typo" is not produced by an earlier task',
    ]);
  });

  it('rejects optional outputs and malformed artifact names', () => {
    const e = errorsOf(pipeline({ ...extract, outputArtifacts: ['design*?'] }, { ...render, inputArtifacts: ['bad name'] }, finalize));
    expect(e['tasks[0].outputArtifacts[0]']).toEqual(['an output cannot be optional ("design*?")']);
    expect(e['tasks[1].inputArtifacts[0]']![0]).toMatch(/is not an artifact name/);
  });

  it('reserves the reference roots project, projectId and secrets as artifact names', () => {
    expect(errorsOf(pipeline({ ...extract, outputArtifacts: ['project'] }, finalize))['tasks[0].outputArtifacts[0]']![0]).toMatch(/reserved/);
  });

  it('rejects a single artifact named like a member of a collection (page3 next to page*)', () => {
    const e = errorsOf(pipeline({ ...extract, outputArtifacts: ['page*'] }, { name: 'x', type: 'extract-project-resource', outputArtifacts: ['page3'], parameters: { resourceType: 'Hires' } }, { name: 'f', type: 'finalize' }));
    expect(e['tasks[1].outputArtifacts[0]']![0]).toMatch(/member of "page\*"/);
  });
});

describe('validatePipeline: parameters', () => {
  const withParams = (parameters: Record<string, unknown>) => pipeline(extract, { ...render, parameters }, finalize);

  it('reports mistyped known parameters by path', () => {
    const e = errorsOf(withParams({ hiResOutputDpi: 'high', hiResOutputFileFormat: 'gif', hiResOutputToSeparateFiles: 'yes' }));
    expect(e['tasks[1].parameters.hiResOutputDpi']).toEqual(['must be a number from 1 to 2400']);
    expect(e['tasks[1].parameters.hiResOutputFileFormat']).toEqual(['must be one of Pdf, Jpeg, Png, Tiff, Bmp']);
    expect(e['tasks[1].parameters.hiResOutputToSeparateFiles']).toEqual(['must be true or false']);
  });

  it('also accepts numbers and booleans written as strings', () => {
    okPipeline(withParams({ hiResOutputDpi: '150', hiResOutputToSeparateFiles: 'TRUE' }));
  });

  it('matches parameter names and enum values ignoring ASCII case, with aliases', () => {
    okPipeline(withParams({ HIRESOUTPUTFILEFORMAT: 'TIF', hiresoutputcompression: 'zip', PdfTextOutputMode: 'text' }));
  });

  it('rejects two spellings of one parameter (or a name and its alias)', () => {
    const e = errorsOf(withParams({ hiResOutputDpi: 300, HiResOutputDpi: 200, pdfTextOutputMode: 'Text', hiResOutputPdfTextMode: 'Outlines' }));
    expect(e['tasks[1].parameters.HiResOutputDpi']).toEqual(['given twice (as hiResOutputDpi and HiResOutputDpi)']);
    expect(e['tasks[1].parameters.hiResOutputPdfTextMode']).toEqual(['given twice (as pdfTextOutputMode and hiResOutputPdfTextMode)']);
  });

  it('does not type-check an interpolated value (it is checked after interpolation)', () => {
    okPipeline(withParams({ hiResOutputDpi: '{{project.items.@.fields.dpi}}', hiResOutputFileFormat: 'x{{projectId}}' }));
  });

  it('ignores unknown parameters', () => {
    okPipeline(withParams({ hiResOutputRgbColorProfileName: '', somethingElse: { deep: [1] } }));
  });

  it('requires required parameters', () => {
    const e = errorsOf(pipeline({ name: 'call', type: 'invoke-url' }, { name: 'f', type: 'finalize' }));
    expect(e['tasks[0].parameters.url']).toEqual(['is required']);
  });

  it('requires one of alternative parameter groups', () => {
    const e = errorsOf(pipeline(extract, { name: 'up', type: 'upload-to-dropbox', inputArtifacts: ['design*'], parameters: { refreshToken: 'r' } }, { name: 'f', type: 'finalize' }));
    expect(e['tasks[1].parameters']).toEqual(['upload-to-dropbox needs accessToken or refreshToken + appKey + appSecret']);
  });

  it('requires parameters to be an object', () => {
    expect(errorsOf(withParams([] as unknown as Record<string, unknown>))['tasks[1].parameters']).toEqual(['must be an object']);
  });

  it('checks structured parameters: orderData entries and string records', () => {
    const e = errorsOf(
      pipeline(
        { name: 'exp', type: 'export-to-ecommerce', parameters: { orderData: [{ key: 'a', value: 'b', type: 'Xml' }] } },
        { name: 'call', type: 'invoke-url', parameters: { url: 'ftp://x', queryHeaders: { a: { b: 1 } } } },
        { name: 'f', type: 'finalize' },
      ),
    );
    expect(e['tasks[0].parameters.orderData']![0]).toMatch(/\[0\]\.type must be one of PlainText/);
    expect(e['tasks[1].parameters.url']).toEqual(['must be an http or https URL']);
    expect(e['tasks[1].parameters.queryHeaders']).toEqual(['"a" must be a string']);
  });

  it('validates task-level processingTimeout and maxAutoRetryCount (≤ 10)', () => {
    const e = errorsOf(pipeline(extract, { ...render, processingTimeout: 0, maxAutoRetryCount: 11 }, finalize));
    expect(e['tasks[1].processingTimeout']).toEqual(['must be an integer from 1 to 86400']);
    expect(e['tasks[1].maxAutoRetryCount']).toEqual(['must be an integer from 0 to 10']);
    const t = okPipeline(pipeline(extract, { ...render, processingTimeout: '120', maxAutoRetryCount: 0 }, finalize)).tasks[1]!;
    expect([t.processingTimeout, t.maxAutoRetryCount]).toEqual([120, 0]);
  });

  it('rejects two spellings of one task property', () => {
    expect(errorsOf(pipeline({ ...extract, Name: 'other' }, finalize))['tasks[0].Name']).toEqual(['given twice (as name and Name)']);
  });
});

describe('validatePipeline: expressions', () => {
  const withUrl = (url: string, before: Task[] = []) =>
    pipeline(...before, { name: 'call', type: 'invoke-url', parameters: { url } }, { name: 'f', type: 'finalize' });

  it('rejects an unbalanced {{', () => {
    expect(errorsOf(withUrl('https://x/{{projectId'))['tasks[0].parameters.url']![0]).toMatch(/unbalanced "\{\{"/);
  });

  it('rejects a {{ nested in a reference', () => {
    expect(errorsOf(withUrl('https://x/{{project{{Id}}'))['tasks[0].parameters.url']![0]).toMatch(/unbalanced "\{\{"/);
  });

  it('reads a }} outside a reference as text (a JSON body written as a string)', () => {
    okPipeline(pipeline({ name: 'call', type: 'invoke-url', parameters: { url: 'https://x', body: '{"a":{"id":{{projectId}}}}' } }, { name: 'f', type: 'finalize' }));
  });

  it('rejects an unknown root', () => {
    expect(errorsOf(withUrl('https://x/{{tenant.id}}'))['tasks[0].parameters.url']![0]).toMatch(/unknown reference/);
  });

  it('rejects an artifact reference to nothing produced earlier', () => {
    expect(errorsOf(withUrl('https://x/?f={{result}}'))['tasks[0].parameters.url']).toEqual([
      '{{result}}: "result" is not produced by an earlier task',
    ]);
    okPipeline(withUrl('https://x/?f={{design}}&n={{design@:name}}', [extract]));
  });

  it('rejects project paths that name no ProjectDto or item field', () => {
    const e = errorsOf(withUrl('https://x/{{project.colour}}/{{project.items.@.price}}/{{project.items.first.name}}'));
    expect(e['tasks[0].parameters.url']).toEqual([
      '{{project.colour}}: project.colour is not a project field',
      '{{project.items.@.price}}: project.items.@.price is not an item field',
      '{{project.items.first.name}}: project.items is followed by @ (the current item) or an index',
    ]);
  });

  it('accepts every reference form of the contract', () => {
    okPipeline(
      withUrl(
        // A secret only in the user info: a URL's path is shown (docs/security.md).
        'https://{{secrets.api-key}}@x/{{projectId}}/{{project.orderNumber}}/{{project.items.@.fields.Paper type}}/{{project.items.0.hidden.k?}}' +
          '/{{design}}/{{design:name}}/{{design@:name}}',
        [extract],
      ),
    );
  });

  it('rejects a malformed secret name', () => {
    expect(errorsOf(withUrl('{{secrets.bad name}}'))['tasks[0].parameters.url']![0]).toMatch(/secret name/);
  });

  it('checks expressions nested in arrays and objects, and in unknown parameters', () => {
    const e = errorsOf(
      pipeline(
        { name: 'call', type: 'invoke-url', parameters: { url: 'https://x', body: { a: ['{{nope}}'] }, custom: '{{' } },
        { name: 'f', type: 'finalize' },
      ),
    );
    expect(e['tasks[0].parameters.body.a[0]']).toEqual(['{{nope}}: "nope" is not produced by an earlier task']);
    expect(e['tasks[0].parameters.custom']![0]).toMatch(/unbalanced/);
  });
});

describe('validatePipeline: conditions', () => {
  const cond = (parameters: Record<string, unknown>) => pipeline(extract, { ...render, parameters }, finalize);

  it('accepts skipIf and skipIfNot strings and the four array forms', () => {
    okPipeline(
      cond({
        skipIf: '{{project.items.@.fields.trim?}} = no',
        SkipIfNot: 'design*?',
        skipIfAny: ['design?', '{{projectId}} != 5'],
        skipIfAll: ['a = a'],
        skipIfNotAny: ['{{project.orderId?}}'],
        skipIfNotAll: [],
      }),
    );
  });

  it('requires skipIf / skipIfNot to be strings and the others arrays of strings', () => {
    const e = errorsOf(cond({ skipIf: ['a'], skipIfAny: 5, skipIfAll: [1] }));
    expect(e['tasks[1].parameters.skipIf']).toEqual(['skipIf must be a string']);
    expect(e['tasks[1].parameters.skipIfAny']).toEqual(['skipIfAny must be an array of conditions']);
    expect(e['tasks[1].parameters.skipIfAll[0]']![0]).toMatch(/must be a string condition/);
  });

  it('rejects a condition with more than one operator', () => {
    expect(errorsOf(cond({ skipIf: 'a = b = c' }))['tasks[1].parameters.skipIf']![0]).toMatch(/at most one operator/);
    expect(errorsOf(cond({ skipIfAny: ['ok', 'a != b != c'] }))['tasks[1].parameters.skipIfAny[1]']![0]).toMatch(/at most one operator/);
  });

  it('does not count = inside {{…}} as an operator', () => {
    okPipeline(cond({ skipIf: '{{project.items.@.fields.a=b?}} = x' }));
  });

  it('requires an existence operand name? to be produced by an earlier task', () => {
    expect(errorsOf(cond({ skipIf: 'preview?' }))['tasks[1].parameters.skipIf']).toEqual([
      '"preview?": "preview" is not produced by an earlier task',
    ]);
  });

  it('checks the references inside condition operands', () => {
    expect(errorsOf(cond({ skipIf: '{{project.nope}} = 1' }))['tasks[1].parameters.skipIf']![0]).toMatch(/not a project field/);
  });
});

describe('validatePipeline: reserved tasks and parameters answer "not available yet"', () => {
  it.each(['export-to-shopify', 'export-to-order-management', 'change-group-in-onprintshop'])('reserves the type %s', (type) => {
    expect(errorsOf(pipeline({ name: 'x', type }, { name: 'f', type: 'finalize' }))['tasks[0].type']).toEqual([`${type} is not available yet`]);
  });

  it('does not reserve export-to-ecommerce', () => {
    okPipeline(pipeline({ name: 'x', type: 'export-to-ecommerce', parameters: { orderData: [] } }, { name: 'f', type: 'finalize' }));
  });

  it.each(['skipMissingOrders', 'orderLookupType', 'destinationGroupName', 'SKIPMISSINGORDERS'])('reserves the parameter %s on any task', (name) => {
    expect(errorsOf(pipeline(extract, { ...render, parameters: { [name]: true } }, finalize))[`tasks[1].parameters.${name}`]).toEqual([
      `${name} is not available yet`,
    ]);
  });

  it('accepts SFTP: protocol Sftp and SSH-key parameters (sshPrivateKey is an alias of privateKey)', () => {
    const up = { name: 'up', type: 'upload-to-ftp', inputArtifacts: ['design*'] };
    okPipeline(pipeline(extract, { ...up, parameters: { host: 'h', protocol: 'sftp', sshPrivateKey: 'k', hostKeyFingerprint: 'SHA256:x' } }, { name: 'f', type: 'finalize' }));
    okPipeline(pipeline(extract, { ...up, parameters: { host: 'h', protocol: 'FtpsImplicit' } }, { name: 'f', type: 'finalize' }));
  });
});

describe('validatePipeline: every error at once', () => {
  it('reports all problems of all tasks in one answer, keyed by JSON path', () => {
    const e = errorsOf({
      tasks: [
        { name: 'bad name', type: 'extract-project-design', outputArtifacts: ['design*'] },
        { name: 'r', type: 'render-hires', inputArtifacts: ['design', 'nothing'], outputArtifacts: ['result*'], parameters: { hiResOutputDpi: -1, url: '{{' } },
        { name: 'x', type: 'export-to-shopify' },
        { name: 'r', type: 'finalize', finalArtifacts: ['result*'], namespace: 'other' },
        { name: 'late', type: 'teleport' },
      ],
    });
    expect(Object.keys(e).sort()).toEqual(
      [
        'tasks',
        'tasks[0].name',
        'tasks[1].inputArtifacts',
        'tasks[1].inputArtifacts[0]',
        'tasks[1].inputArtifacts[1]',
        'tasks[1].parameters.hiResOutputDpi',
        'tasks[1].parameters.url',
        'tasks[2].type',
        'tasks[3].name',
        'tasks[3].namespace',
        'tasks[4].type',
      ].sort(),
    );
  });
});

describe('pipelineDefinition, canonicalJson and secretNames', () => {
  it('gives the same canonical JSON for bodies that differ only in spelling, key order and defaults', () => {
    const a = okPipeline(pipeline(extract, render, finalize));
    const b = okPipeline({
      tasks: [
        { OutputArtifacts: ['design*'], type: 'EXTRACT-PROJECT-DESIGN', name: 'extract', namespace: 'default', maxAutoRetryCount: 2 },
        { ...render, processingTimeout: 600 },
        { ...finalize, inputArtifacts: [] },
      ],
    });
    expect(canonicalJson(pipelineDefinition(a))).toBe(canonicalJson(pipelineDefinition(b)));
  });

  it('keeps parameters as written in the definition', () => {
    const d = pipelineDefinition(okPipeline(pipeline(extract, { ...render, parameters: { HiResOutputDpi: '150' } }, finalize)));
    expect(d.tasks[1]!.parameters).toEqual({ HiResOutputDpi: '150' });
  });

  it('lists referenced secret names (lower-cased) for the ProcessingPipelines_full check', () => {
    const p = okPipeline(
      pipeline(
        extract,
        { name: 'up', type: 'upload-to-s3', inputArtifacts: ['design*'], parameters: { bucket: 'b', accessKeyId: '{{secrets.S3_KEY}}', secretAccessKey: '{{secrets.s3-secret}}' } },
        { name: 'f', type: 'finalize' },
      ),
    );
    expect(secretNames(p).sort()).toEqual(['s3-secret', 's3_key']);
  });
});

describe('validatePipeline: image previews need images', () => {
  it('requires input artifacts or an images parameter for render-image-preview(-with-mockup)', () => {
    const e = errorsOf(pipeline({ name: 'p', type: 'render-image-preview', outputArtifacts: ['pv'] }, { name: 'f', type: 'finalize' }));
    expect(e['tasks[0].inputArtifacts']).toEqual(['render-image-preview needs input artifacts or an images parameter']);
    okPipeline(pipeline({ name: 'p', type: 'render-image-preview', outputArtifacts: ['pv*'], parameters: { images: ['photo-1'] } }, { name: 'f', type: 'finalize' }));
  });
});

describe('perMemberInput', () => {
  it('names the collection a per-member task iterates, and nothing for gathering tasks', () => {
    const p = okPipeline(pipeline(extract, render, { name: 'm', type: 'merge-separate-pages', inputArtifacts: ['result*'], outputArtifacts: ['one'] }, { ...finalize, finalArtifacts: ['one'] }));
    expect(perMemberInput(p.tasks[1]!)?.name).toBe('design');
    expect(perMemberInput(p.tasks[2]!)).toBeUndefined();
  });
});

describe('validatePipeline: never throws on odd input', () => {
  it('rejects two spellings of the root tasks property', () => {
    expect(errorsOf({ tasks: [finalize], Tasks: [] })['Tasks']).toEqual(['given twice (as tasks and Tasks)']);
  });

  it.each([
    ['a number', 5],
    ['a string that is JSON of a number', '5'],
    ['tasks of odd values', { tasks: [null, 1, 'x', [], { name: 5, type: [], inputArtifacts: 'a', outputArtifacts: [1], parameters: 'p' }] }],
    ['parameters of odd values', { tasks: [{ name: 'a', type: 'render-hires', inputArtifacts: [null], parameters: { skipIf: 1, hiResOutputDpi: {}, x: [[{ y: '{{' }]] } }] }],
    ['undefined', undefined],
  ])('answers errors, not an exception, for %s', (_, value) => {
    const r = validatePipeline(value);
    expect(r.ok).toBe(false);
  });
});

describe('validatePipeline: nesting depth (never overflows the stack)', () => {
  const nested = (depth: number, leaf: unknown = '{{projectId}}') => {
    let v: unknown = leaf;
    for (let i = 0; i < depth; i++) v = i % 2 ? { k: v } : [v];
    return v;
  };
  const withBody = (body: unknown) => pipeline({ name: 'call', type: 'invoke-url', parameters: { url: 'https://example.com/hook', body } }, { name: 'f', type: 'finalize' });

  it.each([2_000, 100_000])('reports parameters nested %i deep by path, as text and as a parsed value', (depth) => {
    const text = `{"tasks":[{"name":"call","type":"invoke-url","parameters":{"url":"https://example.com/hook","body":${'['.repeat(depth)}1${']'.repeat(depth)}}},{"name":"f","type":"finalize"}]}`;
    for (const raw of depth * 2 < MAX_PIPELINE_BYTES ? [text, JSON.parse(text)] : [text]) {
      const e = errorsOf(raw);
      const [path, messages] = Object.entries(e)[0]!;
      expect(path).toMatch(/^tasks\[0\]\.parameters\.body(\[0\])+$/);
      expect(messages).toEqual(['nests deeper than 32 levels']);
    }
  });

  it('accepts a parameter nested 32 deep and rejects 33', () => {
    okPipeline(withBody(nested(31)));
    expect(Object.keys(errorsOf(withBody(nested(33))))).toHaveLength(1);
  });

  it('bounds the rest of the document too, iteratively', () => {
    const deep = { tasks: [{ ...extract, extra: nested(5_000, 1) }, finalize] };
    const e = errorsOf(deep);
    expect(Object.keys(e)[0]).toMatch(/^tasks\[0\]\.extra/);
  });
});
