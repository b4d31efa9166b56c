import { readFile } from 'node:fs/promises';
import { parse as parseYaml, YAMLParseError } from 'yaml';
import type * as z from '../schemas/zod.js';
import { formatParamPath } from '../middleware/validate-body.js';
import { resolvePlaceholders, UnsetPlaceholderError } from './config-placeholders.js';
import { GatewayConfigError, gatewayConfigSchema, type GatewayConfig } from './gateway-config-schema.js';
import { parseJson } from '../http/parse-json.js';

/**
 * The declarative configuration file (`GATEWAY_CONFIG`, DESIGN §3.1) as text: JSON or YAML, read and
 * validated against the schema in `gateway-config-schema.ts`. Needs the `yaml` package, so only the
 * local runtime and the CLI import this module; Lambda bundles import the schema module instead.
 */

export {
  deriveAccountId,
  GatewayConfigError,
  gatewayConfigSchema,
  type ConfigAccount,
  type GatewayConfig,
} from './gateway-config-schema.js';

type ConfigFormat = 'json' | 'yaml';

const detectFormat = (text: string, fileName: string): ConfigFormat => {
  if (/\.json$/i.test(fileName)) return 'json';
  if (/\.ya?ml$/i.test(fileName)) return 'yaml';
  return text.trimStart().startsWith('{') ? 'json' : 'yaml';
};

const lineAndColumn = (text: string, position: number): string => {
  const before = text.slice(0, position).split('\n');
  return `line ${before.length}, column ${before.at(-1)!.length + 1}`;
};

/**
 * V8's message without what it quotes of the source (`Unexpected token 's', "{"apiKey": sk-…" is not
 * valid JSON`): that may be a secret.
 */
const describeJsonError = (text: string, message: string): string => {
  const position = /at position (\d+)/.exec(message);
  const problem = message
    .replace(/,?\s*(\.\.\.)?"[\s\S]*"(\.\.\.)? is not valid JSON$/, '')
    .replace(/\s*(in JSON )?at position[\s\S]*$/, '');
  const what = problem && !problem.includes('"') ? ` (${problem})` : '';
  return `not valid JSON${what}${position ? ` at ${lineAndColumn(text, Number(position[1]))}` : ''}`;
};

/** Reads the document; a syntax error becomes a message with a position and no quoted source. */
const readDocument = (text: string, format: ConfigFormat, fileName: string): unknown => {
  try {
    // Without pretty errors, YAML's messages do not quote the source either.
    return format === 'json' ? parseJson(text) : parseYaml(text, { prettyErrors: false });
  } catch (error) {
    if (error instanceof YAMLParseError) {
      const where = lineAndColumn(text, error.pos[0]);
      throw new GatewayConfigError(`${fileName}: not valid YAML (${error.message}) at ${where}`);
    }
    throw new GatewayConfigError(`${fileName}: ${describeJsonError(text, (error as Error).message)}`);
  }
};

const describeIssues = (error: z.core.$ZodError): string =>
  error.issues
    .slice(0, 10)
    .map((issue) => {
      const path = issue.code === 'unrecognized_keys' ? [...issue.path, issue.keys[0]!] : issue.path;
      const message = issue.code === 'unrecognized_keys' ? 'unknown field' : issue.message;
      return `${formatParamPath(path) || '(top level)'}: ${message}`;
    })
    .join('; ');

/**
 * Parses and validates a config file's text, with its `${NAME}` placeholders resolved from
 * `environment`: the file is the operator's, read on the operator's side (`gatewayctl apply`, or
 * `GATEWAY_CONFIG` at start), so their environment is the one to read. `fileName` picks the format (by
 * extension, else by content) and names the file in errors.
 */
export const parseGatewayConfig = (
  text: string,
  fileName = 'gateway config',
  environment: Readonly<Record<string, string | undefined>> = process.env,
): GatewayConfig => {
  let document: unknown;
  try {
    document = resolvePlaceholders(readDocument(text, detectFormat(text, fileName), fileName), environment);
  } catch (error) {
    if (error instanceof UnsetPlaceholderError) throw new GatewayConfigError(`${fileName}: ${error.message}`);
    throw error;
  }
  // An empty file declares nothing.
  const result = gatewayConfigSchema().safeParse(document ?? {});
  if (!result.success) throw new GatewayConfigError(`${fileName}: ${describeIssues(result.error)}`);
  return result.data;
};

/** Reads, parses and validates the config file at `path`. */
export const loadGatewayConfigFile = async (path: string): Promise<GatewayConfig> => {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? 'error';
    throw new GatewayConfigError(`${path}: cannot read the config file (${reason})`);
  }
  return parseGatewayConfig(text, path);
};
