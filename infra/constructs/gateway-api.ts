import { Annotations, Duration, Stack } from 'aws-cdk-lib';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { Throttle } from './scale-settings.js';
import { routes as sharedRoutes, type FunctionGroupDefinition } from '../../functions/shared/routes.js';
import { addGatewayErrorResponses } from './gateway-error-responses.js';
import { acknowledgeApiFindings } from './gateway-api-suppressions.js';
import {
  CORS_ALLOWED_HEADERS,
  CORS_ALLOWED_METHODS,
  CORS_MAX_AGE_SECONDS,
} from '../../functions/shared/http/cors-policy.js';

/** A route as the API needs it; the shared `RouteDefinition` fits, and so do test-only groups. */
export interface ApiRoute {
  readonly method: string;
  /** Resource path with `{name}` path parameters, e.g. `/admin/v1/keys/{id}`. */
  readonly path: string;
  readonly group: string;
}

export interface GatewayApiProps {
  /** Each endpoint group's function. */
  readonly functions: Readonly<Record<string, lambda.IFunction>>;
  /** Each group's definition: streaming groups get a streaming integration. */
  readonly groups: Readonly<Record<string, FunctionGroupDefinition>>;
  /** The routes to serve; the shared table unless a test passes its own. */
  readonly routes?: readonly ApiRoute[];
  /** The group answering health, unknown paths (404) and wrong methods (405). */
  readonly fallbackGroup?: string;
  /** The REST API's name, which the 5xx alarm's dimension names too: the stack name, so stages differ. */
  readonly restApiName: string;
  /** The API Gateway stage, the first path segment after the host: `https://…/<stage>/v1/...`. */
  readonly stageName: string;
  /** The stage's request rate and burst (see scale-settings.ts); the account's limit when absent. */
  readonly throttle?: Throttle;
  /**
   * Method throttles: each route whose path starts with a key gets that key's rate and burst (the
   * admin API, the console's sign-in), ahead of the stage's own.
   */
  readonly methodThrottles?: readonly MethodThrottle[];
  readonly logRetention?: logs.RetentionDays;
  /** Browser origins allowed (CORS): API Gateway then answers their preflight requests. */
  readonly corsOrigins?: readonly string[];
  /**
   * Whether this API sets up API Gateway's account-level CloudWatch role (kept on destroy, since the
   * account setting outlives the stack). Off for ephemeral stages, which use the one already set.
   */
  readonly createAccountLogRole?: boolean;
  /** Whether a WAF web ACL is attached to the stage (`-c waf=true`). */
  readonly waf?: boolean;
}

/** A rate and burst for the routes a predicate picks (`/admin/v1/…`, `POST /console/api/session`). */
export interface MethodThrottle extends Throttle {
  readonly applies: (route: ApiRoute) => boolean;
}

/** API Gateway's answer to a browser's preflight; the functions add the headers to every response. */
const corsPreflightOptions = (origins: readonly string[]): apigateway.CorsOptions => ({
  allowOrigins: origins.includes('*') ? apigateway.Cors.ALL_ORIGINS : [...origins],
  allowMethods: [...CORS_ALLOWED_METHODS],
  allowHeaders: [...CORS_ALLOWED_HEADERS],
  maxAge: Duration.seconds(CORS_MAX_AGE_SECONDS),
});

/** API Gateway's own ceiling for a buffered integration, without a quota increase. */
const bufferedIntegrationLimit = Duration.seconds(29);

/** A streamed response may last up to 15 minutes, Lambda's own limit too. */
const streamingIntegrationTimeout = Duration.minutes(15);

/**
 * The REST API in front of the functions (HTTP APIs cannot stream), built from the route table:
 * each route's method goes to its group's function, and everything else to the fallback function,
 * so that wrong methods and unknown paths get the gateway's 405 and 404 envelopes.
 */
export class GatewayApi extends Construct {
  readonly api: apigateway.RestApi;
  /** The base URL clients use, without a trailing slash: paths go on as `/v1/...`. */
  readonly url: string;
  readonly accessLogs: logs.LogGroup;

  private readonly integrations = new Map<string, apigateway.LambdaIntegration>();

  constructor(
    scope: Construct,
    id: string,
    private readonly props: GatewayApiProps,
  ) {
    super(scope, id);
    const stageName = props.stageName;
    const retention = props.logRetention ?? logs.RetentionDays.ONE_MONTH;
    this.accessLogs = new logs.LogGroup(this, 'AccessLogs', { retention });

    this.api = new apigateway.RestApi(this, 'RestApi', {
      restApiName: props.restApiName,
      description: 'model-gateway: OpenAI-compatible model gateway',
      // Regional: a streamed response may idle 5 minutes between chunks here, 30 s at the edge.
      endpointTypes: [apigateway.EndpointType.REGIONAL],
      // Both access and execution logs need API Gateway's account-level CloudWatch role.
      cloudWatchRole: props.createAccountLogRole ?? true,
      deployOptions: {
        stageName,
        accessLogDestination: new apigateway.LogGroupLogDestination(this.accessLogs),
        accessLogFormat: accessLogFormat(),
        // Errors only, and never request data: bodies and headers carry keys and prompts.
        loggingLevel: apigateway.MethodLoggingLevel.ERROR,
        dataTraceEnabled: false,
        throttlingRateLimit: props.throttle?.rateLimit,
        throttlingBurstLimit: props.throttle?.burstLimit,
        methodOptions: methodThrottleOptions(props.routes ?? sharedRoutes, props.methodThrottles ?? []),
      },
      ...(props.corsOrigins?.length ? { defaultCorsPreflightOptions: corsPreflightOptions(props.corsOrigins) } : {}),
    });
    // The stack's ApiUrl output replaces RestApi's own, whose trailing slash makes `${url}/v1` wrong.
    this.api.node.tryRemoveChild('Endpoint');
    this.keepExecutionLogsBounded(stageName, retention);
    this.addRoutes(props.routes ?? sharedRoutes, props.fallbackGroup ?? 'fallback');
    addGatewayErrorResponses(this.api);
    acknowledgeApiFindings(this.api, { waf: props.waf ?? false });

    const stack = Stack.of(this);
    this.url = `https://${this.api.restApiId}.execute-api.${stack.region}.${stack.urlSuffix}/${stageName}`;
  }

