/**
 * The pipeline language: the task catalogue, validation, conditions and interpolation.
 * Pure modules (no HTTP, storage or Workers APIs) shared by pipeline save, job creation and the
 * ProjectJobs runner. See docs/pipelines.md.
 */
export * from './tasks';
export * from './pipeline';
export * from './validate';
export * from './conditions';
export * from './interpolate';
export * from './secret-places';
export {
  type ArtifactRef,
  type Condition,
  type Operand,
  type PathStep,
  type Reference,
  type Segment,
  ExpressionSyntaxError,
  hasExpression,
  jsonPath,
  parseArtifactRef,
  parseCondition,
  parseReference,
  parseTemplate,
  soleReference,
} from './expressions';
export type { ParseResult, ParamValue } from './parameters';
