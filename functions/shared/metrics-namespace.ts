/**
 * Where the gateway's CloudWatch metrics go: the namespace, from `GATEWAY_METRICS_NAMESPACE`. Kept
 * apart from the request metrics so that every layer that writes a metric line names it the same way.
 */
export const METRICS_NAMESPACE_VARIABLE = 'GATEWAY_METRICS_NAMESPACE';
export const DEFAULT_METRICS_NAMESPACE = 'ModelGateway';
