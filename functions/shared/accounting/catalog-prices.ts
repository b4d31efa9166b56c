import type * as genaiPrices from '@pydantic/genai-prices';
import type { Channel, ChannelType } from '../store/channels.js';
import type { ModelPricing, PricingTier } from '../store/models.js';

/**
 * Default prices from the maintained price catalogue `@pydantic/genai-prices` (see
 * docs/accounting.md for why this one), looked up by the catalogue's provider for a channel's type and
 * the upstream model id the channel calls.
 *
 * The package is some 800 KB of price data and code, so it is imported only when a model without an
 * admin price is first priced (esbuild puts it in a chunk of its own, loaded on demand), and each
 * (provider, upstream model) pair is looked up once per process: a request never pays for a look-up.
 */

/** The catalogue's provider for each channel type; `demo` is the gateway's own free model. */
const catalogProviders: Record<ChannelType, string | 'free'> = {
  openai: 'openai',
  anthropic: 'anthropic',
  gemini: 'google',
  bedrock: 'aws',
  demo: 'free',
};

/** The demo channel's models cost nothing: they are served by the gateway itself. */
const FREE: ModelPricing = { inputPerMTok: 0, outputPerMTok: 0 };

type PriceCatalogue = typeof genaiPrices;
type CatalogueTiers = { readonly base: number; readonly tiers: readonly { start: number; price: number }[] };
type CataloguePrice = number | CatalogueTiers | undefined;

let catalogue: Promise<PriceCatalogue> | undefined;
/** `provider|api root|upstream model` → its price or `null`: every look-up is made once per process. */
const looked = new Map<string, ModelPricing | null>();
const LOOKUPS_KEPT = 10_000;

const priceAt = (price: CataloguePrice, inputTokens: number): number | undefined => {
  if (price === undefined || typeof price === 'number') return price;
  let current = price.base;
  for (const tier of price.tiers) if (inputTokens > tier.start) current = tier.price;
  return current;
};

const tierStarts = (prices: readonly CataloguePrice[]): number[] => {
  const starts = new Set<number>();
  for (const price of prices) {
    if (price !== undefined && typeof price !== 'number') for (const tier of price.tiers) starts.add(tier.start);
  }
  return [...starts].sort((a, b) => a - b);
};

/** The gateway's form of a catalogue entry: per-million prices, with long-context tiers where it has them. */
export const fromCatalogueEntry = (entry: Readonly<Record<string, unknown>>): ModelPricing | null => {
  const input = entry.input_mtok as CataloguePrice;
  const output = entry.output_mtok as CataloguePrice;
  const cached = entry.cache_read_mtok as CataloguePrice;
  const written = entry.cache_write_mtok as CataloguePrice;
  // A model priced by the image, the second or the character has no token price the gateway can use.
  if (input === undefined && output === undefined) return null;
  const at = (tokens: number) => {
    const cachedPrice = priceAt(cached, tokens);
    const writtenPrice = priceAt(written, tokens);
    return {
      inputPerMTok: priceAt(input, tokens) ?? 0,
      outputPerMTok: priceAt(output, tokens) ?? 0,
      ...(cachedPrice === undefined ? {} : { cachedInputPerMTok: cachedPrice }),
      ...(writtenPrice === undefined ? {} : { cacheWritePerMTok: writtenPrice }),
    };
  };
  // A tier applies when the prompt has more input tokens than its start (the catalogue's rule).
  const tiers: PricingTier[] = tierStarts([input, output, cached, written]).map((start) => ({
    aboveInputTokens: start,
    ...at(start + 1),
  }));
  return { ...at(0), ...(tiers.length > 0 ? { tiers } : {}) };
};

const lookUp = (prices: PriceCatalogue, provider: string, apiRoot: string | null, model: string) => {
  const zero = { input_tokens: 0, output_tokens: 0 };
  // An OpenAI-compatible channel is priced by the vendor its API root names (DeepSeek, Groq, Azure…),
  // else as OpenAI.
  const byRoot = apiRoot ? prices.calcPrice(zero, model, { providerApiUrl: apiRoot }) : null;
  const found = byRoot ?? prices.calcPrice(zero, model, { providerId: provider });
  return found ? fromCatalogueEntry(found.model_price) : null;
};

/** Prices one channel's upstream model from the loaded catalogue: synchronous, cached per process. */
export type CataloguePricer = (
  channel: Pick<Channel, 'type' | 'baseUrl'>,
  upstreamModel: string,
) => ModelPricing | null;

const pricerOf =
  (prices: PriceCatalogue): CataloguePricer =>
  (channel, upstreamModel) => {
    const provider = catalogProviders[channel.type];
    if (provider === 'free') return FREE;
    const apiRoot = channel.type === 'openai' ? channel.baseUrl : null;
    const id = `${provider}|${apiRoot ?? ''}|${upstreamModel}`;
    const kept = looked.get(id);
    if (kept !== undefined) return kept;
    let pricing: ModelPricing | null;
    try {
      pricing = lookUp(prices, provider, apiRoot, upstreamModel);
    } catch {
      // An entry the package cannot price (malformed data) is a model without a catalogue price.
      pricing = null;
    }
    if (looked.size >= LOOKUPS_KEPT) looked.clear();
    looked.set(id, pricing);
    return pricing;
  };

/** Channel types whose models need no catalogue to be priced. */
export const pricedWithoutCatalogue = (type: ChannelType): boolean => catalogProviders[type] === 'free';

/** The free pricer, for a catalogue that needs no look-up (every model priced by an admin or free). */
export const freeOnlyPricer: CataloguePricer = (channel) => (pricedWithoutCatalogue(channel.type) ? FREE : null);

/** Loads the catalogue (once per process) and returns its pricer. */
export const loadCataloguePricer = async (): Promise<CataloguePricer> => {
  catalogue ??= import('@pydantic/genai-prices');
  return pricerOf(await catalogue);
};
