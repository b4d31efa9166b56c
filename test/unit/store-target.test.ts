import { directStoreTarget } from '../../functions/shared/store/store-target.js';

const credentials = { AWS_ACCESS_KEY_ID: 'AKIDTARGET', AWS_SECRET_ACCESS_KEY: 'target-secret' };
const lambda = { AWS_LAMBDA_FUNCTION_NAME: 'model-gateway-chat', AWS_REGION: 'eu-west-1', ...credentials };

describe('where the store is, from the environment alone', () => {
  test('a named endpoint is used as it is, with the local engine’s credentials when none are set', async () => {
    const target = directStoreTarget({ DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000' });
    expect(target?.url.href).toBe('http://127.0.0.1:8000/');
    expect(target?.region).toBe('us-east-1');
    expect(await target?.credentials()).toEqual({ accessKeyId: 'local', secretAccessKey: 'local' });
  });

  test('a named endpoint is signed with the environment’s credentials and region when they are set', async () => {
    const target = directStoreTarget({
      DYNAMODB_ENDPOINT: 'http://store.internal:8000',
      AWS_REGION: 'eu-west-1',
      ...credentials,
      AWS_SESSION_TOKEN: 'token',
    });
    expect(target?.region).toBe('eu-west-1');
    expect(await target?.credentials()).toEqual({
      accessKeyId: 'AKIDTARGET',
      secretAccessKey: 'target-secret',
      sessionToken: 'token',
    });
  });

  test.each(['us-east-1', 'eu-central-2', 'ap-southeast-5', 'ca-west-1', 'il-central-1', 'mx-central-1', 'me-south-1'])(
    'a Lambda function in %s goes to its region’s endpoint',
    async (region) => {
      const target = directStoreTarget({ ...lambda, AWS_REGION: region });
      expect(target?.url.href).toBe(`https://dynamodb.${region}.amazonaws.com/`);
      expect(target?.region).toBe(region);
      expect(await target?.credentials()).toEqual({ accessKeyId: 'AKIDTARGET', secretAccessKey: 'target-secret' });
    },
  );

  test.each([
    ['outside Lambda, where a profile or config file may decide', { ...lambda, AWS_LAMBDA_FUNCTION_NAME: undefined }],
    [
      'without credentials in the environment or a credentials endpoint',
      { ...lambda, AWS_SECRET_ACCESS_KEY: undefined },
    ],
    ['without a region', { ...lambda, AWS_REGION: undefined }],
    ['in GovCloud', { ...lambda, AWS_REGION: 'us-gov-west-1' }],
    ['in China', { ...lambda, AWS_REGION: 'cn-north-1' }],
    ['in an ISO partition', { ...lambda, AWS_REGION: 'us-iso-east-1' }],
    ['with FIPS endpoints asked for', { ...lambda, AWS_USE_FIPS_ENDPOINT: 'TRUE' }],
    ['with dual-stack endpoints asked for', { ...lambda, AWS_USE_DUALSTACK_ENDPOINT: 'true' }],
    ['with an endpoint URL for DynamoDB', { ...lambda, AWS_ENDPOINT_URL_DYNAMODB: 'https://vpce.example' }],
    ['with an endpoint URL for every service', { ...lambda, AWS_ENDPOINT_URL: 'https://proxy.example' }],
    ['with a region name that is not one', { ...lambda, AWS_REGION: 'eu-west-1.evil.example' }],
  ])('is left to the SDK %s', (_, environment) => {
    expect(directStoreTarget(environment)).toBeUndefined();
  });

  test('a Lambda function whose credentials are at its credentials endpoint signs with those', () => {
    const target = directStoreTarget({
      AWS_LAMBDA_FUNCTION_NAME: 'model-gateway-chat',
      AWS_REGION: 'eu-west-1',
      AWS_CONTAINER_CREDENTIALS_FULL_URI: 'http://127.0.0.1:9001/2018-06-01/credentials',
      AWS_CONTAINER_AUTHORIZATION_TOKEN: 'token',
    });
    expect(target?.url.href).toBe('https://dynamodb.eu-west-1.amazonaws.com/');
    expect(target?.credentials).toEqual(expect.any(Function));
  });

  test('FIPS or dual-stack turned off explicitly changes nothing', () => {
    const target = directStoreTarget({
      ...lambda,
      AWS_USE_FIPS_ENDPOINT: 'false',
      AWS_USE_DUALSTACK_ENDPOINT: 'false',
    });
    expect(target?.url.href).toBe('https://dynamodb.eu-west-1.amazonaws.com/');
  });
});
