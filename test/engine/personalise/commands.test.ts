import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi';
import { describe, expect, it } from 'vitest';
import { PersonalisationDataSchema } from '../../../src/engine/personalise/commands';

function app() {
  const a = new OpenAPIHono();
  a.openapi(
    createRoute({
      method: 'post',
      path: '/render',
      request: { body: { content: { 'application/json': { schema: z.object({ data: PersonalisationDataSchema }) } } } },
      responses: { 200: { description: 'ok' } },
    }),
    (c) => c.json(c.req.valid('json')),
  );
  return a;
}

describe('PersonalisationDataSchema in a route', () => {
  it('documents every command type in OpenAPI', () => {
    const doc = app().getOpenAPI31Document({ openapi: '3.1.0', info: { title: 't', version: '1' } });
    const names = Object.keys(doc.components?.schemas ?? {});
    for (const n of ['PersonalisationData', 'DataCommand', 'TextCommand', 'ImageCommand', 'ShapeCommand', 'SwitchCommand', 'VisibilityCommand']) {
      expect(names).toContain(n);
    }
  });

  it('normalises command property names and type values case-insensitively, keeping layer names exact', async () => {
    const res = await app().request('/render', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ data: { 'My Title': { Type: 'Text', TEXT: 'Hi', Color: '#fff' }, Photo: { type: 'image', Image: 'x.png', ResizeMode: 'FILL' } } }),
    });
    expect(await res.json()).toEqual({
      data: { 'My Title': { type: 'text', text: 'Hi', color: '#fff' }, Photo: { type: 'image', image: 'x.png', resizeMode: 'fill' } },
    });
  });

  it('refuses a bad colour with the path of the field', () => {
    const result = PersonalisationDataSchema.safeParse({ Title: { type: 'text', text: 'x', color: 'nope' } });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0].path).toEqual(['Title', 'color']);
  });
});
