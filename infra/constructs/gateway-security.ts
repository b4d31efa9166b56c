import { Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { AUDIT_RETENTION_VARIABLE } from '../../functions/shared/audit/audit-retention.js';
import { CURSOR_SECRET_ARN_VARIABLE } from '../../functions/shared/secrets/cursor-secret.js';
import {
  ALLOWED_HOSTS_VARIABLE,
  PRIVATE_ADDRESSES_VARIABLE,
} from '../../functions/shared/security/upstream-host-policy.js';
import { stackSetting } from '../stack-settings.js';

export interface GatewaySecurityProps {
  /** Every function of the stack, by endpoint group. */
  readonly functions: Readonly<Record<string, lambda.Function>>;
}

/** The groups that page with signed cursors (the admin API, the console's API). */
const CURSOR_GROUPS = ['admin', 'console'];

/**
 * The stage's security settings, from CDK context (`cdk deploy -c name=value`), and the secret that
 * signs page cursors:
 *
 * - `upstreamAllowedHosts`: a comma-separated allow-list of upstream hosts (names, `*.` suffixes,
 *   addresses, CIDRs); unset, any host the private-address rule lets through.
 * - `upstreamPrivateAddresses` (`deny` by default, or `allow`): whether channels may call loopback,
 *   link-local, private and metadata addresses not in the allow-list.
 * - `auditRetentionDays` (default 365): how long the audit trail keeps a record.
 */
export class GatewaySecurity extends Construct {
  /** The random key that signs the admin API's and the console's page cursors. */
  readonly cursorSecret: secretsmanager.Secret;

  constructor(scope: Construct, id: string, props: GatewaySecurityProps) {
    super(scope, id);
    const environment = securityEnvironment(this);
    for (const handler of Object.values(props.functions)) {
      for (const [name, value] of Object.entries(environment)) handler.addEnvironment(name, value);
    }

    this.cursorSecret = new secretsmanager.Secret(this, 'CursorSecret', {
      description: 'model-gateway: signs the page cursors of the admin API and the console',
      generateSecretString: { passwordLength: 64, excludePunctuation: true },
    });
    Validations.of(this.cursorSecret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'The cursor key only keeps a page cursor from being edited or forged; it guards no data. Rotating it would only invalidate cursors in use, so it is not rotated automatically.',
    });
    for (const group of CURSOR_GROUPS) {
      const handler = props.functions[group];
      if (!handler) continue;
      handler.addEnvironment(CURSOR_SECRET_ARN_VARIABLE, this.cursorSecret.secretArn);
      handler.addToRolePolicy(
        new iam.PolicyStatement({
          actions: ['secretsmanager:GetSecretValue'],
          resources: [this.cursorSecret.secretArn],
        }),
      );
    }
  }
}

/** The functions' environment for the `-c` settings above (parsed and checked in stack-settings.ts). */
export const securityEnvironment = (scope: Construct): Record<string, string> => {
  const allowedHosts = stackSetting(scope.node, 'upstreamAllowedHosts');
  return {
    [PRIVATE_ADDRESSES_VARIABLE]: stackSetting(scope.node, 'upstreamPrivateAddresses'),
    [AUDIT_RETENTION_VARIABLE]: String(stackSetting(scope.node, 'auditRetentionDays')),
    ...(allowedHosts ? { [ALLOWED_HOSTS_VARIABLE]: allowedHosts } : {}),
  };
};
