/**
 * Turns for vendors that require user and assistant to alternate (Anthropic, Bedrock Converse):
 * consecutive blocks of one role are merged into one turn, and empty turns are never made.
 */
export const alternatingTurns = <Block>() => {
  const turns: Array<{ role: 'user' | 'assistant'; content: Block[] }> = [];
  const push = (role: 'user' | 'assistant', blocks: Block[]): void => {
    if (blocks.length === 0) return;
    const last = turns.at(-1);
    if (last?.role === role) last.content.push(...blocks);
    else turns.push({ role, content: blocks });
  };
  return { turns, push };
};
