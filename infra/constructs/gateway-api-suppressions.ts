import { Validations } from 'aws-cdk-lib';
import type * as apigateway from 'aws-cdk-lib/aws-apigateway';

/**
 * The cdk-nag findings the REST API accepts, each with its reason. Acknowledged on the API, so they
 * cover its methods, stage and CloudWatch role, and nothing outside it.
 */
export const acknowledgeApiFindings = (api: apigateway.RestApi, options: { readonly waf: boolean }): void => {
  if (!options.waf) {
    Validations.of(api).acknowledge({
      id: 'AwsSolutions-APIG3',
      reason:
        'A WAF web ACL has a fixed monthly cost, so it is a per-deployment choice (`-c waf=true` adds one with per-address rate rules), not a default for a pay-per-request gateway. Without it, API Gateway method throttles cap the admin API and the console sign-in, and keys, rate limits and quotas are enforced per request in the functions.',
    });
  }
  Validations.of(api).acknowledge(
    {
      id: 'AwsSolutions-APIG4',
      reason:
        "The gateway authenticates every request itself, with its own API keys (Authorization: Bearer, x-api-key, x-goog-api-key, ?key=) checked against the keys table in the function (DESIGN §3.3). An API Gateway authorizer would add a Lambda hop to every request and could neither read the vendor key carriers nor answer in the vendors' error envelopes. The open routes are /health and the 404/405 fallback, which read no data.",
    },
    {
      id: 'AwsSolutions-COG4',
      reason:
        'Clients are programs using the OpenAI, Anthropic and Google SDKs with static gateway keys, not Cognito users; authentication is the key check in the functions described for AwsSolutions-APIG4. The console routes verify ID tokens of the stack user pool in the function (aws-jwt-verify).',
    },
    {
      id: 'AwsSolutions-APIG2',
      reason:
        "Request bodies are validated in the functions (zod schemas) so that errors come back in the OpenAI envelope with the failing field in 'param' (DESIGN §3.4); an API Gateway request validator would answer first, in another shape.",
    },
    {
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
      reason:
        "API Gateway's account-level role for writing access and execution logs uses AWS's AmazonAPIGatewayPushToCloudWatchLogs policy, which exists for exactly this; the role is trusted only by apigateway.amazonaws.com.",
    },
  );
};
