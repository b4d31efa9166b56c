import type { Node } from 'constructs';

/** A true/false switch from CDK context (`-c name=true`): `undefined` when absent, an error for anything else. */
export const contextFlag = (node: Node, name: string): boolean | undefined => {
  const value: unknown = node.tryGetContext(name);
  if (value === undefined) return undefined;
  if (value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  throw new Error(`-c ${name} takes true or false, not '${String(value)}'.`);
};
