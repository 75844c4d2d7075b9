// Types of order-input.mjs for the tests that import it.
export declare const DEFAULT_QUANTITY: number;
export declare function orderQuantity(value: unknown): { quantity: number; error?: undefined } | { error: string; quantity?: undefined };
