import type { CommandContext } from './commands.js';
import { formatTable, type Column } from './table.js';

interface ChannelView {
  readonly id: string;
  readonly type: string;
  readonly models: readonly string[];
  readonly enabled: boolean;
}

interface ModelSettingsView {
  readonly id: string;
  readonly pricing?: {
    readonly inputPerMTok: number;
    readonly outputPerMTok: number;
    readonly cachedInputPerMTok?: number;
  } | null;
  /** Where the price comes from: `admin`, `catalog` (the price catalogue) or `none`. */
  readonly pricingSource?: 'admin' | 'catalog' | 'none';
  readonly aliases?: readonly string[];
  readonly ownedBy?: string | null;
}

/** One line of `models list`: a model some channel names, or one that only has settings. */
export interface ModelLine {
  readonly id: string;
  readonly channels: readonly string[];
  readonly settings: ModelSettingsView | undefined;
}

/**
 * Every model the gateway knows: those its channels serve (with the channels, disabled ones marked)
 * and those that only have stored settings, with their pricing and aliases. The built-in `demo`
 * channel is marked: it serves only while it is the only channel.
 */
export const modelLines = (channels: readonly ChannelView[], settings: readonly ModelSettingsView[]): ModelLine[] => {
  const onlyDemo = channels.every((channel) => channel.id === 'demo' && channel.type === 'demo');
  const served = new Map<string, string[]>();
  for (const channel of channels) {
    const builtInDemo = channel.id === 'demo' && channel.type === 'demo';
    const label = !channel.enabled
      ? `${channel.id} (disabled)`
      : builtInDemo && !onlyDemo
        ? `${channel.id} (built-in, not serving)`
        : channel.id;
    for (const model of channel.models) served.set(model, [...(served.get(model) ?? []), label]);
  }
  const settingsById = new Map(settings.map((entry) => [entry.id, entry]));
  const ids = [...new Set([...served.keys(), ...settingsById.keys()])].sort((a, b) => a.localeCompare(b));
  return ids.map((id) => ({ id, channels: served.get(id) ?? [], settings: settingsById.get(id) }));
};

const columns: readonly Column<ModelLine>[] = [
  { header: 'MODEL', value: (row) => row.id },
  { header: 'CHANNELS', value: (row) => row.channels },
  { header: 'INPUT $/MTOK', value: (row) => row.settings?.pricing?.inputPerMTok },
  { header: 'OUTPUT $/MTOK', value: (row) => row.settings?.pricing?.outputPerMTok },
  { header: 'CACHED $/MTOK', value: (row) => row.settings?.pricing?.cachedInputPerMTok },
  { header: 'PRICE FROM', value: (row) => row.settings?.pricingSource ?? 'none' },
  { header: 'ALIASES', value: (row) => row.settings?.aliases },
  { header: 'OWNED BY', value: (row) => row.settings?.ownedBy },
];

/** `gatewayctl models list`: the models with what serves them and what they cost. */
export const listModelsCommand = async (context: CommandContext): Promise<void> => {
  const [channels, settings] = await Promise.all([
    context.client.request('GET', '/admin/v1/channels') as Promise<{ data: ChannelView[] }>,
    context.client.request('GET', '/admin/v1/models') as Promise<{ data: ModelSettingsView[] }>,
  ]);
  const lines = modelLines(channels.data, settings.data);
  if (context.json) return context.print(JSON.stringify({ data: lines }, null, 2));
  context.print(formatTable(lines, columns));
};
