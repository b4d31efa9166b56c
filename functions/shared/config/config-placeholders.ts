import { formatParamPath } from '../middleware/validate-body.js';

/**
 * `${NAME}` placeholders in a config document. They are the operator's convenience: a file can be
 * committed without its secrets, which come from the environment of whoever applies it. So they are
 * resolved only on the operator's side (`gatewayctl apply`, and `GATEWAY_CONFIG` read at start), and a
 * document that reaches the admin API still holding one is refused: resolving it there would let any
 * admin key holder read the function's own environment (its AWS credentials among them).
 */

const PLACEHOLDER = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

type PathSegment = string | number;

/**
 * Where a value sits, as a chain to its parent: each step costs one small object however deep the
 * document, and the full path is spelled out only for the one field an answer names.
 */
interface Location {
  readonly parent: Location | undefined;
  readonly segment: PathSegment;
}

const child = (parent: Location | undefined, segment: PathSegment): Location => ({ parent, segment });

const paramOf = (location: Location | undefined): string => {
  const path: PathSegment[] = [];
  for (let step = location; step; step = step.parent) path.push(step.segment);
  return formatParamPath(path.reverse());
};

/** A placeholder found in a document: the field path (`channels[0].apiKey`) and the variable name. */
export interface FoundPlaceholder {
  readonly param: string;
  readonly name: string;
}

/** A placeholder whose variable is not set where the document is resolved. */
export class UnsetPlaceholderError extends Error {
  constructor(
    readonly param: string,
    readonly variable: string,
  ) {
    super(`${param || '(top level)'}: the environment variable ${variable} is not set`);
    this.name = 'UnsetPlaceholderError';
  }
}

const firstName = (text: string): string | undefined => {
  PLACEHOLDER.lastIndex = 0;
  return PLACEHOLDER.exec(text)?.[1];
};

/**
 * The first placeholder anywhere in a JSON document, in a value or in a field name; `undefined` when
 * there is none. The walk keeps its own stack, so a document nested thousands of levels deep is read
 * like any other.
 */
export const findPlaceholder = (document: unknown): FoundPlaceholder | undefined => {
  const pending: Array<{ value: unknown; location: Location | undefined }> = [{ value: document, location: undefined }];
  while (pending.length > 0) {
    const { value, location } = pending.pop()!;
    if (typeof value === 'string') {
      const name = firstName(value);
      if (name !== undefined) return { param: paramOf(location), name };
    } else if (Array.isArray(value)) {
      for (let index = value.length - 1; index >= 0; index--)
        pending.push({ value: value[index], location: child(location, index) });
    } else if (value !== null && typeof value === 'object') {
      const entries = Object.entries(value);
      for (let index = entries.length - 1; index >= 0; index--) {
        const [field, item] = entries[index]!;
        const name = firstName(field);
        if (name !== undefined) return { param: paramOf(child(location, field)), name };
        pending.push({ value: item, location: child(location, field) });
      }
    }
  }
  return undefined;
};

/**
 * The document with every `${NAME}` in its string values replaced by that variable of `environment`
 * (a whole value, or part of one: `https://${HOST}/v1`). A variable that is not set (or empty) is an
 * UnsetPlaceholderError naming the field, never a silent empty string.
 */
export const resolvePlaceholders = (
  document: unknown,
  environment: Readonly<Record<string, string | undefined>>,
): unknown => {
  const resolveString = (text: string, location: Location | undefined): string =>
    text.replace(PLACEHOLDER, (_match, name: string) => {
      const value = environment[name];
      if (!value) throw new UnsetPlaceholderError(paramOf(location), name);
      return value;
    });

  const root: { value: unknown } = { value: document };
  // Each task copies one container and schedules its children, so depth costs no call stack.
  const pending: Array<{ value: unknown; location: Location | undefined; assign: (value: unknown) => void }> = [
    { value: document, location: undefined, assign: (value) => (root.value = value) },
  ];
  while (pending.length > 0) {
    const { value, location, assign } = pending.pop()!;
    if (typeof value === 'string') {
      assign(resolveString(value, location));
    } else if (Array.isArray(value)) {
      const copy: unknown[] = new Array(value.length);
      assign(copy);
      value.forEach((item, index) =>
        pending.push({ value: item, location: child(location, index), assign: (resolved) => (copy[index] = resolved) }),
      );
    } else if (value !== null && typeof value === 'object') {
      const copy: Record<string, unknown> = Object.create(null);
      assign(copy);
      for (const [field, item] of Object.entries(value)) {
        pending.push({ value: item, location: child(location, field), assign: (resolved) => (copy[field] = resolved) });
      }
    } else {
      assign(value);
    }
  }
  return root.value;
};
