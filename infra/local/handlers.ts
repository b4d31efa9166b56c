import type { FunctionGroup } from '../../functions/shared/routes.js';

type HandlerModule = { handler: unknown };

/**
 * The Lambda entry of each endpoint group, imported exactly as Lambda imports it. Loaded on first use
 * and after the streaming globals are installed, since streaming handlers look them up at import.
 */
const loaders: Readonly<Record<FunctionGroup, () => Promise<HandlerModule>>> = {
  models: () => import('../../functions/models/handler.js'),
  chat: () => import('../../functions/chat/handler.js'),
  admin: () => import('../../functions/admin/handler.js'),
  fallback: () => import('../../functions/fallback/handler.js'),
  embeddings: () => import('../../functions/embeddings/handler.js'),
  images: () => import('../../functions/images/handler.js'),
  audio: () => import('../../functions/audio/handler.js'),
  console: () => import('../../functions/console/handler.js'),
};

const loaded = new Map<FunctionGroup, Promise<HandlerModule>>();
const initializations = new Map<FunctionGroup, number>();

/** The handlers already imported: a request to a warm function is invoked without waiting a turn. */
const ready = new Map<FunctionGroup, unknown>();

/** The group's handler; its module is initialised once per process, as once per Lambda instance. */
export const loadHandler = async (group: FunctionGroup): Promise<unknown> => {
  let module = loaded.get(group);
  if (!module) {
    module = loaders[group]();
    loaded.set(group, module);
    initializations.set(group, (initializations.get(group) ?? 0) + 1);
  }
  const { handler } = await module;
  ready.set(group, handler);
  return handler;
};

/** The group's handler if its module has been imported, else undefined (`loadHandler` imports it). */
export const loadedHandler = (group: FunctionGroup): unknown => ready.get(group);

/** How many times each group's module was initialised in this process (a cold start each). */
export const handlerInitializations = (group: FunctionGroup): number => initializations.get(group) ?? 0;
