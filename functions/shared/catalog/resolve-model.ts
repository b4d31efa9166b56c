import type { Principal } from '../auth/principal.js';
import { modelNotFound } from '../errors.js';
import { loadCatalog, mayUse, type CatalogModel } from './model-catalog.js';

/**
 * The model a request names, if this key may use it. Unknown and forbidden models get the same 404,
 * so a key cannot probe which models exist.
 */
export const resolveUsableModel = async (principal: Principal, id: string): Promise<CatalogModel> => {
  const model = (await loadCatalog()).byId.get(id);
  if (!model || !mayUse(principal, model)) throw modelNotFound(id);
  return model;
};
