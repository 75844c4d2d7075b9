// Types of platform-seed-data.mjs for the TypeScript test helpers.
export declare const DEMO_PIPELINE: string;
export declare const DEMO_WORKFLOW: string;
export declare function platformSeedStatements(args: { demo2SecretHash: string; allFull: string }): Array<[string, ...unknown[]]>;
export declare const DEMO_PRINT_PIPELINE: string;
export declare const DEMO_PRODUCTS: Array<{ id: number; name: string; reference: string; skuPrefix: string; description: string; design: string; mockups: string[]; quantities: number[]; prices: Record<'matte' | 'gloss', number[]> }>;
export declare function demoProductStatements(): Array<[string, ...unknown[]]>;
