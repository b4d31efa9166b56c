/**
 * Credentials for the AWS SDK's default chain while a suite runs: the SDK signs every Bedrock call,
 * and the fake upstreams do not check signatures. Returns what puts the environment back.
 */
export const setFakeAwsCredentials = (accessKeyId: string): (() => void) => {
  const environment = {
    AWS_ACCESS_KEY_ID: accessKeyId,
    AWS_SECRET_ACCESS_KEY: `${accessKeyId.toLowerCase()}-secret`,
    AWS_REGION: 'us-east-1',
  };
  const saved = Object.entries(environment).map(([name]) => [name, process.env[name]] as const);
  Object.assign(process.env, environment);
  return () => {
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
};
