import { describe, expect, it } from 'vitest';
import { jsonLines, lineOf } from '../../../src/admin/backoffice/json-lines';

const text = `{
  "tasks": [
    { "name": "extract", "type": "extract-project-design" },
    {
      "name": "render",
      "type": "render-hires",
      "parameters": { "hiResOutputDpi": "x" }
    }
  ]
}`;

describe('jsonLines: validator paths → lines of the typed JSON', () => {
  it('finds values, and falls back to the nearest parent', () => {
    const { lines, syntax } = jsonLines(text);
    expect(syntax).toBeUndefined();
    expect(lineOf(lines, 'tasks[0].type')).toBe(3);
    expect(lineOf(lines, 'tasks[1]')).toBe(4);
    expect(lineOf(lines, 'tasks[1].type')).toBe(6);
    expect(lineOf(lines, 'tasks[1].parameters.hiResOutputDpi')).toBe(7);
    expect(lineOf(lines, 'tasks[1].inputArtifacts')).toBe(4);
    expect(lineOf(lines, '$.tasks')).toBe(2);
    expect(lineOf(lines, 'nothing')).toBe(1);
  });

  it('names the line of a syntax error', () => {
    expect(jsonLines('{\n  "a": 1,\n  "b" 2\n}').syntax).toEqual({ line: 3, message: 'expected ":" after "b"' });
    expect(jsonLines('{\n  "a": [1, 2,\n').syntax?.line).toBe(3);
    expect(jsonLines('[1]\nx').syntax).toEqual({ line: 2, message: 'unexpected text after the end' });
  });
});
