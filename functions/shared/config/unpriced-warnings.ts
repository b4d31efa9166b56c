import { loadCatalog } from '../catalog/model-catalog.js';

/**
 * Warnings for a budget that can reach a model without a price: such a model is refused (403
 * `model_not_priced`) for every request the budget covers, which the person setting the budget
 * should hear of when they set it, not from their users.
 */
export const unpricedWarnings = async (
  owner: string,
  reachable: { readonly accountModels: readonly string[] | null; readonly keyModels?: readonly string[] | null },
): Promise<string[]> => {
  const catalog = await loadCatalog();
  const allowed = (list: readonly string[] | null | undefined, id: string, canonicalId: string) =>
    list === null || list === undefined || list.includes(id) || list.includes(canonicalId);
  const unpriced = catalog.models
    .filter(
      (model) =>
        model.id === model.canonicalId &&
        model.pricing === null &&
        allowed(reachable.accountModels, model.id, model.canonicalId) &&
        allowed(reachable.keyModels, model.id, model.canonicalId),
    )
    .map((model) => model.id);
  return unpriced.map(
    (model) =>
      `${owner} has a budget and can reach the model '${model}', which has no price: requests to it will be ` +
      `refused (403 model_not_priced) until it is priced (PUT /admin/v1/models/${model} with pricing).`,
  );
};
