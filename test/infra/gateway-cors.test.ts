import { Template } from 'aws-cdk-lib/assertions';
import { synthesizeGatewayStack } from './synthesize.js';

const ORIGINS = 'https://app.example,https://admin.example';

const templateWith = (context: Record<string, unknown> = {}) =>
  Template.fromStack(synthesizeGatewayStack({}, { context }));

describe('CORS for browser clients', () => {
  it('is off by default: no preflight method and no origin list on any function', () => {
    const template = templateWith();

    expect(
      Object.keys(template.findResources('AWS::ApiGateway::Method', { Properties: { HttpMethod: 'OPTIONS' } })),
    ).toEqual([]);
    for (const fn of Object.values(template.findResources('AWS::Lambda::Function'))) {
      expect(fn.Properties.Environment?.Variables?.GATEWAY_CORS_ORIGINS).toBeUndefined();
    }
  });

  it('with -c corsOrigins, answers preflights in API Gateway and tells every function the origins', () => {
    const template = templateWith({ corsOrigins: ORIGINS });

    const preflights = Object.values(
      template.findResources('AWS::ApiGateway::Method', { Properties: { HttpMethod: 'OPTIONS' } }),
    );
    expect(preflights.length).toBeGreaterThan(10);
    for (const method of preflights) {
      expect(method.Properties.Integration.Type).toBe('MOCK');
      expect(method.Properties.AuthorizationType).toBe('NONE');
    }
    const answer = JSON.stringify(preflights[0]!.Properties.Integration.IntegrationResponses);
    expect(answer).toContain('https://app.example');
    expect(answer).toContain('authorization');
    // The endpoint functions: the usage writer answers no browser.
    const functions = Object.values(template.findResources('AWS::Lambda::Function')).filter((fn) =>
      / endpoints$/.test(String(fn.Properties.Description)),
    );
    expect(functions.length).toBeGreaterThan(0);
    for (const fn of functions) expect(fn.Properties.Environment.Variables.GATEWAY_CORS_ORIGINS).toBe(ORIGINS);
  });
});
