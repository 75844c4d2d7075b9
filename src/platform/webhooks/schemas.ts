/** Wire DTOs of the webhook endpoints (back office), named as the OpenAPI document shows them. */
import { z } from '@hono/zod-openapi';
import { EVENT_TYPES } from './events';

const EventType = z.enum(EVENT_TYPES).openapi({ description: 'An event a webhook can subscribe to.' });
const Events = z
  .array(EventType)
  .min(1)
  .max(EVENT_TYPES.length)
  .refine((a) => new Set(a).size === a.length, { message: 'Each event at most once.' });
const Url = z.string().trim().min(1).max(2048).openapi({ example: 'https://shop.example.com/hooks/print' });
const Description = z.string().trim().max(255).nullish();

export const CreateWebhookDto = z.object({ url: Url, events: Events, description: Description }).strict().openapi('CreateWebhookDto');
export const UpdateWebhookDto = z
  .object({ url: Url.optional(), events: Events.optional(), description: Description })
  .strict()
  .openapi('UpdateWebhookDto');

export const WebhookDto = z
  .object({
    id: z.string(),
    url: z.string(),
    events: z.array(z.string()),
    description: z.string().nullable(),
    created: z.string(),
    lastModified: z.string(),
  })
  .openapi('WebhookDto');

export const CreatedWebhookDto = WebhookDto.extend({
  secret: z.string().openapi({ description: 'The signing secret (`whsec_…`), shown only in this answer.', example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' }),
}).openapi('CreatedWebhookDto');

export const RotatedSecretDto = z
  .object({
    secret: z.string().openapi({ description: 'The new signing secret, shown only in this answer.' }),
    previousSecretValidUntil: z.string().openapi({ description: 'Until then deliveries carry signatures with both secrets.' }),
  })
  .openapi('RotatedSecretDto');

const AttemptDto = z.object({
  attempt: z.number().int(),
  at: z.string(),
  responseStatus: z.number().int().nullable(),
  error: z.string().nullable(),
  durationMs: z.number().int(),
});

export const WebhookDeliveryDto = z
  .object({
    id: z.string(),
    eventId: z.string().openapi({ description: 'The `webhook-id` header of every attempt.' }),
    eventType: z.string(),
    endpointId: z.string(),
    status: z.enum(['Pending', 'Delivered', 'Failed', 'Cancelled']),
    attempts: z.number().int(),
    lastResponseStatus: z.number().int().nullable(),
    lastError: z.string().nullable(),
    nextAttempt: z.string().nullable(),
    created: z.string(),
    payload: z.unknown(),
    attemptLog: z.array(AttemptDto),
  })
  .openapi('WebhookDeliveryDto');

export const WebhookListDto = z.object({ total: z.number().int(), items: z.array(WebhookDto) }).openapi('PagedOfWebhookDto');
export const WebhookDeliveryListDto = z.object({ total: z.number().int(), items: z.array(WebhookDeliveryDto) }).openapi('PagedOfWebhookDeliveryDto');
