/**
 * Back-office webhooks (docs/webhooks.md), registered on the back-office area by routes.ts.
 * Scopes: the tenant settings' (Storefronts_read to read, Storefronts_full to change).
 *
 *   GET    /webhooks                                       PagedOfWebhookDto
 *   POST   /webhooks                                       201 CreatedWebhookDto (the secret, once)
 *   GET    /webhooks/{id}                                  WebhookDto
 *   PUT    /webhooks/{id}                                  WebhookDto
 *   DELETE /webhooks/{id}                                  200 the deleted WebhookDto
 *   POST   /webhooks/{id}/rotate-secret                    RotatedSecretDto (the old secret signs for 24 h more)
 *   GET    /webhooks/{id}/deliveries                       PagedOfWebhookDeliveryDto (newest first)
 *   POST   /webhooks/{id}/deliveries/{deliveryId}/resend   WebhookDeliveryDto (Pending again, same webhook-id)
 */
import { z } from '@hono/zod-openapi';
import { platformRoute, problemResponses, type PlatformArea } from '../../core';
import {
  CreatedWebhookDto,
  CreateWebhookDto,
  RotatedSecretDto,
  UpdateWebhookDto,
  WebhookDeliveryDto,
  WebhookDeliveryListDto,
  WebhookDto,
  WebhookListDto,
} from '../../webhooks/schemas';
import * as webhooks from '../../webhooks/service';

const json = <T extends z.ZodType>(schema: T, description: string) => ({ description, content: { 'application/json': { schema } } });
const body = <T extends z.ZodType>(schema: T) => ({ body: { required: true, content: { 'application/json': { schema } } } });
const read = { type: 'Storefronts', level: 'read' } as const;
const full = { type: 'Storefronts', level: 'full' } as const;
const IdParam = z.object({ id: z.string() });
const DeliveryParam = z.object({ id: z.string(), deliveryId: z.string() });
const tags = ['Webhooks'];

export function registerWebhookRoutes(area: PlatformArea): void {
  area.openapi(
    platformRoute({ method: 'get', path: '/webhooks', tags, summary: 'List webhooks', responses: { 200: json(WebhookListDto, 'The webhooks (secrets are never listed).') } }, read),
    async (c) => c.json(await webhooks.listWebhooks(c.var.tenant), 200),
  );
  area.openapi(
    platformRoute(
      {
        method: 'post',
        path: '/webhooks',
        tags,
        summary: 'Create a webhook',
        description: 'The URL must be https on a public host (the outbound policy). The answer carries the signing secret, shown only here.',
        request: body(CreateWebhookDto),
        responses: { 201: json(CreatedWebhookDto, 'The webhook and its secret.'), ...problemResponses(422) },
      },
      full,
    ),
    async (c) => c.json(await webhooks.createWebhook(c.var.tenant, c.req.valid('json')), 201),
  );
  area.openapi(
    platformRoute({ method: 'get', path: '/webhooks/{id}', tags, summary: 'Get a webhook', request: { params: IdParam }, responses: { 200: json(WebhookDto, 'The webhook.'), ...problemResponses(404) } }, read),
    async (c) => c.json(await webhooks.getWebhook(c.var.tenant, c.req.valid('param').id), 200),
  );
  area.openapi(
    platformRoute(
      {
        method: 'put',
        path: '/webhooks/{id}',
        tags,
        summary: 'Change a webhook',
        description: 'Fields left out stay as they are.',
        request: { params: IdParam, ...body(UpdateWebhookDto) },
        responses: { 200: json(WebhookDto, 'The webhook.'), ...problemResponses(404) },
      },
      full,
    ),
    async (c) => c.json(await webhooks.updateWebhook(c.var.tenant, c.req.valid('param').id, c.req.valid('json')), 200),
  );
  area.openapi(
    platformRoute(
      { method: 'delete', path: '/webhooks/{id}', tags, summary: 'Delete a webhook', description: 'Its pending deliveries are not sent; its delivery log goes too.', request: { params: IdParam }, responses: { 200: json(WebhookDto, 'The deleted webhook.'), ...problemResponses(404) } },
      full,
    ),
    async (c) => c.json(await webhooks.deleteWebhook(c.var.tenant, c.req.valid('param').id), 200),
  );
  area.openapi(
    platformRoute(
      {
        method: 'post',
        path: '/webhooks/{id}/rotate-secret',
        tags,
        summary: "Rotate a webhook's signing secret",
        description: 'For 24 hours deliveries carry two signatures (new and old secret, space-separated in `webhook-signature`).',
        request: { params: IdParam },
        responses: { 200: json(RotatedSecretDto, 'The new secret, shown only here.'), ...problemResponses(404) },
      },
      full,
    ),
    async (c) => c.json(await webhooks.rotateWebhookSecret(c.var.tenant, c.req.valid('param').id), 200),
  );
  area.openapi(
    platformRoute(
      {
        method: 'get',
        path: '/webhooks/{id}/deliveries',
        tags,
        summary: "A webhook's delivery log",
        description: 'The latest 50 deliveries, newest first, each with its attempts and response codes.',
        request: { params: IdParam },
        responses: { 200: json(WebhookDeliveryListDto, 'Deliveries.'), ...problemResponses(404) },
      },
      read,
    ),
    async (c) => c.json(await webhooks.listDeliveries(c.var.tenant, c.req.valid('param').id), 200),
  );
  area.openapi(
    platformRoute(
      {
        method: 'post',
        path: '/webhooks/{id}/deliveries/{deliveryId}/resend',
        tags,
        summary: 'Send a delivery again',
        description: 'The delivery becomes Pending now with a fresh budget of attempts; it keeps its `webhook-id` and body.',
        request: { params: DeliveryParam },
        responses: { 200: json(WebhookDeliveryDto, 'The delivery.'), ...problemResponses(404) },
      },
      full,
    ),
    async (c) => {
      const p = c.req.valid('param');
      return c.json(await webhooks.resendDelivery(c.var.tenant, p.id, p.deliveryId), 200);
    },
  );
}
