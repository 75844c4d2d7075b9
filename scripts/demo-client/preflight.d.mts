// Types of preflight.mjs for the tests that import it.
export interface ShopProblem {
  layer: string;
  code: string;
  severity: 'error' | 'warning';
  message: string;
  details?: Record<string, unknown>;
}
export interface ShopReport {
  ok: boolean;
  problems: ShopProblem[];
}
export interface TemplateVariable {
  name: string;
  lines: string[];
  labels?: string[];
}
export declare function cardRequest(template: string, values: Record<string, string>, images?: Record<string, string>): { template: string; format: 'jpg'; size: { width: number; height: number }; data: Record<string, { type: 'text'; text: string } | { type: 'image'; image: string; resizeMode: 'fill' }> };
export declare function shopperMessage(problem: ShopProblem, variable?: TemplateVariable, typed?: string): string;
export declare function shopperProblems(report: ShopReport | null | undefined, variables: TemplateVariable[], typed?: Record<string, string>): Array<{ severity: 'error' | 'warning'; text: string; field: string | null; line: number | null }>;
export declare function orderVerdict(report: ShopReport | null | undefined, options?: { allowErrors?: boolean }): 'ok' | 'confirm' | 'block';
export declare function preflightCounts(header: string | null | undefined): { errors: number; warnings: number } | null;
