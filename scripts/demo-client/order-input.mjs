// What the demo shop's order form may send, checked before the storefront API is called, so the
// shopper reads why an order is refused (the API itself refuses a quantity below 1 with a 400).

/** The form's default when the field is left empty. */
export const DEFAULT_QUANTITY = 100;

/**
 * The order quantity: a whole number from 1 to 10,000 (the form's range), the default when the
 * field is empty; otherwise `{ error }` to show. Never turns 0 or a typo into another number.
 * @example orderQuantity('0') // { error: 'Quantity must be a whole number from 1 to 10000.' }
 */
export function orderQuantity(value) {
  if (value === undefined || value === null || String(value).trim() === '') return { quantity: DEFAULT_QUANTITY };
  const text = String(value).trim();
  const n = /^\d{1,9}$/.test(text) ? Number(text) : NaN;
  if (!Number.isInteger(n) || n < 1 || n > 10_000) return { error: 'Quantity must be a whole number from 1 to 10000.' };
  return { quantity: n };
}