  private addRoutes(routes: readonly ApiRoute[], fallbackGroup: string): void {
    const fallback = this.integrationFor(fallbackGroup);
    const resources = new Map<string, apigateway.IResource>();
    const resourceFor = (path: string): apigateway.IResource => {
      let resource = resources.get(path);
      if (!resource) {
        resource = this.api.root.resourceForPath(path);
        resources.set(path, resource);
      }
      return resource;
    };

    for (const route of routes) {
      // Register every ancestor too (`/admin`, `/admin/v1`): each gets the fallback below.
      const segments = route.path.split('/').filter(Boolean);
      segments.forEach((_, index) => resourceFor(`/${segments.slice(0, index + 1).join('/')}`));
      resourceFor(route.path).addMethod(route.method, this.integrationFor(route.group));
    }
    // API Gateway would answer an unmatched method itself, as a 403; the fallback answers 405 or 404.
    for (const resource of resources.values()) resource.addMethod('ANY', fallback);
    this.api.root.addMethod('ANY', fallback);
    this.api.root.addResource('{proxy+}').addMethod('ANY', fallback);
  }

  /** One integration per group, shared by all its methods. */
  private integrationFor(group: string): apigateway.LambdaIntegration {
    const existing = this.integrations.get(group);
    if (existing) return existing;
    const handler = this.props.functions[group];
    const definition = this.props.groups[group];
    if (!handler || !definition) throw new Error(`Route group '${group}' has no function: add it to functionGroups.`);
    if (!definition.streaming && definition.timeoutSeconds > bufferedIntegrationLimit.toSeconds()) {
      Annotations.of(this).addWarningV2(
        'model-gateway:buffered-timeout',
        `Group '${group}' may run ${definition.timeoutSeconds} s, but a buffered integration ends at 29 s: stream it or shorten it.`,
      );
    }
    const integration = new apigateway.LambdaIntegration(handler, {
      // One invoke permission per function for the whole API, not one per method: the function's
      // resource policy has a 20 KB limit, and the fallback serves every resource.
      scopePermissionToMethod: false,
      ...(definition.streaming
        ? { responseTransferMode: apigateway.ResponseTransferMode.STREAM, timeout: streamingIntegrationTimeout }
        : {}),
    });
    this.integrations.set(group, integration);
    return integration;
  }

  /**
   * API Gateway creates the execution log group on first use, with no retention; creating it first
   * (under the name API Gateway will use) bounds how long error logs are kept.
   */
  private keepExecutionLogsBounded(stageName: string, retention: logs.RetentionDays): void {
    const executionLogs = new logs.LogGroup(this, 'ExecutionLogs', {
      logGroupName: `API-Gateway-Execution-Logs_${this.api.restApiId}/${stageName}`,
      retention,
    });
    this.api.deploymentStage.node.addDependency(executionLogs);
  }
}

/**
 * Method settings of the throttled routes. A method's own settings replace the stage's for it, so
 * each also keeps the stage's logging: errors only, never request data.
 */
const methodThrottleOptions = (
  routes: readonly ApiRoute[],
  throttles: readonly MethodThrottle[],
): Record<string, apigateway.MethodDeploymentOptions> => {
  const options: Record<string, apigateway.MethodDeploymentOptions> = {};
  for (const route of routes) {
    const throttle = throttles.find((candidate) => candidate.applies(route));
    if (!throttle) continue;
    options[`${route.path}/${route.method}`] = {
      throttlingRateLimit: throttle.rateLimit,
      throttlingBurstLimit: throttle.burstLimit,
      loggingLevel: apigateway.MethodLoggingLevel.ERROR,
      dataTraceEnabled: false,
    };
  }
  return options;
};

/** One JSON line per request: who, what, how it ended and how long it took. Never the query string (`?key=`). */
const accessLogFormat = (): apigateway.AccessLogFormat => {
  const field = apigateway.AccessLogField;
  return apigateway.AccessLogFormat.custom(
    JSON.stringify({
      requestId: field.contextRequestId(),
      requestTime: field.contextRequestTime(),
      sourceIp: field.contextIdentitySourceIp(),
      userAgent: field.contextIdentityUserAgent(),
      httpMethod: field.contextHttpMethod(),
      resourcePath: field.contextResourcePath(),
      status: field.contextStatus(),
      responseLength: field.contextResponseLength(),
      responseLatency: field.contextResponseLatency(),
      integrationLatency: field.contextIntegrationLatency(),
      errorType: field.contextErrorResponseType(),
    }),
  );
};
