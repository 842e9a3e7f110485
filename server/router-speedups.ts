import type { OpenAPIBackend, Operation } from 'openapi-backend';

type Router = OpenAPIBackend['router'];

/**
 * Two costs openapi-backend pays on every request although the spec is fixed after init
 * (measured with `BENCH_PROFILE=1 make bench`); both replacements return what the originals did.
 * They replace three methods of its router on our instance, so package.json pins openapi-backend
 * to one exact version and test/foundation/router-speedups.test.ts compares, for every operation
 * of the spec, what the replaced methods answer with what the library's own answer: an upgrade
 * that changes them fails there, loudly, before it reaches a request.
 */
export function speedUpRouter(api: OpenAPIBackend): void {
  const operations = freezeOperations(api.router);
  skipTemplateParsing(api.router, operations);
}

/** The operation list is rebuilt from the spec (lodash pick, spreads) on each of a request's several lookups. */
function freezeOperations(router: Router): Operation[] {
  const operations = router.getOperations();
  const byId = new Map<string, Operation>(operations.map((operation) => [operation.operationId as string, operation]));
  router.getOperations = () => operations;
  router.getOperation = (operationId: string) => byId.get(operationId);
  return operations;
}

/**
 * Parsing against an operation compiles its path template into a regex each time (three times per
 * request). For an operation with no path parameters and no specially encoded query parameters
 * (JSON content, explode: false) that pass yields exactly what parsing without the operation does:
 * empty params, the same query. The gateway's hot paths are such operations.
 */
function skipTemplateParsing(router: Router, operations: Operation[]): void {
  const plain = new Set(operations.filter(parsesWithoutTemplate));
  const parseRequest = router.parseRequest.bind(router);
  router.parseRequest = (req, operation) => parseRequest(req, operation && plain.has(operation) ? undefined : operation);
}

/** No path parameters and no specially encoded query parameters: parsing needs no template. */
export function parsesWithoutTemplate(operation: Operation): boolean {
  return (
    !operation.path.includes('{') &&
    !(operation.parameters ?? []).some((parameter) => 'in' in parameter && parameter.in === 'query' && (parameter.content !== undefined || parameter.explode === false))
  );
}
