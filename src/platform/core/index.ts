/**
 * The shared core of the platform areas (src/platform/<area>/): written once, used by all.
 *
 * - area.ts     createPlatformArea(area), buildPlatformApp(areas)
 * - route.ts    platformRoute(spec, access): auth, tenantId, names, body limit, owner rule, 400s
 * - access.ts   Access ({type, level} | 'public' | 'anyToken'), effectiveOwner, requireOwnerAccess
 * - tenancy.ts  TenantContext (c.var.tenant), tenantKey(t, …) → `p/<t>/…`
 * - errors.ts   NotFoundError, ConflictError, ValidationError, ForbiddenError, …
 * - problem.ts  problem details (the one mapping), problemResponses(…) for docs
 * - paging.ts   pagingQuery(sortable), pagedOf(Dto, name), paged(total, items), …Query helpers
 * - names.ts    case-insensitive names and enum values on input
 * - ids.ts      newId(), hexIdOr404, clientIdOr404, intIdOr404
 * - d1.ts       inJsonList, customFieldsMatch, guardIds + runGuarded (atomic batches)
 * - body.ts     the one request-body reader (2 MB, depth 64, drained when refused), settleBody
 * - stored-json.ts storedJson / checkStoredJson: stored JSON ≤ 32 deep, bounded in size
 */
export { createPlatformArea, buildPlatformApp, AREA_TITLES, type PlatformArea } from './area';
export { platformRoute, tenantOf, ROUTE_ACCESS } from './route';
export { effectiveOwner, requireOwnerAccess, storefrontUserOf, OWNER_PARAMETERS, scopeOf, type Access, type ScopeLevel } from './access';
export { tenantKey, tenantKeyPrefix, baseUrlOf, type TenantContext, type PlatformBindings, type PlatformVariables } from './tenancy';
export {
  PlatformError,
  NotFoundError,
  ConflictError,
  ValidationError,
  ForbiddenError,
  UnprocessableError,
  PayloadTooLargeError,
  UnsupportedMediaTypeError,
  NotImplementedError,
  CONFLICT_TYPES,
  type ConflictType,
  type ErrorsByPath,
} from './errors';
export { problemResponses, problemResponse, platformErrorResponse, ProblemDetails, ConflictDto, jsonPath } from './problem';
export { pagingQuery, pagedOf, paged, intQuery, boolQuery, arrayQuery, sortingQuery, customFieldsQuery, likePattern, searchQuery, MAX_TAKE, MAX_SEARCH, type Paging, type SortKey } from './paging';
export { newId, isHexId, isClientId, hexIdOr404, clientIdOr404, intIdOr404 } from './ids';
export { inJsonList, customFieldsMatch, guardIds, runGuarded, missingIds, type GuardSpec } from './d1';
export { readBodyLimited, readJsonBody, MAX_JSON_BYTES, MAX_BODY_DEPTH } from './body';
export { storedJson, checkStoredJson } from './stored-json';
export { PLATFORM_AREAS, PLATFORM_PATH, PlatformRouteTable, platformAreaOf, type PlatformAreaName } from './paths';
export { DESIGN_ATOMS_MODEL_VERSION } from './info';
