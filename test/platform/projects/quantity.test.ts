/**
 * Quantity is at least 1 (issue 18, "two bugs"): the storefront API answers 400 naming the item's
 * quantity, and the demo shop (scripts/demo-client/shop.mjs) says so instead of ordering 100.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, seedPlatform } from '../../helpers/platform';
import { FX, seedProjectFixtures } from './fixtures';
import { DEFAULT_QUANTITY, orderQuantity } from '../../../scripts/demo-client/order-input.mjs';

const SF = '/api/storefront/v1';

beforeAll(async () => {
  await seedPlatform();
  await seedProjectFixtures();
});

describe('project item quantity', () => {
  it('0 or a negative quantity is a 400 at item.quantity / items[i].quantity; 1 is fine', async () => {
    for (const quantity of [0, -5]) {
      const res = await api('POST', `${SF}/projects/with-single-item?storefrontId=1`, { ownerId: FX.owner, item: { quantity } }, { token: 1 });
      expect(res.status, String(quantity)).toBe(400);
      expect(Object.keys(((await res.json()) as any).errors)).toEqual(['item.quantity']);
    }
    const many = await api('POST', `${SF}/projects/with-multiple-items?storefrontId=1`, { ownerId: FX.owner, items: [{ quantity: 2 }, { quantity: 0 }] }, { token: 1 });
    expect(many.status).toBe(400);
    expect(Object.keys(((await many.json()) as any).errors)).toEqual(['items[1].quantity']);
    const one = await api('POST', `${SF}/projects/with-single-item?storefrontId=1`, { ownerId: FX.owner, item: { quantity: 1 } }, { token: 1 });
    expect(one.status).toBe(201);
    expect(((await one.json()) as any).items[0].quantity).toBe(1);
  });

  it('the demo shop refuses 0, negatives, fractions and text with a message; an empty field is the default', () => {
    for (const bad of ['0', 0, '-1', '2.5', 'ten', '10001']) expect(orderQuantity(bad), String(bad)).toEqual({ error: expect.stringMatching(/at least 1|from 1/) });
    expect(orderQuantity('')).toEqual({ quantity: DEFAULT_QUANTITY });
    expect(orderQuantity(undefined)).toEqual({ quantity: DEFAULT_QUANTITY });
    expect(orderQuantity('250')).toEqual({ quantity: 250 });
  });
});
