import { Template } from 'aws-cdk-lib/assertions';
import { synthesizeGatewayStack } from './synthesize.js';

/**
 * The stage's security settings from context: the upstream host policy and the audit retention reach
 * every function, and the admin and console functions sign cursors with a secret the stack creates.
 */

const stackWith = (context: Record<string, unknown> = {}) => synthesizeGatewayStack({}, { context });

const environmentOf = (stack: ReturnType<typeof stackWith>, group: string): Record<string, unknown> => {
  const template = Template.fromStack(stack).toJSON() as { Resources: Record<string, any> };
  const logicalId = stack.getLogicalId(stack.functions.functionFor(group).node.defaultChild as never);
  return template.Resources[logicalId].Properties.Environment.Variables as Record<string, unknown>;
};

describe('security settings from context', () => {
  const stack = stackWith();

  it.each(['admin', 'chat', 'embeddings', 'console'])(
    'refuses private upstream addresses in the %s function by default',
    (group) => {
      expect(environmentOf(stack, group)).toMatchObject({
        GATEWAY_UPSTREAM_PRIVATE_ADDRESSES: 'deny',
        GATEWAY_AUDIT_RETENTION_DAYS: '365',
      });
      expect(environmentOf(stack, group)).not.toHaveProperty('GATEWAY_UPSTREAM_ALLOWED_HOSTS');
    },
  );

  it('passes the allow-list, the private-address rule and the retention on', () => {
    const configured = stackWith({
      upstreamAllowedHosts: 'api.openai.com,*.openai.azure.com,10.20.0.0/16',
      upstreamPrivateAddresses: 'allow',
      auditRetentionDays: 730,
    });

    expect(environmentOf(configured, 'chat')).toMatchObject({
      GATEWAY_UPSTREAM_ALLOWED_HOSTS: 'api.openai.com,*.openai.azure.com,10.20.0.0/16',
      GATEWAY_UPSTREAM_PRIVATE_ADDRESSES: 'allow',
      GATEWAY_AUDIT_RETENTION_DAYS: '730',
    });
  });

  it.each([
    [{ upstreamPrivateAddresses: 'sometimes' }, /upstreamPrivateAddresses/],
    [{ auditRetentionDays: 0 }, /auditRetentionDays/],
    [{ auditRetentionDays: 'a year' }, /auditRetentionDays/],
  ])('refuses %j at synthesis', (context, message) => {
    expect(() => stackWith(context)).toThrow(message);
  });

  it('creates a random cursor secret and gives its ARN to the admin and console functions only', () => {
    const template = Template.fromStack(stack);
    const secretId = stack.getLogicalId(stack.security.cursorSecret.node.defaultChild as never);

    template.hasResourceProperties('AWS::SecretsManager::Secret', {
      GenerateSecretString: { PasswordLength: 64, ExcludePunctuation: true },
    });
    for (const group of ['admin', 'console'])
      expect(environmentOf(stack, group).GATEWAY_CURSOR_SECRET_ARN).toEqual({ Ref: secretId });
    for (const group of ['chat', 'models', 'fallback'])
      expect(environmentOf(stack, group)).not.toHaveProperty('GATEWAY_CURSOR_SECRET_ARN');
  });
});
