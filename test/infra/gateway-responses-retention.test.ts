import { Template } from 'aws-cdk-lib/assertions';
import { synthesizeGatewayStack } from './synthesize.js';

const templateWith = (context: Record<string, unknown> = {}) =>
  Template.fromStack(synthesizeGatewayStack({}, { context }));

/** The endpoint functions' retention: the usage writer keeps no Responses. */
const retentionOfFunctions = (template: Template) =>
  Object.values(template.findResources('AWS::Lambda::Function'))
    .filter((fn) => / endpoints$/.test(String(fn.Properties.Description)))
    .map((fn) => fn.Properties.Environment?.Variables?.GATEWAY_RESPONSES_RETENTION_DAYS);

describe('stored Responses', () => {
  it('live in an encrypted table whose items expire by TTL on expiresAt, keyed by partition and part', () => {
    const template = templateWith();

    template.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      KeySchema: [
        { AttributeName: 'id', KeyType: 'HASH' },
        { AttributeName: 'part', KeyType: 'RANGE' },
      ],
      TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
      SSESpecification: { SSEEnabled: true },
    });
  });

  it('are kept for the functions default (30 days) unless -c responsesRetentionDays says otherwise', () => {
    expect(new Set(retentionOfFunctions(templateWith()))).toEqual(new Set([undefined]));

    const retentions = retentionOfFunctions(templateWith({ responsesRetentionDays: '7' }));

    expect(retentions.length).toBeGreaterThan(0);
    expect(new Set(retentions)).toEqual(new Set(['7']));
    expect(new Set(retentionOfFunctions(templateWith({ responsesRetentionDays: 0 })))).toEqual(new Set(['0']));
  });

  it.each(['-1', '2.5', 'week', '4000'])('refuse -c responsesRetentionDays=%s at synthesis', (value) => {
    expect(() => templateWith({ responsesRetentionDays: value })).toThrow(/responsesRetentionDays/);
  });
});
