import type * as z from '../schemas/zod.js';
import { invalidValue, missingRequired, type GatewayError } from '../errors.js';
import type { GatewayMiddyRequest } from './gateway-context.js';
import { sparseObjectParser } from '../schemas/sparse-object.js';

type PathSegment = PropertyKey;

/** `['messages', 0, 'role']` → `messages[0].role`, the form OpenAI uses in `param`. */
export const formatParamPath = (path: readonly PathSegment[]): string =>
  path.reduce<string>((out, segment) => {
    if (typeof segment === 'number') return `${out}[${segment}]`;
    const name = String(segment);
    return out ? `${out}.${name}` : name;
  }, '');

const valueAt = (input: unknown, path: readonly PathSegment[]): unknown => {
  let current = input;
  for (const segment of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[segment];
  }
  return current;
};

type Issue = z.core.$ZodIssue;

/**
 * For a value that matched no branch of a union, the branch that got furthest says best what is
 * wrong (`messages[0].content[0].image_url.detail`, not just `messages[0].content`).
 */
const deepestIssue = (issue: Issue): Issue => {
  if (issue.code !== 'invalid_union' || issue.errors.length === 0) return issue;
  let best: Issue = issue;
  for (const branch of issue.errors) {
    for (const inner of branch) {
      const candidate = deepestIssue({ ...inner, path: [...issue.path, ...inner.path] } as Issue);
      if (candidate.path.length > best.path.length) best = candidate;
    }
  }
  return best;
};

/** The first issue of a failed parse, as the 400 the client gets. */
export const validationError = (error: z.core.$ZodError, input: unknown): GatewayError => {
  const issue = deepestIssue(error.issues[0]!);
  if (issue.code === 'unrecognized_keys') {
    const param = formatParamPath([...issue.path, issue.keys[0]!]);
    return invalidValue(`Unrecognized request argument supplied: ${param}`, param);
  }
  const param = formatParamPath(issue.path) || null;
  if (issue.code === 'invalid_type' && issue.path.length > 0 && valueAt(input, issue.path) === undefined) {
    return missingRequired(`Missing required parameter: '${param}'.`, param);
  }
  const where = param ? `'${param}'` : 'the request body';
  return invalidValue(`Invalid value for ${where}: ${issue.message}`, param);
};

/**
 * Validates the parsed body against a zod schema, built on the first request that needs it
 * (`lazySchema`), and replaces the body with the parsed (defaulted) value. An object body is parsed
 * with the members it holds (`sparseObjectParser`).
 */
export const validateBody = (schema: () => z.ZodMiniType) => {
  let parse: ((input: unknown) => ReturnType<z.ZodMiniType['safeParse']>) | undefined;
  const validateBodyBefore = (request: GatewayMiddyRequest): void => {
    const state = request.context.gateway;
    parse ??= sparseObjectParser(schema());
    const result = parse(state.body ?? {});
    if (!result.success) throw validationError(result.error, state.body);
    state.body = result.data;
  };
  return { before: validateBodyBefore };
};
