import { describe, expect, it } from 'vitest';
import { validatePipeline } from '../../../../src/platform/pipelines/language';

describe('smoke', () => {
  it('default pipeline', () => {
    const r = validatePipeline(JSON.stringify({ tasks: [
      { name: 'extract', type: 'extract-project-design', outputArtifacts: ['design*'] },
      { name: 'render', type: 'render-hires', inputArtifacts: ['design*'], outputArtifacts: ['result*'], parameters: { hiResOutputDpi: 300, hiResOutputFileFormat: 'pdf' } },
      { name: 'fin', type: 'finalize', finalArtifacts: ['result*'] },
    ]}));
    expect(r).toMatchObject({ ok: true });
  });
});
