import { modelSettingsRecord } from '../shared/config/resource-records.js';
import { notFound } from '../shared/errors.js';
import { json } from '../shared/http/response.js';
import type { GatewayRequest } from '../shared/middleware/gateway-handler.js';
import { deleteModelSettings, getModelSettings, listModelSettings, putModelSettings } from '../shared/store/models.js';
import { parseWith } from './parse-with.js';
import { modelPath, modelPut } from './schemas.js';
import { deletedView, listView, modelView } from './views.js';

type Request = GatewayRequest<unknown>;

const settingsNotFound = (model: string) => notFound(`No settings for model '${model}'.`);

/** PUT /admin/v1/models/{model}: sets a model's pricing, aliases and owner, replacing earlier ones. */
export const put = async ({ pathParameters, body }: Request) => {
  const { model } = parseWith(modelPath, pathParameters);
  const input = parseWith(modelPut, body ?? {});
  const settings = await putModelSettings(modelSettingsRecord(model, input, await getModelSettings(model)));
  return json(200, modelView(settings));
};

/** GET /admin/v1/models: the stored settings (the served models are at GET /v1/models). */
export const list = async () => json(200, listView((await listModelSettings()).map(modelView)));

/** GET /admin/v1/models/{model} */
export const get = async ({ pathParameters }: Request) => {
  const { model } = parseWith(modelPath, pathParameters);
  const settings = await getModelSettings(model);
  if (!settings) throw settingsNotFound(model);
  return json(200, modelView(settings));
};

/** DELETE /admin/v1/models/{model} */
export const remove = async ({ pathParameters }: Request) => {
  const { model } = parseWith(modelPath, pathParameters);
  if (!(await deleteModelSettings(model))) throw settingsNotFound(model);
  return json(200, deletedView(model));
};
