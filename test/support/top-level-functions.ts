import { Parser, type Node } from 'acorn';

/**
 * The functions of an ES module's top level, outside every function and class body, read with a
 * parser of its own: the arrows among them, as source text, and how many are functions. What V8
 * compiles at a module's top level, and what the build's rewrite (`top-level-functions.ts`) leaves.
 */
export const topLevelFunctions = (code: string): { readonly arrows: string[]; readonly functions: number } => {
  const arrows: string[] = [];
  let functions = 0;
  const visit = (node: Node, topLevel: boolean): void => {
    if (topLevel && node.type === 'ArrowFunctionExpression') arrows.push(code.slice(node.start, node.end));
    if (topLevel && /^Function/.test(node.type)) functions += 1;
    const inside = topLevel && !/Function|ClassBody/.test(node.type);
    for (const value of Object.values(node))
      for (const child of Array.isArray(value) ? value : [value])
        if (child && typeof child === 'object' && typeof child.type === 'string') visit(child as Node, inside);
  };
  visit(Parser.parse(code, { ecmaVersion: 'latest', sourceType: 'module' }), true);
  return { arrows, functions };
};
