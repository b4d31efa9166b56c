import {
  accessKeysOf,
  constantly,
  functionCredentials,
  type CredentialsProvider,
} from '../aws/function-credentials.js';

/**
 * Whether the store's endpoint and credentials can be read from the environment alone, and what they
 * are. Two cases can: an endpoint named by `DYNAMODB_ENDPOINT` (the local runtime's embedded or
 * configured engine, the tests), and a Lambda function in a commercial region, which has its role's
 * credentials in its environment or at its credentials endpoint (`aws/function-credentials.ts`) and
 * reaches DynamoDB at `dynamodb.<region>.amazonaws.com`. Anything that could make the SDK resolve
 * differently (FIPS or dual-stack endpoints, an endpoint URL set for the SDK, another partition,
 * credentials Lambda does not give) answers undefined, and the SDK resolves it (`connection.ts`).
 */

export interface StoreTarget {
  readonly url: URL;
  readonly region: string;
  readonly credentials: CredentialsProvider;
}

type Environment = Readonly<Record<string, string | undefined>>;

/** The commercial partition's region names (`eu-west-1`, `ap-southeast-2`, …): not GovCloud, China or ISO. */
const COMMERCIAL_REGION = /^(?:us|eu|ap|sa|ca|me|af|il|mx)-[a-z]+-\d+$/;

/** Settings with which the SDK would pick another endpoint than the region's plain one. */
const ENDPOINT_SETTINGS = ['AWS_ENDPOINT_URL', 'AWS_ENDPOINT_URL_DYNAMODB'];
const ENDPOINT_FLAGS = ['AWS_USE_FIPS_ENDPOINT', 'AWS_USE_DUALSTACK_ENDPOINT'];

/** The embedded engine accepts any credentials. */
const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };

/** The store's endpoint and credentials from `environment`, or undefined when the SDK must resolve them. */
export const directStoreTarget = (environment: Environment): StoreTarget | undefined => {
  const custom = environment.DYNAMODB_ENDPOINT;
  if (custom) {
    return {
      url: new URL(custom),
      region: environment.AWS_REGION || 'us-east-1',
      // The environment's keys if it has them (a real table behind the endpoint); else any will do.
      credentials: constantly(accessKeysOf(environment) ?? LOCAL_CREDENTIALS),
    };
  }
  // Outside Lambda a shared config file or a profile may say otherwise: the SDK reads them.
  if (!environment.AWS_LAMBDA_FUNCTION_NAME) return undefined;
  if (ENDPOINT_SETTINGS.some((name) => environment[name])) return undefined;
  if (ENDPOINT_FLAGS.some((name) => environment[name]?.toLowerCase() === 'true')) return undefined;
  const region = environment.AWS_REGION;
  const credentials = functionCredentials(environment);
  if (!region || !COMMERCIAL_REGION.test(region) || !credentials) return undefined;
  return { url: new URL(`https://dynamodb.${region}.amazonaws.com/`), region, credentials };
};
