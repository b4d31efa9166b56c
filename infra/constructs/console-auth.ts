import { Duration, RemovalPolicy, SecretValue, Validations } from 'aws-cdk-lib';
import * as cognito from 'aws-cdk-lib/aws-cognito';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';

/** A federated sign-in for the console (`-c ssoProvider=…`). */
export type ConsoleSso =
  | {
      readonly kind: 'oidc';
      readonly name: string;
      readonly issuer: string;
      readonly clientId: string;
      /** The Secrets Manager secret holding the client secret: resolved by CloudFormation, never in the template. */
      readonly clientSecretName: string;
      readonly domainPrefix: string;
    }
  | {
      readonly kind: 'saml';
      readonly name: string;
      readonly metadataUrl: string;
      readonly domainPrefix: string;
    };

export interface ConsoleAuthProps {
  /** The functions that read console sessions: they learn the pool and the app client. */
  readonly functions: readonly lambda.Function[];
  /** The pool's name: the stack name, so each stage's pool is told apart in the account. */
  readonly userPoolName: string;
  /**
   * Whether the pool outlives the stack: kept stages keep their users (retained, deletion
   * protection on); ephemeral stages delete the pool with the stack.
   */
  readonly kept: boolean;
  /** Whether console users with the admin role must use MFA (`GATEWAY_CONSOLE_ADMIN_MFA`). */
  readonly adminMfa: 'required' | 'optional';
  /** The console's address, where a federated sign-in returns to. */
  readonly consoleUrl: string;
  readonly sso?: ConsoleSso;
}

/** What both console clients (password and SSO) give a session: short tokens, revocable, no secret. */
const CONSOLE_CLIENT_SESSIONS = {
  generateSecret: false,
  preventUserExistenceErrors: true,
  idTokenValidity: Duration.hours(1),
  accessTokenValidity: Duration.hours(1),
  refreshTokenValidity: Duration.days(1),
  enableTokenRevocation: true,
} as const satisfies Partial<cognito.UserPoolClientOptions>;

/**
 * Who may sign in to the console: a Cognito user pool (e-mail and password, TOTP as the second
 * factor, optionally a team's own identity provider) and a public app client. The pool says who
 * someone is; the members table says which account they belong to and with which role. A user pool
 * bills by monthly active user, so an idle console costs nothing.
 */
export class ConsoleAuth extends Construct {
  readonly userPool: cognito.UserPool;
  readonly client: cognito.UserPoolClient;
  /** With SSO: the app client of the federated sign-in (authorization code flow, no password). */
  readonly ssoClient?: cognito.UserPoolClient;
  readonly domain?: cognito.UserPoolDomain;

