import type { Principal } from '../auth/principal.js';
import { defaultOwner, servedEndpoints } from '../providers/provider-capabilities.js';
import { listChannels, mappedModelName, type Channel, type EndpointKind, endpointKinds } from '../store/channels.js';
import { listModelSettings, type ModelPricing, type ModelSettings, type PricingSource } from '../store/models.js';
import {
  freeOnlyPricer,
  loadCataloguePricer,
  pricedWithoutCatalogue,
  type CataloguePricer,
} from '../accounting/catalog-prices.js';
import { cacheTtlMs, TtlCache } from '../store/ttl-cache.js';
import { servingChannels } from './built-in-demo.js';
import { reasonsByDefault } from '../providers/model-reasoning.js';

/** A public model id as clients see it: what serves it and what it can do. */
export interface CatalogModel {
  readonly id: string;
  /** The configured model an alias stands for; its own id otherwise. */
  readonly canonicalId: string;
  readonly ownedBy: string;
  /** Epoch seconds. */
  readonly created: number;
  readonly endpoints: readonly EndpointKind[];
  /** Enabled channels that serve it, highest priority first; empty while all are disabled. */
  readonly channels: readonly Channel[];
  readonly settings: ModelSettings | undefined;
  /** What it costs: the admin's price, else the price catalogue's for its upstream model, else none. */
  readonly pricing: ModelPricing | null;
  readonly pricingSource: PricingSource;
  /** Whether it reasons before answering: the admin's setting, else decided from its id. */
  readonly reasoning: boolean;
}

export interface ModelCatalog {
  /** Every public id, aliases included, in id order. */
  readonly models: readonly CatalogModel[];
  readonly byId: ReadonlyMap<string, CatalogModel>;
}

const channelEndpoints = (channel: Channel): EndpointKind[] => {
  const supported = servedEndpoints(channel.type);
  return channel.endpoints ? channel.endpoints.filter((kind) => supported.includes(kind)) : [...supported];
};

const epochSeconds = (iso: string) => Math.floor(Date.parse(iso) / 1000);

/**
 * A model's effective price (DESIGN §11): the admin's, else the catalogue's for the upstream model id
 * of the first of its channels (highest priority first) that the catalogue prices, else none.
 */
const effectivePricing = (
  id: string,
  settings: ModelSettings | undefined,
  channels: readonly Channel[],
  pricer: CataloguePricer,
): { pricing: ModelPricing | null; pricingSource: PricingSource } => {
  if (settings?.pricing) return { pricing: settings.pricing, pricingSource: 'admin' };
  for (const channel of channels) {
    const pricing = pricer(channel, mappedModelName(channel, id) ?? id);
    if (pricing) return { pricing, pricingSource: 'catalog' };
  }
  return { pricing: null, pricingSource: 'none' };
};

/**
 * Builds the catalog from channels and model settings: pure, so it can be tested on plain data.
 * `pricer` prices models that have no admin price (only the demo channel's without the catalogue).
 */
export const buildCatalog = (
  channels: readonly Channel[],
  settings: readonly ModelSettings[],
  pricer: CataloguePricer = freeOnlyPricer,
): ModelCatalog => {
  const settingsById = new Map(settings.map((entry) => [entry.id, entry]));
  // Every channel names its models, enabled or not: a model whose channels are all disabled is still
  // configured (listed, and answered 503 no_channel), not unknown (404).
  const namedBy = new Map<string, Channel[]>();
  for (const channel of servingChannels(channels)) {
    for (const model of channel.models) {
      const list = namedBy.get(model) ?? [];
      list.push(channel);
      namedBy.set(model, list);
    }
  }

  const byId = new Map<string, CatalogModel>();
  for (const [id, named] of namedBy) {
    named.sort((a, b) => b.priority - a.priority);
    const serving = named.filter((channel) => channel.enabled);
    const described = serving.length > 0 ? serving : named;
    const kinds = new Set(described.flatMap(channelEndpoints));
    const modelSettings = settingsById.get(id);
    const model: CatalogModel = {
      id,
      canonicalId: id,
      ownedBy: modelSettings?.ownedBy ?? defaultOwner(described[0]!.type),
      created: Math.min(...named.map((channel) => epochSeconds(channel.createdAt))),
      endpoints: endpointKinds.filter((kind) => kinds.has(kind)),
      channels: serving,
      settings: modelSettings,
      ...effectivePricing(id, modelSettings, described, pricer),
      // Whether any channel's upstream model reasons (`claude-sonnet` → `…claude-sonnet-4-5…`): what
      // a call sends is decided per channel (`routing/channel-call.ts`), never from the public id.
      reasoning:
        modelSettings?.reasoning ?? named.some((channel) => reasonsByDefault(mappedModelName(channel, id) ?? id)),
    };
    byId.set(id, model);
  }
  // Aliases reach a served model under another name; an alias never shadows a real id.
  for (const entry of settings) {
    const target = byId.get(entry.id);
    if (!target) continue;
    for (const alias of entry.aliases) {
      if (!byId.has(alias)) byId.set(alias, { ...target, id: alias });
    }
  }
  const models = [...byId.values()].sort((a, b) => a.id.localeCompare(b.id));
  return { models, byId };
};

/** The price catalogue is loaded only when some served model has no admin price and is not free. */
const pricerFor = (channels: readonly Channel[], settings: readonly ModelSettings[]): Promise<CataloguePricer> => {
  const adminPriced = new Set(settings.filter((entry) => entry.pricing).map((entry) => entry.id));
  const needed = channels.some(
    (channel) => !pricedWithoutCatalogue(channel.type) && channel.models.some((model) => !adminPriced.has(model)),
  );
  return needed ? loadCataloguePricer() : Promise.resolve(freeOnlyPricer);
};

const catalogCache = new TtlCache<ModelCatalog>(cacheTtlMs, 1);

/** The current catalog, read from the store at most once per cache lifetime. */
export const loadCatalog = (): Promise<ModelCatalog> =>
  catalogCache.getOrLoad('catalog', async () => {
    const [channels, settings] = await Promise.all([listChannels(), listModelSettings()]);
    return buildCatalog(channels, settings, await pricerFor(channels, settings));
  });

const allows = (list: readonly string[] | null, model: CatalogModel) =>
  list === null || list.includes(model.id) || list.includes(model.canonicalId);

/** Whether the caller may use this model: account list ∩ key list ∩ configured models. */
export const mayUse = (principal: Principal, model: CatalogModel): boolean =>
  allows(principal.accountModels, model) && allows(principal.keyModels, model);

/** What a key's model list shows: usable models that some enabled channel serves right now. */
export const usableModels = (principal: Principal, catalog: ModelCatalog): CatalogModel[] =>
  catalog.models.filter((model) => model.channels.length > 0 && mayUse(principal, model));
