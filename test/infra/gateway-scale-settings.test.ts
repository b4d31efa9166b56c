import { Match, Template } from 'aws-cdk-lib/assertions';
import { synthesizeGatewayStack } from './synthesize.js';

const template = (context: Record<string, unknown> = {}) => Template.fromStack(synthesizeGatewayStack({}, { context }));

/** ReservedConcurrentExecutions of each function, by the group its description names. */
const reservedByGroup = (synthesized: Template) =>
  Object.fromEntries(
    Object.values(synthesized.findResources('AWS::Lambda::Function'))
      .map((resource) => resource.Properties)
      .filter((properties) => String(properties.Description ?? '').startsWith('model-gateway: '))
      .map((properties) => [
        String(properties.Description).replace('model-gateway: ', '').replace(' endpoints', ''),
        properties.ReservedConcurrentExecutions,
      ]),
  );

describe('capacity settings from context', () => {
  test('no function reserves concurrency by default: a new account keeps too few to reserve any', () => {
    const reserved = reservedByGroup(template());
    expect(Object.entries(reserved).filter(([, value]) => value !== undefined)).toEqual([]);
  });

  test('adminReservedConcurrency sets it, and 0 removes it', () => {
    expect(reservedByGroup(template({ adminReservedConcurrency: '10' })).admin).toBe(10);
    expect(reservedByGroup(template({ adminReservedConcurrency: '0' })).admin).toBeUndefined();
  });

  test('without throttle context the stage sets no throttle of its own', () => {
    template().hasResourceProperties('AWS::ApiGateway::Stage', {
      MethodSettings: Match.not(
        Match.arrayWith([Match.objectLike({ ResourcePath: '/*', ThrottlingRateLimit: Match.anyValue() })]),
      ),
    });
  });

  test('throttleRps and throttleBurst throttle every method of the stage', () => {
    template({ throttleRps: '2500', throttleBurst: '5000' }).hasResourceProperties('AWS::ApiGateway::Stage', {
      MethodSettings: Match.arrayWith([
        Match.objectLike({
          HttpMethod: '*',
          ResourcePath: '/*',
          ThrottlingRateLimit: 2500,
          ThrottlingBurstLimit: 5000,
        }),
      ]),
    });
  });

  test.each([
    [{ adminReservedConcurrency: 'many' }, /adminReservedConcurrency/],
    [{ adminReservedConcurrency: '-1' }, /adminReservedConcurrency/],
    [{ throttleRps: '100' }, /go together/],
    [{ adminThrottleBurst: '0' }, /adminThrottleBurst/],
    [{ throttleRps: '100', throttleBurst: '1.5' }, /throttleBurst/],
  ])('refuses %j at synthesis', (context, message) => {
    expect(() => template(context)).toThrow(message);
  });
});
