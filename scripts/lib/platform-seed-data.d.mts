// Types of platform-seed-data.mjs for the TypeScript test helpers.
export declare const DEMO_PIPELINE: string;
export declare const DEMO_WORKFLOW: string;
export declare function platformSeedStatements(args: { demo2SecretHash: string; allFull: string }): Array<[string, ...unknown[]]>;
