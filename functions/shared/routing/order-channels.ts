import type { CatalogModel } from '../catalog/model-catalog.js';
import { typeServes } from '../providers/provider-capabilities.js';
import { mappedModelName, type Channel, type EndpointKind } from '../store/channels.js';

/** Weighted random order: a channel of weight 3 comes first three times as often as one of weight 1. */
const weightedShuffle = (channels: Channel[], random: () => number): Channel[] => {
  const pool = [...channels];
  const ordered: Channel[] = [];
  while (pool.length > 0) {
    const total = pool.reduce((sum, channel) => sum + Math.max(1, channel.weight), 0);
    let pick = random() * total;
    let index = 0;
    for (; index < pool.length - 1; index++) {
      pick -= Math.max(1, pool[index]!.weight);
      if (pick < 0) break;
    }
    ordered.push(...pool.splice(index, 1));
  }
  return ordered;
};

/**
 * The channels to try for a model on an endpoint, in order: highest priority first, weighted random
 * among equals; only enabled channels whose type and endpoint list serve the endpoint.
 */
export const orderChannels = (
  model: CatalogModel,
  endpoint: EndpointKind,
  canServe: (channel: Channel) => boolean = () => true,
  random: () => number = Math.random,
): Channel[] => {
  const eligible = model.channels.filter(
    (channel) =>
      channel.enabled &&
      typeServes(channel.type, endpoint) &&
      (channel.endpoints === null || channel.endpoints.includes(endpoint)) &&
      canServe(channel),
  );
  // Most models have one channel: nothing to order.
  if (eligible.length < 2) return eligible;
  const byPriority = new Map<number, Channel[]>();
  for (const channel of eligible) {
    const group = byPriority.get(channel.priority) ?? [];
    group.push(channel);
    byPriority.set(channel.priority, group);
  }
  return [...byPriority.entries()]
    .sort(([a], [b]) => b - a)
    .flatMap(([, group]) => (group.length === 1 ? group : weightedShuffle(group, random)));
};

/** The upstream's name for a public model on a channel. */
export const upstreamModelName = (channel: Channel, model: CatalogModel): string =>
  mappedModelName(channel, model.id) ?? mappedModelName(channel, model.canonicalId) ?? model.canonicalId;
