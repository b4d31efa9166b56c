import { recordAudit } from '../shared/audit/record-audit.js';
import { loadCatalog, type ModelCatalog } from '../shared/catalog/model-catalog.js';
import { modelSettingsRecord } from '../shared/config/resource-records.js';
import { notFound } from '../shared/errors.js';
import { json } from '../shared/http/response.js';
import type { GatewayRequest } from '../shared/middleware/gateway-handler.js';
import {
  deleteModelSettings,
  getModelSettings,
  listModelSettings,
  putModelSettings,
  type ModelSettings,
} from '../shared/store/models.js';
import { parseWith } from './parse-with.js';
import { modelPath, modelPut } from './schemas.js';
import { deletedView, listView, modelView, type EffectivePricing } from './views.js';

type Request = GatewayRequest<unknown>;

const modelNotFound = (model: string) => notFound(`No model '${model}': no channel serves it and it has no settings.`);

/** A model no channel serves is priced by its admin price alone. */
const effectivePricing = (id: string, settings: ModelSettings | undefined, catalog: ModelCatalog): EffectivePricing => {
  const served = catalog.byId.get(id);
  if (served) return { pricing: served.pricing, pricingSource: served.pricingSource };
  return settings?.pricing
    ? { pricing: settings.pricing, pricingSource: 'admin' }
    : { pricing: null, pricingSource: 'none' };
};

const shown = (id: string, settings: ModelSettings | undefined, catalog: ModelCatalog) =>
  modelView(id, settings, effectivePricing(id, settings, catalog));

/** PUT /admin/v1/models/{model}: sets a model's pricing, aliases and owner, replacing earlier ones. */
export const put = async (request: Request) => {
  const { model } = parseWith(modelPath, request.pathParameters);
  const input = parseWith(modelPut, request.body ?? {});
  const settings = await putModelSettings(modelSettingsRecord(model, input, await getModelSettings(model)));
  await recordAudit(request, { action: 'model.put', target: { kind: 'model', id: model } });
  return json(200, shown(model, settings, await loadCatalog()));
};

/**
 * GET /admin/v1/models: every model a channel serves (aliases under their model) and every model with
 * settings, in id order, each with its effective price and its source.
 */
export const list = async () => {
  const [settings, catalog] = await Promise.all([listModelSettings(), loadCatalog()]);
  const settingsById = new Map(settings.map((entry) => [entry.id, entry]));
  const ids = new Set([
    ...catalog.models.filter((model) => model.canonicalId === model.id).map((model) => model.id),
    ...settingsById.keys(),
  ]);
  return json(200, listView([...ids].sort().map((id) => shown(id, settingsById.get(id), catalog))));
};

/** GET /admin/v1/models/{model}: a served model (or an alias of one) or one with settings. */
export const get = async ({ pathParameters }: Request) => {
  const { model } = parseWith(modelPath, pathParameters);
  const [settings, catalog] = await Promise.all([getModelSettings(model), loadCatalog()]);
  if (!settings && !catalog.byId.has(model)) throw modelNotFound(model);
  return json(200, shown(model, settings, catalog));
};

/** DELETE /admin/v1/models/{model}: removes its settings (a served model stays served, at the catalogue's price). */
export const remove = async (request: Request) => {
  const { model } = parseWith(modelPath, request.pathParameters);
  if (!(await deleteModelSettings(model))) throw notFound(`No settings for model '${model}'.`);
  await recordAudit(request, { action: 'model.delete', target: { kind: 'model', id: model } });
  return json(200, deletedView(model));
};
