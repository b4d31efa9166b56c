import { admit, type AdmissionInput } from '../accounting/admission.js';
import { withHeaders } from '../accounting/with-headers.js';
import type { CatalogModel } from '../catalog/model-catalog.js';
import type { GatewayResponse } from '../http/response.js';
import type { TokenUsage } from '../accounting/token-usage.js';
import type { Channel, EndpointKind } from '../store/channels.js';
import { noChannel } from '../upstream/upstream-errors.js';
import type { GatewayRequest } from './gateway-handler.js';
import { startMeter, type RequestMeter } from './request-meter.js';

/** What a metered endpoint knows before it calls any upstream. */
export interface MeteredPlan {
  readonly model: CatalogModel;
  readonly endpoint: EndpointKind;
  /**
   * Whether the answer is a body that ends after the handler returns (an event stream, streamed
   * audio): its end records the request (`meter.recordWhenStreamEnds`), not the handler's return.
   */
  readonly stream: boolean;
  /** The channels to try, in order; none is a 503 naming `path`. */
  readonly channels: readonly Channel[];
  readonly path: string;
  /** What admission reserves before anything reaches an upstream. */
  readonly admission: Omit<AdmissionInput, 'model'>;
  /** Usage known before serving (speech counts input characters), recorded even on a refusal. */
  readonly knownUsage?: TokenUsage;
}

/**
 * The metering every model endpoint shares: the meter started, the request admitted (rate limits,
 * quota), `serve` run, and the usage record written exactly once however the request ends — on
 * success here for a whole answer, by the body's end for a stream, by the error for a refusal, an
 * upstream failure, the client leaving or the function's deadline. The admission's headers go on
 * the answer.
 */
export const meteredRequest = async (
  request: GatewayRequest<unknown>,
  plan: MeteredPlan,
  serve: (meter: RequestMeter) => Promise<GatewayResponse>,
): Promise<GatewayResponse> => {
  const meter = startMeter(request, plan.model, plan.endpoint, plan.stream);
  if (plan.knownUsage) meter.usage(plan.knownUsage);
  try {
    if (plan.channels.length === 0) throw noChannel(plan.model.id, plan.path);
    const admission = await admit(request.principal, { model: plan.model, ...plan.admission });
    meter.admitted(admission);
    const response = await serve(meter);
    // A whole answer is recorded once it has gone out: building the record is no part of its latency.
    if (!plan.stream) request.defer(() => meter.record('success', 200));
    return withHeaders(response, admission.headers);
  } catch (error) {
    request.defer(meter.failed(error));
    throw error;
  }
};