  constructor(scope: Construct, id: string, props: ConsoleAuthProps) {
    super(scope, id);
    this.userPool = new cognito.UserPool(this, 'Users', {
      userPoolName: props.userPoolName,
      // Operators invite people; nobody signs themselves up to a company's gateway.
      selfSignUpEnabled: false,
      signInAliases: { email: true },
      // `Ana@Example.com` and `ana@example.com` are one person, as mail servers treat them.
      signInCaseSensitive: false,
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
      // Optional for the pool, required for the admin role by the console itself (adminMfa below).
      mfa: cognito.Mfa.OPTIONAL,
      mfaSecondFactor: { sms: false, otp: true },
      accountRecovery: cognito.AccountRecovery.EMAIL_ONLY,
      deletionProtection: props.kept,
      removalPolicy: props.kept ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });
    this.client = this.userPool.addClient('Console', {
      // The console's API signs in on the user's behalf (USER_PASSWORD_AUTH), so the page talks only
      // to its own origin; no client secret, since none could be kept secret in a browser anyway.
      authFlows: { userPassword: true, userSrp: true },
      // No hosted-UI flows and no callback: this client only signs in through the console's API.
      disableOAuth: true,
      // A signed-in user may not change their e-mail: it is who the members table says they are.
      writeAttributes: new cognito.ClientAttributes().withStandardAttributes({ fullname: true }),
      ...CONSOLE_CLIENT_SESSIONS,
    });
    if (props.sso) {
      const provider = this.identityProvider(props.sso);
      this.domain = this.userPool.addDomain('SignInDomain', {
        cognitoDomain: { domainPrefix: props.sso.domainPrefix },
      });
      this.ssoClient = this.userPool.addClient('ConsoleSso', {
        supportedIdentityProviders: [cognito.UserPoolClientIdentityProvider.custom(provider.providerName)],
        oAuth: {
          flows: { authorizationCodeGrant: true },
          // No aws.cognito.signin.user.admin scope: the tokens cannot change the user's attributes.
          scopes: [cognito.OAuthScope.OPENID, cognito.OAuthScope.EMAIL, cognito.OAuthScope.PROFILE],
          callbackUrls: [props.consoleUrl],
          logoutUrls: [props.consoleUrl],
        },
        // Cognito writes the provider's e-mail at each sign-in, which needs write access to it.
        writeAttributes: new cognito.ClientAttributes().withStandardAttributes({
          email: true,
          emailVerified: true,
          fullname: true,
        }),
        ...CONSOLE_CLIENT_SESSIONS,
      });
      this.ssoClient.node.addDependency(provider);
    }
    for (const handler of props.functions) {
      handler.addEnvironment('GATEWAY_CONSOLE_USER_POOL_ID', this.userPool.userPoolId);
      handler.addEnvironment('GATEWAY_CONSOLE_CLIENT_ID', this.client.userPoolClientId);
      handler.addEnvironment('GATEWAY_CONSOLE_ADMIN_MFA', props.adminMfa);
      if (this.ssoClient && this.domain && props.sso) {
        handler.addEnvironment('GATEWAY_CONSOLE_SSO_CLIENT_ID', this.ssoClient.userPoolClientId);
        handler.addEnvironment('GATEWAY_CONSOLE_SSO_DOMAIN', this.domain.baseUrl());
        handler.addEnvironment('GATEWAY_CONSOLE_SSO_PROVIDER', props.sso.name);
        // The callback the client registered: the token endpoint wants the same redirect_uri back.
        handler.addEnvironment('GATEWAY_CONSOLE_SSO_REDIRECT_URI', props.consoleUrl);
      }
    }

    Validations.of(this.userPool).acknowledge(
      {
        id: 'AwsSolutions-COG2',
        reason:
          'MFA (TOTP) is optional in the pool and required by the console for the admin role (GATEWAY_CONSOLE_ADMIN_MFA, -c consoleAdminMfa); member accounts may turn it on. Teams that federate the pool to their identity provider enforce MFA there.',
      },
      ...['AwsSolutions-COG3', 'AwsSolutions-COG8'].map((ruleId) => ({
        id: ruleId,
        reason:
          'Threat protection (advanced security) needs the Plus feature plan, billed per monthly active user on top of the pool; the console holds no model traffic, only key management, every key it issues is limited by its account quota and revocable, and API Gateway throttles the sign-in route.',
      })),
    );
  }

  private identityProvider(sso: ConsoleSso): cognito.IUserPoolIdentityProvider {
    // The provider's e-mail becomes the pool user's: the members table matches people by it.
    const attributeMapping: cognito.AttributeMapping = {
      email: cognito.ProviderAttribute.other('email'),
      fullname: cognito.ProviderAttribute.other('name'),
    };
    if (sso.kind === 'oidc') {
      return new cognito.UserPoolIdentityProviderOidc(this, 'Oidc', {
        userPool: this.userPool,
        name: sso.name,
        issuerUrl: sso.issuer,
        clientId: sso.clientId,
        // A dynamic reference CloudFormation resolves at deploy time: the secret is never in the template.
        clientSecret: SecretValue.secretsManager(sso.clientSecretName).unsafeUnwrap(),
        scopes: ['openid', 'email', 'profile'],
        attributeRequestMethod: cognito.OidcAttributeRequestMethod.GET,
        attributeMapping: {
          ...attributeMapping,
          custom: { email_verified: cognito.ProviderAttribute.other('email_verified') },
        },
      });
    }
    return new cognito.UserPoolIdentityProviderSaml(this, 'Saml', {
      userPool: this.userPool,
      name: sso.name,
      metadata: cognito.UserPoolIdentityProviderSamlMetadata.url(sso.metadataUrl),
      attributeMapping: {
        email: cognito.ProviderAttribute.other('http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress'),
        fullname: cognito.ProviderAttribute.other('http://schemas.xmlsoap.org/ws/2005/05/identity/claims/name'),
      },
    });
  }
}
