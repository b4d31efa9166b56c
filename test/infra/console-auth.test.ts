import type { CfnElement } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import type { ModelGatewayStack } from '../../infra/gateway-stack.js';
import { synthesizeGatewayStack } from './synthesize.js';

let stack: ModelGatewayStack;
let template: Template;

const logicalId = (construct: { node: { defaultChild?: unknown } }) =>
  stack.getLogicalId(construct.node.defaultChild as CfnElement);

beforeAll(() => {
  stack = synthesizeGatewayStack();
  template = Template.fromStack(stack);
});

describe('the console in the stack', () => {
  it('has a user pool that only operators add people to, signing in by e-mail with a strong password', () => {
    template.resourceCountIs('AWS::Cognito::UserPool', 1);
    template.hasResourceProperties('AWS::Cognito::UserPool', {
      AdminCreateUserConfig: { AllowAdminCreateUserOnly: true },
      UsernameAttributes: ['email'],
      Policies: { PasswordPolicy: Match.objectLike({ MinimumLength: 12, RequireSymbols: true }) },
      DeletionProtection: 'ACTIVE',
    });
    template.hasResource('AWS::Cognito::UserPool', { DeletionPolicy: 'Retain' });
  });

  it('has one public app client with password sign-in and short-lived ID tokens', () => {
    template.resourceCountIs('AWS::Cognito::UserPoolClient', 1);
    template.hasResourceProperties('AWS::Cognito::UserPoolClient', {
      GenerateSecret: false,
      PreventUserExistenceErrors: 'ENABLED',
      ExplicitAuthFlows: Match.arrayWith(['ALLOW_USER_PASSWORD_AUTH']),
      IdTokenValidity: 60,
    });
  });

  it('tells the console and admin functions, and no other, which pool and client to trust', () => {
    const pool = { Ref: logicalId(stack.consoleAuth.userPool) };
    const client = { Ref: logicalId(stack.consoleAuth.client) };
    for (const [group, handler] of Object.entries(stack.functions.functions)) {
      const variables = template.toJSON().Resources[logicalId(handler)].Properties.Environment.Variables;
      if (group === 'console' || group === 'admin') {
        expect(variables.GATEWAY_CONSOLE_USER_POOL_ID).toEqual(pool);
        expect(variables.GATEWAY_CONSOLE_CLIENT_ID).toEqual(client);
      } else {
        expect(variables.GATEWAY_CONSOLE_USER_POOL_ID).toBeUndefined();
      }
      // Local sign-in is for `npm start` only.
      expect(variables.GATEWAY_CONSOLE_AUTH).toBeUndefined();
    }
  });

  it('serves the page and its API through the gateway API, with the console function behind them', () => {
    const consoleFunction = logicalId(stack.functions.functionFor('console'));
    const resources = template.toJSON().Resources as Record<
      string,
      { Type: string; Properties: Record<string, unknown> }
    >;
    const paths = Object.values(resources)
      .filter((resource) => resource.Type === 'AWS::ApiGateway::Resource')
      .map((resource) => resource.Properties.PathPart);
    expect(paths).toEqual(expect.arrayContaining(['console', '{asset}', 'api', 'session', 'keys', 'usage', 'members']));
    const methodsOnConsole = Object.values(resources).filter(
      (resource) =>
        resource.Type === 'AWS::ApiGateway::Method' &&
        JSON.stringify(resource.Properties.Integration ?? {}).includes(consoleFunction),
    );
    expect(methodsOnConsole.length).toBeGreaterThanOrEqual(11);
  });
});
