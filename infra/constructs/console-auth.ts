import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import * as cognito from 'aws-cdk-lib/aws-cognito';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';

export interface ConsoleAuthProps {
  /** The functions that read console sessions: they learn the pool and the app client. */
  readonly functions: readonly lambda.Function[];
}

/**
 * Who may sign in to the console: a Cognito user pool (e-mail and password; a team's own identity
 * provider can be added to it as a federated provider) and one public app client. The pool says who
 * someone is; the members table says which account they belong to and with which role. A user pool
 * bills by monthly active user, so an idle console costs nothing.
 */
export class ConsoleAuth extends Construct {
  readonly userPool: cognito.UserPool;
  readonly client: cognito.UserPoolClient;

  constructor(scope: Construct, id: string, props: ConsoleAuthProps) {
    super(scope, id);
    this.userPool = new cognito.UserPool(this, 'Users', {
      // Operators invite people; nobody signs themselves up to a company's gateway.
      selfSignUpEnabled: false,
      signInAliases: { email: true },
      autoVerify: { email: true },
      standardAttributes: { email: { required: true, mutable: true } },
      passwordPolicy: {
        minLength: 12,
        requireLowercase: true,
        requireUppercase: true,
        requireDigits: true,
        requireSymbols: true,
        tempPasswordValidity: Duration.days(3),
      },
      mfa: cognito.Mfa.OPTIONAL,
      mfaSecondFactor: { sms: false, otp: true },
      accountRecovery: cognito.AccountRecovery.EMAIL_ONLY,
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.client = this.userPool.addClient('Console', {
      // The console's API signs in on the user's behalf (USER_PASSWORD_AUTH), so the page talks only
      // to its own origin; no client secret, since none could be kept secret in a browser anyway.
      authFlows: { userPassword: true, userSrp: true },
      generateSecret: false,
      preventUserExistenceErrors: true,
      idTokenValidity: Duration.hours(1),
      accessTokenValidity: Duration.hours(1),
      refreshTokenValidity: Duration.days(1),
      enableTokenRevocation: true,
    });
    for (const handler of props.functions) {
      handler.addEnvironment('GATEWAY_CONSOLE_USER_POOL_ID', this.userPool.userPoolId);
      handler.addEnvironment('GATEWAY_CONSOLE_CLIENT_ID', this.client.userPoolClientId);
    }

    Validations.of(this.userPool).acknowledge(
      {
        id: 'AwsSolutions-COG2',
        reason:
          'MFA is offered (TOTP) but not required: the console signs in with a password on the server side and answers only the new-password challenge. Teams that need MFA federate the pool to their identity provider, which enforces it there.',
      },
      ...['AwsSolutions-COG3', 'AwsSolutions-COG8'].map((ruleId) => ({
        id: ruleId,
        reason:
          'Threat protection (advanced security) needs the Plus feature plan, billed per monthly active user on top of the pool; the console holds no model traffic, only key management, and every key it issues is limited by its account quota and revocable.',
      })),
    );
  }
}
