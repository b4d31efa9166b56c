import { Stack } from 'aws-cdk-lib';
import type * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as wafv2 from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';

export interface GatewayWafProps {
  readonly api: apigateway.RestApi;
  /** Requests one address may send in five minutes, to any path. */
  readonly rateLimit: number;
  /** Requests one address may send in five minutes to the admin API and the console's sign-in. */
  readonly adminRateLimit: number;
}

/** Metric names of a web ACL's rules must be unique in the account: the stack name keeps stages apart. */
const visibility = (stackName: string, name: string): wafv2.CfnWebACL.VisibilityConfigProperty => ({
  cloudWatchMetricsEnabled: true,
  metricName: `${stackName}-${name}`,
  sampledRequestsEnabled: false,
});

/**
 * `-c waf=true`: a WAF web ACL on the API stage that blocks an address sending more than its share.
 * One rule covers every path with a limit a busy client stays under; a tighter one covers the admin
 * API and the console's sign-in, where a flood means guessed keys or passwords. Blocked requests get
 * API Gateway's WAF_FILTERED response, in the gateway's error envelope. Requests are never sampled:
 * they carry keys and prompts.
 */
export class GatewayWaf extends Construct {
  readonly webAcl: wafv2.CfnWebACL;

  constructor(scope: Construct, id: string, props: GatewayWafProps) {
    super(scope, id);
    const stack = Stack.of(this);
    const pathContains = (text: string): wafv2.CfnWebACL.StatementProperty => ({
      byteMatchStatement: {
        fieldToMatch: { uriPath: {} },
        positionalConstraint: 'CONTAINS',
        searchString: text,
        textTransformations: [{ priority: 0, type: 'NONE' }],
      },
    });
    this.webAcl = new wafv2.CfnWebACL(this, 'WebAcl', {
      description: `model-gateway ${stack.stackName}: per-address rate limits`,
      scope: 'REGIONAL',
      defaultAction: { allow: {} },
      visibilityConfig: visibility(stack.stackName, 'web-acl'),
      rules: [
        {
          name: 'admin-and-sign-in-rate',
          priority: 0,
          action: { block: {} },
          statement: {
            rateBasedStatement: {
              aggregateKeyType: 'IP',
              limit: props.adminRateLimit,
              evaluationWindowSec: 300,
              scopeDownStatement: {
                orStatement: {
                  statements: [
                    pathContains('/admin/v1/'),
                    pathContains('/console/api/session'),
                    pathContains('/console/api/mfa'),
                  ],
                },
              },
            },
          },
          visibilityConfig: visibility(stack.stackName, 'admin-and-sign-in-rate'),
        },
        {
          name: 'address-rate',
          priority: 1,
          action: { block: {} },
          statement: {
            rateBasedStatement: { aggregateKeyType: 'IP', limit: props.rateLimit, evaluationWindowSec: 300 },
          },
          visibilityConfig: visibility(stack.stackName, 'address-rate'),
        },
      ],
    });
    new wafv2.CfnWebACLAssociation(this, 'StageAssociation', {
      webAclArn: this.webAcl.attrArn,
      resourceArn: props.api.deploymentStage.stageArn,
    });
  }
}
