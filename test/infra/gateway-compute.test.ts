import { Template } from 'aws-cdk-lib/assertions';
import { synthesizeGatewayStack } from './synthesize.js';

const template = (context: Record<string, unknown> = {}) => Template.fromStack(synthesizeGatewayStack({}, { context }));

/** Each gateway function's properties, by the group its description names. */
const functionsByGroup = (synthesized: Template) =>
  Object.fromEntries(
    Object.values(synthesized.findResources('AWS::Lambda::Function'))
      .map((resource) => resource.Properties)
      .filter((properties) => String(properties.Description ?? '').startsWith('model-gateway: '))
      .map((properties) => [
        String(properties.Description).replace('model-gateway: ', '').replace(' endpoints', ''),
        properties,
      ]),
  );

const RELAYING = ['audio', 'chat', 'embeddings', 'images'];

describe('-c compute', () => {
  test('by default every function runs on Lambda, with no capacity provider and no VPC', () => {
    const synthesized = template();
    synthesized.resourceCountIs('AWS::Lambda::CapacityProvider', 0);
    synthesized.resourceCountIs('AWS::EC2::VPC', 0);
    for (const properties of Object.values(functionsByGroup(synthesized)))
      expect(properties.CapacityProviderConfig).toBeUndefined();
  });

  test('managed-instances puts the relaying functions, and only those, on one capacity provider', () => {
    const synthesized = template({ compute: 'managed-instances' });
    const providers = synthesized.findResources('AWS::Lambda::CapacityProvider');
    expect(Object.keys(providers)).toHaveLength(1);
    const [providerId] = Object.keys(providers);
    const functions = functionsByGroup(synthesized);
    const onProvider = Object.entries(functions)
      .filter(([, properties]) => properties.CapacityProviderConfig !== undefined)
      .map(([group]) => group)
      .sort();
    expect(onProvider).toEqual(RELAYING);
    for (const group of RELAYING) {
      const config = functions[group].CapacityProviderConfig.LambdaManagedInstancesCapacityProviderConfig;
      expect(config.CapacityProviderArn).toEqual({ 'Fn::GetAtt': [providerId, 'Arn'] });
      expect(config.PerExecutionEnvironmentMaxConcurrency).toBeGreaterThan(1);
      expect(functions[group].MemorySize).toBeGreaterThanOrEqual(2048);
    }
  });

  test('the capacity provider runs in private subnets with outbound access only', () => {
    const synthesized = template({ compute: 'managed-instances' });
    synthesized.resourceCountIs('AWS::EC2::NatGateway', 1);
    const [provider] = Object.values(synthesized.findResources('AWS::Lambda::CapacityProvider'));
    expect(provider!.Properties.VpcConfig.SubnetIds).toHaveLength(2);
    const groups = Object.values(synthesized.findResources('AWS::EC2::SecurityGroup'));
    expect(groups.flatMap((group) => group.Properties.SecurityGroupIngress ?? [])).toEqual([]);
  });

  test('an unknown compute kind fails the synthesis with the accepted values', () => {
    expect(() => template({ compute: 'fargate' })).toThrow(/'lambda'.*'managed-instances'/);
  });
});
